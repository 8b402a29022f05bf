// detail/output/what_if_tables.hpp: the what-if predictions in text: the
// region with the most to gain, the table of predicted spans, parallelism and
// gains, and report::what_if_text.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "format.hpp"
#include "text_table.hpp"
#include "utf8.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace output {

// The what-if rows of one region, as the text table shows them: one line per
// factor with both models.
struct what_if_line {
  double factor = 1;
  const what_if_result* parallelized = nullptr;
  const what_if_result* optimized = nullptr;
  const what_if_result& any() const { return parallelized ? *parallelized : *optimized; }
};
struct what_if_block {
  const what_if_result* first = nullptr;
  bool executed = false;
  std::vector<what_if_line> lines;
};

// Consecutive rows of the same region (name and source) make a block, in the
// report's order; within a block, rows of the same factor make a line.
inline std::vector<what_if_block> what_if_blocks(const std::vector<what_if_result>& rows) {
  std::vector<what_if_block> blocks;
  for (const what_if_result& w : rows) {
    if (blocks.empty() || blocks.back().first->region != w.region || blocks.back().first->source != w.source) {
      blocks.emplace_back();
      blocks.back().first = &w;
    }
    what_if_block& b = blocks.back();
    b.executed = b.executed || w.executed;
    what_if_line* line = nullptr;
    for (auto& l : b.lines)
      if (l.factor == w.factor || (std::isnan(l.factor) && std::isnan(w.factor))) line = &l;
    if (!line) {
      b.lines.emplace_back();
      line = &b.lines.back();
      line->factor = w.factor;
    }
    const what_if_result*& slot = w.model == what_if_model::parallelized ? line->parallelized : line->optimized;
    if (!slot) slot = &w;
  }
  return blocks;
}

// Orders parallelism values, +infinity largest, NaN smallest.
inline bool parallelism_less(double a, double b) noexcept {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a < b;
}

// The region with the most to gain at its largest factor (parallelized): an
// executed region's row, named regions before "all regions"; null when none.
inline const what_if_result* most_to_gain(const std::vector<what_if_block>& blocks) {
  const what_if_result* best = nullptr;
  for (int pass = 0; pass < 2 && !best; ++pass) {
    for (const what_if_block& b : blocks) {
      if (!b.executed || (pass == 0 && b.first->source == what_if_source::all)) continue;
      const what_if_result* top = nullptr;
      for (const what_if_line& l : b.lines)
        if (l.parallelized && l.parallelized->executed && (!top || top->factor < l.factor)) top = l.parallelized;
      if (top && (!best || parallelism_less(best->parallelism, top->parallelism))) best = top;
    }
  }
  return best;
}

// "Most to gain: <region> at k = <factor>: parallelism <now> -> <then> ...",
// wrapped.
inline std::string most_to_gain_text(const report& rep, const what_if_result& best) {
  const bool measured = rep.span() > 0;
  const double now = rep.parallelism();
  std::string line = "Most to gain: " + truncate_display(printable(best.region), 40) +
                     " at k = " + factor_text(best.factor) + ": parallelism " + ratio_text(rep.span(), now) + " -> " +
                     unbounded_ratio_text(best.parallelism);
  if (measured && std::isfinite(best.gain)) line += " (" + gain_text(best.gain, measured) + ")";
  if (rep.max_processors >= 2) {
    const double p = static_cast<double>(rep.max_processors);
    line += "; speedup on " + std::to_string(rep.max_processors) + " processors at most " +
            fixed(measured ? std::min(p, now) : 0.0, 2) + " -> " + fixed(best.speedup_at(rep.max_processors).upper, 2);
  }
  return wrapped(line + ".", "  ", "    ");
}

// The what-if table: a line per region and factor with both models, or a note
// for a region that never ran; exact numbers when they fit next to a readable
// region column.
inline std::string what_if_table(const std::vector<what_if_block>& blocks, bool measured) {
  std::size_t name_width = 6;  // "region"
  for (const what_if_block& b : blocks) name_width = std::max(name_width, display_width(printable(b.first->region)));
  return fitted_next_to_names(name_width, 20, [&](bool short_numbers) {
    text_table t({"region", "k", "span", "par.", "gain", "opt.par.", "opt.gain"});
    for (const what_if_block& b : blocks) {
      const std::string name = printable(b.first->region);
      if (!b.executed) {
        t.add_note(
            name, b.first->source == what_if_source::call_site ? "never executed (named call site)" : "never executed");
        continue;
      }
      for (const what_if_line& l : b.lines) {
        const double span = l.any().span;
        const std::string span_text = short_numbers && span >= 0 && span < 1.8e19
                                          ? compact(static_cast<std::uint64_t>(std::round(span)))
                                          : grouped_round(span);
        const auto par = [&](const what_if_result* w) {
          return w ? unbounded_ratio_text(w->parallelism, short_numbers) : std::string("-");
        };
        const auto gain = [&](const what_if_result* w) {
          return w ? gain_text(w->gain, measured, short_numbers) : std::string("-");
        };
        t.add({name, factor_text(l.factor), span_text, par(l.parallelized), gain(l.parallelized), par(l.optimized),
               gain(l.optimized)});
      }
    }
    return t;
  });
}

// The what-if section (report::what_if_text, report::to_text); empty heading
// when the report has no what-if rows.
inline text_section what_if_section(const report& rep) {
  text_section s;
  if (rep.what_if.empty()) return s;
  const std::vector<what_if_block> blocks = what_if_blocks(rep.what_if);
  s.heading = "What if a region ran k times faster (span in " + printable(rep.unit) + ")";
  s.body = wrapped(
      "Predicted span and parallelism of the whole program if the strands of a region were k times "
      "faster; measured: span " +
          grouped(rep.span()) + ", parallelism " + ratio_text(rep.span(), rep.parallelism()) + ".",
      "  ", "  ");
  if (const what_if_result* best = most_to_gain(blocks)) s.body += most_to_gain_text(rep, *best);
  s.body += what_if_table(blocks, rep.span() > 0);
  s.body += wrapped(
      "par., gain: parallelized (the region's share of every path divides by k, the work stays); "
      "opt.: optimized (its work divides too); gain = predicted / measured parallelism",
      "  ", "  ");
  return s;
}

}  // namespace output
}  // namespace detail

inline std::string report::what_if_text() const {
  const detail::output::text_section s = detail::output::what_if_section(*this);
  return s.heading.empty() ? std::string() : s.heading + "\n" + s.body;
}

FORKSCALE_NAMESPACE_END
