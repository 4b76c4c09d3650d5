// stc-lower-spmm-to-gpu: each stc.spmm becomes a kernel in gpu.module
// @stc_kernels built on mma.sp (2 x 4 instructions per K step of 32, in a
// loop over ceil(K / 32) steps), described by stc_gpu.kernel_info, and a call
// of a private host function on buffers (defined later by
// stc-gpu-host-launch).
// RUN: stc-opt %s --stc-configure-gpu-kernels=kernel=direct --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="kernel=direct ordered-metadata=false" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=PLAIN
// RUN: stc-opt %s --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=AUTO

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @lhs_f16
// CHECK-DAG: %[[V:.*]] = bufferization.to_buffer %arg0 read_only : tensor<64x32xf16> to memref<64x32xf16>
// CHECK-DAG: %[[M:.*]] = bufferization.to_buffer %arg1 read_only : tensor<64x4xi16> to memref<64x4xi16>
// CHECK-DAG: %[[D:.*]] = bufferization.to_buffer %arg2 read_only : tensor<64x48xf16> to memref<64x48xf16>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<64x48xf32>
// CHECK: call @stc_spmm_0_host(%[[V]], %[[M]], %[[D]], %[[OUT]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
func.func @lhs_f16(%v: tensor<64x32xf16>, %m: tensor<64x4xi16>, %d: tensor<64x48xf16>) -> tensor<64x48xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<64x32xf16>, tensor<64x4xi16>, tensor<64x48xf16> -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}

// A sparse rhs with bias, ReLU and dynamic rows: the result's rows come
// from the dense operand.
// CHECK-LABEL: func.func @rhs_bf16_bias_relu
// CHECK: %[[ROWS:.*]] = tensor.dim %arg2, %c0
// CHECK: memref.alloc(%[[ROWS]]) : memref<?x40xbf16>
// CHECK: call @stc_spmm_1_host({{.*}}) : (memref<40x40xbf16>, memref<40x5xi16>, memref<?x72xbf16>, memref<40xbf16>, memref<?x40xbf16>) -> ()
func.func @rhs_bf16_bias_relu(%v: tensor<40x40xbf16>, %m: tensor<40x5xi16>, %x: tensor<?x72xbf16>, %b: tensor<40xbf16>) -> tensor<?x40xbf16> {
  %y = stc.spmm %v, %m, %x bias(%b : tensor<40xbf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<40x40xbf16>, tensor<40x5xi16>, tensor<?x72xbf16> -> tensor<?x40xbf16>
  return %y : tensor<?x40xbf16>
}

// Constant metadata is converted at compile time: the kernel gets the
// kernel-ready words (docs/GPU-LAYOUT.md) as a constant and no conversion
// kernel. Canonical row 0 = [0xE984, 0xD8C4], every other word 0x4444:
// lane 0's word for K step 0 is row 0 | row 8 << 16 of column 0 =
// 0x4444E984, its words 1-3 are padding (K has one step), lane 1's word
// (index 4) takes column 1: 0x4444D8C4.
// CHECK-LABEL: func.func @constant_meta
// (Printed as little-endian hex.)
// CHECK: %[[WORDS:.*]] = arith.constant dense<"0x84E94444444444444444444444444444C4D84444{{.*}}"> : tensor<128xi32>
// CHECK: %[[WB:.*]] = bufferization.to_buffer %[[WORDS]] read_only : tensor<128xi32> to memref<128xi32>
// CHECK: call @stc_spmm_2_host(%{{.*}}, %[[WB]], %{{.*}}, %{{.*}}) : (memref<32x16xf16>, memref<128xi32>, memref<32x8xf16>, memref<32x8xf32>) -> ()
func.func @constant_meta(%v: tensor<32x16xf16>, %x: tensor<32x8xf16>) -> tensor<32x8xf32> {
  %m = arith.constant dense<[[-5756, -10044], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476], [17476, 17476]]> : tensor<32x2xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<32x16xf16>, tensor<32x2xi16>, tensor<32x8xf16> -> tensor<32x8xf32>
  return %y : tensor<32x8xf32>
}

// Run-time metadata (a function argument) is converted to the kernel-ready
// layout on the device first, by a generated kernel: one thread per word,
// two canonical 16-bit words each.
// CHECK: gpu.module @stc_kernels
// CHECK: gpu.func @stc_spmm_0_meta(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<1> -> i16
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<1>
// CHECK: gpu.return
// CHECK: gpu.func @stc_spmm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 48, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
// One kernel-ready metadata word per lane and K step serves the warp's two
// 16-row tiles: selector 0 for the first four mma.sp, 1 for the others.
// CHECK: scf.for
// CHECK: %[[WORD:.*]] = llvm.load {{.*}} : !llvm.ptr<1> -> i32
// CHECK: %[[META:.*]] = arith.select {{.*}}, %[[WORD]], %c1145324612_i32
// CHECK-COUNT-4: nvvm.mma.sp.sync {{.*}} sparseMetadata[%[[META]]] selector[%c0_i32{{.*}}] {orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: nvvm.mma.sp.sync {{.*}} sparseMetadata[%[[META]]] selector[%c1_i32{{.*}}] {orderedMetadata
// CHECK-NOT: nvvm.mma.sp.sync
// CHECK: scf.yield
// The epilogue stores f32 as it is, guarded by the bounds.
// CHECK-COUNT-32: scf.if
// CHECK: gpu.return

// The sparse rhs: bias pointer before out; bf16 operands are packed i32
// registers with explicit PTX types; ReLU and the bf16 store in the
// epilogue; a dynamic P is -1.
// CHECK: gpu.func @stc_spmm_1(
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_1", {{.*}} params = ["values", "meta", "dense", "bias", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 5, rows = 40, cols = -1, depth = 72, sparse_lhs = false, dense_transposed = false, input_type = bf16, output_type = bf16,
// CHECK-COUNT-8: nvvm.mma.sp.sync {{.*}} {multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, f32)
// CHECK: arith.maximumf
// CHECK: arith.truncf {{.*}} : f32 to bf16

// The constant metadata's kernel: no conversion kernel in front of it.
// CHECK-NOT: @stc_spmm_2_meta
// CHECK: gpu.func @stc_spmm_2(
// CHECK-SAME: meta_layout = kernel_ready
// CHECK: func.func private @stc_spmm_0_host(memref<64x32xf16>, memref<64x4xi16>, memref<64x48xf16>, memref<64x48xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
// CHECK: func.func private @stc_spmm_1_host({{.*}}) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_1}

// PLAIN-NOT: orderedMetadata
// PLAIN: ordered_metadata = false
// PLAIN: nvvm.mma.sp.sync

// kernel=auto: the staged kernel where D's rows are 16-byte aligned: in
// @lhs_f16, D = the K x N dense operand, 48 columns (k-major, read with
// ldmatrix.trans); in @rhs_bf16_bias_relu, D[k][p] = X[p][k], 72 columns
// (p-major, plain ldmatrix; X's dynamic rows do not matter).
// The staged kernel: 3 stages of 6 KiB of shared memory; per stage one
// cp.async of A and two of B per thread, zero-filling past the edges
// (src-size operand); a prologue of 2 stages; in the loop a wait (all
// groups at the tail, 1 otherwise), a barrier, the next stage's copies, and
// ldmatrix.x4 of 2 A tiles and 4 B tiles for the 8 mma.sp.
// AUTO: gpu.module @stc_kernels
// AUTO: llvm.mlir.global internal @stc_spmm_0_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<18432 x i8>
// AUTO: gpu.func @stc_spmm_0(
// AUTO-SAME: config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>, threads = 128, shared_bytes = 0, static_shared_bytes = 18432
// AUTO-COUNT-2: nvvm.cp.async.commit.group
// AUTO: scf.for
// AUTO: nvvm.cp.async.wait.group 0
// AUTO: nvvm.cp.async.wait.group 1
// AUTO: gpu.barrier
// AUTO-COUNT-3: nvvm.cp.async.shared.global {{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// AUTO: nvvm.cp.async.commit.group
// AUTO-COUNT-2: nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// AUTO-COUNT-4: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<col>, num = 4 : i32
// AUTO-COUNT-8: nvvm.mma.sp.sync
// AUTO: scf.yield
// AUTO: gpu.func @stc_spmm_1(
// AUTO-SAME: family = staged
// AUTO: scf.for
// AUTO-COUNT-6: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<row>, num = 4 : i32
// AUTO-NOT: nvvm.ldmatrix
// AUTO: gpu.return
// AUTO: gpu.func @stc_spmm_2(
