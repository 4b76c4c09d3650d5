// Round trip of the stc_gpu attributes in custom and generic form: a kernel
// configuration on stc.spmm / stc.conv (defaults elided when printed), and
// the launch contract of a generated kernel with tensor maps (with and
// without traversal strides), a convolution geometry, a metadata
// conversion kernel and a direct fallback.
// RUN: stc-opt %s | stc-opt | FileCheck %s
// RUN: stc-opt %s --mlir-print-op-generic | stc-opt | FileCheck %s

// CHECK-LABEL: func.func @configured
// CHECK: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 4, cluster_rows = 2, group_rows = 16, multicast_b = true>
// CHECK: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_86, family = staged, block_rows = 64, block_cols = 128, stages = 2, group_rows = 8, accumulator = f16, ordered_metadata = false, direct_fallback = true, warp_rows = 64, warp_cols = 64>
// CHECK: stc.conv {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 3, a_source = registers, pixel_tile_h = 8, pixel_tile_w = 16>
func.func @configured(%v: tensor<256x64xf16>, %m: tensor<256x8xi16>, %d: tensor<128x512xf16>,
                      %dd: tensor<128x?xf16>, %fv: tensor<64x288xf16>, %fm: tensor<64x36xi16>,
                      %x: tensor<2x28x28x64xf16>)
    -> (tensor<256x512xf32>, tensor<256x?xf32>, tensor<2x14x14x64xf16>) {
  %0 = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma,
          block_rows = 128, block_cols = 256, stages = 4, cluster_rows = 2,
          group_rows = 16, multicast_b = true>}
      : tensor<256x64xf16>, tensor<256x8xi16>, tensor<128x512xf16> -> tensor<256x512xf32>
  %1 = stc.spmm %v, %m, %dd {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_86, family = staged,
          block_rows = 64, block_cols = 128, stages = 2, group_rows = 8,
          accumulator = f16, ordered_metadata = false, direct_fallback = true,
          warp_rows = 64,
          warp_cols = 64>}
      : tensor<256x64xf16>, tensor<256x8xi16>, tensor<128x?xf16> -> tensor<256x?xf32>
  %2 = stc.conv %fv, %fm, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma,
           block_rows = 64, block_cols = 128, stages = 3, a_source = registers,
           pixel_tile_h = 8, pixel_tile_w = 16>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x28x28x64xf16> -> tensor<2x14x14x64xf16>
  return %0, %1, %2 : tensor<256x512xf32>, tensor<256x?xf32>, tensor<2x14x14x64xf16>
}

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @conv(
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "conv", config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 6, pixel_tile_h = 8, pixel_tile_w = 8>, threads = 256, shared_bytes = 74848, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "N", "H", "W", "OH", "OW", "values_map", "dense_map"], num_pointers = 4, rows = 64, cols = 392, depth = 576, sparse_lhs = false, dense_transposed = false, input_type = f16, output_type = f16, meta_layout = canonical, meta_kernel = "conv_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, conv = <kh = 3, kw = 3, stride_h = 2, stride_w = 2, dilation_h = 1, dilation_w = 1, pad_top = 1, pad_left = 1, pad_bottom = 1, pad_right = 1, c = 64, cp = 64, groups = 1, n = 2, h = 28, w = 28, oh = 14, ow = 14>, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 16, 16, 1], swizzle 128, strides[1, 2, 2, 1]>]>
// CHECK: gpu.func @staged(
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "staged", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>, threads = 128, shared_bytes = 0, static_shared_bytes = 18432, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 100, cols = -1, depth = 80, sparse_lhs = true, dense_transposed = true, input_type = bf16, output_type = bf16, groups = 2, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, fallback_kernel = "staged_direct", staged_align = 8>
// The launch contract names its kernel's host function's marker too.
// CHECK: func.func private @host({{.*}}) attributes {stc_gpu.launches = @kernels::@staged}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @conv() kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "conv", config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 6, pixel_tile_h = 8, pixel_tile_w = 8>, threads = 256, shared_bytes = 74848, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "N", "H", "W", "OH", "OW", "values_map", "dense_map"], num_pointers = 4, rows = 64, cols = 392, depth = 576, sparse_lhs = false, dense_transposed = false, input_type = f16, output_type = f16, meta_layout = canonical, meta_kernel = "conv_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, conv = <kh = 3, kw = 3, stride_h = 2, stride_w = 2, dilation_h = 1, dilation_w = 1, pad_top = 1, pad_left = 1, pad_bottom = 1, pad_right = 1, c = 64, cp = 64, groups = 1, n = 2, h = 28, w = 28, oh = 14, ow = 14>, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 16, 16, 1], swizzle 128, strides[1, 2, 2, 1]>]>} {
      gpu.return
    }
    gpu.func @staged() kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "staged", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>, threads = 128, shared_bytes = 0, static_shared_bytes = 18432, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 100, cols = -1, depth = 80, sparse_lhs = true, dense_transposed = true, input_type = bf16, output_type = bf16, groups = 2, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, fallback_kernel = "staged_direct", staged_align = 8>} {
      gpu.return
    }
  }
  func.func private @host(memref<4xf16>) attributes {stc_gpu.launches = @kernels::@staged}
}
