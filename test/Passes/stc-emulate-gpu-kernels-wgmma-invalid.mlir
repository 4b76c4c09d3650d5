// The stc_gpu.wgmma_sp (and dense nvvm.wgmma.mma_async) forms
// stc-emulate-gpu-kernels rejects: input types
// other than f16/bf16 and s8 (tf32, u8), s8 with .satfinite, and a kernel module whose shared
// memory the B descriptor cannot name (no shared-memory global). (A from a
// shared-memory descriptor runs: stc-emulate-gpu-kernels-tma.mlir.)
// RUN: stc-opt %s -split-input-file --stc-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32} : !llvm.array<1024 x i8>
    gpu.func @tf32(%a: i32, %wb: i32, %e: i32, %wc: i32) kernel {
      %db = arith.extui %wb : i32 to i64
      %c = llvm.bitcast %wc : i32 to f32
      // expected-error @+1 {{stc-emulate-gpu: only stc_gpu.wgmma_sp with A from registers or shared memory}}
      %t:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32} : !llvm.array<1024 x i8>
    gpu.func @u8(%a: i32, %wb: i32, %e: i32, %r: i32) kernel {
      %db = arith.extui %wb : i32 to i64
      // expected-error @+1 {{stc-emulate-gpu: only stc_gpu.wgmma_sp with A from registers or shared memory}}
      %i:4 = stc_gpu.wgmma_sp ui8 * ui8 -> i32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%r, %r, %r, %r) : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32} : !llvm.array<1024 x i8>
    gpu.func @s8_satfinite(%a: i32, %wb: i32, %e: i32, %r: i32) kernel {
      %db = arith.extui %wb : i32 to i64
      // expected-error @+1 {{s8 inputs with i32 accumulators (not satfinite), is emulated}}
      %i:4 = stc_gpu.wgmma_sp si8 * si8 -> i32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) satfinite acc(%r, %r, %r, %r) : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @no_smem(%a: i32, %wb: i32, %e: i32, %wc: i32) kernel {
      %db = arith.extui %wb : i32 to i64
      %c = llvm.bitcast %wc : i32 to f32
      // expected-error @+1 {{stc-emulate-gpu: stc_gpu.wgmma_sp is emulated in a kernel module with exactly one shared-memory global (its descriptors address it), not 0}}
      %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
      gpu.return
    }
  }
}

// -----

// The dense nvvm.wgmma.mma_async: tf32 inputs are not emulated.
module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32} : !llvm.array<1024 x i8>
    gpu.func @dense_tf32(%wa: i32, %wb: i32, %wc: i32) kernel {
      %da = arith.extui %wa : i32 to i64
      %db = arith.extui %wb : i32 to i64
      %c = llvm.bitcast %wc : i32 to f32
      %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %u0 = llvm.insertvalue %c, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
      %u1 = llvm.insertvalue %c, %u0[1] : !llvm.struct<(f32, f32, f32, f32)>
      %u2 = llvm.insertvalue %c, %u1[2] : !llvm.struct<(f32, f32, f32, f32)>
      %acc = llvm.insertvalue %c, %u2[3] : !llvm.struct<(f32, f32, f32, f32)>
      // expected-error @+1 {{stc-emulate-gpu: only nvvm.wgmma.mma_async with f16 or bf16 inputs and f32 accumulators (or f16 with f16), or s8 inputs with s32 accumulators (not satfinite), is emulated}}
      %r = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
  }
}

// -----

// ... and its descriptors need the kernel's shared memory.
module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @dense_no_smem(%wa: i32, %wb: i32, %wc: i32) kernel {
      %da = arith.extui %wa : i32 to i64
      %db = arith.extui %wb : i32 to i64
      %c = llvm.bitcast %wc : i32 to f32
      %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
      %u0 = llvm.insertvalue %c, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
      %u1 = llvm.insertvalue %c, %u0[1] : !llvm.struct<(f32, f32, f32, f32)>
      %u2 = llvm.insertvalue %c, %u1[2] : !llvm.struct<(f32, f32, f32, f32)>
      %acc = llvm.insertvalue %c, %u2[3] : !llvm.struct<(f32, f32, f32, f32)>
      // expected-error @+1 {{stc-emulate-gpu: nvvm.wgmma.mma_async is emulated in a kernel module with exactly one shared-memory global (its descriptors address it), not 0}}
      %r = nvvm.wgmma.mma_async %da, %db, %acc, #nvvm.shape<m = 64, n = 8, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
  }
}
