// detail/output/what_if_tables.hpp: the what-if predictions in text: the
// region with the most to gain, the table of predicted spans, work and
// parallelism (with its ratio to the measured one), its legend, and
// report::what_if_text.
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
#include "views_hook.hpp"

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

// "Most to gain: <region> at k = <factor>: span <now> -> <then> <unit>,
// parallelism <now> -> <then> ...", wrapped.
inline std::string most_to_gain_text(const report& rep, const what_if_result& best) {
  const bool measured = rep.span() > 0;
  const double now = rep.parallelism();
  std::string line = "Most to gain: " + truncate_display(printable(best.region), 40) +
                     " at k = " + factor_text(best.factor) + ": span " + grouped(rep.span()) + " -> " +
                     time_text(best.span) + " " + printable(rep.unit) + ", parallelism " + ratio_text(rep.span(), now) +
                     " -> " + unbounded_ratio_text(best.parallelism);
  if (rep.max_processors >= 2) {
    const double p = static_cast<double>(rep.max_processors);
    line += "; speedup on " + std::to_string(rep.max_processors) + " processors at most " +
            fixed(measured ? std::min(p, now) : 0.0, 2) + " -> " + fixed(best.speedup_at(rep.max_processors).upper, 2);
  }
  return wrapped(line + ".", "  ", "    ");
}

// The what-if table: a line per region and factor with both models, or a note
// for a region that never ran; exact numbers when they fit next to a readable
// region column. The span is the same in both models; the optimized model's
// work is its own column.
inline std::string what_if_table(const std::vector<what_if_block>& blocks, bool measured) {
  std::size_t name_width = 6;  // "region"
  for (const what_if_block& b : blocks) name_width = std::max(name_width, display_width(printable(b.first->region)));
  return fitted_next_to_names(name_width, 20, [&](bool short_numbers) {
    text_table t({"region", "k", "span", "par.", "par./now", "opt.work", "opt.par.", "opt./now"});
    for (const what_if_block& b : blocks) {
      const std::string name = printable(b.first->region);
      if (!b.executed) {
        t.add_note(
            name, b.first->source == what_if_source::call_site ? "never executed (named call site)" : "never executed");
        continue;
      }
      for (const what_if_line& l : b.lines) {
        const auto par = [&](const what_if_result* w) {
          return w ? unbounded_ratio_text(w->parallelism, short_numbers) : std::string("-");
        };
        const auto ratio = [&](const what_if_result* w) {
          return w ? gain_text(w->gain, measured, short_numbers) : std::string("-");
        };
        const std::string opt_work = l.optimized ? time_text(l.optimized->work, short_numbers) : std::string("-");
        t.add({name, factor_text(l.factor), time_text(l.any().span, short_numbers), par(l.parallelized),
               ratio(l.parallelized), opt_work, par(l.optimized), ratio(l.optimized)});
      }
    }
    return t;
  });
}

// The legend under the what-if table: every column, with its unit.
inline std::string what_if_legend(const report& rep) {
  const std::string u = printable(rep.unit);
  return wrapped("k: how many times faster the region's strands run. span: the predicted span in " + u +
                     ", the time on unlimited processors (the same in both models). par.: the predicted "
                     "parallelism if the region is parallelized (its share of every path divides by k; the "
                     "work stays " +
                     grouped(rep.work()) + " " + u + "). opt.work: the predicted work in " + u +
                     " if the region is optimized (its work divides by k too), the time on one processor; "
                     "opt.par. = opt.work / span.",
                 "  ", "  ") +
         wrapped(
             "par./now and opt./now: predicted / measured parallelism, ratios of parallelism and not of "
             "time: optimizing a region shortens the work as well as the span, so opt./now can fall "
             "below 1x while both times drop.",
             "  ", "  ");
}

// The what-if section (report::what_if_text, report::to_text); empty heading
// when the report has no what-if rows.
inline text_section what_if_section(const report& rep) {
  text_section s;
  if (rep.what_if.empty()) return s;
  const std::vector<what_if_block> blocks = what_if_blocks(rep.what_if);
  s.heading = "What if a region ran k times faster (times in " + printable(rep.unit) + ")";
  s.body = wrapped(
      "Predicted span, work and parallelism of the whole program if the strands of a region were k "
      "times faster; measured: work " +
          grouped(rep.work()) + ", span " + grouped(rep.span()) + " " + printable(rep.unit) + ", parallelism " +
          ratio_text(rep.span(), rep.parallelism()) + ".",
      "  ", "  ");
  if (const what_if_result* best = most_to_gain(blocks)) s.body += most_to_gain_text(rep, *best);
  s.body += what_if_table(blocks, rep.span() > 0);
  s.body += what_if_legend(rep);
  if (replay_text_writer)
    s.body += replay_text_writer(rep);  // with a whole record only
  else if (rep.record && rep.record->complete && !rep.record->empty())
    s.body += wrapped(std::string("Through the replay: not in this report, the program was built without the views "
                                  "(header-only, without <forkscale/views.hpp>); ") +
                          views_missing_advice() + ".",
                      "  ", "  ");
  return s;
}

}  // namespace output
}  // namespace detail

#if FORKSCALE_DETAIL_DEFINES(writers)
FORKSCALE_INLINE std::string report::what_if_text() const {
  const detail::output::text_section s = detail::output::what_if_section(*this);
  return s.heading.empty() ? std::string() : s.heading + "\n" + s.body;
}
#endif  // FORKSCALE_DETAIL_DEFINES

FORKSCALE_NAMESPACE_END
