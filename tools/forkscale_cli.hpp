// forkscale_cli.hpp: the forkscale-report command line, as a function that
// tests can call in-process (tools/forkscale_cli.cpp is just its main).
//
// clang-format off
//   forkscale-report convert IN.json [--to text|csv|json|svg|html|gnuplot|calls-csv|spawns-csv|whatif-csv|trace|folded-work|folded-critical]
//                                    [--plot factored|scalability] [-o OUT]
// clang-format on
//   forkscale-report compare BEFORE.json AFTER.json [--to text|csv|github] [-o OUT] [--fail-if RULE]...
//   forkscale-report predict RUN.json [--processors LIST] [...]   (cli_predict.hpp)
//   forkscale-report calibrate [--backend std_thread|tbb|openmp] [--force]  (cli_predict.hpp)
//   forkscale-report run [--openmp|--threads|--auto] [--out DIR] [--clock C] -- PROGRAM ARGS...  (cli_run.hpp)
//   forkscale-report --help | --version
//
// IN.json is a report (schema "forkscale.report", report::write_json) or a
// scaling study (schema "forkscale.study", study_result::write_json). Output goes
// to stdout, or atomically to OUT with -o; --to gnuplot writes OUT.dat and
// OUT.gp and needs -o; --to calls-csv and spawns-csv write the per-site profiles
// (report::call_sites_csv, report::spawn_sites_csv; of a study, its profile
// run's), --to whatif-csv the what-if rows (report::what_if_csv), --to trace,
// folded-work and folded-critical the views of a recorded report's record
// (report::to_trace, report::to_folded; docs/record.md). compare also
// lists the call sites whose share of the span moved most and, when both
// reports have what-if rows, the regions whose predicted parallelism at the
// largest factor changed most (text only). With --fail-if (repeatable) compare is
// a regression gate: each RULE ([region=NAME:]METRIC<PCT% or >PCT%,
// forkscale/regression.hpp) is checked, and every regression is one line on
// stderr ("forkscale-report: regression: ...") or, with --to github, a GitHub
// Actions ::error annotation on stdout after the text comparison. Exit status:
// 0 done (no regression), 1 a --fail-if rule found a regression or calibrate
// found the machine busy in every attempt (nothing stored), 2 anything
// wrong — bad usage, a bad rule, a file that cannot be read or is not a valid
// report, an output that cannot be written — always with exactly one line on
// stderr naming the file and the problem.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include <forkscale/detail/input/report_reader.hpp>  // load(): a report or a study, by its schema
#include <forkscale/forkscale.hpp>
#include <forkscale/read_report.hpp>
#include <forkscale/study/html.hpp>
#include <forkscale/study/plot.hpp>
#include <forkscale/study/study.hpp>

namespace forkscale_cli {

namespace fs = forkscale;
namespace io = forkscale::detail::output;

inline const char* const program = "forkscale-report";

inline std::string usage() {
  return std::string("usage: ") + program +
         " convert IN.json [--to text|csv|json|svg|html|gnuplot|calls-csv|spawns-csv|whatif-csv|\n"
         "       " +
         std::string(std::strlen(program), ' ') +
         "                  trace|folded-work|folded-critical]\n"
         "       " +
         std::string(std::strlen(program), ' ') +
         "         [--plot factored|scalability] [-o OUT]\n"
         "       " +
         program +
         " compare BEFORE.json AFTER.json [--to text|csv|github] [-o OUT]\n"
         "       " +
         std::string(std::strlen(program), ' ') +
         "         [--fail-if RULE]...\n"
         "       " +
         program +
         " predict RUN.json [--processors LIST] [--model work-stealing|os-threads]\n"
         "       " +
         std::string(std::strlen(program), ' ') +
         "         [--spawn-cost C] [--steal-cost C] [--attempt-cost C]\n"
         "       " +
         std::string(std::strlen(program), ' ') +
         "         [--thread-start-cost C] [--core-wake-cost C] [--seeds N] [--to text|json] [-o OUT]\n"
         "       " +
         program +
         " calibrate [--backend std_thread|tbb|openmp] [--file PATH] [--force]\n"
         "       " +
         program +
         " run [--openmp|--threads|--auto] [--out DIR] [--clock C] -- PROGRAM ARGS...\n"
         "       " +
         program +
         " --help | --version\n"
         "\n"
         "IN.json is a forkscale report (report::write_json) or a scaling study\n"
         "(study_result::write_json). convert writes it as text (default), CSV, normalized\n"
         "JSON, an SVG plot (a report: its scalability bounds; a study: --plot factored,\n"
         "the default, or scalability), a self-contained HTML page, or gnuplot data and\n"
         "script (OUT.dat and OUT.gp; needs -o OUT), or the call-site or spawn-site\n"
         "profile as CSV (calls-csv, spawns-csv; for a study, of its profile run), or\n"
         "the what-if predictions as CSV (whatif-csv), or, for a report measured with\n"
         "recording on, its record as a Trace Event Format JSON timeline for Perfetto or\n"
         "chrome://tracing (trace) or as folded stacks for flame graphs of the work\n"
         "(folded-work) or of the critical path (folded-critical).\n"
         "compare shows work, span, parallelism and the other counts of two reports side\n"
         "by side, whole program and per region, and (text only) the call sites whose\n"
         "share of the span moved most and the what-if regions whose predicted\n"
         "parallelism changed most. --fail-if RULE (repeatable) makes it a regression gate:\n"
         "RULE is [region=NAME:]METRIC<PCT% or METRIC>PCT%, a change from BEFORE to AFTER\n"
         "in percent (parallelism<-10% fails on a drop of more than 10%, span>+5% on a\n"
         "span 5% longer); without region= it checks the whole program, region=* every\n"
         "region in both; METRIC is work, span, burdened_span, parallelism,\n"
         "burdened_parallelism, spawns, syncs, calls or average_maximal_strand. Each\n"
         "regression is a line on stderr, or with --to github an ::error annotation.\n"
         "predict replays the report's recorded strand graph (options.record) on P virtual\n"
         "processors and prints the predicted times and speedups next to the bounds:\n"
         "--model work-stealing (greedy and randomized work stealing: oneTBB, OpenMP) or\n"
         "os-threads (a thread per spawn, the cores shared in time slices: std::thread),\n"
         "by default os-threads when the report's backend is std_thread;\n"
         "LIST is like 1,2,4 or 1-256 (doubling) or 1,2,4,...,256 (default 1-256);\n"
         "costs are in the report's unit (docs/predict.md).\n"
         "calibrate times a spawn and a steal of the backend on this machine and stores them\n"
         "with the machine's CPU model and hardware threads (FORKSCALE_BURDEN_FILE, or\n"
         "burden.json under $XDG_CACHE_HOME/forkscale or ~/.cache/forkscale); measurements\n"
         "on this machine whose backend it is use it as their burden. On a busy machine it\n"
         "tries 3 times, then stores nothing (exit status 1) unless --force.\n"
         "run profiles a program built without forkscale: it loads libforkscale_ompt.so (an\n"
         "OpenMP tool; --openmp, for programs built with clang -fopenmp) or\n"
         "libforkscale_threads.so (its threads and mutexes; --threads) into it, --auto (the\n"
         "default) choosing OpenMP when it links libomp; the program keeps its stdin, stdout\n"
         "and exit status; the report is shown on stderr and, with --out DIR, written there\n"
         "(report.json, .csv, .txt, .html); --clock sets FORKSCALE_CLOCK (cost, tsc, steady,\n"
         "thread_cpu, automatic). A program that is not there, not executable or statically\n"
         "linked gets one line and exit status 2.\n"
         "Without -o the output goes to stdout. Exit status 0, or 2 with one line on\n"
         "stderr when anything is wrong; compare --fail-if exits 1 on a regression.\n";
}

// A problem worth one line on stderr and exit status 2.
struct failure {
  std::string message;
};

// forkscale::error messages start with "forkscale: "; the tool's own name goes first instead.
inline std::string retag(const std::string& what) {
  const std::string prefix = "forkscale: ";
  const std::string body = what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
  return std::string(program) + ": " + body;
}

inline std::string quoted(const std::string& path) { return "'" + fs::detail::printable_path(path) + "'"; }

struct document {
  bool is_study = false;
  fs::report rep;
  fs::study_result study;
};

inline document load(const std::string& path) {
  const std::string text = fs::detail::json::read_file(path, "");  // throws forkscale::error
  document d;
  try {
    const fs::detail::json::value v = fs::detail::json::parse(text);
    const fs::detail::json::value* schema = v.is(fs::detail::json::kind::object) ? v.find("schema") : nullptr;
    if (schema && schema->is(fs::detail::json::kind::string) && schema->text == "forkscale.study") {
      d.is_study = true;
      d.study = fs::detail::study::study_from_value(v);
    } else if (!schema || !schema->is(fs::detail::json::kind::string) || schema->text == "forkscale.report") {
      d.rep = fs::detail::json::report_from_value(v);
    } else {
      throw fs::detail::json::json_error(schema->offset, "not a forkscale report or study (its schema is " +
                                                             fs::detail::json::quote_for_message(schema->text) + ")");
    }
  } catch (const fs::detail::json::json_error& e) {
    throw failure{std::string(program) + ": cannot read " + quoted(path) + ": " + e.what()};
  }
  return d;
}

inline void emit(const std::string& text, const std::string& out_path, std::ostream& out) {
  if (out_path.empty() || out_path == "-") {
    out << text;
    out.flush();
    if (!out) throw failure{std::string(program) + ": cannot write to stdout"};
    return;
  }
  fs::detail::write_file_atomically(out_path, text);  // throws forkscale::error
}

// ---- compare -------------------------------------------------------------------

inline std::string change_text(double before, double after) {
  if (std::isnan(before) || std::isnan(after)) return "n/a";
  if (before == after) return "0.0%";
  if (before == 0) return "new";
  const double r = (after - before) / before;
  return (r > 0 ? "+" : "") + io::fixed(100 * r, 1) + "% (" + io::fixed(after / before, 3) + "x)";
}

inline double ratio_or_nan(std::uint64_t den, double value) { return den ? value : std::nan(""); }

struct metric {
  const char* name;
  const char* key;
  bool ratio;  // parallelism-like (two decimals) rather than a count
  double before, after;
};

inline std::vector<metric> root_metrics(const fs::region_result& a, const fs::region_result& b) {
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  return {
      {"Work", "work", false, d(a.work), d(b.work)},
      {"Span", "span", false, d(a.span), d(b.span)},
      {"Burdened span", "burdened_span", false, d(a.burdened_span), d(b.burdened_span)},
      {"Parallelism", "parallelism", true, ratio_or_nan(a.span, a.parallelism()),
       ratio_or_nan(b.span, b.parallelism())},
      {"Burdened parallelism", "burdened_parallelism", true, ratio_or_nan(a.burdened_span, a.burdened_parallelism()),
       ratio_or_nan(b.burdened_span, b.burdened_parallelism())},
      {"Spawns", "spawns", false, d(a.spawns), d(b.spawns)},
      {"Syncs", "syncs", false, d(a.syncs), d(b.syncs)},
      {"Calls", "calls", false, d(a.calls), d(b.calls)},
      {"Average maximal strand", "average_maximal_strand", true, a.average_maximal_strand(),
       b.average_maximal_strand()},
  };
}

inline std::string value_text(const metric& m, double v) {
  if (std::isnan(v)) return "n/a";
  if (m.ratio) return io::fixed(v, 2);
  return io::grouped_round(v);
}

// ---- compare: the call sites whose share of the span moved most ---------------

// A call site across two reports: its kind, function and tag, or file:line when
// it has no tag (so a tagged site is matched even when its line moved). Rows of
// one report with the same key are added together.
inline std::string site_key(const fs::call_site_profile& c) {
  if (c.kind == fs::site_kind::root) return std::string(1, '\0');
  return std::string(fs::to_string(c.kind)) + '\0' + c.function + '\0' +
         (c.tag.empty() ? "\x01" + c.file + ":" + std::to_string(c.line) : c.tag);
}

struct site_share {
  std::string label;             // as the text report names the site
  double before = 0, after = 0;  // local span on span, percent of the span
  bool in_before = false, in_after = false;
  double change() const { return after - before; }
};

// Every call site of either report with its share of the span before and after,
// sorted by the absolute change, largest first (ties by label, then key).
inline std::vector<site_share> site_shares(const fs::report& a, const fs::report& b) {
  std::vector<std::pair<std::string, site_share>> all;
  std::map<std::string, std::size_t> index;
  const auto add = [&](const fs::report& r, bool after) {
    for (const auto& c : r.call_sites) {
      const std::string key = site_key(c);
      const auto found = index.emplace(key, all.size());
      if (found.second) {
        all.emplace_back(key, site_share{});
        all.back().second.label = io::site_label(c.kind, c.name, c.function, true);
      }
      site_share& s = all[found.first->second].second;
      const double share = 100.0 * static_cast<double>(c.local_on_span.span) / static_cast<double>(r.span());
      (after ? s.after : s.before) += share;
      (after ? s.in_after : s.in_before) = true;
    }
  };
  add(a, false);
  add(b, true);
  std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    const double cx = std::fabs(x.second.change()), cy = std::fabs(y.second.change());
    if (cx != cy) return cx > cy;
    if (x.second.label != y.second.label) return x.second.label < y.second.label;
    return x.first < y.first;
  });
  std::vector<site_share> out;
  for (auto& e : all) out.push_back(std::move(e.second));
  return out;
}

// One decimal, without a negative zero; with `sign`, "+" before positive values.
inline std::string points_text(double v, bool sign) {
  std::string t = io::fixed(v, 1);
  if (t == "-0.0") t = "0.0";
  return sign && t != "0.0" && v > 0 ? "+" + t : t;
}

// The call sites whose local span on span, as a share of the span, changed
// most between the reports: the `top_n` largest changes in percentage points,
// sites found in one report only marked new or removed. Empty when neither
// report has a site profile.
inline std::string sites_compare_text(const fs::report& a, const fs::report& b, std::size_t top_n = 10) {
  if (a.call_sites.empty() && b.call_sites.empty()) return std::string();
  std::string o = "\nCall sites whose share of the span moved most (local span on span, % of the span)\n";
  if (a.call_sites.empty() || b.call_sites.empty())
    return o + "  (" + (a.call_sites.empty() ? "before" : "after") + " has no site profile)\n";
  if (a.span() == 0 || b.span() == 0) return o + "  (" + (a.span() ? "after" : "before") + " has a span of zero)\n";
  io::text_table t({"call site", "before", "after", "change", ""});
  std::size_t moved = 0;
  for (const auto& s : site_shares(a, b)) {
    if (s.change() == 0) continue;  // also new or removed sites without a share of the span
    if (++moved > top_n) continue;
    t.add({s.label, s.in_before ? points_text(s.before, false) : "-", s.in_after ? points_text(s.after, false) : "-",
           points_text(s.change(), true) + " pp",
           !s.in_before  ? "new"
           : !s.in_after ? "removed"
                         : ""});
  }
  if (moved == 0) return o + "  (no call site's share of the span changed)\n";
  o += t.render();
  if (moved > top_n) o += "  (" + std::to_string(moved - top_n) + " more sites moved)\n";
  o += "  pp = percentage points of the span; new, removed: in one report only\n";
  return o;
}

// ---- compare: the what-if regions whose predicted parallelism changed most -----

// A what-if region across two reports: its source and name.
struct what_if_change {
  std::string label;
  double factor = 0;             // the largest factor both reports analysed it at
  double before = 0, after = 0;  // predicted parallelism there, parallelized model
  // How much it moved: |log(after / before)|, infinity when exactly one of them
  // is infinite or zero.
  double size() const {
    if (before == after) return 0;
    if (!(before > 0) || !(after > 0) || std::isinf(before) || std::isinf(after))
      return std::numeric_limits<double>::infinity();
    return std::fabs(std::log(after / before));
  }
};

// The executed parallelized rows of a report, by source and region, with the
// parallelism at each factor.
inline std::map<std::string, std::map<double, double>> what_if_table(const fs::report& r) {
  std::map<std::string, std::map<double, double>> m;
  for (const auto& w : r.what_if)
    if (w.executed && w.model == fs::what_if_model::parallelized && !std::isnan(w.factor))
      m[std::string(fs::to_string(w.source)) + '\0' + w.region][w.factor] = w.parallelism;
  return m;
}

inline std::string what_if_compare_text(const fs::report& a, const fs::report& b, std::size_t top_n = 10) {
  if (a.what_if.empty() || b.what_if.empty()) return std::string();
  const auto before = what_if_table(a), after = what_if_table(b);
  std::vector<what_if_change> changes;
  for (const auto& e : before) {
    const auto other = after.find(e.first);
    if (other == after.end()) continue;
    for (auto f = e.second.rbegin(); f != e.second.rend(); ++f) {
      const auto g = other->second.find(f->first);
      if (g == other->second.end()) continue;
      what_if_change c;
      c.label = io::printable(e.first.substr(e.first.find('\0') + 1));
      c.factor = f->first;
      c.before = f->second;
      c.after = g->second;
      changes.push_back(c);
      break;
    }
  }
  std::string o =
      "\nWhat-if regions whose predicted parallelism changed most (parallelized, at the\nlargest factor both "
      "analysed)\n";
  std::stable_sort(changes.begin(), changes.end(), [](const what_if_change& x, const what_if_change& y) {
    if (x.size() != y.size()) return x.size() > y.size();
    return x.label < y.label;
  });
  io::text_table t({"region", "k", "before", "after", "change"});
  std::size_t moved = 0;
  for (const auto& c : changes) {
    if (c.size() == 0) continue;
    if (++moved > top_n) continue;
    const std::string change =
        std::isinf(c.before) || std::isinf(c.after) ? std::string("n/a") : change_text(c.before, c.after);
    t.add({c.label, io::factor_text(c.factor), io::unbounded_ratio_text(c.before), io::unbounded_ratio_text(c.after),
           change});
  }
  if (changes.empty()) return o + "  (no region was analysed, at the same factor, in both reports)\n";
  if (moved == 0) return o + "  (no region's predicted parallelism changed)\n";
  o += t.render();
  if (moved > top_n) o += "  (" + std::to_string(moved - top_n) + " more regions changed)\n";
  return o;
}

inline std::string compare_text(const fs::report& a, const std::string& pa, const fs::report& b,
                                const std::string& pb) {
  std::string o = "forkscale compare (unit: " + io::printable(a.unit) + ")\n";
  o += "  before: " + quoted(pa) + "  " + io::printable(a.label) + ", clock " + fs::to_string(a.clock) + "\n";
  o += "  after:  " + quoted(pb) + "  " + io::printable(b.label) + ", clock " + fs::to_string(b.clock) + "\n\n";
  if (a.empty() || b.empty()) return o + "Nothing to compare: " + (a.empty() ? "before" : "after") + " is empty.\n";

  io::text_table t({"whole program", "before", "after", "change"});
  for (const metric& m : root_metrics(a.root(), b.root()))
    t.add({m.name, value_text(m, m.before), value_text(m, m.after), change_text(m.before, m.after)});
  o += t.render();

  if (a.regions.size() > 1 || b.regions.size() > 1) {
    o += "\nRegions (matched by path)\n";
    io::text_table r({"region", "work before", "work after", "change", "span before", "span after", "change",
                      "par. before", "par. after"});
    std::vector<std::string> only_before, only_after;
    for (const auto& ra : a.regions) {
      const fs::region_result* rb = b.find(ra.path);
      if (!rb) {
        only_before.push_back(ra.path);
        continue;
      }
      const metric par{"", "", true, ratio_or_nan(ra.span, ra.parallelism()),
                       ratio_or_nan(rb->span, rb->parallelism())};
      r.add({io::printable(ra.path), io::grouped(ra.work), io::grouped(rb->work),
             change_text(static_cast<double>(ra.work), static_cast<double>(rb->work)), io::grouped(ra.span),
             io::grouped(rb->span), change_text(static_cast<double>(ra.span), static_cast<double>(rb->span)),
             value_text(par, par.before), value_text(par, par.after)});
    }
    for (const auto& rb : b.regions)
      if (!a.find(rb.path)) only_after.push_back(rb.path);
    o += r.render();
    const auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& p : v) s += (s.empty() ? "" : ", ") + io::printable(p);
      return s;
    };
    if (!only_before.empty()) o += "  only before: " + list(only_before) + "\n";
    if (!only_after.empty()) o += "  only after: " + list(only_after) + "\n";
  }
  o += sites_compare_text(a, b);
  o += what_if_compare_text(a, b);
  if (a.diagnostic_count || b.diagnostic_count)
    o += "\nDiagnostics: " + std::to_string(a.diagnostic_count) + " before, " + std::to_string(b.diagnostic_count) +
         " after (numbers with diagnostics may not be trustworthy).\n";
  return o;
}

inline std::string compare_csv(const fs::report& a, const fs::report& b) {
  std::string o = "path,metric,before,after,ratio,unit\n";
  const auto row = [&](const std::string& path, const metric& m) {
    const double ratio = (m.before > 0 && !std::isnan(m.after)) ? m.after / m.before : std::nan("");
    o += io::csv_text(path) + "," + m.key + "," + io::csv_number(m.before) + "," + io::csv_number(m.after) + "," +
         io::csv_number(ratio) + "," + io::csv_text(a.unit) + "\n";
  };
  for (const auto& ra : a.regions) {
    const fs::region_result* rb = b.find(ra.path);
    if (!rb) continue;
    for (const metric& m : root_metrics(ra, *rb)) row(ra.path, m);
  }
  return o;
}

// ---- the command line ----------------------------------------------------------

struct options {
  std::string command;
  std::vector<std::string> inputs;
  std::string to;
  std::string plot;
  std::string out;
  std::vector<std::string> fail_if;  // compare's --fail-if rules, as given
};

inline options parse_args(const std::vector<std::string>& args) {
  options o;
  const auto bad = [](const std::string& msg) { return failure{std::string(program) + ": " + msg + " (try --help)"}; };
  if (args.empty()) throw bad("no command given");
  o.command = args[0];
  if (o.command != "convert" && o.command != "compare")
    throw bad("unknown command " + quoted(o.command) + " (expected convert, compare, predict, calibrate or run)");
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool has_value = false;
    if (a.compare(0, 2, "--") == 0 && a.find('=') != std::string::npos) {
      value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      has_value = true;
    }
    if (a == "--to" || a == "--plot" || a == "-o" || a == "--output") {
      if (!has_value) {
        if (i + 1 >= args.size()) throw bad("option " + a + " needs a value");
        value = args[++i];
      }
      std::string& slot = a == "--to" ? o.to : (a == "--plot" ? o.plot : o.out);
      if (!slot.empty()) throw bad("option " + a + " given twice");
      if (value.empty()) throw bad("option " + a + " needs a non-empty value");
      slot = value;
      continue;
    }
    if (a == "--fail-if") {
      if (!has_value) {
        if (i + 1 >= args.size()) throw bad("option --fail-if needs a rule, like parallelism<-10%");
        value = args[++i];
      }
      try {
        fs::parse_regression_rule(value);
      } catch (const fs::error& e) {
        throw failure{retag(e.what())};
      }
      o.fail_if.push_back(value);
      continue;
    }
    if (a.size() > 1 && a[0] == '-') throw bad("unknown option " + quoted(args[i]));
    o.inputs.push_back(args[i]);
  }
  if (o.to.empty()) o.to = "text";
  if (o.command == "convert") {
    if (!o.fail_if.empty()) throw bad("--fail-if goes with compare");
    if (o.inputs.size() != 1) throw bad("convert takes one input file, got " + std::to_string(o.inputs.size()));
    if (o.to != "text" && o.to != "csv" && o.to != "json" && o.to != "svg" && o.to != "html" && o.to != "gnuplot" &&
        o.to != "calls-csv" && o.to != "spawns-csv" && o.to != "whatif-csv" && o.to != "trace" &&
        o.to != "folded-work" && o.to != "folded-critical")
      throw bad("unknown format " + quoted(o.to) +
                " for --to (expected text, csv, json, svg, html, gnuplot, calls-csv, spawns-csv, whatif-csv, trace, "
                "folded-work or folded-critical)");
    if (!o.plot.empty() && o.plot != "factored" && o.plot != "scalability")
      throw bad("unknown plot " + quoted(o.plot) + " (expected factored or scalability)");
    if (!o.plot.empty() && o.to != "svg" && o.to != "gnuplot") throw bad("--plot goes with --to svg or --to gnuplot");
    if (o.to == "gnuplot" && (o.out.empty() || o.out == "-"))
      throw bad("--to gnuplot writes OUT.dat and OUT.gp: give -o OUT");
  } else {
    if (o.inputs.size() != 2)
      throw bad("compare takes two input files (before and after), got " + std::to_string(o.inputs.size()));
    if (o.to != "text" && o.to != "csv" && o.to != "github")
      throw bad("unknown format " + quoted(o.to) + " for compare (expected text, csv or github)");
    if (!o.plot.empty()) throw bad("--plot goes with convert");
  }
  return o;
}

inline void convert(const options& o, std::ostream& out) {
  const document d = load(o.inputs[0]);
  const std::string plot = o.plot.empty() ? "factored" : o.plot;
  if (o.to == "gnuplot") {
    const std::size_t slash = o.out.find_last_of("/\\");
    const std::string base = slash == std::string::npos ? o.out : o.out.substr(slash + 1);
    fs::gnuplot_files g;
    if (d.is_study)
      g = plot == "factored" ? fs::factored_speedup_gnuplot(d.study, base + ".dat", base + ".svg")
                             : fs::scalability_gnuplot(d.study, base + ".dat", base + ".svg");
    else if (plot == "scalability" || o.plot.empty())
      g = fs::scalability_gnuplot(d.rep, base + ".dat", base + ".svg");
    else
      throw failure{std::string(program) + ": " + quoted(o.inputs[0]) +
                    " is a report, not a study: only --plot scalability applies"};
    // Both files or neither (the old ones stay when either cannot be written).
    fs::detail::write_files_atomically({{o.out + ".dat", g.data}, {o.out + ".gp", g.script}});
    return;
  }
  std::string text;
  if (o.to == "trace" || o.to == "folded-work" || o.to == "folded-critical") {
    // A study's record is its profile run's (forkscale::error when there is none).
    const fs::report& r = d.is_study ? d.study.profile : d.rep;
    emit(o.to == "trace"         ? r.to_trace()
         : o.to == "folded-work" ? r.to_folded(fs::folded_kind::work)
                                 : r.to_folded(fs::folded_kind::critical_path),
         o.out, out);
    return;
  }
  if (o.to == "calls-csv" || o.to == "spawns-csv" || o.to == "whatif-csv") {
    // A study's site profiles and what-if rows are those of its profile run.
    if (d.is_study && d.study.profile.empty())
      throw failure{std::string(program) + ": " + quoted(o.inputs[0]) + " is a scaling study without a profile run: " +
                    (o.to == "whatif-csv" ? "it has no what-if rows" : "it has no site profiles")};
    const fs::report& r = d.is_study ? d.study.profile : d.rep;
    emit(o.to == "calls-csv"    ? r.call_sites_csv()
         : o.to == "spawns-csv" ? r.spawn_sites_csv()
                                : r.what_if_csv(),
         o.out, out);
    return;
  }
  if (d.is_study) {
    if (o.to == "text")
      text = d.study.to_text();
    else if (o.to == "csv")
      text = d.study.to_csv();
    else if (o.to == "json")
      text = d.study.to_json();
    else if (o.to == "html")
      text = fs::to_html(d.study);
    else
      text = plot == "factored" ? fs::factored_speedup_svg(d.study) : fs::scalability_svg(d.study);
  } else {
    if (o.to == "text")
      text = d.rep.to_text();
    else if (o.to == "csv")
      text = d.rep.to_csv();
    else if (o.to == "json")
      text = d.rep.to_json();
    else if (o.to == "html")
      text = fs::to_html(d.rep);
    else if (o.plot == "factored")
      throw failure{std::string(program) + ": " + quoted(o.inputs[0]) +
                    " is a report, not a study: it has no factored speedups (only --plot scalability)"};
    else
      text = fs::scalability_svg(d.rep);
  }
  emit(text, o.out, out);
}

// ---- compare --fail-if -------------------------------------------------------------

// A GitHub Actions workflow command's message and property values escaped as
// the runner reads them back.
inline std::string github_escape(const std::string& s, bool property) {
  std::string o;
  for (char c : s) {
    if (c == '%')
      o += "%25";
    else if (c == '\r')
      o += "%0D";
    else if (c == '\n')
      o += "%0A";
    else if (property && c == ':')
      o += "%3A";
    else if (property && c == ',')
      o += "%2C";
    else
      o += c;
  }
  return o;
}

inline std::string github_annotation(const fs::regression& r) {
  return "::error title=" +
         github_escape("forkscale regression: " + r.metric + " of " + io::printable(r.region), true) +
         "::" + github_escape(r.message, false) + "\n";
}

// Compares, and returns the exit status: 1 when a --fail-if rule found a regression.
inline int compare(const options& o, std::ostream& out, std::ostream& err) {
  const document a = load(o.inputs[0]);
  const document b = load(o.inputs[1]);
  for (int k = 0; k < 2; ++k) {
    const document& d = k ? b : a;
    if (d.is_study)
      throw failure{std::string(program) + ": " + quoted(o.inputs[k]) +
                    " is a scaling study; compare takes two reports (forkscale.report)"};
  }
  if (a.rep.unit != b.rep.unit)
    throw failure{std::string(program) + ": cannot compare " + quoted(o.inputs[0]) + " (" + io::printable(a.rep.unit) +
                  ") with " + quoted(o.inputs[1]) + " (" + io::printable(b.rep.unit) + "): the units differ"};
  std::vector<fs::regression> found;
  if (!o.fail_if.empty()) found = fs::find_regressions(a.rep, b.rep, o.fail_if);  // throws forkscale::error
  emit(o.to == "csv" ? compare_csv(a.rep, b.rep) : compare_text(a.rep, o.inputs[0], b.rep, o.inputs[1]), o.out, out);
  if (o.to == "github") {
    std::string annotations;
    for (const fs::regression& r : found) annotations += github_annotation(r);
    emit(annotations, std::string(), out);
  } else {
    for (const fs::regression& r : found) err << program << ": regression: " << r.message << "\n";
  }
  return found.empty() ? 0 : 1;
}

}  // namespace forkscale_cli

#include "cli_predict.hpp"  // predict, calibrate
#include "cli_run.hpp"      // run

namespace forkscale_cli {

// Runs the tool on `args` (without the program name). Never throws.
inline int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
      out << usage();
      return 0;
    }
    if (!args.empty() && args[0] == "--version") {
      out << program << " (forkscale " FORKSCALE_VERSION_STRING ")\n";
      return 0;
    }
    if (!args.empty() && args[0] == "predict") {
      predict_command(args, out);
      return 0;
    }
    if (!args.empty() && args[0] == "calibrate") {
      return calibrate_command(args, out, err);
    }
    if (!args.empty() && args[0] == "run") return run_command(args, err);
    const options o = parse_args(args);
    if (o.command == "compare") return compare(o, out, err);
    convert(o, out);
    return 0;
  } catch (const failure& f) {
    err << f.message << "\n";
  } catch (const fs::error& e) {
    err << retag(e.what()) << "\n";
  } catch (const std::bad_alloc&) {
    err << program << ": out of memory\n";
  } catch (const std::exception& e) {
    err << program << ": " << io::printable(e.what()) << "\n";
  } catch (...) {
    err << program << ": unexpected error\n";
  }
  return 2;
}

}  // namespace forkscale_cli
