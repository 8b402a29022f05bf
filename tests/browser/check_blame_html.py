#!/usr/bin/env python3
"""Browser test of the HTML report's recorded-run and lock sections (docs/blame.md).

  check_blame_html.py --pages PROGRAM --chromium CHROMIUM --chromedriver CHROMEDRIVER --out DIR

PROGRAM (tests/browser/blame_pages.cpp) writes DIR/blame.html: a hand-made
recorded run (two threads, a long child, a sync; tests/test_blame.cpp's
fan-out, in microseconds) with two lock rows. With check_html_report.py's
browser plumbing (networking off, a recorder of alert() calls and
Content-Security-Policy violations injected before the page's own script):

1. Static, on `chromium --dump-dom`: the sections "Parallelism over time",
   "Idle blame" and "Locks" are there, in that order, after "What if" would be;
   the tables have the rows worked out by hand; the plots are inline <svg>; one
   <script>, no <img>, no URL; the sort script ran.
2. Interactive, through chromedriver: the tables and plots render; the thread
   bars carry the busy, profiler and idle nanoseconds of each thread; the plot
   has its running and ready curves; clicking the "strands" heading sorts the
   blame table numerically; the site named "<img src=x onerror=alert(1)>" is
   text; no alert() ran, nothing was fetched, no CSP violation.
3. Screenshots of the three sections (blame_parallelism.png, blame_idle.png,
   blame_locks.png) are left in DIR.

Exits 0 when every check passes, 1 otherwise.
"""

import argparse
import base64
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_html_report as web  # noqa: E402  (the shared browser plumbing)

EVIL = web.EVIL
SECTIONS = ["fs-summary", "fs-parallelism", "fs-idle-blame", "fs-locks", "fs-diagnostics"]
TABLES = {
    "fs-thread-times-table": 2,
    "fs-idle-blame-table": 3,
    "fs-sync-wait-table": 1,
    "fs-locks-table": 2,
}
SVGS = ["fs-plot-parallelism", "fs-plot-thread-times"]
# Per thread: busy, profiler, idle (ns); test_blame.cpp's fan-out times 1,000.
BARS = {("0", "busy"): "55000", ("0", "profiler"): "0", ("0", "idle"): "55000",
        ("1", "busy"): "88000", ("1", "profiler"): "0", ("1", "idle"): "22000"}
BLAME_ORDER = [EVIL, "(root)", "(nothing running)"]
BLAME_NS = {EVIL: "50,000 ns", "(root)": "17,000 ns", "(nothing running)": "10,000 ns"}
STRANDS = {EVIL: 1, "(root)": 3, "(nothing running)": 0}

CELLS = """
var table = document.getElementById(arguments[0]);
return Array.prototype.map.call(table.tBodies[0].rows, function (r) {
  return Array.prototype.map.call(r.cells, function (c) { return c.textContent; });
});
"""
BARS_JS = """
return Array.prototype.map.call(document.querySelectorAll('#fs-plot-thread-times rect.bar'), function (b) {
  return [b.getAttribute('data-thread'), b.getAttribute('data-part'), b.getAttribute('data-ns'),
          b.getBoundingClientRect().width];
});
"""
CURVES = """
return Array.prototype.map.call(document.querySelectorAll('#fs-plot-parallelism polyline.curve'), function (p) {
  return [p.getAttribute('data-series'), p.getAttribute('points').split(' ').length];
});
"""


def static_checks(markup):
    root = web.parse(markup)
    nodes = list(root.iter())
    by_id = {n.attrs.get("id"): n for n in nodes if n.attrs.get("id")}
    web.check(not [n for n in nodes if n.tag == "img"], "an <img> element is in the DOM")
    web.check(len([n for n in nodes if n.tag == "script"]) == 1, "not exactly one <script>")
    for n in nodes:
        for k, v in n.attrs.items():
            v = v or ""
            web.check(not k.startswith("on"), "event handler attribute %s=%r on <%s>" % (k, v, n.tag))
            if k == "xmlns" or k.startswith("xmlns:"):
                continue
            web.check("http:" not in v and "https:" not in v and "//" not in v, "URL in %s=%r" % (k, v))
    order = [n.attrs["id"] for n in nodes if n.tag == "section"]
    web.expect_equal([s for s in order if s in SECTIONS], SECTIONS, "sections in order")
    for table_id, rows in TABLES.items():
        table = by_id.get(table_id)
        if not web.check(table is not None, "table %s missing" % table_id):
            continue
        body = [n for n in table.iter() if n.tag == "tbody"]
        trs = [n for n in body[0].children if n.tag == "tr"] if body else []
        web.expect_equal(len(trs), rows, "rows of " + table_id)
        heads = [n for n in table.iter() if n.tag == "th" and n.attrs.get("scope") == "col"]
        web.check(heads and all(h.attrs.get("tabindex") == "0" for h in heads),
                  "%s: headings have no tabindex: the sort script did not run" % table_id)
    for svg in SVGS:
        node = by_id.get(svg)
        web.check(node is not None and node.tag == "svg", "plot %s is not an inline <svg>" % svg)
    web.check("&lt;img src=x onerror=alert(1)&gt;" in markup, "the escaped site name is not in the DOM")


def element_screenshot(driver, element_id, path):
    """A PNG of one element, the window made tall enough to hold all of it."""
    height = driver.js("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);")
    driver.s("POST", "/window/rect", {"width": 1200, "height": min(int(height) + 120, 16000)})
    element = driver.element("return document.getElementById(arguments[0]);", element_id)
    png = base64.b64decode(driver.s("GET", "/element/%s/screenshot" % element))
    driver.s("POST", "/window/rect", {"width": 1400, "height": 1000})
    with open(path, "wb") as f:
        f.write(png)
    web.check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000, "screenshot %s is not a PNG" % path)
    return path


def interactive(driver, page, out):
    driver.open("file://" + page)
    state = driver.js(web.PAGE_STATE)
    web.check(state["alerts"] is not None, "the recorder script did not run before the page")
    web.check_no_script_ran(state, "blame page", "forkscale: fan-out")
    for table_id, rows in TABLES.items():
        r = driver.js(web.RENDERED, table_id)
        if web.check(r is not None, "no table " + table_id):
            web.check(r["width"] > 0 and r["height"] > 0, "table %s does not render: %r" % (table_id, r))
            web.expect_equal(r["rows"], rows, "rows of " + table_id)
    for svg in SVGS:
        r = driver.js(web.RENDERED, svg)
        web.check(r is not None and r["width"] > 100 and r["height"] > 40, "plot %s does not render: %r" % (svg, r))

    bars = driver.js(BARS_JS)
    web.expect_equal({(b[0], b[1]): b[2] for b in bars}, BARS, "thread bars' nanoseconds")
    widths = {(b[0], b[1]): b[3] for b in bars}
    web.check(widths[("0", "busy")] > 0 and abs(widths[("0", "busy")] - widths[("0", "idle")]) < 1,
              "thread 0's busy and idle bars should be equally wide: %r" % widths)
    web.check(widths[("1", "busy")] > 3.9 * widths[("1", "idle")], "thread 1's bars: %r" % widths)
    curves = dict(driver.js(CURVES))
    web.check(curves.get("running", 0) > 10 and curves.get("ready", 0) > 10 and "threads" in curves,
              "the parallelism plot's curves: %r" % curves)

    blame = "fs-idle-blame-table"
    cells = driver.js(CELLS, blame)
    web.expect_equal([c[0] for c in cells], BLAME_ORDER, "idle blame rows, by idle blame")
    web.expect_equal([c[2] for c in cells], [BLAME_NS[s] for s in BLAME_ORDER], "idle blame column")
    heading = driver.element("return document.getElementById(arguments[0]).tHead.rows[0].cells[4];", blame)
    driver.click(heading)
    by_strands = sorted(BLAME_ORDER, key=lambda s: STRANDS[s])
    web.expect_equal([c[0] for c in driver.js(CELLS, blame)], by_strands, "blame rows after a click on 'strands'")
    sync = driver.js(CELLS, "fs-sync-wait-table")
    web.expect_equal([c[0] for c in sync], ["sync.cpp:3"], "sync wait rows")
    web.expect_equal(sync[0][2], "55,000 ns", "the sync's wait")
    locks = driver.js(CELLS, "fs-locks-table")
    web.expect_equal([c[0] for c in locks], ["queue", "<b>log</b>"], "lock rows, by wait")
    callouts = driver.js("return Array.prototype.map.call(document.querySelectorAll('.fs-lock-callouts li'), "
                         "function (e) { return e.textContent; });")
    web.check(len(callouts) == 1 and callouts[0].startswith("queue at fan.cpp:20"), "call-outs: %r" % callouts)
    web.check_no_script_ran(driver.js(web.PAGE_STATE), "blame page after the interaction", "forkscale: fan-out")
    return [element_screenshot(driver, "fs-parallelism", os.path.join(out, "blame_parallelism.png")),
            element_screenshot(driver, "fs-idle-blame", os.path.join(out, "blame_idle.png")),
            element_screenshot(driver, "fs-locks", os.path.join(out, "blame_locks.png"))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    page = os.path.join(out, "blame.html")
    if os.path.exists(page):
        os.remove(page)
    subprocess.run([args.pages, out], check=True, timeout=web.REQUEST_LIMIT)

    scratch = tempfile.mkdtemp(prefix="forkscale-blame-browser-")
    proc = driver = logfile = None
    shots = []
    try:
        web.log("static checks (chromium --dump-dom)")
        static_checks(web.dump_dom(args.chromium, page, scratch))
        web.log("interactive checks (chromedriver)")
        proc, driver, logfile = web.start_chromedriver(args.chromedriver, out, scratch)
        driver.start(args.chromium, os.path.join(scratch, "webdriver-profile"))
        shots = interactive(driver, page, out)
    except Exception as e:  # a failure to drive the browser is a test failure
        web.problems.append("%s: %s" % (type(e).__name__, e))
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception as e:
                web.log("warning: closing the WebDriver session: %s" % e)
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
        web.log("screenshot: " + shot)
    if web.problems:
        web.log("FAILED: %d problem(s)" % len(web.problems))
        for p in web.problems:
            web.log("  - " + p)
        return 1
    web.log("ok: recorded-run and lock sections checked in %s" % args.chromium)
    return 0


if __name__ == "__main__":
    sys.exit(main())
