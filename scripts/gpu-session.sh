#!/usr/bin/env bash
#===- scripts/gpu-session.sh - one batch of GPU checks on a lent machine -===#
#
# What a session with a GPU runs there, in one call (device time is
# scarce: starting a machine costs minutes). On the build machine first:
#
#   scripts/build.sh && scripts/gpu-pack.sh
#   bench/run_gpu_bench.sh build && bench/run_gpu_bench.sh build-conv
#   tar -C bench/work -cJf .gpu-carry/bench-work.tar.xz gpu gpu-conv
#   scripts/gpu-sweep-build.sh       (optional: sm_90a kernel variants)
#   bench/run_gpu_bench.sh build-e2e && tar -C bench/work -cJf .gpu-carry/e2e-work.tar.xz gpu-e2e
#                                    (optional: step e2e)
#   scripts/gpu-e2e-variants-build.sh  (optional: sm_90a variants of step e2e)
#   bench/run_gpu_bench.sh build-tune --quick && tar -C bench/work -cJf .gpu-carry/tune-work.tar.xz gpu-tune
#                                    (optional: step tune; without --quick every table shape)
#
# then with the device tool, carry=[".gpu-carry"]:
#
#   bash scripts/gpu-session.sh OUT_DIR [GEMM_BUDGET_S] [CONV_BUDGET_S] [SWEEP_BUDGET_S]
#                                [SANITIZER_BUDGET_S]
#
# 1. nvidia-smi; the GPU lit tests (scripts/gpu-remote-tests.sh: the
#    GPU/cuda-*, Onnx/cuda-* and Interop/cuda-* tests), log in
#    OUT_DIR/lit.log; at the same time, each in its own copy of the
#    checkout, on a CC 9.0 device (whose default is sm_90a) every test
#    without a fixed target again with --target=sm_90, the mma.sp kernels
#    (OUT_DIR/lit-sm90.log), and every such test as sm_80 PTX, which the
#    driver JIT-compiles for this device (what an Ampere card runs;
#    OUT_DIR/lit-sm80.log); then the small GPU tests under compute-sanitizer
#    memcheck and racecheck (scripts/gpu-sanitize.sh, SANITIZER_BUDGET_S,
#    default 300 s: on an H200, 2026-11-27, 60 s of memcheck and 30 s of
#    racecheck saw no sanitized stc-run exit, and a process stopped early
#    leaves no log), logs in OUT_DIR/compute-sanitizer.tar;
# 2. the GEMM benchmark, then the convolution benchmark, each with its
#    time budget (defaults 200 s and 100 s; 0 skips it), results copied to
#    OUT_DIR; STC_SESSION_GEMM_ONLY and STC_SESSION_CONV_ONLY, regexes,
#    limit the programs;
# 3. where .gpu-carry/sweep.tar.xz is, each variant in it with its share
#    of SWEEP_BUDGET_S (120 s): bench/work/sw-NAME GEMM build directories
#    (scripts/gpu-sweep-build.sh makes sm_90a ones), bench/work/swc-NAME
#    convolution ones; results in OUT_DIR/sweep-results.tar.
# 4. step e2e (not in the default steps; its own call, carrying
#    .gpu-carry/libstc_runtime_cuda.so and e2e-work.tar.xz): the whole
#    blocks against PyTorch (run-e2e, its own time budget),
#    STC_SESSION_E2E_ONLY limits them, STC_SESSION_E2E_BUDGET_S (480) bounds
#    them, STC_SESSION_E2E_AB=1 runs them first with generated code
#    waiting for its kernels (the A/B of stc_cuda_set_stream_nowait);
#    where .gpu-carry/e2e-variants.tar.xz is, each of its bench/work/
#    gpu-e2e-NAME builds (sm_90a kernel variants) after the default one,
#    STC_SESSION_E2E_VARIANT_BUDGET_S (60) each, in OUT_DIR/e2e/NAME;
#    results in OUT_DIR/e2e-results.tar.
# 5. step tune (not in the default steps; its own call, e.g.
#    STC_SESSION_STEPS=tune, carrying .gpu-carry/libstc_runtime_cuda.so and
#    tune-work.tar.xz): every candidate of a build-tune checked and timed
#    (run-tune, STC_SESSION_TUNE_BUDGET_S, default 420 s; candidates not
#    reached are recorded as skipped; STC_SESSION_TUNE_ONLY limits them),
#    merged into this checkout's tuning/stc-tuning-db.json; the results and
#    the updated database in OUT_DIR/tune-results.tar, the database also as
#    OUT_DIR/stc-tuning-db.json (copy it over tuning/ and commit it).
# Every step runs even when an earlier one failed; the exit status says
# whether all passed. STC_SESSION_STEPS (default "tests bench sweep")
# picks the steps: a call that only times kernels ("bench sweep") carries
# .gpu-carry/libstc_runtime_cuda.so, bench-work.tar.xz and sweep.tar.xz
# instead of the whole pack (which, with the repository, nearly fills the
# device tool's 64 MiB).
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$1"; gemm_s="${2:-200}"; conv_s="${3:-100}"; sweep_s="${4:-120}"
sanitize_s="${5:-300}"
carry="$root/.gpu-carry"
mkdir -p "$out"
status=0
cd "$root" || exit 2
steps=" ${STC_SESSION_STEPS:-tests bench sweep} "
step() { [[ "$steps" == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total \
  --format=csv 2>&1 | tee "$out/lit.log"
if ! step tests; then
  # The benchmarks load the runtime's CUDA C API from build/lib.
  mkdir -p build/lib
  [ -f build/lib/libstc_runtime_cuda.so ] ||
    cp "$carry/libstc_runtime_cuda.so" build/lib/ || status=1
fi
if step tests; then

echo "== lit (GPU tests), three passes at once $(date -u +%T)"
# lit's per-test timeout (a hung kernel) needs psutil.
timeout_arg=()
python3 -c "import psutil" 2>/dev/null && timeout_arg=(--timeout 150)
# The three passes run at the same time (they only check results; nothing
# is timed until the benchmarks): on an H200, 2026-11-27, all three took
# 142 s together; one after the other they had taken about 250 s with fewer
# tests (2026-11-27 morning). Each of the other two runs in its own copy of
# this checkout (lit's Output directories and the unpacked build would
# collide); the first in this one, whose build/ and /tmp/stc-gpu the
# sanitizer steps below use.
other_pass() { # NAME LOG FILTER [LIT ARGS...]
  local name="$1" log="$2" filter="$3"; shift 3
  local copy="/tmp/stc-session-$name"
  rm -rf "$copy" && mkdir -p "$copy" &&
    tar --exclude=./.gpu-carry --exclude=./build --exclude=./bench/work -cf - . |
    tar -C "$copy" -xf - &&
    STC_GPU_PRIV="/tmp/stc-gpu-$name" bash "$copy/scripts/gpu-remote-tests.sh" \
      "$carry/stc-gpu-tests.tar.xz" "$filter" -j 6 --show-pass --show-unsupported \
      "${timeout_arg[@]}" "$@" >> "$log" 2>&1
}
pids=()
# On a Hopper stc-run's own choice is sm_90a (the wgmma kernels), so the
# mma.sp kernels run only where a test names sm_90: every test without a
# fixed target once more with --target=sm_90.
sm90=0
if nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
    grep -q "^9.0"; then
  sm90=1
  echo "== lit, GPU tests with --target=sm_90 (mma.sp on a Hopper) $(date -u +%T)" > "$out/lit-sm90.log"
  other_pass sm90 "$out/lit-sm90.log" "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" \
    --param gpu_target=sm_90 &
  pids+=($!)
fi
# Ampere code on this device: every GPU test whose programs take the lit
# target (the wgmma tests name sm_90a themselves) as sm_80 PTX, which the
# runtime hands to the driver to JIT-compile, as it does on any card newer
# than the PTX's target.
echo "== lit, GPU tests as sm_80 PTX (driver JIT) $(date -u +%T)" > "$out/lit-sm80.log"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv >> "$out/lit-sm80.log" 2>&1
other_pass sm80 "$out/lit-sm80.log" "(GPU|Onnx|Interop)/cuda-(?!.*wgmma)" \
  --param gpu_target=sm_80 &
pids+=($!)
bash scripts/gpu-remote-tests.sh "$carry/stc-gpu-tests.tar.xz" "(GPU|Onnx|Interop)/cuda-" \
  -j 6 --show-pass --show-unsupported "${timeout_arg[@]}" >> "$out/lit.log" 2>&1 || status=1
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for log in "$out/lit.log" "$out/lit-sm80.log" $([ "$sm90" = 1 ] && echo "$out/lit-sm90.log"); do
  echo "-- ${log##*/}"
  grep -E "^(FAIL|TIMEOUT|UNRESOLVED|XPASS):|^  Stc :: |Passed|Failed|Unsupported" "$log"
done
echo "== lit done $(date -u +%T)"
# A failing sm_90a test: one small program under compute-sanitizer, whose
# report (an out-of-bounds shared or global access, a misaligned TMA
# destination) says more than a wrong number.
if grep -q -E "^(FAIL|TIMEOUT): Stc :: GPU/cuda-spmm-wgmma" "$out/lit.log"; then
  echo "== compute-sanitizer (lhs_f16_kn, sm_90a) $(date -u +%T)" | tee -a "$out/lit.log"
  LD_LIBRARY_PATH="${STC_GPU_PRIV:-/tmp/stc-gpu}/llvm/lib" timeout 120 compute-sanitizer \
    --tool memcheck build/bin/stc-run test/GPU/emulate-spmm-wgmma.mlir --device=cuda \
    --target=sm_90a --entry=lhs_f16_kn --random-inputs --seed=1 --check 2>&1 |
    tail -n 40 >> "$out/lit.log"
fi

bash scripts/gpu-sanitize.sh "$out" "$sanitize_s" 2>&1 | tee -a "$out/lit.log" ||
  status=1
fi

if step bench; then
echo "== benchmarks $(date -u +%T)"
mkdir -p bench/work
xz -dc "$carry/bench-work.tar.xz" | tar -C bench/work -xf - || status=1
export STC_BENCH_CHECK_TIMEOUT_S="${STC_BENCH_CHECK_TIMEOUT_S:-15}"
# At most 8 files come back from the device tool: each benchmark's
# results (JSON, Markdown, raw JSONL) travel as one tar.
for b in gemm conv; do
  step=run; budget="$gemm_s"
  [ "$b" = conv ] && { step=run-conv; budget="$conv_s"; }
  [ "$budget" = 0 ] && { echo "$b benchmark: skipped (budget 0)"; continue; }
  only=()
  [ "$b" = gemm ] && [ -n "${STC_SESSION_GEMM_ONLY:-}" ] && only=("--only=$STC_SESSION_GEMM_ONLY")
  [ "$b" = conv ] && [ -n "${STC_SESSION_CONV_ONLY:-}" ] && only=("--only=$STC_SESSION_CONV_ONLY")
  rm -rf "$out/$b" && mkdir -p "$out/$b"
  bench/run_gpu_bench.sh "$step" --copy-to "$out/$b" --time-budget "$budget" "${only[@]}" \
    > "$out/$b.log" 2>&1 || status=1
  tar -C "$out" -cf "$out/$b-results.tar" "$b" && rm -rf "${out:?}/$b"
  tail -n 5 "$out/$b.log"
done
fi
if step e2e; then
  # Whole blocks end to end (bench/run_gpu_bench.sh run-e2e): LLaMA MLP,
  # BERT layer, ResNet bottleneck against PyTorch, from
  # .gpu-carry/e2e-work.tar.xz; results in OUT_DIR/e2e-results.tar.
  echo "== end-to-end blocks $(date -u +%T)"
  mkdir -p bench/work
  xz -dc "$carry/e2e-work.tar.xz" | tar -C bench/work -xf - || status=1
  rm -rf "$out/e2e" && mkdir -p "$out/e2e"
  only=()
  [ -n "${STC_SESSION_E2E_ONLY:-}" ] && only=("--only=$STC_SESSION_E2E_ONLY")
  budget=(--time-budget "${STC_SESSION_E2E_BUDGET_S:-480}")
  # STC_SESSION_E2E_AB=1: first with generated code waiting for its kernels
  # (stc_cuda_set_stream), then without (stc_cuda_set_stream_nowait, the
  # default), in the same call; the first's results in OUT_DIR/e2e/wait.
  if [ -n "${STC_SESSION_E2E_AB:-}" ]; then
    mkdir -p "$out/e2e/wait"
    STC_E2E_STREAM=wait bench/run_gpu_bench.sh run-e2e --copy-to "$out/e2e/wait" \
      "${only[@]}" "${budget[@]}" --no-compile > "$out/e2e/wait/e2e.log" 2>&1 || status=1
    grep -A9 "^| block" "$out/e2e/wait/e2e.log"
  fi
  bench/run_gpu_bench.sh run-e2e --copy-to "$out/e2e" "${only[@]}" "${budget[@]}" \
    > "$out/e2e.log" 2>&1 || status=1
  tail -n 5 "$out/e2e.log"
  # sm_90a kernel variants (scripts/gpu-e2e-variants-build.sh), each with
  # the baselines timed again beside it.
  if [ -f "$carry/e2e-variants.tar.xz" ]; then
    xz -dc "$carry/e2e-variants.tar.xz" | tar -C bench/work -xf - || status=1
    for d in bench/work/gpu-e2e-*/; do
      [ -d "$d" ] || continue
      name="$(basename "$d")"; name="${name#gpu-e2e-}"
      echo "== end-to-end variant $name $(date -u +%T)"
      mkdir -p "$out/e2e/$name"
      GPU_E2E_WORK="${d%/}" bench/run_gpu_bench.sh run-e2e --copy-to "$out/e2e/$name" \
        --time-budget "${STC_SESSION_E2E_VARIANT_BUDGET_S:-60}" --no-compile \
        > "$out/e2e/$name/e2e.log" 2>&1 || status=1
      grep -A9 "^| block" "$out/e2e/$name/e2e.log"
    done
  fi
  tar -C "$out" -cf "$out/e2e-results.tar" e2e && rm -rf "${out:?}/e2e"
fi
if step tune; then
  # Tuning (bench/run_gpu_bench.sh run-tune): the candidates of
  # .gpu-carry/tune-work.tar.xz checked and timed, merged into
  # tuning/stc-tuning-db.json; results in OUT_DIR/tune-results.tar.
  echo "== tuning $(date -u +%T)"
  mkdir -p bench/work
  xz -dc "$carry/tune-work.tar.xz" | tar -C bench/work -xf - || status=1
  rm -rf "$out/tune" && mkdir -p "$out/tune"
  only=()
  [ -n "${STC_SESSION_TUNE_ONLY:-}" ] && only=("--only=$STC_SESSION_TUNE_ONLY")
  STC_BENCH_CHECK_TIMEOUT_S="${STC_BENCH_CHECK_TIMEOUT_S:-15}" \
    bench/run_gpu_bench.sh run-tune --copy-to "$out/tune" \
    --time-budget "${STC_SESSION_TUNE_BUDGET_S:-420}" "${only[@]}" > "$out/tune.log" 2>&1 || status=1
  cp tuning/stc-tuning-db.json "$out/stc-tuning-db.json" || status=1
  cp "$out/tune.log" "$out/tune/" 2>/dev/null
  tar -C "$out" -cf "$out/tune-results.tar" tune && rm -rf "${out:?}/tune"
  tail -n 8 "$out/tune.log"
fi
if step sweep && [ -f "$carry/sweep.tar.xz" ]; then
  echo "== kernel variants $(date -u +%T)"
  xz -dc "$carry/sweep.tar.xz" | tar -C bench/work -xf - || status=1
  # sw-NAME: a GEMM build directory; swc-NAME: a convolution one.
  shopt -s nullglob
  variants=(bench/work/sw-* bench/work/swc-*)
  share=$(( sweep_s / (${#variants[@]} > 0 ? ${#variants[@]} : 1) ))
  rm -rf "$out/sweep" && mkdir -p "$out/sweep"
  for d in "${variants[@]}"; do
    v="${d##*/}"
    if [[ "$v" == swc-* ]]; then
      GPU_CONV_WORK="$d" bench/run_gpu_bench.sh run-conv --copy-to "$out/sweep/$v" \
        --time-budget "$share" > "$out/sweep/$v.log" 2>&1 || status=1
    else
      GPU_BENCH_WORK="$d" bench/run_gpu_bench.sh run --copy-to "$out/sweep/$v" \
        --time-budget "$share" > "$out/sweep/$v.log" 2>&1 || status=1
    fi
    tail -n 3 "$out/sweep/$v.log"
  done
  cat "$out"/sweep/*.log > "$out/sweep.log"
  tar -C "$out" -cf "$out/sweep-results.tar" sweep && rm -rf "${out:?}/sweep"
fi
echo "== done $(date -u +%T), status $status"
exit $status
