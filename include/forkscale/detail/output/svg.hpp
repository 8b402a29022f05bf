// detail/svg.hpp: a small line-chart renderer with no dependency, for
// forkscale's plots (plot.hpp).
//
// A chart is a few series of (x, y) points on linear axes, optional error bars,
// labeled vertical gaps between curves, a legend and notes. The output is plain
// SVG 1.1 (XML), standalone (with the XML declaration and namespace) or for
// inlining in HTML5. Every text is escaped; nothing refers to anything outside
// the file (no links, no fonts, no images, no url()).
//
// For tests and tools the SVG carries its own coordinate mapping and data:
//  - the root <svg> has data-plot-left/-top/-width/-height (the plot area in
//    px) and data-x-min/-x-max/-y-min/-y-max (the axis ranges);
//  - every data point is <circle|rect|path class="point" data-series="..."
//    data-x="..." data-y="..."> with the exact value (shortest round-trip
//    decimal), error bars are <line class="errorbar" data-series data-x
//    data-low data-high>, curves are <polyline class="curve" data-series>.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "../../config.hpp"
#include "report_writers.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace svg {

// Text for XML character data or a quoted attribute: valid UTF-8 with control
// characters shown as escapes (XML 1.0 cannot carry them at all), the five
// markup characters as entities, and the noncharacters U+FFFE/U+FFFF (not XML
// characters either) replaced by U+FFFD.
inline std::string escape(const std::string& s) {
  const std::string v = output::printable(s);
  std::string out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) == 0xEF && i + 2 < v.size() && static_cast<unsigned char>(v[i + 1]) == 0xBF &&
            (static_cast<unsigned char>(v[i + 2]) == 0xBE || static_cast<unsigned char>(v[i + 2]) == 0xBF)) {
          out += "\xEF\xBF\xBD";
          i += 2;
        } else {
          out += c;
        }
    }
  }
  return out;
}

// Code points in valid UTF-8 text (to estimate how wide a label is drawn).
inline std::size_t text_length(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// The width a text is drawn at, estimated generously: 0.65 em per code point.
// The font behind "sans-serif" is the viewer's choice; the wide common ones
// (DejaVu Sans, Verdana) average about 0.6 em per character of English text, so
// a layout sized by this estimate keeps its texts inside the viewBox.
inline double text_width(const std::string& s, double font_px) {
  return 0.65 * font_px * static_cast<double>(text_length(output::printable(s)));
}

// A pixel coordinate.
inline std::string px(double v) { return output::fixed(v, 2); }

// An exact value for a data-* attribute ("" when not finite).
inline std::string exact(double v) { return output::round_trip(v); }

// A short label for an axis tick or a legend value.
inline std::string short_number(double v) {
  if (std::isnan(v)) return "n/a";
  const double a = std::fabs(v);
  std::string t = output::fixed(v, a >= 100 ? 0 : (a >= 10 ? 1 : 2));
  if (t.find('.') != std::string::npos) {
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
  }
  return t == "-0" ? "0" : t;
}

// 1, 2, 2.5 or 5 times a power of ten, at least range / target.
inline double nice_step(double range, int target) {
  if (!(range > 0) || target < 1) return 1;
  const double raw = range / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

struct series {
  std::string id;    // data-series value: "actual", "work-law", ...
  std::string name;  // legend text
  std::string color = "#000000";
  std::string dash;               // stroke-dasharray, "" for solid
  std::string marker = "circle";  // circle, square, diamond, triangle, none
  bool line = true;               // connect the points
  double width = 2;
  std::vector<double> xs, ys;
  std::vector<bool> hollow;       // per point (optional)
  std::vector<double> low, high;  // error bars (optional, per point)
  std::vector<std::string> tips;  // tooltips (optional, per point)
};

// A labeled vertical arrow between two values at the right end of the data.
struct gap {
  std::string letter;
  double y_from = 0, y_to = 0;
  std::string description;  // shown under the chart: "A  0.15  linear - maximal: ..."
};

struct chart {
  std::string id;  // unique within a page: prefixes every element id
  std::string title, x_label, y_label;
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  double x_tick_step = 0;  // 0: automatic
  std::vector<series> curves;
  double gap_x = 0;  // where the gap arrows start (data x)
  std::vector<gap> gaps;
  double shade_from_x = std::nan("");  // shade x > this (more threads than cores)
  std::string shade_label;
  std::vector<std::string> notes;  // lines under the chart
};

class renderer {
 public:
  explicit renderer(const chart& c) : c_(c) {}

  std::string render(bool standalone) {
    const double left = 70, top = 56, plot_w = 470, plot_h = 330;
    const double legend_x = left + plot_w + 28;
    left_ = left;
    top_ = top;
    w_ = plot_w;
    h_ = plot_h;

    std::vector<std::string> lines_below;
    for (const auto& g : c_.gaps) lines_below.push_back(g.letter + "  " + g.description);
    for (const auto& n : c_.notes) lines_below.push_back(n);
    // Wide enough for the longest legend entry (12 px, after its marker) and the
    // longest line below the chart (11 px, from x = 16), by text_width.
    double width = 820;
    for (const auto& s : c_.curves) width = std::max(width, legend_x + 34 + text_width(s.name, 12) + 12);
    for (const auto& line : lines_below) width = std::max(width, 16 + text_width(line, 11) + 16);
    width = std::ceil(width);
    const double below_y = top + plot_h + 62;
    const double height = below_y + 18.0 * static_cast<double>(lines_below.size()) + 12;

    std::string o;
    if (standalone) o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    o += "<svg";
    if (standalone) o += " xmlns=\"http://www.w3.org/2000/svg\"";
    o += " id=\"" + escape(c_.id) + "\" class=\"fs-plot\" width=\"" + px(width) + "\" height=\"" + px(height) +
         "\" viewBox=\"0 0 " + px(width) + " " + px(height) + "\" role=\"img\" aria-labelledby=\"" + escape(c_.id) +
         "-title\" font-family=\"sans-serif\" font-size=\"12\"";
    o += " data-plot-left=\"" + exact(left) + "\" data-plot-top=\"" + exact(top) + "\" data-plot-width=\"" +
         exact(plot_w) + "\" data-plot-height=\"" + exact(plot_h) + "\" data-x-min=\"" + exact(c_.x_min) +
         "\" data-x-max=\"" + exact(c_.x_max) + "\" data-y-min=\"" + exact(c_.y_min) + "\" data-y-max=\"" +
         exact(c_.y_max) + "\">\n";
    o += "<title id=\"" + escape(c_.id) + "-title\">" + escape(c_.title) + "</title>\n";
    o += "<rect x=\"0\" y=\"0\" width=\"" + px(width) + "\" height=\"" + px(height) + "\" fill=\"#ffffff\"/>\n";
    o += "<text x=\"" + px(left + plot_w / 2) +
         "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">" + escape(c_.title) + "</text>\n";

    // Shaded band: thread counts above the hardware threads.
    if (!std::isnan(c_.shade_from_x) && c_.shade_from_x < c_.x_max) {
      const double x0 = X(std::max(c_.shade_from_x, c_.x_min));
      o += "<rect class=\"oversubscribed-band\" x=\"" + px(x0) + "\" y=\"" + px(top) + "\" width=\"" +
           px(left + plot_w - x0) + "\" height=\"" + px(plot_h) + "\" fill=\"#f2e6e6\"/>\n";
      o += "<text x=\"" + px(x0 + 4) + "\" y=\"" + px(top + 14) + "\" font-size=\"10\" fill=\"#884444\">" +
           escape(c_.shade_label) + "</text>\n";
    }

    axes(o);

    // Curves, error bars, points.
    for (const auto& s : c_.curves) curve(o, s);

    gaps(o);

    // Frame on top of the data.
    o += "<rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" + px(plot_w) + "\" height=\"" + px(plot_h) +
         "\" fill=\"none\" stroke=\"#333333\"/>\n";

    // Legend.
    double ly = top + 8;
    o += "<g class=\"legend\">\n";
    for (const auto& s : c_.curves) {
      o += "<g class=\"legend-entry\" data-series=\"" + escape(s.id) + "\">";
      if (s.line)
        o += "<line x1=\"" + px(legend_x) + "\" y1=\"" + px(ly) + "\" x2=\"" + px(legend_x + 26) + "\" y2=\"" + px(ly) +
             "\" stroke=\"" + s.color + "\" stroke-width=\"" + px(s.width) + "\"" +
             (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "/>";
      if (s.marker != "none") o += marker_shape(s, legend_x + 13, ly, false, "legend-marker");
      o += "<text x=\"" + px(legend_x + 34) + "\" y=\"" + px(ly + 4) + "\">" + escape(s.name) + "</text></g>\n";
      ly += 20;
    }
    o += "</g>\n";

    // Gap descriptions and notes.
    double ny = below_y;
    for (const auto& line : lines_below) {
      o += "<text class=\"note\" x=\"16\" y=\"" + px(ny) + "\" font-size=\"11\">" + escape(line) + "</text>\n";
      ny += 18;
    }
    o += "</svg>\n";
    return o;
  }

 private:
  double X(double x) const { return left_ + (x - c_.x_min) / (c_.x_max - c_.x_min) * w_; }
  double Y(double y) const { return top_ + h_ - (y - c_.y_min) / (c_.y_max - c_.y_min) * h_; }

  void axes(std::string& o) const {
    o += "<g class=\"axes\" stroke=\"#dddddd\">\n";
    const double ystep = nice_step(c_.y_max - c_.y_min, 6);
    std::string labels;
    for (double v = std::ceil(c_.y_min / ystep) * ystep; v <= c_.y_max + 1e-9 * ystep; v += ystep) {
      const double y = Y(v);
      o += "<line x1=\"" + px(left_) + "\" y1=\"" + px(y) + "\" x2=\"" + px(left_ + w_) + "\" y2=\"" + px(y) + "\"/>\n";
      labels += "<text x=\"" + px(left_ - 6) + "\" y=\"" + px(y + 4) + "\" text-anchor=\"end\">" +
                escape(short_number(v)) + "</text>\n";
    }
    double xstep = c_.x_tick_step > 0 ? c_.x_tick_step : nice_step(c_.x_max - c_.x_min, 8);
    for (double v = std::ceil(c_.x_min / xstep) * xstep; v <= c_.x_max + 1e-9 * xstep; v += xstep) {
      const double x = X(v);
      o += "<line x1=\"" + px(x) + "\" y1=\"" + px(top_) + "\" x2=\"" + px(x) + "\" y2=\"" + px(top_ + h_) + "\"/>\n";
      labels += "<text x=\"" + px(x) + "\" y=\"" + px(top_ + h_ + 18) + "\" text-anchor=\"middle\">" +
                escape(short_number(v)) + "</text>\n";
    }
    o += "</g>\n<g class=\"tick-labels\" fill=\"#333333\">\n" + labels + "</g>\n";
    o += "<text class=\"x-label\" x=\"" + px(left_ + w_ / 2) + "\" y=\"" + px(top_ + h_ + 40) +
         "\" text-anchor=\"middle\">" + escape(c_.x_label) + "</text>\n";
    o += "<text class=\"y-label\" x=\"" + px(18) + "\" y=\"" + px(top_ + h_ / 2) +
         "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " + px(top_ + h_ / 2) + ")\">" + escape(c_.y_label) +
         "</text>\n";
  }

  std::string marker_shape(const series& s, double x, double y, bool hollow, const char* cls) const {
    const std::string fill = hollow ? "#ffffff" : s.color;
    const std::string common = " fill=\"" + fill + "\" stroke=\"" + s.color + "\" stroke-width=\"1.5\"";
    const std::string c = std::string(" class=\"") + cls + "\"";
    if (s.marker == "square")
      return "<rect" + c + " x=\"" + px(x - 4) + "\" y=\"" + px(y - 4) + "\" width=\"8\" height=\"8\"" + common + "/>";
    if (s.marker == "diamond")
      return "<path" + c + " d=\"M " + px(x) + " " + px(y - 5) + " L " + px(x + 5) + " " + px(y) + " L " + px(x) + " " +
             px(y + 5) + " L " + px(x - 5) + " " + px(y) + " Z\"" + common + "/>";
    if (s.marker == "triangle")
      return "<path" + c + " d=\"M " + px(x) + " " + px(y - 5) + " L " + px(x + 5) + " " + px(y + 4) + " L " +
             px(x - 5) + " " + px(y + 4) + " Z\"" + common + "/>";
    return "<circle" + c + " cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"4\"" + common + "/>";
  }

  void curve(std::string& o, const series& s) const {
    o += "<g class=\"series\" data-series=\"" + escape(s.id) + "\">\n";
    if (s.line) {
      // One polyline per run of finite points.
      std::string pts;
      const auto flush = [&] {
        if (!pts.empty())
          o += "<polyline class=\"curve\" data-series=\"" + escape(s.id) + "\" points=\"" + pts +
               "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" + px(s.width) + "\"" +
               (s.dash.empty() ? "" : " stroke-dasharray=\"" + s.dash + "\"") + "/>\n";
        pts.clear();
      };
      for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
        if (!std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) {
          flush();
          continue;
        }
        if (!pts.empty()) pts += ' ';
        pts += px(X(s.xs[i])) + "," + px(Y(s.ys[i]));
      }
      flush();
    }
    for (std::size_t i = 0; i < s.xs.size() && i < s.ys.size(); ++i) {
      if (!std::isfinite(s.xs[i]) || !std::isfinite(s.ys[i])) continue;
      const double x = X(s.xs[i]);
      if (i < s.low.size() && i < s.high.size() && std::isfinite(s.low[i]) && std::isfinite(s.high[i])) {
        const double y0 = Y(s.low[i]), y1 = Y(s.high[i]);
        o += "<line class=\"errorbar\" data-series=\"" + escape(s.id) + "\" data-x=\"" + exact(s.xs[i]) +
             "\" data-low=\"" + exact(s.low[i]) + "\" data-high=\"" + exact(s.high[i]) + "\" x1=\"" + px(x) +
             "\" y1=\"" + px(y0) + "\" x2=\"" + px(x) + "\" y2=\"" + px(y1) + "\" stroke=\"" + s.color +
             "\" stroke-width=\"1.2\"/>\n";
        for (const double yy : {y0, y1})
          o += "<line x1=\"" + px(x - 4) + "\" y1=\"" + px(yy) + "\" x2=\"" + px(x + 4) + "\" y2=\"" + px(yy) +
               "\" stroke=\"" + s.color + "\" stroke-width=\"1.2\"/>\n";
      }
      if (s.marker == "none") continue;
      const bool hollow = i < s.hollow.size() && s.hollow[i];
      std::string shape = marker_shape(s, x, Y(s.ys[i]), hollow, hollow ? "point hollow" : "point");
      // data-* attributes and the tooltip go on the shape itself.
      const std::string attrs =
          " data-series=\"" + escape(s.id) + "\" data-x=\"" + exact(s.xs[i]) + "\" data-y=\"" + exact(s.ys[i]) + "\"";
      const std::size_t cut = shape.find(' ');
      shape.insert(cut, attrs);
      if (i < s.tips.size() && !s.tips[i].empty()) {
        shape.erase(shape.size() - 2);  // "/>"
        const std::size_t space = shape.find(' ');
        const std::string tag = shape.substr(1, space - 1);
        shape += "><title>" + escape(s.tips[i]) + "</title></" + tag + ">";
      }
      o += shape + "\n";
    }
    o += "</g>\n";
  }

  void gaps(std::string& o) const {
    if (c_.gaps.empty()) return;
    o += "<g class=\"gaps\">\n";
    double x = X(c_.gap_x) + 14;
    for (const auto& g : c_.gaps) {
      if (!std::isfinite(g.y_from) || !std::isfinite(g.y_to)) continue;
      const double y0 = Y(g.y_from), y1 = Y(g.y_to);
      o += "<g class=\"gap\" data-gap=\"" + escape(g.letter) + "\" data-from=\"" + exact(g.y_from) + "\" data-to=\"" +
           exact(g.y_to) + "\">";
      o += "<line x1=\"" + px(x) + "\" y1=\"" + px(y0) + "\" x2=\"" + px(x) + "\" y2=\"" + px(y1) +
           "\" stroke=\"#555555\" stroke-width=\"1.2\"/>";
      // Arrow heads pointing at both curves (when there is room for them).
      if (std::fabs(y1 - y0) > 8) {
        const double d0 = y1 > y0 ? 5 : -5;
        o += "<path d=\"M " + px(x - 3) + " " + px(y0 + d0) + " L " + px(x) + " " + px(y0) + " L " + px(x + 3) + " " +
             px(y0 + d0) + "\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1.2\"/>";
        o += "<path d=\"M " + px(x - 3) + " " + px(y1 - d0) + " L " + px(x) + " " + px(y1) + " L " + px(x + 3) + " " +
             px(y1 - d0) + "\" fill=\"none\" stroke=\"#555555\" stroke-width=\"1.2\"/>";
      }
      o += "<text x=\"" + px(x + 3) + "\" y=\"" + px((y0 + y1) / 2 + 4) + "\" font-weight=\"bold\" font-size=\"11\">" +
           escape(g.letter) + "</text></g>\n";
      x += 16;
    }
    o += "</g>\n";
  }

  const chart& c_;
  double left_ = 0, top_ = 0, w_ = 1, h_ = 1;
};

inline std::string render(const chart& c, bool standalone) { return renderer(c).render(standalone); }

}  // namespace svg
}  // namespace detail
FORKSCALE_NAMESPACE_END
