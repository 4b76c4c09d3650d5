#!/usr/bin/env bash
# Session 10, device call 1: the GPU tests as three concurrent lit passes
# (each in its own copy of the checkout), then tuning, the GEMM benchmark
# and the end-to-end blocks, one after another (timed steps never overlap).
set -uo pipefail
out="$1"; root="$(pwd)"; carry="$root/.gpu-carry"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$out/session.log"
t0=$(date +%s)
to=(); python3 -c "import psutil" 2>/dev/null && to=(--timeout 150)
echo "== tests $(date -u +%T)" | tee -a "$out/session.log"
pass() { # NAME FILTER [LIT ARGS]
  local name="$1" filter="$2"; shift 2
  local r="/tmp/repo-$name"
  rm -rf "$r" && mkdir -p "$r" && (cd "$root" && tar --exclude=./.gpu-carry --exclude=./build -cf - .) | tar -C "$r" -xf -
  STC_GPU_PRIV="/tmp/stc-gpu-$name" timeout 200 bash "$r/scripts/gpu-remote-tests.sh" \
    "$carry/stc-gpu-tests.tar.xz" "$filter" -j 6 --show-pass --show-unsupported "${to[@]}" "$@" \
    > "$out/lit-$name.log" 2>&1
  echo "pass $name rc $?" >> "$out/session.log"
}
pass sm90 "(GPU|Onnx|Interop)/cuda-" &
pass sm90a "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" --param gpu_target=sm_90a &
pass sm80 "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" --param gpu_target=sm_80 &
wait
for n in sm90 sm90a sm80; do grep -E "^(PASS|FAIL|TIMEOUT|UNRESOLVED|UNSUPPORTED):|Passed|Failed|Timed" "$out/lit-$n.log" | sed "s/^/[$n] /"; done | tee -a "$out/session.log"
echo "== tests took $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
mkdir -p build/lib && cp "$carry/libstc_runtime_cuda.so" build/lib/
STC_SESSION_STEPS="tune bench" STC_SESSION_TUNE_BUDGET_S="${TUNE_S:-150}" \
  timeout 420 bash scripts/gpu-session.sh "$out/s" "${GEMM_S:-110}" 0 0 0 2>&1 | tee -a "$out/session.log"
mv "$out"/s/*.tar "$out"/s/stc-tuning-db.json "$out"/s/*.log "$out/" 2>/dev/null
echo "== e2e $(date -u +%T)" | tee -a "$out/session.log"
mkdir -p bench/work "$out/e2e" && xz -dc "$carry/e2e-work.tar.xz" | tar -C bench/work -xf -
timeout "$(( ${E2E_S:-90} + 30 ))" bench/run_gpu_bench.sh run-e2e --copy-to "$out/e2e" --time-budget "${E2E_S:-90}" \
  > "$out/e2e.log" 2>&1; echo "e2e rc $?" | tee -a "$out/session.log"
tail -n 12 "$out/e2e.log" | tee -a "$out/session.log"
tar -C "$out" -cf "$out/e2e-results.tar" e2e e2e.log && rm -rf "$out/e2e" "$out/e2e.log"
(cd "$out" && tar -cf lit-logs.tar lit-*.log && rm -f lit-*.log; rm -rf s)
echo "== done $(date -u +%T), $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
ls -la "$out"
