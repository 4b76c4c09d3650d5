// stc-gpu-host-launch gives the declared host function its body: device
// buffers for every argument, copies of the inputs (not of the result)
// in, the launch configured by stc_gpu.kernel_info (grid = ceil(P / 64) x
// ceil(R / 64), 128 threads; R, P, K, value and metadata columns as i32),
// the result copied back, every device buffer freed, and no launch when the
// result is empty. Canonical (run-time) metadata is first converted to the
// kernel-ready layout by the kernel's conversion kernel, into a device
// buffer of groups x ceil(R / 32) x ceil(ceil(K / 32) / 4) x 128 words; a
// kernel given kernel-ready metadata (a compiled-in constant) gets it as
// it is.
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  func.func private @stc_spmm_0_host(memref<?x40xf16>, memref<?x5xi16>, memref<100x72xf16>, memref<40xf16>, memref<100x?xf16>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  func.func private @stc_spmm_1_host(memref<64x16xf16>, memref<256xi32>, memref<32x48xf16>, memref<64x48xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_1}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%m: !llvm.ptr, %w: !llvm.ptr, %r: i32, %mc: i32, %rb: i32, %v: i32, %t: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_1(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_1", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 48, depth = 32, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %a4: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "bias", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 5, rows = -1, cols = 100, depth = 72, sparse_lhs = false, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      gpu.return
    }
  }
}

// CHECK-LABEL: func.func private @stc_spmm_0_host(
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<?x40xf16>, %[[M:[a-z0-9]+]]: memref<?x5xi16>, %[[D:[a-z0-9]+]]: memref<100x72xf16>, %[[B:[a-z0-9]+]]: memref<40xf16>, %[[OUT:[a-z0-9]+]]: memref<100x?xf16>)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK-NOT: stc_gpu.launches
// CHECK-DAG: %[[R:.*]] = memref.dim %[[V]], %c0
// CHECK-DAG: %[[VC:.*]] = memref.dim %[[V]], %c1
// CHECK-DAG: %[[MC:.*]] = memref.dim %[[M]], %c1
// The sparse rhs: K is dim 1 of the dense M x K operand, P dim 0 of out.
// CHECK-DAG: %[[K:.*]] = memref.dim %[[D]], %c1
// CHECK-DAG: %[[P:.*]] = memref.dim %[[OUT]], %c0
// CHECK: scf.if
// CHECK: %[[DV:.*]] = gpu.alloc (%{{.*}}) : memref<?x40xf16>
// CHECK: gpu.memcpy %[[DV]], %[[V]]
// CHECK: %[[DM:.*]] = gpu.alloc (%{{.*}}) : memref<?x5xi16>
// CHECK: gpu.memcpy %[[DM]], %[[M]]
// CHECK: %[[DD:.*]] = gpu.alloc () : memref<100x72xf16>
// CHECK: gpu.memcpy %[[DD]], %[[D]]
// CHECK: %[[DB:.*]] = gpu.alloc () : memref<40xf16>
// CHECK: gpu.memcpy %[[DB]], %[[B]]
// CHECK: %[[DO:.*]] = gpu.alloc (%{{.*}}) : memref<100x?xf16>
// CHECK-NOT: gpu.memcpy %[[DO]]
// CHECK: %[[RB:.*]] = arith.ceildivui %[[R]], %c32
// CHECK: %[[STEPS:.*]] = arith.ceildivui %[[K]], %c32
// CHECK: %[[VEC:.*]] = arith.ceildivui %[[STEPS]], %c4
// CHECK: %[[RBV:.*]] = arith.muli %[[RB]], %[[VEC]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[RBV]], %c128
// CHECK: %[[WORDS:.*]] = gpu.alloc ({{.*}}) : memref<?xi32>
// CHECK: %[[WA:.*]] = memref.extract_aligned_pointer_as_index %[[WORDS]]
// CHECK: %[[WA64:.*]] = arith.index_cast %[[WA]]
// CHECK: %[[WP:.*]] = llvm.inttoptr %[[WA64]]
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0_meta blocks in ({{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}}) args(%{{.*}} : !llvm.ptr, %[[WP]] : !llvm.ptr, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32)
// CHECK: %[[GX:.*]] = arith.ceildivui %[[P]], %c64
// CHECK: %[[GY:.*]] = arith.ceildivui %[[R]], %c64
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0 blocks in (%[[GX]], %[[GY]], %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}}) args({{.*}} : !llvm.ptr, %[[WP]] : !llvm.ptr, {{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr, {{.*}} : !llvm.ptr, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32, {{.*}} : i32)
// CHECK: gpu.memcpy %[[OUT]], %[[DO]]
// (The words first: %[[DV]] may be a prefix of its name.)
// CHECK-DAG: gpu.dealloc %[[WORDS]] :
// CHECK-DAG: gpu.dealloc %[[DV]] :
// CHECK-DAG: gpu.dealloc %[[DM]]
// CHECK-DAG: gpu.dealloc %[[DD]]
// CHECK-DAG: gpu.dealloc %[[DB]]
// CHECK-DAG: gpu.dealloc %[[DO]]
// CHECK: return

// Kernel-ready metadata: copied as it is, meta_cols 0, no conversion.
// CHECK-LABEL: func.func private @stc_spmm_1_host(
// CHECK-NOT: @stc_spmm_1_meta
// CHECK-NOT: memref<?xi32>
// CHECK: gpu.alloc () : memref<256xi32>
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_1
// CHECK: return
