// A 2:4 f16 linear layer for the GPU tools tests: X (32 x 64) . W (64 x 16),
// W pruned 2:4 along K at run time, f32 result.
func.func @main(%x: tensor<32x64xf16>, %w: tensor<64x16xf16>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x16xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<32x64xf16>, tensor<64x16xf16>)
                     outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
