#!/usr/bin/env python3
"""bench_compile: what including forkscale costs a translation unit's compile.

  python3 bench/bench_compile.py [--quick] [--runs R] [--compiler CXX] [--ompt-compiler CLANGXX] [--out FILE]

Each case is a translation unit with an empty main() that includes one header
(or the baseline's five standard headers), compiled R times with
`CXX -std=c++17 -fsyntax-only` (parse only); the figure is the fastest run, so
that a busy moment of a shared machine does not enter it. The ratio is over the
baseline: <thread>, <vector>, <string>, <functional> and <iostream>, what a small
parallel program includes anyway. The goal is at most 2x the baseline (recorded,
never enforced) for what an annotated file includes: forkscale/annotate.hpp, the
guards alone. The umbrella (forkscale/forkscale.hpp: engine, measure(), report
writers, analyses), which a program includes where it measures, is recorded
against the same goal. The baseline, annotate.hpp and the umbrella are also
compiled in full at -O2 (`-c`), as the parse figure leaves code generation out.

Both forms: the umbrella's parse is timed again with FORKSCALE_COMPILED_LIB
defined (the compiled form, whose headers only declare the writers and
analyses). And three programs are compiled at -O1 (`-c`) in both forms, timed
as the compiler's CPU time (user + system, from the operating system's
accounting of the finished process) over the baseline file's, compiled the same
way: the README's first program (read from README.md, "Using it"), a program
with one fs::measure and a join_handle, and a file that only annotates
(annotate.hpp). Goals: the README program at most 8x header-only and 3x
compiled; the umbrella's parse in the compiled form at most 2x.

OpenMP: the README's OMPT program compiled with clang++ -fopenmp=libomp -O1
(--ompt-compiler), in the compiled form whose library holds the OMPT tool
(FORKSCALE_COMPILED_OMPT), against the baseline file compiled the same way;
goal at most 4x. Without --quick also header-only, and in the compiled form with
the tool compiled in the program's file. Skipped when clang++ has no OMPT.

--quick: one run; the baseline, annotate.hpp and the umbrella only (the
umbrella not compiled in full: its full_s is null), and the programs in the
compiled form only (the CI smoke test).
Writes FILE (default bench/results/compile_time.json) atomically.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(REPO_ROOT, "include")

BASELINE = ["thread", "vector", "string", "functional", "iostream"]
UMBRELLA = "forkscale/forkscale.hpp"
ANNOTATE = "forkscale/annotate.hpp"
# Public headers that need no third-party library, each compiled on its own.
HEADERS = [
    "forkscale/site.hpp",
    "forkscale/clock.hpp",
    "forkscale/options.hpp",
    "forkscale/report.hpp",
    "forkscale/guards.hpp",
    "forkscale/mutex.hpp",
    "forkscale/merge.hpp",
    "forkscale/predict.hpp",
    "forkscale/blame.hpp",
    "forkscale/session.hpp",
    "forkscale/advisor.hpp",
    "forkscale/read_report.hpp",
    "forkscale/adapters/std_thread.hpp",
    "forkscale/adapters/serial.hpp",
    "forkscale/study/study.hpp",
    "forkscale/study/html.hpp",
]
GOAL_RATIO = 2.0
PROGRAM_GOALS = {"header_only": 8.0, "compiled": 3.0}
PROGRAM_MEMORY_GOALS_MB = {"header_only": 300.0}
# Each translation unit of the compiled library at -O2.
LIBRARY_GOAL_S = 20.0
LIBRARY_GOAL_MB = 500.0
# An OpenMP file that includes forkscale/ompt.hpp, compiled form, against the
# baseline file compiled with the same clang++ -fopenmp=libomp flags.
OMPT_GOAL = 4.0

ONE_MEASURE = """#include <forkscale/forkscale.hpp>

#include <thread>

namespace fs = forkscale;

int main() {
  fs::join_handle h;
  fs::report rep = fs::measure("one", [&] {
    std::thread t(fs::spawn(h, [] { fs::charge(10); }));
    fs::charge(5);
    fs::sync_point sp(h);
    t.join();
  });
  return rep.work() > 0 ? 0 : 1;
}
"""

ANNOTATE_ONLY = """#include <forkscale/annotate.hpp>

namespace fs = forkscale;

long fib(int n) {
  if (n < 2) return n;
  long x = 0, y = 0;
  fs::spawn([&] { x = fib(n - 1); })();
  {
    fs::call_site cs;
    y = fib(n - 2);
  }
  fs::sync_point sp;
  return x + y;
}
"""


def readme_program():
    """The README's first C++ snippet (section "Using it")."""
    with open(os.path.join(REPO_ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("```cpp\n") + len("```cpp\n")
    return text[start:text.index("```", start)]


def readme_ompt_program():
    """The README's OMPT program (the block after the line that names ompt.libomp)."""
    with open(os.path.join(REPO_ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    at = text.index("<!-- ompt.libomp builds this program")
    start = text.index("```c++\n", at) + len("```c++\n")
    return text[start:text.index("```", start)]


def source_for(headers):
    return "".join("#include <%s>\n" % h for h in headers) + "int main() { return 0; }\n"


def time_compile(cxx, flags, headers, runs, workdir):
    """The fastest of `runs` compiles of a TU including `headers`, in seconds."""
    src = os.path.join(workdir, "tu.cpp")
    with open(src, "w", encoding="utf-8") as f:
        f.write(source_for(headers))
    out = os.path.join(workdir, "tu.o")
    cmd = [cxx, "-std=c++17", "-I", INCLUDE] + flags + [src, "-o", out]
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["(no message)"])[0]
            raise RuntimeError("%s failed to compile %s: %s" % (cxx, ", ".join(headers), first))
        best = elapsed if best is None else min(best, elapsed)
    return best


def run_measured(cmd, cwd=None, env=None):
    """Runs `cmd`; returns (returncode, stderr, CPU s of the process and its
    children as the kernel accounted them, peak resident MB of the largest)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports the child together with the children it waited for (the
    # driver and cc1plus): the sum of their CPU times, the largest peak.
    cpu = usage.ru_utime + usage.ru_stime
    peak_kb = usage.ru_maxrss
    return p.returncode, err, cpu, peak_kb / 1024.0


def cpu_compile(cxx, flags, source, runs, workdir, with_memory=False):
    """The least compiler CPU time (user + sys, s) of `runs` compiles of `source`:
    the children's usage (the driver and cc1plus) as the kernel accounted it.
    With `with_memory`, (CPU s, peak MB) of that fastest run."""
    src = os.path.join(workdir, "program.cpp")
    with open(src, "w", encoding="utf-8") as f:
        f.write(source)
    cmd = [cxx, "-std=c++17", "-I", INCLUDE] + flags + ["-c", src, "-o", os.path.join(workdir, "program.o")]
    return cpu_compile_cmd(cmd, runs, "a program", with_memory)


def cpu_compile_cmd(cmd, runs, what, with_memory=False):
    best = None
    for _ in range(runs):
        code, err, cpu, peak = run_measured(cmd)
        if code != 0:
            first = (err.strip().splitlines() or ["(no message)"])[0]
            raise RuntimeError("%s failed to compile %s: %s" % (cmd[0], what, first))
        if best is None or cpu < best[0]:
            best = (cpu, peak)
    return best if with_memory else best[0]


def program_rows(cxx, runs, workdir, quick):
    """The three programs at -O1 in both forms (the compiled form only with --quick)."""
    base = cpu_compile(cxx, ["-O1"], source_for(BASELINE), runs, workdir)
    programs = [("readme", "README.md's first program (Using it)", readme_program()),
                ("one_measure", "one fs::measure and a join_handle", ONE_MEASURE),
                ("annotate_only", "a file that only annotates (annotate.hpp)", ANNOTATE_ONLY)]
    forms = [("compiled", ["-O1", "-DFORKSCALE_COMPILED_LIB"])]
    if not quick:
        forms.insert(0, ("header_only", ["-O1"]))
    rows = []
    for key, what, source in programs:
        row = {"program": key, "what": what}
        for form, flags in forms:
            t, mb = cpu_compile(cxx, flags, source, runs, workdir, with_memory=True)
            row[form] = {"cpu_s": round(t, 3), "ratio": round(t / base, 2), "peak_mb": round(mb, 1)}
            if key == "readme":
                row[form]["goal_ratio"] = PROGRAM_GOALS[form]
                row[form]["goal_met"] = t / base <= PROGRAM_GOALS[form]
                if form in PROGRAM_MEMORY_GOALS_MB:
                    row[form]["goal_mb"] = PROGRAM_MEMORY_GOALS_MB[form]
                    row[form]["goal_mb_met"] = mb <= PROGRAM_MEMORY_GOALS_MB[form]
        rows.append(row)
    return base, rows


def library_rows(cxx, runs, workdir):
    """Each translation unit of the compiled library (src/lib/*.cpp) and the
    one-file build (src/forkscale.cpp) at -O2, as CMake's Release build compiles
    them: compiler CPU s and peak MB, the least CPU of `runs`."""
    rows = []
    sources = sorted(f for f in os.listdir(os.path.join(REPO_ROOT, "src", "lib")) if f.endswith(".cpp"))
    for name in ["lib/" + f for f in sources] + ["forkscale.cpp"]:
        src = os.path.join(REPO_ROOT, "src", name)
        cmd = [cxx, "-std=c++17", "-O2", "-DNDEBUG", "-DFORKSCALE_COMPILED_LIB", "-I", INCLUDE, "-c", src, "-o",
               os.path.join(workdir, "lib.o")]
        t, mb = cpu_compile_cmd(cmd, runs, "src/" + name, with_memory=True)
        row = {"source": "src/" + name, "cpu_s": round(t, 2), "peak_mb": round(mb, 1)}
        if name.startswith("lib/"):
            row.update({"goal_s": LIBRARY_GOAL_S, "goal_mb": LIBRARY_GOAL_MB,
                        "goal_met": t <= LIBRARY_GOAL_S and mb <= LIBRARY_GOAL_MB})
        else:
            row["what"] = "every part in one file, for builds without CMake (CMake builds src/lib/*.cpp)"
        rows.append(row)
    return rows


def trace_check(cxx, workdir):
    """The README's first program built header-only (-O1) and run with
    FORKSCALE_TRACE: its exit status, whether it wrote the trace, and the lines
    it printed about FORKSCALE_TRACE."""
    src = os.path.join(workdir, "readme.cpp")
    with open(src, "w", encoding="utf-8") as f:
        f.write(readme_program())
    exe = os.path.join(workdir, "readme")
    r = subprocess.run([cxx, "-std=c++17", "-O1", "-I", INCLUDE, src, "-o", exe, "-pthread"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("the README program failed to build: %s" % (r.stderr.strip().splitlines() or ["?"])[0])
    run_dir = os.path.join(workdir, "run")
    os.makedirs(run_dir, exist_ok=True)
    env = dict(os.environ, FORKSCALE_TRACE="t.json")
    r = subprocess.run([exe], cwd=run_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = [l for l in r.stderr.splitlines() if l.startswith("forkscale: FORKSCALE_TRACE")]
    return {"program": "readme", "form": "header_only", "environment": "FORKSCALE_TRACE=t.json",
            "exit_status": r.returncode, "trace_written": os.path.exists(os.path.join(run_dir, "t.json")),
            "lines": lines[:2], "line_count": len(lines),
            "saved_report": sorted(f for f in os.listdir(run_dir) if f.endswith(".report.json"))}


def ompt_row(clang, runs, workdir, quick):
    """The README's OMPT program at -O1 with clang++ -fopenmp=libomp: in the
    compiled form whose library holds the OMPT tool (FORKSCALE_COMPILED_OMPT, as
    CMake defines it when forkscale::compiled is built with clang), and without
    --quick also header-only and in the compiled form without the tool in the
    library; ratios to the baseline file compiled the same way."""
    omp = ["-O1", "-fopenmp=libomp"]
    probe = os.path.join(workdir, "probe.cpp")
    with open(probe, "w", encoding="utf-8") as f:
        f.write("#include <omp-tools.h>\nint main() { return 0; }\n")
    try:
        r = subprocess.run([clang, "-fsyntax-only"] + omp + [probe], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return {"skipped": "%s: %s" % (clang, e)}
    if r.returncode != 0:
        return {"skipped": "%s -fopenmp=libomp has no <omp-tools.h> (apt-get install clang libomp-dev)" % clang}
    base = cpu_compile(clang, omp, source_for(BASELINE), runs, workdir)
    source = readme_ompt_program()
    forms = [("compiled", ["-DFORKSCALE_COMPILED_LIB", "-DFORKSCALE_COMPILED_OMPT"])]
    if not quick:
        forms += [("compiled_tool_in_file", ["-DFORKSCALE_COMPILED_LIB"]), ("header_only", [])]
    row = {"program": "readme_ompt", "what": "README.md's OMPT program", "compiler": compiler_version(clang),
           "baseline_cpu_s": round(base, 3)}
    for form, defines in forms:
        t = cpu_compile(clang, omp + defines, source, runs, workdir)
        row[form] = {"cpu_s": round(t, 3), "ratio": round(t / base, 2)}
    row["compiled"]["goal_ratio"] = OMPT_GOAL
    row["compiled"]["goal_met"] = row["compiled"]["ratio"] <= OMPT_GOAL
    return row


def compiler_version(cxx):
    try:
        r = subprocess.run([cxx, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return (r.stdout.splitlines() or ["?"])[0]
    except OSError:
        return "?"


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".compile_time.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv):
    ap = argparse.ArgumentParser(description="forkscale compile-time benchmark")
    ap.add_argument("--quick", action="store_true", help="one run; the baseline and the umbrella only")
    ap.add_argument("--runs", type=int, default=5, help="compiles per case; the fastest counts (default 5)")
    ap.add_argument("--compiler", default=os.environ.get("CXX", "g++"), help="the C++ compiler (default $CXX or g++)")
    ap.add_argument("--ompt-compiler", default="clang++",
                    help="the clang++ for the OMPT program row (default clang++; skipped when it has no OMPT)")
    ap.add_argument("--out", default=os.path.join(REPO_ROOT, "bench", "results", "compile_time.json"))
    args = ap.parse_args(argv)
    if args.runs < 1 or args.runs > 100:
        print("bench_compile: --runs takes a number from 1 to 100", file=sys.stderr)
        return 2
    runs = 1 if args.quick else args.runs
    headers = [] if args.quick else HEADERS

    started = time.time()
    with tempfile.TemporaryDirectory(prefix="forkscale-compile-") as work:
        try:
            parse = ["-fsyntax-only"]
            base = time_compile(args.compiler, parse, BASELINE, runs, work)
            umbrella = time_compile(args.compiler, parse, [UMBRELLA], runs, work)
            annotate = time_compile(args.compiler, parse, [ANNOTATE], runs, work)
            rows = []
            for h in headers:
                t = time_compile(args.compiler, parse, [h], runs, work)
                rows.append({"header": h, "parse_s": round(t, 4), "ratio": round(t / base, 3)})
            full = ["-O2", "-c"]
            base_full = time_compile(args.compiler, full, BASELINE, runs, work)
            # The umbrella's full header-only compile is the longest case (about 15 s):
            # left out of --quick, the CI smoke test, which checks shapes only.
            umbrella_full = None if args.quick else time_compile(args.compiler, full, [UMBRELLA], runs, work)
            annotate_full = time_compile(args.compiler, full, [ANNOTATE], runs, work)
            umbrella_compiled = time_compile(args.compiler, parse + ["-DFORKSCALE_COMPILED_LIB"], [UMBRELLA],
                                             runs, work)
            program_base, programs = program_rows(args.compiler, runs, work, args.quick)
            ompt = ompt_row(args.ompt_compiler, runs, work, args.quick)
            library = None if args.quick else library_rows(args.compiler, runs, work)
            trace = None if args.quick else trace_check(args.compiler, work)
        except (RuntimeError, OSError) as e:
            print("bench_compile: %s" % e, file=sys.stderr)
            return 1

    ratio = umbrella / base
    a_ratio = annotate / base
    print("forkscale compile time (%s; fastest of %d run(s) each)" % (compiler_version(args.compiler), runs))
    print("  %-36s %9s %7s" % ("translation unit includes", "parse s", "ratio"))
    print("  %-36s %9.3f %7.2f" % ("baseline: " + ", ".join("<%s>" % h for h in BASELINE[:2]) + ", ...", base, 1.0))
    print("  %-36s %9.3f %7.2f   goal <= %.1f: %s" % (
        "<" + ANNOTATE + ">", annotate, a_ratio, GOAL_RATIO, "met" if a_ratio <= GOAL_RATIO else "MISSED"))
    print("  %-36s %9.3f %7.2f   goal <= %.1f: %s" % (
        "<" + UMBRELLA + ">", umbrella, ratio, GOAL_RATIO, "met" if ratio <= GOAL_RATIO else "MISSED"))
    for r in rows:
        print("  %-36s %9.3f %7.2f" % ("<" + r["header"] + ">", r["parse_s"], r["ratio"]))
    print("  full compile at -O2: baseline %.3f s, annotate.hpp %.3f s (%.2fx), umbrella %s" % (
        base_full, annotate_full, annotate_full / base_full,
        "not compiled (--quick)" if umbrella_full is None else "%.3f s (%.2fx)" % (umbrella_full, umbrella_full / base_full)))
    c_ratio = umbrella_compiled / base
    print("  %-36s %9.3f %7.2f   goal <= %.1f: %s" % (
        "<" + UMBRELLA + "> compiled form", umbrella_compiled, c_ratio, GOAL_RATIO,
        "met" if c_ratio <= GOAL_RATIO else "MISSED"))
    print("  programs at -O1, compiler CPU s (ratio to the baseline file's %.3f s):" % program_base)
    for r in programs:
        cells = []
        for form in ("header_only", "compiled"):
            if form in r:
                c = r[form]
                goal = ""
                if "goal_ratio" in c:
                    goal = " goal <= %.0f: %s" % (c["goal_ratio"], "met" if c["goal_met"] else "MISSED")
                if "goal_mb" in c:
                    goal += "; %.0f MB, goal <= %.0f: %s" % (c["peak_mb"], c["goal_mb"],
                                                            "met" if c["goal_mb_met"] else "MISSED")
                cells.append("%s %.2f s (%.2fx%s)" % (form.replace("_", "-"), c["cpu_s"], c["ratio"], goal))
        print("    %-14s %s" % (r["program"], "; ".join(cells)))
    if library is not None:
        print("  the compiled library at -O2, compiler CPU s and peak MB (goal <= %.0f s, <= %.0f MB per file):"
              % (LIBRARY_GOAL_S, LIBRARY_GOAL_MB))
        for r in library:
            verdict = ("met" if r["goal_met"] else "MISSED") if "goal_met" in r else "(one-file build, no goal)"
            print("    %-26s %7.2f s %7.0f MB   %s" % (r["source"], r["cpu_s"], r["peak_mb"], verdict))
    if trace is not None:
        print("  README program, header-only, FORKSCALE_TRACE=t.json: exit %d, trace %s, %d line(s)%s" % (
            trace["exit_status"], "written" if trace["trace_written"] else "not written", trace["line_count"],
            (": " + trace["lines"][0]) if trace["lines"] else ""))

    if "skipped" in ompt:
        print("  OpenMP program with forkscale/ompt.hpp: skipped (%s)" % ompt["skipped"])
    else:
        cells = []
        for form in ("compiled", "compiled_tool_in_file", "header_only"):
            if form in ompt:
                c = ompt[form]
                goal = ""
                if "goal_ratio" in c:
                    goal = " goal <= %.0f: %s" % (c["goal_ratio"], "met" if c["goal_met"] else "MISSED")
                cells.append("%s %.2f s (%.2fx%s)" % (form.replace("_", "-"), c["cpu_s"], c["ratio"], goal))
        print("  OpenMP program (README's OMPT program) with %s -fopenmp=libomp -O1, ratio to the baseline's %.3f s:"
              % (args.ompt_compiler, ompt["baseline_cpu_s"]))
        print("    %-14s %s" % ("readme_ompt", "; ".join(cells)))

    doc = {
        "benchmark": "forkscale compile time",
        "mode": "quick" if args.quick else "full",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"platform": platform.platform(), "cores": os.cpu_count()},
        "compiler": compiler_version(args.compiler),
        "runs": runs,
        "method": "each case a TU with an empty main() including the header(s); "
                  "`CXX -std=c++17 -fsyntax-only`; the fastest of `runs` compiles; "
                  "ratio = case / baseline",
        "units": {"parse_s": "s", "full_s": "s"},
        "baseline": {"includes": BASELINE, "parse_s": round(base, 4), "full_s": round(base_full, 4)},
        "annotate": {"header": ANNOTATE, "parse_s": round(annotate, 4), "ratio": round(a_ratio, 3),
                     "full_s": round(annotate_full, 4), "full_ratio": round(annotate_full / base_full, 3),
                     "goal_ratio": GOAL_RATIO, "goal_met": a_ratio <= GOAL_RATIO},
        "umbrella": {"header": UMBRELLA, "parse_s": round(umbrella, 4), "ratio": round(ratio, 3),
                     "full_s": None if umbrella_full is None else round(umbrella_full, 4),
                     "full_ratio": None if umbrella_full is None else round(umbrella_full / base_full, 3),
                     "goal_ratio": GOAL_RATIO, "goal_met": ratio <= GOAL_RATIO},
        "umbrella_compiled": {"header": UMBRELLA, "define": "FORKSCALE_COMPILED_LIB",
                              "parse_s": round(umbrella_compiled, 4), "ratio": round(c_ratio, 3),
                              "goal_ratio": GOAL_RATIO, "goal_met": c_ratio <= GOAL_RATIO},
        "programs": {"method": "`CXX -std=c++17 -O1 -c`, the least compiler CPU time (user + sys) of `runs`; "
                               "ratio = program / the baseline file compiled the same way",
                     "baseline_cpu_s": round(program_base, 3), "rows": programs},
        "ompt_program": ompt,
        "library": None if library is None else {
            "method": "`CXX -std=c++17 -O2 -DNDEBUG -DFORKSCALE_COMPILED_LIB -c`, the least compiler CPU time "
                      "(user + sys) of `runs` and that run's peak resident memory (MB)",
            "goal_s": LIBRARY_GOAL_S, "goal_mb": LIBRARY_GOAL_MB, "rows": library},
        "trace_without_views": trace,
        "headers": rows,
        "suite_seconds": round(time.time() - started, 1),
    }
    write_atomically(args.out, json.dumps(doc, indent=2) + "\n")
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
