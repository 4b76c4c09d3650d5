#!/usr/bin/env bash
#===- scripts/run-example.sh - build STC and run the main example --------===#
#
# Installs what is missing, builds, and runs examples/mlp.mlir (three Linear
# layers, weights pruned 2:4 at compile time) on seeded random inputs,
# checking the result against the dense reference lowering. Prints the
# device it ran on, the relative error and the time.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
example="${1:-$root/examples/mlp.mlir}"
echo "== stc-run $example --sparsity=force --random-inputs --check --repeat=20 --remarks"
"$build/bin/stc-run" "$example" --sparsity=force --random-inputs --check \
  --repeat=20 --remarks
