// Every diagnostic of stc-gpu-host-launch: a host function whose kernel is
// missing, has no stc.kernel_info, takes other buffers, lacks the metadata
// conversion kernel its canonical metadata needs or the direct fallback
// its kernel_info names.
// RUN: stc-opt %s -split-input-file --stc-gpu-host-launch -verify-diagnostics

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@missing not found}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc.gpu_spmm_host = @stc_kernels::@missing}
  gpu.module @stc_kernels {
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no stc.kernel_info}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc.gpu_spmm_host = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: h does not match its kernel's parameters}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<4x8xf32>) attributes {stc.gpu_spmm_host = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc.kernel_info = {K = 16 : i64, P = 8 : i64, R = 4 : i64, block = [128, 1, 1], dense_transposed = false, kernel = "k", meta_layout = "kernel_ready", mma = "m16n8k32", num_pointers = 4 : i64, sparse = "lhs", tile = [64, 64]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no metadata conversion kernel}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x8xf16>, memref<4x8xf32>) attributes {stc.gpu_spmm_host = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc.kernel_info = {K = 16 : i64, P = 8 : i64, R = 4 : i64, block = [128, 1, 1], dense_transposed = false, kernel = "k", meta_kernel = "k_meta", meta_layout = "canonical", mma = "m16n8k32", num_pointers = 4 : i64, sparse = "lhs", tile = [64, 64]}} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-gpu-host-launch: kernel @stc_kernels::@k has no fallback kernel "k_direct" or no staged_align}}
  func.func private @h(memref<4x8xf16>, memref<4x1xi16>, memref<16x?xf16>, memref<4x?xf32>) attributes {stc.gpu_spmm_host = @stc_kernels::@k}
  gpu.module @stc_kernels {
    gpu.func @k() kernel attributes {stc.kernel_info = {K = 16 : i64, P = -1 : i64, R = 4 : i64, block = [128, 1, 1], dense_transposed = false, fallback_kernel = "k_direct", kernel = "k", meta_layout = "kernel_ready", mma = "m16n8k32", num_pointers = 4 : i64, sparse = "lhs", staged_align = 8 : i64, tile = [64, 64], variant = "staged"}} {
      gpu.return
    }
  }
}
