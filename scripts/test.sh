#!/usr/bin/env bash
#===- scripts/test.sh - install, build and run every STC test ------------===#
#
# The README's test command and what CI runs (.ci/run). Runs the whole lit
# suite (which includes the GoogleTest units), the clang-format check and
# clang-tidy on the C++ files the last commit or the work tree changed
# (scripts/tidy.sh), and ends with one line: `N passed, N failed`.
#
# --sanitize: the same suite on an ASan+UBSan build of STC (build-asan, or
# $STC_BUILD_DIR), configured with clang-22, -DSTC_SANITIZE=address,undefined
# and -DSTC_FUZZ=ON (the fuzz targets instrumented for libFuzzer too); lit
# runs the tools with ASAN_OPTIONS=allow_user_poisoning=0 (test/lit.cfg.py
# says why). docs/RELIABILITY.md (Sanitizers) has the last run's result.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done
if [ "$sanitize" = 1 ]; then
  build="${STC_BUILD_DIR:-$root/build-asan}"
else
  build="${STC_BUILD_DIR:-$root/build}"
fi

# clang-22 with its libFuzzer runtime builds stc-fuzz, so that the fuzz
# targets' smoke run (test/Fuzz/smoke.test) is part of every test run.
bash "$root/scripts/install-deps.sh" clang-format clang-tidy clang-22 \
  libclang-rt-22-dev || exit 1
if [ "$sanitize" = 1 ] && [ ! -f "$build/build.ninja" ]; then
  for cc in clang-22 clang++-22; do
    command -v "$cc" >/dev/null || {
      echo "scripts/test.sh --sanitize needs $cc (apt-get install clang-22 libclang-rt-22-dev)"
      echo "0 passed, 1 failed"; exit 1; }
  done
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DSTC_SANITIZE=address,undefined -DSTC_FUZZ=ON >/dev/null ||
    { echo "0 passed, 1 failed"; exit 1; }
fi
STC_BUILD_DIR="$build" bash "$root/scripts/build.sh" ||
  { echo "0 passed, 1 failed"; exit 1; }

lit="/usr/lib/llvm-22/bin/lit"
log="$(mktemp)"
"$lit" -sv "$build/test" 2>&1 | tee "$log"
# lit's summary lines look like "  Passed: 12 (92.31%)"; absent ones are 0.
count() {
  local n
  n=$(sed -n "s/^ *$1 *: *\([0-9]*\).*/\1/p" "$log" | tail -1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count "Unexpectedly Passed") + $(count Unresolved) + $(count "Timed Out") ))
unsupported=$(count Unsupported)
# No summary at all means lit itself failed.
if ! grep -q "Total Discovered Tests" "$log"; then failed=$((failed + 1)); fi
rm -f "$log"

# Formatting is mechanical: any drift is a failure.
if command -v clang-format >/dev/null 2>&1; then
  drift=""
  while IFS= read -r f; do
    clang-format --dry-run -Werror "$root/$f" >/dev/null 2>&1 || drift="$drift $f"
  done < <(cd "$root" && git ls-files '*.cpp' '*.h' '*.c' 2>/dev/null)
  if [ -n "$drift" ]; then
    echo "clang-format: not formatted:$drift"
    failed=$((failed + 1))
  else
    echo "clang-format: clean"
    passed=$((passed + 1))
  fi
fi

# Lint: clang-tidy with .clang-tidy, on what changed (one result line).
if STC_BUILD_DIR="$build" bash "$root/scripts/tidy.sh"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

if [ "$unsupported" -gt 0 ]; then
  echo "($unsupported tests unsupported on this machine, e.g. REQUIRES: cuda)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
