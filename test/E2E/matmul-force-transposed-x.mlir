// X^T . W under --sparsity=force where the dense operand X is stored K x M
// (linalg.matmul with indexing_maps): W (K x N, the rhs) is pruned 2:4 along
// K at run time and the dense operand is read transposed. Also a matmul
// written as a linalg.generic contraction (@generic) is recognised.
// Dynamic shapes with ragged sizes.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_rhs_at_f32_force_16_64_32
// RUN: %e2e --mlir %s --case sp_rhs_at_f32_force_1_17_3
// RUN: %e2e --mlir %s --case sp_rhs_at_f32_force_33_100_130
// RUN: %e2e --mlir %s --case sp_rhs_f32_force_17_33_65 -- --entry=generic
// RUN: %e2e --mlir %s --case sp_rhs_f32_force_100_3_1 -- --entry=generic
func.func @main(%xt: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %m = tensor.dim %xt, %c1 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                       affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%xt, %w : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @generic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic
      {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                        affine_map<(i, j, k) -> (k, j)>,
                        affine_map<(i, j, k) -> (i, j)>],
       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%z : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
