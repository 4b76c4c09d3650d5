// Every diagnostic of stc-gpu-host-launch: a host function whose kernel is
// missing, has no stc_gpu.kernel_info, takes other buffers, lacks the metadata
// conversion kernel its canonical metadata needs or the direct fallback
// its kernel_info names, tensor maps that do not fit their parameters or
// operands, or an elementwise kernel of other parameters.
// RUN: stc-opt %s -split-input-file --stc-gpu-host-launch -verify-diagnostics

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@missing not found}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc_gpu.launches = @stc_kernels::@missing}
  gpu.module @stc_kernels {
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no stc_gpu.kernel_info}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc_gpu.launches = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: h does not match its kernel's parameters}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<4x8xf32>) attributes {stc_gpu.launches = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no metadata conversion kernel}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc_gpu.launches = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "k_meta", meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no fallback kernel k_direct}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x?xf16>, memref<4x?xf32>) attributes {stc_gpu.launches = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = -1, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, fallback_kernel = "k_direct", staged_align = 8>} {
      gpu.return
    }
  }
}

// -----

// An elementwise kernel takes a pointer per buffer and a size per dimension
// of the result: here one size is missing.
module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: h does not match its elementwise kernel's parameters}}
  func.func private @h(memref<4x8xf16>, memref<4x8xf16>) attributes {stc_gpu.launches = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k(%a: !llvm.ptr, %b: !llvm.ptr, %d0: i32) kernel attributes {stc_gpu.elementwise} {
      gpu.return
    }
  }
}

// -----

// A map over the metadata that is not its words (type 6, f16).
module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: tensor map #stc_gpu.tensor_map<"meta_map" over "meta", type 6, box[256, 2, 1, 2], swizzle 0> does not view the kernel-ready metadata}}
  func.func private @stc_spmm_0_host(memref<?x72xf16>, memref<?x9xi16>, memref<144x136xf16>, memref<?x136xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32, %vm: !llvm.ptr, %dm: !llvm.ptr, %mm: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, cluster_rows = 2, meta_tma = true>, threads = 288, shared_bytes = 148576, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map", "meta_map"], num_pointers = 4, rows = -1, cols = 136, depth = 144, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>, #stc_gpu.tensor_map<"meta_map" over "meta", type 6, box[256, 2, 1, 2], swizzle 0>]>} {
      gpu.return
    }
  }
}


// -----

// A map over a size, not an operand buffer.
module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: tensor map #stc_gpu.tensor_map<"values_map" over "K", type 6, box[32, 128], swizzle 64> does not match the kernel's parameters}}
  func.func private @stc_spmm_0_host(memref<?x72xf16>, memref<?x9xi16>, memref<144x136xf16>, memref<?x136xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32, %vm: !llvm.ptr, %dm: !llvm.ptr, %mm: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, cluster_rows = 2, meta_tma = true>, threads = 288, shared_bytes = 148576, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map", "meta_map"], num_pointers = 4, rows = -1, cols = 136, depth = 144, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "K", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>, #stc_gpu.tensor_map<"meta_map" over "meta", type 2, box[256, 2, 1, 2], swizzle 0>]>} {
      gpu.return
    }
  }
}


// -----

// A box of another rank than its operand.
module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: tensor map #stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128, 1], swizzle 64> over a rank-2 operand}}
  func.func private @stc_spmm_0_host(memref<?x72xf16>, memref<?x9xi16>, memref<144x136xf16>, memref<?x136xf32>) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
  gpu.module @stc_kernels {
    gpu.func @stc_spmm_0_meta(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i32, %a3: i32, %a4: i32, %a5: i32, %a6: i32) kernel {
      gpu.return
    }
    gpu.func @stc_spmm_0(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: !llvm.ptr, %a3: !llvm.ptr, %r: i32, %p: i32, %k: i32, %vc: i32, %mc: i32, %vm: !llvm.ptr, %dm: !llvm.ptr, %mm: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, cluster_rows = 2, meta_tma = true>, threads = 288, shared_bytes = 148576, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map", "meta_map"], num_pointers = 4, rows = -1, cols = 136, depth = 144, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128, 1], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>, #stc_gpu.tensor_map<"meta_map" over "meta", type 2, box[256, 2, 1, 2], swizzle 0>]>} {
      gpu.return
    }
  }
}

