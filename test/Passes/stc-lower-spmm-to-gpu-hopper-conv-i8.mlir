// target=sm_90a on an i8 stc.conv: with one group of input channels that
// are a multiple of 128, the Hopper kernel as an implicit GEMM. A K step is
// one 128-byte row of channels of one filter tap, as for f16 (64 channels):
// 128 i8 channels, one 4-D TMA box (UINT8, type 0) of the NHWC input, and
// m64nNk64 s8 wgmmas accumulating in s32, whose scaling epilogue
// requantizes to i8. 64 i8 channels are half a K step: that convolution
// keeps the mma.sp kernel, with a remark.
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90a --stc-lower-spmm-to-gpu --canonicalize 2>&1 | FileCheck %s
// RUN: not stc-opt %s --stc-configure-gpu-kernels="target=sm_90a kernel=wgmma" --split-input-file 2>&1 | FileCheck %s --check-prefix=FORCED

// CHECK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs one group of input channels that are a multiple of 128 (a K step is 128 channels of one filter tap, one TMA box); got 1 group(s) of 64 channels
// FORCED: error: stc-configure-gpu-kernels: the wgmma kernel needs one group of input channels that are a multiple of 128

// 2 x 14 x 14 x 128 input, 3 x 3 stride 2 pad 1: 7 x 7 outputs in 8 x 8
// pixel tiles; K steps are tap s / 1, channels 0 (128 per tap).
// CHECK-LABEL: gpu.func @stc_conv_0(
// CHECK-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, {{.*}}accumulator = s32, pixel_tile_h = 8, pixel_tile_w = 8>
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 0, box[64, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 0, box[128, 16, 16, 1], swizzle 128, strides[1, 2, 2, 1]>]>
// CHECK: scf.for %[[S:[a-z0-9]+]] = %c0_i32 to
// CHECK: %[[KH:.*]] = arith.divui %[[S]], %c3_i32
// CHECK: %[[KW:.*]] = arith.remui %[[S]], %c3_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%c0_i32, %{{.*}}, %{{.*}}, %{{.*}}] :
// CHECK: stc_gpu.wgmma_sp si8 * si8 -> i32, n = 64
// CHECK-LABEL: gpu.func @stc_conv_1(
// CHECK-SAME: family = staged

func.func @requantized_3x3_stride2(%v: tensor<64x576xi8>, %m: tensor<64x72xi16>, %x: tensor<2x14x14x128xi8>, %s: tensor<64xf32>) -> tensor<2x7x7x64xi8> {
  %y = stc.conv %v, %m, %x scale(%s : tensor<64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>, alpha = 0.05 : f64,
       activation = #stc.activation<relu>}
      : tensor<64x576xi8>, tensor<64x72xi16>, tensor<2x14x14x128xi8> -> tensor<2x7x7x64xi8>
  return %y : tensor<2x7x7x64xi8>
}

// -----

func.func @half_a_step(%v: tensor<32x288xi8>, %m: tensor<32x36xi16>, %x: tensor<1x8x8x64xi8>) -> tensor<1x8x8x32xi32> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<32x288xi8>, tensor<32x36xi16>, tensor<1x8x8x64xi8> -> tensor<1x8x8x32xi32>
  return %y : tensor<1x8x8x32xi32>
}
