#!/usr/bin/env python3
"""Runs the BOTS-style programs of tests/ompt/bots_programs.cpp many times in
OMPT mode's whole-program form and holds every report to the program's own count.

    ompt_stress.py --program <ompt_bots> [--runs N] [--threads 1,2] [--timeout S]
                   [--only fib,sort] [--empty N] [--out results.json]

Each run: FORKSCALE_OMPT=1 FORKSCALE_OMPT_CLOCK=cost OMP_NUM_THREADS=<T>, the
report written as JSON, a time limit per run (a run past it is killed and
counted as a hang). A run fails unless it exits 0, prints its COUNTS line, and
its report has the spawns, syncs and work the program counted (and the span,
where the program knows it), every spawn site named by the program's file and a
line (no `object+0x...`), no diagnostic, and nothing from forkscale on stderr
but the line that says where the report went. Exit status 0 when every run
passed, 1 otherwise, 2 on bad arguments.

--empty N: also runs the program `empty` (one empty region) N times at two
threads under each timed clock (tsc, steady, thread_cpu) and reports its work:
the serial time the whole-program measurement holds outside the region (the
program's own, not the tool's or the runtime's start-up and shutdown).
"""
import argparse
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAMS = ["fib", "nqueens", "sparselu_single", "sparselu_for", "health", "sort", "nested_taskloop"]
SOURCE = "bots_programs.cpp"


def parse_counts(stdout):
    for line in stdout.splitlines():
        if line.startswith("COUNTS "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    return None


def check(counts, rep, stderr):
    """The reasons a run's report disagrees with the program (empty: it agrees)."""
    problems = []
    root = rep["regions"][0]
    for key in ("spawns", "syncs", "work"):
        if int(root[key]) != int(counts[key]):
            problems.append("%s %s, the program counted %s" % (key, root[key], counts[key]))
    if counts["span"] != "-" and int(root["span"]) != int(counts["span"]):
        problems.append("span %s, the program's is %s" % (root["span"], counts["span"]))
    if rep.get("diagnostic_count", 0):
        first = rep.get("diagnostics", [{}])[0]
        problems.append("%d diagnostic(s): %s: %s" % (rep["diagnostic_count"], first.get("where"), first.get("problem")))
    for row in rep.get("spawn_sites", []):
        if row.get("kind") == "root":
            continue
        if "+0x" in row.get("name", "") or not row.get("file", "").endswith(SOURCE) or int(row.get("line", 0)) == 0:
            problems.append("spawn site not named by %s:line: %s" % (SOURCE, row.get("name")))
    for line in stderr.splitlines():
        if line.startswith("forkscale:") and not line.startswith("forkscale: report written to"):
            problems.append("stderr: " + line)
    return problems


def run_once(program, name, threads, timeout, scratch):
    report = os.path.join(scratch, "report.json")
    if os.path.exists(report):
        os.remove(report)
    env = dict(os.environ)
    for var in ("FORKSCALE_OMPT_SYMBOLS", "OMP_TOOL", "OMP_MAX_ACTIVE_LEVELS"):
        env.pop(var, None)
    env.update({"FORKSCALE_OMPT": "1", "FORKSCALE_OMPT_CLOCK": "cost", "FORKSCALE_REPORT": report,
                "OMP_NUM_THREADS": str(threads)})
    start = time.monotonic()
    proc = subprocess.Popen([program, name], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hang", ["no exit within %g s" % timeout], time.monotonic() - start
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        return "fail", ["exit status %d: %s" % (proc.returncode, (err or out).strip()[-300:])], seconds
    counts = parse_counts(out)
    if counts is None:
        return "fail", ["no COUNTS line"], seconds
    try:
        with open(report) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        return "fail", ["no report: %s" % e], seconds
    problems = check(counts, rep, err)
    return ("fail" if problems else "ok"), problems, seconds


def empty_program(program, runs, timeout, scratch):
    """The work (ns) of an empty program's report, per timed clock."""
    out = {}
    report = os.path.join(scratch, "empty.json")
    for clock in ("tsc", "steady", "thread_cpu"):
        works, diagnostics, examples = [], 0, []
        for _ in range(runs):
            env = dict(os.environ)
            env.update({"FORKSCALE_OMPT": "1", "FORKSCALE_OMPT_CLOCK": clock, "FORKSCALE_REPORT": report,
                        "OMP_NUM_THREADS": "2"})
            subprocess.run([program, "empty"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=timeout, check=True)
            with open(report) as f:
                rep = json.load(f)
            works.append(int(rep["regions"][0]["work"]))
            if int(rep.get("diagnostic_count", 0)) > 0:
                diagnostics += 1
                if len(examples) < 2:
                    examples.append(rep.get("diagnostics", [{}])[0].get("problem", ""))
        out[clock] = {"runs": runs, "work_ns_median": int(statistics.median(works)), "work_ns_min": min(works),
                      "work_ns_max": max(works), "runs_with_diagnostic": diagnostics, "diagnostics": examples}
        print("empty program, %-10s work median %d ns (min %d, max %d), %d run(s) with a diagnostic" %
              (clock, out[clock]["work_ns_median"], min(works), max(works), diagnostics), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--program", required=True, help="the ompt_bots executable")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--only", default="", help="comma-separated programs (default: all)")
    ap.add_argument("--empty", type=int, default=0, help="runs of the empty program per timed clock")
    ap.add_argument("--out", default="", help="write the results as JSON here")
    a = ap.parse_args()
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        ap.error("--threads: a comma-separated list of integers (got %r)" % a.threads)
    names = [n for n in a.only.split(",") if n] or PROGRAMS
    for n in names:
        if n not in PROGRAMS:
            ap.error("--only: no program %r (%s)" % (n, ", ".join(PROGRAMS)))
    if a.runs < 1 or a.empty < 0 or any(t < 1 for t in threads):
        ap.error("--runs and --threads must be positive")
    if not os.access(a.program, os.X_OK):
        ap.error("--program: %s is not an executable" % a.program)

    rows = []
    empty = {}
    with tempfile.TemporaryDirectory(prefix="forkscale_ompt_stress_") as scratch:
        if a.empty:
            empty = empty_program(a.program, a.empty, a.timeout, scratch)
        for name in names:
            for t in threads:
                hangs = failures = 0
                examples = []
                times = []
                for _ in range(a.runs):
                    outcome, problems, seconds = run_once(a.program, name, t, a.timeout, scratch)
                    times.append(seconds)
                    hangs += outcome == "hang"
                    failures += outcome == "fail"
                    if problems and len(examples) < 3:
                        examples.append("; ".join(problems[:4]))
                row = {"program": name, "threads": t, "runs": a.runs, "hangs": hangs, "failures": failures,
                       "median_seconds": round(statistics.median(times), 4), "max_seconds": round(max(times), 4),
                       "problems": examples}
                rows.append(row)
                print("%-16s threads=%d runs=%d hangs=%d failures=%d median=%.3fs max=%.3fs%s" %
                      (name, t, a.runs, hangs, failures, row["median_seconds"], row["max_seconds"],
                       "".join("\n    " + e for e in examples)), flush=True)
    bad = sum(r["hangs"] + r["failures"] for r in rows)
    if a.out:
        doc = {
            "schema": "forkscale.ompt_stress", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"system": platform.system(), "machine": platform.machine(), "cpus": os.cpu_count(),
                        "load_average": [round(x, 2) for x in os.getloadavg()]},
            "method": "each program run --runs times per thread count in fresh processes, whole-program OMPT mode "
                      "(FORKSCALE_OMPT=1, cost clock); a run is a hang past --timeout s, a failure when it exits "
                      "non-zero or its report's spawns, syncs, work (span where known) differ from the program's "
                      "own count, a spawn site is not named by file:line, or there is a diagnostic",
            "timeout_s": a.timeout, "runs_per_case": a.runs, "total_runs": a.runs * len(rows),
            "total_hangs": sum(r["hangs"] for r in rows), "total_failures": sum(r["failures"] for r in rows),
            "cases": rows}
        if empty:
            doc["empty_program"] = empty
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    print("%d runs, %d hangs, %d failures" % (a.runs * len(rows), sum(r["hangs"] for r in rows),
                                              sum(r["failures"] for r in rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
