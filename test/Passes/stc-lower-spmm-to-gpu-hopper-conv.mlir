// target=sm_90a on stc.conv: with one group of input channels that are a
// multiple of 64, the Hopper kernel as an implicit GEMM whose B tiles are
// 4-D TMA boxes of the NHWC input (64 channels of one filter tap x TW
// pixels x TH rows x 1 image, every stride-th pixel through the box's
// element strides, the padding from TMA's zero fill): each block computes
// a TH x TW tile of output pixels of one image (kernel_config `pixel_tile_h`
// x `pixel_tile_w`,
// grid x = N * ceil(OH / TH) * ceil(OW / TW)). Other convolutions keep the
// mma.sp kernels, with a remark.
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90a --stc-lower-spmm-to-gpu --canonicalize 2>&1 | FileCheck %s
// RUN: rm -rf %t && mkdir %t && stc-compile %s --target=sm_90a --emit=ptx -o %t/k.ptx --kernel-info=%t/k.json 2>/dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t/k.json
// JSON:      "grid": [
// JSON-NEXT:   8,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON:      "kernel": "stc_conv_0",
// JSON:      "pixel_tile": [
// JSON-NEXT:   8,
// JSON-NEXT:   8

// CHECK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs one group of input channels that are a multiple of 64 (a K step is 64 channels of one filter tap, one TMA box); got 1 group(s) of 32 channels
// CHECK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs one group of input channels that are a multiple of 64 {{.*}}; got 2 group(s) of 64 channels

// 2 x 28 x 28 x 64 input, 3 x 3 stride 2 pad 1: 14 x 14 outputs; the
// heuristic's 64 x 64 tile is 8 x 8 pixels: 2 images x 2 x 2 = 8 blocks,
// boxes of 16 x 16 input pixels taken every other one.
// CHECK-LABEL: gpu.func @stc_conv_0(
// CHECK-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, {{.*}}pixel_tile_h = 8, pixel_tile_w = 8>
// CHECK-SAME: params = ["values", "meta", "dense", "bias", "out", "R", "P", "K", "value_cols", "meta_cols", "N", "H", "W", "OH", "OW", "values_map", "dense_map"]
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 16, 16, 1], swizzle 128, strides[1, 2, 2, 1]>]>
// The producer: tap s / 1, channels 0 (64 per tap), the box at
// (0, 2 col0 - 1 + kw, 2 row0 - 1 + kh, image).
// CHECK: scf.for %[[S:[a-z0-9]+]] = %c0_i32 to
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] :
// CHECK: %[[KH:.*]] = arith.divui %[[S]], %c3_i32
// CHECK: %[[KW:.*]] = arith.remui %[[S]], %c3_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%c0_i32, %{{.*}}, %{{.*}}, %{{.*}}] :
// CHECK: stc_gpu.wgmma_sp f16 * f16 -> f32, n = 64
// CHECK-NOT: trans_b
// CHECK-SAME: acc(
// CHECK-LABEL: gpu.func @stc_conv_1(
// CHECK-SAME: family = staged
// CHECK-LABEL: gpu.func @stc_conv_2(
// CHECK-SAME: family = staged

func.func @resnet_3x3_stride2(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<2x28x28x64xf16>, %b: tensor<64xf32>) -> tensor<2x14x14x64xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>, activation = #stc.activation<relu>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x28x28x64xf16> -> tensor<2x14x14x64xf16>
  return %y : tensor<2x14x14x64xf16>
}

func.func @narrow_channels(%v: tensor<40x144xf16>, %m: tensor<40x18xi16>, %x: tensor<1x8x8x32xf16>) -> tensor<1x8x8x40xf32> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<40x144xf16>, tensor<40x18xi16>, tensor<1x8x8x32xf16> -> tensor<1x8x8x40xf32>
  return %y : tensor<1x8x8x40xf32>
}

func.func @grouped(%v: tensor<32x32xf16>, %m: tensor<32x4xi16>, %x: tensor<1x8x8x128xf16>) -> tensor<1x8x8x32xf32> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, groups = 2}
      : tensor<32x32xf16>, tensor<32x4xi16>, tensor<1x8x8x128xf16> -> tensor<1x8x8x32xf32>
  return %y : tensor<1x8x8x32xf32>
}
