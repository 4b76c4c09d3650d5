#!/usr/bin/env bash
#===- scripts/gpu-sweep-build.sh - kernel variants for one GPU call -----===#
#
# Timings of different device calls differ by up to about 10 % (H200,
# 2026-11-26), so variants of the sm_90a kernel are compared inside one
# call, each in its own benchmark build directory, with the baselines
# measured again beside each (bench/README.md, "Comparing kernel variants
# in one device call"). This builds the variants here and packs them for
# scripts/gpu-session.sh, which runs them after the full benchmarks when
# .gpu-carry/sweep.tar.xz is there.
#
#   scripts/gpu-sweep-build.sh [--append] [--mma-sp | --conv] [SHAPES_REGEX] [NAME:FLAGS ...]
#
# --append: the tarball also holds the directories of the previous call
# (.gpu-carry/sweep.dirs), so that GEMM and convolution variants travel
# together.
#
# SHAPES_REGEX (bench/run_gpu_bench.sh build --only) defaults to the large
# square and LLM shapes the issue's targets name (large, and decode-size
# with 16 and 128 tokens), f16 and i8; the variants default to the standing
# questions of docs/HOPPER.md: the default kernel, 256-row blocks, the
# grouped block order, TMA multicast, the metadata through the TMA ring
# and two K steps a ring slot (alone and with it), the epilogue's 16-byte
# stores through shared memory. Each NAME gets
# bench/work/sw-NAME (built with STC_GPU_FLAGS_SM90A=FLAGS); all go into
# .gpu-carry/sweep.tar.xz.
#
# --mma-sp: variants of the sm_90 (mma.sp) kernel instead, FLAGS as
# STC_GPU_FLAGS, no sm_90a kernel or cutlass2 baseline in the variant
# directories (the full benchmark's run has them); the shapes default to
# the eight f16 programs of bench/results/gpu-sweep-20261127T0746Z-warp-
# tiles, the variants to the questions it left (docs/MMA-SP.md):
# 4 stages, 256-row blocks, two K steps a stage, the grouped order, the
# epilogue's 16-byte stores through shared memory (--gpu-vector-stores,
# whose prediction names the BERT shapes).
#
# --conv: variants of the convolution benchmark's sm_90a kernels
# (bench/work/swc-NAME, FLAGS as STC_GPU_FLAGS_SM90A; scripts/gpu-session.sh
# runs them with run-conv); the shapes default to ResNet-50's pointwise
# layers and its 3x3 ones on 56 x 56 and 7 x 7 maps, the variants to the
# questions of docs/HOPPER.md: pointwise convolutions tiled per image
# (--gpu-pixel-tiles=image; the 3x3 layers are the same kernel there, a
# control for the call's noise) against the default (flat), and 256-column
# blocks (--gpu-block-cols=256: 8 x 32 pixel tiles, 88 % real, where the
# heuristic takes 8 x 8 tiles of 64 columns on 56 x 56 maps), and the
# epilogue's 16-byte stores through shared memory (--gpu-vector-stores:
# the 56 x 56 pointwise layers are bound by their stores); the default's
# numbers are the full conv benchmark's of the same call.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mma_sp=0; conv=0; append=0
[ "${1:-}" = --append ] && { append=1; shift; }
[ "${1:-}" = --mma-sp ] && { mma_sp=1; shift; }
[ "${1:-}" = --conv ] && { conv=1; shift; }
if [ $conv = 1 ]; then
  shapes="${1:-^(l[1-4]-1x1-[0-9]+-[0-9]+|l1-3x3.*|l4-3x3.*)-b(32|256)$}"
elif [ $mma_sp = 1 ]; then
  shapes="${1:-^(square-4096|square-8192|llm-attn-4096x4096-n16|llm-attn-4096x4096-n512|llm-up-11008x4096-n4096|llm-down-4096x11008-n4096|bert-base-ffn-in-3072x768-b32|bert-large-ffn-in-4096x1024-b32)-f16$}"
else
  shapes="${1:-^(square-8192|square-16384|llm-down-4096x11008-n4096|llm-up-11008x4096-n16|llm-attn-4096x4096-n128)-(f16|i8)$}"
fi
shift || true
variants=("$@")
if [ ${#variants[@]} -eq 0 ] && [ $conv = 1 ]; then
  variants=("image:--gpu-pixel-tiles=image" "cols256:--gpu-block-cols=256"
            "vst:--gpu-vector-stores")
elif [ ${#variants[@]} -eq 0 ] && [ $mma_sp = 1 ]; then
  variants=("base:" "s4:--gpu-stages=4" "rows256:--gpu-block-rows=256"
            "k64:--gpu-stage-k-steps=2" "k64-s4:--gpu-stage-k-steps=2 --gpu-stages=4"
            "rows256-k64:--gpu-block-rows=256 --gpu-stage-k-steps=2"
            "group16:--gpu-group-rows=16" "vst:--gpu-vector-stores")
elif [ ${#variants[@]} -eq 0 ]; then
  variants=("base:" "rows256:--gpu-block-rows=256" "group16:--gpu-group-rows=16"
            "multicast:--gpu-cluster-rows=2 --gpu-tma-multicast"
            "metatma:--gpu-meta-tma" "k128:--gpu-stage-k-steps=2"
            "metatma-k128:--gpu-meta-tma --gpu-stage-k-steps=2"
            "vst:--gpu-vector-stores")
fi

dirs=()
if [ $append = 1 ] && [ -f .gpu-carry/sweep.dirs ]; then
  while read -r d; do
    [ -d "bench/work/$d" ] && dirs+=("$d")
  done < .gpu-carry/sweep.dirs
fi
for v in "${variants[@]}"; do
  name="${v%%:*}"; flags="${v#*:}"
  case "$name" in
    ''|*[!A-Za-z0-9_-]*) echo "gpu-sweep-build: bad variant name '$name'" >&2; exit 2 ;;
  esac
  if [ $conv = 1 ]; then
    echo "== variant $name: STC_GPU_FLAGS_SM90A='$flags' (convolutions)"
    STC_GPU_FLAGS_SM90A="$flags" GPU_CONV_WORK="bench/work/swc-$name" \
      bench/run_gpu_bench.sh build-conv --only "$shapes"
    dirs+=("swc-$name")
    continue
  fi
  if [ $mma_sp = 1 ]; then
    echo "== variant $name: STC_GPU_FLAGS='$flags' (mma.sp)"
    # The sweeps vary the sparse kernels' knobs: no dense kernel (method
    # stc_dense) to time in each variant's share of the budget.
    STC_GPU_FLAGS="$flags" STC_GPU_TARGET_SM90A=none STC_GPU_CUTLASS2=none \
      STC_GPU_TARGET_DENSE=none \
      GPU_BENCH_WORK="bench/work/sw-$name" bench/run_gpu_bench.sh build --only "$shapes"
  else
    echo "== variant $name: STC_GPU_FLAGS_SM90A='$flags'"
    STC_GPU_FLAGS_SM90A="$flags" STC_GPU_TARGET_DENSE=none \
      GPU_BENCH_WORK="bench/work/sw-$name" bench/run_gpu_bench.sh build --only "$shapes"
  fi
  dirs+=("sw-$name")
done
mkdir -p .gpu-carry
# Each directory once, in the order built.
mapfile -t dirs < <(printf '%s\n' "${dirs[@]}" | awk '!seen[$0]++')
printf '%s\n' "${dirs[@]}" > .gpu-carry/sweep.dirs
tar -C bench/work -cJf .gpu-carry/sweep.tar.xz "${dirs[@]}"
echo "gpu-sweep-build: .gpu-carry/sweep.tar.xz ($(du -h .gpu-carry/sweep.tar.xz | cut -f1)): ${dirs[*]}"
