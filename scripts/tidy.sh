#!/usr/bin/env bash
#===- scripts/tidy.sh - clang-tidy over the C++ a change touches ---------===#
#
# Runs clang-tidy with the repository's .clang-tidy on the .cpp files given,
# or, with none, on those that differ from STC_TIDY_REV (default HEAD~1:
# the last commit, plus anything uncommitted or untracked). It needs a
# configured build directory for compile_commands.json (STC_BUILD_DIR,
# default build/). scripts/test.sh runs it with no arguments.
#
#   bash scripts/tidy.sh                  # the last commit and the work tree
#   STC_TIDY_REV=HEAD~3 bash scripts/tidy.sh
#   bash scripts/tidy.sh passes/GPU/KernelIR.cpp
#
# Only changed files: clang-tidy parses each with all of MLIR's headers
# (about 15 s a file), so the whole tree would not fit CI's 30 minutes
# beside the tests.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
rev="${STC_TIDY_REV:-HEAD~1}"
# A shallow clone has no parent commit: then only the work tree counts.
git -C "$root" rev-parse -q --verify "$rev^{commit}" >/dev/null || rev=HEAD
tidy="$(command -v clang-tidy || command -v clang-tidy-14 || true)"
if [ -z "$tidy" ]; then
  echo "tidy: clang-tidy not found (apt-get install clang-tidy)" >&2
  exit 2
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: no $build/compile_commands.json; configure the build first" \
       "(bash scripts/build.sh)" >&2
  exit 2
fi

cd "$root" || exit 2
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <({ git diff --name-only --diff-filter=AM "$rev" -- '*.cpp'
                         git ls-files --others --exclude-standard -- '*.cpp'; } |
                       sort -u)
fi
if [ "${#files[@]}" -eq 0 ]; then
  echo "tidy: no C++ files changed since $rev"
  exit 0
fi

# clang-tidy 14 cannot read GCC-only flags that CMake puts in the database.
extra=(--extra-arg=-Wno-unknown-warning-option
       --extra-arg=-Wno-unused-command-line-argument)
status=0
for f in "${files[@]}"; do
  out="$("$tidy" -p "$build" --quiet "${extra[@]}" "$f" 2>/dev/null)"
  if echo "$out" | grep -q ': \(warning\|error\):'; then
    echo "$out" | grep -A3 ': \(warning\|error\):'
    echo "tidy: findings in $f"
    status=1
  fi
done
if [ "$status" -eq 0 ]; then
  echo "tidy: ${#files[@]} files clean"
fi
exit "$status"
