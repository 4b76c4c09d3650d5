// X . W with W pruned 2:4 at run time (--sparsity=force), dynamic shapes:
// one program, many shapes, including M, N, K that are not multiples of
// 4, 16 or 64, against the NumPy reference of test/lib/stc_ref.py.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case matmul_force_f32_64_128_32
// RUN: %e2e --mlir %s --case matmul_force_f32_3_5_7
// RUN: %e2e --mlir %s --case matmul_force_f32_17_30_13
// RUN: %e2e --mlir %s --case matmul_force_f32_33_100_65
// RUN: %e2e --mlir %s --case matmul_force_f32_130_257_129 --seed 7
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
