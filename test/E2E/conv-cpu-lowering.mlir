// stc.conv written by hand (the filter pruned 2:4 along the input channels
// and compressed at run time) through stc-lower-conv-to-cpu and the CPU
// spmm microkernel, against a float64 direct convolution
// (stc_ref.conv2d_nhwc_ref of the filter pruned by
// stc_ref.prune_conv_filter_24). Covers 3x3 pad 1, 1x1 (the pointwise fast
// path), 7x7 stride 2 pad 3, dilation 2 with asymmetric padding, groups 2
// and 16 (unrolled and looped groups), C = 3 padded to 4, ragged pixel tiles
// (P = 338, 324), bias + ReLU, a residual acc with beta = 1, dynamic
// N/H/W, f32 and f16. The attributes of each function are mirrored in
// CONV_CPU of test/lib/e2e_cases.py.
// REQUIRES: numpy
// RUN: stc-opt %s --stc-lower-conv-to-cpu -o %t.mlir
// RUN: %e2e --mlir %t.mlir --case conv_3x3_bias_relu_f32
// RUN: %e2e --mlir %t.mlir --case conv_3x3_c3_f16
// RUN: %e2e --mlir %t.mlir --case conv_1x1_residual_f32
// RUN: %e2e --mlir %t.mlir --case conv_1x1_residual_f16
// RUN: %e2e --mlir %t.mlir --case conv_7x7_s2_f32
// RUN: %e2e --mlir %t.mlir --case conv_dil2_f32
// RUN: %e2e --mlir %t.mlir --case conv_groups2_f32
// RUN: %e2e --mlir %t.mlir --case conv_groups16_f16
// RUN: %e2e --mlir %t.mlir --case conv_dynamic_f32
// Small tiles: several full tiles and a ragged one per group.
// RUN: stc-opt %s --stc-lower-conv-to-cpu=pixels=24 -o %t.p24.mlir
// RUN: %e2e --mlir %t.p24.mlir --case conv_groups2_f32
// RUN: %e2e --mlir %t.p24.mlir --case conv_dynamic_f32
// The reference lowering (stc-run --check) on the same programs.
// RUN: stc-opt %s --stc-lower-conv-to-cpu=reference=true -o %t.ref.mlir
// RUN: %e2e --mlir %t.ref.mlir --case conv_7x7_s2_f32
// RUN: %e2e --mlir %t.ref.mlir --case conv_1x1_residual_f16
// RUN: %e2e --mlir %t.ref.mlir --case conv_groups2_f32
// RUN: %e2e --mlir %t.ref.mlir --case conv_dynamic_f32

// 3x3, pad 1, C = 8: K = 72 (80 stored), P = 2*13*13 = 338.
func.func @conv_3x3_bias_relu_f32(%x: tensor<2x13x13x8xf32>, %w: tensor<16x3x3x8xf32>, %b: tensor<16xf32>) -> tensor<2x13x13x16xf32> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<16x3x3x8xf32> into tensor<16x72xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<16x72xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<16x72xf32> -> tensor<16x40xf32>, tensor<16x5xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<16xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       activation = #stc.activation<relu>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<2x13x13x8xf32> -> tensor<2x13x13x16xf32>
  return %y : tensor<2x13x13x16xf32>
}

// 3x3, pad 1, C = 3 zero-padded to Cp = 4 (K = 36, 48 stored), f16.
func.func @conv_3x3_c3_f16(%x: tensor<1x9x9x3xf16>, %w: tensor<8x3x3x3xf16>) -> tensor<1x9x9x8xf16> {
  %z = arith.constant 0.0 : f16
  %wp = tensor.pad %w low[0, 0, 0, 0] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f16
  } : tensor<8x3x3x3xf16> to tensor<8x3x3x4xf16>
  %wf = tensor.collapse_shape %wp [[0], [1, 2, 3]] : tensor<8x3x3x4xf16> into tensor<8x36xf16>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<8x36xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<8x36xf16> -> tensor<8x24xf16>, tensor<8x3xi16>
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<8x24xf16>, tensor<8x3xi16>, tensor<1x9x9x3xf16> -> tensor<1x9x9x8xf16>
  return %y : tensor<1x9x9x8xf16>
}

// 1x1 with bias, a residual (acc, beta = 1) and ReLU: the ResNet
// bottleneck's last convolution.
func.func @conv_1x1_residual_f32(%x: tensor<2x7x7x32xf32>, %w: tensor<64x1x1x32xf32>, %b: tensor<64xf32>, %r: tensor<2x7x7x64xf32>) -> tensor<2x7x7x64xf32> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<64x1x1x32xf32> into tensor<64x32xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<64x32xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<64x32xf32> -> tensor<64x16xf32>, tensor<64x2xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>) acc(%r : tensor<2x7x7x64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>,
       beta = 1.0 : f64, activation = #stc.activation<relu>}
      : tensor<64x16xf32>, tensor<64x2xi16>, tensor<2x7x7x32xf32> -> tensor<2x7x7x64xf32>
  return %y : tensor<2x7x7x64xf32>
}

func.func @conv_1x1_residual_f16(%x: tensor<2x7x7x32xf16>, %w: tensor<64x1x1x32xf16>, %b: tensor<64xf16>, %r: tensor<2x7x7x64xf16>) -> tensor<2x7x7x64xf16> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<64x1x1x32xf16> into tensor<64x32xf16>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<64x32xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<64x32xf16> -> tensor<64x16xf16>, tensor<64x2xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf16>) acc(%r : tensor<2x7x7x64xf16>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>,
       beta = 1.0 : f64, activation = #stc.activation<relu>}
      : tensor<64x16xf16>, tensor<64x2xi16>, tensor<2x7x7x32xf16> -> tensor<2x7x7x64xf16>
  return %y : tensor<2x7x7x64xf16>
}

// The ResNet stem: 7x7, stride 2, pad 3, C = 3 padded to 4; OH = OW = 18,
// P = 324 (one full tile of 256 and a ragged one).
func.func @conv_7x7_s2_f32(%x: tensor<1x35x35x3xf32>, %w: tensor<16x7x7x3xf32>, %b: tensor<16xf32>) -> tensor<1x18x18x16xf32> {
  %z = arith.constant 0.0 : f32
  %wp = tensor.pad %w low[0, 0, 0, 0] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<16x7x7x3xf32> to tensor<16x7x7x4xf32>
  %wf = tensor.collapse_shape %wp [[0], [1, 2, 3]] : tensor<16x7x7x4xf32> into tensor<16x196xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<16x196xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<16x196xf32> -> tensor<16x104xf32>, tensor<16x13xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<16xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 7, 7>,
       strides = array<i64: 2, 2>, pad_low = array<i64: 3, 3>,
       pad_high = array<i64: 3, 3>, activation = #stc.activation<relu>}
      : tensor<16x104xf32>, tensor<16x13xi16>, tensor<1x35x35x3xf32> -> tensor<1x18x18x16xf32>
  return %y : tensor<1x18x18x16xf32>
}

// 3x3, dilation 2, pad (2, 1) low / (1, 2) high, alpha = 0.5:
// OH = (12 + 3 - 5) + 1 = 11, OW = (11 + 3 - 5) + 1 = 10.
func.func @conv_dil2_f32(%x: tensor<1x12x11x8xf32>, %w: tensor<8x3x3x8xf32>) -> tensor<1x11x10x8xf32> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<8x3x3x8xf32> into tensor<8x72xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<8x72xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<8x72xf32> -> tensor<8x40xf32>, tensor<8x5xi16>
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       dilations = array<i64: 2, 2>, pad_low = array<i64: 2, 1>,
       pad_high = array<i64: 1, 2>, alpha = 0.5 : f64}
      : tensor<8x40xf32>, tensor<8x5xi16>, tensor<1x12x11x8xf32> -> tensor<1x11x10x8xf32>
  return %y : tensor<1x11x10x8xf32>
}

// Groups 2 (C = 8, F = 8 per group), 3x3, stride 2, pad 1, bias:
// OH = OW = (10 + 2 - 3) / 2 + 1 = 5.
func.func @conv_groups2_f32(%x: tensor<2x10x10x16xf32>, %w: tensor<16x3x3x8xf32>, %b: tensor<16xf32>) -> tensor<2x5x5x16xf32> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<16x3x3x8xf32> into tensor<16x72xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<16x72xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<16x72xf32> -> tensor<16x40xf32>, tensor<16x5xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<16xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<2x10x10x16xf32> -> tensor<2x5x5x16xf32>
  return %y : tensor<2x5x5x16xf32>
}

// Groups 16 (more than are unrolled: a loop over groups), C = 4, F = 4,
// 3x3, pad 1, bias + ReLU, f16.
func.func @conv_groups16_f16(%x: tensor<1x8x8x64xf16>, %w: tensor<64x3x3x4xf16>, %b: tensor<64xf16>) -> tensor<1x8x8x64xf16> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<64x3x3x4xf16> into tensor<64x36xf16>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<64x36xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<64x36xf16> -> tensor<64x24xf16>, tensor<64x3xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf16>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       groups = 16 : i64, activation = #stc.activation<relu>}
      : tensor<64x24xf16>, tensor<64x3xi16>, tensor<1x8x8x64xf16> -> tensor<1x8x8x64xf16>
  return %y : tensor<1x8x8x64xf16>
}

// Dynamic N, H, W: OH and OW are computed at run time. 3x3, stride 2,
// pad 1, with a residual (alpha = 2, beta = -0.5) on a 2x11x9x8 input:
// OH = 6, OW = 5.
func.func @conv_dynamic_f32(%x: tensor<?x?x?x8xf32>, %w: tensor<16x3x3x8xf32>, %r: tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32> {
  %wf = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<16x3x3x8xf32> into tensor<16x72xf32>
  %p = stc.prune %wf by #stc.nm<2:4> along 1 : tensor<16x72xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<16x72xf32> -> tensor<16x40xf32>, tensor<16x5xi16>
  %y = stc.conv %v, %m, %x acc(%r : tensor<?x?x?x16xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 1, 1>, alpha = 2.0 : f64, beta = -0.5 : f64}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<?x?x?x8xf32> -> tensor<?x?x?x16xf32>
  return %y : tensor<?x?x?x16xf32>
}
