// The gpu.shuffle forms stc-emulate-gpu-kernels rejects: the row kernels
// use only xor over 32 lanes on i32 words (passes/GPU/RowKernel.cpp).
// RUN: stc-opt %s -split-input-file --stc-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @idx(%v: i32) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{stc-emulate-gpu: only gpu.shuffle xor of an i32 over 32 lanes is emulated}}
      %r, %ok = gpu.shuffle idx %v, %c1, %c32 : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @half_warp(%w: i32) kernel {
      %v = arith.bitcast %w : i32 to f32
      %c1 = arith.constant 1 : i32
      %c16 = arith.constant 16 : i32
      // expected-error @+1 {{stc-emulate-gpu: only gpu.shuffle xor of an i32 over 32 lanes is emulated}}
      %r, %ok = gpu.shuffle xor %v, %c1, %c16 : f32
      gpu.return
    }
  }
}
