// stc-gpu-host-launch keeps a program's constants on the device: an operand
// that is the same constant global at every call (the compressed weight,
// its metadata, a bias) is uploaded once, through stc_gpu_resident and a
// zero-initialized slot of its own, and not copied, allocated or freed per
// call; the program's destructor (llvm.mlir.global_dtors) releases every
// slot. Operands that are not constants (X), or a constant at one call
// site and another global at the other (@stc_spmm_1's weight), or a
// global that is not constant (@mutable), are copied per call as before.
// X, which four kernels read, is uploaded once at the program's entry and
// freed before its return; the launch functions take the device copy as it
// is. Y, the result buffer, is not uploaded: it is written, and copied back
// by each launch.
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  memref.global "private" constant @w_values : memref<64x16xf16> = dense<1.0>
  memref.global "private" constant @w_meta : memref<256xi32> = dense<4>
  memref.global "private" constant @other_values : memref<64x16xf16> = dense<2.0>
  memref.global "private" @mutable : memref<256xi32> = dense<4>
  func.func private @stc_spmm_0_host(memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  func.func private @stc_spmm_1_host(memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  func.func @main(%x: memref<32x48xf16>, %y: memref<64x48xf32>) {
    %v = memref.get_global @w_values : memref<64x16xf16>
    %m = memref.get_global @w_meta : memref<256xi32>
    %o = memref.get_global @other_values : memref<64x16xf16>
    %mm = memref.get_global @mutable : memref<256xi32>
    call @stc_spmm_0_host(%v, %m, %x, %y) : (memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) -> ()
    call @stc_spmm_0_host(%v, %m, %x, %y) : (memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) -> ()
    call @stc_spmm_1_host(%v, %mm, %x, %y) : (memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) -> ()
    call @stc_spmm_1_host(%o, %mm, %x, %y) : (memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) -> ()
    return
  }
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 48, depth = 32, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      gpu.return
    }
  }
}

// CHECK-DAG: llvm.mlir.global internal @__stc_resident_0(0 : i64) {{.*}} : i64
// CHECK-DAG: llvm.mlir.global internal @__stc_resident_1(0 : i64) {{.*}} : i64
// CHECK-NOT: @__stc_resident_2
// CHECK-DAG: func.func private @stc_gpu_resident(!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr

// CHECK-LABEL: func.func private @stc_spmm_0_host(
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<64x16xf16>, %[[M:[a-z0-9]+]]: memref<256xi32>, %[[X:[a-z0-9]+]]: memref<32x48xf16>, %[[OUT:[a-z0-9]+]]: memref<64x48xf32>)
// CHECK: scf.if
// CHECK: %[[VA:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
// CHECK: %[[VA64:.*]] = arith.index_cast %[[VA]]
// CHECK: %[[VP:.*]] = llvm.inttoptr %[[VA64]]
// CHECK: %[[S0:.*]] = llvm.mlir.addressof @__stc_resident_0
// 64 x 16 f16: 2048 bytes.
// CHECK: %[[DV:.*]] = func.call @stc_gpu_resident(%[[S0]], %[[VP]], %c2048_i64)
// CHECK: %[[S1:.*]] = llvm.mlir.addressof @__stc_resident_1
// 256 i32: 1024 bytes.
// CHECK: %[[DM:.*]] = func.call @stc_gpu_resident(%[[S1]], %{{.*}}, %c1024_i64)
// X is on the device already: its address, no copy.
// CHECK-NOT: gpu.memcpy
// CHECK: %[[XA:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XA64:.*]] = arith.index_cast %[[XA]]
// CHECK: %[[XP:.*]] = llvm.inttoptr %[[XA64]]
// CHECK: %[[DO:.*]] = gpu.alloc () : memref<64x48xf32>
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0 {{.*}} args(%[[DV]] : !llvm.ptr, %[[DM]] : !llvm.ptr, %[[XP]] : !llvm.ptr,
// CHECK: gpu.memcpy %[[OUT]], %[[DO]]
// CHECK-NEXT: gpu.dealloc %[[DO]]
// CHECK-NEXT: }
// CHECK-NEXT: return

// Another weight at each call, and a global that is not constant: copied.
// CHECK-LABEL: func.func private @stc_spmm_1_host(
// CHECK-NOT: stc_gpu_resident
// CHECK: gpu.alloc () : memref<64x16xf16>
// CHECK: gpu.alloc () : memref<256xi32>
// CHECK: gpu.launch_func
// CHECK: return

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[MX:.*]]: memref<32x48xf16>, %[[MY:.*]]: memref<64x48xf32>)
// CHECK-NEXT: %[[UP:.*]] = gpu.alloc () : memref<32x48xf16>
// CHECK-NEXT: gpu.memcpy %[[UP]], %[[MX]]
// CHECK-COUNT-4: call @stc_spmm_{{[01]}}_host(%{{.*}}, %{{.*}}, %[[UP]], %[[MY]])
// CHECK-NEXT: gpu.dealloc %[[UP]]
// CHECK-NEXT: return

// CHECK: llvm.func @stc_gpu_release_resident(!llvm.ptr)
// CHECK: llvm.func internal @__stc_release_resident() {
// CHECK-NEXT: %[[A0:.*]] = llvm.mlir.addressof @__stc_resident_0
// CHECK-NEXT: llvm.call @stc_gpu_release_resident(%[[A0]])
// CHECK-NEXT: %[[A1:.*]] = llvm.mlir.addressof @__stc_resident_1
// CHECK-NEXT: llvm.call @stc_gpu_release_resident(%[[A1]])
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global_dtors dtors = [@__stc_release_resident], priorities = [0 : i32]
