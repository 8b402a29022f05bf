#!/usr/bin/env bash
# Runs the checks of .clang-tidy over the tests, examples and tools (the headers
# are checked through them), with the compile commands of a configured build.
#   tools/tidy.sh [BUILD_DIR]        default build/default; exit 1 on any finding
#   tools/tidy.sh BUILD_DIR FILE...  only these files
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CLANG_TIDY="${CLANG_TIDY:-clang-tidy}"
build="${1:-build/default}"
shift || true
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "tidy: $build/compile_commands.json is missing: configure with cmake --preset default first" >&2
  exit 2
fi
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files 'tests/test_*.cpp' 'examples/*.cpp' 'tools/*.cpp')
fi
status=0
for f in "${files[@]}"; do
  if ! "$CLANG_TIDY" -p "$build" --quiet --extra-arg=-std=c++17 "$f" 2>/dev/null; then
    echo "tidy: findings in $f" >&2
    status=1
  fi
done
[[ $status == 0 ]] && echo "tidy: ${#files[@]} files clean"
exit $status
