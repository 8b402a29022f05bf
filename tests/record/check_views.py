#!/usr/bin/env python3
"""Run an example with FORKSCALE_TRACE and FORKSCALE_FOLDED set and check what it wrote.

  check_views.py --exe PROGRAM --stem NAME --out DIR -- ARGS...
  check_views.py --self-test

Runs `PROGRAM ARGS... --out DIR` (ARGS must include --clock cost) with
FORKSCALE_TRACE=DIR/NAME.trace.json and FORKSCALE_FOLDED=DIR/NAME.folded, and
then, with the Python standard library only:

1. The trace against the Trace Event Format, as written in its definition
   ("Trace Event Format", the document linked from the Catapult project) and as
   Perfetto's JSON importer reads it: the object form with a "traceEvents" array
   and "displayTimeUnit" "ms" or "ns"; every event has a phase "ph"; complete
   events ("X") have name, ts, dur, pid and tid, ts and dur numbers >= 0;
   metadata events ("M") have a known name and an args object (and a tid for the
   thread ones); flow events ("s", "f") have name, cat, id, ts, pid and tid, and
   "f" binds to its enclosing slice ("bp": "e"); no other phase. The X slices of
   one (pid, tid) nest (disjoint or one inside the other); every flow id has
   exactly one "s" and one "f", each inside an X slice of its own tid.
2. The trace against the report the example wrote (DIR/NAME.json, exact under
   the cost clock): every strand of the record once on its thread's track, their
   work adding up to the report's work, and the slices of the track named
   "critical path" adding up (args.span) to the report's span.
3. The folded files DIR/NAME.work.folded and DIR/NAME.critical.folded: "stack
   count" lines, sorted and distinct, positive integer counts, every stack
   starting at the measurement's label; they add up to the work and the span.

Exits 0 when every check passes, 1 otherwise (each problem on a line).
--self-test shows that the checks can fail: broken traces and folded files
must each be refused for the right reason.
"""

import argparse
import bisect
import json
import os
import shutil
import subprocess
import sys

problems = []


def fail(message):
    if len(problems) < 30:
        problems.append(message)


KNOWN_METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_event(k, e, slices, flows, names):
    if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
        return fail("event %d: not an object with a phase" % k)
    ph = e["ph"]
    if not integer(e.get("pid")):
        fail("event %d: no integer pid" % k)
    if ph == "M":
        if e.get("name") not in KNOWN_METADATA or not isinstance(e.get("args"), dict):
            return fail("event %d: metadata %r without a known name or args" % (k, e.get("name")))
        if e["name"].startswith("thread_") and not integer(e.get("tid")):
            fail("event %d: thread metadata without tid" % k)
        if e["name"] == "thread_name":
            names[e.get("tid")] = e["args"].get("name")
        return
    if not integer(e.get("tid")) or not number(e.get("ts")) or e["ts"] < 0:
        return fail("event %d: no integer tid or no ts >= 0" % k)
    key = (e.get("pid"), e["tid"])
    if ph == "X":
        if not isinstance(e.get("name"), str) or not number(e.get("dur")) or e["dur"] < 0:
            return fail("event %d: complete event without name or dur >= 0" % k)
        slices.setdefault(key, []).append((e["ts"], e["ts"] + e["dur"], e))
    elif ph in ("s", "f"):
        if not isinstance(e.get("name"), str) or not isinstance(e.get("cat"), str) or "id" not in e:
            return fail("event %d: flow event without name, cat or id" % k)
        if ph == "f" and e.get("bp") != "e":
            fail("event %d: flow end without \"bp\": \"e\"" % k)
        ends = flows.setdefault((e["cat"], e["id"]), {"s": [], "f": []})
        ends[ph].append((key, e["ts"]))
    else:
        fail("event %d: unexpected phase %r" % (k, ph))


def check_nesting(slices):
    # Compared in ns: the trace writes microseconds with three decimals.
    for key, track in slices.items():
        order = sorted(track, key=lambda s: (round(s[0] * 1000), -round(s[1] * 1000)))
        stack = []
        for start, end, _ in order:
            start_ns, end_ns = round(start * 1000), round(end * 1000)
            while stack and stack[-1] <= start_ns:
                stack.pop()
            if stack and end_ns > stack[-1]:
                return fail("tid %r: a slice ending at %d ns overlaps one ending at %d ns partially" %
                            (key[1], end_ns, stack[-1]))
            stack.append(end_ns)


class containment:
    """Whether a time lies inside some slice of a track (ends included): the
    slices sorted by start, with the latest end among those starting no later."""

    def __init__(self, slices):
        self.tracks = {}
        for key, track in slices.items():
            starts, reach, latest = [], [], float("-inf")
            for start, end, _ in sorted(track, key=lambda s: s[0]):
                latest = max(latest, end)
                starts.append(start)
                reach.append(latest)
            self.tracks[key] = (starts, reach)

    def inside(self, key, ts):
        starts, reach = self.tracks.get(key, ([], []))
        k = bisect.bisect_right(starts, ts)
        return k > 0 and reach[k - 1] >= ts


def check_trace_format(trace):
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("the trace is not an object with a traceEvents array")
        return {}, {}
    if trace.get("displayTimeUnit") not in ("ms", "ns"):
        fail("displayTimeUnit %r is neither ms nor ns" % trace.get("displayTimeUnit"))
    slices, flows, names = {}, {}, {}
    for k, e in enumerate(trace["traceEvents"]):
        check_event(k, e, slices, flows, names)
    check_nesting(slices)
    within = containment(slices)
    for fid, ends in flows.items():
        if len(ends["s"]) != 1 or len(ends["f"]) != 1:
            fail("flow %r has %d starts and %d ends" % (fid, len(ends["s"]), len(ends["f"])))
            continue
        for phase in ("s", "f"):
            key, ts = ends[phase][0]
            if not within.inside(key, ts):
                fail("flow %r: its %r event at %r is inside no slice of tid %r" % (fid, phase, ts, key[1]))
    return slices, names


def check_against_report(slices, names, report):
    record = report.get("record")
    if not record:
        return fail("the report has no record")
    root = report["regions"][0]
    critical = [tid for tid, name in names.items() if name == "critical path"]
    if len(critical) != 1:
        return fail("%d tracks named 'critical path'" % len(critical))
    seen = [0] * len(record["strands"])
    work = span = 0
    for (pid, tid), track in slices.items():
        for _, _, e in track:
            args = e.get("args", {})
            if tid == critical[0]:
                span += args["span"]
            elif e.get("cat") != "region":
                i = args["strand"]
                seen[i] += 1
                work += args["work"]
                if tid != record["strands"][i][0] + 1:
                    fail("strand %d on tid %d, recorded on thread %d" % (i, tid, record["strands"][i][0]))
    if seen != [1] * len(seen):
        fail("strands drawn other than once: %r" % [i for i, n in enumerate(seen) if n != 1][:10])
    if work != root["work"]:
        fail("the strands' work adds up to %d, the report's work is %d" % (work, root["work"]))
    if span != root["span"]:
        fail("the critical path track adds up to %d, the report's span is %d" % (span, root["span"]))
    return work, span


def folded_total(path, label):
    total, last = 0, None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        fail("%s: the last line has no newline" % path)
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit() or int(count) == 0:
            fail("%s: bad line %r" % (path, line))
            continue
        if last is not None and not last < stack:
            fail("%s: stacks not sorted or repeated at %r" % (path, stack))
        if stack.split(";")[0] != label:
            fail("%s: stack %r does not start at %r" % (path, stack, label))
        last = stack
        total += int(count)
    return total


def self_test():
    """Each broken input must be refused with the expected problem."""
    x = {"name": "a", "ph": "X", "ts": 1.0, "dur": 2.0, "pid": 1, "tid": 1}
    cases = [
        ({"traceEvents": [x, dict(x, ts=2.0)], "displayTimeUnit": "ns"}, "overlaps"),
        ({"traceEvents": [x, {"name": "s", "cat": "c", "ph": "s", "id": 1, "ts": 1.5, "pid": 1, "tid": 1}],
          "displayTimeUnit": "ns"}, "1 starts and 0 ends"),
        ({"traceEvents": [x, {"name": "s", "cat": "c", "ph": "s", "id": 1, "ts": 9.0, "pid": 1, "tid": 1},
                          {"name": "s", "cat": "c", "ph": "f", "bp": "e", "id": 1, "ts": 2.0, "pid": 1, "tid": 1}],
          "displayTimeUnit": "ns"}, "inside no slice"),
        ({"traceEvents": [x, {"name": "s", "cat": "c", "ph": "f", "id": 1, "ts": 2.0, "pid": 1, "tid": 1}],
          "displayTimeUnit": "ns"}, "without \"bp\""),
        ({"traceEvents": [dict(x, dur=-1)], "displayTimeUnit": "ns"}, "dur >= 0"),
        ({"traceEvents": [dict(x, ph="B")], "displayTimeUnit": "ns"}, "unexpected phase"),
        ({"traceEvents": [{"name": "thread_name", "ph": "M", "pid": 1, "args": {}}], "displayTimeUnit": "ns"},
         "without tid"),
        ({"events": []}, "not an object with a traceEvents array"),
    ]
    bad = []
    for trace, expected in cases:
        del problems[:]
        check_trace_format(trace)
        if not any(expected in p for p in problems):
            bad.append("expected %r, got %r" % (expected, problems))
    del problems[:]
    check_trace_format({"traceEvents": [x, dict(x, ts=1.5, dur=0.5)], "displayTimeUnit": "ns"})
    if problems:
        bad.append("a nested slice was refused: %r" % problems)
    del problems[:]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "forkscale-check-views-%d.folded" % os.getpid())
    with open(path, "w", encoding="utf-8") as f:
        f.write("m;b 2\nm;a 1\nx 3\nm;c 0\n")
    total = folded_total(path, "m")
    os.remove(path)
    for expected in ("not sorted", "does not start", "bad line"):
        if not any(expected in p for p in problems):
            bad.append("folded: expected %r, got %r" % (expected, problems))
    if total != 6:
        bad.append("folded total %d, expected 6" % total)
    for b in bad:
        print("  - " + b)
    print("FAILED: the checks missed %d broken input(s)" % len(bad) if bad else "ok: every broken input was refused")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--stem", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = [x for x in a.args if x != "--"]
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    base = os.path.join(a.out, a.stem)
    env = dict(os.environ)
    env.pop("FORKSCALE_RECORD", None)
    env["FORKSCALE_TRACE"] = base + ".trace.json"
    env["FORKSCALE_FOLDED"] = base + ".folded"
    run = subprocess.run([a.exe] + args + ["--out", a.out], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=600)
    if run.returncode != 0:
        print(run.stderr.decode("utf-8", "replace"))
        print("FAILED: %s exited with %d" % (a.exe, run.returncode))
        return 1
    with open(base + ".json", encoding="utf-8") as f:
        report = json.load(f)
    with open(base + ".trace.json", encoding="utf-8") as f:
        trace = json.load(f)
    slices, names = check_trace_format(trace)
    check_against_report(slices, names, report)
    root = report["regions"][0]
    work = folded_total(base + ".work.folded", report["label"])
    span = folded_total(base + ".critical.folded", report["label"])
    if work != root["work"]:
        fail("%s.work.folded adds up to %d, the report's work is %d" % (base, work, root["work"]))
    if span != root["span"]:
        fail("%s.critical.folded adds up to %d, the report's span is %d" % (base, span, root["span"]))
    if problems:
        print("FAILED: %d problem(s)" % len(problems))
        for p in problems:
            print("  - " + p)
        return 1
    print("ok: %d trace events, %d strands; work %d and span %d %s from the trace and the folded files" %
          (len(trace["traceEvents"]), len(report["record"]["strands"]), root["work"], root["span"], report["unit"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
