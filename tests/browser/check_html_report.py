#!/usr/bin/env python3
"""Browser test of forkscale's self-contained HTML report (include/forkscale/html.hpp).

  check_html_report.py --pages PROGRAM --chromium CHROMIUM --chromedriver CHROMEDRIVER --out DIR

PROGRAM (tests/browser/html_report_pages.cpp) writes DIR/report.html and
DIR/study.html. Then, with the Python standard library only:

1. Static: `chromium --headless --dump-dom` of each page (the DOM after the
   page's own script ran), parsed with html.parser: the expected sections and
   table row counts, no <img> element, exactly one <script>, the sort script ran
   (so the page's hash-pinned Content-Security-Policy let it), no URL outside the
   page in any src/href.
2. Interactive, through chromedriver's WebDriver HTTP API (urllib): the tables
   render with the expected row counts and row order, clicking a column heading
   sorts its rows numerically (and again, the other way), clicking a text column
   sorts by text, the filter box hides the rows whose site and function do not
   match, the plots are inline <svg> elements that render, the injected tag
   "<img src=x onerror=alert(1)>" is literal text in the title and the tables,
   no alert() was called, the page fetched nothing (no resource timing entries,
   no Content-Security-Policy violation). A script injected before the page's
   own (over the DevTools protocol, which CSP does not govern) records alert()
   calls and CSP violations.
3. Controls, to show that these detectors can fail: a page with the injected tag
   as raw markup and no CSP must record the alert; the report page with one
   escaped copy replaced by raw markup must record a CSP violation and no alert.
4. Screenshots of both pages (PNG, the whole page) are saved in DIR as test
   artifacts; their paths are printed.

Networking is off: every host name resolves to nothing (--host-resolver-rules),
every request would go to a proxy on a closed port, and background networking
is disabled. Exits 0 when every check passes, 1 otherwise. The time limits
(browser start, page load) are generous and only guard against hangs.
"""

import argparse
import base64
import html.parser
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

EVIL = "<img src=x onerror=alert(1)>"
EVIL_SPAWN = "</td><script>alert(4)</script>"
MERGE = 'merge & "copy"'

# Must match tests/browser/html_report_pages.cpp.
CALL_DEFAULT_ORDER = [EVIL, "qs.cpp:17", "quicksort", "qs.cpp:21", MERGE, "util.cpp:9"]
LOCAL_WORK_ON_WORK = {EVIL: 40000, "qs.cpp:17": 50000, "quicksort": 1000, "qs.cpp:21": 8000, MERGE: 900,
                      "util.cpp:9": 100}
FUNCTION = {EVIL: "partition", "qs.cpp:17": "sort<int>", "quicksort": "main", "qs.cpp:21": "sort<int>",
            MERGE: "merge<'a'>", "util.cpp:9": "checksum"}
# The site cells' titles: file:line in function, and the tag. The merge site's
# file tries to break out of the attribute.
TITLE = {EVIL: "src/qs.cpp:42 in partition (tag " + EVIL + ")", "qs.cpp:17": "src/qs.cpp:17 in sort<int>",
         "quicksort": "qs.cpp in main", "qs.cpp:21": "src/qs.cpp:21 in sort<int>",
         MERGE: 'src/merge.cpp" autofocus onfocus="alert(7):5 in merge<\'a\'> (tag ' + MERGE + ")",
         "util.cpp:9": "src/util.cpp:9 in checksum"}
SPAWN_DEFAULT_ORDER = ["qs.cpp:17", "quicksort", EVIL_SPAWN]
REPORT_TABLE_ROWS = {
    "fs-summary-table": 9,
    "fs-speedup-estimate-table": 3,  # P = 2, 4, 8
    "fs-regions-table": 2,
    "fs-call-sites-table": 6,
    "fs-spawn-sites-table": 3,
}
STUDY_TABLE_ROWS = {
    "fs-study-summary-table": 2,
    "fs-study-runs-table": 3,
    "fs-study-speedups-table": 3,
    "fs-summary-table": 9,
    "fs-call-sites-table": 6,
    "fs-spawn-sites-table": 3,
}
REPORT_SECTIONS = ["fs-summary", "fs-speedup-estimate", "fs-regions", "fs-call-sites", "fs-spawn-sites",
                   "fs-plots", "fs-diagnostics"]
REPORT_SVGS = ["fs-plot-scalability"]
STUDY_SVGS = ["fs-plot-factored", "fs-plot-scalability"]

NETWORK_OFF = [
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-pings",
]
BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",  # the test may run as root (CI)
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--lang=en-US",
] + NETWORK_OFF

STARTUP_LIMIT = 120  # seconds, to guard against a hang only
REQUEST_LIMIT = 180

problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


def log(message):
    print(message, flush=True)


# ---- static checks on --dump-dom ---------------------------------------------------------


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def text_content(self):
        return "".join(self.text) + "".join(c.text_content() for c in self.children)


class TreeBuilder(html.parser.HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.current = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, attrs, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(TextNode(data, self.current))


class TextNode(Node):
    def __init__(self, data, parent):
        super().__init__("#text", [], parent)
        self.text = [data]


def parse(markup):
    builder = TreeBuilder()
    builder.feed(markup)
    builder.close()
    return builder.root


def browser_env(home):
    env = dict(os.environ)
    env["HOME"] = home  # chromium writes its profile and crash dumps under $HOME
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(proxy, None)
    return env


def dump_dom(chromium, page, scratch):
    profile = tempfile.mkdtemp(prefix="dump-profile-", dir=scratch)
    cmd = [chromium] + BROWSER_FLAGS + ["--user-data-dir=" + profile, "--dump-dom", "file://" + page]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=STARTUP_LIMIT,
                         env=browser_env(scratch), stdin=subprocess.DEVNULL)
    if run.returncode != 0 or b"<html" not in run.stdout:
        raise RuntimeError("chromium --dump-dom %s failed (exit %d):\n%s" %
                           (page, run.returncode, run.stderr.decode("utf-8", "replace")[-3000:]))
    return run.stdout.decode("utf-8")


def static_checks(name, markup, tables, svgs, sections):
    root = parse(markup)
    nodes = list(root.iter())
    by_id = {n.attrs.get("id"): n for n in nodes if n.attrs.get("id")}
    check(not [n for n in nodes if n.tag == "img"], name + ": an <img> element is in the DOM")
    check(len([n for n in nodes if n.tag == "script"]) == 1, name + ": not exactly one <script>")
    for n in nodes:
        for k, v in n.attrs.items():
            v = v or ""
            check(not k.startswith("on"), "%s: event handler attribute %s=%r on <%s>" % (name, k, v, n.tag))
            if k in ("src", "srcset", "href", "xlink:href", "action", "formaction", "poster", "data"):
                check(v.startswith("#"), "%s: %s=%r on <%s> points outside the page" % (name, k, v, n.tag))
            if k == "xmlns" or k.startswith("xmlns:"):
                continue  # a namespace name, never fetched
            check("http:" not in v and "https:" not in v and "//" not in v,
                  "%s: URL in %s=%r on <%s>" % (name, k, v, n.tag))
    for section in sections:
        check(section in by_id, "%s: section %s missing" % (name, section))
    order = [n.attrs["id"] for n in nodes if n.tag == "section"]
    check([s for s in order if s in sections] == sections, "%s: sections in the order %r" % (name, order))
    for table_id, rows in tables.items():
        table = by_id.get(table_id)
        if not check(table is not None, "%s: table %s missing" % (name, table_id)):
            continue
        body = [n for n in table.iter() if n.tag == "tbody"]
        trs = [n for n in body[0].children if n.tag == "tr"] if body else []
        check(len(trs) == rows, "%s: %s has %d rows, expected %d" % (name, table_id, len(trs), rows))
        if "fs-sortable" in table.attrs.get("class", ""):
            heads = [n for n in table.iter() if n.tag == "th" and n.attrs.get("scope") == "col"]
            check(heads and all(h.attrs.get("tabindex") == "0" for h in heads),
                  "%s: %s headings have no tabindex: the sort script did not run" % (name, table_id))
    for svg in svgs:
        node = by_id.get(svg)
        check(node is not None and node.tag == "svg", "%s: plot %s is not an inline <svg>" % (name, svg))
    status = by_id.get("fs-call-sites-filter-status")
    check(status is not None and status.text_content() == "6 of 6 shown",
          "%s: filter status %r: the filter script did not run" % (name, status and status.text_content()))
    title = [n for n in nodes if n.tag == "title"]
    check(title and EVIL in title[0].text_content(), name + ": the title does not show the tag as text")
    check("&lt;img src=x onerror=alert(1)&gt;" in markup, name + ": the escaped tag is not in the DOM")


# ---- WebDriver (W3C) over HTTP --------------------------------------------------------

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"

RECORDER = """
(function () {
  window.__fsTest = { alerts: [], violations: [] };
  ['alert', 'confirm', 'prompt'].forEach(function (name) {
    window[name] = function (message) { window.__fsTest.alerts.push(name + ':' + message); };
  });
  document.addEventListener('securitypolicyviolation', function (e) {
    window.__fsTest.violations.push(e.violatedDirective + ' ' + e.blockedURI);
  }, true);
})();
"""


class WebDriverError(Exception):
    pass


class WebDriver:
    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port
        self.session = None
        # Talk to chromedriver directly, never through a proxy from the environment.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, method, path, body=None, timeout=REQUEST_LIMIT):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                payload = json.loads(resp.read().decode("utf-8") or "{}")
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:  # the error and its message, without chromedriver's stack trace
                value = json.loads(text)["value"]
                text = "%s: %s" % (value.get("error"), value.get("message", "").splitlines()[0])
            except (ValueError, KeyError, TypeError, AttributeError, IndexError):
                text = text[:2000]
            raise WebDriverError("%s %s: HTTP %d: %s" % (method, path, e.code, text))
        return payload.get("value")

    def s(self, method, path, body=None):
        return self.call(method, "/session/%s%s" % (self.session, path), body)

    def start(self, chromium, profile):
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": {"binary": chromium,
                                   "args": BROWSER_FLAGS + ["--user-data-dir=" + profile, "--window-size=1400,1000"]},
        }}}
        value = self.call("POST", "/session", caps)
        self.session = value["sessionId"]
        self.s("POST", "/goog/cdp/execute", {"cmd": "Page.addScriptToEvaluateOnNewDocument",
                                              "params": {"source": RECORDER}})

    def quit(self):
        if self.session:
            try:
                self.s("DELETE", "")
            finally:
                self.session = None

    def open(self, url):
        self.s("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def element(self, script, *args):
        value = self.js(script, *args)
        if not isinstance(value, dict) or ELEMENT not in value:
            raise WebDriverError("no element for: " + script)
        return value[ELEMENT]

    def click(self, element):
        self.s("POST", "/element/%s/click" % element, {})

    def type(self, element, text):
        self.s("POST", "/element/%s/value" % element, {"text": text})

    def screenshot(self, path):
        height = self.js("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);")
        self.s("POST", "/window/rect", {"width": 1400, "height": min(int(height) + 120, 16000)})
        png = base64.b64decode(self.s("GET", "/screenshot"))
        with open(path, "wb") as f:
            f.write(png)
        check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000, "screenshot %s is not a PNG" % path)
        self.s("POST", "/window/rect", {"width": 1400, "height": 1000})


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_chromedriver(chromedriver, out, scratch):
    port = free_port()
    logfile = open(os.path.join(out, "chromedriver.log"), "wb")
    proc = subprocess.Popen([chromedriver, "--port=%d" % port, "--allowed-ips=127.0.0.1"],
                            stdout=logfile, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=browser_env(scratch))
    driver = WebDriver(port)
    deadline = time.monotonic() + STARTUP_LIMIT
    while True:
        try:
            if driver.call("GET", "/status", timeout=5).get("ready"):
                return proc, driver, logfile
        except (OSError, WebDriverError, ValueError):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("chromedriver did not start (see %s)" % os.path.join(out, "chromedriver.log"))
        time.sleep(0.2)


# Scripts run in the page (WebDriver's execute/sync; not subject to the page's CSP).
# Columns are named by their heading's data-key (the CSV column name).
COLUMN = """
var table = document.getElementById(arguments[0]);
var row = table.tHead.rows[table.tHead.rows.length - 1];
var heads = Array.prototype.map.call(row.cells, function (c) { return c.getAttribute('data-key'); });
var index = heads.indexOf(arguments[1]);
if (index < 0) { return null; }
return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[index].textContent; });
"""
VISIBLE_SITES = """
var table = document.getElementById(arguments[0]);
return Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
  return r.getClientRects().length > 0 && r.getBoundingClientRect().height > 0;
}).map(function (r) { return r.cells[0].textContent; });
"""
SITE_TITLES = """
var table = document.getElementById(arguments[0]);
return Array.prototype.map.call(table.tBodies[0].rows, function (r) {
  return r.cells[0].getAttribute('title');
});
"""
HEADING = """
var table = document.getElementById(arguments[0]);
return table.tHead.rows[table.tHead.rows.length - 1].querySelector('th[data-key="' + arguments[1] + '"]');
"""
RENDERED = """
var e = document.getElementById(arguments[0]);
if (!e) { return null; }
var r = e.getBoundingClientRect();
return { width: r.width, height: r.height, display: getComputedStyle(e).display,
         rows: e.tBodies ? e.tBodies[0].rows.length : -1 };
"""
PAGE_STATE = """
var imgs = document.getElementsByTagName('img');
return {
  title: document.title,
  imgs: imgs.length,
  xImgs: document.querySelectorAll('img[src="x"]').length,
  scripts: document.getElementsByTagName('script').length,
  resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
  alerts: window.__fsTest ? window.__fsTest.alerts : null,
  violations: window.__fsTest ? window.__fsTest.violations : null,
  h1: (document.getElementById('fs-title') || {}).textContent,
  outside: Array.prototype.filter.call(document.querySelectorAll('[src],[href]'), function (e) {
    var v = e.getAttribute('src') || e.getAttribute('href') || '';
    return v.charAt(0) !== '#';
  }).map(function (e) { return e.outerHTML.slice(0, 120); })
};
"""


def expect_equal(actual, expected, what):
    return check(actual == expected, "%s:\n  got      %r\n  expected %r" % (what, actual, expected))


def check_no_script_ran(state, name, title):
    expect_equal(state["title"], title, name + ": document.title")
    expect_equal(state["imgs"], 0, name + ": <img> elements")
    expect_equal(state["xImgs"], 0, name + ": <img src=x> elements")
    expect_equal(state["scripts"], 1, name + ": <script> elements")
    expect_equal(state["alerts"], [], name + ": alert()/confirm()/prompt() calls")
    expect_equal(state["violations"], [], name + ": Content-Security-Policy violations")
    expect_equal(state["resources"], [], name + ": resources fetched")
    expect_equal(state["outside"], [], name + ": src/href pointing outside the page")


def interactive_report(driver, page, out):
    driver.open("file://" + page)
    state = driver.js(PAGE_STATE)
    check(state["alerts"] is not None, "report: the recorder script did not run before the page")
    check_no_script_ran(state, "report", "forkscale: quicksort " + EVIL)
    expect_equal(state["h1"], "forkscale: quicksort " + EVIL, "report: <h1> text")

    # Every table renders, with its rows.
    for table_id, rows in REPORT_TABLE_ROWS.items():
        r = driver.js(RENDERED, table_id)
        if check(r is not None, "report: no table " + table_id):
            check(r["display"] == "table" and r["width"] > 0 and r["height"] > 0,
                  "report: table %s does not render: %r" % (table_id, r))
            expect_equal(r["rows"], rows, "report: rows of " + table_id)
            expect_equal(len(driver.js(VISIBLE_SITES, table_id)), rows, "report: visible rows of " + table_id)
    for svg in REPORT_SVGS:
        r = driver.js(RENDERED, svg)
        check(r is not None and r["width"] > 100 and r["height"] > 100, "report: plot %s does not render: %r" % (svg, r))

    # Default order, and the injected tags are text in the cells.
    calls, spawns = "fs-call-sites-table", "fs-spawn-sites-table"
    expect_equal(driver.js(COLUMN, calls, "name"), CALL_DEFAULT_ORDER, "call sites, default order")
    expect_equal(driver.js(COLUMN, calls, "function"), [FUNCTION[s] for s in CALL_DEFAULT_ORDER],
                 "call sites, function column")
    expect_equal(driver.js(COLUMN, spawns, "name"), SPAWN_DEFAULT_ORDER, "spawn sites, default order")
    expect_equal(driver.js(SITE_TITLES, calls), [TITLE[s] for s in CALL_DEFAULT_ORDER], "call sites' titles")
    expect_equal(driver.js("return arguments[0].getAttribute('aria-sort');",
                           {ELEMENT: driver.element(HEADING, calls, "local_on_span_span")}),
                 "descending", "aria-sort of the call sites' default column")

    # Sorting: a numeric column (ascending, then descending), then a text column.
    by_work = sorted(CALL_DEFAULT_ORDER, key=lambda s: LOCAL_WORK_ON_WORK[s])
    check([str(LOCAL_WORK_ON_WORK[s]) for s in by_work] != sorted(str(v) for v in LOCAL_WORK_ON_WORK.values()),
          "test data: numeric and text order of local work on work should differ")
    heading = driver.element(HEADING, calls, "local_on_work_work")
    driver.click(heading)
    expect_equal(driver.js(COLUMN, calls, "name"), by_work, "call sites after one click on 'local work on work'")
    expect_equal(driver.js(COLUMN, calls, "local_on_work_work"),
                 ["{:,}".format(LOCAL_WORK_ON_WORK[s]) for s in by_work], "local work on work cells after the click")
    expect_equal(driver.js("return arguments[0].getAttribute('aria-sort');", {ELEMENT: heading}), "ascending",
                 "aria-sort after one click")
    driver.click(heading)
    expect_equal(driver.js(COLUMN, calls, "name"), by_work[::-1], "call sites after two clicks on 'local work on work'")
    driver.click(driver.element(HEADING, calls, "name"))
    expect_equal(driver.js(COLUMN, calls, "name"), sorted(CALL_DEFAULT_ORDER), "call sites after a click on 'site'")
    driver.click(driver.element(HEADING, spawns, "tasks"))
    expect_equal(driver.js(COLUMN, spawns, "tasks"), ["1", "5", "100"], "spawn sites after a click on 'tasks'")

    # Filtering: by function text, by site text (case-insensitive), then cleared.
    box = driver.element("return document.getElementById('fs-call-sites-filter');")
    check(driver.js("return !arguments[0].disabled;", {ELEMENT: box}), "the filter box is disabled")
    driver.type(box, "sort<")
    expect_equal(sorted(driver.js(VISIBLE_SITES, calls)), ["qs.cpp:17", "qs.cpp:21"], "rows shown for 'sort<'")
    expect_equal(driver.js("return document.getElementById('fs-call-sites-filter-status').textContent;"),
                 "2 of 6 shown", "filter status for 'sort<'")
    driver.type(box, "\ue003" * len("sort<") + "ONERROR")
    expect_equal(driver.js(VISIBLE_SITES, calls), [EVIL], "rows shown for 'ONERROR'")
    driver.type(box, "\ue003" * len("ONERROR") + "src/util.cpp:9")  # the file, from the cell's title
    expect_equal(driver.js(VISIBLE_SITES, calls), ["util.cpp:9"], "rows shown for 'src/util.cpp:9'")
    driver.type(box, "\ue003" * len("src/util.cpp:9"))
    expect_equal(len(driver.js(VISIBLE_SITES, calls)), 6, "rows shown with the filter cleared")
    spawn_box = driver.element("return document.getElementById('fs-spawn-sites-filter');")
    driver.type(spawn_box, "worker")
    expect_equal(driver.js(VISIBLE_SITES, spawns), [EVIL_SPAWN], "spawn rows shown for 'worker'")
    driver.type(spawn_box, "\ue003" * len("worker"))

    # Sort the call sites back to the default column for the screenshot.
    default = driver.element(HEADING, calls, "local_on_span_span")
    driver.click(default)
    driver.click(default)
    expect_equal(driver.js(COLUMN, calls, "name"), CALL_DEFAULT_ORDER, "call sites sorted back by local span on span")
    check_no_script_ran(driver.js(PAGE_STATE), "report after the interaction", "forkscale: quicksort " + EVIL)
    shot = os.path.join(out, "html_report.png")
    driver.screenshot(shot)
    return shot


def interactive_study(driver, page, out):
    driver.open("file://" + page)
    check_no_script_ran(driver.js(PAGE_STATE), "study", "forkscale: quicksort study " + EVIL)
    for table_id, rows in STUDY_TABLE_ROWS.items():
        r = driver.js(RENDERED, table_id)
        if check(r is not None, "study: no table " + table_id):
            check(r["width"] > 0 and r["height"] > 0, "study: table %s does not render" % table_id)
            expect_equal(r["rows"], rows, "study: rows of " + table_id)
    for svg in STUDY_SVGS:
        r = driver.js(RENDERED, svg)
        check(r is not None and r["width"] > 100 and r["height"] > 100, "study: plot %s does not render: %r" % (svg, r))
    points = driver.js("return document.querySelectorAll('#fs-plots svg .point').length;")
    check(points > 0, "study: the plots have no data points")
    shot = os.path.join(out, "html_study.png")
    driver.screenshot(shot)
    return shot


def poll(get, done, limit=STARTUP_LIMIT):
    """get() until done(value) or `limit` seconds have passed; returns the last value."""
    deadline = time.monotonic() + limit
    value = get()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = get()
    return value


def controls(driver, report_page, out):
    """The detectors detect: raw markup runs without a CSP, and is blocked (and reported) with it."""
    raw = os.path.join(out, "control_raw.html")
    with open(raw, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><head><title>control</title></head><body><p>" + EVIL + "</p></body></html>\n")
    driver.open("file://" + raw)
    # The image's error event may come after the load: wait for it, up to a limit
    # that only guards against a hang.
    alerts = poll(lambda: driver.js("return window.__fsTest.alerts;"), lambda a: a)
    expect_equal(alerts, ["alert:1"], "control without CSP: the raw tag's onerror should have run")

    with open(report_page, encoding="utf-8") as f:
        markup = f.read()
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    at = markup.find(escaped, markup.find("<body"))  # (in the <title> it would be text anyway)
    check(at > 0, "the report page has no escaped tag in its body to replace")
    tampered = os.path.join(out, "control_csp.html")
    with open(tampered, "w", encoding="utf-8") as f:
        f.write(markup[:at] + EVIL + markup[at + len(escaped):])
    driver.open("file://" + tampered)
    state = poll(lambda: driver.js(PAGE_STATE), lambda st: st["violations"])
    check(state["imgs"] >= 1, "control with CSP: the raw tag should be an element")
    check(state["violations"], "control with CSP: the CSP should have reported the blocked image/handler")
    expect_equal(state["alerts"], [], "control with CSP: alert calls")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", required=True, help="the html_report_pages program")
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True, help="directory for the pages, screenshots and logs")
    args = ap.parse_args()

    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    for stale in ("report.html", "study.html", "html_report.png", "html_study.png"):
        if os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))
    subprocess.run([args.pages, out], check=True, timeout=REQUEST_LIMIT)
    report_page, study_page = os.path.join(out, "report.html"), os.path.join(out, "study.html")

    scratch = tempfile.mkdtemp(prefix="forkscale-browser-")
    proc = driver = logfile = None
    shots = []
    try:
        log("static checks (chromium --dump-dom)")
        static_checks("report (dump-dom)", dump_dom(args.chromium, report_page, scratch), REPORT_TABLE_ROWS,
                      REPORT_SVGS, REPORT_SECTIONS)
        static_checks("study (dump-dom)", dump_dom(args.chromium, study_page, scratch), STUDY_TABLE_ROWS, STUDY_SVGS,
                      ["fs-study-summary", "fs-study-runs"] + REPORT_SECTIONS)
        log("interactive checks (chromedriver)")
        proc, driver, logfile = start_chromedriver(args.chromedriver, out, scratch)
        driver.start(args.chromium, os.path.join(scratch, "webdriver-profile"))
        shots.append(interactive_report(driver, report_page, out))
        shots.append(interactive_study(driver, study_page, out))
        controls(driver, report_page, out)
    except Exception as e:  # a failure to drive the browser is a test failure
        problems.append("%s: %s" % (type(e).__name__, e))
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
    if problems:
        log("FAILED: %d problem(s)" % len(problems))
        for p in problems:
            log("  - " + p)
        return 1
    log("ok: tables, sorting, filtering, plots and escaping checked in %s" % args.chromium)
    return 0


if __name__ == "__main__":
    sys.exit(main())
