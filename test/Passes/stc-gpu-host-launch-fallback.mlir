// stc-gpu-host-launch for a staged kernel with a direct fallback (a dynamic
// leading dimension: stc-lower-spmm-to-gpu-dynamic-ld.mlir): the staged
// kernel runs only when the dense operand's leading dimension (its
// dimension 1) and the values' row length are multiples of staged_align
// elements, i.e. when every row it copies with cp.async is 16-byte aligned
// (the device buffers are this pass's own gpu.allocs, whose base addresses
// are aligned); otherwise the fallback, with the same arguments, grid and
// block.
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  func.func private @stc_spmm_0_host(memref<100x40xf16>, memref<512xi32>, memref<80x?xf16>, memref<100x?xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 100, cols = -1, depth = 80, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, fallback_kernel = "stc_spmm_0_direct", staged_align = 8>} {
      gpu.return
    }
    gpu.func @stc_spmm_0_direct(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32) kernel {
      gpu.return
    }
  }
}

// CHECK-LABEL: func.func private @stc_spmm_0_host(
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<100x40xf16>, %[[M:[a-z0-9]+]]: memref<512xi32>, %[[D:[a-z0-9]+]]: memref<80x?xf16>, %[[OUT:[a-z0-9]+]]: memref<100x?xf32>)
// CHECK-DAG: %[[VC:.*]] = memref.dim %[[V]], %c1
// CHECK: scf.if
// CHECK: gpu.alloc ({{.*}}) : memref<80x?xf16>
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[GY:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[LD:.*]] = memref.dim %[[D]], %c1
// CHECK: %[[LDREM:.*]] = arith.remui %[[LD]], %c8
// CHECK: %[[LDOK:.*]] = arith.cmpi eq, %[[LDREM]], %c0
// CHECK: %[[VCREM:.*]] = arith.remui %[[VC]], %c8
// CHECK: %[[VCOK:.*]] = arith.cmpi eq, %[[VCREM]], %c0
// CHECK: %[[OK:.*]] = arith.andi %[[LDOK]], %[[VCOK]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: gpu.launch_func @stc_kernels::@stc_spmm_0 blocks in (%[[GX]], %[[GY]], %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%[[A0:.*]] : !llvm.ptr, %[[A1:.*]] : !llvm.ptr, %[[A2:.*]] : !llvm.ptr, %[[A3:.*]] : !llvm.ptr, %[[A4:.*]] : i32, %[[A5:.*]] : i32, %[[A6:.*]] : i32, %[[A7:.*]] : i32, %[[A8:.*]] : i32)
// CHECK-NEXT: } else {
// CHECK-NEXT: gpu.launch_func @stc_kernels::@stc_spmm_0_direct blocks in (%[[GX]], %[[GY]], %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%[[A0]] : !llvm.ptr, %[[A1]] : !llvm.ptr, %[[A2]] : !llvm.ptr, %[[A3]] : !llvm.ptr, %[[A4]] : i32, %[[A5]] : i32, %[[A6]] : i32, %[[A7]] : i32, %[[A8]] : i32)
// CHECK-NEXT: }
// CHECK: gpu.memcpy %[[OUT]]
// CHECK: return
