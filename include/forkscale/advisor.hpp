// advisor.hpp: where to spend optimization work (TaskProf2's adviser, done with
// forkscale's own measurements).
//
//   fs::advice a = fs::advise("treesum", [&] { run_workload(); });
//   std::cout << a.to_text();
//
// The advisor runs the workload, takes the call site with the most exclusive
// critical-path work (local span on span, docs/model.md), assumes it `factor`×
// faster in the next run (the parallelized model: its strands' share of every path
// divides, the work stays), and repeats on the program so changed — until the
// predicted parallelism reaches the target or no site helps. Each step also says
// what the chosen site would give if it were infinitely fast, so a site that has
// fallen off the critical path shows as one whose infinite speedup buys little.
#pragma once
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config.hpp"
#include "detail/macro_scope.hpp"
#include "detail/util/function_ref.hpp"
#include "guards.hpp"
#include "report.hpp"

#if FORKSCALE_DETAIL_DEFINES(analyses)
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "detail/output/progress.hpp"
#include "detail/output/report_writers.hpp"
#endif

FORKSCALE_NAMESPACE_BEGIN

struct advisor_options {
  // Stop once the predicted parallelism reaches this; 0 means 8 × the hardware
  // threads (TaskProf2's rule of thumb for enough slack).
  double target_parallelism = 0;
  // How much faster a chosen site is assumed to become (positive, ≤ 65536, or inf).
  double factor = 16;
  // At most this many sites are chosen.
  unsigned max_steps = 8;
  // The options of every run. Site profiles are always on; the advisor sets
  // what_if.assume_faster, what_if.call_sites and what_if.factors itself.
  options measure;
  // The progress line on stderr, one update per run (options.hpp,
  // progress_mode): by default only when stderr is a terminal;
  // FORKSCALE_PROGRESS=0 or 1 overrides automatic.
  progress_mode show_progress = progress_mode::automatic;
};

// One step: the site chosen, why, and what it is predicted to give.
struct advisor_step {
  unsigned step = 0;
  std::string site;  // its tag or file:line
  std::string file;
  unsigned line = 0;
  std::string function;
  std::string spec;                    // how the advisor named it (file:line or tag=NAME)
  double critical_share = 0;           // its local span on span / the span, in the run that chose it
  double parallelism_before = 0;       // of the program with the earlier steps applied
  double predicted_parallelism = 0;    // with this site `factor`× faster too
  double parallelism_at_infinity = 0;  // with this site infinitely fast instead (inf: nothing else is left)
};

struct advice {
  std::string label;
  double factor = 16;
  double target = 0;
  unsigned hardware_threads = 0;
  double measured_parallelism = 0;
  std::vector<advisor_step> steps;
  bool reached_target = false;
  std::string stopped_because;
  unsigned runs = 0;  // how many times the workload ran
  std::string unit;   // of the measurements

  double final_parallelism() const noexcept {
    return steps.empty() ? measured_parallelism : steps.back().predicted_parallelism;
  }
  FORKSCALE_INLINE std::string to_text() const;
};

#if FORKSCALE_DETAIL_DEFINES(analyses)
namespace detail {

inline std::string advisor_spec(const call_site_profile& c) {
  if (!c.tag.empty()) return "tag=" + c.tag;
  return c.file + ":" + std::to_string(c.line);
}

}  // namespace detail

FORKSCALE_INLINE std::string advice::to_text() const {
  std::string out;
  out += "Advisor: " + label + "\n";
  out += "  target parallelism " + detail::output::unbounded_ratio_text(target);
  if (hardware_threads) out += " (8 x " + std::to_string(hardware_threads) + " hardware threads)";
  out += "; each chosen site assumed " + detail::output::factor_text(factor) + "x faster (parallelized)\n";
  out += "  measured parallelism " + detail::output::unbounded_ratio_text(measured_parallelism) + "\n";
  if (!steps.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const advisor_step& s : steps) {
      std::string name = s.site;
      if (!s.function.empty() && s.site.find(s.function) == std::string::npos) name += " in " + s.function;
      const bool measured = s.parallelism_before > 0;
      const double gain = measured ? s.predicted_parallelism / s.parallelism_before : 0;
      rows.push_back({std::to_string(s.step), detail::output::printable(name),
                      detail::output::fixed(100.0 * s.critical_share, 1) + "%",
                      detail::output::unbounded_ratio_text(s.predicted_parallelism) + " (" +
                          detail::output::gain_text(gain, measured) + ")",
                      detail::output::unbounded_ratio_text(s.parallelism_at_infinity)});
    }
    const std::vector<std::string> head = {"step", "site", "of span", "parallelism after", "at inf"};
    std::vector<std::size_t> w(head.size());
    for (std::size_t i = 0; i < head.size(); ++i) w[i] = detail::output::display_width(head[i]);
    for (const auto& r : rows)
      for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], detail::output::display_width(r[i]));
    std::size_t others = 0;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (i != 1) others += w[i] + 2;
    if (2 + others + w[1] > 80) w[1] = std::max<std::size_t>(12, 80 > 2 + others ? 80 - 2 - others : 12);
    const auto line = [&](const std::vector<std::string>& r) {
      std::string l = "  " + detail::output::pad_left(r[0], w[0]) + "  " +
                      detail::output::pad_right(detail::output::truncate_display(r[1], w[1]), w[1]);
      for (std::size_t i = 2; i < r.size(); ++i) l += "  " + detail::output::pad_left(r[i], w[i]);
      while (!l.empty() && l.back() == ' ') l.pop_back();
      return l + "\n";
    };
    out += line(head);
    for (const auto& r : rows) out += line(r);
  }
  out += "  " + std::string(reached_target ? "reached the target: " : "stopped: ") + stopped_because + " (" +
         std::to_string(runs) + " runs)\n";
  return out;
}
#endif  // FORKSCALE_DETAIL_DEFINES

#if FORKSCALE_ENABLE

#if FORKSCALE_DETAIL_DEFINES(analyses)
namespace detail {

// The options of the advisor's first run; every later run adds its what-if sites.
inline options advisor_base_options(const advisor_options& ao) {
  options base = ao.measure;
  base.site_profiles = true;
  base.what_if.call_sites.clear();
  base.what_if.assume_faster.clear();
  base.what_if.read_environment = false;
  base.what_if.assume_factor = ao.factor;
  return base;
}

// The site to choose next: the call site with the most exclusive work on the
// critical path of `rep` that is not chosen yet; null when none is left.
inline const call_site_profile* advisor_best_site(const report& rep, const std::vector<std::string>& chosen) {
  const call_site_profile* best = nullptr;
  for (const call_site_profile& c : rep.call_sites) {
    if (c.kind != site_kind::call || c.local_on_span.span <= 0) continue;
    const std::string spec = advisor_spec(c);
    if (std::find(chosen.begin(), chosen.end(), spec) != chosen.end()) continue;
    if (!best || c.local_on_span.span > best->local_on_span.span) best = &c;
  }
  return best;
}

// Step `step` choosing `best`, a site of `rep` (whose parallelism is `current`),
// before its run.
inline advisor_step advisor_step_for(unsigned step, const call_site_profile& best, const report& rep, double current) {
  advisor_step s;
  s.step = step;
  s.site = best.name;
  s.file = best.file;
  s.line = best.line;
  s.function = best.function;
  s.spec = advisor_spec(best);
  s.critical_share = rep.span() ? static_cast<double>(best.local_on_span.span) / static_cast<double>(rep.span()) : 0;
  s.parallelism_before = current;
  return s;
}

}  // namespace detail
#endif  // FORKSCALE_DETAIL_DEFINES

namespace detail {
// The advisor's runs (compiled once): `run` measures the workload with the
// options it is given.
FORKSCALE_INLINE advice advise_runs(const std::string& label, const advisor_options& ao,
                                    function_ref<report(const options&)> run);
}  // namespace detail

// Runs `workload` (a callable taking no arguments; it must do the same work each
// time) max_steps + 1 times at most, each run measured.
template <class Clock = default_clock, class Fn>
advice advise(const std::string& label, Fn&& workload, const advisor_options& ao = advisor_options{}) {
  auto run = [&](const options& o) { return measure<Clock>(label, workload, o); };
  return detail::advise_runs(label, ao, run);
}

#if FORKSCALE_DETAIL_DEFINES(analyses)
FORKSCALE_INLINE advice detail::advise_runs(const std::string& label, const advisor_options& ao,
                                            function_ref<report(const options&)> run) {
  const detail::what_if_fraction k = detail::make_factor(ao.factor, "advisor_options.factor");
  if (std::isnan(ao.target_parallelism) || ao.target_parallelism < 0)
    throw error("forkscale: advisor_options.target_parallelism " + detail::output::factor_text(ao.target_parallelism) +
                " is not a positive number (0 means 8 x the hardware threads)");
  advice a;
  a.label = label;
  a.factor = k.value;
  a.hardware_threads = std::max(1u, std::thread::hardware_concurrency());
  a.target = ao.target_parallelism > 0 ? ao.target_parallelism : 8.0 * a.hardware_threads;
  if (ao.target_parallelism > 0) a.hardware_threads = 0;  // the target was given, not derived

  const options base = detail::advisor_base_options(ao);
  detail::progress_line line(ao.show_progress, "advisor '" + label + "'");
  const std::string runs_at_most = " of at most " + std::to_string(ao.max_steps + 1);

  line.show("run 1" + runs_at_most + ": the workload as it is");
  report rep = run(base);
  ++a.runs;
  a.unit = rep.unit;
  a.measured_parallelism = rep.parallelism();
  double current = a.measured_parallelism;
  std::vector<std::string> chosen;
  for (unsigned step = 1;; ++step) {
    if (current >= a.target) {
      a.reached_target = true;
      a.stopped_because = "predicted parallelism " + detail::output::unbounded_ratio_text(current) +
                          " >= " + detail::output::unbounded_ratio_text(a.target);
      break;
    }
    if (step > ao.max_steps) {
      a.stopped_because = "max_steps (" + std::to_string(ao.max_steps) + ") sites chosen";
      break;
    }
    if (rep.call_sites.empty()) {
      a.stopped_because = rep.diagnostic_count ? "the run had misuse diagnostics, so it has no site profile"
                                               : "the run has no call-site profile";
      break;
    }
    const call_site_profile* best = detail::advisor_best_site(rep, chosen);
    if (!best) {
      a.stopped_because = "no call site left with exclusive work on the critical path";
      break;
    }
    advisor_step s = detail::advisor_step_for(step, *best, rep, current);

    options o = base;
    o.what_if.assume_faster = chosen;
    o.what_if.assume_faster.push_back(s.spec);
    o.what_if.call_sites = {s.spec};
    o.what_if.factors = {std::numeric_limits<double>::infinity()};
    line.show("run " + std::to_string(a.runs + 1) + runs_at_most + ": " + s.site + " assumed " +
              detail::output::factor_text(a.factor) + "x faster");
    report next = run(o);
    ++a.runs;
    s.predicted_parallelism = next.parallelism();
    for (const what_if_result& w : next.what_if)
      if (w.source == what_if_source::call_site && w.model == what_if_model::parallelized && w.executed)
        s.parallelism_at_infinity = w.parallelism;
    a.steps.push_back(s);
    if (!(s.predicted_parallelism > current)) {
      a.stopped_because = "the best site does not raise the parallelism";
      break;
    }
    chosen.push_back(s.spec);
    current = s.predicted_parallelism;
    rep = std::move(next);
  }
  return a;
}
#endif  // FORKSCALE_DETAIL_DEFINES

#else

template <class Clock = default_clock, class Fn>
advice advise(const std::string& label, Fn&& workload, const advisor_options& ao = advisor_options{}) {
  std::forward<Fn>(workload)();
  advice a;
  a.label = label;
  a.factor = ao.factor;
  a.runs = 1;
  a.stopped_because = "forkscale is compiled out (FORKSCALE_ENABLE=0)";
  return a;
}

#endif

FORKSCALE_NAMESPACE_END
