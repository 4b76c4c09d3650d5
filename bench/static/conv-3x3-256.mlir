// ResNet-50's l3 3x3 convolution (256 -> 256 channels, 14 x 14, batch 32)
// as stc.conv with bias and ReLU, for bench/static/sass_mainloop.py: the
// implicit-GEMM staged mma.sp kernel, which gathers its B from the NHWC
// input.
func.func @conv(%v: tensor<256x1152xf16>, %m: tensor<256x144xi16>, %x: tensor<32x14x14x256xf16>, %b: tensor<256xf16>) -> tensor<32x14x14x256xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<256xf16>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 1, 1>, activation = #stc.activation<relu>}
      : tensor<256x1152xf16>, tensor<256x144xi16>, tensor<32x14x14x256xf16> -> tensor<32x14x14x256xf16>
  return %y : tensor<32x14x14x256xf16>
}
