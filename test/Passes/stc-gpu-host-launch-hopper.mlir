// stc-gpu-host-launch for an sm_90a kernel (stc-lower-spmm-to-gpu-hopper.mlir):
// run-time metadata converted with the Hopper geometry of the kernel_info
// (ceil(R / 64) x ceil(ceil(K / 64) / 4) x 512 words), a TMA descriptor per
// `tensor_maps` entry built by the runtime from the operand's device buffer
// (inner = dimension 1, outer = dimension 0, rows of inner x element bytes)
// and passed after the sizes, and the launch with the kernel's dynamic
// shared memory and cluster (grid y rounded up to whole clusters).
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  func.func private @stc_spmm_0_host(memref<?x72xf16>, memref<?x9xi16>, memref<144x136xf16>, memref<?x136xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32, %vm: !llvm.ptr, %dm: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, cluster_rows = 2>, threads = 288, shared_bytes = 148576, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map"], num_pointers = 4, rows = -1, cols = 136, depth = 144, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>]>} {
      gpu.return
    }
  }
}

// CHECK: func.func private @stc_gpu_tensor_map_2d(!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
// CHECK-LABEL: func.func private @stc_spmm_0_host(
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<?x72xf16>, %[[M:[a-z0-9]+]]: memref<?x9xi16>, %[[D:[a-z0-9]+]]: memref<144x136xf16>, %[[OUT:[a-z0-9]+]]: memref<?x136xf32>)
// CHECK: %[[R:.*]] = memref.dim %[[V]], %c0
// CHECK: scf.if
// CHECK: %[[DV:.*]] = gpu.alloc ({{.*}}) : memref<?x72xf16>
// CHECK: %[[VADDR:.*]] = memref.extract_aligned_pointer_as_index %[[DV]]
// CHECK: %[[VI64:.*]] = arith.index_cast %[[VADDR]] : index to i64
// CHECK: %[[VPTR:.*]] = llvm.inttoptr %[[VI64]]
// CHECK: %[[DD:.*]] = gpu.alloc () : memref<144x136xf16>
// CHECK: %[[DADDR:.*]] = memref.extract_aligned_pointer_as_index %[[DD]]
// CHECK: %[[DI64:.*]] = arith.index_cast %[[DADDR]] : index to i64
// CHECK: %[[DPTR:.*]] = llvm.inttoptr %[[DI64]]
// Metadata words: ceil(R / 64) row tiles x ceil(ceil(144 / 64) / 4) = 1
// vector x 512.
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[R]], %c64
// CHECK: %[[STEPS:.*]] = arith.ceildivui %{{.*}}, %c64
// CHECK: %[[VECS:.*]] = arith.ceildivui %[[STEPS]], %c4
// CHECK: %[[TV:.*]] = arith.muli %[[TILES]], %[[VECS]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[TV]], %c512
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0_meta
// The maps: values (R x 72 f16, rows of 144 bytes, box 32 x 128, 64-byte
// swizzle), then D (144 x 136, rows of 272 bytes, box 64 x 64, 128-byte).
// CHECK: %[[VD1:.*]] = memref.dim %[[V]], %c1
// CHECK: %[[VIN:.*]] = arith.index_cast %[[VD1]] : index to i64
// CHECK: %[[VROW:.*]] = arith.muli %c2_i64, %[[VIN]]
// CHECK: %[[VD0:.*]] = memref.dim %[[V]], %c0
// CHECK: %[[VOUT:.*]] = arith.index_cast %[[VD0]] : index to i64
// CHECK: %[[VMAP:.*]] = func.call @stc_gpu_tensor_map_2d(%[[VPTR]], %c6_i32, %[[VIN]], %[[VOUT]], %[[VROW]], %c32_i32, %c128_i32, %c64_i32)
// CHECK: %[[DMAP:.*]] = func.call @stc_gpu_tensor_map_2d(%[[DPTR]], %c6_i32{{[_0-9]*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c64_i32{{[_0-9]*}}, %c64_i32{{[_0-9]*}}, %c128_i32{{[_0-9]*}})
// Grid y: ceil(R / 128) rounded up to a multiple of 2.
// CHECK: %[[GY0:.*]] = arith.ceildivui %[[R]], %c128
// CHECK: %[[GY1:.*]] = arith.ceildivui %[[GY0]], %c2
// CHECK: %[[GY:.*]] = arith.muli %[[GY1]], %c2
// CHECK: gpu.launch_func @stc_kernels::@stc_spmm_0 clusters in (%c1{{.*}}, %c2{{.*}}, %c1{{.*}}) blocks in (%{{.*}}, %[[GY]], %c1{{.*}}) threads in (%c288{{.*}}, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c148576_i32 args({{.*}}, %[[VMAP]] : !llvm.ptr, %[[DMAP]] : !llvm.ptr)
// CHECK: gpu.memcpy %[[OUT]]
// CHECK: return
