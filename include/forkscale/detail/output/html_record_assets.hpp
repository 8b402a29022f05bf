// detail/output/html_record_assets.hpp: the style rules and the script of the
// record's views in the HTML report (html_record.hpp), appended to the page's
// one style sheet and one script (html_assets.hpp), so that the page's
// Content-Security-Policy still names exactly two hashes.
//
// The script zooms the timeline (buttons with data-timeline and data-zoom, the
// mouse wheel) and pans it (dragging), by recomputing each strand's x and width
// from its data-start and data-end, and redraws the time axis; over any element
// with data-label, it shows that label in the element that the <svg>'s
// data-info names. Like the rest of the page's script and style, both are
// written without '<' and '&', so that the page stays well-formed XML.
#pragma once
#include <string>

#include "../../config.hpp"

FORKSCALE_NAMESPACE_BEGIN
namespace detail {
namespace html {

inline const char* record_views_style() noexcept {
  return R"css(
.fs-timeline-controls { margin: 6px 0; }
.fs-timeline-controls button { margin-right: 4px; }
svg.fs-timeline { cursor: grab; user-select: none; }
svg.fs-timeline.fs-dragging { cursor: grabbing; }
svg.fs-flame text { pointer-events: none; fill: #222; }
rect.fs-strand:hover, rect.fs-flame-frame:hover { stroke: #000; stroke-width: 1; }
.fs-hover-info { font-family: monospace; font-size: 0.9em; min-height: 1.3em; margin: 4px 0; }
ul.fs-legend { list-style: none; padding: 0; margin: 4px 0; font-size: 0.9em; }
ul.fs-legend li { display: inline-block; margin-right: 14px; }
)css";
}

// The script, in three pieces (one function each): helpers, drawing, controls.
inline const char* record_views_script_head() noexcept {
  return R"js(
(function () {
  'use strict';
  function num(el, name) { return Number(el.getAttribute(name)); }
  // As detail::html::axis_time and timeline_step do it.
  function axisTime(ns, largest, step) {
    var unit = largest >= 1e9 ? 1e9 : (largest >= 1e6 ? 1e6 : (largest >= 1e3 ? 1e3 : 1));
    var name = unit === 1e9 ? 's' : (unit === 1e6 ? 'ms' : (unit === 1e3 ? '\u00b5s' : 'ns'));
    var s = step / unit;
    var digits = s >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(s) - 1e-9));
    return (ns / unit).toFixed(digits) + ' ' + name;
  }
  function timeStep(range) {
    var raw = Math.max(range / 8, 1);
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m > 5 ? 10 : (m > 2 ? 5 : (m > 1 ? 2 : 1))) * p;
  }
  function hover(svg) {
    var info = document.getElementById(svg.getAttribute('data-info') || '');
    if (!info) { return; }
    svg.addEventListener('mouseover', function (e) {
      var label = e.target.getAttribute ? e.target.getAttribute('data-label') : null;
      if (label !== null) { info.textContent = label; }
    });
  }
)js";
}

inline const char* record_views_script_draw() noexcept {
  return R"js(
  function timeline(svg) {
    var left = num(svg, 'data-plot-left'), width = num(svg, 'data-plot-width');
    var tmin = num(svg, 'data-t-min'), tmax = num(svg, 'data-t-max');
    var view = { a: tmin, b: tmax };
    var rects = svg.querySelectorAll('rect.fs-strand');
    var axis = svg.querySelector('g.fs-timeline-axis');
    var lanes = svg.querySelectorAll('rect.fs-lane');
    var top = lanes.length ? num(lanes[0], 'y') : 0;
    var bottom = lanes.length ? num(lanes[lanes.length - 1], 'y') + num(lanes[lanes.length - 1], 'height') + 6 : 0;
    function x(t) { return left + (t - view.a) / (view.b - view.a) * width; }
    function drawAxis() {
      while (axis.firstChild) { axis.removeChild(axis.firstChild); }
      var step = timeStep(view.b - view.a);
      for (var t = Math.ceil(view.a / step) * step; view.b >= t; t += step) {
        var line = document.createElementNS(svg.namespaceURI, 'line');
        line.setAttribute('x1', x(t)); line.setAttribute('x2', x(t));
        line.setAttribute('y1', top); line.setAttribute('y2', bottom);
        line.setAttribute('stroke', '#dddddd');
        var text = document.createElementNS(svg.namespaceURI, 'text');
        text.setAttribute('x', x(t)); text.setAttribute('y', bottom + 16);
        text.setAttribute('text-anchor', 'middle');
        text.textContent = axisTime(t, view.b, step);
        axis.appendChild(line); axis.appendChild(text);
      }
    }
    function draw() {
      Array.prototype.forEach.call(rects, function (r) {
        var x0 = Math.max(x(num(r, 'data-start')), left), x1 = Math.min(x(num(r, 'data-end')), left + width);
        if (x0 > left + width || left > x1) { r.setAttribute('visibility', 'hidden'); return; }
        r.setAttribute('visibility', 'visible');
        r.setAttribute('x', x0);
        r.setAttribute('width', Math.max(x1 - x0, 0.6));
      });
      drawAxis();
      svg.setAttribute('data-view-start', view.a);
      svg.setAttribute('data-view-end', view.b);
    }
)js";
}

inline const char* record_views_script_controls() noexcept {
  return R"js(
    // The window [a, b], kept inside the run and no narrower than 1 ns.
    function show(a, b) {
      var full = tmax - tmin, least = Math.max(full / 1e6, 1);
      if (least > b - a) { var c = (a + b) / 2; a = c - least / 2; b = c + least / 2; }
      if (b - a >= full) { a = tmin; b = tmax; }
      if (tmin > a) { b += tmin - a; a = tmin; }
      if (b > tmax) { a -= b - tmax; b = tmax; }
      view.a = a; view.b = b;
      draw();
    }
    function zoom(factor, t) { show(t - (t - view.a) * factor, t + (view.b - t) * factor); }
    function svgX(clientX) {
      var m = svg.getScreenCTM();
      if (!m) { return left + width / 2; }
      var p = svg.createSVGPoint();
      p.x = clientX; p.y = 0;
      return p.matrixTransform(m.inverse()).x;
    }
    function timeAt(clientX) { return view.a + (svgX(clientX) - left) / width * (view.b - view.a); }
    Array.prototype.forEach.call(document.querySelectorAll('button[data-timeline="' + svg.id + '"]'), function (b) {
      b.addEventListener('click', function () {
        var f = num(b, 'data-zoom');
        if (f === 0) { show(tmin, tmax); } else { zoom(f, (view.a + view.b) / 2); }
      });
    });
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      zoom(e.deltaY > 0 ? 1.25 : 0.8, timeAt(e.clientX));
    }, { passive: false });
    var drag = null;
    svg.addEventListener('mousedown', function (e) {
      drag = { x: svgX(e.clientX), a: view.a, b: view.b };
      svg.classList.add('fs-dragging');
      e.preventDefault();
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      var dt = (drag.x - svgX(e.clientX)) / width * (drag.b - drag.a);
      show(drag.a + dt, drag.b + dt);
    });
    window.addEventListener('mouseup', function () {
      drag = null;
      svg.classList.remove('fs-dragging');
    });
    draw();
  }
  Array.prototype.forEach.call(document.querySelectorAll('svg.fs-timeline'), function (svg) {
    timeline(svg);
    hover(svg);
  });
  Array.prototype.forEach.call(document.querySelectorAll('svg.fs-flame'), hover);
})();
)js";
}

inline std::string record_views_script() {
  return std::string(record_views_script_head()) + record_views_script_draw() + record_views_script_controls();
}

}  // namespace html
}  // namespace detail
FORKSCALE_NAMESPACE_END
