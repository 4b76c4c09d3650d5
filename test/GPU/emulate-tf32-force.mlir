// f32 programs on a GPU target: --sparsity=force --pattern=1:2 prunes the
// weight 1:2 and the kernel computes in tf32 (mma.sp m16n8k16, operands
// rounded with cvt.rna.tf32.f32), run through the emulator against the f32
// CPU reference with docs/DESIGN.md §7's tf32 tolerance; with the default
// 2:4 pattern an f32 program is an error on a GPU target.
// RUN: stc-run %s --device=emulate --sparsity=force --pattern=1:2 --random-inputs --seed=14 --check 2>&1 | FileCheck %s
// RUN: not stc-run %s --device=emulate --sparsity=force --random-inputs 2>&1 | FileCheck %s --check-prefix=PATTERN
// CHECK: stc-run: check: result #0 relative error {{.*}} (tolerance 1e-03): PASS
// PATTERN: emulate-tf32-force.mlir:{{[0-9]+}}:8: error: stc.spmm on a GPU target computes f32 as tf32, whose mma.sp needs the 1:2 pattern (--pattern=1:2), got 2:4; or use f16/bf16 operands for 2:4

func.func @main(%x: tensor<33x72xf32>, %w: tensor<72x50xf32>) -> tensor<33x50xf32> {
  %e = tensor.empty() : tensor<33x50xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<33x50xf32>) -> tensor<33x50xf32>
  %y = linalg.matmul ins(%x, %w : tensor<33x72xf32>, tensor<72x50xf32>) outs(%f : tensor<33x50xf32>) -> tensor<33x50xf32>
  return %y : tensor<33x50xf32>
}
