#!/usr/bin/env bash
#===- examples/onnx/run.sh - a pruned PyTorch model through STC ----------===#
#
# The 2:4 workflow end to end: torchvision's ResNet-18 pruned 2:4 (as Apex
# ASP leaves it) and exported by torch.onnx (export_resnet18.py), then
# compiled and run by stc-run straight from the .onnx with
# --sparsity=enable (the importer reports the 2:4 weights; those become
# sparse convolutions and products), and compared with ONNX's semantics
# (compare.py, the NumPy reference). On the CPU in FLOAT; with a CUDA GPU
# (sm_80+) also the FLOAT16 model on the GPU's sparse tensor cores.
# Needs python3-torch and python3-torchvision (scripts/install-deps.sh).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
out="${1:-$build/examples/onnx}"
python=/usr/bin/python3
if [ -z "${STC_SKIP_BUILD:-}" ]; then
  bash "$root/scripts/install-deps.sh"
  bash "$root/scripts/build.sh"
fi
mkdir -p "$out"
"$python" "$root/examples/onnx/export_resnet18.py" "$out"

log="$out/stc-run.log"
echo "== stc-run resnet18_asp.onnx --sparsity=enable --device=cpu"
"$build/bin/stc-run" "$out/resnet18_asp.onnx" --sparsity=enable --device=cpu \
  --input="$out/x.npy" --output="$out/y.npy" --repeat=5 --remarks 2> "$log"
grep -E "device:|timing: @" "$log"
echo "stc-run: $(grep -c 'is 2:4 sparse along' "$log") weights found 2:4 by the importer;" \
  "$(grep -c 'sparse convolution (sparsity=enable)' "$log") convolutions and" \
  "$(grep -c 'rewritten to stc.spmm' "$log") matrix product made sparse (remarks: $log)"
"$python" "$root/examples/onnx/compare.py" "$out/resnet18_asp.onnx" \
  "$out/x.npy" "$out/y.npy" --tol=1e-5

if "$build/bin/stc-run" --list-devices >/dev/null 2>&1; then
  echo "== stc-run resnet18_asp_f16.onnx --sparsity=enable --device=cuda"
  "$python" -c "import numpy as np; np.save('$out/x16.npy', np.load('$out/x.npy').astype(np.float16))"
  "$build/bin/stc-run" "$out/resnet18_asp_f16.onnx" --sparsity=enable \
    --device=cuda --input="$out/x16.npy" --output="$out/y16.npy" --repeat=20 \
    2>&1 | grep -E "device:|timing: @"
  "$python" "$root/examples/onnx/compare.py" "$out/resnet18_asp_f16.onnx" \
    "$out/x16.npy" "$out/y16.npy" --tol=2e-2
else
  echo "== no CUDA device: the FLOAT16 model on the GPU is skipped"
fi
