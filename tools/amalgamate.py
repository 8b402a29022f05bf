#!/usr/bin/env python3
"""Generate the single headers in single_include/forkscale/ from include/forkscale/.

single_include/forkscale/forkscale.hpp is the umbrella header with every quoted
#include ("detail/engine/events.hpp", "../config.hpp") inlined recursively, in
the order the compiler would first see it. The opt-in headers get single
versions of their own at the same paths (adapters/tbb.hpp, integrations/gtest.hpp,
study/html.hpp, read_report.hpp, ...), so that code written against the split
headers compiles unchanged with -Isingle_include; each of them includes the
single forkscale.hpp instead of a copy of it, except annotate.hpp, which must
stay light and inlines the few files it needs. Each inlined file is wrapped in
an include guard of its own (FORKSCALE_SINGLE_<PATH>), so any set of single
headers can be included together; detail/macro_scope.hpp and macro_unscope.hpp
are inlined wherever they stand (they are meant to run more than once).
Angle-bracket includes (<vector>, <tbb/...>) are kept as they are. The output
depends on the headers and the project version only (no dates, no absolute
paths), so it can be checked in and diffed.

  python3 tools/amalgamate.py           # (re)write the single headers
  python3 tools/amalgamate.py --check   # exit 1 if one is missing or out of date

Paths are resolved from this script's location, so it runs from any directory.
"""

import argparse
import os
import re
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ENTRY = "include/forkscale/forkscale.hpp"
OUTPUT = "single_include/forkscale/forkscale.hpp"
# The opt-in headers that get single versions, relative to include/forkscale/.
OPT_IN = [
    "read_report.hpp",
    "adapters/std_thread.hpp",
    "adapters/tbb.hpp",
    "adapters/openmp.hpp",
    "adapters/ompt.hpp",
    "adapters/serial.hpp",
    "integrations/assertions.hpp",
    "integrations/gtest.hpp",
    "integrations/doctest.hpp",
    "integrations/benchmark.hpp",
    "integrations/nlohmann.hpp",
    "study/study.hpp",
    "study/plot.hpp",
    "study/html.hpp",
    "views.hpp",
]
# Headers whose single versions stand alone: they inline what they include (under
# the same guards as the umbrella, so they combine with it) instead of including
# the single umbrella, which would undo what they are for.
STANDALONE = ["annotate.hpp"]
# Inlined wherever they stand, with no guard (see the module's docstring).
REPEATABLE = {"detail/macro_scope.hpp", "detail/macro_unscope.hpp"}

QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\b")
PROJECT_VERSION = re.compile(
    r"\bproject\s*\(\s*forkscale\b[^)]*?\bVERSION\s+([0-9]+(?:\.[0-9]+){0,3})", re.S
)
VERSION_MACRO = re.compile(
    r"^\s*#\s*define\s+FORKSCALE_VERSION_(MAJOR|MINOR|PATCH)\s+([0-9]+)\b", re.M
)


class AmalgamationError(Exception):
    pass


def rel(root, path):
    """Repository-relative path with forward slashes (stable on every OS)."""
    return os.path.relpath(path, root).replace(os.sep, "/")


def read_text(path):
    with open(path, "r", encoding="utf-8", newline=None) as f:
        return f.read()


def project_version(root):
    cmakelists = os.path.join(root, "CMakeLists.txt")
    match = PROJECT_VERSION.search(read_text(cmakelists))
    if not match:
        raise AmalgamationError(f"{rel(root, cmakelists)}: no 'project(forkscale VERSION x.y.z ...)'")
    return match.group(1)


def guard_name(name):
    """FORKSCALE_SINGLE_<path> for include/forkscale/<path>."""
    path = name[len("include/forkscale/"):] if name.startswith("include/forkscale/") else name
    return "FORKSCALE_SINGLE_" + re.sub(r"[^A-Za-z0-9]", "_", path).upper()


CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")


def emitted_under(seen, real, conditions):
    """Whether `real` was inlined where `conditions` (the #if lines open around
    this point, outermost first) already held: unconditionally, or under a prefix
    of them."""
    return any(conditions[: len(done)] == done for done in seen.get(real, ()))


def inline(root, path, seen, out, umbrella=None, conditions=()):
    """Append `path` to `out`, inlining its quoted includes depth-first. A file
    inlined inside an #if (FORKSCALE_ENABLE, FORKSCALE_DETAIL_DEFINITIONS, ...)
    is inlined again where it is included under other conditions, so that every
    configuration of the single header has it; its include guard keeps one copy
    in effect. A file of `umbrella` (the real paths the umbrella header inlines)
    is not inlined again: the first one met becomes an #include of the single
    umbrella header."""
    real = os.path.realpath(path)
    include_root = os.path.realpath(os.path.join(root, "include"))
    name = rel(root, real)
    repeatable = name[len("include/forkscale/"):] in REPEATABLE
    if emitted_under(seen, real, conditions) and not repeatable:
        return
    if umbrella and real in umbrella["files"] and not repeatable:
        seen.setdefault(real, []).append(())
        if not umbrella["included"]:
            umbrella["included"] = True
            out.append(f'#include "{umbrella["path"]}"\n')
        return
    seen.setdefault(real, []).append(conditions)
    out.append(f"// begin {name}\n")
    if not repeatable:
        out.append(f"#ifndef {guard_name(name)}\n#define {guard_name(name)}\n")
    local = []  # the #if lines open in this file
    for lineno, line in enumerate(read_text(real).splitlines(keepends=True), 1):
        if PRAGMA_ONCE.match(line):
            continue
        cond = CONDITIONAL.match(line)
        if cond:
            kind = cond.group(1)
            if kind in ("if", "ifdef", "ifndef"):
                local.append(line.strip())
            elif kind in ("elif", "else") and local:
                local[-1] = local[-1] + " | " + line.strip()
            elif kind == "endif" and local:
                local.pop()
        match = QUOTED_INCLUDE.match(line)
        if not match:
            out.append(line if line.endswith("\n") else line + "\n")
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(real), match.group(1)))
        if not os.path.isfile(target):
            raise AmalgamationError(
                f'{name}:{lineno}: #include "{match.group(1)}" not found '
                f"(quoted includes must be paths relative to the including header)"
            )
        if os.path.commonpath([include_root, os.path.realpath(target)]) != include_root:
            raise AmalgamationError(
                f'{name}:{lineno}: #include "{match.group(1)}" leaves include/; '
                f"use <...> for headers of other libraries"
            )
        inline(root, target, seen, out, umbrella, conditions + tuple(local))
    if not repeatable:
        out.append(f"#endif  // {guard_name(name)}\n")
    out.append(f"// end {name}\n")


def check_version_macros(root, version, text):
    """If the headers define FORKSCALE_VERSION_MAJOR/MINOR/PATCH, they must
    agree with project(VERSION) in CMakeLists.txt -- one version, not two."""
    macros = dict(VERSION_MACRO.findall(text))
    if not macros:
        return
    parts = (version.split(".") + ["0", "0", "0"])[:3]
    expected = dict(zip(("MAJOR", "MINOR", "PATCH"), parts))
    for key, value in sorted(macros.items()):
        if int(value) != int(expected[key]):
            raise AmalgamationError(
                f"FORKSCALE_VERSION_{key} is {value} in the headers but CMakeLists.txt "
                f"says version {version}"
            )


def umbrella_files(root):
    """The real paths of the files the umbrella header inlines unconditionally."""
    seen = {}
    inline(root, os.path.join(root, ENTRY), seen, [])
    # Only what the umbrella has in every configuration: a file it inlines under
    # a condition alone is inlined by the opt-in header too (its guard keeps one).
    return {real for real, conditions in seen.items() if () in conditions}


def amalgamate(root, entry_rel=ENTRY, umbrella=None):
    """The text of the single header for include/forkscale/<entry>."""
    entry = os.path.join(root, entry_rel)
    if not os.path.isfile(entry):
        raise AmalgamationError(f"{entry_rel} does not exist")
    version = project_version(root)
    body = []
    inline(root, entry, {}, body, umbrella)
    body_text = "".join(body)
    check_version_macros(root, version, body_text)
    what = "include/forkscale" if entry_rel == ENTRY else entry_rel
    banner = (
        f"// forkscale single header \u2014 GENERATED by tools/amalgamate.py from {what}; do not edit.\n"
        f"// forkscale version {version}. Regenerate with: python3 tools/amalgamate.py\n"
        "#pragma once\n"
        "// A single header is always the header-only form (config.hpp): it has every\n"
        "// definition, whatever FORKSCALE_COMPILED_LIB says.\n"
        "#ifndef FORKSCALE_DETAIL_SINGLE_HEADER\n"
        "#define FORKSCALE_DETAIL_SINGLE_HEADER 1\n"
        "#endif\n"
        "\n"
    )
    return banner + body_text


def outputs(root):
    """(output path relative to root, text) for every single header."""
    result = [(OUTPUT, amalgamate(root))]
    files = umbrella_files(root)
    for header in OPT_IN:
        # An opt-in header includes the single umbrella rather than a copy of it.
        up = "../" * header.count("/")
        umbrella = {"files": files, "path": up + "forkscale.hpp", "included": False}
        result.append(("single_include/forkscale/" + header, amalgamate(root, "include/forkscale/" + header, umbrella)))
    for header in STANDALONE:
        result.append(("single_include/forkscale/" + header, amalgamate(root, "include/forkscale/" + header)))
    result.extend(forwarders(root))
    return result


def forwarders(root):
    """The flat headers that only include one opt-in header (std_thread.hpp,
    gtest.hpp, ompt.hpp, ...), copied beside the single headers, so that the
    same #include lines compile with -Isingle_include."""
    single = set(OPT_IN) | set(STANDALONE)
    base = os.path.join(root, "include", "forkscale")
    result = []
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name)
        if not name.endswith(".hpp") or name in single or name == os.path.basename(ENTRY) or not os.path.isfile(path):
            continue
        text = read_text(path)
        targets = [m.group(1) for m in map(QUOTED_INCLUDE.match, text.splitlines()) if m]
        if len(targets) != 1 or targets[0] not in single:
            continue
        banner = (
            f"// forkscale single header \u2014 GENERATED by tools/amalgamate.py from include/forkscale/{name}; "
            "do not edit.\n"
        )
        result.append(("single_include/forkscale/" + name, banner + text))
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Generate (or with --check, verify) " + OUTPUT + " from " + ENTRY + ".",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 with a one-line message if the single header is missing or out of date",
    )
    parser.add_argument(
        "--root",
        default=REPO_ROOT,
        help="repository root (default: the parent of this script's directory)",
    )
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    output = os.path.join(root, OUTPUT)

    try:
        generated = outputs(root)
    except (AmalgamationError, OSError) as e:
        print(f"amalgamate.py: error: {e}", file=sys.stderr)
        return 2

    if args.check:
        for out_rel, text in generated:
            output = os.path.join(root, out_rel)
            if not os.path.isfile(output):
                print(f"{out_rel} is missing; run: python3 tools/amalgamate.py")
                return 1
            with open(output, "r", encoding="utf-8", newline="") as f:
                if f.read() != text:
                    print(f"{out_rel} is out of date with include/forkscale; run: python3 tools/amalgamate.py")
                    return 1
        print(f"{len(generated)} single headers are up to date")
        return 0

    for out_rel, text in generated:
        output = os.path.join(root, out_rel)
        os.makedirs(os.path.dirname(output), exist_ok=True)
        # Write atomically so an interrupted run never leaves half a header behind.
        tmp = output + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, output)
        print(f"wrote {out_rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
