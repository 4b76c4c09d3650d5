// A convolution's sm_90a cluster must not span more rows than the filter
// has output channels per group: the kernel would hand the blocks past
// them wrong metadata (the emulator stopped on an illegal metadata nibble
// for F = 64 with 64-row blocks in pairs, a case the tuner generated). The
// same pair over 256 channels is fine.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-lower-spmm-to-gpu

func.func @pair_past_the_filter(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<2x8x8x64xf16>) -> tensor<2x8x8x64xf16> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: a convolution's cluster of 2 blocks of 64 rows spans more than its 64 output channels per group}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2, pixel_tile_h = 8, pixel_tile_w = 8>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x8x8x64xf16> -> tensor<2x8x8x64xf16>
  return %y : tensor<2x8x8x64xf16>
}

// -----

func.func @pair_within_the_filter(%v: tensor<256x288xf16>, %m: tensor<256x36xi16>, %x: tensor<2x8x8x64xf16>) -> tensor<2x8x8x256xf16> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2, pixel_tile_h = 8, pixel_tile_w = 8>}
      : tensor<256x288xf16>, tensor<256x36xi16>, tensor<2x8x8x64xf16> -> tensor<2x8x8x256xf16>
  return %y : tensor<2x8x8x256xf16>
}
