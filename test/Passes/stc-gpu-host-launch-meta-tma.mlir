// stc-gpu-host-launch for an sm_90a kernel whose metadata comes through
// the TMA ring (kernel_config meta_tma, a tensor map over "meta"): the map
// is built over the converted kernel-ready words, not the canonical
// buffer, viewed as 4-D innermost first: 256 words, 2 (the rest of a
// vector of 128 threads x 4 words), ceil(ceil(K / 64) / 4) vectors,
// ceil(R / 64) row tiles; byte strides 1 KiB, 2 KiB, vectors x 2 KiB;
// UINT32 (2), box 256 x 2 x 1 x 2, no swizzle.
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  func.func private @stc_spmm_0_host(memref<?x72xf16>, memref<?x9xi16>, memref<144x136xf16>, memref<?x136xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32, %vm: !llvm.ptr, %dm: !llvm.ptr, %mm: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, cluster_rows = 2, meta_tma = true>, threads = 288, shared_bytes = 148576, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map", "meta_map"], num_pointers = 4, rows = -1, cols = 136, depth = 144, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>, #stc_gpu.tensor_map<"meta_map" over "meta", type 2, box[256, 2, 1, 2], swizzle 0>]>} {
      gpu.return
    }
  }
}

// CHECK: func.func private @stc_gpu_tensor_map_4d(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr
// CHECK-LABEL: func.func private @stc_spmm_0_host(
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<?x72xf16>
// CHECK: %[[R:.*]] = memref.dim %[[V]], %c0
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[R]], %c64
// CHECK: %[[STEPS:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[VECS:.*]] = arith.ceildivui %[[STEPS]], %c4
// CHECK: %[[WORDS:.*]] = gpu.alloc ({{.*}}) : memref<?xi32>
// CHECK: %[[WADDR:.*]] = memref.extract_aligned_pointer_as_index %[[WORDS]]
// CHECK: %[[WI64:.*]] = arith.index_cast %[[WADDR]] : index to i64
// CHECK: %[[WPTR:.*]] = llvm.inttoptr %[[WI64]]
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0_meta
// CHECK: %[[ALLTILES:.*]] = arith.muli %[[TILES]], %c1
// CHECK: %[[VMAP:.*]] = func.call @stc_gpu_tensor_map_2d(
// CHECK: %[[DMAP:.*]] = func.call @stc_gpu_tensor_map_2d(
// CHECK: %[[NV:.*]] = arith.index_cast %[[VECS]] : index to i64
// CHECK: %[[NT:.*]] = arith.index_cast %[[ALLTILES]] : index to i64
// CHECK: %[[TILESTRIDE:.*]] = arith.muli %[[NV]], %c2048_i64
// CHECK: %[[MMAP:.*]] = func.call @stc_gpu_tensor_map_4d(%[[WPTR]], %c2_i32, %c256_i64, %c2_i64{{[_0-9]*}}, %[[NV]], %[[NT]], %c1024_i64, %c2048_i64{{[_0-9]*}}, %[[TILESTRIDE]], %c256_i32, %c2_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c0_i32)
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0 {{.*}} args(%{{.*}} : !llvm.ptr, %[[WPTR]] : !llvm.ptr, {{.*}}, %[[VMAP]] : !llvm.ptr, %[[DMAP]] : !llvm.ptr, %[[MMAP]] : !llvm.ptr)
