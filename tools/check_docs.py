#!/usr/bin/env python3
"""Check that the documentation covers what the code offers.

  python3 tools/check_docs.py      # exit 1, one line per gap, when something is undocumented

Checks:
  - every statement macro of include/forkscale/guards.hpp and site.hpp
    (FORKSCALE_CALL_SITE, FORKSCALE_REGION, FORKSCALE_HERE, ...; not the
    FORKSCALE_DETAIL_ ones) is named in README.md or docs/*.md;
  - every format that `forkscale-report convert --to` accepts (its usage line in
    tools/forkscale_cli.hpp) is named in docs/study.md;
  - README.md's Integration section shows FetchContent (FetchContent_Declare and
    FetchContent_MakeAvailable);
  - docs/model.md says which coefficient the Cilkview paper's Fig. 6 used;
  - include/forkscale/report.hpp and docs/report-schema.md state the rule of the
    report types: stored data are members, values derived from them are
    functions;
  - every file and folder docs/architecture.md names (`a/b.hpp`, `c.py`,
    `detail/x/`) exists: a path with a folder from the repository's root, from
    include/forkscale/ or from docs/; a bare file name anywhere in the tree.
"""

import glob
import os
import re
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(rel):
    with open(os.path.join(REPO_ROOT, rel), encoding="utf-8") as f:
        return f.read()


def docs_text():
    parts = [read("README.md")]
    for path in sorted(glob.glob(os.path.join(REPO_ROOT, "docs", "*.md"))):
        with open(path, encoding="utf-8") as f:
            parts.append(f.read())
    return "\n".join(parts)


def words(text):
    """The text with runs of white space made one space: wrapped lines read as one."""
    return " ".join(text.split())


def public_macros():
    names = set()
    for rel in ("include/forkscale/guards.hpp", "include/forkscale/site.hpp"):
        for m in re.finditer(r"^\s*#\s*define\s+(FORKSCALE_[A-Z0-9_]+)", read(rel), re.M):
            if not m.group(1).startswith("FORKSCALE_DETAIL_"):
                names.add(m.group(1))
    return sorted(names)


def convert_formats():
    m = re.search(r"convert IN\.json \[--to ([a-z|-]+)\]", read("tools/forkscale_cli.hpp"))
    return m.group(1).split("|") if m else []


def section(text, heading):
    start = text.find(heading)
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


NAMED_PATH = re.compile(r"`([A-Za-z0-9_./-]+(?:\.(?:hpp|cpp|py|md|cmake|txt|json)|/))`")
LINKED_DOC = re.compile(r"\]\(([A-Za-z0-9_./-]+\.md)\)")


def missing_architecture_paths():
    """The paths docs/architecture.md names that do not exist."""
    text = read("docs/architecture.md")
    bases = ["", "include", "include/forkscale", "docs"]
    names = set()
    for folder in ("include", "src", "tools", "tests", "bench", "docs", "examples", "cmake", "single_include"):
        for _, _, files in os.walk(os.path.join(REPO_ROOT, folder)):
            names.update(files)
    names.update(os.listdir(REPO_ROOT))
    missing = []
    for path in NAMED_PATH.findall(text) + LINKED_DOC.findall(text):
        if "/" in path.rstrip("/"):
            found = any(os.path.exists(os.path.join(REPO_ROOT, b, path)) for b in bases)
        elif path.endswith("/"):
            found = any(os.path.isdir(os.path.join(REPO_ROOT, b, path)) for b in bases)
        else:
            found = path in names
        if not found and path not in missing:
            missing.append(path)
    return missing


def main():
    problems = []
    docs = docs_text()
    for name in public_macros():
        if not re.search(r"\b" + name + r"\b", docs):
            problems.append(f"{name} (guards.hpp / site.hpp) is named in neither README.md nor docs/")

    formats = convert_formats()
    if not formats:
        problems.append("tools/forkscale_cli.hpp: no 'convert IN.json [--to ...]' usage line found")
    study = read("docs/study.md")
    for fmt in formats:
        if not re.search(r"[`|\[ ]" + re.escape(fmt) + r"[`|\] ]", study):
            problems.append(f"docs/study.md does not name forkscale-report's --to {fmt}")

    integration = section(read("README.md"), "## Integration")
    for call in ("FetchContent_Declare", "FetchContent_MakeAvailable"):
        if call not in integration:
            problems.append(f"README.md's Integration section does not show {call}")

    model = words(read("docs/model.md"))
    if "Fig. 6" not in model or "1.7·(1 − 1/P)·burdened span" not in model:
        problems.append("docs/model.md does not say that Cilkview's Fig. 6 used 1.7·(1 − 1/P)·burdened span")

    rule = "stored data are members, values derived from them are functions"
    for rel in ("include/forkscale/report.hpp", "docs/report-schema.md"):
        text = words(re.sub(r"^\s*//", " ", read(rel), flags=re.M)).replace("*", "")
        if rule not in text:
            problems.append(f"{rel} does not state the rule '{rule}'")

    for path in missing_architecture_paths():
        problems.append(f"docs/architecture.md names {path}, which does not exist")

    for p in problems:
        print("check_docs: " + p)
    if not problems:
        print("check_docs: every macro, format and integration path is documented")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
