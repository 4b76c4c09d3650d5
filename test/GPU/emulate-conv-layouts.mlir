// linalg convolutions in every layout stc-sparsify-convolutions supports
// (NHWC/FHWC with a tensor.pad in front, NHWC/HWCF with stride and
// dilation, NCHW/FCHW with a per-channel bias and ReLU after the conv,
// grouped NGCHW/FGCHW, ragged C = 3, a 1x1), with the filter a function
// argument, under --sparsity=force: the filter is pruned 2:4 along the
// input channels at run time and the convolution becomes stc.conv (the pad
// folded into stc.conv, the bias and ReLU fused: checked on the IR), run on
// the CPU (test/E2E/conv-layouts-force.mlir) or, f16 only, on the GPU
// kernels through the emulator (test/GPU/emulate-conv-layouts.mlir), against
// a float64
// NumPy convolution of the pruned filter in NHWC (CONV_LINALG in
// test/lib/e2e_cases.py converts layouts itself). Written by
// test/lib/gen_conv_layouts.py from CONV_LINALG; do not edit by hand.
// The bias add and the ReLU are separate linalg.generic ops, as frontends
// emit them.
// REQUIRES: numpy
// RUN: stc-compile %s --sparsity=force --emit=stc -o - | FileCheck %s --implicit-check-not=linalg.conv
// RUN: %e2e --mlir %s --case convl_nhwc_fhwc_c3_f16_emulate
// RUN: %e2e --mlir %s --case convl_nhwc_fhwc_f16_1x1_emulate
// RUN: %e2e --mlir %s --case convl_nhwc_hwcf_s2_d2_f16_emulate
// RUN: %e2e --mlir %s --case convl_nchw_fchw_bias_relu_f16_emulate
// RUN: %e2e --mlir %s --case convl_ngchw_fgchw_f16_emulate

// CHECK-LABEL: func.func @nhwc_fhwc_c3_f16
// CHECK: stc.conv {{.*}}bias({{.*}}activation = #stc.activation<relu>
// CHECK-SAME: pad_high = array<i64: 3, 3>, pad_low = array<i64: 3, 3>
func.func @nhwc_fhwc_c3_f16(%x: tensor<1x15x15x3xf16>, %w: tensor<16x7x7x3xf16>, %b: tensor<16xf16>) -> tensor<1x8x8x16xf16> {
  %zero = arith.constant 0.0 : f16
  %xp = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<1x15x15x3xf16> to tensor<1x21x21x3xf16>
  %e = tensor.empty() : tensor<1x8x8x16xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf16>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x21x21x3xf16>, tensor<16x7x7x3xf16>) outs(%z : tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x8x8x16xf16>, tensor<16xf16>) outs(%e : tensor<1x8x8x16xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %s = arith.addf %a, %bb : f16
    linalg.yield %s : f16
  } -> tensor<1x8x8x16xf16>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x8x8x16xf16>) outs(%e : tensor<1x8x8x16xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %zero : f16
    linalg.yield %r : f16
  } -> tensor<1x8x8x16xf16>
  return %relu : tensor<1x8x8x16xf16>
}

// CHECK-LABEL: func.func @nhwc_fhwc_f16_1x1
// CHECK: stc.conv {{.*}}bias({{.*}}activation = #stc.activation<relu>
func.func @nhwc_fhwc_f16_1x1(%x: tensor<1x6x6x64xf16>, %w: tensor<40x1x1x64xf16>, %b: tensor<40xf16>) -> tensor<1x6x6x40xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x40xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x6x6x40xf16>) -> tensor<1x6x6x40xf16>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x64xf16>, tensor<40x1x1x64xf16>) outs(%z : tensor<1x6x6x40xf16>) -> tensor<1x6x6x40xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<1x6x6x40xf16>, tensor<40xf16>) outs(%e : tensor<1x6x6x40xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %s = arith.addf %a, %bb : f16
    linalg.yield %s : f16
  } -> tensor<1x6x6x40xf16>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x6x6x40xf16>) outs(%e : tensor<1x6x6x40xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %zero : f16
    linalg.yield %r : f16
  } -> tensor<1x6x6x40xf16>
  return %relu : tensor<1x6x6x40xf16>
}

// CHECK-LABEL: func.func @nhwc_hwcf_s2_d2_f16
// CHECK: stc.conv
func.func @nhwc_hwcf_s2_d2_f16(%x: tensor<2x13x12x16xf16>, %w: tensor<3x3x16x24xf16>) -> tensor<2x5x4x24xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x5x4x24xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x5x4x24xf16>) -> tensor<2x5x4x24xf16>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x13x12x16xf16>, tensor<3x3x16x24xf16>) outs(%z : tensor<2x5x4x24xf16>) -> tensor<2x5x4x24xf16>
  return %c : tensor<2x5x4x24xf16>
}

// CHECK-LABEL: func.func @nchw_fchw_bias_relu_f16
// CHECK: stc.conv {{.*}}bias({{.*}}activation = #stc.activation<relu>
// CHECK-SAME: pad_high = array<i64: 0, 1>, pad_low = array<i64: 1, 2>
func.func @nchw_fchw_bias_relu_f16(%x: tensor<2x8x10x9xf16>, %w: tensor<12x8x3x3xf16>, %b: tensor<12xf16>) -> tensor<2x12x9x10xf16> {
  %zero = arith.constant 0.0 : f16
  %xp = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<2x8x10x9xf16> to tensor<2x8x11x12xf16>
  %e = tensor.empty() : tensor<2x12x9x10xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<2x12x9x10xf16>) -> tensor<2x12x9x10xf16>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<2x8x11x12xf16>, tensor<12x8x3x3xf16>) outs(%z : tensor<2x12x9x10xf16>) -> tensor<2x12x9x10xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<2x12x9x10xf16>, tensor<12xf16>) outs(%e : tensor<2x12x9x10xf16>) {
  ^bb0(%a: f16, %bb: f16, %o: f16):
    %s = arith.addf %a, %bb : f16
    linalg.yield %s : f16
  } -> tensor<2x12x9x10xf16>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<2x12x9x10xf16>) outs(%e : tensor<2x12x9x10xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %zero : f16
    linalg.yield %r : f16
  } -> tensor<2x12x9x10xf16>
  return %relu : tensor<2x12x9x10xf16>
}

// CHECK-LABEL: func.func @ngchw_fgchw_f16
// CHECK: stc.conv
// CHECK-SAME: pad_high = array<i64: 1, 1>, pad_low = array<i64: 1, 1>
func.func @ngchw_fgchw_f16(%x: tensor<1x2x8x7x7xf16>, %w: tensor<6x2x8x3x3xf16>) -> tensor<1x2x6x7x7xf16> {
  %zero = arith.constant 0.0 : f16
  %xp = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index, %i4: index):
    tensor.yield %zero : f16
  } : tensor<1x2x8x7x7xf16> to tensor<1x2x8x9x9xf16>
  %e = tensor.empty() : tensor<1x2x6x7x7xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x2x6x7x7xf16>) -> tensor<1x2x6x7x7xf16>
  %c = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x2x8x9x9xf16>, tensor<6x2x8x3x3xf16>) outs(%z : tensor<1x2x6x7x7xf16>) -> tensor<1x2x6x7x7xf16>
  return %c : tensor<1x2x6x7x7xf16>
}
