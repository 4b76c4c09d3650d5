// A linear layer (its weight pruned explicitly, along K) and an activation
// x activation product that stays dense.
func.func @layer(%x: tensor<64x512xf16>, %q: tensor<64x256xf16>, %k: tensor<256x64xf16>) -> (tensor<64x256xf16>, tensor<64x64xf16>) {
  %w0 = arith.constant dense<0.25> : tensor<512x256xf16>
  %w = stc.prune %w0 by #stc.nm<2:4> along 0 : tensor<512x256xf16>
  %zero = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<64x256xf16>
  %c0 = linalg.fill ins(%zero : f16) outs(%e0 : tensor<64x256xf16>) -> tensor<64x256xf16>
  %y = linalg.matmul ins(%x, %w : tensor<64x512xf16>, tensor<512x256xf16>) outs(%c0 : tensor<64x256xf16>) -> tensor<64x256xf16>
  %e1 = tensor.empty() : tensor<64x64xf16>
  %c1 = linalg.fill ins(%zero : f16) outs(%e1 : tensor<64x64xf16>) -> tensor<64x64xf16>
  %s = linalg.matmul ins(%q, %k : tensor<64x256xf16>, tensor<256x64xf16>) outs(%c1 : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %y, %s : tensor<64x256xf16>, tensor<64x64xf16>
}
