#!/usr/bin/env bash
#===- scripts/gpu-sweep-build.sh - sm_90a kernel variants for one GPU call ===#
#
# Timings of different device calls differ by up to about 10 % (H200,
# 2026-11-26), so variants of the sm_90a kernel are compared inside one
# call, each in its own benchmark build directory, with the baselines
# measured again beside each (bench/README.md, "Comparing kernel variants
# in one device call"). This builds the variants here and packs them for
# scripts/gpu-session.sh, which runs them after the full benchmarks when
# .gpu-carry/sweep.tar.xz is there.
#
#   scripts/gpu-sweep-build.sh [SHAPES_REGEX] [NAME:FLAGS ...]
#
# SHAPES_REGEX (bench/run_gpu_bench.sh build --only) defaults to the large
# square and LLM shapes the issue's targets name, f16 and i8; the variants
# default to the standing questions of docs/HOPPER.md: the default kernel,
# 256-row blocks, the grouped block order and TMA multicast. Each NAME gets
# bench/work/sw-NAME (built with STC_GPU_FLAGS_SM90A=FLAGS); all go into
# .gpu-carry/sweep.tar.xz.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
shapes="${1:-^(square-8192|square-16384|llm-down-4096x11008-n4096)-(f16|i8)$}"
shift || true
variants=("$@")
[ ${#variants[@]} -gt 0 ] ||
  variants=("base:" "rows256:--gpu-block-rows=256" "group16:--gpu-group-rows=16"
            "multicast:--gpu-cluster-rows=2 --gpu-tma-multicast")

dirs=()
for v in "${variants[@]}"; do
  name="${v%%:*}"; flags="${v#*:}"
  case "$name" in
    ''|*[!A-Za-z0-9_-]*) echo "gpu-sweep-build: bad variant name '$name'" >&2; exit 2 ;;
  esac
  echo "== variant $name: STC_GPU_FLAGS_SM90A='$flags'"
  STC_GPU_FLAGS_SM90A="$flags" GPU_BENCH_WORK="bench/work/sw-$name" \
    bench/run_gpu_bench.sh build --only "$shapes"
  dirs+=("sw-$name")
done
mkdir -p .gpu-carry
tar -C bench/work -cJf .gpu-carry/sweep.tar.xz "${dirs[@]}"
echo "gpu-sweep-build: .gpu-carry/sweep.tar.xz ($(du -h .gpu-carry/sweep.tar.xz | cut -f1)): ${dirs[*]}"
