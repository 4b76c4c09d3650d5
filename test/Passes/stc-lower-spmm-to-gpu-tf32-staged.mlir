// stc-lower-spmm-to-gpu on f32 operands (tf32, 1:2, mma.sp m16n8k16): the
// staged kernel applies when the dense operand has K contiguous (p-major:
// a sparse rhs with dense M x K, or a sparse lhs with dense_transposed) and
// 16-byte rows (a leading dimension that is a multiple of 4). A K step of
// 16 tf32 is the bytes of an f16 one (32 bytes of A values per row, 64 of
// B per column): cp.async chunks of 4 elements, ldmatrix .b16 (not
// transposed), each register one element, bitcast to f32 and rounded with
// cvt.rna.tf32.f32 as the direct kernel rounds what it loads. A k-major D
// keeps the direct kernel (ldmatrix.trans moves 16-bit elements).
// Numerics: test/GPU/emulate-spmm-staged-tf32-dynamic.mlir.
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=direct --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=DIRECT

// A sparse rhs (X . W, X 70 x 36: 144-byte rows), K = 36 (3 steps of 16,
// the last one ragged).
// CHECK-LABEL: gpu.module @stc_kernels
// CHECK: llvm.mlir.global internal @stc_spmm_0_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<18432 x i8>
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>
// CHECK-SAME: static_shared_bytes = 18432
// CHECK-SAME: input_type = f32
// CHECK-SAME: meta_k_per_word = 16
// CHECK-NOT: fallback_kernel
// The prologue's copies, chunks of 4 f32 planned before the pipeline: a
// step inside K (step < min(value_cols / 8, K / 16)) copies whole chunks
// (16 bytes where the row or column exists, else 0) ...
// CHECK: %[[WHOLE:.*]] = arith.select %{{.*}}, %c16_i32{{.*}}, %c0_i32{{.*}} : i32
// CHECK: scf.if
// CHECK: %[[SRC0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC0]], 16, cache =  cg, %[[WHOLE]]
// ... and a step at K's end what is left (4 bytes per element, 0 past the
// edges, from element 0 then).
// CHECK: } else {
// CHECK: %[[CLAMP:.*]] = arith.minsi %{{.*}}, %c4_i32{{.*}} : i32
// CHECK: %[[BYTES:.*]] = arith.muli %[[CLAMP]], %c4_i32{{.*}} : i32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %c0_i64{{.*}} : i64
// CHECK: %[[SRC:.*]] = llvm.getelementptr %{{.*}}[%[[SAFE]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %[[SRC]], 16, cache =  cg, %[[BYTES]]
// CHECK: scf.for
// Two ldmatrix.x4 of A, each register an f32 rounded to tf32 ...
// CHECK: %[[A:.*]] = nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[A]][0]
// CHECK: %[[A0F:.*]] = llvm.bitcast %[[A0]] : i32 to f32
// CHECK: nvvm.convert.float.to.tf32 %[[A0F]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-COUNT-3: nvvm.convert.float.to.tf32 {{.*}}rna
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<row>
// ... and four of B, not transposed.
// CHECK-COUNT-4: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.mma.sp.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: scf.yield
// DIRECT: gpu.func @stc_spmm_0(
// DIRECT-SAME: family = direct
// DIRECT-NOT: nvvm.ldmatrix
// DIRECT: gpu.return
func.func @rhs_staged(%v: tensor<45x20xf32>, %m: tensor<45x5xi16>, %x: tensor<70x36xf32>) -> tensor<70x45xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<1:2>, sparse = #stc.operand<rhs>}
      : tensor<45x20xf32>, tensor<45x5xi16>, tensor<70x36xf32> -> tensor<70x45xf32>
  return %y : tensor<70x45xf32>
}

// -----

// A sparse lhs with dense_transposed (D = B^T, N x K, p-major) is staged;
// the plain sparse lhs (dense K x N, k-major) and a p-major D whose rows are
// not 16-byte aligned (K = 50) keep the direct kernel.
// CHECK-LABEL: gpu.module @stc_kernels
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = staged
// CHECK-SAME: dense_transposed = true
// CHECK: gpu.func @stc_spmm_1(
// CHECK-SAME: family = direct
// CHECK-SAME: dense_transposed = false
// CHECK-NOT: nvvm.ldmatrix
// CHECK: gpu.return
// CHECK: gpu.func @stc_spmm_2(
// CHECK-SAME: family = direct
// CHECK-NOT: nvvm.ldmatrix
// CHECK: gpu.return
func.func @three(%v: tensor<64x16xf32>, %m: tensor<64x4xi16>, %bt: tensor<40x32xf32>, %b: tensor<32x40xf32>,
                 %v2: tensor<24x28xf32>, %m2: tensor<24x7xi16>, %x: tensor<20x50xf32>)
    -> (tensor<64x40xf32>, tensor<64x40xf32>, tensor<20x24xf32>) {
  %y0 = stc.spmm %v, %m, %bt {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<64x16xf32>, tensor<64x4xi16>, tensor<40x32xf32> -> tensor<64x40xf32>
  %y1 = stc.spmm %v, %m, %b {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>}
      : tensor<64x16xf32>, tensor<64x4xi16>, tensor<32x40xf32> -> tensor<64x40xf32>
  %y2 = stc.spmm %v2, %m2, %x {pattern = #stc.nm<1:2>, sparse = #stc.operand<rhs>}
      : tensor<24x28xf32>, tensor<24x7xi16>, tensor<20x50xf32> -> tensor<20x24xf32>
  return %y0, %y1, %y2 : tensor<64x40xf32>, tensor<64x40xf32>, tensor<20x24xf32>
}
