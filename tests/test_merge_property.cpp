// Property test of merging (fs::session, fs::merge_reports): random fork-join
// programs measured one by one through a session, serially and from several
// threads at once, must give exactly what one measurement of the program that
// runs them one after the other gives — under the cost clock, every region row,
// work, span, burdened span and counts, every on-work profile column and every
// what-if row — with report::check_profile() holding.
//
// The one-after-the-other program: its root runs each measured program inside a
// region named by the measurement's label (one_after_the_other below); the
// brute-force oracle of tests/support/random_program.hpp evaluates it, and the
// engine measures it, and the merge must agree with both. Two things differ by
// definition, and are checked against their own expectations:
//   - the merged root rows count the measurements (region instances, the root
//     call-site row's counts, the root spawn-site row's tasks); one program
//     counts 1;
//   - the on-span profile columns and the local spans follow each
//     measurement's own chosen critical path. Where two paths tie, the engine picks one by task id (docs/model.md), and
//     task ids depend on the spawns made before in the same measurement, so the
//     longer program may pick a different one of two equally long paths. These
//     columns are checked against the sum of the oracle's profiles of each
//     program on its own; and on programs whose strands all cost different
//     amounts (no ties) against the one program too.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_PROPERTY_COUNT=<n>
// sets how many sessions are run (default 400, each of 1 to 4 programs; half as
// many without ties, whose programs are twice as long).
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/random_program.hpp"

namespace {

namespace fs = forkscale;

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[property] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

// The programs of one session: 1 to 4, with one burden and one what-if analysis
// (the session's options are every measurement's), and their labels.
struct session_case {
  std::vector<rp::program> programs;
  std::vector<std::string> labels;
  bool distinct = false;  // every strand costs its own amount: no two paths tie
};

// `b` with a charge of a cost of its own before every statement and at the end,
// and every charge scaled up: every strand then costs a different amount (with
// overwhelming probability), so no two paths tie and the chosen critical path
// is the longest one, whatever the task ids.
rp::body without_ties(const rp::body& b, std::mt19937_64& rng) {
  rp::body out;
  for (const rp::stmt& s : b) {
    out.push_back(rp::charge(1 + rng() % 999983));
    rp::stmt t = s;
    if (t.kind == rp::op::charge) t.cost = t.cost * 1000000 + 1 + rng() % 999983;
    if (t.sub) t.sub = std::make_shared<rp::body>(without_ties(*t.sub, rng));
    out.push_back(std::move(t));
  }
  out.push_back(rp::charge(1 + rng() % 999983));
  return out;
}

session_case make_case(std::uint64_t seed, bool distinct = false) {
  std::mt19937_64 rng(seed);
  const bool what_if = rng() % 2 == 0;
  session_case c;
  const std::size_t n = 1 + rng() % 4;
  static const char* const labels[] = {"request", "batch", "a"};  // "a" is also a nested region's label
  for (std::size_t i = 0; i < n; ++i) {
    c.programs.push_back(rp::generator(seed * 31 + i, what_if).make());
    c.labels.push_back(labels[rng() % 3]);
  }
  for (rp::program& p : c.programs) {
    p.burden = c.programs.front().burden;
    p.what_if = c.programs.front().what_if;
    p.what_if_factors = c.programs.front().what_if_factors;
    p.what_if_call_sites = c.programs.front().what_if_call_sites;
    if (distinct) p.root = without_ties(p.root, rng);
  }
  c.distinct = distinct;
  return c;
}

// A copy of `b` whose task groups and join handles are numbered from the offsets.
rp::body renumbered(const rp::body& b, int groups, int handles) {
  rp::body out;
  for (const rp::stmt& s : b) {
    rp::stmt t = s;
    if (s.kind == rp::op::spawn_group || s.kind == rp::op::group_scope) t.id += groups;
    if (s.kind == rp::op::spawn_handle || s.kind == rp::op::join_handle) t.id += handles;
    if (s.sub) t.sub = std::make_shared<rp::body>(renumbered(*s.sub, groups, handles));
    out.push_back(std::move(t));
  }
  return out;
}

// The programs run one after the other, each inside a region named by its label.
rp::program one_after_the_other(const session_case& c) {
  rp::program all = c.programs.front();
  all.root.clear();
  all.groups = all.handles = 0;
  for (std::size_t i = 0; i < c.programs.size(); ++i) {
    const rp::program& p = c.programs[i];
    rp::stmt r;
    r.kind = rp::op::region;
    r.label = c.labels[i];
    r.sub = std::make_shared<rp::body>(renumbered(p.root, all.groups, all.handles));
    all.root.push_back(std::move(r));
    all.groups += p.groups;
    all.handles += p.handles;
  }
  return all;
}

// The oracle's profiles of each program on its own, summed by site (the root
// rows with each other): what the merged profile must be, every column.
rp::site_profiles summed_profiles(const session_case& c) {
  std::map<rp::detail::site_key, fs::call_site_profile> calls;
  std::map<rp::detail::site_key, fs::spawn_site_profile> spawns;
  auto add = [](fs::site_measure& a, const fs::site_measure& b) {
    a.count += b.count;
    a.work += b.work;
    a.span += b.span;
  };
  std::uint64_t span = 0;
  for (const rp::program& p : c.programs) {
    rp::oracle o;
    span += o.evaluate(p, "program").at("program").span;
    for (const auto& r : o.profiles().call_sites) {
      auto [it, fresh] = calls.emplace(rp::detail::key_of(r), r);
      if (fresh) continue;
      fs::call_site_profile& m = it->second;
      m.recursive = m.recursive || r.recursive;
      add(m.top_call_site_on_work, r.top_call_site_on_work);
      add(m.top_caller_on_work, r.top_caller_on_work);
      add(m.local_on_work, r.local_on_work);
      add(m.top_call_site_on_span, r.top_call_site_on_span);
      add(m.top_caller_on_span, r.top_caller_on_span);
      add(m.local_on_span, r.local_on_span);
    }
    for (const auto& r : o.profiles().spawn_sites) {
      auto [it, fresh] = spawns.emplace(rp::detail::key_of(r), r);
      if (fresh) continue;
      fs::spawn_site_profile& m = it->second;
      m.recursive = m.recursive || r.recursive;
      m.tasks += r.tasks;
      m.work += r.work;
      m.span = 0;  // below, from the call-site row's signed sum
      m.exclusive_work += r.exclusive_work;
      m.critical_span += r.critical_span;
    }
  }
  rp::site_profiles out;
  for (auto& [k, r] : calls) out.call_sites.push_back(r);
  for (auto& [k, r] : spawns) {
    if (r.kind != fs::site_kind::root) {
      const auto& c = calls.at(k);
      r.span = static_cast<std::uint64_t>(std::max<std::int64_t>(0, c.top_call_site_on_work.span));
    } else {
      r.span = calls.at(k).top_call_site_on_work.span;
    }
    r.critical_percent = span ? 100.0 * static_cast<double>(r.critical_span) / static_cast<double>(span) : 0.0;
    out.spawn_sites.push_back(r);
  }
  return out;
}

// A profile of one program with its root rows counting n measurements.
rp::site_profiles counting(rp::site_profiles p, std::uint64_t n) {
  for (auto& r : p.call_sites)
    if (r.kind == fs::site_kind::root)
      for (fs::site_measure* m : {&r.top_call_site_on_work, &r.top_caller_on_work, &r.local_on_work,
                                  &r.top_call_site_on_span, &r.top_caller_on_span, &r.local_on_span})
        m->count = n;
  for (auto& r : p.spawn_sites)
    if (r.kind == fs::site_kind::root) r.tasks = n;
  return p;
}

// The one-after-the-other program's profile with the root rows counting the n
// measurements and the on-span columns (which follow the chosen critical path)
// taken from `summed`, and the local spans on work too (a local span is taken
// along the path chosen inside the invocation, docs/model.md): every other
// column must equal the merged one as it is.
rp::site_profiles tie_free(rp::site_profiles whole, const rp::site_profiles& summed, std::uint64_t n) {
  whole = counting(std::move(whole), n);
  std::map<rp::detail::site_key, const fs::call_site_profile*> calls;
  std::map<rp::detail::site_key, const fs::spawn_site_profile*> spawns;
  for (const auto& r : summed.call_sites) calls[rp::detail::key_of(r)] = &r;
  for (const auto& r : summed.spawn_sites) spawns[rp::detail::key_of(r)] = &r;
  for (auto& r : whole.call_sites) {
    auto it = calls.find(rp::detail::key_of(r));
    if (it == calls.end()) continue;  // a missing row is reported by the comparison
    r.top_call_site_on_span = it->second->top_call_site_on_span;
    r.top_caller_on_span = it->second->top_caller_on_span;
    r.local_on_span = it->second->local_on_span;
    // A local span is measured along the path chosen inside the invocation.
    r.local_on_work.span = it->second->local_on_work.span;
  }
  for (auto& r : whole.spawn_sites) {
    auto it = spawns.find(rp::detail::key_of(r));
    if (it == spawns.end()) continue;
    r.critical_span = it->second->critical_span;
    r.critical_percent = it->second->critical_percent;
  }
  return whole;
}

std::string compare_regions(rp::region_table want, const fs::report& got) {
  std::string diff;
  const rp::region_table have = rp::from_report(got);
  for (const auto& [path, w] : want) {
    auto it = have.find(path);
    if (it == have.end())
      diff += "  missing row " + path + "\n";
    else if (!(it->second == w))
      diff += "  " + path + ": want " + rp::to_string(w) + "\n" + std::string(path.size() + 4, ' ') + "got  " +
              rp::to_string(it->second) + "\n";
  }
  for (const auto& [path, row] : have)
    if (!want.count(path)) diff += "  unexpected row " + path + "\n";
  return diff;
}

// Everything the merged report `merged` of case `c` must be; empty when it is.
std::string check_merged(const session_case& c, const fs::report& merged, rp::interpreter<>& run) {
  const rp::program all = one_after_the_other(c);
  rp::oracle o;
  rp::region_table want = o.evaluate(all, "session");
  want.at("session").instances = c.programs.size();
  std::string out;
  if (const std::string d = compare_regions(want, merged); !d.empty()) out += "regions against the oracle:\n" + d;

  // The engine measuring the one-after-the-other program agrees (and so the
  // merge equals one measurement of it).
  const fs::report one = run.run(all, "session");
  rp::region_table engine = rp::from_report(one);
  engine.at("session").instances = c.programs.size();
  if (const std::string d = compare_regions(engine, merged); !d.empty())
    out += "regions against one measurement:\n" + d;

  const rp::site_profiles summed = summed_profiles(c);
  if (const std::string d = rp::compare_profiles(summed, merged); !d.empty())
    out += "profiles against the programs' own, summed:\n" + d;
  if (const std::string d = rp::compare_profiles(tie_free(o.profiles(), summed, c.programs.size()), merged); !d.empty())
    out += "profiles against the one-after-the-other program (on-work columns):\n" + d;
  if (const std::string d = rp::compare_profiles(
          tie_free(rp::site_profiles{one.call_sites, one.spawn_sites}, summed, c.programs.size()), merged);
      !d.empty())
    out += "profiles against one measurement (on-work columns):\n" + d;
  if (c.distinct) {
    // No ties: every column, the on-span ones included, is the one program's.
    if (const std::string d = rp::compare_profiles(counting(o.profiles(), c.programs.size()), merged); !d.empty())
      out += "profiles against the one-after-the-other program, without ties (every column):\n" + d;
    const rp::site_profiles of_one{one.call_sites, one.spawn_sites};
    if (const std::string d = rp::compare_profiles(counting(of_one, c.programs.size()), merged); !d.empty())
      out += "profiles against one measurement, without ties (every column):\n" + d;
  }
  if (const std::string d = rp::compare_what_if(o.what_if(), merged, false); !d.empty())
    out += "what-if rows against the oracle:\n" + d + rp::explain_what_if(o.what_if());
  if (const std::string d = merged.check_profile(); !d.empty()) out += "check_profile: " + d + "\n";
  if (merged.diagnostic_count != 0) out += "diagnostics: " + merged.diagnostics.front().problem + "\n";

  // A complete report: it reads back, and writes the same JSON again.
  const std::string json = merged.to_json();
  try {
    if (fs::from_json(json).to_json() != json) out += "the JSON does not read back to itself\n";
  } catch (const fs::error& e) {
    out += std::string("the JSON does not read back: ") + e.what() + "\n";
  }
  return out;
}

std::string describe(const session_case& c) {
  std::string s;
  for (std::size_t i = 0; i < c.programs.size(); ++i)
    s += "measurement " + std::to_string(i) + " '" + c.labels[i] + "':\n" + c.programs[i].describe();
  return s;
}

// `threads` 0: the programs measured one after another on this thread, serial
// scheduler; else each on its own thread at once, each with a scheduler of
// `threads` workers. `distinct`: programs without ties (without_ties).
void run_sessions(unsigned threads, std::uint64_t seed_offset, bool distinct = false) {
  const std::uint64_t count = env_or("FORKSCALE_PROPERTY_COUNT", 400) / (distinct ? 2 : 1);
  rp::scheduler serial(0);
  rp::interpreter<> reference(serial, 1);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + seed_offset + i;
    const session_case c = make_case(seed, distinct);
    fs::session s("session", rp::interpreter<>::options_for(c.programs.front()));
    std::vector<fs::report> each(c.programs.size());
    auto measure = [&](std::size_t k, rp::scheduler& sched) {
      rp::interpreter<> run(sched, seed * 7919 + k);
      each[k] = s.measure(c.labels[k], [&] { run.run_inside(c.programs[k]); });
      sched.reset();
    };
    if (threads == 0) {
      for (std::size_t k = 0; k < c.programs.size(); ++k) measure(k, serial);
    } else {
      std::vector<std::thread> ts;
      for (std::size_t k = 0; k < c.programs.size(); ++k)
        ts.emplace_back([&, k] {
          rp::scheduler sched(threads);
          measure(k, sched);
        });
      for (auto& t : ts) t.join();
    }
    const fs::report merged = s.snapshot();
    std::string diff = check_merged(c, merged, reference);
    // merge_reports on the measurements' own reports is the same merge.
    if (threads == 0 && fs::merge_reports(each, "session").to_json() != merged.to_json())
      diff += "merge_reports of the measurements' reports differs from the session's snapshot\n";
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "session with seed " << seed << " (threads " << threads << "):\n" << diff << describe(c);
    }
  }
}

TEST(MergeProperty, SerialMeasurementsMergeToOneAfterTheOther) { run_sessions(0, 0); }

TEST(MergeProperty, ConcurrentMeasurementsMergeToOneAfterTheOther) { run_sessions(2, 1u << 20); }

// Programs whose strands all cost different amounts: no ties, so the merged
// profile equals the one program's in every column.
TEST(MergeProperty, WithoutTiesEveryColumnIsTheOneProgramsToo) {
  run_sessions(0, 1u << 21, true);
  run_sessions(2, 1u << 22, true);
}

// The comparisons above can fail: a changed column of the merged report is seen.
TEST(MergeProperty, ComparisonSeesAChangedColumn) {
  session_case c;
  for (std::uint64_t seed = 1;; ++seed) {
    c = make_case(seed);
    if (c.programs.size() >= 2 && rp::oracle().evaluate(c.programs[0], "p").at("p").spawns > 0) break;
  }
  rp::scheduler serial(0);
  rp::interpreter<> run(serial, 1);
  fs::session s("session", rp::interpreter<>::options_for(c.programs.front()));
  for (std::size_t k = 0; k < c.programs.size(); ++k) s.measure(c.labels[k], [&] { run.run_inside(c.programs[k]); });
  const fs::report merged = s.snapshot();
  ASSERT_EQ(check_merged(c, merged, run), "");
  fs::report changed = merged;
  changed.regions.front().instances = 1;  // one program, not the measurements
  EXPECT_NE(check_merged(c, changed, run), "");
  changed = merged;
  changed.regions.back().span += 1;
  EXPECT_NE(check_merged(c, changed, run), "");
  changed = merged;
  changed.call_sites.back().local_on_span.span += 1;
  EXPECT_NE(check_merged(c, changed, run), "");
  changed = merged;
  changed.call_sites.front().top_call_site_on_work.count = 1;
  EXPECT_NE(check_merged(c, changed, run), "");
  changed = merged;
  changed.spawn_sites.back().exclusive_work += 1;
  EXPECT_NE(check_merged(c, changed, run), "");
}

}  // namespace
