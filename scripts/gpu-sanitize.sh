#!/usr/bin/env bash
#===- scripts/gpu-sanitize.sh - GPU tests under compute-sanitizer ---------===#
#
# Step of scripts/gpu-session.sh (docs/RELIABILITY.md, "GPU"): the small
# `REQUIRES: cuda` tests once under compute-sanitizer's memcheck and once
# under racecheck, each run of stc-run in them wrapped by the tool (lit
# parameter stc_run_prefix, test/lit.cfg.py), within BUDGET_S seconds in
# all (memcheck gets 2/3, racecheck 1/3; lit stops at its share). The logs
# (one per process) and lit's output go into OUT_DIR/compute-sanitizer.tar,
# the summary to stdout:
#
#   bash scripts/gpu-sanitize.sh OUT_DIR [BUDGET_S]
#
# Exit status 0 when every test passed and the tool reported no error.
# Stand-ins, so that the control flow is checkable without a GPU
# (test/Tools/gpu-sanitize-standin.test): STC_COMPUTE_SANITIZER (default
# compute-sanitizer), STC_GPU_TESTS (default: scripts/gpu-remote-tests.sh
# with the archive of scripts/gpu-pack.sh; called as RUNNER FILTER
# LIT_ARGS...), STC_GPU_SANITIZE_FILTER (the tests).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$1"; budget="${2:-150}"
sanitizer="${STC_COMPUTE_SANITIZER:-$(command -v compute-sanitizer ||
  echo /usr/local/cuda/bin/compute-sanitizer)}"
runner="${STC_GPU_TESTS:-bash $root/scripts/gpu-remote-tests.sh $root/.gpu-carry/stc-gpu-tests.tar.xz}"
# Small programs: compute-sanitizer slows kernels down 10-100 times.
filter="${STC_GPU_SANITIZE_FILTER:-GPU/cuda-(linear-epilogue|spmm-i8|spmm-wgmma|tools)\.}"
if [ ! -x "$sanitizer" ]; then
  echo "gpu-sanitize: no compute-sanitizer ($sanitizer): step skipped"
  exit 1
fi
work="$out/compute-sanitizer"
rm -rf "$work" && mkdir -p "$work"
status=0

run_tool() {
  local tool="$1" seconds="$2"
  local log="$work/$tool-lit.log"
  echo "== compute-sanitizer --tool $tool, $seconds s $(date -u +%T)"
  # %p: one log per process; --error-exitcode makes a report fail the test.
  local prefix="$sanitizer --tool $tool --error-exitcode 86 --log-file $work/$tool-%p.log"
  [ "$tool" = memcheck ] && prefix="$prefix --leak-check full"
  timeout --kill-after=10 "$seconds" $runner "$filter" -j 1 \
    --param "stc_run_prefix=$prefix" > "$log" 2>&1
  local rc=$?
  [ $rc -eq 124 ] && echo "gpu-sanitize: $tool: budget of $seconds s reached" >> "$log"
  [ $rc -ne 0 ] && status=1
  grep -E "^(PASS|FAIL|UNSUPPORTED|TIMEOUT|UNRESOLVED):|budget of" "$log"
  # The tool's own verdicts ("ERROR SUMMARY: N errors", "RACECHECK SUMMARY").
  local errors
  errors=$(cat "$work/$tool"-[0-9]*.log 2>/dev/null |
    grep -E "(ERROR|RACECHECK) SUMMARY: [1-9]" | wc -l)
  echo "gpu-sanitize: $tool: $(ls "$work/$tool"-[0-9]*.log 2>/dev/null | wc -l) processes, $errors with errors, lit exit $rc"
  [ "$errors" -eq 0 ] || status=1
}

run_tool memcheck $(( budget * 2 / 3 ))
run_tool racecheck $(( budget - budget * 2 / 3 ))
tar -C "$out" -cf "$out/compute-sanitizer.tar" compute-sanitizer && rm -rf "$work"
echo "gpu-sanitize: status $status"
exit $status
