#!/usr/bin/env bash
#===- scripts/run-example.sh - build STC and run the main example --------===#
#
# Installs what is missing, builds, and runs the MLP example (three Linear
# layers, weights pruned 2:4 at compile time) on seeded random inputs,
# checking the result against the dense reference lowering. With a CUDA
# GPU (sm_80 or later) it runs build/examples/mlp_f16.mlir on it (the mma.sp
# kernels take f16/bf16); otherwise build/examples/mlp.mlir (f32) on the
# CPU. The build generates the examples (examples/gen_examples.py).
# Prints the device it ran on, the relative error and the time. An
# explicit argument runs that program with --device=auto.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
device=auto
if [ $# -ge 1 ]; then
  example="$1"
elif "$build/bin/stc-run" --list-devices >/dev/null 2>&1; then
  example="$build/examples/mlp_f16.mlir"
  device=cuda
else
  example="$build/examples/mlp.mlir"
  device=cpu
fi
echo "== stc-run $example --device=$device --sparsity=force --random-inputs --check --repeat=20 --remarks"
"$build/bin/stc-run" "$example" --device="$device" --sparsity=force \
  --random-inputs --check --repeat=20 --remarks
