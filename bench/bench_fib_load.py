#!/usr/bin/env python3
"""bench_fib_load: does examples/fib give the same parallelism when the machine turns busy mid-run?

  python3 bench/bench_fib_load.py [--fib PROGRAM] [--runs N] [--busy K] [--clock C ...] [--out FILE]

Runs examples/fib N times (default 6) per clock (default: the default clock,
then tsc for comparison); 0.1 s after each run starts, K busy processes
(default 2, one per core here) start spinning, and they stop when the run
ends. Each run's parallelism is read from the report the program prints,
with its work, span and compensation per strand (what moved, when the
parallelism did). The figure is max/min of the runs' parallelism per clock; the goal, for the
default clock, is at most 2. Writes FILE (default bench/results/fib_load.json)
atomically. The ratio is the benchmark's figure, never a test's.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FIB = os.path.join(REPO_ROOT, "build", "default", "examples", "fib")
GOAL = 2.0


def busy():
    # A process that spins until killed (no output, no files).
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def one_run(fib, clock, k):
    cmd = [fib] + (["--clock", clock] if clock != "default" else [])
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    spinners = []
    try:
        time.sleep(0.1)
        spinners = [busy() for _ in range(k)]
        out, _ = p.communicate(timeout=600)
    finally:
        for s in spinners:
            s.kill()
            s.wait()
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError("%s exited with %d: %s" % (" ".join(cmd), p.returncode, out.strip().splitlines()[-1:]))
    m = re.search(r"^\s*Parallelism:\s+([0-9,.]+)", out, re.M)
    c = re.search(r"\(clock: (\w+),", out)
    if not m:
        raise RuntimeError("no 'Parallelism:' line in the output of %s" % " ".join(cmd))
    # What a run's parallelism is made of, to tell a run whose work moved (the
    # compensation) from one whose span did (a strand on the critical path).
    parts = {}
    for key, pattern in (("work", r"^\s*Work:\s+([0-9,]+)"), ("span", r"^\s*Span:\s+([0-9,]+)"),
                         ("compensation_per_strand", r"([0-9.]+) \w+ subtracted per strand")):
        f = re.search(pattern, out, re.M)
        parts[key] = float(f.group(1).replace(",", "")) if f else None
    return float(m.group(1).replace(",", "")), (c.group(1) if c else "?"), wall, parts


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".fib_load.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description="examples/fib's parallelism when the machine turns busy mid-run")
    ap.add_argument("--fib", default=DEFAULT_FIB)
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--busy", type=int, default=2)
    ap.add_argument("--clock", action="append", default=None)
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "bench", "results", "fib_load.json"))
    args = ap.parse_args(argv)
    if not (os.path.isfile(args.fib) and os.access(args.fib, os.X_OK)):
        print("bench_fib_load: %s is not an executable (build examples/fib first: cmake --build --preset default "
              "--target fib)" % args.fib, file=sys.stderr)
        return 2
    clocks = args.clock or ["default", "tsc"]
    rows = []
    try:
        for clock in clocks:
            runs = [one_run(args.fib, clock, args.busy) for _ in range(max(1, args.runs))]
            par = [r[0] for r in runs]
            ratio = max(par) / min(par) if min(par) > 0 else float("inf")
            row = {"clock_asked": clock, "clock": runs[0][1], "parallelism": par,
                   "work": [r[3]["work"] for r in runs], "span": [r[3]["span"] for r in runs],
                   "compensation_per_strand": [r[3]["compensation_per_strand"] for r in runs],
                   "wall_s": [round(r[2], 3) for r in runs], "max_over_min": round(ratio, 3)}
            if clock == "default":
                row["goal"] = GOAL
                row["goal_met"] = ratio <= GOAL
            rows.append(row)
            print("%-8s (%s) parallelism %s  max/min %.2f%s" % (
                clock, row["clock"], ", ".join("%.1f" % x for x in par), ratio,
                "" if clock != "default" else ("  (goal <= %.0f %s)" % (GOAL, "met" if ratio <= GOAL else "NOT met"))))
            print("%8s work %s; span %s" % ("", ", ".join("%.1fM" % (r[3]["work"] / 1e6) if r[3]["work"] else "?"
                                                          for r in runs),
                                            ", ".join("%.0fk" % (r[3]["span"] / 1e3) if r[3]["span"] else "?"
                                                      for r in runs)))
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        print("bench_fib_load: %s" % e, file=sys.stderr)
        return 1
    doc = {
        "benchmark": "fib_load",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "program": os.path.relpath(args.fib, REPO_ROOT) if args.fib.startswith(REPO_ROOT) else args.fib,
        "method": "%d runs per clock; %d busy processes start 0.1 s after each run and stop when it ends; "
                  "max/min of the runs' parallelism" % (args.runs, args.busy),
        "cores": os.cpu_count(),
        "rows": rows,
    }
    write_atomically(args.out, json.dumps(doc, indent=2) + "\n")
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
