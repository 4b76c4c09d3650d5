// What the sm_90a kernel cannot take: with kernel=wgmma an error at the op,
// with kernel=auto a remark and the mma.sp kernel; and the pass options.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-configure-gpu-kernels="target=sm_90a kernel=wgmma" --stc-lower-spmm-to-gpu
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a kernel=wgmma accumulate=f16" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=ACC
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_80 kernel=wgmma" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_70" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a wgmma-stages=13" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a cluster-rows=3" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a wgmma-a=global" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=ASOURCE
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a group-rows=65" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=GROUPRANGE
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a cluster-rows=2 group-rows=3" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=GROUPCLUSTER
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_80 block-cols=256" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a block-rows=128 block-cols=256 wgmma-stages=6" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a block-rows=256 block-cols=256" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=SQUARE256
// RUN: not stc-opt %s -split-input-file --stc-configure-gpu-kernels="target=sm_90a block-rows=256 wgmma-a=registers" --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=ROWS256REGS
// REMARK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs i8 operands with a dense operand that has K contiguous
// REMARK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs static rows of values and of the dense operand that are multiples of 16 elements (16 bytes, for TMA); got 40 values per row
// REMARK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs f16, bf16 or i8 operands (got f32)
// REMARK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs static rows {{.*}} dense leading dimension of 60
// REMARK: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs static rows {{.*}} dense leading dimension of ?
// REMARK-NOT: remark
// ACC: error: stc-configure-gpu-kernels: the wgmma kernel needs f32 accumulation (accumulate=f16 was asked for)
// TARGET: error: stc-configure-gpu-kernels: kernel=wgmma needs target=sm_90a, got target=sm_80
// UNKNOWN: error: stc-configure-gpu-kernels: unknown target 'sm_70' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// STAGES: error: stc-configure-gpu-kernels: wgmma-stages must be 2 to 12 (or 0), got 13
// ASOURCE: error: stc-configure-gpu-kernels: wgmma-a must be smem or registers, got 'global'
// CLUSTER: error: stc-configure-gpu-kernels: cluster-rows must be 1 or 2 (or 0), got 3
// GROUPRANGE: error: stc-configure-gpu-kernels: group-rows must be 0 to 64, got 65
// GROUPCLUSTER: error: stc-configure-gpu-kernels: group-rows (3) must be a multiple of the kernel's cluster rows (2)
// WIDE: error: stc-configure-gpu-kernels: block-rows and block-cols must be 64 or 128 (or 0; block-rows=256 too, and block-cols=256, 16 or 32 with target=sm_90a), got 256
// SQUARE256: error: stc-configure-gpu-kernels: block-rows=256 takes at most 128 columns (a 256 x 256 tile needs 256 accumulators per thread)
// ROWS256REGS: error: stc-configure-gpu-kernels: block-rows=256 takes A from shared memory (wgmma-a=smem)
// FIT: error: stc-configure-gpu-kernels: the sm_90a kernel's ring of 6 stages of 128 x 256 needs 246880 bytes of shared memory, more than the 232448 a block may have

func.func @int8_k_major_dense(%v: tensor<64x32xi8>, %m: tensor<64x4xi16>, %d: tensor<64x64xi8>) -> tensor<64x64xi32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the wgmma kernel needs i8 operands with a dense operand that has K contiguous (a sparse rhs with dense M x K, or a sparse lhs with dense_transposed: 8-bit wgmma reads B only K-major); got a k-major dense operand}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xi8>, tensor<64x4xi16>, tensor<64x64xi8> -> tensor<64x64xi32>
  return %y : tensor<64x64xi32>
}

// -----

// i8 rows must be multiples of 16 elements: 40 stored values (K = 80) are
// not.
func.func @int8_unaligned_values(%v: tensor<64x40xi8>, %m: tensor<64x5xi16>, %dt: tensor<64x80xi8>) -> tensor<64x64xi32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the wgmma kernel needs static rows of values and of the dense operand that are multiples of 16 elements (16 bytes, for TMA); got 40 values per row and a dense leading dimension of 80}}
  %y = stc.spmm %v, %m, %dt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<64x40xi8>, tensor<64x5xi16>, tensor<64x80xi8> -> tensor<64x64xi32>
  return %y : tensor<64x64xi32>
}

// -----

// f32 (tf32 on the mma.sp path) has no sm_90a kernel.
func.func @tf32(%v: tensor<64x32xf32>, %m: tensor<64x8xi16>, %d: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the wgmma kernel needs f16, bf16 or i8 operands (got f32)}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>}
      : tensor<64x32xf32>, tensor<64x8xi16>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

func.func @unaligned_dense(%v: tensor<64x32xbf16>, %m: tensor<64x4xi16>, %d: tensor<64x60xbf16>) -> tensor<64x60xf32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the wgmma kernel needs static rows of values and of the dense operand that are multiples of 8 elements (16 bytes, for TMA); got 32 values per row and a dense leading dimension of 60}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xbf16>, tensor<64x4xi16>, tensor<64x60xbf16> -> tensor<64x60xf32>
  return %y : tensor<64x60xf32>
}

// -----

func.func @dynamic_dense(%v: tensor<64x32xbf16>, %m: tensor<64x4xi16>, %d: tensor<64x?xbf16>) -> tensor<64x?xf32> {
  // expected-error @+1 {{stc-configure-gpu-kernels: the wgmma kernel needs static rows of values and of the dense operand that are multiples of 8 elements (16 bytes, for TMA); got 32 values per row and a dense leading dimension of ?}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xbf16>, tensor<64x4xi16>, tensor<64x?xbf16> -> tensor<64x?xf32>
  return %y : tensor<64x?xf32>
}

// -----

// A supported op: no diagnostic (the error needs accumulate=f16: ACC).
func.func @f16_accumulation(%v: tensor<256x32xf16>, %m: tensor<256x4xi16>, %d: tensor<64x256xf16>) -> tensor<256x256xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<256x32xf16>, tensor<256x4xi16>, tensor<64x256xf16> -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
