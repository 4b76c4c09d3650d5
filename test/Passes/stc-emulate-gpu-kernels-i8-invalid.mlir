// The mma.sp forms stc-emulate-gpu-kernels rejects: int8 with .satfinite
// (the model of mma.sp accumulates modulo 2^32, the wrapped form), and a
// shape the emulator does not serve (the message lists the emulated forms).
// RUN: stc-opt %s -split-input-file --stc-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @satfinite(%a: i32) kernel {
      %c0 = arith.constant 0 : i32
      // expected-error @+1 {{stc-emulate-gpu: int8 mma.sp with .satfinite is not emulated (the model accumulates modulo 2^32, the wrapped form)}}
      %r = nvvm.mma.sp.sync A[%a, %a, %a, %a] B[%a, %a, %a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%c0]
          {intOverflowBehavior = #nvvm.mma_int_overflow<satfinite>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @k16(%e: i32) kernel {
      %c0 = arith.constant 0 : i32
      %a = llvm.bitcast %e : i32 to vector<2xf16>
      %c = llvm.bitcast %e : i32 to f32
      // expected-error @+1 {{stc-emulate-gpu: only m16n8k32 f16/bf16 and m16n8k16 tf32 mma.sp with f32 accumulators, m16n8k32 f16 with f16 accumulators, and m16n8k64 and m16n8k32 s8/u8 with s32 accumulators, are emulated}}
      %r = nvvm.mma.sp.sync A[%a, %a] B[%a, %a] C[%c, %c, %c, %c]
          sparseMetadata[%e] selector[%c0]
          {orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
          : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
  }
}
