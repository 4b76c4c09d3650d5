// stc-lower-spmm-to-gpu builds exactly the kernel an op's
// #stc_gpu.kernel_config describes, so a configuration the op cannot have
// (written by a program or a tuner: stc-configure-gpu-kernels never
// produces one) is an error at the op, as is an op without one and
// configurations for two architectures in one module. The rules that hold
// for any op are the attribute's own (test/Dialect/StcGpu/kernel-config-invalid.mlir).
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-lower-spmm-to-gpu

func.func @unconfigured(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x16xf16>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: stc.spmm has no stc_gpu.kernel_config (run stc-configure-gpu-kernels first)}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

func.func @two_architectures(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x16xf16>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %a = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x16xf16> -> tensor<16x16xf32>
  // expected-error @+1 {{stc-lower-spmm-to-gpu: kernel configurations for sm_80 and sm_90 in one module, which is compiled for one GPU}}
  %b = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90, family = direct, block_rows = 64, block_cols = 64>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return %a, %b : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

func.func @f16_accumulator_of_bf16(%v: tensor<16x8xbf16>, %m: tensor<16x1xi16>, %d: tensor<16x16xbf16>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: 'bf16' operands accumulate in f32, got accumulator = f16}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, accumulator = f16>}
      : tensor<16x8xbf16>, tensor<16x1xi16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

func.func @f32_accumulator_of_i8(%v: tensor<16x16xi8>, %m: tensor<16x2xi16>, %d: tensor<16x32xi8>) -> tensor<16x16xi32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: 'i8' operands accumulate in s32, got accumulator = f32}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64>}
      : tensor<16x16xi8>, tensor<16x2xi16>, tensor<16x32xi8> -> tensor<16x16xi32>
  return %y : tensor<16x16xi32>
}

// -----

func.func @s32_accumulator_of_f16(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x16xf16>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: 'f16' operands accumulate in f32 (or f16), got accumulator = s32}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, accumulator = s32>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

func.func @wgmma_of_f32(%v: tensor<64x32xf32>, %m: tensor<64x8xi16>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the wgmma kernel needs f16, bf16 or i8 operands (got f32)}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4>}
      : tensor<64x32xf32>, tensor<64x8xi16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// Two K steps a ring slot need whole pairs of 64-K steps: K = 192 is three.
func.func @two_steps_odd_k(%v: tensor<128x96xf16>, %m: tensor<128x12xi16>, %d: tensor<192x64xf16>) -> tensor<128x64xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: stage_k_steps = 2 on the wgmma kernel needs a 2:4 operand and a static K of an even number of 64-K steps; got K = 192}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, stage_k_steps = 2>}
      : tensor<128x96xf16>, tensor<128x12xi16>, tensor<192x64xf16> -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

// -----

func.func @multicast_of_narrow_k_major(%v: tensor<128x32xf16>, %m: tensor<128x4xi16>, %d: tensor<64x64xf16>) -> tensor<128x64xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: multicast_b needs a GEMM whose tile has at least 128 columns when its dense operand is k-major; got 64 columns}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2, multicast_b = true>}
      : tensor<128x32xf16>, tensor<128x4xi16>, tensor<64x64xf16> -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

// -----

func.func @conv_without_pixel_tiles(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<2x28x28x64xf16>) -> tensor<2x14x14x64xf16> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: a wgmma convolution without pixel tiles (its pixels tiled flat) must be one matrix product: 1x1, stride 1, no padding, one group; got 3x3, stride 2x2, padding 1,1,1,1, 1 group(s)}}
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x28x28x64xf16> -> tensor<2x14x14x64xf16>
  return %y : tensor<2x14x14x64xf16>
}

// -----

func.func @gemm_with_pixel_tiles(%v: tensor<64x32xf16>, %m: tensor<64x4xi16>, %d: tensor<64x64xf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: a wgmma kernel has pixel tiles only for a convolution; got pixel tiles for a GEMM}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, pixel_tile_h = 8, pixel_tile_w = 8>}
      : tensor<64x32xf16>, tensor<64x4xi16>, tensor<64x64xf16> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

func.func @ring_too_deep(%v: tensor<128x32xf16>, %m: tensor<128x4xi16>, %d: tensor<64x256xf16>) -> tensor<128x256xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the sm_90a kernel's ring of 6 stages of 128 x 256 needs 246880 bytes of shared memory, more than the 232448 a block may have}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 6>}
      : tensor<128x32xf16>, tensor<128x4xi16>, tensor<64x256xf16> -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}

// -----

func.func @staged_unaligned(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x12xf16>) -> tensor<16x12xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the staged kernel needs for 'f16' operands a dense operand whose leading dimension is a multiple of 8 elements (16 bytes), got a k-major dense operand with leading dimension 12}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x12xf16> -> tensor<16x12xf32>
  return %y : tensor<16x12xf32>
}

// -----

func.func @staged_dynamic_without_fallback(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x?xf16>) -> tensor<16x?xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: direct_fallback must be true: whether the staged kernel's rows are 16-byte aligned is only known at run time}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x?xf16> -> tensor<16x?xf32>
  return %y : tensor<16x?xf32>
}

// -----

func.func @static_with_fallback(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x16xf16>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: direct_fallback must be false: the kernel's rows are known at compile time}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
