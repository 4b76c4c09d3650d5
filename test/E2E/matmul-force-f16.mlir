// f16 x f16 under --sparsity=force, accumulating in f32, with an f32 result
// (@main) and an f16 result (@f16_out). The weights are drawn without
// magnitude ties inside a group of 4 so that pruning is unambiguous. Also
// an explicit stc.prune of an f16 lhs with an f32 result (@lhs_f32_out).
// Tolerance 1e-2 (docs/DESIGN.md §7). Dynamic shapes with ragged sizes.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_rhs_f16tof32_force_3_33_17
// RUN: %e2e --mlir %s --case sp_rhs_f16tof32_force_130_100_1
// RUN: %e2e --mlir %s --case sp_rhs_f16_force_32_64_48 -- --entry=f16_out
// RUN: %e2e --mlir %s --case sp_rhs_f16_force_17_130_33 -- --entry=f16_out
// RUN: %e2e --mlir %s --case sp_lhs_f16tof32_33_65_17 -- --entry=lhs_f32_out
func.func @main(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @f16_out(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%m, %n) : tensor<?x?xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<?x?xf16>) -> tensor<?x?xf16>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%z : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %r : tensor<?x?xf16>
}

func.func @lhs_f32_out(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf16>
  %n = tensor.dim %b, %c1 : tensor<?x?xf16>
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%p, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
