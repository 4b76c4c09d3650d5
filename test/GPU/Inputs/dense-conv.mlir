// Dense convolutions for emulate-dense-conv.test (dense_conv_check.py):
// f32 NCHW with a dynamic batch, stride 2 and a tensor.pad in front; f16
// grouped (2 groups of 2 channels, 7x7) with a reduction of 98 (a block
// per result element; groups of 2 channels are not padded to 8 for the
// tensor-core kernel: emulate-dense-conv-tensor-core.test).
func.func @conv(%x: tensor<?x6x9x9xf32>, %w: tensor<5x6x3x3xf32>) -> tensor<?x5x5x4xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6x9x9xf32>
  %p = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<?x6x9x9xf32> to tensor<?x6x11x9xf32>
  %e = tensor.empty(%n) : tensor<?x5x5x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<?x5x5x4xf32>) -> tensor<?x5x5x4xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<[2, 2]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
      ins(%p, %w : tensor<?x6x11x9xf32>, tensor<5x6x3x3xf32>) outs(%c : tensor<?x5x5x4xf32>) -> tensor<?x5x5x4xf32>
  return %y : tensor<?x5x5x4xf32>
}
func.func @conv16(%x: tensor<2x2x2x10x10xf16>, %w: tensor<2x4x2x7x7xf16>) -> tensor<2x2x4x4x4xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x2x4x4x4xf16>
  %c = linalg.fill ins(%z : f16) outs(%e : tensor<2x2x4x4x4xf16>) -> tensor<2x2x4x4x4xf16>
  %y = linalg.conv_2d_ngchw_gfchw ins(%x, %w : tensor<2x2x2x10x10xf16>, tensor<2x4x2x7x7xf16>) outs(%c : tensor<2x2x4x4x4xf16>) -> tensor<2x2x4x4x4xf16>
  return %y : tensor<2x2x4x4x4xf16>
}
