// detail/session/merge_regions.hpp: the region rows of several measurements as
// the rows of one report (docs/sessions.md, "What a snapshot's numbers mean").
//
// The merged report's root stands for every measurement, run one after the
// other: its row sums the measurements' root rows and counts them (instances).
// Measurement L's own root row becomes the region "L" under it, and its nested
// rows follow under that: "L/a" becomes "<root>/L/a". Rows with the same path
// add up, as the instances of one region add up in a single measurement — a
// region's span is summed over its instances there too.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../report.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {

// Adds the stored numbers of `from` to `into` (identity fields untouched).
inline void add_region_numbers(region_result& into, const region_result& from) noexcept {
  into.instances += from.instances;
  into.work += from.work;
  into.span += from.span;
  into.burdened_span += from.burdened_span;
  into.spawns += from.spawns;
  into.syncs += from.syncs;
  into.calls += from.calls;
  into.raw_work += from.raw_work;
  into.raw_span += from.raw_span;
}

class region_merge {
 public:
  // One measurement's rows (its first row is its root).
  void add(const report& rep) {
    if (rep.regions.empty()) return;
    const region_result& root = rep.regions.front();
    add_region_numbers(root_, root);
    ++measurements_;
    for (const region_result& r : rep.regions) {
      // Keyed by the path as the measurement wrote it (its root's path is its
      // escaped label, and every other path starts with it).
      auto it = rows_.find(r.path);
      if (it == rows_.end()) {
        region_result row;
        row.label = r.label;
        row.path = r.path;
        row.parent = &r == &root ? std::string() : r.parent;
        row.depth = &r == &root ? 0 : r.depth;
        it = rows_.emplace(r.path, std::move(row)).first;
      }
      add_region_numbers(it->second, r);
    }
  }

  std::uint64_t measurements() const noexcept { return measurements_; }
  std::uint64_t work() const noexcept { return root_.work; }
  std::uint64_t span() const noexcept { return root_.span; }
  std::uint64_t burdened_span() const noexcept { return root_.burdened_span; }

  // The rows of the merged report whose root is labelled `label`: the root
  // first, then depth first with siblings in the order of their labels (as
  // detail::add_region_rows orders a measurement's rows).
  std::vector<region_result> rows(const std::string& label) const {
    std::vector<region_result> out;
    region_result root = root_;
    root.label = label;
    root.path = escape_region_label(label);
    root.parent.clear();
    root.depth = 0;
    out.push_back(root);
    std::map<std::string, std::vector<const region_result*>> children;
    for (const auto& [path, row] : rows_) children[row.parent].push_back(&row);
    append(out, children, std::string(), root.path);
    return out;
  }

 private:
  static void append(std::vector<region_result>& out,
                     const std::map<std::string, std::vector<const region_result*>>& children,
                     const std::string& parent, const std::string& prefix) {
    auto it = children.find(parent);
    if (it == children.end()) return;
    std::vector<const region_result*> sorted = it->second;
    std::sort(sorted.begin(), sorted.end(),
              [](const region_result* a, const region_result* b) { return a->label < b->label; });
    for (const region_result* c : sorted) {
      region_result row = *c;
      row.path = prefix + "/" + c->path;
      row.parent = c->parent.empty() ? prefix : prefix + "/" + c->parent;
      row.depth = c->depth + 1;
      out.push_back(std::move(row));
      append(out, children, c->path, prefix);
    }
  }

  region_result root_;
  std::uint64_t measurements_ = 0;
  std::map<std::string, region_result> rows_;  // by the path inside its measurement
};

}  // namespace detail
FORKSCALE_NAMESPACE_END
