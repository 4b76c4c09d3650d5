// stc-lower-spmm-to-gpu on stc.conv: an implicit-GEMM kernel (the filter is
// the canonical problem's sparse S, the im2col matrix the p-major D,
// gathered from the NHWC input, never materialized) with the convolution's
// sizes N, H, W, OH, OW as extra i32 parameters, the group taken from grid
// y, and a host call whose dynamic result sizes follow the convolution's
// arithmetic. Numerics: test/GPU/emulate-conv.test.
// RUN: stc-opt %s --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels=kernel=direct --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=DIRECT
// The kernel_info JSON (stc-compile --kernel-info) derives each grid: for
// the grouped convolution x = ceil(P / 64) = 2 column tiles, y = 2 groups x
// ceil(R / 64) = 1 row tile; a dynamic P gives -1.
// RUN: rm -rf %t && mkdir %t && stc-compile %s --target=sm_80 --emit=ptx -o %t/k.ptx --kernel-info=%t/k.json
// RUN: FileCheck %s --check-prefix=JSON < %t/k.json
// JSON:      "grid": [
// JSON-NEXT:   -1,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON:      "kernel": "stc_conv_0",
// JSON:      "grid": [
// JSON-NEXT:   2,
// JSON-NEXT:   2,
// JSON-NEXT:   1
// JSON:      "groups": 2,
// JSON:      "kernel": "stc_conv_1",

// Dynamic N, H, W: OH = floor(max(H + 2 - 3, -2) / 2) + 1 (stride 2,
// padding 1 + 1, filter 3).
// CHECK-LABEL: func.func @conv_staged
// CHECK: %[[N:.*]] = tensor.dim %arg2, %c0
// CHECK: %[[H:.*]] = tensor.dim %arg2, %c1
// CHECK: %[[HP:.*]] = arith.addi %[[H]], %c2
// CHECK: %[[HS:.*]] = arith.subi %[[HP]], %c3
// CHECK: %[[HM:.*]] = arith.maxsi %[[HS]], %c-2
// CHECK: %[[HD:.*]] = arith.floordivsi %[[HM]], %c2{{.*}}
// CHECK: %[[OH:.*]] = arith.addi %[[HD]], %c1{{.*}}
// CHECK: %[[W:.*]] = tensor.dim %arg2, %c2{{.*}}
// CHECK: arith.floordivsi
// CHECK: %[[OW:.*]] = arith.addi
// CHECK: %[[OUT:.*]] = memref.alloc(%[[N]], %[[OH]], %[[OW]]) : memref<?x?x?x64xf16>
// CHECK: call @stc_conv_0_host({{.*}}, %[[OUT]]) : (memref<64x288xf16>, memref<64x36xi16>, memref<?x?x?x64xf16>, memref<64xf32>, memref<?x?x?x64xf16>) -> ()
func.func @conv_staged(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<?x?x?x64xf16>, %b: tensor<64xf32>) -> tensor<?x?x?x64xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>, activation = #stc.activation<relu>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %y : tensor<?x?x?x64xf16>
}

// CHECK-LABEL: func.func @conv_grouped
// CHECK: memref.alloc() : memref<2x6x7x8xf32>
// CHECK: call @stc_conv_1_host
func.func @conv_grouped(%v: tensor<8x24xbf16>, %m: tensor<8x3xi16>, %x: tensor<2x15x15x6xbf16>) -> tensor<2x6x7x8xf32> {
  %g = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 0, 1>, groups = 2}
      : tensor<8x24xbf16>, tensor<8x3xi16>, tensor<2x15x15x6xbf16> -> tensor<2x6x7x8xf32>
  return %g : tensor<2x6x7x8xf32>
}

// 64 input channels (a multiple of 8): the staged kernel, whose 16-byte
// cp.async chunks are 8 channels of one filter tap.
// CHECK: gpu.func @stc_conv_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: config = <arch = sm_80, family = staged,
// CHECK-SAME: params = ["values", "meta", "dense", "bias", "out", "R", "P", "K", "value_cols", "meta_cols", "N", "H", "W", "OH", "OW"], num_pointers = 5, rows = 64, cols = -1, depth = 576, sparse_lhs = false,
// CHECK-SAME: conv = <kh = 3, kw = 3, stride_h = 2, stride_w = 2, dilation_h = 1, dilation_w = 1, pad_top = 1, pad_left = 1, pad_bottom = 1, pad_right = 1, c = 64, cp = 64, groups = 1, n = -1, h = -1, w = -1, oh = -1, ow = -1>
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sp.sync
// CHECK: gpu.return

// Two groups of 3 channels (padded to 4): the direct kernel; grid y holds
// ceil(R / 64) row tiles per group, and the group offsets the base pointers.
// CHECK: gpu.func @stc_conv_1(
// CHECK-SAME: config = <arch = sm_80, family = direct,
// CHECK-SAME: rows = 4, cols = 84, depth = 36,
// CHECK-SAME: groups = 2,
// CHECK-SAME: conv = <kh = 3, kw = 3, stride_h = 2, stride_w = 2, dilation_h = 2, dilation_w = 2, pad_top = 1, pad_left = 1, pad_bottom = 0, pad_right = 1, c = 3, cp = 4, groups = 2, n = 2, h = 15, w = 15, oh = 6, ow = 7>
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[Y:.*]] = arith.index_cast %[[BY]]
// CHECK: %[[TILES:.*]] = arith.divui %{{.*}}, %c64_i32
// CHECK: %[[G:.*]] = arith.divui %[[Y]], %[[TILES]]
// CHECK: arith.remui %[[Y]], %[[TILES]]
// CHECK-NOT: nvvm.cp.async
// CHECK: nvvm.mma.sp.sync
// CHECK: gpu.return

// DIRECT: gpu.func @stc_conv_0(
// DIRECT-SAME: family = direct
// DIRECT-NOT: nvvm.cp.async
// DIRECT: gpu.func @stc_conv_1(
