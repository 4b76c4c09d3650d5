// What stc-lower-spmm-to-gpu cannot lower is an error at the op.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels=block-rows=96 --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=TILE

// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=staged --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=STAGED
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=fastest --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=VARIANT
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels=accumulate=f64 --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=ACCUMULATE

// kernel=staged is an error only where the staged kernel can never run: a
// static leading dimension that is not 16-byte aligned, or a k-major dense
// operand of 32-bit (tf32) or 8-bit elements. (A dynamic leading dimension
// gets the staged kernel and a direct fallback the host picks at run time:
// stc-lower-spmm-to-gpu-dynamic-ld.mlir.)
// STAGED: error: stc-configure-gpu-kernels: the staged kernel needs for 'f16' operands a dense operand whose leading dimension is a multiple of 8 elements (16 bytes), got a k-major dense operand with leading dimension 12
// STAGED: error: stc-configure-gpu-kernels: the staged kernel needs for 'i8' operands a dense operand with K contiguous (a sparse rhs with dense M x K, or a sparse lhs with dense_transposed) whose leading dimension and value rows are multiples of 16 elements (16 bytes), got a k-major dense operand with leading dimension 48 and 32 values per row
// STAGED: error: stc-configure-gpu-kernels: the staged kernel needs for 'i8' operands {{.*}}, got a p-major dense operand with leading dimension 72 and 40 values per row
// STAGED: error: stc-configure-gpu-kernels: the staged kernel needs for 'f32' operands a dense operand with K contiguous (a sparse rhs with dense M x K, or a sparse lhs with dense_transposed) whose leading dimension is a multiple of 4 elements (16 bytes), got a k-major dense operand with leading dimension 40
// STAGED: error: stc-configure-gpu-kernels: the staged kernel needs for 'f32' operands {{.*}}, got a k-major dense operand with leading dimension ?
// VARIANT: error: stc-configure-gpu-kernels: kernel must be auto, direct, staged or wgmma, got 'fastest'
// ACCUMULATE: error: stc-configure-gpu-kernels: accumulate must be f32 or f16, got 'f64'
// TILE: stc-lower-spmm-to-gpu-invalid.mlir:{{[0-9]+}}:8: error: stc-configure-gpu-kernels: block-rows and block-cols must be 64 or 128 (or 0; block-rows=256 too, and block-cols=256, 16 or 32 with target=sm_90a), got 96

func.func @f32_operands(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %d: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{stc.spmm on a GPU target computes f32 as tf32, whose mma.sp needs the 1:2 pattern (--pattern=1:2), got 2:4; or use f16/bf16 operands for 2:4}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<16x16xf32>, tensor<16x2xi16>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @unaligned_dense(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x12xf16>) -> tensor<16x12xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x12xf16> -> tensor<16x12xf32>
  return %y : tensor<16x12xf32>
}

// -----

// Constant metadata is converted to the kernel-ready layout at compile time;
// an illegal nibble (here 0: one index twice) would make the ordered-metadata
// instruction's result undefined, so it is an error at the op.
func.func @illegal_constant_metadata(%v: tensor<16x8xf16>, %d: tensor<16x8xf16>) -> tensor<16x8xf32> {
  %m = arith.constant dense<0> : tensor<16x1xi16>
  // expected-error @+1 {{stc-lower-spmm-to-gpu: constant metadata: illegal 2:4 metadata nibble 0x0 at row 0, group 0}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x8xf16> -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// i8 operands the staged kernel cannot take (kernel=staged: STAGED above).
func.func @i8_k_major(%v: tensor<64x32xi8>, %m: tensor<64x4xi16>, %d: tensor<64x48xi8>) -> tensor<64x48xi32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xi8>, tensor<64x4xi16>, tensor<64x48xi8> -> tensor<64x48xi32>
  return %y : tensor<64x48xi32>
}

// -----

func.func @i8_ragged_k(%v: tensor<24x40xi8>, %m: tensor<24x5xi16>, %x: tensor<20x72xi8>) -> tensor<20x24xi32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<24x40xi8>, tensor<24x5xi16>, tensor<20x72xi8> -> tensor<20x24xi32>
  return %y : tensor<20x24xi32>
}

// -----

// tf32 with a k-major dense operand (K x N, N contiguous), static or
// dynamic: no ldmatrix.trans for 32-bit elements.
func.func @tf32_k_major(%v: tensor<64x16xf32>, %m: tensor<64x4xi16>, %d: tensor<32x40xf32>) -> tensor<64x40xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>}
      : tensor<64x16xf32>, tensor<64x4xi16>, tensor<32x40xf32> -> tensor<64x40xf32>
  return %y : tensor<64x40xf32>
}

// -----

func.func @tf32_k_major_dynamic(%v: tensor<64x16xf32>, %m: tensor<64x4xi16>, %d: tensor<32x?xf32>) -> tensor<64x?xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>}
      : tensor<64x16xf32>, tensor<64x4xi16>, tensor<32x?xf32> -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}
