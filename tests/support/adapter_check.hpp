// Helpers for the adapter tests: measure a program under the cost clock with the
// diagnostics collected, and compare two reports number by number.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <forkscale/forkscale.hpp>

namespace adapter_check {

namespace fs = forkscale;

struct run {
  fs::report report;
  std::vector<fs::diagnostic> diagnostics;  // as passed to options.on_diagnostic

  std::string diagnostics_text() const {
    std::string s;
    for (const auto& d : diagnostics) s += "  " + d.where + ": " + d.problem + "\n";
    return s;
  }
};

// Runs fn() as a measurement under the cost clock with the given burden.
template <class Fn>
run measure(const std::string& label, Fn&& fn, double burden) {
  auto lock = std::make_shared<std::mutex>();
  auto found = std::make_shared<std::vector<fs::diagnostic>>();
  fs::options opt;
  opt.clock = fs::clock_kind::cost;
  opt.burden = burden;
  opt.on_diagnostic = [lock, found](const fs::diagnostic& d) {
    std::lock_guard<std::mutex> g(*lock);
    found->push_back(d);
  };
  run r;
  r.report = fs::measure(label, std::forward<Fn>(fn), opt);
  std::lock_guard<std::mutex> g(*lock);
  r.diagnostics = *found;
  return r;
}

inline std::string describe(const fs::region_result& row) {
  std::ostringstream os;
  os << row.path << " {instances " << row.instances << ", work " << row.work << ", span " << row.span << ", burdened "
     << row.burdened_span << ", spawns " << row.spawns << ", syncs " << row.syncs << ", calls " << row.calls
     << ", raw_work " << row.raw_work << ", raw_span " << row.raw_span << "}";
  return os.str();
}

inline std::string describe(const fs::report& r) {
  std::string s;
  for (const auto& row : r.regions) s += "  " + describe(row) + "\n";
  return s;
}

// Every number of `got` equals the one of `want`: every row, in order, field by field.
inline void expect_same(const fs::report& want, const fs::report& got, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(want.unit, got.unit);
  EXPECT_EQ(want.burden, got.burden);
  EXPECT_EQ(want.diagnostic_count, got.diagnostic_count);
  ASSERT_EQ(want.regions.size(), got.regions.size()) << "want\n" << describe(want) << "got\n" << describe(got);
  for (std::size_t i = 0; i < want.regions.size(); ++i) {
    const fs::region_result& a = want.regions[i];
    const fs::region_result& b = got.regions[i];
    EXPECT_EQ(describe(a), describe(b)) << "row " << i;
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.parent, b.parent);
    EXPECT_EQ(a.depth, b.depth);
  }
}

// No misuse found, neither by the handler nor in the report.
inline void expect_clean(const run& r, const std::string& what) {
  EXPECT_EQ(r.report.diagnostic_count, 0u) << what << ":\n" << r.diagnostics_text();
  EXPECT_TRUE(r.diagnostics.empty()) << what << ":\n" << r.diagnostics_text();
}

// The numbers of one row, for hand-computed expectations.
struct numbers {
  std::uint64_t work, span, burdened_span, spawns, syncs, calls;
};
inline void expect_numbers(const fs::report& r, const std::string& path, const numbers& n) {
  const fs::region_result* row = r.find(path);
  ASSERT_NE(row, nullptr) << "no row " << path << " in\n" << describe(r);
  EXPECT_EQ(row->work, n.work) << describe(*row);
  EXPECT_EQ(row->span, n.span) << describe(*row);
  EXPECT_EQ(row->burdened_span, n.burdened_span) << describe(*row);
  EXPECT_EQ(row->spawns, n.spawns) << describe(*row);
  EXPECT_EQ(row->syncs, n.syncs) << describe(*row);
  EXPECT_EQ(row->calls, n.calls) << describe(*row);
}

// Where a report's sites are, as "file:line": the spawn-site rows, the call-site
// table's spawn rows and its call rows (the root row left out).
struct site_places {
  std::set<std::string> spawn_sites, call_table_spawns, call_sites;
};
inline site_places places_of(const fs::report& r) {
  site_places p;
  auto place = [](const std::string& file, unsigned line) { return file + ":" + std::to_string(line); };
  for (const auto& s : r.spawn_sites)
    if (s.kind != fs::site_kind::root) p.spawn_sites.insert(place(s.file, s.line));
  for (const auto& c : r.call_sites) {
    if (c.kind == fs::site_kind::spawn) p.call_table_spawns.insert(place(c.file, c.line));
    if (c.kind == fs::site_kind::call) p.call_sites.insert(place(c.file, c.line));
  }
  return p;
}

// The report's sites are exactly `spawn_lines` and `call_lines` of `file` (the
// caller's source file, __FILE__): no site names a line of an adapter's header.
inline void expect_sites_at(const fs::report& r, const std::string& file, const std::set<unsigned>& spawn_lines,
                            const std::set<unsigned>& call_lines, const std::string& what) {
  SCOPED_TRACE(what);
  auto places = [&](const std::set<unsigned>& lines) {
    std::set<std::string> out;
    for (const unsigned l : lines) out.insert(file + ":" + std::to_string(l));
    return out;
  };
  const site_places got = places_of(r);
  EXPECT_EQ(got.spawn_sites, places(spawn_lines)) << "spawn-site rows";
  EXPECT_EQ(got.call_table_spawns, places(spawn_lines)) << "the call-site table's spawn rows";
  EXPECT_EQ(got.call_sites, places(call_lines)) << "call-site rows";
}

// The threads a program's task bodies ran on.
class thread_log {
 public:
  void note() {
    std::lock_guard<std::mutex> g(m_);
    ids_.insert(std::this_thread::get_id());
  }
  std::size_t count() const {
    std::lock_guard<std::mutex> g(m_);
    return ids_.size();
  }
  void clear() {
    std::lock_guard<std::mutex> g(m_);
    ids_.clear();
  }

 private:
  mutable std::mutex m_;
  std::set<std::thread::id> ids_;
};

}  // namespace adapter_check
