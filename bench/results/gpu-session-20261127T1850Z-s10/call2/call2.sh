#!/usr/bin/env bash
# Session 10, device call 2: the GPU tests as three concurrent lit passes
# (each in its own copy of the checkout; a pack whose build-paths.txt names
# the build's own source tree), then the GEMM programs call 1 did not reach
# and the convolution benchmark (tools with the measured tuning database).
set -uo pipefail
out="$1"; root="$(pwd)"; carry="$root/.gpu-carry"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$out/session.log"
t0=$(date +%s)
to=(); python3 -c "import psutil" 2>/dev/null && to=(--timeout 150)
echo "== tests $(date -u +%T) lit timeout: ${to[*]:-none}" | tee -a "$out/session.log"
pass() { # NAME FILTER [LIT ARGS]
  local name="$1" filter="$2"; shift 2
  local r="/tmp/repo-$name"
  rm -rf "$r" && mkdir -p "$r" && (cd "$root" && tar --exclude=./.gpu-carry --exclude=./build --exclude=./bench/work -cf - .) | tar -C "$r" -xf -
  STC_GPU_PRIV="/tmp/stc-gpu-$name" timeout 230 bash "$r/scripts/gpu-remote-tests.sh" \
    "$carry/stc-gpu-tests.tar.xz" "$filter" -j 6 --show-pass --show-unsupported "${to[@]}" "$@" \
    > "$out/lit-$name.log" 2>&1
  echo "pass $name rc $? after $(( $(date +%s) - t0 )) s" >> "$out/session.log"
}
pass sm90 "(GPU|Onnx|Interop)/cuda-" &
pass sm90a "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" --param gpu_target=sm_90a &
pass sm80 "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" --param gpu_target=sm_80 &
wait
for n in sm90 sm90a sm80; do grep -E "^(PASS|FAIL|TIMEOUT|UNRESOLVED|UNSUPPORTED):|Passed|Failed|Timed|fatal" "$out/lit-$n.log" | sed "s/^/[$n] /"; done | tee -a "$out/session.log"
echo "== tests took $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
# A failing test's output, for the log (lit -v prints it).
mkdir -p build/lib && cp "$carry/libstc_runtime_cuda.so" build/lib/
STC_SESSION_STEPS="bench" STC_SESSION_GEMM_ONLY="${GEMM_ONLY:-}" \
  timeout 330 bash scripts/gpu-session.sh "$out/s" "${GEMM_S:-80}" "${CONV_S:-80}" 0 0 2>&1 | tee -a "$out/session.log"
mv "$out"/s/*.tar "$out"/s/*.log "$out/" 2>/dev/null
(cd "$out" && tar -cf lit-logs.tar lit-*.log && rm -f lit-*.log; rm -rf s)
echo "== done $(date -u +%T), $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
ls -la "$out"
