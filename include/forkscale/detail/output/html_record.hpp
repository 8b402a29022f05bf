// detail/output/html_record.hpp: the HTML report's views of a record
// (docs/record.md): the timeline (one lane per thread, each strand a rectangle
// coloured by its site, the critical path outlined) and the critical path's
// flame graph (its folded stacks, detail/output/folded.hpp). Both are inline
// SVG that reads without script; the page's script (html_record_assets.hpp)
// adds zooming and panning to the timeline and a line that describes whatever
// the pointer is over.
//
// For tests and tools: strands are <rect class="fs-strand"> (and "fs-critical"
// on the critical path) with data-strand (the index in the record), data-start
// and data-end (ns since the measurement started), data-work, data-span and
// data-label (the text the hover line shows); the timeline's <svg> carries its
// plot area (data-plot-left, data-plot-width) and its time window in ns
// (data-t-min, data-t-max, and data-view-start, data-view-end as zoomed). Flame
// graph frames are <rect class="fs-flame-frame"> with data-name, data-value
// and data-depth (0 = the measurement, at the bottom).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "../../record.hpp"
#include "../../report.hpp"
#include "folded.hpp"
#include "format.hpp"
#include "html_blocks.hpp"
#include "record_names.hpp"
#include "svg.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

// At most this many strands are drawn: the first ones by start time.
inline constexpr std::size_t timeline_strand_limit = 5000;

// Site colours (each site keeps one; sites beyond the palette share them).
inline const char* site_colour(std::size_t k) noexcept {
  static const char* const palette[] = {"#5b8ff9", "#f6bd16", "#5ad8a6", "#e8684a", "#6dc8ec",
                                        "#9270ca", "#ff9d4d", "#269a99", "#ff99c3", "#8c8c47"};
  return palette[k % (sizeof palette / sizeof palette[0])];
}

// A time in ns as an axis shows it: the unit by the largest time shown, as many
// decimals as the tick step needs. Mirrored by the page's script.
inline std::string axis_time(double ns, double largest, double step) {
  const double unit = largest >= 1e9 ? 1e9 : largest >= 1e6 ? 1e6 : largest >= 1e3 ? 1e3 : 1;
  const char* name = unit == 1e9 ? "s" : unit == 1e6 ? "ms" : unit == 1e3 ? "\xC2\xB5s" : "ns";
  const double s = step / unit;
  const int digits = s >= 1 ? 0 : std::min(6, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
  return io::fixed(ns / unit, digits) + " " + name;
}

// 1, 2 or 5 times a power of ten (at least 1 ns), about range / 8.
inline double timeline_step(double range) {
  const double raw = std::max(range / 8, 1.0);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return (m > 5 ? 10 : m > 2 ? 5 : m > 1 ? 2 : 1) * p;
}

struct timeline_geometry {
  double left = 150, width = 890, top = 10, lane = 20, gap = 6;
  std::size_t lanes = 1;
  double t0 = 0, t1 = 1;  // the time window, ns
  double x(double t) const { return left + (t - t0) / (t1 - t0) * width; }
  double lanes_bottom() const { return top + static_cast<double>(lanes) * (lane + gap); }
  double height() const { return lanes_bottom() + 30; }
};

// The strands drawn: all, or the first `timeline_strand_limit` by start time.
inline std::vector<std::uint32_t> timeline_strands(const execution_record& r) {
  std::vector<std::uint32_t> order(r.strands.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return r.strands[a].start_ns < r.strands[b].start_ns; });
  if (order.size() > timeline_strand_limit) order.resize(timeline_strand_limit);
  return order;
}

// A colour per site, the sites with the most work first; node 0's strands and
// sites without work grey.
inline std::vector<std::string> site_colours(const execution_record& r, std::vector<std::uint32_t>& by_work) {
  std::vector<std::uint64_t> work(r.sites.size(), 0);
  for (const auto& s : r.strands)
    if (s.frame != 0 && s.frame < r.frames.size() && r.frames[s.frame].site < work.size())
      work[r.frames[s.frame].site] += s.work;
  by_work.clear();
  for (std::uint32_t k = 0; k < work.size(); ++k)
    if (work[k] != 0) by_work.push_back(k);
  std::stable_sort(by_work.begin(), by_work.end(), [&](std::uint32_t a, std::uint32_t b) { return work[a] > work[b]; });
  std::vector<std::string> colour(r.sites.size(), "#bbbbbb");  // no work: grey, as the measurement's own
  for (std::size_t k = 0; k < by_work.size(); ++k) colour[by_work[k]] = site_colour(k);
  return colour;
}

inline std::string timeline_axis(const timeline_geometry& g) {
  std::string o = "<g class=\"fs-timeline-axis\" font-size=\"11\" fill=\"#444444\">\n";
  const double step = timeline_step(g.t1 - g.t0);
  for (double t = std::ceil(g.t0 / step) * step; t <= g.t1; t += step) {
    const std::string x = svg::px(g.x(t));
    o += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + svg::px(g.top) + "\" y2=\"" + svg::px(g.lanes_bottom()) +
         "\" stroke=\"#dddddd\"/><text x=\"" + x + "\" y=\"" + svg::px(g.lanes_bottom() + 16) +
         "\" text-anchor=\"middle\">" + esc(axis_time(t, g.t1, step)) + "</text>\n";
  }
  return o + "</g>\n";
}

// What the hover line says about a strand.
inline std::string strand_label(const report& rep, const execution_record& r, std::uint32_t i,
                                const std::string& root) {
  const record_strand& s = r.strands[i];
  const double largest = static_cast<double>(std::max<std::uint64_t>(s.end_ns, 1));
  return output::frame_name(r, s.frame, root) + ": work " + io::grouped(s.work) + " " + rep.unit + ", span " +
         io::grouped(s.span) + " " + rep.unit + ", thread " + std::to_string(s.thread) + ", task " +
         std::to_string(s.task) + ", " + axis_time(static_cast<double>(s.start_ns), largest, 1) + " to " +
         axis_time(static_cast<double>(s.end_ns), largest, 1) + (s.critical ? " (critical path)" : "");
}

inline std::string timeline_rect(const report& rep, const execution_record& r, std::uint32_t i,
                                 const timeline_geometry& g, const std::string& fill, const std::string& root) {
  const record_strand& s = r.strands[i];
  const double x0 = g.x(static_cast<double>(s.start_ns));
  const double w = std::max(g.x(static_cast<double>(s.end_ns)) - x0, 0.6);
  const double y = g.top + static_cast<double>(s.thread) * (g.lane + g.gap);
  const std::string label = strand_label(rep, r, i, root);
  std::string o = "<rect class=\"fs-strand" + std::string(s.critical ? " fs-critical" : "") + "\" x=\"" + svg::px(x0) +
                  "\" y=\"" + svg::px(y) + "\" width=\"" + svg::px(w) + "\" height=\"" + svg::px(g.lane) +
                  "\" fill=\"" + fill + "\"";
  if (s.critical) o += " stroke=\"#111111\" stroke-width=\"1.5\"";
  o += " data-strand=\"" + std::to_string(i) + "\" data-start=\"" + std::to_string(s.start_ns) + "\" data-end=\"" +
       std::to_string(s.end_ns) + "\" data-work=\"" + std::to_string(s.work) + "\" data-span=\"" +
       std::to_string(s.span) + "\" data-label=\"" + esc(label) + "\"><title>" + esc(label) + "</title></rect>\n";
  return o;
}

// The timeline's SVG: lanes, strands, the time axis.
inline std::string timeline_svg(const report& rep, const execution_record& r, const std::vector<std::uint32_t>& drawn,
                                const std::vector<std::string>& colour) {
  timeline_geometry g;
  for (const auto& s : r.strands) g.lanes = std::max<std::size_t>(g.lanes, std::size_t(s.thread) + 1);
  g.t1 = 1;
  for (const std::uint32_t i : drawn) g.t1 = std::max(g.t1, static_cast<double>(r.strands[i].end_ns));
  const std::string w = svg::px(g.left + g.width + 10), h = svg::px(g.height());
  std::string o = "<svg id=\"fs-timeline-svg\" class=\"fs-plot fs-timeline\" width=\"" + w + "\" height=\"" + h +
                  "\" viewBox=\"0 0 " + w + " " + h +
                  "\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"Timeline of the strands\"" +
                  " data-info=\"fs-timeline-info\" data-plot-left=\"" + svg::exact(g.left) + "\" data-plot-width=\"" +
                  svg::exact(g.width) + "\" data-t-min=\"0\" data-t-max=\"" + svg::exact(g.t1) +
                  "\" data-view-start=\"0\" data-view-end=\"" + svg::exact(g.t1) + "\">\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"#ffffff\"/>\n";
  for (std::size_t t = 0; t < g.lanes; ++t) {
    const double y = g.top + static_cast<double>(t) * (g.lane + g.gap);
    const std::string os = t < r.threads.size() ? " (tid " + std::to_string(r.threads[t].os_id) + ")" : "";
    o += "<rect class=\"fs-lane\" x=\"" + svg::px(g.left) + "\" y=\"" + svg::px(y) + "\" width=\"" + svg::px(g.width) +
         "\" height=\"" + svg::px(g.lane) + "\" fill=\"#f4f4f4\"/><text x=\"" + svg::px(g.left - 8) + "\" y=\"" +
         svg::px(y + g.lane - 6) + "\" text-anchor=\"end\">thread " + std::to_string(t) + "<title>thread " +
         std::to_string(t) + esc(os) + "</title></text>\n";
  }
  o += timeline_axis(g);
  const std::string root = output::root_name(rep);
  o += "<g class=\"fs-strands\">\n";
  for (const std::uint32_t i : drawn) {
    const std::uint32_t f = r.strands[i].frame;
    const std::uint32_t site = f != 0 && f < r.frames.size() ? r.frames[f].site : 0;
    o += timeline_rect(rep, r, i, g, f != 0 && site < colour.size() ? colour[site] : "#bbbbbb", root);
  }
  return o + "</g>\n</svg>\n";
}

// The sites with the most work, with their colours.
inline std::string timeline_legend(const execution_record& r, const std::vector<std::uint32_t>& by_work,
                                   const std::vector<std::string>& colour) {
  std::string o = "<ul class=\"fs-legend\">\n";
  for (std::size_t k = 0; k < by_work.size() && k < 10; ++k)
    o += "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" fill=\"" +
         colour[by_work[k]] + "\"/></svg> " + esc(execution_record::display_name(r.sites[by_work[k]])) + "</li>\n";
  if (by_work.size() > 10) o += "<li>(" + std::to_string(by_work.size() - 10) + " more sites)</li>\n";
  o += "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" "
       "fill=\"#bbbbbb\"/></svg> the measurement itself, or no work</li>\n";
  return o + "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" " +
         "fill=\"#ffffff\" stroke=\"#111111\" stroke-width=\"3\"/></svg> the critical path</li>\n</ul>\n";
}

// The "Timeline" section: the controls, the timeline, the hover line, the
// legend and a note.
inline std::string timeline_body(const report& rep) {
  const execution_record& r = output::require_record(rep);
  const std::vector<std::uint32_t> drawn = timeline_strands(r);
  std::vector<std::uint32_t> by_work;
  const std::vector<std::string> colour = site_colours(r, by_work);
  std::string o =
      "<div class=\"fs-timeline-controls\"><button type=\"button\" id=\"fs-timeline-zoom-in\" "
      "data-timeline=\"fs-timeline-svg\" data-zoom=\"0.5\">Zoom in</button> <button type=\"button\" "
      "id=\"fs-timeline-zoom-out\" data-timeline=\"fs-timeline-svg\" data-zoom=\"2\">Zoom out</button> <button "
      "type=\"button\" id=\"fs-timeline-reset\" data-timeline=\"fs-timeline-svg\" data-zoom=\"0\">Whole run</button> "
      "<span class=\"fs-note\">or the mouse wheel over the timeline; drag to pan.</span></div>\n";
  o += "<div class=\"fs-scroll\">\n" + timeline_svg(rep, r, drawn, colour) + "</div>\n";
  o += "<p id=\"fs-timeline-info\" class=\"fs-hover-info\">Point at a strand to see its site, work and span.</p>\n";
  o += timeline_legend(r, by_work, colour);
  std::string note =
      "Each lane is a thread; each rectangle a strand, placed at the wall-clock time it ran and "
      "coloured by its innermost site; the strands of the critical path are outlined. Work and span in " +
      rep.unit + ".";
  if (drawn.size() < r.strands.size())
    note += " Showing the first " + io::grouped(drawn.size()) + " of " + io::grouped(r.strands.size()) +
            " strands (by start time); the trace (report::write_trace) has them all.";
  if (!r.complete) note += " The record is partial (recording stopped at options.record_limit): strands are missing.";
  return o + paragraph(note);
}

// ---- the critical path's flame graph ----------------------------------------------

struct flame_node {
  std::string name;
  std::uint64_t value = 0;
  std::map<std::string, std::size_t> children;  // by name: siblings in name order
};

// The tree of folded stacks ("a;b;c" -> count); node 0 holds the roots.
inline std::vector<flame_node> flame_tree(const std::map<std::string, std::uint64_t>& counts) {
  std::vector<flame_node> nodes(1);
  for (const auto& line : counts) {
    std::size_t at = 0, from = 0;
    nodes[0].value += line.second;
    for (;;) {
      const std::size_t semi = line.first.find(';', from);
      const std::string part = line.first.substr(from, semi == std::string::npos ? std::string::npos : semi - from);
      const auto found = nodes[at].children.find(part);
      std::size_t next = 0;
      if (found == nodes[at].children.end()) {
        next = nodes.size();
        nodes[at].children.emplace(part, next);
        nodes.emplace_back();
        nodes.back().name = part;
      } else {
        next = found->second;
      }
      nodes[next].value += line.second;
      at = next;
      if (semi == std::string::npos) break;
      from = semi + 1;
    }
  }
  return nodes;
}

// A warm colour that depends on the name only.
inline std::string flame_colour(const std::string& name) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  static const char hex[] = "0123456789abcdef";
  const unsigned rgb[3] = {205 + h % 50, 90 + (h >> 8) % 140, 40 + (h >> 16) % 50};
  std::string o = "#";
  for (const unsigned v : rgb) {
    o += hex[v >> 4];
    o += hex[v & 15];
  }
  return o;
}

struct flame_layout {
  double left = 10, width = 1020, row = 18;
  std::size_t depth = 0;  // of the deepest frame drawn
  std::uint64_t total = 0;
  std::size_t omitted = 0;
  std::string unit;
  struct box {
    std::size_t node, depth;
    double x, w;
  };
  std::vector<box> boxes;
};

// Places `node` at `x` and its children above it, in name order; frames
// narrower than 0.1 px are left out (and counted).
inline void place_flame(const std::vector<flame_node>& nodes, std::size_t node, std::size_t depth, double x,
                        flame_layout& L) {
  const double w = static_cast<double>(nodes[node].value) / static_cast<double>(L.total) * L.width;
  if (w < 0.1) {
    ++L.omitted;
    return;
  }
  L.boxes.push_back(flame_layout::box{node, depth, x, w});
  L.depth = std::max(L.depth, depth);
  for (const auto& child : nodes[node].children) {
    place_flame(nodes, child.second, depth + 1, x, L);
    x += static_cast<double>(nodes[child.second].value) / static_cast<double>(L.total) * L.width;
  }
}

inline std::string flame_svg(const std::vector<flame_node>& nodes, const flame_layout& L) {
  const double height = static_cast<double>(L.depth + 1) * L.row + 10;
  const std::string w = svg::px(L.left * 2 + L.width), h = svg::px(height);
  std::string o = "<svg id=\"fs-critical-path-svg\" class=\"fs-plot fs-flame\" width=\"" + w + "\" height=\"" + h +
                  "\" viewBox=\"0 0 " + w + " " + h +
                  "\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\" aria-label=\"Flame graph of the "
                  "critical path\" data-info=\"fs-critical-path-info\" data-total=\"" +
                  std::to_string(L.total) + "\">\n<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h +
                  "\" fill=\"#ffffff\"/>\n";
  for (const flame_layout::box& b : L.boxes) {
    const flame_node& n = nodes[b.node];
    const double y = 5 + static_cast<double>(L.depth - b.depth) * L.row;
    const std::string label = n.name + ": " + io::grouped(n.value) + " " + L.unit + ", " +
                              io::fixed(100.0 * static_cast<double>(n.value) / static_cast<double>(L.total), 1) +
                              "% of the span";
    o += "<g><rect class=\"fs-flame-frame\" x=\"" + svg::px(b.x) + "\" y=\"" + svg::px(y) + "\" width=\"" +
         svg::px(b.w) + "\" height=\"" + svg::px(L.row - 1) + "\" fill=\"" + flame_colour(n.name) + "\" data-name=\"" +
         esc(n.name) + "\" data-value=\"" + std::to_string(n.value) + "\" data-depth=\"" + std::to_string(b.depth) +
         "\" data-label=\"" + esc(label) + "\"><title>" + esc(label) + "</title></rect>";
    const std::size_t chars = static_cast<std::size_t>((b.w - 6) / 6.5);
    if (chars >= 3)
      o += "<text x=\"" + svg::px(b.x + 3) + "\" y=\"" + svg::px(y + L.row - 5) + "\">" +
           esc(io::truncate_display(n.name, chars)) + "</text>";
    o += "</g>\n";
  }
  return o + "</svg>\n";
}

// The "Critical path" section: the flame graph of the critical path's folded
// stacks (widths are shares of the span).
inline std::string critical_path_body(const report& rep) {
  const std::map<std::string, std::uint64_t> counts = output::folded_counts(rep, folded_kind::critical_path);
  const std::vector<flame_node> nodes = flame_tree(counts);
  flame_layout L;
  L.total = nodes[0].value;
  L.unit = rep.unit;
  if (L.total == 0) return paragraph("The critical path has no cost to draw (the span is 0).");
  double x = L.left;
  for (const auto& root : nodes[0].children) {
    place_flame(nodes, root.second, 0, x, L);
    x += static_cast<double>(nodes[root.second].value) / static_cast<double>(L.total) * L.width;
  }
  std::string note =
      "The critical path's call paths: each box is a site open around strands of the critical "
      "path (the measurement at the bottom, the sites it calls or spawns above), as wide as its "
      "share of the span (" +
      io::grouped(L.total) + " " + rep.unit + "). The same stacks as report::to_folded(folded_kind::critical_path).";
  if (L.omitted) note += " " + io::grouped(L.omitted) + " frames narrower than 0.1 px are not drawn.";
  return "<div class=\"fs-scroll\">\n" + flame_svg(nodes, L) +
         "</div>\n<p id=\"fs-critical-path-info\" class=\"fs-hover-info\">Point at a frame to see its share of the "
         "span.</p>\n" +
         paragraph(note);
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
