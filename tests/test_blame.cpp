// Parallelism over time, per-thread times and idle blame (blame.hpp).
//
// Hand-made records (a chain, a fan-out with one long child on two threads,
// three threads sharing idle time) are checked number by number against values
// worked out by hand in the comments. Random fork-join programs run on real
// threads (tests/support/random_program.hpp) are checked against properties
// computed from the record alone: each thread's busy time is the sum of its
// strands' wall times, the running and ready counts at every sample are those
// a brute-force count over the strands gives, at most P strands run at once,
// the blame rows add up to the idle time exactly, the samples integrate to the
// time in strands, and the sync waits fit in the idle time.
//
// FORKSCALE_PROPERTY_SEED=<n> replays from seed n; FORKSCALE_BLAME_COUNT=<n>
// sets how many programs are run (default 300).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/random_program.hpp"

namespace fs = forkscale;

namespace {

// A record made by hand: sites, spawn-site frames, strands, joins.
struct hand_record {
  fs::execution_record r;

  explicit hand_record(std::uint32_t threads) {
    r.threads.resize(threads);
    r.frames.push_back(fs::record_frame{});  // node 0: the measurement
  }
  std::uint32_t site(const std::string& name, const std::string& function) {
    fs::record_site s;
    s.name = name;
    s.file = "src/" + name.substr(0, name.find(':'));
    s.line = static_cast<unsigned>(std::stoul(name.substr(name.find(':') + 1)));
    s.function = function;
    r.sites.push_back(s);
    return static_cast<std::uint32_t>(r.sites.size() - 1);
  }
  std::uint32_t spawn_frame(std::uint32_t site) {
    fs::record_frame f;
    f.parent = 0;
    f.kind = fs::record_frame::kind_type::spawn;
    f.site = site;
    f.depth = 1;
    r.frames.push_back(f);
    return static_cast<std::uint32_t>(r.frames.size() - 1);
  }
  std::uint32_t strand(std::uint32_t thread, std::uint32_t frame, std::uint64_t start, std::uint64_t end,
                       std::int64_t prev = -1, std::int64_t join = -1) {
    fs::record_strand s;
    s.thread = thread;
    s.frame = frame;
    s.start_ns = start;
    s.end_ns = end;
    s.work = s.span = end - start;
    s.prev = prev;
    s.join = join;
    r.strands.push_back(s);
    r.wall_ns = std::max(r.wall_ns, end);
    return static_cast<std::uint32_t>(r.strands.size() - 1);
  }
  fs::report report() const {
    fs::report rep;
    rep.label = "hand-made";
    rep.unit = "units";  // the cost clock: no overhead compensation
    rep.record = std::make_shared<fs::execution_record>(r);
    return rep;
  }
};

const fs::idle_blame_row* row_named(const fs::timeline_analysis& a, const std::string& name) {
  for (const auto& b : a.blame)
    if (b.name == name) return &b;
  return nullptr;
}

void expect_samples(const fs::timeline_analysis& a, const std::vector<fs::parallelism_sample>& want) {
  ASSERT_EQ(a.samples.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(a.samples[i].time_ns, want[i].time_ns) << "sample " << i;
    EXPECT_EQ(a.samples[i].running, want[i].running) << "sample " << i;
    EXPECT_EQ(a.samples[i].ready, want[i].ready) << "sample " << i;
  }
}

// One thread, three strands of one task: s0 [0,10], s1 [12,30], s2 [30,40].
//  - s1 is ready when s0 ends (10) and starts at 12: ready over [10,12), and
//    nothing runs there; s2 starts when s1 ends.
//  - samples: (0: 1 running), (10: 0 running, 1 ready), (12: 1 running),
//    (40: nothing); at 30 one strand ends as the next starts: no change.
//  - busy 10 + 18 + 10 = 38, idle 40 - 38 = 2, profiler 0 (cost clock);
//  - with P = 1 a running strand leaves nobody idle: the 2 ns of idle are
//    the "(nothing running)" row's.
TEST(TimelineByHand, Chain) {
  hand_record h(1);
  const auto s0 = h.strand(0, 0, 0, 10);
  const auto s1 = h.strand(0, 0, 12, 30, s0);
  h.strand(0, 0, 30, 40, s1);
  const fs::timeline_analysis a = fs::analyze_timeline(h.report());
  ASSERT_TRUE(a.recorded);
  EXPECT_EQ(a.processors, 1u);
  EXPECT_EQ(a.wall_ns, 40u);
  expect_samples(a, {{0, 1, 0}, {10, 0, 1}, {12, 1, 0}, {40, 0, 0}});
  ASSERT_EQ(a.threads.size(), 1u);
  EXPECT_EQ(a.threads[0].strands, 3u);
  EXPECT_EQ(a.threads[0].busy_ns, 38u);
  EXPECT_EQ(a.threads[0].profiler_ns, 0u);
  EXPECT_EQ(a.threads[0].idle_ns, 2u);
  ASSERT_EQ(a.blame.size(), 1u);
  EXPECT_EQ(a.blame[0].kind, fs::idle_blame_row::kind_type::nothing_running);
  EXPECT_EQ(a.blame[0].idle_ns, 2u);
  EXPECT_EQ(a.running_histogram(), (std::vector<std::uint64_t>{2, 38}));
  EXPECT_DOUBLE_EQ(a.average_running(), 38.0 / 40.0);
  EXPECT_DOUBLE_EQ(a.average_ready(), 2.0 / 40.0);
}

// Two threads. The root task (thread 0, frame 0) runs s0 [0,10], spawns the
// long child L (spawn site long.cpp:2), runs s1 [10,20], spawns the short
// child S (short.cpp:1), runs s2 [20,30] and syncs (sync.cpp:3). Thread 1
// takes L: sL [12,100]. Thread 0, waiting in the sync, runs S: sS [30,50], then
// waits for L; the sync returns and s3 runs [105,110].
//
// Ready times: sL at 10 (s0's end), starts 12; sS at 20 (s1's end), starts 30;
// s3 at 100 (the join is done when L ends), starts 105.
// Samples (time: running, ready): 0: 1,0; 10: 1,1; 12: 2,0; 20: 2,1; 30: 2,0;
// 50: 1,0; 100: 0,1; 105: 1,0; 110: 0,0.
// Time in strands 10+10+88+10+20+5 = 143; thread 0: 55 busy, 55 idle;
// thread 1: 88 busy, 22 idle; idle 77 = 2 x 110 - 143.
// Blame (P = 2): [0,10) k=1: 10 to s0; [10,12) k=1: 2 to s1; [12,50) k=2:
// none; [50,100) k=1: 50 to sL; [100,105) k=0: 10 to nothing; [105,110) k=1:
// 5 to s3. Rows: long.cpp:2 50 (1 strand), (root) 10+2+5 = 17 (3 strands),
// (nothing running) 10; they add up to 77.
// The sync waited [30,105] = 75, less sS's 20 run meanwhile: 55 (thread 0's
// whole idle time).
TEST(TimelineByHand, FanOutWithOneLongChild) {
  hand_record h(2);
  const auto short_site = h.site("short.cpp:1", "fan_out");
  const auto long_site = h.site("long.cpp:2", "fan_out");
  const auto sync_site = h.site("sync.cpp:3", "fan_out");
  const auto short_frame = h.spawn_frame(short_site);
  const auto long_frame = h.spawn_frame(long_site);
  const auto s0 = h.strand(0, 0, 0, 10);
  const auto s1 = h.strand(0, 0, 10, 20, s0);
  const auto sL = h.strand(1, long_frame, 12, 100, s0);
  const auto s2 = h.strand(0, 0, 20, 30, s1);
  const auto sS = h.strand(0, short_frame, 30, 50, s1);
  fs::record_join j;
  j.strands = {sL, sS};
  j.site = sync_site;
  j.thread = 0;
  j.wait_start_ns = 30;
  j.wait_end_ns = 105;
  h.r.joins.push_back(j);
  h.strand(0, 0, 105, 110, s2, 0);
  h.r.strands[s1].after_spawn = h.r.strands[s2].after_spawn = true;

  const fs::timeline_analysis a = fs::analyze_timeline(h.report());
  EXPECT_EQ(a.processors, 2u);
  EXPECT_EQ(a.wall_ns, 110u);
  expect_samples(
      a,
      {{0, 1, 0}, {10, 1, 1}, {12, 2, 0}, {20, 2, 1}, {30, 2, 0}, {50, 1, 0}, {100, 0, 1}, {105, 1, 0}, {110, 0, 0}});
  ASSERT_EQ(a.threads.size(), 2u);
  EXPECT_EQ(a.threads[0].busy_ns, 55u);
  EXPECT_EQ(a.threads[0].idle_ns, 55u);
  EXPECT_EQ(a.threads[0].strands, 5u);
  EXPECT_EQ(a.threads[1].busy_ns, 88u);
  EXPECT_EQ(a.threads[1].idle_ns, 22u);
  EXPECT_EQ(a.idle_ns(), 77u);
  // running 0 over [100,105); 1 over 10+2+50+5; 2 over [12,50).
  EXPECT_EQ(a.running_histogram(), (std::vector<std::uint64_t>{5, 67, 38}));
  EXPECT_DOUBLE_EQ(a.average_ready(), (2.0 + 10.0 + 5.0) / 110.0);

  ASSERT_EQ(a.blame.size(), 4u);
  EXPECT_EQ(a.blame[0].name, "long.cpp:2");
  EXPECT_EQ(a.blame[0].idle_ns, 50u);
  EXPECT_EQ(a.blame[0].strands, 1u);
  EXPECT_EQ(a.blame[0].function, "fan_out");
  EXPECT_EQ(a.blame[1].kind, fs::idle_blame_row::kind_type::measurement);
  EXPECT_EQ(a.blame[1].idle_ns, 17u);
  EXPECT_EQ(a.blame[1].strands, 3u);
  EXPECT_EQ(a.blame[2].kind, fs::idle_blame_row::kind_type::nothing_running);
  EXPECT_EQ(a.blame[2].idle_ns, 10u);
  const fs::idle_blame_row* sync = row_named(a, "sync.cpp:3");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->idle_ns, 0u);
  EXPECT_EQ(sync->sync_wait_ns, 55u);
  EXPECT_EQ(sync->syncs, 1u);
  EXPECT_EQ(row_named(a, "short.cpp:1"), nullptr);  // S ran while both threads were busy
}

// Three threads: a [0,10] (a.cpp:1) on thread 0, b [0,10] (b.cpp:2) on thread
// 1, c [0,1] (c.cpp:3) on thread 2. Over [1,10) two strands run and one thread
// idles: 9 ns, 4.5 to each of a and b. The rows are whole numbers adding up to
// 9: one gets 5, the other 4 (the first row in the record's order gets the
// unit left over). c ran while nobody idled: no row.
TEST(TimelineByHand, SharedIdleRoundsToTheTotal) {
  hand_record h(3);
  const auto fa = h.spawn_frame(h.site("a.cpp:1", "f"));
  const auto fb = h.spawn_frame(h.site("b.cpp:2", "f"));
  const auto fc = h.spawn_frame(h.site("c.cpp:3", "f"));
  h.strand(0, fa, 0, 10);
  h.strand(1, fb, 0, 10);
  h.strand(2, fc, 0, 1);
  const fs::timeline_analysis a = fs::analyze_timeline(h.report());
  EXPECT_EQ(a.processors, 3u);
  EXPECT_EQ(a.idle_ns(), 9u);
  ASSERT_EQ(a.blame.size(), 2u);
  EXPECT_EQ(a.blame[0].name, "a.cpp:1");
  EXPECT_EQ(a.blame[0].idle_ns, 5u);
  EXPECT_EQ(a.blame[1].name, "b.cpp:2");
  EXPECT_EQ(a.blame[1].idle_ns, 4u);
}

// The profiler's share on a timed clock: 2.5 ns per strand of compensation,
// rounded once per thread. Thread 0 ran 3 strands of 10 ns in a wall time of
// 40: profiler 7.5 -> 8, busy 30 - 8 = 22, idle 10.
TEST(TimelineByHand, ProfilerShareOnATimedClock) {
  hand_record h(1);
  const auto s0 = h.strand(0, 0, 0, 10);
  const auto s1 = h.strand(0, 0, 10, 20, s0);
  h.strand(0, 0, 30, 40, s1);
  fs::report rep = h.report();
  rep.unit = "ns";
  rep.compensation_per_strand = 2.5;
  const fs::timeline_analysis a = fs::analyze_timeline(rep);
  ASSERT_EQ(a.threads.size(), 1u);
  EXPECT_EQ(a.threads[0].profiler_ns, 8u);
  EXPECT_EQ(a.threads[0].busy_ns, 22u);
  EXPECT_EQ(a.threads[0].idle_ns, 10u);
  EXPECT_EQ(a.threads[0].wall_ns(), 40u);
}

TEST(TimelineByHand, NoRecordNoAnalysis) {
  fs::report rep;
  const fs::timeline_analysis a = fs::analyze_timeline(rep);
  EXPECT_FALSE(a.recorded);
  EXPECT_TRUE(a.samples.empty());
  EXPECT_EQ(fs::timeline_text(rep), "");
  EXPECT_EQ(fs::parallelism_csv(rep), "time_ns,running,ready\n");
}

// The text and CSV of a hand-made record: every text line within 80 columns,
// every CSV row with as many fields as its header.
TEST(TimelineByHand, TextFitsAndCsvRowsAreWhole) {
  hand_record h(2);
  const auto long_frame = h.spawn_frame(h.site("a_rather_long_file_name_for_a_table.cpp:1234", "a::long::function"));
  const auto s0 = h.strand(0, 0, 0, 1000000);
  h.strand(1, long_frame, 5, 90000000000ull, s0);
  const fs::report rep = h.report();
  const std::string text = fs::timeline_text(rep);
  ASSERT_FALSE(text.empty());
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
  for (const std::string& csv : {fs::parallelism_csv(rep), fs::thread_times_csv(rep), fs::idle_blame_csv(rep)}) {
    std::istringstream rows(csv);
    std::string header;
    std::getline(rows, header);
    const auto fields = std::count(header.begin(), header.end(), ',');
    std::size_t n = 0;
    for (std::string row; std::getline(rows, row); ++n)
      EXPECT_EQ(std::count(row.begin(), row.end(), ','), fields) << row;
    EXPECT_GT(n, 0u) << header;
  }
}

// ---- random programs on threads ------------------------------------------------

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoull(v, nullptr, 10);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const std::uint64_t s = env_or("FORKSCALE_PROPERTY_SEED", std::random_device{}());
    std::cout << "[blame] base seed " << s << " (replay with FORKSCALE_PROPERTY_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

// Ready times from the graph, by recursion over joins (an oracle independent
// of detail::blame's iterative one).
std::uint64_t join_done(const fs::execution_record& r, std::size_t j) {
  std::uint64_t t = 0;
  for (std::uint32_t s : r.joins[j].strands) t = std::max(t, r.strands[s].end_ns);
  for (std::uint32_t k : r.joins[j].joins) t = std::max(t, join_done(r, k));
  return t;
}

std::string check_analysis(const fs::report& rep) {
  const fs::execution_record& r = *rep.record;
  const fs::timeline_analysis a = fs::analyze_timeline(rep);
  std::ostringstream out;
  // Per thread: busy (+ profiler, 0 here) is the sum of its strands' wall times.
  std::vector<std::uint64_t> in_strands(r.threads.size(), 0);
  std::uint64_t total = 0;
  for (const auto& s : r.strands) {
    in_strands[s.thread] += s.end_ns - s.start_ns;
    total += s.end_ns - s.start_ns;
  }
  for (const auto& t : a.threads) {
    if (t.busy_ns + t.profiler_ns != in_strands[t.thread])
      out << "  thread " << t.thread << ": busy " << t.busy_ns << ", its strands " << in_strands[t.thread] << "\n";
    if (t.wall_ns() != a.wall_ns) out << "  thread " << t.thread << ": times do not add up to the wall time\n";
  }
  // Running and ready at every sample, counted by brute force.
  std::vector<std::uint64_t> ready(r.strands.size());
  for (std::size_t i = 0; i < r.strands.size(); ++i) {
    const auto& s = r.strands[i];
    std::uint64_t t = s.prev >= 0 ? r.strands[static_cast<std::size_t>(s.prev)].end_ns : 0;
    if (s.join >= 0) t = std::max(t, join_done(r, static_cast<std::size_t>(s.join)));
    ready[i] = s.prev < 0 && s.join < 0 ? s.start_ns : std::min(t, s.start_ns);
  }
  std::uint64_t integral = 0;
  for (std::size_t k = 0; k < a.samples.size(); ++k) {
    const fs::parallelism_sample& p = a.samples[k];
    std::uint32_t running = 0, waiting = 0;
    for (std::size_t i = 0; i < r.strands.size(); ++i) {
      running += r.strands[i].start_ns <= p.time_ns && p.time_ns < r.strands[i].end_ns ? 1 : 0;
      waiting += ready[i] <= p.time_ns && p.time_ns < r.strands[i].start_ns ? 1 : 0;
    }
    if (p.running != running || p.ready != waiting)
      out << "  at " << p.time_ns << ": " << p.running << " running, " << p.ready << " ready; counted " << running
          << ", " << waiting << "\n";
    if (p.running > a.processors) out << "  at " << p.time_ns << ": more running than threads\n";
    const std::uint64_t end = k + 1 < a.samples.size() ? a.samples[k + 1].time_ns : a.wall_ns;
    integral += p.running * (end - p.time_ns);
  }
  if (integral != total) out << "  samples integrate to " << integral << ", strands take " << total << "\n";
  // Blame adds up to the idle time; sync waits fit in it.
  std::uint64_t blamed = 0, waited = 0;
  for (const auto& b : a.blame) {
    blamed += b.idle_ns;
    waited += b.sync_wait_ns;
  }
  if (blamed != a.idle_ns()) out << "  blame " << blamed << ", idle " << a.idle_ns() << "\n";
  if (a.idle_ns() != a.processors * a.wall_ns - total) out << "  idle is not P x wall - time in strands\n";
  if (waited > a.idle_ns()) out << "  sync waits " << waited << " exceed the idle time " << a.idle_ns() << "\n";
  return out.str();
}

TEST(TimelineProperty, RandomProgramsOnThreads) {
  const std::uint64_t count = env_or("FORKSCALE_BLAME_COUNT", 300);
  rp::scheduler sched(3);
  std::uint64_t failures = 0;
  for (std::uint64_t i = 0; i < count && failures < 3; ++i) {
    const std::uint64_t seed = base_seed() + i;
    const rp::program p = rp::generator(seed, false).make();
    rp::interpreter<> run(sched, seed * 7919);
    fs::options opt;
    opt.record = true;
    opt.on_diagnostic = [](const fs::diagnostic&) {};
    const fs::report rep = run.run(p, "program", opt);
    ASSERT_TRUE(rep.record);
    if (!rep.record->complete) continue;
    const std::string diff = check_analysis(rep);
    if (!diff.empty()) {
      ++failures;
      ADD_FAILURE() << "program with seed " << seed << ":\n" << diff << p.describe();
    }
  }
}

}  // namespace
