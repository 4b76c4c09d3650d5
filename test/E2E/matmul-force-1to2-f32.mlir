// 1:2 pruning of an f32 weight (--sparsity=force --pattern=1:2, the f32/tf32
// pattern of docs/DESIGN.md §3): one element of every pair along K is kept.
// The reference prunes 1:2 and must differ from a 2:4-pruned product.
// Dynamic shapes with ragged sizes (odd K pads the last pair).
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_rhs_p12_f32_force_32_64_16
// RUN: %e2e --mlir %s --case sp_rhs_p12_f32_force_3_17_33
// RUN: %e2e --mlir %s --case sp_rhs_p12_f32_force_100_130_1
// RUN: %e2e --mlir %s --case sp_rhs_p12_f32_force_1_33_100 --seed 2
func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
