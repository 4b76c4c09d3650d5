// stc-raise-gpu-sparse-ops: upstream's gpu ops on 2:4 matrices become
// tensor code on STC's ops; the memory ops around them move to the host
// and the async tokens and cuSPARSELt set-up disappear.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-raise-gpu-sparse-ops)' | FileCheck %s
// No trace of cuSPARSELt's set-up is left anywhere, with or without
// sparse ops in the module.
// RUN: stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-raise-gpu-sparse-ops)' 2>/dev/null | not grep mgpu

// CHECK-NOT: mgpuCreateSparseLtEnv
// CHECK-LABEL: func.func @spmm
// CHECK-SAME: (%[[A:.*]]: memref<16x32xf16>, %[[B:.*]]: memref<32x16xf16>, %[[C:.*]]: memref<16x16xf32>)
// CHECK-NOT: gpu.
// CHECK: %[[DA:.*]] = memref.alloc() : memref<16x32xf16>
// CHECK: %[[DB:.*]] = memref.alloc() : memref<32x16xf16>
// CHECK: %[[DC:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: memref.copy %[[A]], %[[DA]]
// CHECK: memref.copy %[[B]], %[[DB]]
// CHECK: memref.copy %[[C]], %[[DC]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: memref.alloc(%[[ONE]]) : memref<?xi8>
// CHECK: %[[TA:.*]] = bufferization.to_tensor %[[DA]] restrict writable
// CHECK: %[[P:.*]] = stc.prune %[[TA]] by #stc.nm<2:4> along 1 : tensor<16x32xf16>
// CHECK: bufferization.materialize_in_destination %[[P]] in restrict writable %[[DA]]
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<16x32xf16> -> tensor<16x16xf16>, tensor<16x2xi16>
// CHECK: %[[TB:.*]] = bufferization.to_tensor %[[DB]] restrict :
// CHECK: %[[TC:.*]] = bufferization.to_tensor %[[DC]] restrict writable
// CHECK: %[[R:.*]] = stc.spmm %[[V]], %[[M]], %[[TB]] acc(%[[TC]] : tensor<16x16xf32>) {beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[DC]]
// CHECK: memref.copy %[[DC]], %[[C]]
// CHECK: memref.dealloc %[[DA]]
// CHECK: return
llvm.func @mgpuCreateSparseLtEnv()
llvm.func @mgpuDestroySparseLtEnv()
func.func @spmm(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  llvm.call @mgpuCreateSparseLtEnv() : () -> ()
  %t0 = gpu.wait async
  %da, %t1 = gpu.alloc async [%t0] () : memref<16x32xf16>
  %db, %t2 = gpu.alloc async [%t1] () : memref<32x16xf16>
  %dc, %t3 = gpu.alloc async [%t2] () : memref<16x16xf32>
  %t4 = gpu.memcpy async [%t3] %da, %a : memref<16x32xf16>, memref<16x32xf16>
  %t5 = gpu.memcpy async [%t4] %db, %b : memref<32x16xf16>, memref<32x16xf16>
  %t6 = gpu.memcpy async [%t5] %dc, %c : memref<16x16xf32>, memref<16x16xf32>
  %spA, %t7 = gpu.create_2to4_spmat async [%t6] {PRUNE_AND_CHECK} %c16, %c32, %da : memref<16x32xf16>
  %dnB, %t8 = gpu.create_dn_tensor async [%t7] %db, %c32, %c16 : index, index into memref<32x16xf16>
  %dnC, %t9 = gpu.create_dn_tensor async [%t8] %dc, %c16, %c16 : index, index into memref<16x16xf32>
  %s0, %s1, %s2, %t10 = gpu.spmm_buffer_size async [%t9] %spA, %dnB, %dnC : index, index, index into f32
  %w, %t11 = gpu.alloc async [%t10] (%s0) : memref<?xi8>
  // expected-remark @+1 {{stc: gpu.spmm on a 2:4 matrix runs on STC's kernels (stc.spmm, A pruned in place); its device buffers are host buffers STC copies}}
  %t12 = gpu.spmm async [%t11] %spA, %dnB, %dnC, %w : memref<?xi8> into f32
  %t13 = gpu.destroy_sp_mat async [%t12] %spA
  %t14 = gpu.destroy_dn_tensor async [%t13] %dnB
  %t15 = gpu.destroy_dn_tensor async [%t14] %dnC
  %t16 = gpu.memcpy async [%t15] %c, %dc : memref<16x16xf32>, memref<16x16xf32>
  %t17 = gpu.dealloc async [%t16] %da : memref<16x32xf16>
  gpu.wait [%t17]
  llvm.call @mgpuDestroySparseLtEnv() : () -> ()
  return
}

// -----

// NONE: no pruning, stc.compress checks at run time. A flat buffer is
// viewed as the rows x cols matrix; a transposed B is the dense operand
// with K along its dimension 1; i8 with an i32 C adds C after the product.
// CHECK-LABEL: func.func @flat_transposed_int8
// CHECK-SAME: (%[[A:.*]]: memref<?xi8>, %[[B:.*]]: memref<8x64xi8>, %[[C:.*]]: memref<4x8xi32>, %[[M:.*]]: index)
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [%[[M]], 64] : memref<?xi8> into memref<?x64xi8>
// CHECK: %[[TA:.*]] = bufferization.to_tensor %[[VIEW]]
// CHECK-NOT: stc.prune
// CHECK: stc.compress %[[TA]] by #stc.nm<2:4> along 1 : tensor<?x64xi8> -> tensor<?x32xi8>, tensor<?x4xi16>
// CHECK: %[[R:.*]] = stc.spmm {{.*}} {dense_transposed = true, pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>} {{.*}} -> tensor<4x8xi32>
// CHECK: %[[S:.*]] = linalg.add ins(%[[R]],
// CHECK: bufferization.materialize_in_destination %[[S]] in restrict writable %[[C]]
func.func @flat_transposed_int8(%a: memref<?xi8>, %b: memref<8x64xi8>, %c: memref<4x8xi32>, %m: index) {
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %spA = gpu.create_2to4_spmat {NONE} %m, %c64, %a : memref<?xi8>
  %dnB = gpu.create_dn_tensor %b, %c8, %c64 : index, index into memref<8x64xi8>
  %dnC = gpu.create_dn_tensor %c, %m, %c8 : index, index into memref<4x8xi32>
  // expected-remark @+1 {{A checked to be 2:4}}
  gpu.spmm %spA, %dnB{TRANSPOSE}, %dnC, %a : memref<?xi8> into i32
  gpu.destroy_sp_mat %spA
  return
}

// -----

// A transposed A: the reduction runs along its rows (K x M stored).
// CHECK-LABEL: func.func @transposed_a
// CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 0 : tensor<32x16xbf16>
// CHECK: stc.compress %{{.*}} by #stc.nm<2:4> along 0 : tensor<32x16xbf16> -> tensor<16x16xbf16>, tensor<16x2xi16>
func.func @transposed_a(%a: memref<32x16xbf16>, %b: memref<32x8xbf16>, %c: memref<16x8xbf16>) {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %spA = gpu.create_2to4_spmat {PRUNE_ONLY} %c32, %c16, %a : memref<32x16xbf16>
  %dnB = gpu.create_dn_tensor %b, %c32, %c8 : index, index into memref<32x8xbf16>
  %dnC = gpu.create_dn_tensor %c, %c16, %c8 : index, index into memref<16x8xbf16>
  // expected-remark @+1 {{A pruned in place}}
  gpu.spmm %spA{TRANSPOSE}, %dnB, %dnC, %a : memref<32x16xbf16> into f32
  return
}

// -----

// CHECK-LABEL: func.func @only_setup
// CHECK-NEXT: return
llvm.func @mgpuCreateSparseLtEnv()
llvm.func @mgpuDestroySparseLtEnv()
func.func @only_setup() {
  llvm.call @mgpuCreateSparseLtEnv() : () -> ()
  llvm.call @mgpuDestroySparseLtEnv() : () -> ()
  return
}
