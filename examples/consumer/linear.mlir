// A Linear layer whose weight is pruned to 2:4 along the reduction
// dimension at run time, with a fused bias and ReLU; compiled ahead of time
// by `stc-compile --emit=obj` and called from C (run-linear.c) through its
// C interface, _mlir_ciface_linear.
func.func @linear(%x: tensor<24x64xf32>, %w: tensor<64x40xf32>,
                  %b: tensor<40xf32>) -> tensor<24x40xf32> {
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x40xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<24x40xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<24x40xf32>)
      -> tensor<24x40xf32>
  %mm = linalg.matmul ins(%x, %wp : tensor<24x64xf32>, tensor<64x40xf32>)
      outs(%acc : tensor<24x40xf32>) -> tensor<24x40xf32>
  %biased = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<24x40xf32>, tensor<40xf32>)
      outs(%init : tensor<24x40xf32>) {
  ^bb0(%m: f32, %bias: f32, %out: f32):
    %s = arith.addf %m, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x40xf32>
  return %biased : tensor<24x40xf32>
}
