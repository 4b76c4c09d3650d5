#!/usr/bin/env bash
# GPU GEMM benchmark of STC against cuBLAS dense, PyTorch's 2:4
# semi-structured sparse (CUTLASS and cuSPARSELt backends) and CUTLASS 2.x's
# Ampere sparse GEMM built for sm_90 (cutlass2), docs/DESIGN.md §8; the
# convolution benchmark; whole blocks end to end (build-e2e, run-e2e); and
# the tuning runs that fill the tuning database (build-tune, run-tune).
# See bench/README.md ("GPU GEMM", "GPU convolutions", "GPU end-to-end
# blocks", "GPU tuning").
#
#   bench/run_gpu_bench.sh build [--quick] [--mock] [--only REGEX]
#       On the build machine (no GPU): write one MLIR program per shape and
#       dtype (f16, bf16, i8: int8 with B given transposed and the exact
#       i32 accumulator as output), compile each with
#       build/bin/stc-compile --emit=ptx --kernel-info twice,
#       --target=sm_90 (method "stc", mma.sp) and
#       --target=sm_90a (method "stc_sm90a", TMA + wgmma.mma_async.sp),
#       and for f16/bf16 the same product as a plain dense linalg.matmul
#       with the first target (method "stc_dense", STC's dense tensor-core
#       kernel, timed against cuBLAS),
#       and what --sparsity=auto chooses for the product (method "stc_auto":
#       stc-tune's "auto" decision with the committed tuning database, the
#       2:4 or the dense program with the chosen kernel configuration,
#       for the sm_90a target; not built without stc-tune),
#       check them (and ptxas each for its arch when the CUDA toolkit is
#       here), into bench/work/gpu/ (git-ignored; PTX + JSON).
#       --quick: three shapes. --mock: a plain CUDA C kernel (nvcc) instead
#       of STC, to test the harness (no sm_90a or dense variant); labelled
#       MOCK.
#       Also the "cutlass2" baseline's library (nvcc, CUTLASS 2.x SparseGemm
#       with Sm80 kernels for sm_90, bench/gpu/cutlass2/) into
#       bench/work/gpu/cutlass2/, where nvcc and the CUTLASS archive are
#       (else recorded as unavailable, with the reason).
#   bench/run_gpu_bench.sh run [--copy-to DIR] [--time-budget S] [--only REGEX]
#         [--order dtype|manifest]
#       On the GPU machine, from the repository root, with bench/work/gpu
#       carried: check and time every built program and the baselines (i8:
#       cuBLAS torch._int_mm, cuSPARSELt with int32 outputs; rates in TOPS);
#       writes bench/results/gpu-gemm-<UTC time>-<commit>.{json,md}
#       (copies, plus the worker's raw .jsonl, in DIR when given). Every f16
#       program is timed first, then bf16, then i8 (--order manifest: as
#       listed), so a run its budget cuts short covers the table in f16.
#   bench/run_gpu_bench.sh build-conv [--quick] [--mock] [--only REGEX]
#       The convolution benchmark (bench/README.md, "GPU convolutions"):
#       every distinct ResNet-50 convolution at batch 32 and 256, f16 NHWC,
#       as tensor.pad + linalg.conv_2d_nhwc_fhwc compiled by stc-compile
#       --sparsity=force --emit=ptx --kernel-info twice, --target=sm_90
#       (method "stc", mma.sp) and --target=sm_90a (method "stc_sm90a": TMA
#       + wgmma.sp where C is a multiple of 64) into bench/work/gpu-conv/.
#       --mock: bench/gpu/conv_mock.cu (nvcc) instead (no sm_90a variant).
#   bench/run_gpu_bench.sh run-conv [--copy-to DIR] [--time-budget S] [--only REGEX]
#       On the GPU machine with bench/work/gpu-conv carried: STC's stc.conv
#       kernels (sm_90 and sm_90a) against cuDNN (torch conv2d,
#       channels_last f16) with the dense and the pruned filter; writes
#       bench/results/gpu-conv-<UTC>-<commit>.*
#   bench/run_gpu_bench.sh build-e2e [--quick] [--tiny] [--only REGEX]
#       The end-to-end benchmark (bench/README.md, "GPU end-to-end blocks"):
#       the LLaMA-7B MLP (hidden 4096, intermediate 11008, f16) at 16, 128,
#       512, 2048 and 4096 tokens as MLIR programs whose weights are
#       arguments already in STC's compressed 2:4 format (stc.spmm),
#       compiled by stc-compile --sparsity=explicit --gpu-device-entry
#       --emit=obj for --target=sm_90 (method "stc") and sm_90a
#       ("stc_sm90a") and linked with stc_runtime into one shared library
#       (ctypes on the GPU machine: no MLIR there) in bench/work/gpu-e2e/
#       (a few MiB; weights are made on the GPU machine). --quick: the
#       smallest and largest token counts; --tiny: the self test's sizes.
#   bench/run_gpu_bench.sh run-e2e [--copy-to DIR] [--only REGEX] [--no-compile]
#         [--method-budget S] [--time-budget S]
#       On the GPU machine with bench/work/gpu-e2e carried: every block
#       timed per forward call (CUDA events; STC on PyTorch's current
#       stream through its device-pointer entry point) against PyTorch
#       dense f16, to_sparse_semi_structured (cuSPARSELt) and torch.compile
#       with the same pruned weights; every result checked against PyTorch
#       dense first; writes bench/results/gpu-e2e-<UTC>-<commit>.{json,md}.
#       --time-budget (480 s): blocks not started by then are recorded as
#       skipped (torch.compile is skipped with under 90 s left).
#   bench/run_gpu_bench.sh build-tune [--quick] [--only REGEX] [--candidates N]
#         [--no-conv] [--shapes FILE] [-j N]
#       The tuning flow's build (bench/README.md, "GPU tuning";
#       docs/TUNING.md): a shape list of the GEMM table (f16 and bf16;
#       --quick: its three shapes, f16) and of ResNet-50's convolutions at
#       batch 32 (f16; --quick: four; --no-conv: none), stc-tune --shapes for --target=sm_90a
#       and --target=sm_90 (one output directory each: bench/work/gpu-tune/
#       sm_90a, sm_90), every candidate program compiled with stc-compile
#       --emit=ptx --kernel-info (-j: in parallel, default nproc), checked
#       and assembled with ptxas; each manifest written back with the
#       candidates' PTX, kernel info and build status; a failed candidate is
#       recorded, not fatal. Carry it compressed:
#       tar -C bench/work -cJf .gpu-carry/tune-work.tar.xz gpu-tune
#   bench/run_gpu_bench.sh run-tune [--copy-to DIR] [--time-budget S] [--only REGEX]
#         [--tuning-db FILE | --no-db] [--synthetic]
#       On the GPU machine with bench/work/gpu-tune carried: every candidate
#       checked against torch, then timed as the GEMM benchmark times (its
#       worker); writes bench/results/tune-<UTC>-<commit>.{json,md} and
#       merges the ok candidates into the tuning database (default
#       tuning/stc-tuning-db.json; copied to DIR too). --time-budget (420 s):
#       candidates not started by then are recorded as skipped.
#       --synthetic: on the build machine (no GPU, no torch): each candidate
#       run on stc-run's GPU emulator and checked against NumPy, "timed" by
#       a formula (device SYNTHETIC, entries marked synthetic); small shapes
#       only (build-tune --shapes); results in bench/work/gpu-tune-synthetic,
#       database bench/work/gpu-tune/stc-tuning-db.synthetic.json (never
#       the committed one).
#   bench/run_gpu_bench.sh selftest
#       On the build machine: the benchmark's tests, test/Bench (lit; the
#       build directory must be configured and built): format code against
#       test/lib/stc_ref.py, kernel-info checks, the report, the launches
#       through stc_runtime against the fake CUDA driver (the same driver
#       calls as before the move onto the runtime), the program text through
#       stc-opt/stc-run, `build --quick [--mock]`, `build-conv --quick
#       [--mock]`, the workers simulated on the CPU where torch imports;
#       `build-e2e --tiny` with its programs on the emulator, through ctypes
#       (CPU build) and on the fake driver, and its run step simulated.
#
# Environment overrides:
#   STC_BUILD_DIR    the STC build directory (build): its stc-compile,
#                    libstc_runtime_cuda.so and test/Bench
#   STC_COMPILE      stc-compile binary ($STC_BUILD_DIR/bin/stc-compile)
#   STC_GPU_TARGET   --target of stc-compile and ptxas's -arch (sm_90)
#   STC_GPU_FLAGS    extra stc-compile flags
#   STC_GPU_TARGET_SM90A  target of the second kernel, stc_sm90a (sm_90a;
#                    none: build only the first), build and build-conv
#   STC_GPU_FLAGS_SM90A   its extra stc-compile flags (STC_GPU_FLAGS)
#   STC_GPU_TARGET_DENSE  target of STC's dense kernel, stc_dense
#                    (sm_90a: the wgmma kernel with a dense A; sm_90: the
#                    mma.sync one; none: do not build it), build
#   STC_GPU_FLAGS_DENSE   its extra stc-compile flags (STC_GPU_FLAGS)
#   STC_GPU_TARGET_DENSE_CONV  target of STC's dense convolution, stc_dense
#                    of build-conv (sm_90a; none: do not build it)
#   STC_GPU_OUT      output element type of the f16/bf16 programs: same (as
#                    the inputs) or f32 (same); i8 programs output i32
#   STC_GPU_CUTLASS2 auto (build the cutlass2 baseline where possible) or
#                    none (skip it: a faster build), build
#   CUTLASS_TARBALL  the CUTLASS sources of the cutlass2 baseline
#                    (../shared/third_party/cutlass-7107b05-baseline.tar.xz
#                    beside the checkout), unpacked once in bench/work/cutlass
#   GPU_BENCH_WORK   the build directory that travels (bench/work/gpu)
#   GPU_CONV_WORK    the convolution build directory (bench/work/gpu-conv)
#   GPU_E2E_WORK     the end-to-end build directory (bench/work/gpu-e2e)
#   GPU_TUNE_WORK    the tuning build directory (bench/work/gpu-tune)
#   STC_TUNE         stc-tune ($STC_BUILD_DIR/bin/stc-tune): build-tune's
#                    candidates, build's stc_auto decisions (none: no stc_auto)
#   STC_TUNE_TARGETS build-tune's targets (sm_90a,sm_90)
#   PYTHON           the Python to use (run: one with torch; build/selftest:
#                    /usr/bin/python3, which has NumPy)
#   CUDA_HOME        CUDA toolkit for ptxas/nvcc (/usr/local/cuda)
# Exit status: 0 all ok; 1 something failed or was wrong (results are still
# written; every failure is recorded with its reason); 2 usage/setup error.
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The STC build directory (scripts/test.sh and lit set it too).
BUILD="${STC_BUILD_DIR:-$ROOT/build}"
BENCH="$ROOT/bench"
GPU="$BENCH/gpu"
WORK="${GPU_BENCH_WORK:-$BENCH/work/gpu}"
CONV_WORK="${GPU_CONV_WORK:-$BENCH/work/gpu-conv}"
E2E_WORK="${GPU_E2E_WORK:-$BENCH/work/gpu-e2e}"
TUNE_WORK="${GPU_TUNE_WORK:-$BENCH/work/gpu-tune}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"

log() { echo "[run_gpu_bench] $*" >&2; }
usage() { awk 'NR > 1 && /^set -u/ { exit } NR > 1' "$0"; }

# What the build steps (build, build-conv) and the run steps (run, run-conv)
# share: one function each, so that both benchmarks take the same options
# and find their Python the same way.

# build_step SCRIPT WORKDIR [EXTRA ARGS --] OPTIONS...: parses build's and
# build-conv's options (--quick, --mock, --only REGEX), finds a python3
# (NumPy is not needed to build) and runs the benchmark's build script.
build_step() {
  local script="$1" work="$2"; shift 2
  local extra=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do extra+=("$1"); shift; done
  [ $# -gt 0 ] && shift  # the "--"
  local quick=() mock=() only=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick) quick=(--quick) ;;
      --mock) mock=(--mock) ;;
      --only) [ $# -ge 2 ] || { log "--only needs a regex"; exit 2; }; only=(--only "$2"); shift ;;
      -h|--help) usage; exit 0 ;;
      *) log "$CMD: unknown argument '$1'"; exit 2 ;;
    esac
    shift
  done
  local py="${PYTHON:-}" cand
  if [ -z "$py" ]; then
    for cand in /usr/bin/python3 python3; do
      if command -v "$cand" >/dev/null 2>&1; then py="$cand"; break; fi
    done
  fi
  [ -n "$py" ] || { log "no python3 found"; exit 2; }
  exec "$py" "$GPU/$script" --work "$work" "${quick[@]}" "${mock[@]}" "${only[@]}" \
    --stc-compile "${STC_COMPILE:-$BUILD/bin/stc-compile}" \
    --runtime-lib "$BUILD/lib/libstc_runtime_cuda.so" \
    --target "${STC_GPU_TARGET:-sm_90}" --flags="${STC_GPU_FLAGS:-}" "${extra[@]}" \
    --cuda "$CUDA_HOME"
}

# run_step SCRIPT WORKDIR BUILD_CMD CARRY OPTIONS...: finds a python3 with torch,
# checks that the build directory (carried from the build machine) has its
# manifest (else says to build and carry CARRY), and runs the benchmark's
# parent from the repository root.
run_step() {
  local script="$1" work="$2" build="$3" carry="$4"; shift 4
  local py="${PYTHON:-}" cand
  if [ -z "$py" ]; then
    for cand in python3 /opt/torch/.venv/bin/python3 /usr/bin/python3; do
      if command -v "$cand" >/dev/null 2>&1 && "$cand" -c "import torch" 2>/dev/null; then
        py="$cand"; break
      fi
    done
  fi
  if [ -z "$py" ]; then
    log "no python3 with torch found (tried python3, /opt/torch/.venv/bin/python3, /usr/bin/python3); set PYTHON"
    exit 2
  fi
  if [ ! -f "$work/manifest.json" ]; then
    log "no $work/manifest.json: run 'bench/run_gpu_bench.sh $build' on the build machine, then carry $carry (run tool: carry=[\"$carry\"])"
    exit 2
  fi
  cd "$ROOT" || exit 2
  exec "$py" -u "$GPU/$script" run --manifest "$work/manifest.json" \
    --results-dir "$BENCH/results" "$@"
}

[ $# -ge 1 ] || { usage; exit 2; }
CMD="$1"; shift

case "$CMD" in
  build)
    build_step build_programs.py "$WORK" --out-dtype "${STC_GPU_OUT:-same}" \
      --cutlass2 "${STC_GPU_CUTLASS2:-auto}" \
      ${CUTLASS_TARBALL:+--cutlass-tarball "$CUTLASS_TARBALL"} \
      --sm90a-target "${STC_GPU_TARGET_SM90A:-sm_90a}" \
      --sm90a-flags="${STC_GPU_FLAGS_SM90A-${STC_GPU_FLAGS:-}}" \
      --dense-target "${STC_GPU_TARGET_DENSE:-sm_90a}" \
      --dense-flags="${STC_GPU_FLAGS_DENSE-${STC_GPU_FLAGS:-}}" \
      --stc-tune "${STC_TUNE:-$BUILD/bin/stc-tune}" -- "$@"
    ;;
  run)
    run_step gemm_bench.py "$WORK" build bench/work/gpu "$@"
    ;;
  build-conv)
    build_step build_conv_programs.py "$CONV_WORK" \
      --sm90a-target "${STC_GPU_TARGET_SM90A:-sm_90a}" \
      --sm90a-flags="${STC_GPU_FLAGS_SM90A-${STC_GPU_FLAGS:-}}" \
      --dense-target "${STC_GPU_TARGET_DENSE_CONV:-sm_90a}" -- "$@"
    ;;
  run-conv)
    run_step conv_bench.py "$CONV_WORK" build-conv bench/work/gpu-conv "$@"
    ;;
  build-e2e)
    py="${PYTHON:-/usr/bin/python3}"
    command -v "$py" >/dev/null 2>&1 || py=python3
    exec "$py" "$GPU/e2e_build.py" --work "$E2E_WORK" \
      --stc-compile "${STC_COMPILE:-$BUILD/bin/stc-compile}" \
      --runtime-static-dir "$BUILD/runtime" \
      --target "${STC_GPU_TARGET:-sm_90}" --flags="${STC_GPU_FLAGS:-}" \
      --sm90a-target "${STC_GPU_TARGET_SM90A:-sm_90a}" "$@"
    ;;
  run-e2e)
    run_step e2e_bench.py "$E2E_WORK" build-e2e bench/work/gpu-e2e "$@"
    ;;
  build-tune)
    py="${PYTHON:-/usr/bin/python3}"
    command -v "$py" >/dev/null 2>&1 || py=python3
    exec "$py" "$GPU/tune_build.py" --work "$TUNE_WORK" \
      --stc-tune "${STC_TUNE:-$BUILD/bin/stc-tune}" \
      --stc-compile "${STC_COMPILE:-$BUILD/bin/stc-compile}" \
      --runtime-lib "$BUILD/lib/libstc_runtime_cuda.so" \
      --targets "${STC_TUNE_TARGETS:-sm_90a,sm_90}" --cuda "$CUDA_HOME" "$@"
    ;;
  run-tune)
    synthetic=0
    for a in "$@"; do [ "$a" = --synthetic ] && synthetic=1; done
    if [ "$synthetic" = 1 ]; then
      # No GPU and no torch: NumPy and stc-run's emulator on this machine.
      [ -f "$TUNE_WORK/manifest.json" ] || {
        log "no $TUNE_WORK/manifest.json: run 'bench/run_gpu_bench.sh build-tune --shapes FILE' first"
        exit 2; }
      py="${PYTHON:-/usr/bin/python3}"
      command -v "$py" >/dev/null 2>&1 || py=python3
      cd "$ROOT" || exit 2
      exec "$py" -u "$GPU/tune_bench.py" run --manifest "$TUNE_WORK/manifest.json" \
        --results-dir "$BENCH/work/gpu-tune-synthetic" --stc-run "$BUILD/bin/stc-run" "$@"
    fi
    run_step tune_bench.py "$TUNE_WORK" build-tune bench/work/gpu-tune "$@"
    ;;
  selftest)
    [ $# -eq 0 ] || { log "selftest takes no arguments (lit runs test/Bench)"; exit 2; }
    lit="${LIT:-/usr/lib/llvm-22/bin/lit}"
    [ -f "$BUILD/test/lit.site.cfg.py" ] || { log "no $BUILD/test/lit.site.cfg.py: configure and build first (scripts/build.sh)"; exit 2; }
    exec "$lit" -sv "$BUILD/test/Bench"
    ;;
  -h|--help) usage; exit 0 ;;
  *) log "unknown subcommand '$CMD' (build, run, build-conv, run-conv, build-e2e, run-e2e, build-tune, run-tune or selftest)"; usage; exit 2 ;;
esac
