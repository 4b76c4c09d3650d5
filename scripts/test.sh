#!/usr/bin/env bash
#===- scripts/test.sh - install, build and run every STC test ------------===#
#
# The README's test command and what CI runs (.ci/run). Runs the whole lit
# suite (which includes the GoogleTest units) and the clang-format check,
# and ends with one line: `N passed, N failed`.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"

bash "$root/scripts/install-deps.sh" clang-format || exit 1
bash "$root/scripts/build.sh" || { echo "0 passed, 1 failed"; exit 1; }

lit="/usr/lib/llvm-22/bin/lit"
log="$(mktemp)"
"$lit" -sv "$build/test" 2>&1 | tee "$log"
count() { sed -n "s/^ *$1: *\([0-9]*\).*/\1/p" "$log" | tail -1; }
passed=$(( $(count Passed || true) + $(count "Expectedly Failed" || true) ))
failed=$(( $(count Failed || true) + $(count "Unexpectedly Passed" || true) + $(count Unresolved || true) + $(count "Timed Out" || true) ))
unsupported=$(count Unsupported || true)
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

[ -n "$unsupported" ] && [ "$unsupported" -gt 0 ] && \
  echo "($unsupported tests unsupported on this machine, e.g. REQUIRES: cuda)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
