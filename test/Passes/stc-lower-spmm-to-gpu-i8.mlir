// stc-lower-spmm-to-gpu on i8 operands: mma.sp m16n8k64 with s8 operands
// and wrapping s32 accumulators, two kernel-ready metadata words per lane
// and K step (one per 16-row tile, selector 0), and the scaling epilogue
// (s32 -> f32, alpha * scale, bias, activation, round to nearest even and
// saturate to i8). The staged kernel applies when the dense operand has K
// contiguous and its rows and the value rows are whole 16-byte chunks;
// otherwise the direct kernel (kernel=staged is then an error:
// stc-lower-spmm-to-gpu-invalid.mlir).
// Numerics: test/GPU/emulate-spmm-i8.mlir (and cuda-spmm-i8.mlir).
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu -verify-diagnostics | FileCheck %s

// A sparse rhs (X . W, X M x K row-major) with K = 64 and a per-channel
// scale: the staged kernel, 16 i8 per cp.async chunk.
// CHECK-LABEL: gpu.func @stc_spmm_0_meta
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_80, family = staged, {{.*}}accumulator = s32>
// CHECK-SAME: params = ["values", "meta", "dense", "scale", "out", "R", "P", "K", "value_cols", "meta_cols"]
// CHECK-SAME: input_type = i8, output_type = i8
// The metadata words of the first stages - 1 = 2 K steps (two per step)
// are loaded before the loop and travel in its iter_args (then the stage
// slot); each iteration loads the pair of the step 2 ahead before its
// barrier, feeds the oldest pair to mma.sp and yields the ring moved by
// one step.
// CHECK: %[[PAD:.*]] = arith.constant 1145324612 : i32
// CHECK: %[[W0:.*]] = arith.select %{{.*}}, %{{.*}}, %[[PAD]] : i32
// CHECK: %[[W1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[PAD]] : i32
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[M0:arg[0-9]+]] = %[[W0]], %[[M1:arg[0-9]+]] = %[[W1]], %[[M2:arg[0-9]+]] = %{{[0-9]+}}, %[[M3:arg[0-9]+]] = %{{[0-9]+}}, %[[SLOT:arg[0-9]+]] = %c0_i32{{.*}}) -> (i32, i32,
// CHECK: %[[PADIN:.*]] = arith.constant 1145324612 : i32
// CHECK: %[[N0:.*]] = arith.select %{{.*}}, %{{.*}}, %[[PADIN]] : i32
// CHECK: %[[N1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[PADIN]] : i32
// CHECK: gpu.barrier
// CHECK: nvvm.ldmatrix
// CHECK-COUNT-4: nvvm.mma.sp.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] sparseMetadata[%[[M0]]] selector[%{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: nvvm.mma.sp.sync {{.*}} sparseMetadata[%[[M1]]]
// CHECK: scf.yield {{.*}}, %[[M2]], %[[M3]], %[[N0]], %[[N1]], %{{[0-9]+}} :
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: %[[S:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: %[[F:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<1>
func.func @staged(%v: tensor<96x32xi8>, %m: tensor<96x4xi16>, %x: tensor<80x64xi8>, %s: tensor<96xf32>) -> tensor<80x96xi8> {
  %y = stc.spmm %v, %m, %x scale(%s : tensor<96xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.5}
      : tensor<96x32xi8>, tensor<96x4xi16>, tensor<80x64xi8> -> tensor<80x96xi8>
  return %y : tensor<80x96xi8>
}

// -----

// The i32 result is the raw accumulator: no conversion in the epilogue.
// A sparse lhs with dense K x N (N contiguous) takes the direct kernel,
// which packs four bytes per register from single-byte loads.
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = direct
// CHECK-SAME: output_type = i32
// CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: nvvm.mma.sp.sync
// CHECK-NOT: arith.sitofp
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
func.func @direct_lhs(%v: tensor<64x32xi8>, %m: tensor<64x4xi16>, %d: tensor<64x48xi8>) -> tensor<64x48xi32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xi8>, tensor<64x4xi16>, tensor<64x48xi8> -> tensor<64x48xi32>
  return %y : tensor<64x48xi32>
}

// -----

// K = 72 pads to 80: value rows of 40 bytes are not whole chunks, so the
// direct kernel (also for f16 output and a constant weight, whose metadata
// is made kernel-ready here: 2 words per lane per K step, 2 steps, one
// 128-bit vector per lane and row block of 32 rows).
// CHECK: arith.constant dense<{{.*}}> : tensor<128xi32>
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = direct
// CHECK-SAME: output_type = f16, meta_layout = kernel_ready
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @ragged_const(%x: tensor<20x72xi8>) -> tensor<20x24xf16> {
  %v = arith.constant dense<3> : tensor<24x40xi8>
  %m = arith.constant dense<17476> : tensor<24x5xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.1}
      : tensor<24x40xi8>, tensor<24x5xi16>, tensor<20x72xi8> -> tensor<20x24xf16>
  return %y : tensor<20x24xf16>
}
