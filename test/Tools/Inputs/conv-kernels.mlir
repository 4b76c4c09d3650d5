// stc.conv in each form the GPU lowering distinguishes, for ptxas: staged
// (C % 8 == 0) with bias, residual and ReLU; direct (ragged channels,
// groups, dilation, stride); tf32 (f32 with 1:2); dynamic N/H/W.
func.func @staged_residual(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<8x28x28x64xf16>, %b: tensor<64xf16>, %r: tensor<8x28x28x64xf16>) -> tensor<8x28x28x64xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf16>) acc(%r : tensor<8x28x28x64xf16>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 1, 1>, beta = 1.0 : f64, activation = #stc.activation<relu>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<8x28x28x64xf16> -> tensor<8x28x28x64xf16>
  return %y : tensor<8x28x28x64xf16>
}
func.func @direct_grouped(%v: tensor<8x24xbf16>, %m: tensor<8x3xi16>, %x: tensor<2x15x15x6xbf16>) -> tensor<2x6x7x8xbf16> {
  %g = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       dilations = array<i64: 2, 2>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 0, 1>, groups = 2}
      : tensor<8x24xbf16>, tensor<8x3xi16>, tensor<2x15x15x6xbf16> -> tensor<2x6x7x8xbf16>
  return %g : tensor<2x6x7x8xbf16>
}
func.func @tf32(%v: tensor<16x36xf32>, %m: tensor<16x9xi16>, %x: tensor<1x7x7x8xf32>) -> tensor<1x7x7x16xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<1:2>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x36xf32>, tensor<16x9xi16>, tensor<1x7x7x8xf32> -> tensor<1x7x7x16xf32>
  return %y : tensor<1x7x7x16xf32>
}
func.func @dynamic(%v: tensor<32x8xf16>, %m: tensor<32x1xi16>, %x: tensor<?x?x?x16xf16>) -> tensor<?x?x?x32xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, strides = array<i64: 2, 2>}
      : tensor<32x8xf16>, tensor<32x1xi16>, tensor<?x?x?x16xf16> -> tensor<?x?x?x32xf32>
  return %y : tensor<?x?x?x32xf32>
}
