#!/usr/bin/env bash
#===- scripts/gpu-e2e-variants-build.sh - sm_90a variants of whole blocks -===#
#
# The end-to-end benchmark (bench/run_gpu_bench.sh build-e2e) with kernel
# variants of its sm_90a method, for scripts/gpu-session.sh's step e2e,
# which runs each after the default build in the same call (run-e2e, the
# PyTorch baselines and the unchanged sm_90 method timed again beside it).
# The knobs that only some products can take (16-column tiles: a dense
# operand with K contiguous, as the LLaMA block's) are measured where real
# programs have them; the GEMM benchmark's f16 programs cannot
# (docs/HOPPER.md).
#
#   scripts/gpu-e2e-variants-build.sh [NAME:ONLY:FLAGS ...]
#
# ONLY is build-e2e's --only regex, FLAGS the sm_90a method's extra
# stc-compile flags (--flags-sm90a). Each NAME gets bench/work/gpu-e2e-NAME;
# all go into .gpu-carry/e2e-variants.tar.xz. The defaults are the
# questions of docs/HOPPER.md at decode size and on the BERT layer: the
# metadata ring, two K steps a slot, and 16-column tiles with a 12-slot
# ring (alone and with the metadata ring) on the LLaMA block at 16 tokens;
# and the epilogue's 16-byte stores through shared memory on the BERT
# layer and the LLaMA block at 4096 tokens (results x . W^T, transposed).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  variants=("metatma:^(llama_mlp-t16|bert_layer-b8s128)$:--gpu-meta-tma"
            "k128:^(llama_mlp-t16|bert_layer-b8s128)$:--gpu-stage-k-steps=2"
            "narrow16:^llama_mlp-t16$:--gpu-block-cols=16 --gpu-wgmma-stages=12"
            "narrow16-meta:^llama_mlp-t16$:--gpu-block-cols=16 --gpu-wgmma-stages=12 --gpu-meta-tma"
            "vst:^(llama_mlp-t4096|bert_layer-b32s128)$:--gpu-vector-stores")
fi
dirs=()
for v in "${variants[@]}"; do
  name="${v%%:*}"; rest="${v#*:}"; only="${rest%%:*}"; flags="${rest#*:}"
  case "$name" in
    ''|*[!A-Za-z0-9_-]*) echo "gpu-e2e-variants-build: bad variant name '$name'" >&2; exit 2 ;;
  esac
  if [ "$rest" = "$v" ] || [ "$flags" = "$rest" ]; then
    echo "gpu-e2e-variants-build: '$v' is not NAME:ONLY:FLAGS" >&2
    exit 2
  fi
  echo "== e2e variant $name: --only '$only' --flags-sm90a '$flags'"
  GPU_E2E_WORK="bench/work/gpu-e2e-$name" bench/run_gpu_bench.sh build-e2e \
    --only "$only" --flags-sm90a "$flags"
  dirs+=("gpu-e2e-$name")
done
mkdir -p .gpu-carry
tar -C bench/work -cJf .gpu-carry/e2e-variants.tar.xz "${dirs[@]}"
echo "gpu-e2e-variants-build: .gpu-carry/e2e-variants.tar.xz ($(du -h .gpu-carry/e2e-variants.tar.xz | cut -f1)): ${dirs[*]}"
