// detail/session/merger.hpp: several measurements' reports, added one at a time,
// as one report (fs::merge_reports, fs::session's snapshots; docs/sessions.md).
//
// The merged report is what a single measurement of the measurements run one
// after the other would say: work, span, burdened span and the counts add; its
// parallelism is total work over total span. The region rows, the per-site
// profiles and the what-if rows are merged by merge_regions.hpp,
// merge_sites.hpp and merge_what_if.hpp; the header fields and the
// diagnostics here.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"
#include "merge_regions.hpp"
#include "merge_sites.hpp"
#include "merge_what_if.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// The diagnostics a merged report keeps (all are counted), as a measurement
// keeps detail::max_kept_diagnostics.
inline constexpr std::size_t merged_kept_diagnostics = 100;

class report_merger {
 public:
  explicit report_merger(std::string label) : label_(std::move(label)) {}

  // Adds one report. Reports without rows (empty) are skipped. Throws
  // forkscale::error when the report's unit differs from the ones merged
  // before: nanoseconds and cost units do not add.
  void add(const report& rep) {
    if (rep.regions.empty()) return;
    if (regions_.measurements() == 0) {
      head_.label = rep.label;
      head_.unit = rep.unit;
      head_.clock = rep.clock;
      head_.burden = rep.burden;
      head_.burden_source = rep.burden_source;
      head_.burden_note = rep.burden_note;
      head_.backend = rep.backend;
      head_.compensation_per_strand = rep.compensation_per_strand;
      head_.max_processors = rep.max_processors;
    } else {
      if (rep.unit != head_.unit)
        throw error("forkscale: cannot merge report '" + rep.label + "' (in " + rep.unit + ") with reports in " +
                    head_.unit);
      note_difference(rep);
      head_.max_processors = std::max(head_.max_processors, rep.max_processors);
    }
    head_.compensation_total += rep.compensation_total;
    head_.profiler_bytes = std::max(head_.profiler_bytes, rep.profiler_bytes);
    add_load(head_.load, rep.load);
    for (const diagnostic& d : rep.diagnostics)
      if (diagnostics_.size() < merged_kept_diagnostics) diagnostics_.push_back(d);
    diagnostic_count_ += std::max<std::uint64_t>(rep.diagnostic_count, rep.diagnostics.size());
    regions_.add(rep);
    sites_.add(rep);
    what_if_.add(rep);
  }

  std::uint64_t measurements() const noexcept { return regions_.measurements(); }

  // The merged report, labelled with the merger's label. `notes` (the caller's
  // own diagnostics) come first, then the merge's, then the measurements'; at
  // most max_kept_diagnostics are kept, all are counted. With no report merged,
  // the report is empty unless `unit` is given: then it has a root row of zeros
  // in that unit (a session's snapshot before anything finished).
  report result(const std::vector<diagnostic>& notes = {}, const char* unit = nullptr,
                clock_kind clock = clock_kind::cost) const {
    report out = head_;
    out.label = label_;
    if (regions_.measurements() == 0) {
      if (!unit) return with_notes(std::move(out), notes);
      out.unit = unit;
      out.clock = clock;
    }
    out.regions = regions_.rows(label_);
    sites_.rows(out);
    // Misuse in a measurement leaves its profile and its what-if rows out of its
    // own report: the merged report then has neither (merge_sites.hpp).
    if (!profiles_mixed()) what_if_.rows(out);
    return with_notes(std::move(out), notes);
  }

 private:
  static void add_load(load_check& into, const load_check& from) noexcept {
    into.checked = into.checked || from.checked;
    into.involuntary_switches += from.involuntary_switches;
    into.migrations += from.migrations;
    into.wait_ns += from.wait_ns;
    into.runnable_at_start = std::max(into.runnable_at_start, from.runnable_at_start);
    into.hardware_threads = std::max(into.hardware_threads, from.hardware_threads);
    into.clock_chosen_for_load = into.clock_chosen_for_load || from.clock_chosen_for_load;
    into.inflated = into.inflated || from.inflated;
  }

  // Header fields that differ from the first report's, which the merged report
  // keeps (a session whose automatic clock chose thread_cpu under load for some
  // measurements and the TSC for others, say).
  void note_difference(const report& rep) {
    auto note = [&](const char* field, const std::string& first, const std::string& other) {
      for (const std::string& d : differences_)
        if (d.rfind(field, 0) == 0) return;
      differences_.push_back(std::string(field) + " (" + first + " in '" + head_.label + "', " + other + " in '" +
                             rep.label + "')");
    };
    if (rep.clock != head_.clock) note("clock", to_string(head_.clock), to_string(rep.clock));
    if (rep.burden != head_.burden) note("burden", std::to_string(head_.burden), std::to_string(rep.burden));
    if (rep.backend != head_.backend) note("backend", head_.backend, rep.backend);
    if (!(rep.compensation_per_strand == head_.compensation_per_strand))
      note("compensation per strand", std::to_string(head_.compensation_per_strand),
           std::to_string(rep.compensation_per_strand));
  }

  // The merge's own diagnostics: what it had to leave out, and differences.
  std::vector<diagnostic> own_notes() const {
    std::vector<diagnostic> out;
    const std::string where = "merge of " + std::to_string(regions_.measurements()) + " measurement(s)";
    if (profiles_mixed()) {
      std::string p = "site profiles left out: " + std::to_string(sites_.without_profile()) + " of " +
                      std::to_string(regions_.measurements()) +
                      " measurement(s) have none (options.site_profiles off, or misuse left them out)";
      if (!what_if_.empty()) p += "; what-if rows left out with them";
      out.push_back(diagnostic{where, p});
    }
    if (!what_if_.problem().empty() && !profiles_mixed())
      out.push_back(diagnostic{where, "what-if rows left out: " + what_if_.problem()});
    if (!differences_.empty()) {
      std::string p = "the measurements differ in ";
      for (std::size_t i = 0; i < differences_.size(); ++i) p += (i ? "; " : "") + differences_[i];
      out.push_back(diagnostic{where, p + "; the merged report states the first measurement's"});
    }
    return out;
  }

  bool profiles_mixed() const noexcept { return sites_.without_profile() > 0 && sites_.with_profile() > 0; }

  report with_notes(report out, const std::vector<diagnostic>& notes) const {
    std::vector<diagnostic> first = notes;
    for (diagnostic& d : own_notes()) first.push_back(std::move(d));
    out.diagnostics = first;
    if (out.diagnostics.size() > merged_kept_diagnostics) out.diagnostics.resize(merged_kept_diagnostics);
    for (const diagnostic& d : diagnostics_)
      if (out.diagnostics.size() < merged_kept_diagnostics) out.diagnostics.push_back(d);
    out.diagnostic_count = first.size() + diagnostic_count_;
    return out;
  }

  std::string label_;
  report head_;  // the header fields (clock, unit, burden, ...) of the first report, and the sums
  std::vector<std::string> differences_;
  std::vector<diagnostic> diagnostics_;  // the measurements' first ones
  std::uint64_t diagnostic_count_ = 0;
  region_merge regions_;
  site_merge sites_;
  what_if_merge what_if_;
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
