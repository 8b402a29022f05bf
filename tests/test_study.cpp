// The scaling study (study.hpp): every formula on synthetic numbers, the summary
// statistics, the JSON/text/CSV forms, the options (oversubscription, clocks),
// and an end-to-end study of a quicksort on std::threads at P = 1 and 2.
//
// No assertion depends on timing: the end-to-end test checks the structure of
// the result and that IP and FP follow from the recorded numbers by the formulas.
#include <forkscale/forkscale.hpp>
#include <forkscale/study/run_checks.hpp>
#include <forkscale/study/study.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = forkscale;
namespace sc = forkscale::scaling;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool any_warning(const fs::study_result& s, const std::string& part) {
  for (const auto& w : s.warnings)
    if (contains(w, part)) return true;
  return false;
}

}  // namespace

// ---- statistics ---------------------------------------------------------------------

TEST(StudyStats, MeanMedianSpread) {
  const fs::sample_stats odd = fs::sample_stats::of({5, 1, 3});
  EXPECT_EQ(odd.mean, 3);
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.max, 5);
  EXPECT_DOUBLE_EQ(odd.stddev, 2);                         // sqrt(((2)^2 + (2)^2 + 0) / 2)
  EXPECT_EQ(odd.samples, (std::vector<double>{5, 1, 3}));  // kept in run order

  const fs::sample_stats even = fs::sample_stats::of({4, 1, 2, 10});
  EXPECT_EQ(even.mean, 4.25);
  EXPECT_EQ(even.median, 3);
  const fs::sample_stats one = fs::sample_stats::of({7});
  EXPECT_EQ(one.median, 7);
  EXPECT_TRUE(std::isnan(one.stddev));
  const fs::sample_stats none = fs::sample_stats::of({});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(std::isnan(none.mean) && std::isnan(none.median) && std::isnan(none.min) && std::isnan(none.max));
}

// ---- the formulas (Acar, Charguéraud, Rainey §2) --------------------------------------

TEST(StudyFormulas, IdleTimeAndWorkInflation) {
  // P = 4 threads for TP = 300 ns: 1200 ns of thread time; WP = 1000 ns of it was work.
  EXPECT_EQ(sc::idle_time(4, 300, 1000), 200);    // Fact 2.1: IP = P·TP − WP
  EXPECT_EQ(sc::work_inflation(1000, 900), 100);  // Fact 2.2: FP = WP − T1
  // Fact 2.3: FP = P·TP − IP − T1.
  EXPECT_EQ(sc::work_inflation(1000, 900), 4 * 300 - sc::idle_time(4, 300, 1000) - 900);
  // Fact 2.4: TP = (T1 + IP + FP) / P.
  EXPECT_EQ((900 + sc::idle_time(4, 300, 1000) + sc::work_inflation(1000, 900)) / 4, 300);
}

TEST(StudyFormulas, FactoredSpeedups) {
  // Ts = 800, Te = 850, T1 = 1000, P = 4, TP = 400, WP = 1200: IP = 400, FP = 200.
  const sc::factored_speedups f = sc::factored(4, 800, 1000, 400, 1200, 850);
  EXPECT_EQ(f.linear, 4);
  EXPECT_DOUBLE_EQ(f.elision, 4 * 800.0 / 850);           // P·Ts/Te
  EXPECT_DOUBLE_EQ(f.maximal, 3.2);                       // P·Ts/T1 = 3200/1000
  EXPECT_DOUBLE_EQ(f.idle_specific, 3200.0 / 1400);       // P·Ts/(T1+IP)
  EXPECT_DOUBLE_EQ(f.inflation_specific, 3200.0 / 1200);  // P·Ts/(P·TP−IP) = P·Ts/(T1+FP)
  EXPECT_DOUBLE_EQ(f.actual, 2);                          // Ts/TP
  // Fact 2.5: Ts/TP = P·Ts/(T1 + IP + FP).
  EXPECT_DOUBLE_EQ(f.actual, 3200.0 / (1000 + 400 + 200));
  // The order of the curves when IP, FP >= 0 (Acar §2.4).
  EXPECT_GE(f.linear, f.maximal);
  EXPECT_GE(f.maximal, f.idle_specific);
  EXPECT_GE(f.maximal, f.inflation_specific);
  EXPECT_GE(f.idle_specific, f.actual);
  EXPECT_GE(f.inflation_specific, f.actual);

  // Without an elision its curve is NaN; degenerate denominators give NaN, never inf.
  const sc::factored_speedups g = sc::factored(2, 100, 0, 0, 0);
  EXPECT_TRUE(std::isnan(g.elision));
  EXPECT_TRUE(std::isnan(g.maximal));
  EXPECT_TRUE(std::isnan(g.actual));
  EXPECT_TRUE(std::isnan(g.inflation_specific));
  EXPECT_TRUE(std::isnan(sc::factored(2, 100, 100, 50, std::nan("")).idle_specific));
  EXPECT_TRUE(std::isnan(sc::ratio(1, -1)));
}

TEST(StudyFormulas, CilkviewBoundsAndBandwidth) {
  EXPECT_EQ(sc::work_law(8), 8);
  EXPECT_EQ(sc::span_law(1000, 40), 25);
  // The lower bound is the report's own speedup estimate (Corollary 2, δ = 0.85).
  fs::region_result r;
  r.work = 5'570'609'776;  // Cilkview Fig. 6's quicksort
  r.span = 261'374'874;
  r.burdened_span = 262'078'779;
  for (const auto& b : r.speedup_estimate(32))
    EXPECT_DOUBLE_EQ(
        sc::burdened_lower_bound(b.processors, static_cast<double>(r.work), static_cast<double>(r.burdened_span)),
        b.lower)
        << b.processors;
  // By hand: 5570609776 / (5570609776/2 + 1.7 * 262078779) = 1.7242.
  EXPECT_NEAR(sc::burdened_lower_bound(2, 5570609776.0, 262078779.0), 1.7242, 0.0001);
  EXPECT_EQ(sc::bandwidth_slowdown(150, 100), 1.5);
  EXPECT_TRUE(std::isnan(sc::bandwidth_slowdown(150, 0)));
}

TEST(StudyFormulas, RecomputeUsesMeansAndTheChosenWork) {
  fs::study_result s;
  s.baseline = fs::sample_stats::of({90, 110});  // Ts = 100
  fs::study_point p1, p2;
  p1.processors = 1;
  p1.time = fs::sample_stats::of({118, 122});      // T1 = 120
  p1.raw_work = fs::sample_stats::of({117, 119});  // W1 = 118
  p1.work = fs::sample_stats::of({107, 109});      // compensated: 108
  p2.processors = 2;
  p2.time = fs::sample_stats::of({70, 80});        // T2 = 75
  p2.raw_work = fs::sample_stats::of({130, 140});  // W2 = 135
  p2.work = fs::sample_stats::of({120, 130});      // 125
  s.points = {p1, p2};
  s.recompute();
  const fs::study_point& q = s.points[1];
  EXPECT_EQ(q.parallel_work, 135);
  EXPECT_EQ(q.idle_time, 2 * 75 - 135);    // 15
  EXPECT_EQ(q.work_inflation, 135 - 120);  // 15
  EXPECT_EQ(q.idle.samples, (std::vector<double>{2 * 70 - 130, 2 * 80 - 140}));
  EXPECT_EQ(q.inflation.samples, (std::vector<double>{130 - 120, 140 - 120}));
  EXPECT_DOUBLE_EQ(q.speedup.actual, 100.0 / 75);
  EXPECT_DOUBLE_EQ(q.actual_low, 100.0 / 80);
  EXPECT_DOUBLE_EQ(q.actual_high, 100.0 / 70);
  EXPECT_DOUBLE_EQ(q.self_speedup, 120.0 / 75);
  EXPECT_DOUBLE_EQ(q.self_low, 120.0 / 80);
  EXPECT_DOUBLE_EQ(q.speedup.maximal, 200.0 / 120);
  EXPECT_DOUBLE_EQ(q.speedup.idle_specific, 200.0 / (120 + 15));
  EXPECT_DOUBLE_EQ(q.speedup.inflation_specific, 200.0 / 135);
  // At P = 1: I1 = T1 − W1 and F1 = W1 − T1 = −I1.
  EXPECT_EQ(s.points[0].idle_time, 2);
  EXPECT_EQ(s.points[0].work_inflation, -2);

  s.compensated_work = true;  // WP from the compensated work instead
  s.recompute();
  EXPECT_EQ(s.points[1].parallel_work, 125);
  EXPECT_EQ(s.points[1].idle_time, 25);
  EXPECT_EQ(s.points[1].work_inflation, 5);
}

// ---- documents --------------------------------------------------------------------------

namespace {

fs::study_result synthetic() {
  fs::study_result s;
  s.label = "synthetic <study>";
  s.clock = fs::clock_kind::steady;
  s.hardware_threads = 2;
  s.repetitions = 2;
  s.baseline = fs::sample_stats::of({1000, 1100});
  for (unsigned p : {1u, 2u, 4u}) {
    fs::study_point pt;
    pt.processors = p;
    pt.oversubscribed = p > 2;
    pt.time = fs::sample_stats::of({1200.0 / p + 10, 1200.0 / p + 20});
    pt.raw_work = fs::sample_stats::of({1190, 1210});
    pt.work = pt.raw_work;
    pt.spawns = fs::sample_stats::of({10, 10});
    s.points.push_back(pt);
  }
  s.recompute();
  return s;
}

}  // namespace

TEST(StudyOutput, JsonRoundTripsAndTextNamesEverything) {
  fs::study_result s = synthetic();
  s.warnings.push_back("one warning");
  const std::string j = s.to_json();
  EXPECT_TRUE(contains(j, "\"schema\": \"forkscale.study\""));
  EXPECT_TRUE(contains(j, "\"schema_version\": 1"));
  EXPECT_TRUE(contains(j, "\"elision\": {\n    \"mean\": null"));
  EXPECT_TRUE(contains(j, "\"profile\": null"));
  const fs::study_result back = fs::study_from_json(j);
  EXPECT_EQ(back.to_json(), j);
  EXPECT_EQ(back.to_text(), s.to_text());
  EXPECT_EQ(back.to_csv(), s.to_csv());

  const std::string t = s.to_text();
  for (const char* part :
       {"Ts  baseline:", "T1  1 thread:", "Per thread count", "Factored speedups", "Scalability bounds",
        "Memory-bandwidth probe", "4*", "more threads than the 2 hardware", "one warning"})
    EXPECT_TRUE(contains(t, part)) << part;
  const std::string c = s.to_csv();
  EXPECT_EQ(c.substr(0, c.find('\n')),
            "processors,oversubscribed,time_mean,time_median,time_min,time_max,time_stddev,parallel_work,"
            "idle_time,work_inflation,speedup_linear,speedup_elision,speedup_maximal,speedup_idle_specific,"
            "speedup_inflation_specific,speedup_actual,self_speedup,bandwidth_slowdown,ts,te,t1,unit");
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 4);
}

// The spread of repeated runs is one number, named one way, in the table, its
// legend and the warnings: the whole range over the median.
TEST(StudyOutput, SpreadIsTheWholeRangeInTheTableAndTheWarnings) {
  fs::study_result s;
  s.hardware_threads = 2;
  s.repetitions = 3;
  s.baseline = fs::sample_stats::of({100, 140, 120});  // median 120, range 40: 33.3%
  fs::study_point p1, p2;
  p1.processors = 1;
  p1.time = fs::sample_stats::of({100, 130, 110});  // median 110, range 30: 27.3%
  p2.processors = 2;
  p2.time = fs::sample_stats::of({60, 62, 61});  // median 61, range 2: 3.3%
  s.points = {p1, p2};
  s.recompute();
  fs::detail::study::add_derived_warnings(s);
  const std::string t = s.to_text();
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(t.substr(t.find("2) Per thread count")));
  for (std::string line; std::getline(in, line) && !line.empty();) {
    std::istringstream words(line);
    rows.emplace_back();
    for (std::string w; words >> w;) rows.back().push_back(w);
  }
  ASSERT_GE(rows.size(), 4u) << t;
  EXPECT_EQ(rows[1].at(2), "spread") << t;
  EXPECT_EQ(rows[2].at(0), "1") << t;
  EXPECT_EQ(rows[2].at(2), "27.3%") << t;
  EXPECT_EQ(rows[3].at(2), "3.3%") << t;
  EXPECT_FALSE(contains(t, "\xC2\xB1")) << "a '±' reads as half the range\n" << t;
  EXPECT_TRUE(contains(t, "spread: the whole range of TP over the runs, (max - min) / median")) << t;
  EXPECT_TRUE(any_warning(s, "TP at P = 1 has a spread of 27.3% over the runs ((max - min) / median, above 25%)")) << t;
  EXPECT_FALSE(any_warning(s, "TP at P = 2")) << t;
  EXPECT_TRUE(any_warning(s, "Ts has a spread of 33.3% over the runs ((max - min) / median, above 25%)")) << t;
}

TEST(StudyOutput, InconsistentFilesAreRefused) {
  const std::string j = synthetic().to_json();
  std::string bad = j;
  const std::string from = "\"idle_time\": ";
  const std::size_t at = bad.find(from, bad.find("\"processors\": 2"));
  ASSERT_NE(at, std::string::npos);
  bad.insert(at + from.size(), "1");  // a different idle time than the samples give
  try {
    fs::study_from_json(bad);
    FAIL() << "accepted";
  } catch (const fs::error& e) {
    EXPECT_TRUE(contains(e.what(), "runs[1].idle_time is")) << e.what();
    EXPECT_TRUE(contains(e.what(), "(the file is inconsistent)")) << e.what();
  }
}

// ---- running a study -----------------------------------------------------------------------

namespace {

// A quicksort on std::threads, annotated as the quicksort example is: spawns at
// a depth below the cutoff run on a new std::thread (at most `threads` threads
// at once), deeper ones inline.
constexpr std::ptrdiff_t coarsening = 32;

std::ptrdiff_t partition(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) {
  const std::int64_t pivot = a[low + (high - low) / 2];
  std::ptrdiff_t l = low - 1, r = high;
  for (;;) {
    do ++l;
    while (a[l] < pivot);
    do --r;
    while (a[r] > pivot);
    if (l >= r) return l == low ? l + 1 : l;
    std::swap(a[l], a[r]);
  }
}

void pqsort(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high, unsigned depth, unsigned cutoff) {
  if (high - low < coarsening) {
    std::sort(a + low, a + high);
    return;
  }
  const std::ptrdiff_t p = partition(a, low, high);
  if (depth < cutoff) {
    fs::join_handle h;
    std::thread t(fs::spawn(h, [=] { pqsort(a, low, p, depth + 1, cutoff); }));
    pqsort(a, p, high, depth + 1, cutoff);
    fs::sync_point sp(h);
    t.join();
  } else {
    fs::spawn([=] { pqsort(a, low, p, depth + 1, cutoff); })();
    pqsort(a, p, high, depth + 1, cutoff);
    fs::sync_point sp;
  }
}

unsigned cutoff_for(unsigned threads) {
  unsigned c = 0;
  while (threads >= (2u << c)) ++c;
  return c;
}

struct sort_workload {
  std::vector<std::int64_t> input;
  std::vector<std::int64_t> data;
  std::atomic<unsigned> parallel_runs{0};

  explicit sort_workload(std::size_t n) : input(n) {
    std::mt19937_64 gen(42);
    for (auto& x : input) x = static_cast<std::int64_t>(gen());
  }

  fs::study_workload make() {
    fs::study_workload w;
    w.setup = [this] { data = input; };
    w.baseline = [this] { std::sort(data.begin(), data.end()); };
    w.elision = [this] { pqsort(data.data(), 0, static_cast<std::ptrdiff_t>(data.size()), 0, 0); };
    w.parallel = [this](unsigned p) {
      ++parallel_runs;
      pqsort(data.data(), 0, static_cast<std::ptrdiff_t>(data.size()), 0, cutoff_for(p));
      if (!std::is_sorted(data.begin(), data.end())) throw std::runtime_error("not sorted");
    };
    w.baseline_copy = [this](unsigned) {
      auto copy = std::make_shared<std::vector<std::int64_t>>(input);
      return std::function<void()>([copy] { std::sort(copy->begin(), copy->end()); });
    };
    return w;
  }
};

}  // namespace

TEST(StudyRun, EndToEndQuicksortAtOneAndTwoThreads) {
  sort_workload q(20000);
  fs::study_options opt;
  opt.processors = {2};  // 1 is added
  opt.repetitions = 2;
  opt.hardware_threads = 1;  // pretend one hardware thread: P = 2 must be flagged
  std::vector<std::string> progress;
  opt.progress = [&](const std::string& line) { progress.push_back(line); };
  const fs::study_result s = fs::run_study("quicksort", q.make(), opt);

  EXPECT_EQ(q.parallel_runs.load(), 2u * (1 + 2));  // warm-up + 2 rounds, at P = 1 and 2
  EXPECT_FALSE(progress.empty());
  EXPECT_EQ(s.label, "quicksort");
  EXPECT_EQ(s.unit, "ns");
  EXPECT_EQ(s.repetitions, 2u);
  EXPECT_EQ(s.hardware_threads, 1u);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[0].processors, 1u);
  EXPECT_EQ(s.points[1].processors, 2u);
  EXPECT_FALSE(s.points[0].oversubscribed);
  EXPECT_TRUE(s.points[1].oversubscribed);
  EXPECT_EQ(s.baseline.count(), 2u);
  EXPECT_EQ(s.elision.count(), 2u);
  EXPECT_TRUE(s.has_elision());
  const double t1 = s.points[0].time.mean;
  for (const auto& pt : s.points) {
    SCOPED_TRACE(pt.processors);
    EXPECT_EQ(pt.time.count(), 2u);
    EXPECT_EQ(pt.raw_work.count(), 2u);
    EXPECT_EQ(pt.work.count(), 2u);
    EXPECT_EQ(pt.span.count(), 2u);
    EXPECT_GT(pt.time.min, 0);
    EXPECT_GT(pt.raw_work.min, 0);
    EXPECT_GE(pt.raw_work.min, pt.work.min);
    EXPECT_GT(pt.spawns.min, 0);
    EXPECT_EQ(pt.diagnostic_count, 0u);
    // IP and FP follow from the recorded numbers by Acar's formulas.
    EXPECT_EQ(pt.parallel_work, pt.raw_work.mean);
    EXPECT_EQ(pt.idle_time, pt.processors * pt.time.mean - pt.raw_work.mean);
    EXPECT_EQ(pt.work_inflation, pt.raw_work.mean - t1);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(pt.idle.samples[i], pt.processors * pt.time.samples[i] - pt.raw_work.samples[i]);
      EXPECT_EQ(pt.inflation.samples[i], pt.raw_work.samples[i] - t1);
    }
    const sc::factored_speedups f =
        sc::factored(pt.processors, s.baseline.mean, t1, pt.time.mean, pt.raw_work.mean, s.elision.mean);
    EXPECT_EQ(pt.speedup.maximal, f.maximal);
    EXPECT_EQ(pt.speedup.idle_specific, f.idle_specific);
    EXPECT_EQ(pt.speedup.inflation_specific, f.inflation_specific);
    EXPECT_EQ(pt.speedup.actual, s.baseline.mean / pt.time.mean);
    EXPECT_EQ(pt.speedup.elision, f.elision);
  }
  // The profile is one of the 1-thread runs; the bounds come from it.
  ASSERT_FALSE(s.profile.empty());
  EXPECT_EQ(s.profile.label, "quicksort");
  EXPECT_EQ(s.bounds.work, static_cast<double>(s.profile.work()));
  EXPECT_EQ(s.bounds.parallelism, s.profile.parallelism());
  // The bandwidth probe ran for 2 copies.
  ASSERT_EQ(s.bandwidth.size(), 1u);
  EXPECT_EQ(s.bandwidth[0].copies, 2u);
  EXPECT_TRUE(s.bandwidth[0].oversubscribed);
  EXPECT_EQ(s.probe_alone.count(), 2u);
  EXPECT_EQ(s.bandwidth[0].together.count(), 2u);
  EXPECT_EQ(s.bandwidth[0].slowdown, s.bandwidth[0].together.mean / s.probe_alone.mean);
  // More threads than hardware threads: warned and labeled.
  EXPECT_TRUE(any_warning(s, "P = 2 is more than the 1 hardware threads")) << s.to_text();
  EXPECT_TRUE(contains(s.to_text(), "2*"));
  EXPECT_TRUE(contains(s.to_text(), "* more threads than the 1 hardware threads"));
  // And it survives JSON.
  EXPECT_EQ(fs::study_from_json(s.to_json()).to_json(), s.to_json());
}

TEST(StudyRun, RealHardwareThreadsAndDefaultList) {
  sort_workload q(5000);
  fs::study_options opt;
  opt.processors = {1, 2};
  opt.repetitions = 1;
  opt.warmup = 0;
  const fs::study_result s = fs::run_study("sort", q.make(), opt);
  const unsigned hw = std::thread::hardware_concurrency();
  EXPECT_EQ(s.hardware_threads, hw);
  if (hw >= 2) {
    EXPECT_FALSE(s.points[1].oversubscribed);
    EXPECT_FALSE(any_warning(s, "more than the"));
  }
  // The default list: powers of two up to the hardware threads, and them.
  fs::study_options d;
  d.hardware_threads = 6;
  EXPECT_EQ(fs::detail::study::processor_list(d, 6), (std::vector<unsigned>{1, 2, 4, 6}));
  d.processors = {8, 2, 2};
  EXPECT_EQ(fs::detail::study::processor_list(d, 6), (std::vector<unsigned>{1, 2, 8}));
}

TEST(StudyRun, OversubscriptionPolicies) {
  sort_workload q(2000);
  fs::study_options opt;
  opt.processors = {2, 3};
  opt.repetitions = 1;
  opt.warmup = 0;
  opt.hardware_threads = 2;
  opt.oversubscribed = fs::oversubscription::refuse;
  try {
    fs::run_study("sort", q.make(), opt);
    FAIL() << "P = 3 was not refused";
  } catch (const fs::error& e) {
    EXPECT_EQ(std::string(e.what()),
              "forkscale: scaling study 'sort': P = 3 is more than the 2 hardware threads "
              "(use oversubscription::warn or skip to allow it)");
  }
  EXPECT_EQ(q.parallel_runs.load(), 0u);  // refused before running anything

  opt.oversubscribed = fs::oversubscription::skip;
  const fs::study_result s = fs::run_study("sort", q.make(), opt);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points.back().processors, 2u);
  EXPECT_TRUE(any_warning(s, "P = 3 left out: more than the 2 hardware threads"));
}

TEST(StudyRun, BadRequestsAreRefused) {
  sort_workload q(100);
  const auto message = [&](fs::study_workload w, fs::study_options o) {
    try {
      fs::run_study("x", w, o);
      return std::string();
    } catch (const fs::error& e) {
      return std::string(e.what());
    }
  };
  fs::study_options opt;
  opt.repetitions = 1;
  opt.warmup = 0;
  fs::study_workload no_base = q.make();
  no_base.baseline = nullptr;
  EXPECT_TRUE(contains(message(no_base, opt), "no sequential baseline given"));
  fs::study_workload no_par = q.make();
  no_par.parallel = nullptr;
  EXPECT_TRUE(contains(message(no_par, opt), "no parallel program given"));
  fs::study_options cost = opt;
  cost.measure.clock = fs::clock_kind::cost;
  EXPECT_TRUE(contains(message(q.make(), cost), "a study needs a timed clock"));
  fs::study_options zero = opt;
  zero.repetitions = 0;
  EXPECT_TRUE(contains(message(q.make(), zero), "repetitions must be at least 1"));
  fs::study_options p0 = opt;
  p0.processors = {0};
  EXPECT_TRUE(contains(message(q.make(), p0), "P = 0 is not a thread count"));
}

TEST(StudyRun, WorkloadExceptionsPropagateAndProbeThreadsAreJoined) {
  sort_workload q(100);
  fs::study_options opt;
  opt.processors = {2};
  opt.repetitions = 1;
  opt.warmup = 0;
  opt.hardware_threads = 2;
  fs::study_workload w = q.make();
  w.baseline_copy = [](unsigned copy) {
    return std::function<void()>([copy] {
      if (copy == 1) throw std::runtime_error("copy 1 failed");
    });
  };
  EXPECT_THROW(fs::run_study("x", w, opt), std::runtime_error);
  fs::study_workload v = q.make();
  v.parallel = [](unsigned) { throw std::logic_error("parallel failed"); };
  EXPECT_THROW(fs::run_study("x", v, opt), std::logic_error);
}

TEST(StudyRun, UnannotatedWorkloadIsNoticed) {
  fs::study_workload w;
  std::vector<int> v(1000);
  w.baseline = [&] { std::fill(v.begin(), v.end(), 1); };
  w.parallel = [&](unsigned p) {
    // Threads without any forkscale guard: their work is invisible to the engine.
    std::vector<std::thread> ts;
    for (unsigned i = 1; i < p; ++i)
      ts.emplace_back([] {
        std::vector<int> own(1000);
        std::fill(own.begin(), own.end(), 2);
      });
    std::fill(v.begin(), v.end(), 3);
    for (auto& t : ts) t.join();
  };
  fs::study_options opt;
  opt.processors = {2};
  opt.repetitions = 1;
  opt.warmup = 0;
  opt.hardware_threads = 2;
  const fs::study_result s = fs::run_study("plain", w, opt);
  EXPECT_TRUE(any_warning(s, "no spawns were recorded at P = 2")) << s.to_text();
  EXPECT_TRUE(s.bandwidth.empty());  // no baseline_copy: no probe
}
