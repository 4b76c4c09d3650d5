// nn.Linear without bias in PyTorch's layout under --sparsity=force: the
// weight is stored N x K (out_features x in_features) and the program
// computes X . W^T, written three ways: linalg.matmul with transposing
// indexing_maps (@main), linalg.transpose + linalg.matmul (@via_transpose),
// and a transposing linalg.generic + linalg.matmul (@via_generic, what
// torch-mlir emits). The weight must be pruned along its stored dimension 1
// (K), not along N. Dynamic shapes with ragged sizes.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_rhs_bt_f32_force_32_64_48
// RUN: %e2e --mlir %s --case sp_rhs_bt_f32_force_3_17_33
// RUN: %e2e --mlir %s --case sp_rhs_bt_f32_force_1_130_100 --seed 5
// RUN: %e2e --mlir %s --case sp_rhs_bt_f32_force_17_33_5 -- --entry=via_transpose
// RUN: %e2e --mlir %s --case sp_rhs_bt_f32_force_100_65_3 -- --entry=via_generic
func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @via_transpose(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c0 : tensor<?x?xf32>
  %k = tensor.dim %w, %c1 : tensor<?x?xf32>
  %te = tensor.empty(%k, %n) : tensor<?x?xf32>
  %wt = linalg.transpose ins(%w : tensor<?x?xf32>) outs(%te : tensor<?x?xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @via_generic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c0 : tensor<?x?xf32>
  %k = tensor.dim %w, %c1 : tensor<?x?xf32>
  %te = tensor.empty(%k, %n) : tensor<?x?xf32>
  %wt = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<?x?xf32>) outs(%te : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %wt : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
