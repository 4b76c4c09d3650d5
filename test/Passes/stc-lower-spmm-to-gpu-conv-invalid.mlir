// Diagnostics of stc-lower-spmm-to-gpu for stc.conv (with kernel=staged,
// which the first case rejects before it matters).
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=staged --stc-lower-spmm-to-gpu -verify-diagnostics

func.func @conv_f32_two_four(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{stc.conv on a GPU target computes f32 as tf32, whose mma.sp needs the 1:2 pattern (--pattern=1:2), got 2:4; or use f16/bf16 operands for 2:4}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<1x4x4x16xf32> -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

func.func @conv_staged_ragged_channels(%v: tensor<8x24xf16>, %m: tensor<8x3xi16>, %x: tensor<1x8x8x6xf16>) -> tensor<1x6x6x8xf16> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the staged kernel needs input channels per group that are a multiple of 8 (f16/bf16), 4 (f32 as tf32) or 16 (i8), got 'f16' and 3}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, groups = 2}
      : tensor<8x24xf16>, tensor<8x3xi16>, tensor<1x8x8x6xf16> -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

// i8: 16 channels of one tap fill a 16-byte chunk, but the filter rows
// (3x3x16 = 144 channels, 72 values) are not whole 16-byte chunks.
func.func @conv_staged_i8_rows(%v: tensor<8x72xi8>, %m: tensor<8x9xi16>, %x: tensor<1x8x8x16xi8>) -> tensor<1x6x6x8xi32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the staged kernel needs input channels per group that are a multiple of 8 (f16/bf16), 4 (f32 as tf32) or 16 (i8), got 'i8' and 16, and i8 filter rows of a multiple of 16 values, got 72}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>}
      : tensor<8x72xi8>, tensor<8x9xi16>, tensor<1x8x8x16xi8> -> tensor<1x6x6x8xi32>
  return %y : tensor<1x6x6x8xi32>
}
