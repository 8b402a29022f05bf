// The record in a JSON report (docs/report-schema.md, "record"): written by
// report::to_json when the report has one, read back by read_report into
// report::record field for field, so that the JSON of what was read is the same
// text; older files without it still read. A damaged record is refused with one
// line naming the row and the column. Random programs (serial and threaded,
// tests/support/random_program.hpp) give the records.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_RECORD_JSON_COUNT=<n>
// sets how many random programs each property runs (default 300).
#include <forkscale/detail/input/report_reader.hpp>  // the strict JSON reader
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "support/random_program.hpp"

namespace fs = forkscale;
namespace json = forkscale::detail::json;

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[record json] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

// Field by field, the first difference ("" when the records are equal).
std::string record_difference(const fs::execution_record& a, const fs::execution_record& b) {
  if (a.complete != b.complete || a.limit_bytes != b.limit_bytes || a.bytes != b.bytes ||
      a.dropped_strands != b.dropped_strands || a.unit != b.unit || a.wall_ns != b.wall_ns)
    return "header";
  if (a.sites.size() != b.sites.size()) return "sites";
  for (std::size_t i = 0; i < a.sites.size(); ++i) {
    const auto &x = a.sites[i], &y = b.sites[i];
    if (x.name != y.name || x.file != y.file || x.line != y.line || x.function != y.function || x.tag != y.tag)
      return "site " + std::to_string(i);
  }
  if (a.frames.size() != b.frames.size()) return "frames";
  for (std::size_t i = 0; i < a.frames.size(); ++i) {
    const auto &x = a.frames[i], &y = b.frames[i];
    if (x.parent != y.parent || x.kind != y.kind || x.site != y.site || x.depth != y.depth)
      return "frame " + std::to_string(i);
  }
  if (a.threads.size() != b.threads.size() || a.tasks.size() != b.tasks.size()) return "threads or tasks";
  for (std::size_t i = 0; i < a.threads.size(); ++i)
    if (a.threads[i].os_id != b.threads[i].os_id || a.threads[i].busy_ns != b.threads[i].busy_ns) return "thread";
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const auto &x = a.tasks[i], &y = b.tasks[i];
    if (x.parent != y.parent || x.frame != y.frame || x.first != y.first || x.last != y.last) return "task";
  }
  if (a.strands.size() != b.strands.size()) return "strands";
  for (std::size_t i = 0; i < a.strands.size(); ++i) {
    const auto &x = a.strands[i], &y = b.strands[i];
    if (x.thread != y.thread || x.frame != y.frame || x.task != y.task || x.start_ns != y.start_ns ||
        x.end_ns != y.end_ns || x.work != y.work || x.span != y.span || x.prev != y.prev || x.join != y.join ||
        x.critical_pred != y.critical_pred || x.after_spawn != y.after_spawn || x.critical != y.critical)
      return "strand " + std::to_string(i);
  }
  if (a.joins.size() != b.joins.size()) return "joins";
  for (std::size_t i = 0; i < a.joins.size(); ++i) {
    const auto &x = a.joins[i], &y = b.joins[i];
    if (x.strands != y.strands || x.joins != y.joins || x.site != y.site || x.thread != y.thread ||
        x.wait_start_ns != y.wait_start_ns || x.wait_end_ns != y.wait_end_ns)
      return "join " + std::to_string(i);
  }
  if (a.regions.size() != b.regions.size()) return "regions";
  for (std::size_t i = 0; i < a.regions.size(); ++i) {
    const auto &x = a.regions[i], &y = b.regions[i];
    if (x.path != y.path || x.thread != y.thread || x.start_ns != y.start_ns || x.end_ns != y.end_ns) return "region";
  }
  return a.critical_path == b.critical_path ? "" : "critical path";
}

void round_trip_programs(unsigned workers, std::uint64_t seed_offset) {
  const std::uint64_t count = env_or("FORKSCALE_RECORD_JSON_COUNT", 300);
  rp::scheduler sched(workers);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const rp::program p = rp::generator(seed, i % 2 == 0).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(p, "program", opt);
    const std::string text = rep.to_json();
    std::string problem;
    try {
      const fs::report back = fs::from_json(text);
      if (!back.record) {
        problem = "no record read back";
      } else {
        problem = record_difference(*rep.record, *back.record);
        if (problem.empty() && back.to_json() != text) problem = "the JSON of what was read differs";
      }
    } catch (const fs::error& e) {
      problem = e.what();
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << " (workers " << workers << "): " << problem << "\n"
                    << p.describe();
    }
  }
}

}  // namespace

TEST(RecordJsonProperty, SerialRecordsRoundTrip) { round_trip_programs(0, 0); }
TEST(RecordJsonProperty, ThreadedRecordsRoundTrip) { round_trip_programs(3, 1u << 20); }

namespace {

long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  auto t = fs::spawn([&] { x = fib(n - 1); });
  t();
  {
    fs::call_site cs(fs::site::tagged("the \"call\" \xE2\x80\xA8 side"));
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}

fs::report recorded_fib(bool record) {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  o.record = record;
  return fs::measure(
      "fib",
      [] {
        fs::region r("inner");
        fib(6);
      },
      o);
}

json::value& at(json::value& object, const char* key) {
  for (auto& m : object.members)
    if (m.key == key) return m.v;
  throw std::runtime_error(std::string("no member ") + key);
}

// The report's JSON with its record changed by `edit`, as text.
std::string edited(const fs::report& rep, const std::function<void(json::value&)>& edit) {
  json::value top = json::parse(rep.to_json());
  edit(at(top, "record"));
  fs::detail::output::json_writer j;
  json::write_value(j, top);
  return j.finish();
}

json::value number(const std::string& text) {
  json::value v;
  v.type = json::kind::number;
  v.text = text;
  return v;
}

// from_json refuses `text` with one line that contains `part`.
void expect_refused(const std::string& text, const std::string& part) {
  try {
    (void)fs::from_json(text);
    ADD_FAILURE() << "accepted; expected an error with: " << part;
  } catch (const fs::error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("forkscale: invalid report JSON: byte ", 0), 0u) << m;
    EXPECT_NE(m.find(part), std::string::npos) << m << "\n  expected: " << part;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

}  // namespace

TEST(RecordJson, ViewsOfWhatWasReadAreTheSame) {
  const fs::report rep = recorded_fib(true);
  const fs::report back = fs::from_json(rep.to_json());
  ASSERT_TRUE(back.record);
  EXPECT_EQ(back.to_trace(), rep.to_trace());
  EXPECT_EQ(back.to_folded(fs::folded_kind::work), rep.to_folded(fs::folded_kind::work));
  EXPECT_EQ(back.to_folded(fs::folded_kind::critical_path), rep.to_folded(fs::folded_kind::critical_path));
  EXPECT_EQ(record_difference(*rep.record, *back.record), "");
}

TEST(RecordJson, FilesWithoutARecordStillRead) {
  const fs::report plain = recorded_fib(false);
  const std::string text = plain.to_json();
  EXPECT_EQ(text.find("\"record\""), std::string::npos);
  const fs::report back = fs::from_json(text);
  EXPECT_FALSE(back.record);
  EXPECT_EQ(back.to_json(), text);
  // The record is the last member: a recorded report without it is the plain one.
  const fs::report rep = recorded_fib(true);
  json::value top = json::parse(rep.to_json());
  top.members.pop_back();
  ASSERT_EQ(at(top, "diagnostics").type, json::kind::array);
  fs::detail::output::json_writer j;
  json::write_value(j, top);
  EXPECT_FALSE(fs::from_json(j.finish()).record);
}

TEST(RecordJson, DamagedRecordsAreRefusedNamingTheField) {
  const fs::report rep = recorded_fib(true);
  const auto& r = *rep.record;
  const std::string n = std::to_string(r.strands.size());
  expect_refused(edited(rep, [&](json::value& v) { at(v, "strands").items[1].items[7] = number(n); }),
                 "record.strands[1][7] (prev): " + n + " is not -1 or an index into strands (" + n + " rows)");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "strands").items[0].items[0] = number("-1"); }),
                 "record.strands[0][0] (thread): expected an unsigned 64-bit integer, found '-1'");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "strands").items[2].items.pop_back(); }),
                 "record.strands[2]: expected a row of 12 columns, found 11");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "strands").items[0].items[10] = number("1"); }),
                 "record.strands[0][10] (after_spawn): expected true or false, found a number");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "strands").items[0].items[4] = number("0"); }),
                 "record.strands[0][4] (end_ns): 0 is before start_ns");
  expect_refused(edited(rep,
                        [&](json::value& v) {
                          json::value& flag = at(v, "strands").items[r.critical_path.front()].items[11];
                          flag.boolean = false;
                        }),
                 "(critical) is false but the strand is on the critical path (the file is inconsistent)");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "critical_path").items[0] = number(n); }),
                 "record.critical_path[0]: expected a strand index below " + n);
  expect_refused(edited(rep, [&](json::value& v) { at(v, "joins").items[0].items[4].items.push_back(number(n)); }),
                 "record.joins[0][4] (strands)[");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "frames").items[1].items[0] = number("1"); }),
                 "record.frames[1][0] (parent): 1 is not an index into the frames before it (1 rows)");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "frames").items[1].items[1].text = "root"; }),
                 "record.frames[1][1] (kind): only frame 0 is the root");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "frames").items[1].items[1].text = "loop"; }),
                 "unknown frame kind 'loop'");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "unit").text = "ns"; }),
                 "record.unit: 'ns' differs from the report's unit 'units'");
  expect_refused(edited(rep, [&](json::value& v) { at(v, "regions").items[0].items[1] = number("7"); }),
                 "record.regions[0][1] (thread): 7 is not an index into threads (1 rows)");
  expect_refused(edited(rep, [&](json::value& v) { v.members.erase(v.members.begin()); }),
                 "record: missing key 'complete'");
}
