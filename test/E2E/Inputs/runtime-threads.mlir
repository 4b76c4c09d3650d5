// For runtime-threads.test: a layer whose weight is pruned and compressed
// at run time (the runtime's prune and compress entry points), multiplied
// by the CPU kernel, with a bias and ReLU.
func.func @layer(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>,
                 %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<16x32xf32>)
      -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wp : tensor<16x64xf32>, tensor<64x32xf32>)
      outs(%acc : tensor<16x32xf32>) -> tensor<16x32xf32>
  %out = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>)
      outs(%init : tensor<16x32xf32>) {
  ^bb0(%m: f32, %bias: f32, %o: f32):
    %s = arith.addf %m, %bias : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %out : tensor<16x32xf32>
}
