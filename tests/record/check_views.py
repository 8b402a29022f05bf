#!/usr/bin/env python3
"""Run an example with FORKSCALE_TRACE and FORKSCALE_FOLDED set and check what it wrote.

  check_views.py --exe PROGRAM --stem NAME --out DIR -- ARGS...
  check_views.py --self-test
  check_views.py --trace FILE      (the trace format's rules only, on any trace)

Runs `PROGRAM ARGS... --out DIR` (under any clock: the record's columns add up
to the report's work and span exactly on each) with
FORKSCALE_TRACE=DIR/NAME.trace.json and FORKSCALE_FOLDED=DIR/NAME.folded, and
then, with the Python standard library only:

1. The trace against the Trace Event Format, as written in its definition
   ("Trace Event Format", the document linked from the Catapult project), and
   as the viewers read it: the object form with a "traceEvents" array and
   "displayTimeUnit" "ms" or "ns"; every event has a phase "ph" and a string
   "cat" (metadata "__metadata", as Chrome writes it); complete events ("X")
   have name, ts, dur, pid and tid, ts and dur numbers >= 0; metadata events
   ("M") have a known name and an args object (and a tid for the thread ones);
   counters ("C") a name, ts and numeric args; flow events ("s", "f") have name,
   cat, id, ts, pid and tid, and "f" binds to its enclosing slice ("bp": "e");
   no other phase.
   Nesting: the X slices of one (pid, tid) nest (disjoint or one inside the
   other) with ends computed as ts + dur in doubles (DevTools: JavaScript
   numbers), as (ts - the track's first ts) + dur in doubles (speedscope moves
   each track to 0 first) and in whole nanoseconds (Perfetto rounds ts and dur
   to ns each). Flows as DevTools binds them: every "s" and "f" has a slice of the
   same pid, tid, cat and ts (equal as doubles), and each (cat, name, id) has
   exactly one "s" and one "f". Frames as speedscope keys them (name and the
   JSON of args): slices of one name and one args.stack have the same args, so
   that a site is never split into one frame per strand.
Exits 0 when every check passes, 1 otherwise (each problem on a line).
--self-test shows that the checks can fail: broken traces and folded files
must each be refused for the right reason.
"""

import argparse
import bisect
import json
import os
import re
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


def check_event(k, e, t):
    if not isinstance(e, dict) or not isinstance(e.get("ph"), str):
        return fail("event %d: not an object with a phase" % k)
    ph = e["ph"]
    if not isinstance(e.get("cat"), str):
        fail("event %d (%r, ph %r): no string cat" % (k, e.get("name"), ph))
    if not integer(e.get("pid")):
        fail("event %d: no integer pid" % k)
    if ph == "M":
        if e.get("cat") != "__metadata":
            fail("event %d: metadata with cat %r, not \"__metadata\"" % (k, e.get("cat")))
        if e.get("name") not in KNOWN_METADATA or not isinstance(e.get("args"), dict):
            return fail("event %d: metadata %r without a known name or args" % (k, e.get("name")))
        if e["name"].startswith("thread_") and not integer(e.get("tid")):
            fail("event %d: thread metadata without tid" % k)
        if e["name"] == "thread_name":
            t["names"][e.get("tid")] = e["args"].get("name")
        return
    if not number(e.get("ts")) or e["ts"] < 0:
        return fail("event %d: no ts >= 0" % k)
    if ph == "C":
        args = e.get("args")
        if not isinstance(e.get("name"), str) or not isinstance(args, dict) or not all(
                number(v) for v in args.values()):
            return fail("event %d: counter without name or numeric args" % k)
        t["counters"].setdefault(e["name"], []).append((e["ts"], args))
        return
    if not integer(e.get("tid")):
        return fail("event %d: no integer tid" % k)
    key = (e.get("pid"), e["tid"])
    if ph == "X":
        if not isinstance(e.get("name"), str) or not number(e.get("dur")) or e["dur"] < 0:
            return fail("event %d: complete event without name or dur >= 0" % k)
        t["slices"].setdefault(key, []).append((e["ts"], e["ts"] + e["dur"], e))
    elif ph in ("s", "f"):
        if not isinstance(e.get("name"), str) or not isinstance(e.get("cat"), str) or "id" not in e:
            return fail("event %d: flow event without name, cat or id" % k)
        if ph == "f" and e.get("bp") != "e":
            fail("event %d: flow end without \"bp\": \"e\"" % k)
        ends = t["flows"].setdefault((e["cat"], e["name"], e["id"]), {"s": [], "f": []})
        ends[ph].append((key, e["ts"], e["cat"]))
    else:
        fail("event %d: unexpected phase %r" % (k, ph))


def ns(us):
    """A ts or dur as Perfetto reads it: rounded to whole nanoseconds."""
    return int(round(us * 1000))


def check_track_nesting(key, track, end_of, what):
    """Sorted by start, longer first (ties in file order), a slice that starts
    inside another must end inside it; `end_of` gives (start, end)."""
    order = sorted(range(len(track)), key=lambda i: (end_of(track[i])[0], -end_of(track[i])[1], i))
    stack = []
    for i in order:
        start, end = end_of(track[i])
        while stack and stack[-1][1] <= start:
            stack.pop()
        if stack and end > stack[-1][1]:
            e, o = track[i][2], stack[-1][2]
            return fail("tid %r (%s): %r [%r, %r] overlaps %r [%r, %r] partially" %
                        (key[1], what, e.get("name"), start, end, o.get("name"), stack[-1][0], stack[-1][1]))
        stack.append((start, end, track[i][2]))


def check_nesting(slices):
    for key, track in slices.items():
        # ts + dur in doubles, as JavaScript viewers compute the end.
        check_track_nesting(key, track, lambda s: (s[0], s[1]), "ts + dur in doubles")
        # speedscope moves each track to start at 0, then adds dur.
        origin = min(s[0] for s in track)
        check_track_nesting(key, track, lambda s: (s[0] - origin, (s[0] - origin) + s[2]["dur"]),
                            "(ts - first ts) + dur in doubles")
        # ts and dur each rounded to ns, as Perfetto reads them.
        check_track_nesting(key, track, lambda s: (ns(s[0]), ns(s[0]) + ns(s[2]["dur"])), "in ns")


def check_flows(slices, flows):
    """DevTools binds a flow event to the slice of its pid and tid with the same
    ts and cat; start and end pair by (cat, name, id)."""
    bound = set()
    for key, track in slices.items():
        for start, _, e in track:
            bound.add((key, start, e.get("cat")))
    for fid, ends in flows.items():
        if len(ends["s"]) != 1 or len(ends["f"]) != 1:
            fail("flow %r has %d starts and %d ends" % (fid, len(ends["s"]), len(ends["f"])))
            continue
        for phase in ("s", "f"):
            key, ts, cat = ends[phase][0]
            if (key, ts, cat) not in bound:
                fail("flow %r: its %r event at ts %r binds to no slice of tid %r with that ts and cat %r" %
                     (fid, phase, ts, key[1], cat))


def check_frame_keys(slices):
    """speedscope keys a frame by name and JSON of args: slices of one name and
    one args.stack must have the same args."""
    keys = {}
    for track in slices.values():
        for _, _, e in track:
            args = e.get("args", {})
            if isinstance(args, dict) and "folded_strands" in args:
                continue  # a bounded trace's folded slice: its own numbers, at most trace_limit of them
            stack = args.get("stack") if isinstance(args, dict) else None
            keys.setdefault((e["name"], stack), set()).add(json.dumps(args, sort_keys=True))
    for (name, stack), seen in sorted(keys.items(), key=lambda x: -len(x[1])):
        if len(seen) > 1:
            return fail("slices named %r (stack %r) have %d different args: speedscope shows %d frames for one" %
                        (name, stack, len(seen), len(seen)))


def check_trace_format(trace):
    t = {"slices": {}, "flows": {}, "names": {}, "counters": {}}
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("the trace is not an object with a traceEvents array")
        return t
    if trace.get("displayTimeUnit") not in ("ms", "ns"):
        fail("displayTimeUnit %r is neither ms nor ns" % trace.get("displayTimeUnit"))
    for k, e in enumerate(trace["traceEvents"]):
        check_event(k, e, t)
    check_nesting(t["slices"])
    check_flows(t["slices"], t["flows"])
    check_frame_keys(t["slices"])
    return t


def last_counter(t, name, key):
    samples = t["counters"].get(name, [])
    for (a, _), (b, _) in zip(samples, samples[1:]):
        if b < a:
            fail("counter %r goes back in time" % name)
            break
    return samples[-1][1].get(key) if samples else None


def check_against_report(t, report, other):
    slices, names = t["slices"], t["names"]
    record = report.get("record")
    if not record:
        return fail("the report has no record")
    root = report["regions"][0]
    critical = [tid for tid, name in names.items() if name == "critical path"]
    if len(critical) != 1:
        return fail("%d tracks named 'critical path'" % len(critical))
    strands = record["strands"]
    want, got, folded = {}, {}, {}
    for s in strands:
        want.setdefault(s[0] + 1, []).append(s[3])  # thread, start_ns
    critical_slices = 0
    for (pid, tid), track in slices.items():
        for start, _, e in track:
            if tid == critical[0]:
                critical_slices += 1
            elif e.get("cat") == "strand" and "folded_strands" in e.get("args", {}):
                folded[tid] = folded.get(tid, 0) + e["args"]["folded_strands"]
            elif e.get("cat") == "strand":
                got.setdefault(tid, []).append(ns(start))
    for tid in set(want) | set(got):
        w, g = sorted(want.get(tid, [])), sorted(got.get(tid, []))
        if folded:  # a bounded trace: the kept slices and the folded strands add up
            if len(g) + folded.get(tid, 0) != len(w):
                fail("tid %d: %d strand slices and %d folded strands for %d strands of its thread" %
                     (tid, len(g), folded.get(tid, 0), len(w)))
        elif len(w) != len(g):
            fail("tid %d: %d strand slices for %d strands of its thread" % (tid, len(g), len(w)))
        elif str(other.get("slices_adjusted")) == "0" and w != g:
            fail("tid %d: the strand slices do not start where the strands did" % tid)
    if critical_slices != len(record["critical_path"]):
        fail("the critical path track has %d slices, the critical path %d strands" %
             (critical_slices, len(record["critical_path"])))
    work = sum(last_counter(t, "work of thread %d" % (tid - 1), "work") or 0 for tid in want)
    span = last_counter(t, "span of the critical path", "span") or 0
    if work != root["work"]:
        fail("the work counters end at %d in all, the report's work is %d" % (work, root["work"]))
    if span != root["span"]:
        fail("the critical path's span counter ends at %d, the report's span is %d" % (span, root["span"]))


# ---- folded stacks, read as three readers read them --------------------------

# flamegraph.pl: each line (split at "\n") matched as "stack count" with \s the
# ASCII white space of Perl; a stack that itself ends in white space and a
# number makes the line a differential one ("stack count1 count2").
PERL_LINE = re.compile(r"^(.*)[ \t\n\r\f\v]+?(\d+(?:\.\d*)?)$", re.S)
# inferno: the same, with Unicode white space.
UNICODE_LINE = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$", re.S)
# speedscope: lines split at JavaScript's line terminators, "stack count".
JS_TERMINATORS = re.compile("\r\n|[\n\r\u2028\u2029]")
SPEEDSCOPE_LINE = re.compile(r"^(.*) (\d+)$", re.S)


def read_two_column(lines, pattern, reader):
    out = []
    for line in lines:
        if line == "":
            continue
        m = pattern.match(line)
        if not m:
            out.append((reader + ": unreadable", line))
            continue
        stack, count = m.group(1), m.group(2)
        if reader != "speedscope" and pattern.match(stack):
            out.append((reader + ": differential", line))
            continue
        out.append((stack, count))
    return out


def folded_readings(text):
    """The (stack, count) lines of a folded file as flamegraph.pl, inferno and
    speedscope read it; problems for the lines they disagree on."""
    bad = []
    fg = read_two_column(text.split("\n"), PERL_LINE, "flamegraph.pl")
    inferno = read_two_column(text.split("\n"), UNICODE_LINE, "inferno")
    speedscope = read_two_column(JS_TERMINATORS.split(text), SPEEDSCOPE_LINE, "speedscope")
    if len(text.splitlines()) != len(text.split("\n")) - (1 if text.endswith("\n") else 0):
        bad.append("a line break other than \"\\n\" (Python's str.splitlines sees more lines)")
    for line in fg + inferno + speedscope:
        if line[0].endswith(": unreadable") or line[0].endswith(": differential"):
            bad.append("%s line %r" % (line[0], line[1]))
    if not (fg == inferno == speedscope):
        bad.append("flamegraph.pl, inferno and speedscope read different lines")
    for stack, _ in fg:
        if any(f == "" for f in stack.split(";")):
            bad.append("an empty frame in %r" % stack)
    return fg, bad


def folded_total(path, label):
    total, last = 0, None
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text and not text.endswith("\n"):
        fail("%s: the last line has no newline" % path)
    lines, bad = folded_readings(text)
    for b in bad:
        fail("%s: %s" % (path, b))
    for stack, count in lines:
        if not stack or not count.isdigit() or int(count) == 0:
            fail("%s: bad line %r" % (path, stack + " " + count))
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
    x = {"name": "a", "cat": "c", "ph": "X", "ts": 1.0, "dur": 2.0, "pid": 1, "tid": 1}

    def flow(ph, ts, **kw):
        return dict({"name": "s", "cat": "c", "ph": ph, "id": 1, "ts": ts, "pid": 1, "tid": 1}, **kw)

    def trace(*events):
        return {"traceEvents": list(events), "displayTimeUnit": "ns"}

    cases = [
        (trace(x, dict(x, ts=2.0)), "overlaps"),
        (trace(x, flow("s", 1.0)), "1 starts and 0 ends"),
        (trace(x, flow("s", 1.0), flow("f", 1.5, bp="e")), "binds to no slice"),
        (trace(x, flow("s", 1.0), flow("f", 1.0, bp="e", cat="d")), "1 starts and 0 ends"),
        (trace(x, dict(x, ts=5.0, cat="e"), flow("s", 1.0), flow("f", 5.0, bp="e")), "binds to no slice"),
        (trace(x, flow("s", 1.0), flow("f", 1.0)), "without \"bp\""),
        (trace(dict(x, dur=-1)), "dur >= 0"),
        (trace(dict(x, ph="B")), "unexpected phase"),
        (trace({"name": "thread_name", "cat": "__metadata", "ph": "M", "pid": 1, "args": {}}), "without tid"),
        (trace({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "p"}}), "no string cat"),
        (trace({"name": "process_name", "cat": "m", "ph": "M", "pid": 1, "args": {"name": "p"}}), "__metadata"),
        (trace(dict(x, cat=None)), "no string cat"),
        # Ends that meet in decimal but not in doubles: 506.682 + 0.220 > 506.902.
        (trace(dict(x, ts=506.682, dur=0.220), dict(x, ts=506.902, dur=0.1), dict(x, ts=506.5, dur=0.402)),
         "ts + dur in doubles"),
        # They meet in ts + dur (1960.200 + 0.423 <= 1960.623), not once the track
        # is moved to start at 0 (its first slice at 28.101), as speedscope does.
        (trace(dict(x, ts=28.101, dur=0.1), dict(x, ts=1960.200, dur=0.423), dict(x, ts=1960.623, dur=0.1)),
         "(ts - first ts) + dur in doubles"),
        (trace(dict(x, args={"strand": 1}), dict(x, ts=4.0, args={"strand": 2})), "different args"),
        (trace({"name": "w", "cat": "c", "ph": "C", "ts": 1.0, "pid": 1, "args": {"w": "x"}}), "numeric args"),
        ({"events": []}, "not an object with a traceEvents array"),
    ]
    bad = []
    for case, expected in cases:
        del problems[:]
        check_trace_format(case)
        if not any(expected in p for p in problems):
            bad.append("expected %r, got %r" % (expected, problems))
    del problems[:]
    check_trace_format(trace(x, dict(x, ts=1.5, dur=0.5), flow("s", 1.0), flow("f", 1.5, bp="e"),
                             dict(x, ts=1960.200, dur=0.423), dict(x, ts=1960.623, dur=0.1),
                             {"name": "process_name", "cat": "__metadata", "ph": "M", "pid": 1, "args": {"name": "p"}},
                             dict(x, ts=506.682, dur=0.219), dict(x, ts=506.902, dur=0.1)))
    if problems:
        bad.append("a good trace was refused: %r" % problems)
    folded_cases = [
        ("m;b 2\nm;a 1\nx 3\nm;c 0\n", ("not sorted", "does not start", "bad line")),
        ("m;run 2 5\n", ("differential",)),
        ("m;run\u00a02 5\n", ("inferno: differential", "read different lines")),
        ("m;a\u2028b 5\n", ("speedscope: unreadable", "line break")),
        ("m;;b 5\n", ("empty frame",)),
    ]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "forkscale-check-views-%d.folded" % os.getpid())
    for text, expected in folded_cases:
        del problems[:]
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        total = folded_total(path, "m")
        for e in expected:
            if not any(e in p for p in problems):
                bad.append("folded %r: expected %r, got %r" % (text, e, problems))
        if text.startswith("m;b 2") and total != 6:
            bad.append("folded total %d, expected 6" % total)
    os.remove(path)
    for b in bad:
        print("  - " + b)
    print("FAILED: the checks missed %d broken input(s)" % len(bad) if bad else "ok: every broken input was refused")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) == 3 and sys.argv[1] == "--trace":  # the format's rules only, on any trace file
        with open(sys.argv[2], encoding="utf-8") as f:
            trace = json.load(f)
        check_trace_format(trace)
        for p in problems:
            print("  - " + p)
        print("%s: %d trace events%s" % ("FAILED" if problems else "ok", len(trace["traceEvents"]),
                                         "; " + str((trace.get("otherData") or {}).get("folded"))))
        return 1 if problems else 0
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
    t = check_trace_format(trace)
    check_against_report(t, report, trace.get("otherData") or {})
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
