#!/usr/bin/env python3
"""bench_event_instructions: the engine's cost per event, in instructions, in both forms.

  python3 bench/bench_event_instructions.py [--compiler CXX] [--out FILE]

Builds bench/event_instructions.cpp twice at -O2: against the header-only form,
and with FORKSCALE_COMPILED_LIB against src/forkscale.cpp compiled the same way
(the compiled form). Each runs under valgrind's callgrind with 20,000 and with
60,000 events of one kind (a spawn + child + sync cycle, a call site, a sync
with nothing to join) in one measurement under the cost clock; the instructions
per event are the difference of the two totals over 40,000, so that start-up
and the measurement's own start and end cancel out. Callgrind counts only
inside the measured function (--toggle-collect): the wall configurations'
compensation is calibrated by a measurement before it, whose attempts vary
with the machine's timing. The header-only form is
also counted with each subsystem on and off (event_instructions.cpp: site
profiles off, the events inside a what-if region, recording on). Instruction counts do not
depend on the machine's load. The compiled form's figures must not be higher
than the header-only form's (recorded, never enforced).

fib: the instructions forkscale adds per call of a fine-grained fib (a charge,
a spawn run at once, a call site, a sync): bench/event_instructions.cpp's fib
mode counted at fib(16) and fib(20) (3,193 and 21,891 calls), on minus the same
program built with FORKSCALE_ENABLE=0, over the difference in calls; site
profiles on (default), off (no_profiles) and recording (record), both forms.
The goals (issue: a lean event path) are 400, 250 and 1,500.
Writes FILE (default bench/results/event_instructions.json) atomically.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(REPO_ROOT, "include")
SOURCE = os.path.join(REPO_ROOT, "bench", "event_instructions.cpp")
LIBRARY_SOURCE = os.path.join(REPO_ROOT, "src", "forkscale.cpp")
EVENTS = ["spawn", "call", "sync"]
CONFIGS = ["default", "no_profiles", "what_if", "record", "wall", "wall_no_profiles"]
COUNTS = (20000, 60000)
FIB_N = (16, 20)
FIB_CONFIGS = ["default", "no_profiles", "record"]
FIB_GOALS = {"default": 400, "no_profiles": 250, "record": 1500}


def fib_calls(n):
    a, b = 1, 1  # calls(0), calls(1)
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b if n >= 1 else a
FLAGS = ["-std=c++17", "-O2", "-DNDEBUG", "-I", INCLUDE]


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["(no message)"])[0]
        raise RuntimeError("%s failed: %s" % (os.path.basename(cmd[0]), first))
    return r


def build(cxx, work):
    header_only = os.path.join(work, "events_header_only")
    run([cxx] + FLAGS + [SOURCE, "-o", header_only, "-pthread"])
    lib = os.path.join(work, "forkscale.o")
    run([cxx] + FLAGS + ["-DFORKSCALE_COMPILED_LIB", "-c", LIBRARY_SOURCE, "-o", lib])
    compiled = os.path.join(work, "events_compiled")
    run([cxx] + FLAGS + ["-DFORKSCALE_COMPILED_LIB", SOURCE, lib, "-o", compiled, "-pthread"])
    disabled = os.path.join(work, "events_disabled")
    run([cxx] + FLAGS + ["-DFORKSCALE_ENABLE=0", SOURCE, "-o", disabled, "-pthread"])
    return {"header_only": header_only, "compiled": compiled, "disabled": disabled}


def fib_per_call(programs, form, config, work):
    on = [instructions(programs[form], "fib", n, work, config) for n in FIB_N]
    off = [instructions(programs["disabled"], "fib", n, work, config) for n in FIB_N]
    calls = fib_calls(FIB_N[1]) - fib_calls(FIB_N[0])
    return round(((on[1] - on[0]) - (off[1] - off[0])) / calls, 1)


def instructions(program, event, n, work, config="default"):
    out = os.path.join(work, "callgrind.out")
    # Only inside the counted measurement: a timed clock's calibration runs in a
    # measurement before it, and its attempts vary with the machine's timing.
    run(["valgrind", "--tool=callgrind", "--toggle-collect=*forkscale_bench_counted*",
         "--callgrind-out-file=" + out, program, event, str(n), config])
    with open(out, encoding="utf-8") as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no total for %s %s %d" % (program, event, n))


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".event_instructions.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description="forkscale instructions per event, both forms")
    ap.add_argument("--compiler", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "bench", "results", "event_instructions.json"))
    args = ap.parse_args(argv)
    if not shutil.which("valgrind"):
        print("bench_event_instructions: valgrind is not installed (Debian: apt-get install valgrind)",
              file=sys.stderr)
        return 1
    rows = {}
    configs = {}
    with tempfile.TemporaryDirectory(prefix="forkscale-events-") as work:
        try:
            programs = build(args.compiler, work)
            fib = {}
            for form in ("header_only", "compiled"):
                fib[form] = {c: fib_per_call(programs, form, c, work) for c in FIB_CONFIGS}
            for form, program in programs.items():
                if form == "disabled":
                    continue
                rows[form] = {}
                for event in EVENTS:
                    a = instructions(program, event, COUNTS[0], work)
                    b = instructions(program, event, COUNTS[1], work)
                    rows[form][event] = round((b - a) / (COUNTS[1] - COUNTS[0]), 1)
            for config in CONFIGS[1:]:
                configs[config] = {}
                for event in EVENTS:
                    a = instructions(programs["header_only"], event, COUNTS[0], work, config)
                    b = instructions(programs["header_only"], event, COUNTS[1], work, config)
                    configs[config][event] = round((b - a) / (COUNTS[1] - COUNTS[0]), 1)
        except (RuntimeError, OSError) as e:
            print("bench_event_instructions: %s" % e, file=sys.stderr)
            return 1
    ratios = {e: round(rows["compiled"][e] / rows["header_only"][e], 4) for e in EVENTS}
    print("instructions per event (callgrind, cost clock, %s -O2)" % args.compiler)
    print("  %-8s %12s %10s %7s" % ("event", "header-only", "compiled", "ratio"))
    for e in EVENTS:
        print("  %-8s %12.1f %10.1f %7.3f" % (e, rows["header_only"][e], rows["compiled"][e], ratios[e]))
    configs = dict([("default", rows["header_only"])] + list(configs.items()))
    print("instructions forkscale adds per fib call (on minus FORKSCALE_ENABLE=0)")
    print("  %-12s %12s %10s %7s" % ("config", "header-only", "compiled", "goal"))
    for c in FIB_CONFIGS:
        print("  %-12s %12.1f %10.1f %7d" % (c, fib["header_only"][c], fib["compiled"][c], FIB_GOALS[c]))
    print("header-only, by configuration")
    print("  %-12s" % "config" + "".join("%10s" % e for e in EVENTS))
    for c in CONFIGS:
        print("  %-12s" % c + "".join("%10.1f" % configs[c][e] for e in EVENTS))
    doc = {
        "benchmark": "forkscale instructions per event",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "compiler": args.compiler,
        "method": "callgrind totals of bench/event_instructions.cpp with %d and %d events, "
                  "difference / %d; -O2 -DNDEBUG; the compiled form links src/forkscale.cpp compiled alike"
                  % (COUNTS[0], COUNTS[1], COUNTS[1] - COUNTS[0]),
        "events": {"spawn": "spawn + child + sync cycle", "call": "call site", "sync": "sync, nothing to join"},
        "header_only": rows["header_only"],
        "compiled": rows["compiled"],
        "compiled_over_header_only": ratios,
        "configs": {"default": "site profiles on (the options' defaults)", "no_profiles": "site profiles off",
                    "what_if": "the events inside a what_if_region", "record": "options.record on",
                    "wall": "the automatic clock (TSC), site profiles on: events share readings",
                    "wall_no_profiles": "the automatic clock (TSC), site profiles off"},
        "header_only_by_config": configs,
        "fib_per_call": {
            "method": "fib(%d) and fib(%d) (%d and %d calls), forkscale on minus FORKSCALE_ENABLE=0, "
                      "over the difference in calls" % (FIB_N[0], FIB_N[1], fib_calls(FIB_N[0]),
                                                        fib_calls(FIB_N[1])),
            "goals": FIB_GOALS,
            "header_only": fib["header_only"],
            "compiled": fib["compiled"],
        },
    }
    write_atomically(args.out, json.dumps(doc, indent=2) + "\n")
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
