#!/usr/bin/env bash
#===- test/Bench/compare-launch-traces.sh - old vs new benchmark launches -===#
#
# Shows that the GPU benchmark's launcher at this checkout drives the GPU
# exactly as bench/gpu did at an older revision, for every kernel of the
# given benchmark builds: runs launch_trace.py over the build manifests
# with the older bench/gpu (from git) and with this checkout's, through the
# fake driver and its call log (libstc_trace_cuda.so), and diffs the two.
#
#   test/Bench/compare-launch-traces.sh OLD_REV MANIFEST...
#
# e.g., after `bench/run_gpu_bench.sh build` and `build-conv`:
#   test/Bench/compare-launch-traces.sh 931340b bench/work/gpu/manifest.json \
#     bench/work/gpu-conv/manifest.json
# OLD_TRACE=FILE keeps the older version's trace (how
# Inputs/launch/expected.trace was made); METHODS=stc,... names the STC
# methods compared (default stc,stc_sm90a, which both versions know).
# Exit status: 0 identical, 1 they differ (the diff is printed) or a launch
# failed, 2 usage.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
[ $# -ge 2 ] || { sed -n '9,19p' "$0" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
old="$1"; shift
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git -C "$root" archive "$old" bench/gpu | tar -x -C "$tmp" ||
  { echo "compare-launch-traces: no bench/gpu at $old" >&2; exit 2; }
# The kernels both versions launch: the 2:4 ones (METHODS to change it; an
# older bench/gpu has no stc_dense, STC's dense kernel).
trace() {
  /usr/bin/python3 "$root/test/Bench/launch_trace.py" --bench "$1" \
    --trace-lib "$build/lib/libstc_trace_cuda.so" \
    --runtime-lib "$build/lib/libstc_runtime_cuda.so" \
    --methods "${METHODS:-stc,stc_sm90a}" "${@:2}"
}
trace "$tmp/bench/gpu" "$@" > "$tmp/old.trace"
trace "$root/bench/gpu" "$@" > "$tmp/new.trace"
[ -n "${OLD_TRACE:-}" ] && cp "$tmp/old.trace" "$OLD_TRACE"
if diff "$tmp/old.trace" "$tmp/new.trace"; then
  echo "identical: $(grep -c '^== ' "$tmp/new.trace") kernels," \
    "$(grep -vc '^== \|^result: ' "$tmp/new.trace") driver calls," \
    "$(grep -c '^cuLaunchKernel' "$tmp/new.trace") launches"
else
  exit 1
fi
