#!/usr/bin/env python3
"""Browser test of the HTML report's record views (docs/record.md): the timeline and
the critical path's flame graph.

  check_html_timeline.py --pages PROGRAM --chromium CHROMIUM --chromedriver CHROMEDRIVER --out DIR
  check_html_timeline.py --shots PAGE.html --chromium ... --chromedriver ... --out DIR

PROGRAM (tests/browser/html_timeline_pages.cpp) writes DIR/timeline.html and
DIR/timeline.json, the same recorded report as JSON. The expectations come from
the JSON (read with Python's json), never from the page:

1. Static (`chromium --dump-dom`, after the page's own script ran): both sections
   are there, one <script>, no <img>, no URL outside the page.
2. Interactive (chromedriver's WebDriver API, the helpers of check_html_report.py):
   one rectangle per strand of the record, at its times (data-start, data-end), as
   many marked critical as the record's critical path has strands, every one drawn
   where the zoom formula puts it; the buttons halve and double the time window
   and "Whole run" restores it; the mouse wheel zooms about the time under the
   pointer (which stays put); dragging pans by the distance dragged; pointing at a
   strand or a flame frame shows its label; the flame graph's bottom frame is the
   report's span; the injected tag is text; no alert, no CSP violation, nothing
   fetched.
3. Screenshots of the two sections (timeline.png, critical_path.png) are left in
   DIR as artifacts.

--shots PAGE.html only takes the two screenshots of an existing page (for
docs/images/); it checks nothing.
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_html_report as base  # noqa: E402  (the WebDriver client and the page checks)

check, expect_equal, log = base.check, base.expect_equal, base.log
TITLE = "forkscale: fib on two threads"
INJECTED = "</text><script>alert(5)</script>"

VIEW = """
var svg = document.getElementById('fs-timeline-svg');
var box = svg.getBoundingClientRect();
return { a: Number(svg.getAttribute('data-view-start')), b: Number(svg.getAttribute('data-view-end')),
         tmin: Number(svg.getAttribute('data-t-min')), tmax: Number(svg.getAttribute('data-t-max')),
         left: Number(svg.getAttribute('data-plot-left')), width: Number(svg.getAttribute('data-plot-width')),
         viewBoxWidth: svg.viewBox.baseVal.width, boxLeft: box.left, boxTop: box.top, boxWidth: box.width,
         ticks: Array.prototype.map.call(svg.querySelectorAll('g.fs-timeline-axis text'),
                                         function (t) { return t.textContent; }) };
"""
STRANDS = """
return Array.prototype.map.call(document.querySelectorAll('#fs-timeline-svg rect.fs-strand'), function (r) {
  return { strand: Number(r.getAttribute('data-strand')), start: Number(r.getAttribute('data-start')),
           end: Number(r.getAttribute('data-end')), critical: r.classList.contains('fs-critical'),
           x: Number(r.getAttribute('x')), width: Number(r.getAttribute('width')),
           visible: r.getAttribute('visibility') !== 'hidden', label: r.getAttribute('data-label'),
           rendered: r.getBoundingClientRect().height > 0 };
});
"""
FLAME = """
return Array.prototype.map.call(document.querySelectorAll('#fs-critical-path-svg rect.fs-flame-frame'), function (r) {
  return { depth: Number(r.getAttribute('data-depth')), value: Number(r.getAttribute('data-value')),
           name: r.getAttribute('data-name'), label: r.getAttribute('data-label') };
});
"""
WHEEL = """
var svg = document.getElementById('fs-timeline-svg'), box = svg.getBoundingClientRect();
svg.dispatchEvent(new WheelEvent('wheel', { deltaY: arguments[0], clientX: box.left + box.width * arguments[1],
                                            clientY: box.top + 15, bubbles: true, cancelable: true }));
"""
DRAG = """
var svg = document.getElementById('fs-timeline-svg'), box = svg.getBoundingClientRect();
var x = box.left + box.width * 0.6, y = box.top + 15;
svg.dispatchEvent(new MouseEvent('mousedown', { clientX: x, clientY: y, bubbles: true, cancelable: true }));
window.dispatchEvent(new MouseEvent('mousemove', { clientX: x - arguments[0], clientY: y, bubbles: true }));
window.dispatchEvent(new MouseEvent('mouseup', { clientX: x - arguments[0], clientY: y, bubbles: true }));
"""
HOVER = """
var el = document.querySelector(arguments[0]);
el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
return [el.getAttribute('data-label'), document.getElementById(arguments[1]).textContent];
"""


def close(a, b, tolerance=1e-6):
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def check_drawn(driver, what):
    """Every strand where the zoom formula puts it in the current window."""
    v = driver.js(VIEW)
    k = v["width"] / (v["b"] - v["a"])
    wrong = []
    for r in driver.js(STRANDS):
        x0 = v["left"] + (r["start"] - v["a"]) * k
        x1 = v["left"] + (r["end"] - v["a"]) * k
        inside = not (x0 > v["left"] + v["width"] or v["left"] > x1)
        if inside != r["visible"]:
            wrong.append("strand %d visible=%s" % (r["strand"], r["visible"]))
        elif inside:
            lo, hi = max(x0, v["left"]), min(x1, v["left"] + v["width"])
            if not (close(r["x"], lo, 1e-4) and close(r["width"], max(hi - lo, 0.6), 1e-4)):
                wrong.append("strand %d at x=%r width=%r, expected %r %r" % (r["strand"], r["x"], r["width"], lo,
                                                                              max(hi - lo, 0.6)))
    check(not wrong, "%s: %d strands misplaced, e.g. %s" % (what, len(wrong), wrong[:3]))
    check(len(v["ticks"]) >= 2, "%s: the axis has %d tick labels" % (what, len(v["ticks"])))
    return v


def check_zoom(driver):
    v0 = check_drawn(driver, "first view")
    check(v0["a"] == v0["tmin"] and v0["b"] == v0["tmax"], "the first view is not the whole run: %r" % v0)
    driver.click(driver.element("return document.getElementById('fs-timeline-zoom-in');"))
    v1 = check_drawn(driver, "after 'Zoom in'")
    check(close(v1["b"] - v1["a"], (v0["b"] - v0["a"]) / 2), "'Zoom in' did not halve the window: %r" % v1)
    check(v1["ticks"] != v0["ticks"], "the axis was not redrawn after 'Zoom in'")

    # The wheel: 0.8 of the window, about the time under the pointer.
    def time_at(v, fraction):
        x = fraction * v["boxWidth"] * v["viewBoxWidth"] / v["boxWidth"]
        return v["a"] + (x - v["left"]) / v["width"] * (v["b"] - v["a"])
    driver.js(WHEEL, -100, 0.5)
    v2 = check_drawn(driver, "after the wheel")
    check(close(v2["b"] - v2["a"], 0.8 * (v1["b"] - v1["a"])), "the wheel did not zoom by 0.8: %r %r" % (v1, v2))
    check(close(time_at(v1, 0.5), time_at(v2, 0.5), 1e-6),
          "the time under the pointer moved: %r -> %r" % (time_at(v1, 0.5), time_at(v2, 0.5)))

    # Dragging 40 px to the left shows later times, by 40 px worth of time.
    driver.js(DRAG, 40)
    v3 = check_drawn(driver, "after dragging")
    shift = 40 * (v2["viewBoxWidth"] / v2["boxWidth"]) / v2["width"] * (v2["b"] - v2["a"])
    check(close(v3["a"] - v2["a"], shift, 1e-3) or close(v3["b"], v3["tmax"]),
          "dragging 40 px moved the window by %r, expected %r" % (v3["a"] - v2["a"], shift))
    driver.click(driver.element("return document.getElementById('fs-timeline-zoom-out');"))
    v4 = check_drawn(driver, "after 'Zoom out'")
    check(close(v4["b"] - v4["a"], min(2 * (v3["b"] - v3["a"]), v4["tmax"] - v4["tmin"])),
          "'Zoom out' did not double the window: %r" % v4)
    driver.click(driver.element("return document.getElementById('fs-timeline-reset');"))
    v5 = check_drawn(driver, "after 'Whole run'")
    check(v5["a"] == v5["tmin"] and v5["b"] == v5["tmax"], "'Whole run' did not restore the window: %r" % v5)


def interactive(driver, page, report, out):
    record = report["record"]
    driver.open("file://" + page)
    base.check_no_script_ran(driver.js(base.PAGE_STATE), "timeline", TITLE)
    strands = driver.js(STRANDS)
    expect_equal(sorted(r["strand"] for r in strands), list(range(len(record["strands"]))),
                 "one rectangle per strand of the record")
    for r in strands:
        row = record["strands"][r["strand"]]
        if not (r["start"] == row[3] and r["end"] == row[4] and r["critical"] == row[11] and r["rendered"]):
            check(False, "strand %d drawn as %r, the record has %r" % (r["strand"], r, row))
            break
    expect_equal(sum(r["critical"] for r in strands), len(record["critical_path"]), "strands marked critical")
    check(any(INJECTED in (r["label"] or "") for r in strands), "no strand label holds the injected tag as text")
    check_zoom(driver)

    critical = driver.js(HOVER, "#fs-timeline-svg rect.fs-critical", "fs-timeline-info")
    check(critical[0] == critical[1] and critical[1].endswith("(critical path)"),
          "pointing at a critical strand shows %r" % critical[1])
    frames = driver.js(FLAME)
    bottom = [f for f in frames if f["depth"] == 0]
    expect_equal([f["value"] for f in bottom], [report["regions"][0]["span"]], "the flame graph's bottom frame")
    expect_equal(bottom[0]["name"] if bottom else None, report["label"], "the bottom frame's name")
    shown = driver.js(HOVER, "#fs-critical-path-svg rect.fs-flame-frame", "fs-critical-path-info")
    check(shown[0] == shown[1] and "% of the span" in shown[1], "pointing at a frame shows %r" % shown[1])
    base.check_no_script_ran(driver.js(base.PAGE_STATE), "timeline after the interaction", TITLE)
    return screenshots(driver, out)


def screenshots(driver, out):
    shots = []
    for section, name in (("fs-timeline", "timeline.png"), ("fs-critical-path", "critical_path.png")):
        # Scrolled to the top of the window first: the element screenshot takes
        # only what the window shows.
        element = driver.element("var e = document.getElementById(arguments[0]); e.scrollIntoView(true); return e;",
                                 section)
        png = base64.b64decode(driver.s("GET", "/element/%s/screenshot" % element))
        path = os.path.join(out, name)
        with open(path, "wb") as f:
            f.write(png)
        check(png[:8] == b"\x89PNG\r\n\x1a\n", "screenshot %s is not a PNG" % path)
        shots.append(path)
    return shots


def static(chromium, page, scratch):
    markup = base.dump_dom(chromium, page, scratch)
    nodes = list(base.parse(markup).iter())
    ids = {n.attrs.get("id") for n in nodes}
    for section in ("fs-timeline", "fs-critical-path", "fs-timeline-svg", "fs-critical-path-svg"):
        check(section in ids, "dump-dom: %s missing" % section)
    check(len([n for n in nodes if n.tag == "script"]) == 1, "dump-dom: not exactly one <script>")
    check(not [n for n in nodes if n.tag == "img"], "dump-dom: an <img> element")
    for n in nodes:
        for k, v in n.attrs.items():
            check(not k.startswith("on"), "dump-dom: event handler attribute %s on <%s>" % (k, n.tag))
            if k in ("src", "href", "xlink:href"):
                check((v or "").startswith("#"), "dump-dom: %s=%r points outside the page" % (k, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", help="the html_timeline_pages program")
    ap.add_argument("--shots", help="only take the screenshots of this page")
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    for stale in ("timeline.html", "timeline.json", "timeline.png", "critical_path.png"):
        if os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))
    if args.shots:
        page = os.path.abspath(args.shots)
    else:
        subprocess.run([args.pages, out], check=True, timeout=base.REQUEST_LIMIT)
        page = os.path.join(out, "timeline.html")
        with open(os.path.join(out, "timeline.json"), encoding="utf-8") as f:
            report = json.load(f)

    scratch = tempfile.mkdtemp(prefix="forkscale-timeline-")
    proc = driver = logfile = None
    shots = []
    try:
        if not args.shots:
            log("static checks (chromium --dump-dom)")
            static(args.chromium, page, scratch)
        log("interactive checks (chromedriver)" if not args.shots else "screenshots (chromedriver)")
        proc, driver, logfile = base.start_chromedriver(args.chromedriver, out, scratch)
        driver.start(args.chromium, os.path.join(scratch, "webdriver-profile"))
        if args.shots:
            driver.open("file://" + page)
            shots = screenshots(driver, out)
        else:
            shots = interactive(driver, page, report, out)
    except Exception as e:  # a failure to drive the browser is a test failure
        base.problems.append("%s: %s" % (type(e).__name__, e))
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception as e:
                log("warning: closing the WebDriver session: %s" % e)
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if logfile is not None:
            logfile.close()
        shutil.rmtree(scratch, ignore_errors=True)
    for shot in shots:
        log("screenshot: " + shot)
    if base.problems:
        log("FAILED: %d problem(s)" % len(base.problems))
        for p in base.problems:
            log("  - " + p)
        return 1
    log("ok: timeline and flame graph checked in %s" % args.chromium)
    return 0


if __name__ == "__main__":
    sys.exit(main())
