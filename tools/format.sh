#!/usr/bin/env bash
# Formats every C++ file of the tree with .clang-format (clang-format 14).
#   tools/format.sh           rewrite the files in place
#   tools/format.sh --check   list the files that differ; exit 1 if any does
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CLANG_FORMAT="${CLANG_FORMAT:-clang-format}"
mapfile -t files < <(git ls-files 'include/*.hpp' 'src/*.cpp' 'tests/*.cpp' 'tests/*.hpp' 'examples/*.cpp' 'examples/*.hpp' \
                                  'bench/*.cpp' 'bench/*.hpp' 'tools/*.cpp' 'tools/*.hpp')
if [[ "${1:-}" == "--check" ]]; then
  status=0
  for f in "${files[@]}"; do
    if ! "$CLANG_FORMAT" --style=file "$f" | cmp -s - "$f"; then
      echo "not formatted: $f"
      status=1
    fi
  done
  [[ $status == 0 ]] && echo "format: all ${#files[@]} files are formatted"
  exit $status
fi
"$CLANG_FORMAT" --style=file -i "${files[@]}"
