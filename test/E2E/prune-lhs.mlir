// W . X with the *lhs* pruned 2:4 along K by an explicit stc.prune (no
// --sparsity option): the lhs is compressed along dimension 1 and the
// result matches the NumPy reference that prunes the lhs (and not the one
// that prunes nothing or the rhs). @main_bt takes the dense rhs stored
// N x K (indexing_maps), which exercises dense_transposed with a sparse lhs.
// Dynamic shapes: one program, many sizes, including ragged M, K, N.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_lhs_f32_1_3_5
// RUN: %e2e --mlir %s --case sp_lhs_f32_17_33_100
// RUN: %e2e --mlir %s --case sp_lhs_f32_130_100_3 --seed 3
// RUN: %e2e --mlir %s --case sp_lhs_bt_f32_33_65_17 -- --entry=main_bt
// RUN: %e2e --mlir %s --case sp_lhs_bt_f32_3_130_1 -- --entry=main_bt
func.func @main(%w: tensor<?x?xf32>, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %w, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%p, %x : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main_bt(%w: tensor<?x?xf32>, %xt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %w, %c0 : tensor<?x?xf32>
  %n = tensor.dim %xt, %c0 : tensor<?x?xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%p, %xt : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
