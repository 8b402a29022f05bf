// The readings the seed papers take from their per-site profiles, reproduced on
// small self-contained versions of their programs (docs/model.md, "Per-site
// profiles").
//
// Papers: T. B. Schardl, B. C. Kuszmaul, I-T. A. Lee, W. M. Leiserson and
// C. E. Leiserson, "The Cilkprof Scalability Profiler", SPAA 2015 ("Cilkprof"):
//   - Fig. 1, parallel quicksort: the serial partition is the bottleneck; its call
//     site carries nearly all of the span, with parallelism about 1 on span.
//   - Figs. 5 and 7, fib: the top-caller work of the spawn site fib(n-1) over that
//     of the call site fib(n-2) is the golden ratio (Fig. 7 reads 1.63).
//   - Fig. 8, divide-and-conquer matrix multiplication: the base-case call site
//     does almost all of the work (local work on work) but has no top-caller
//     invocation at all, because every one runs inside a recursive call of the
//     same function.
//
// Each reading is checked twice:
//   - under the cost clock (fs::charge proportional to the real work), exactly,
//     against values worked out independently of the engine: closed forms for fib
//     and the matrix product, a plain recursion over the same input for quicksort;
//   - under the default timed clock (the TSC), where only what does not depend on
//     the clock is asserted (counts, the self-checks); the timed shares and
//     ratios are printed, so they show in the test log, but a shared machine's
//     load moves them too much to assert.
//
// Every program runs its spawns inline (the serial elision: fs::spawn(f)() runs f
// at once); fib also runs with std::threads at the top of its recursion, where the
// cost clock must give exactly the numbers of the elision.
#include <gtest/gtest.h>

#include <forkscale/forkscale.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = forkscale;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PROFILE_READINGS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PROFILE_READINGS_SANITIZED 1
#endif
#endif
#ifndef PROFILE_READINGS_SANITIZED
#define PROFILE_READINGS_SANITIZED 0
#endif

namespace {

// ---- helpers ----------------------------------------------------------------

fs::options cost_clock() {
  fs::options o;
  o.clock = fs::clock_kind::cost;
  return o;
}

fs::options timed_clock() { return fs::options{}; }  // automatic: the TSC where invariant

// The call-site rows (root excluded) of sites of `kind` in `function`, by line.
std::vector<const fs::call_site_profile*> call_rows(const fs::report& rep, const std::string& function,
                                                    fs::site_kind kind) {
  std::vector<const fs::call_site_profile*> out;
  for (const auto& row : rep.call_sites)
    if (row.kind == kind && row.function == function) out.push_back(&row);
  std::sort(out.begin(), out.end(),
            [](const fs::call_site_profile* a, const fs::call_site_profile* b) { return a->line < b->line; });
  return out;
}

const fs::spawn_site_profile* spawn_row(const fs::report& rep, const std::string& function) {
  for (const auto& row : rep.spawn_sites)
    if (row.kind == fs::site_kind::spawn && row.function == function) return &row;
  return nullptr;
}

void expect_measure(const fs::site_measure& m, std::uint64_t count, std::uint64_t work, std::int64_t span,
                    const char* what) {
  EXPECT_EQ(m.count, count) << what << ": count";
  EXPECT_EQ(m.work, work) << what << ": work";
  EXPECT_EQ(m.span, span) << what << ": span";
}

// The profile's self-checks (docs/model.md): report::check_profile, and the four
// sums it stands for, computed here directly.
void expect_profile_sums(const fs::report& rep) {
  ASSERT_FALSE(rep.call_sites.empty());
  ASSERT_FALSE(rep.spawn_sites.empty());
  EXPECT_EQ(rep.call_sites.front().kind, fs::site_kind::root);
  EXPECT_EQ(rep.check_profile(), "");
  std::int64_t local_span = 0, critical_span = 0;
  std::uint64_t local_work = 0, exclusive_work = 0;
  for (const auto& row : rep.call_sites) {
    local_span += row.local_on_span.span;
    local_work += row.local_on_work.work;
  }
  for (const auto& row : rep.spawn_sites) {
    critical_span += row.critical_span;
    exclusive_work += row.exclusive_work;
  }
  EXPECT_EQ(local_span, static_cast<std::int64_t>(rep.span())) << "local span on span, summed";
  EXPECT_EQ(local_work, rep.work()) << "local work on work, summed";
  EXPECT_EQ(critical_span, static_cast<std::int64_t>(rep.span())) << "critical span, summed";
  EXPECT_EQ(exclusive_work, rep.work()) << "exclusive work, summed";
}

// x with `decimals` digits after the point, for the printed readings.
std::string fixed(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- (1) quicksort, Cilkprof Fig. 1 -------------------------------------------

constexpr std::ptrdiff_t kSerialBelow = 32;  // ranges shorter than this are sorted serially

// Lomuto's partition around the middle element. Returns the pivot's final index p:
// [low, p) < a[p] < (p, high) for distinct values. Touches each element once.
std::ptrdiff_t partition_range(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) noexcept {
  std::swap(a[low + (high - low) / 2], a[high - 1]);
  const std::int64_t pivot = a[high - 1];
  std::ptrdiff_t store = low;
  for (std::ptrdiff_t i = low; i < high - 1; ++i)
    if (a[i] < pivot) std::swap(a[i], a[store++]);
  std::swap(a[store], a[high - 1]);
  return store;
}

// Cost clock: one unit per element a partition touches, one per element of a
// serially sorted range.
void pqsort(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) {
  if (high - low < kSerialBelow) {
    std::sort(a + low, a + high);
    fs::charge(static_cast<std::uint64_t>(high - low));
    return;
  }
  std::ptrdiff_t mid;
  {
    fs::call_site cs;  // the partition: the first call site in pqsort
    mid = partition_range(a, low, high);
    fs::charge(static_cast<std::uint64_t>(high - low));
  }
  fs::spawn([&] { pqsort(a, low, mid); })();
  {
    fs::call_site cs;  // the recursion on the upper part: the second call site
    pqsort(a, mid + 1, high);
  }
  { fs::sync_point sp; }
}

// The same algorithm on a copy of the input, without guards: what the cost clock
// must report, worked out from the definitions. The span is a partition plus the
// longer of the two halves; along it lie partitions and exactly one serially
// sorted range, so the partition site's local span on span is the span minus that
// range's cost. leaf_lo/leaf_hi bound that cost over every longest path (ties).
struct qsort_model {
  std::uint64_t work = 0, span = 0;
  std::uint64_t partitions = 0, partition_work = 0;
  std::uint64_t upper_calls = 0;
  std::uint64_t leaf_lo = 0, leaf_hi = 0;
};

qsort_model model_qsort(std::int64_t* a, std::ptrdiff_t low, std::ptrdiff_t high) {
  qsort_model m;
  const auto len = static_cast<std::uint64_t>(high - low);
  if (high - low < kSerialBelow) {
    std::sort(a + low, a + high);
    m.work = m.span = m.leaf_lo = m.leaf_hi = len;
    return m;
  }
  const std::ptrdiff_t mid = partition_range(a, low, high);
  const qsort_model l = model_qsort(a, low, mid);
  const qsort_model r = model_qsort(a, mid + 1, high);
  m.work = len + l.work + r.work;
  m.span = len + std::max(l.span, r.span);
  m.partitions = 1 + l.partitions + r.partitions;
  m.partition_work = len + l.partition_work + r.partition_work;
  m.upper_calls = 1 + l.upper_calls + r.upper_calls;
  if (l.span > r.span) {
    m.leaf_lo = l.leaf_lo;
    m.leaf_hi = l.leaf_hi;
  } else if (r.span > l.span) {
    m.leaf_lo = r.leaf_lo;
    m.leaf_hi = r.leaf_hi;
  } else {
    m.leaf_lo = std::min(l.leaf_lo, r.leaf_lo);
    m.leaf_hi = std::max(l.leaf_hi, r.leaf_hi);
  }
  return m;
}

// A permutation of 0..n-1, shuffled by a fixed Fisher-Yates.
std::vector<std::int64_t> shuffled(std::size_t n, std::uint64_t seed) {
  std::vector<std::int64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 gen(seed);
  for (std::size_t i = n - 1; i > 0; --i) {
    const std::size_t j = static_cast<std::size_t>(gen() % (i + 1));
    std::swap(v[i], v[j]);
  }
  return v;
}

bool sorted_permutation(const std::vector<std::int64_t>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

TEST(ProfileReadings, QuicksortPartitionCarriesTheSpanCostClock) {
  const std::size_t n = 100'000;
  std::vector<std::int64_t> data = shuffled(n, 1);
  std::vector<std::int64_t> copy = data;
  const qsort_model m = model_qsort(copy.data(), 0, static_cast<std::ptrdiff_t>(n));
  ASSERT_TRUE(sorted_permutation(copy));

  const fs::report rep = fs::measure(
      "quicksort", [&] { pqsort(data.data(), 0, static_cast<std::ptrdiff_t>(n)); }, cost_clock());
  ASSERT_TRUE(sorted_permutation(data));
  EXPECT_EQ(rep.diagnostic_count, 0u);
  EXPECT_EQ(rep.work(), m.work);
  EXPECT_EQ(rep.span(), m.span);
  expect_profile_sums(rep);

  const auto calls = call_rows(rep, "pqsort", fs::site_kind::call);
  ASSERT_EQ(calls.size(), 2u);
  const fs::call_site_profile& part = *calls[0];
  EXPECT_EQ(part.local_on_work.count, m.partitions);
  EXPECT_EQ(calls[1]->local_on_work.count, m.upper_calls);
  EXPECT_EQ(part.local_on_work.work, m.partition_work);
  EXPECT_FALSE(part.recursive);
  // A partition makes no invocations of its own: every invocation is top-call-site,
  // and its work and span are its local work and span.
  EXPECT_EQ(part.top_call_site_on_work.count, m.partitions);
  EXPECT_EQ(part.top_call_site_on_work.work, m.partition_work);

  // The reading: the partition's call site carries the span, serially.
  const std::int64_t span = static_cast<std::int64_t>(m.span);
  EXPECT_GE(part.local_on_span.span, span - static_cast<std::int64_t>(m.leaf_hi));
  EXPECT_LE(part.local_on_span.span, span - static_cast<std::int64_t>(m.leaf_lo));
  EXPECT_GT(static_cast<double>(part.local_on_span.span), 0.99 * static_cast<double>(span));
  EXPECT_EQ(part.local_on_span.work, static_cast<std::uint64_t>(part.local_on_span.span));
  EXPECT_DOUBLE_EQ(part.local_on_span.parallelism(), 1.0);
  EXPECT_EQ(part.top_call_site_on_span.count, part.local_on_span.count);
  EXPECT_DOUBLE_EQ(part.top_call_site_on_span.parallelism(), 1.0);
  // The top row of the profile (rows after the root are sorted by local span on span).
  ASSERT_GE(rep.call_sites.size(), 2u);
  EXPECT_EQ(rep.call_sites[1].line, part.line);
  EXPECT_EQ(rep.call_sites[1].kind, fs::site_kind::call);
  // Whereas the program as a whole has some parallelism (Θ(log n)).
  EXPECT_GT(rep.parallelism(), 3.0);
}

TEST(ProfileReadings, QuicksortPartitionCarriesTheSpanTimed) {
  // 2^20 elements (2^19 under a sanitizer, where every element costs more): the
  // partitions along the critical path take milliseconds, so a preemption landing
  // elsewhere in one run cannot take most of its span; the share asserted is the
  // median of five runs.
  const std::size_t n = std::size_t{1} << (PROFILE_READINGS_SANITIZED ? 19 : 20);
  const std::vector<std::int64_t> input = shuffled(n, 2);
  std::vector<double> shares, local_par, tcs_par;
  for (int run = 0; run < 5; ++run) {
    std::vector<std::int64_t> data = input;
    const fs::report rep = fs::measure(
        "quicksort", [&] { pqsort(data.data(), 0, static_cast<std::ptrdiff_t>(n)); }, timed_clock());
    ASSERT_TRUE(sorted_permutation(data));
    EXPECT_EQ(rep.diagnostic_count, 0u);
    expect_profile_sums(rep);
    const auto calls = call_rows(rep, "pqsort", fs::site_kind::call);
    ASSERT_EQ(calls.size(), 2u);
    const fs::call_site_profile& part = *calls[0];
    ASSERT_GT(rep.span(), 0u);
    shares.push_back(static_cast<double>(part.local_on_span.span) / static_cast<double>(rep.span()));
    local_par.push_back(part.local_on_span.parallelism());
    tcs_par.push_back(part.top_call_site_on_span.parallelism());
    std::cout << "[reading] quicksort timed run " << run << ": span " << rep.span() << " " << rep.unit
              << ", partition local span on span " << part.local_on_span.span << " (" << fixed(100.0 * shares.back(), 1)
              << "% of the span), parallelism on span: local " << fixed(local_par.back(), 3) << ", top-call-site "
              << fixed(tcs_par.back(), 3) << "; program parallelism " << fixed(rep.parallelism(), 2) << "\n";
  }
  const double share = median(shares);
  // Printed, not asserted: on a shared machine a timed share depends on what else
  // runs. The cost-clock test above asserts the share exactly.
  std::cout << "[reading] quicksort timed: partition share of the span, median of 5: " << share << "\n";
  // A partition's local work and local span on span are the same strands, so this
  // is 1 up to rounding whatever the clock.
  EXPECT_NEAR(median(local_par), 1.0, 0.2);
  EXPECT_NEAR(median(tcs_par), 1.0, 0.2);
}

// ---- (2) fib, Cilkprof Figs. 5 and 7 -------------------------------------------

// One unit per call.
long fib(int n) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::spawn([&] { x = fib(n - 1); })();  // the spawn site
  {
    fs::call_site cs;  // the call site
    y = fib(n - 2);
  }
  { fs::sync_point sp; }
  return x + y;
}

// The same with the top `thread_levels` levels of spawns run on std::threads and
// joined through a join handle: the same dag, so the same numbers.
long fib_threads(int n, int thread_levels) {
  fs::charge(1);
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::join_handle h;
  auto child = fs::spawn(h, [&] { x = fib_threads(n - 1, thread_levels - 1); });  // the spawn site
  std::thread worker;
  if (thread_levels > 0) {
    worker = std::thread(std::move(child));
  } else {
    child();
  }
  {
    fs::call_site cs;  // the call site
    y = fib_threads(n - 2, thread_levels - 1);
  }
  {
    fs::sync_point sp(h);
    if (worker.joinable()) worker.join();
  }
  return x + y;
}

// Closed forms, one unit per call. F(k): Fibonacci numbers (F(0) = 0, F(1) = 1).
// calls(k) = 1 + calls(k-1) + calls(k-2), calls(0) = calls(1) = 1: 2F(k+1) - 1.
// span(k) = 1 + span(k-1) (the spawned child is the longer branch): k for k >= 1.
// Calls that spawn (k >= 2): F(k+1) - 1.
struct fib_numbers {
  std::vector<std::uint64_t> F;
  explicit fib_numbers(int up_to) : F(static_cast<std::size_t>(up_to) + 2) {
    F[0] = 0;
    F[1] = 1;
    for (std::size_t k = 2; k < F.size(); ++k) F[k] = F[k - 1] + F[k - 2];
  }
  std::uint64_t calls(int k) const { return 2 * F[static_cast<std::size_t>(k) + 1] - 1; }
  std::uint64_t inner(int k) const { return F[static_cast<std::size_t>(k) + 1] - 1; }
};

// The exact profile of fib(n) under the cost clock (function `fn`: the sites' function).
void expect_fib_profile(const fs::report& rep, int n, const std::string& fn) {
  const fib_numbers f(n);
  EXPECT_EQ(rep.diagnostic_count, 0u);
  EXPECT_EQ(rep.work(), f.calls(n));
  EXPECT_EQ(rep.span(), static_cast<std::uint64_t>(n));
  expect_profile_sums(rep);

  const auto spawns = call_rows(rep, fn, fs::site_kind::spawn);
  const auto calls = call_rows(rep, fn, fs::site_kind::call);
  ASSERT_EQ(spawns.size(), 1u);
  ASSERT_EQ(calls.size(), 1u);
  const fs::call_site_profile& s = *spawns[0];
  const fs::call_site_profile& c = *calls[0];
  EXPECT_TRUE(s.recursive);
  EXPECT_TRUE(c.recursive);

  // Top-caller: the only invocations with no invocation of a site of `fn` above them
  // are the two the measured fib(n) makes: fib(n-1) spawned, fib(n-2) called.
  expect_measure(s.top_caller_on_work, 1, f.calls(n - 1), n - 1, "spawn site, top-caller on work");
  expect_measure(c.top_caller_on_work, 1, f.calls(n - 2), n - 2, "call site, top-caller on work");
  // The spawned fib(n-1) ends at n, after the called fib(n-2) (n-1): it is on span.
  expect_measure(s.top_caller_on_span, 1, f.calls(n - 1), n - 1, "spawn site, top-caller on span");
  expect_measure(c.top_caller_on_span, 0, 0, 0, "call site, top-caller on span");

  // Top-call-site: spawns with no spawn above them are those of fib(n), fib(n-2),
  // fib(n-4), ... (reached through calls only); calls with no call above them are
  // those of fib(n), fib(n-1), ..., fib(2) (reached through spawns only).
  std::uint64_t s_count = 0, s_work = 0, c_work = 0;
  std::int64_t s_span = 0, c_span = 0;
  for (int k = n; k >= 2; k -= 2) {
    ++s_count;
    s_work += f.calls(k - 1);
    s_span += k - 1;
  }
  for (int k = n; k >= 2; --k) {
    c_work += f.calls(k - 2);
    c_span += std::max(k - 2, 1);
  }
  expect_measure(s.top_call_site_on_work, s_count, s_work, s_span, "spawn site, top-call-site on work");
  expect_measure(c.top_call_site_on_work, static_cast<std::uint64_t>(n - 1), c_work, c_span,
                 "call site, top-call-site on work");

  // Local: each invocation's own strand is the one unit its fib call charges.
  EXPECT_EQ(s.local_on_work.count, f.inner(n));
  EXPECT_EQ(s.local_on_work.work, f.inner(n));
  EXPECT_EQ(c.local_on_work.count, f.inner(n));
  EXPECT_EQ(c.local_on_work.work, f.inner(n));
  EXPECT_EQ(rep.call_sites.front().local_on_work.work, 1u);

  const fs::spawn_site_profile* sp = spawn_row(rep, fn);
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->tasks, f.inner(n));
  EXPECT_EQ(sp->work, s_work);

  // The reading: the ratio of the two top-caller works is the golden ratio
  // (Cilkprof Fig. 7 reads 1.63 in time): calls(n-1)/calls(n-2) tends to it.
  const double ratio = static_cast<double>(s.top_caller_on_work.work) / static_cast<double>(c.top_caller_on_work.work);
  EXPECT_NEAR(ratio, (1.0 + std::sqrt(5.0)) / 2.0, 1e-3);
}

TEST(ProfileReadings, FibTopCallerWorksAreInTheGoldenRatioCostClock) {
  const int n = 20;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib", [&] { v = fib(n); }, cost_clock());
  EXPECT_EQ(v, 6765);
  expect_fib_profile(rep, n, "fib");
}

TEST(ProfileReadings, FibWithThreadsGivesTheElisionsNumbersCostClock) {
  const int n = 18;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib_threads", [&] { v = fib_threads(n, 3); }, cost_clock());
  EXPECT_EQ(v, 2584);
  expect_fib_profile(rep, n, "fib_threads");
}

TEST(ProfileReadings, FibTopCallerWorksAreInTheGoldenRatioTimed) {
  // A run's two readings are separate stretches of time. On a shared machine either
  // can be disturbed: a preemption adds whole milliseconds to it, and the speed of
  // a core shared with a neighbour changes from one moment to the next. So the
  // runs are short and many, and the ratio printed is the median of the runs'
  // ratios: disturbed runs fall on either side of it (the spawned fib(n-1) is the
  // longer stretch, so more often above). What is asserted does not depend on
  // the clock.
  const int n = 18;
  const int runs = 51;
  const bool print_all = std::getenv("FORKSCALE_TEST_PRINT_ALL") != nullptr;
  std::vector<double> ratios;
  for (int run = 0; run < runs; ++run) {
    long v = 0;
    const fs::report rep = fs::measure(
        "fib", [&] { v = fib(n); }, timed_clock());
    EXPECT_EQ(v, 2584);
    EXPECT_EQ(rep.diagnostic_count, 0u);
    expect_profile_sums(rep);
    const auto spawns = call_rows(rep, "fib", fs::site_kind::spawn);
    const auto calls = call_rows(rep, "fib", fs::site_kind::call);
    ASSERT_EQ(spawns.size(), 1u);
    ASSERT_EQ(calls.size(), 1u);
    // Counts do not depend on the clock.
    EXPECT_EQ(spawns[0]->top_caller_on_work.count, 1u);
    EXPECT_EQ(calls[0]->top_caller_on_work.count, 1u);
    const double s = static_cast<double>(spawns[0]->top_caller_on_work.work);
    const double c = static_cast<double>(calls[0]->top_caller_on_work.work);
    ASSERT_GT(c, 0.0);
    ratios.push_back(s / c);
    if (print_all || run % 10 == 0)
      std::cout << "[reading] fib(" << n << ") timed run " << run << ": top-caller work, spawn site "
                << spawns[0]->top_caller_on_work.work << " " << rep.unit << ", call site "
                << calls[0]->top_caller_on_work.work << " " << rep.unit << ", ratio " << s / c << "\n";
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  const double ratio = median(ratios);
  std::cout << "[reading] fib(" << n << ") timed: spawn-site / call-site top-caller work, median of " << runs
            << " runs: " << ratio << " (quartiles " << sorted[sorted.size() / 4] << ", "
            << sorted[3 * sorted.size() / 4] << "; golden ratio 1.618; Cilkprof Fig. 7: 1.63)\n";
  // Printed, not asserted: timed readings depend on the machine's load (a loaded
  // CI machine once gave a median of 2.15). The cost-clock test asserts the
  // golden ratio exactly.
}

TEST(ProfileReadings, FibWithThreadsTimedKeepsItsStructure) {
  // With real threads on a shared machine a strand's time includes waiting for a
  // core, so only the clock-independent parts are asserted; the ratio is printed.
  const int n = 20;
  long v = 0;
  const fs::report rep = fs::measure(
      "fib_threads", [&] { v = fib_threads(n, 2); }, timed_clock());
  EXPECT_EQ(v, 6765);
  EXPECT_EQ(rep.diagnostic_count, 0u);
  expect_profile_sums(rep);
  const fib_numbers f(n);
  EXPECT_EQ(rep.spawns(), f.inner(n));
  const auto spawns = call_rows(rep, "fib_threads", fs::site_kind::spawn);
  const auto calls = call_rows(rep, "fib_threads", fs::site_kind::call);
  ASSERT_EQ(spawns.size(), 1u);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(spawns[0]->top_caller_on_work.count, 1u);
  EXPECT_EQ(calls[0]->top_caller_on_work.count, 1u);
  EXPECT_EQ(spawns[0]->local_on_work.count, f.inner(n));
  EXPECT_EQ(calls[0]->local_on_work.count, f.inner(n));
  if (calls[0]->top_caller_on_work.work > 0)
    std::cout << "[reading] fib_threads(" << n << ") timed: spawn-site / call-site top-caller work "
              << static_cast<double>(spawns[0]->top_caller_on_work.work) /
                     static_cast<double>(calls[0]->top_caller_on_work.work)
              << " (not asserted: time spent waiting for a core counts here)\n";
}

// ---- (3) divide-and-conquer matrix multiplication, Cilkprof Fig. 8 -----------

// C[n×n] += A[n×n]·B[n×n], row-major with row stride ld.
void mm_base(double* C, const double* A, const double* B, std::size_t n, std::size_t ld) noexcept {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double a = A[i * ld + k];
      for (std::size_t j = 0; j < n; ++j) C[i * ld + j] += a * B[k * ld + j];
    }
}

// n a power of two times `base`. Cost clock: one unit per call (its bookkeeping)
// and one per multiply-add. The eight quadrant products go in two phases of four
// (a phase writes four different quadrants of C): three spawned, one called, sync.
void mm_dac(double* C, const double* A, const double* B, std::size_t n, std::size_t ld, std::size_t base) {
  fs::charge(1);
  if (n <= base) {
    fs::call_site cs;  // the base case: the first call site in mm_dac
    mm_base(C, A, B, n, ld);
    fs::charge(static_cast<std::uint64_t>(n) * n * n);
    return;
  }
  const std::size_t h = n / 2;
  const auto C_ = [&](std::size_t i, std::size_t j) { return C + i * h * ld + j * h; };
  const auto A_ = [&](std::size_t i, std::size_t j) { return A + i * h * ld + j * h; };
  const auto B_ = [&](std::size_t i, std::size_t j) { return B + i * h * ld + j * h; };
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t spawned[3][2] = {{0, 0}, {0, 1}, {1, 0}};
    for (const auto& ij : spawned) {
      double* c = C_(ij[0], ij[1]);
      const double* a = A_(ij[0], k);
      const double* b = B_(k, ij[1]);
      fs::spawn([=] { mm_dac(c, a, b, h, ld, base); })();  // the spawn site
    }
    {
      fs::call_site cs;  // the fourth product: the second call site
      mm_dac(C_(1, 1), A_(1, k), B_(k, 1), h, ld, base);
    }
    { fs::sync_point sp; }
  }
}

struct matrices {
  std::size_t n;
  std::vector<double> A, B, C;
  explicit matrices(std::size_t n_, std::uint64_t seed) : n(n_), A(n_ * n_), B(n_ * n_), C(n_ * n_, 0.0) {
    std::mt19937_64 gen(seed);
    for (auto& x : A) x = static_cast<double>(static_cast<int>(gen() % 9) - 4);  // small integers: exact sums
    for (auto& x : B) x = static_cast<double>(static_cast<int>(gen() % 9) - 4);
  }
  bool product_is_right() const {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::size_t k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];
        if (s != C[i * n + j]) return false;
      }
    return true;
  }
};

TEST(ProfileReadings, MatmulBaseCaseDoesTheWorkButHasNoTopCallerCostClock) {
  const std::size_t N = 128, base = 16;
  const unsigned L = 3;  // N = base · 2^L
  matrices m(N, 3);
  const fs::report rep = fs::measure(
      "matmul", [&] { mm_dac(m.C.data(), m.A.data(), m.B.data(), N, N, base); }, cost_clock());
  ASSERT_TRUE(m.product_is_right());
  EXPECT_EQ(rep.diagnostic_count, 0u);

  // By hand: mm_dac calls D = 1 + 8 + ... + 8^L, of which 8^L are base cases of
  // base³ units each; span s(n) = 1 + 2·s(n/2), s(base) = 1 + base³.
  std::uint64_t pow8 = 1, pow2 = 1, dac_calls = 0;
  for (unsigned i = 0; i <= L; ++i) {
    dac_calls += pow8;
    if (i < L) {
      pow8 *= 8;
      pow2 *= 2;
    }
  }
  const std::uint64_t cube = static_cast<std::uint64_t>(base) * base * base;
  const std::uint64_t base_calls = pow8, base_work = pow8 * cube;
  const std::uint64_t span = pow2 * (1 + cube) + (pow2 - 1);
  EXPECT_EQ(rep.work(), dac_calls + base_work);
  EXPECT_EQ(rep.span(), span);
  expect_profile_sums(rep);

  const auto calls = call_rows(rep, "mm_dac", fs::site_kind::call);
  const auto spawns = call_rows(rep, "mm_dac", fs::site_kind::spawn);
  ASSERT_EQ(calls.size(), 2u);
  ASSERT_EQ(spawns.size(), 1u);
  const fs::call_site_profile& b = *calls[0];

  // The reading: no top-caller invocation (each runs inside a recursive call of
  // mm_dac, a site of its own function)...
  expect_measure(b.top_caller_on_work, 0, 0, 0, "base case, top-caller on work");
  expect_measure(b.top_caller_on_span, 0, 0, 0, "base case, top-caller on span");
  // ...but nearly all of the work, as local work on work.
  expect_measure(b.local_on_work, base_calls, base_work, static_cast<std::int64_t>(base_work),
                 "base case, local on work");
  EXPECT_GT(static_cast<double>(b.local_on_work.work), 0.99 * static_cast<double>(rep.work()));
  for (const auto& row : rep.call_sites)
    if (&row != &b) {
      EXPECT_LT(row.local_on_work.work, b.local_on_work.work) << row.name;
    }
  // Its top-call-site measurement has every invocation (none runs inside another).
  EXPECT_EQ(b.top_call_site_on_work.count, base_calls);
  EXPECT_EQ(b.top_call_site_on_work.work, base_work);
  // On span: every longest path runs through 2^L base cases.
  expect_measure(b.local_on_span, pow2, pow2 * cube, static_cast<std::int64_t>(pow2 * cube),
                 "base case, local on span");

  // The recursive sites' top-caller invocations are the root's eight products:
  // six spawned, two called, each of work W(N/2).
  const std::uint64_t half_work = (dac_calls - 1) / 8 + base_work / 8;
  EXPECT_EQ(spawns[0]->top_caller_on_work.count, 6u);
  EXPECT_EQ(spawns[0]->top_caller_on_work.work, 6 * half_work);
  EXPECT_EQ(calls[1]->top_caller_on_work.count, 2u);
  EXPECT_EQ(calls[1]->top_caller_on_work.work, 2 * half_work);
}

TEST(ProfileReadings, MatmulBaseCaseDoesTheWorkButHasNoTopCallerTimed) {
  const std::size_t N = 256, base = 32;
  std::vector<double> shares;
  for (int run = 0; run < 3; ++run) {
    matrices m(N, 4);
    const fs::report rep = fs::measure(
        "matmul", [&] { mm_dac(m.C.data(), m.A.data(), m.B.data(), N, N, base); }, timed_clock());
    if (run == 0) {
      ASSERT_TRUE(m.product_is_right());
    }
    EXPECT_EQ(rep.diagnostic_count, 0u);
    expect_profile_sums(rep);
    const auto calls = call_rows(rep, "mm_dac", fs::site_kind::call);
    ASSERT_EQ(calls.size(), 2u);
    const fs::call_site_profile& b = *calls[0];
    // Counts do not depend on the clock.
    EXPECT_EQ(b.top_caller_on_work.count, 0u);
    EXPECT_EQ(b.top_caller_on_work.work, 0u);
    EXPECT_EQ(b.local_on_work.count, 512u);  // (256/32)³
    ASSERT_GT(rep.work(), 0u);
    shares.push_back(static_cast<double>(b.local_on_work.work) / static_cast<double>(rep.work()));
    std::cout << "[reading] matmul " << N << " timed run " << run << ": base case local work on work "
              << b.local_on_work.work << " of " << rep.work() << " " << rep.unit << " ("
              << fixed(100.0 * shares.back(), 1) << "%), top-caller count " << b.top_caller_on_work.count << ", work "
              << b.top_caller_on_work.work << "\n";
  }
  const double share = median(shares);
  // Printed, not asserted (see the quicksort timed test).
  std::cout << "[reading] matmul timed: base case share of the work, median of 3: " << share << "\n";
}

}  // namespace
