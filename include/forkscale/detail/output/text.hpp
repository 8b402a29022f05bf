// detail/output/text.hpp: a report as text, for people: report::to_text, one
// function per section, with the region tables it shows, and report::write_text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "../../clock.hpp"
#include "../../config.hpp"
#include "../../report.hpp"
#include "../util/atomic_file.hpp"
#include "blame_text.hpp"
#include "format.hpp"
#include "lock_tables.hpp"
#include "site_tables.hpp"
#include "text_table.hpp"
#include "utf8.hpp"
#include "views_hook.hpp"
#include "what_if_tables.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The region's name in the tables: its label, indented two spaces per level.
inline std::string tree_name(const region_result& r) {
  std::string name = r.label.empty() ? (r.depth == 0 ? "(root)" : "(unnamed)") : printable(r.label);
  return std::string(2 * static_cast<std::size_t>(r.depth), ' ') + name;
}

// A table of regions with exact, grouped numbers when they fit in 80 columns next
// to a readable region column; otherwise with three significant digits (5.57G).
template <typename Build>
std::string fitted_table(const std::vector<region_result>& regions, Build build) {
  std::size_t name_width = 6;  // "region"
  for (const auto& r : regions) {
    const std::size_t w = display_width(tree_name(r));
    if (w > name_width) name_width = w;
  }
  return fitted_next_to_names(name_width, 16, build);
}

inline std::string regions_table(const std::vector<region_result>& regions) {
  return fitted_table(regions, [&](bool short_numbers) {
    const auto num = [short_numbers](std::uint64_t v) { return count_text(v, short_numbers); };
    text_table t({"region", "inst.", "work", "span", "par.", "b.par.", "spawns", "syncs"});
    for (const auto& r : regions)
      t.add({tree_name(r), num(r.instances), num(r.work), num(r.span),
             ratio_text(r.span, r.parallelism(), short_numbers),
             ratio_text(r.burdened_span, r.burdened_parallelism(), short_numbers), num(r.spawns), num(r.syncs)});
    return t;
  });
}

inline std::string raw_table(const std::vector<region_result>& regions) {
  return fitted_table(regions, [&](bool short_numbers) {
    const auto num = [short_numbers](std::uint64_t v) { return count_text(v, short_numbers); };
    text_table t({"region", "raw work", "raw span", "work", "span"});
    for (const auto& r : regions) t.add({tree_name(r), num(r.raw_work), num(r.raw_span), num(r.work), num(r.span)});
    return t;
  });
}

// The first line: the report's label, clock and unit.
inline std::string title_text(const report& rep) {
  std::string out = "forkscale report";
  if (!rep.label.empty()) out += ": " + printable(rep.label);
  out += "  (clock: ";
  out += to_string(rep.clock);
  out += ", unit: " + printable(rep.unit) + ")\n";
  const std::string load = rep.load.warning();  // the machine was busy: said before any number
  if (!load.empty()) out += wrapped(load, "", "  ");
  // Strands near the profiler's own per-strand cost: the compensation decides
  // much of the work, and its start-up measurement's spread says how far off
  // the work may be.
  const double strand = rep.average_maximal_strand();
  const double work = static_cast<double>(rep.work());
  const double off = rep.work_uncertainty();
  if (strand > 0 && work > 0 && rep.compensation_per_strand > 0 &&
      (off > 0.05 * work || rep.compensation_per_strand > strand)) {
    std::string msg = "forkscale: strands average " + fixed(strand, 0) + " " + rep.unit + ", near the " +
                      fixed(rep.compensation_per_strand, 0) + " " + rep.unit +
                      " per strand subtracted for the profiler's own cost (measured at start-up to within " +
                      fixed(rep.compensation_residual, 1) + " " + rep.unit + "): the work may be off by up to " +
                      fixed(off, 0) + " " + rep.unit + " (" + fixed(100.0 * off / work, 0) + "%)";
    out += wrapped(msg, "", "  ");
  }
  return out;
}

// The legend of section 1.
inline std::string profile_legend(const std::string& u) {
  return wrapped(
             "Work (T1): every strand's time added up, what one processor would take. Span (Tinf): the "
             "time of the longest path, what unlimited processors would take. Burdened span: the "
             "longest path when every continuation edge also costs the burden (below). Parallelism = "
             "work / span and burdened parallelism = work / burdened span are ratios (no unit).",
             "  ", "  ") +
         wrapped("Average maximal strand = work / (1 + 2 x spawns + syncs) (Cilkview), in " + u +
                     ": the mean time of a strand between spawns and syncs; strands not much longer than "
                     "the burden spend a large share of their time on spawning and scheduling.",
                 "  ", "  ");
}

// Section 1: the whole program's numbers, one a line, integer parts
// right-aligned so that ratios line up with the counts above them; `u` is the
// unit as the report shows it. A legend says what each line is.
inline std::string profile_text(const region_result& r, const std::string& u) {
  struct line {
    const char* name;
    std::string value;
    bool timed;
  };
  const line lines[] = {
      {"Work:", grouped(r.work), true},
      {"Span:", grouped(r.span), true},
      {"Burdened span:", grouped(r.burdened_span), true},
      {"Parallelism:", ratio_text(r.span, r.parallelism()), false},
      {"Burdened parallelism:", ratio_text(r.burdened_span, r.burdened_parallelism()), false},
      {"Spawns:", grouped(r.spawns), false},
      {"Syncs:", grouped(r.syncs), false},
      {"Average maximal strand:", grouped_round(r.average_maximal_strand()), true},
  };
  std::size_t int_width = 0;
  for (const auto& l : lines) {
    const std::size_t w = l.value.find('.') == std::string::npos ? l.value.size() : l.value.find('.');
    if (w > int_width) int_width = w;
  }
  std::string out = "\n1) Parallelism Profile (times in " + u + ")\n";
  for (const auto& l : lines) {
    const std::size_t dot = l.value.find('.');
    const std::size_t w = dot == std::string::npos ? l.value.size() : dot;
    out += "  " + pad_right(l.name, 24) + std::string(int_width - w, ' ') + l.value;
    if (l.timed) out += " " + u;
    out += '\n';
  }
  return out + profile_legend(u);
}

// A speedup bound's time on P processors: work / speedup, in the report's unit.
inline std::string bound_time_text(const region_result& r, double speedup, bool short_numbers) {
  if (!(speedup > 0)) return "n/a";
  return time_text(static_cast<double>(r.work) / speedup, short_numbers);
}

// Section 2: the speedup bounds on 2, 4, ... processors, and the times they
// predict, in a table with a legend.
inline std::string speedup_text(const region_result& r, unsigned max_processors, const std::string& u) {
  std::string out = "\n2) Speedup Estimate (speedup = T1/TP on P processors; times TP in " + u + ")\n";
  const auto bounds = r.speedup_estimate(max_processors);
  if (bounds.empty()) return out + "  (none: max_processors is below 2)\n";
  if (r.span == 0) return out + "  (none: the span is zero)\n";
  const std::size_t p_width = std::to_string(bounds.back().processors).size();
  out += fitted_columns([&](bool short_numbers) {
    text_table t({"P", "lower", "upper", "TP at most", "TP at least"});
    for (const auto& b : bounds)
      t.add({pad_left(std::to_string(b.processors), p_width), fixed(b.lower, 2), fixed(b.upper, 2),
             bound_time_text(r, b.lower, short_numbers), bound_time_text(r, b.upper, short_numbers)});
    return t;
  });
  return out + wrapped(
                   "lower: T1 / (T1/P + 1.7 x burdened span), Cilkview's estimate of the speedup a "
                   "work-stealing scheduler reaches (not a guarantee); upper: min(P, parallelism), the "
                   "work and span laws. TP at most = work / lower, TP at least = work / upper (in " +
                       u + ").",
                   "  ", "  ");
}

// Sections 3 on, those the report has: regions, call sites, spawn sites,
// what-if, parallelism over time and idle blame (a recorded run), locks, and
// with `show_raw` the numbers before overhead compensation.
inline std::string numbered_sections(const report& rep, bool show_raw, const std::string& u) {
  std::string out;
  int section = 3;
  const auto add = [&](const std::string& heading, const std::string& body) {
    out += "\n" + std::to_string(section++) + ") " + heading + "\n" + body;
  };
  if (rep.regions.size() > 1) add("Regions (work and span in " + u + ")", regions_table(rep.regions));
  for (const auto& s : site_sections(rep, 10)) add(s.heading, s.body);
  const text_section wi = what_if_section(rep);
  if (!wi.heading.empty()) add(wi.heading, wi.body);
  if (record_text_writer) {
    for (const auto& s : record_text_writer(rep)) add(s.first, s.second);  // a recorded run
  } else if (rep.record && !rep.record->empty()) {
    add("Parallelism over time and idle blame",
        wrapped(std::string("Not in this report: the program was built without the views (header-only, without "
                            "<forkscale/views.hpp>); ") +
                    views_missing_advice() + ".",
                "  ", "  "));
  }
  const text_section locks = locks_section(rep, 10);
  if (!locks.heading.empty()) add(locks.heading, locks.body);
  if (show_raw) add("Before overhead compensation (in " + u + ")", raw_table(rep.regions));
  return out;
}

// Where the burden came from, when it needs saying, one sentence each: the
// cost clock's default is a choice, not a measurement, and a burdened
// parallelism that rounds to 0.00 is explained (the text and the HTML page).
inline std::vector<std::string> burden_notes(const report& rep, const std::string& u) {
  std::vector<std::string> out;
  if (rep.clock == clock_kind::cost && rep.burden_source == "default")
    out.push_back(
        "Under the cost clock the default burden is Cilkview's 15,000 cycles taken as 15,000 of the units "
        "the program charges: a choice, not a measurement. Set options.burden to what a steal costs in "
        "those units (docs/predict.md).");
  else if (rep.burden_source.compare(0, 9, "measured ") == 0)
    out.push_back("Measured: the steal time fs::calibrate_burden stored for " + printable(rep.burden_source.substr(9)) +
                  " on this machine (burden_file()).");
  if (!rep.burden_note.empty()) out.push_back("Not the stored burden: " + printable(rep.burden_note) + ".");
  const std::size_t plus = rep.backend.find('+');
  if (plus != std::string::npos)
    out.push_back("Spawns came through more than one library (" + printable(rep.backend) + "): the burden is " +
                  printable(rep.backend.substr(0, plus)) + "'s, the first one's.");
  if (!rep.empty() && rep.work() > 0 && rep.burdened_parallelism() < 0.005)
    out.push_back("The burdened parallelism reads 0.00: the burdened span (" + grouped(rep.burdened_span()) + " " + u +
                  ") is more than 200 times the work (" + grouped(rep.work()) + " " + u +
                  "), because every continuation edge costs the burden and the strands cost far less.");
  return out;
}

inline std::string burden_source_text(const report& rep, const std::string& u) {
  std::string out;
  for (const std::string& n : burden_notes(rep, u)) out += wrapped(n, "  ", "  ");
  return out;
}

// The lines after the sections: the burden, the profiler's memory and the
// overhead compensation.
inline std::string burden_text(const report& rep, const std::string& u) {
  std::string out = "\nBurden: " + grouped(rep.burden) + " " + u + " per continuation edge";
  if (!rep.burden_source.empty()) out += " (" + printable(rep.burden_source) + ")";
  if (rep.profiler_bytes > 0) out += "; profiler memory: " + bytes_text(rep.profiler_bytes);
  out += ".\n";
  if (!rep.backend.empty()) out += "Backend: " + printable(rep.backend) + ".\n";
  out += burden_source_text(rep, u);
  if (rep.compensation_per_strand > 0) {
    out += "Overhead compensation: " + fixed(rep.compensation_per_strand, 2) + " " + u + " subtracted per strand, " +
           grouped(rep.compensation_total) + " " + u + " in total.\n";
  }
  return out;
}

// The diagnostics: their count and the first ten.
inline std::string diagnostics_text(const report& rep) {
  const std::size_t shown_limit = 10;
  const std::uint64_t count =
      rep.diagnostic_count > rep.diagnostics.size() ? rep.diagnostic_count : rep.diagnostics.size();
  if (count == 0) return "Diagnostics: none.\n";
  const std::size_t shown = rep.diagnostics.size() < shown_limit ? rep.diagnostics.size() : shown_limit;
  std::string out = "Diagnostics: " + grouped(count);
  if (shown < count) out += " (the first " + std::to_string(shown) + " shown)";
  out += "\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& d = rep.diagnostics[i];
    out += "  ";
    if (!d.where.empty()) out += printable(d.where) + ": ";
    out += printable(d.problem) + "\n";
  }
  return out;
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::to_text(bool show_raw) const {
  namespace io = detail::output;
  const std::string u = io::printable(unit);
  std::string out = io::title_text(*this);
  if (regions.empty()) {
    out += "\nNothing was measured.\n";
  } else {
    out += io::profile_text(regions.front(), u);
    out += io::speedup_text(regions.front(), max_processors, u);
    out += io::numbered_sections(*this, show_raw, u);
  }
  out += io::burden_text(*this, u);
  out += io::diagnostics_text(*this);
  return out;
}

FORKSCALE_INLINE void report::write_text(const std::string& path, bool show_raw) const {
  detail::write_file_atomically(path, to_text(show_raw));
}

FORKSCALE_INLINE std::ostream& operator<<(std::ostream& os, const report& r) { return os << r.to_text(false); }
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
