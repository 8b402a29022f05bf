#!/usr/bin/env python3
"""Check the size limits of the house (CONTRIBUTING.md, "Size limits").

  python3 tools/check_layout.py            # every limit, whole tree; exit 1 on a breach
  python3 tools/check_layout.py --list     # also list the longest functions

Limits:
  - the folders of include/forkscale/detail/ include each other one way only:
    no folder reaches itself through its includes, and detail/util/ includes
    no other folder of detail/ (docs/architecture.md, "The layers");
  - a header under include/ has at most 600 lines;
  - a function (or a lambda, or a test body) in include/, tests/, examples/,
    bench/ and tools/ has at most 80 lines between its braces;
  - where a definition goes (docs/architecture.md, "Where a definition goes"):
    every compiled definition under include/ sits behind
    #if FORKSCALE_DETAIL_DEFINES(part), part one of the library's files
    src/lib/<part>.cpp, and that file's translation unit includes the header
    (checked with the C++ preprocessor, $CXX or c++: a header the library
    misses would leave its functions undefined in forkscale::compiled).

Functions are found by a scanner, not a compiler: comments, string and
character literals and preprocessor lines are blanked, then every '{' whose
preceding text ends in ')' (optionally followed by const, noexcept, override,
mutable, a trailing return type or a constructor's initializer list) opens a
function body. Control statements (if, for, while, switch, catch) are not
functions.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER_LIMIT = 600
FUNCTION_LIMIT = 80
SOURCE_DIRS = ["include", "tests", "examples", "bench", "tools"]
EXTENSIONS = (".hpp", ".cpp", ".h")


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces
    (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c == "R" and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                close = ")" + m.group(1) + '"'
                end = text.find(close, i + m.end())
                end = n if end < 0 else end + len(close)
                out.append(re.sub(r"[^\n]", " ", text[i:end]))
                i = end
                continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
            continue
        if c == "\n":
            line_start = True
        elif not c.isspace():
            line_start = False
        out.append(c)
        i += 1
    return "".join(out)


def functions(text):
    """(name, first line, body lines) of every function body in `text`."""
    code = blank(text)
    found = []
    stack = []  # (is_function, open offset, inside parentheses)
    last_stop = 0
    parens = 0
    for i, c in enumerate(code):
        if c == "(":
            parens += 1
        elif c == ")":
            parens = max(0, parens - 1)
        elif c == "{":
            if parens:
                stack.append((False, i, True))  # a braced initializer inside a call or a default argument
                continue
            header = code[last_stop:i]
            stack.append((is_function_header(header), i, False, header))
            last_stop = i + 1
        elif c == "}":
            if stack:
                entry = stack.pop()
                if entry[2]:
                    continue
                if entry[0]:
                    first = code.count("\n", 0, entry[1]) + 1
                    last = code.count("\n", 0, i) + 1
                    found.append((name_of(entry[3]), first, max(0, last - first - 1)))
            last_stop = i + 1
        elif c == ";" and not parens:
            last_stop = i + 1
    return found


def is_function_header(header):
    h = " ".join(header.split())
    # strip a constructor's initializer list: ") : a(x), b(y)"
    h2 = re.sub(r"\)\s*:\s*[\w:<>,\s]+\([^;{}]*\)\s*$", ")", h)
    tail = re.sub(r"(\s*(const|noexcept(\([^)]*\))?|override|final|mutable|&&|&|->\s*[\w:<>,\s\*&]+))*\s*$", "", h2)
    if not tail.endswith(")"):
        return False
    words = re.findall(r"\b\w+\b", tail.split("(")[0])
    if words and words[-1] in ("if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"):
        return False
    if re.search(r"(^|[^\w])(if|for|while|switch|catch)\s*\($", tail.split("(")[0] + "("):
        return False
    return True


def name_of(header):
    h = " ".join(header.split())
    m = re.search(r"([A-Za-z_~][\w:~]*)\s*\(", h)
    return m.group(1) if m else "lambda"


DETAIL = os.path.join("include", "forkscale", "detail")
FOLDER_INCLUDE = re.compile(r'^\s*#\s*include\s+"\.\./([A-Za-z0-9_]+)/([^"]+)"', re.M)


def folder_includes(root=REPO_ROOT):
    """{folder: {other folder: first 'file includes path' that makes the arrow}}
    for the folders of include/forkscale/detail/."""
    base = os.path.join(root, DETAIL)
    edges = {}
    for folder in sorted(os.listdir(base)):
        d = os.path.join(base, folder)
        if not os.path.isdir(d):
            continue
        edges.setdefault(folder, {})
        for f in sorted(os.listdir(d)):
            if not f.endswith(EXTENSIONS):
                continue
            text = open(os.path.join(d, f), encoding="utf-8").read()
            for other, rest in FOLDER_INCLUDE.findall(text):
                if other != folder:
                    edges[folder].setdefault(other, f"detail/{folder}/{f} includes ../{other}/{rest}")
    return edges


def layering_breaches(edges):
    """Circles among the folders (each once), and util/ including another folder."""
    breaches = []
    for other, why in sorted(edges.get("util", {}).items()):
        breaches.append(f"{why}: detail/util/ includes no other folder of detail/")
    seen_circles = set()
    for start in sorted(edges):
        # Depth-first search for a path back to `start`.
        stack = [(start, [start])]
        visited = set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, {})):
                if nxt == start:
                    circle = path + [start]
                    key = frozenset(circle)
                    if key not in seen_circles:
                        seen_circles.add(key)
                        hops = "; ".join(edges[a][b] for a, b in zip(circle, circle[1:]))
                        breaches.append(f"detail/ folders include each other: {' -> '.join(circle)} ({hops})")
                elif nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return breaches


DEFINES = re.compile(r"^\s*#\s*if\s+FORKSCALE_DETAIL_DEFINES\((\w+)\)", re.M)
RAW_DEFINITIONS = re.compile(r"^\s*#\s*(?:el)?if\b.*\bFORKSCALE_DETAIL_DEFINITIONS\b", re.M)
# Where FORKSCALE_DETAIL_DEFINITIONS itself may be tested: config.hpp defines the
# parts from it; the OMPT tool picks the HTML page's declarations or definitions.
RAW_DEFINITIONS_ALLOWED = {"include/forkscale/config.hpp", "include/forkscale/detail/ompt/tool.hpp"}
LINE_MARKER = re.compile(r'^# \d+ "([^"]+)"', re.M)


def definition_breaches(root=REPO_ROOT):
    """Every part named by a header has its library file, and that file's
    translation unit includes the header."""
    breaches = []
    lib = os.path.join(root, "src", "lib")
    parts = sorted(f[:-4] for f in os.listdir(lib) if f.endswith(".cpp")) if os.path.isdir(lib) else []
    gated = {}  # part -> headers
    for dirpath, _, files in os.walk(os.path.join(root, "include")):
        for f in sorted(files):
            if not f.endswith(".hpp"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8").read()
            if rel not in RAW_DEFINITIONS_ALLOWED and RAW_DEFINITIONS.search(text):
                breaches.append(f"{rel}: tests FORKSCALE_DETAIL_DEFINITIONS; a definition goes behind "
                                "#if FORKSCALE_DETAIL_DEFINES(part)")
            for part in DEFINES.findall(text):
                if part not in parts:
                    breaches.append(f"{rel}: FORKSCALE_DETAIL_DEFINES({part}): no src/lib/{part}.cpp")
                else:
                    gated.setdefault(part, set()).add(os.path.realpath(path))
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        print("check_layout: no C++ compiler found: which library file includes which header is not checked")
        return breaches
    for part in parts:
        src = os.path.join(lib, part + ".cpp")
        r = subprocess.run([cxx, "-std=c++17", "-E", "-DFORKSCALE_COMPILED_LIB", "-I", os.path.join(root, "include"),
                            src], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["(no message)"])[0]
            breaches.append(f"src/lib/{part}.cpp: the preprocessor failed: {first}")
            continue
        seen = {os.path.realpath(p) for p in LINE_MARKER.findall(r.stdout)}
        for header in sorted(gated.get(part, ())):
            if header not in seen:
                breaches.append(f"{os.path.relpath(header, root)}: defines part '{part}', which src/lib/{part}.cpp "
                                "does not include: its functions would be missing from forkscale::compiled")
    return breaches


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", type=int, default=0, metavar="N", help="list the N longest functions")
    args = parser.parse_args()
    breaches = layering_breaches(folder_includes()) + definition_breaches()
    everything = []
    for d in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(REPO_ROOT, d)):
            for f in sorted(files):
                if not f.endswith(EXTENSIONS):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, REPO_ROOT)
                text = open(path, encoding="utf-8").read()
                lines = text.count("\n")
                if rel.startswith("include/") and lines > HEADER_LIMIT:
                    breaches.append(f"{rel}: {lines} lines (a header has at most {HEADER_LIMIT})")
                for name, first, body in functions(text):
                    everything.append((body, rel, first, name))
                    if body > FUNCTION_LIMIT:
                        breaches.append(f"{rel}:{first}: {name}: {body} lines (a function has at most {FUNCTION_LIMIT})")
    if args.list:
        for body, rel, first, name in sorted(everything, reverse=True)[: args.list]:
            print(f"{body:5d}  {rel}:{first}  {name}")
    for b in breaches:
        print(b)
    if breaches:
        print(f"check_layout: {len(breaches)} breach(es) of the layout's limits")
        return 1
    print("check_layout: detail/'s folders include one way; every header and function is within the size limits; "
          "every compiled definition is in its part's library file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
