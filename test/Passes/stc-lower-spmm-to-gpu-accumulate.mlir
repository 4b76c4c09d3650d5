// accumulate=f16 (stc-configure-gpu-kernels, then stc-lower-spmm-to-gpu): the mma.sp accumulates in f16 (two
// f16x2 registers per instruction, 2 x 4 x 2 loop-carried vectors per warp
// tile instead of 32 f32), and the epilogue widens each element to f32
// before alpha, bias and the activation. Only f16 operands have it: a bf16
// op keeps f32 accumulators, with a remark.
// Numerics: test/GPU/emulate-spmm.mlir.
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels="accumulate=f16 kernel=direct" --stc-lower-spmm-to-gpu -verify-diagnostics | FileCheck %s

// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64, accumulator = f16>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2xf16>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], {{.*}}) -> (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>)
// CHECK-COUNT-8: nvvm.mma.sp.sync A[{{.*}}] B[{{.*}}] C[%{{.*}}, %{{.*}}] sparseMetadata[{{.*}}] {{.*}} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK: scf.yield
// CHECK: llvm.extractelement
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: gpu.return
func.func @f16(%v: tensor<64x32xf16>, %m: tensor<64x4xi16>, %d: tensor<64x48xf16>) -> tensor<64x48xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xf16>, tensor<64x4xi16>, tensor<64x48xf16> -> tensor<64x48xf16>
  return %y : tensor<64x48xf16>
}

// -----

func.func @bf16(%v: tensor<64x32xbf16>, %m: tensor<64x4xi16>, %d: tensor<64x48xbf16>) -> tensor<64x48xf32> {
  // expected-remark @+1 {{stc-configure-gpu-kernels: accumulate=f16 applies to f16 operands only (mma.sp accumulates bf16 and tf32 in f32, i8 in s32); this 'bf16' op accumulates in f32}}
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xbf16>, tensor<64x4xi16>, tensor<64x48xbf16> -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>,
// CHECK: nvvm.mma.sp.sync {{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
