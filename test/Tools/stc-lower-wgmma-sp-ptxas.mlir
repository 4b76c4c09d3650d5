// The PTX that stc-lower-wgmma-sp-to-nvvm writes for stc_gpu.wgmma_sp is valid
// for ptxas: a hand-written sm_90a kernel (fence, one wgmma.mma_async.sp of
// every type family and form of A, including m64n256 with 128 accumulator
// registers, commit, wait) goes through the NVVM target of stc-compile to
// PTX, which ptxas assembles for sm_90a. The test can fail: ptxas rejects
// the same PTX for sm_90 (sparse wgmma needs the "a" target), and rejects a
// selector the ISA does not allow (fp8 takes sel 0 only).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: stc-opt %s --stc-lower-wgmma-sp-to-nvvm -o %t/lowered.mlir
// RUN: stc-compile %t/lowered.mlir --target=sm_90a --emit=ptx -o %t/k.ptx
// RUN: FileCheck %s --input-file=%t/k.ptx
// RUN: %ptxas -arch=sm_90a %t/k.ptx -o %t/k.cubin
//
// sm_90 refuses the sm_90a PTX outright, and the same PTX retargeted to
// sm_90 instruction by instruction.
// RUN: not %ptxas -arch=sm_90 %t/k.ptx -o %t/k90.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ARCH
// RUN: sed -e 's/^\.target sm_90a$/.target sm_90/' %t/k.ptx > %t/k90.ptx
// RUN: not %ptxas -arch=sm_90 %t/k90.ptx -o %t/k90.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SM90
//
// A wrong immediate is caught: sel 1 for the fp8 instruction.
// RUN: sed -e '/e4m3\.e5m2/s/, 0, 1, 1, 1;/, 1, 1, 1, 1;/' %t/k.ptx > %t/bad.ptx
// RUN: not %ptxas -arch=sm_90a %t/bad.ptx -o %t/bad.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// CHECK: .target sm_90a
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, %p{{[0-9]+}}, 1, 1, 1, 0;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n16k32.f16.f16.f16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 1, 1, -1, 1, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 {{{(%r[0-9]+, ){7}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1, 1, 1, 0;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 1, 1, 1, -1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1, 1, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k64.f16.e4m3.e5m2 {%r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1, 1, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e5m2.e5m2 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 0, -1, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.s8.u8 {{{(%r[0-9]+, ){3}%r[0-9]+}}}, {{{(%r[0-9]+, ){3}%r[0-9]+}}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n48k64.s32.u8.u8 {{{(%r[0-9]+, ){23}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n40k32.f32.f16.f16 {{{(%r[0-9]+, ){19}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 1, 1, 1, 1, 0, 1;
// CHECK: wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.f16.f16 {{{(%r[0-9]+, ){127}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r{{[0-9]+}}, 0, 1, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;

// ARCH: PTX with .target 'sm_90a' cannot be compiled for architecture 'sm_90'
// SM90: error {{.*}}: Instruction 'Sparse wgmma.mma_async with floating point types' not supported on .target 'sm_90'
// BAD: error {{.*}}: Argument 4 of instruction 'Sparse wgmma.mma_async with FP8 types': unexpected value '1', expected to be 0

module attributes {gpu.container_module} {
  gpu.module @wgmma_sp {
    gpu.func @kernel(%out: !llvm.ptr, %da: i64, %db: i64, %e: i32, %a: i32,
                     %first: i1) kernel {
      %z = arith.constant 0.0 : f32
      %zi = arith.constant 0 : i32
      %zh = arith.constant dense<0.0> : vector<2xf16>
      nvvm.wgmma.fence.aligned
      // f16 x f16 -> f32, descriptor A (transposed), run-time scale-d.
      %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
          meta(%e) sel(0) scale_d(%first) trans_a acc(%z, %z, %z, %z) : f32
      // f16 x f16 -> f16, register A, negated A, transposed B.
      %h:4 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 16, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(1) scale_a(-1) trans_b
          acc(%zh, %zh, %zh, %zh) : vector<2xf16>
      // bf16 x bf16 -> f32, register A.
      %b:8 = stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 16, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%z, %z, %z, %z, %z, %z, %z, %z)
          : f32
      // tf32 (k16), both forms of A.
      %t:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_desc(%da) b_desc(%db)
          meta(%e) sel(1) scale_b(-1) acc(%z, %z, %z, %z) : f32
      %t2:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%z, %z, %z, %z) : f32
      // fp8 (k64): e4m3 x e5m2 -> f16 in i32 registers; e5m2 x e5m2 -> f32
      // from registers with scale-d false.
      %false = arith.constant false
      %f:2 = stc_gpu.wgmma_sp f8E4M3FN * f8E5M2 -> f16, n = 8, a_desc(%da)
          b_desc(%db) meta(%e) sel(0) acc(%zi, %zi) : i32
      %f2:4 = stc_gpu.wgmma_sp f8E5M2 * f8E5M2 -> f32, n = 8,
          a_regs(%a, %a, %a, %a) b_desc(%db) meta(%e) sel(0)
          scale_d(%false) scale_a(-1) acc(%z, %z, %z, %z) : f32
      // 8-bit integers (k64, s32): s8 x u8 saturating from registers, and
      // u8 x u8 at n = 48 (integer shapes skip 40).
      %i:4 = stc_gpu.wgmma_sp si8 * ui8 -> i32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) satfinite acc(%zi, %zi, %zi, %zi)
          : i32
      %u:24 = stc_gpu.wgmma_sp ui8 * ui8 -> i32, n = 48, a_desc(%da)
          b_desc(%db) meta(%e) sel(0)
          acc(%zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi,
              %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi, %zi)
          : i32
      // f16 at n = 40 and the largest shape, m64n256k32 (128 registers).
      %m:20 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 40, a_desc(%da) b_desc(%db)
          meta(%e) sel(1) trans_b
          acc(%z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z) : f32
      %w:128 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 256, a_desc(%da)
          b_desc(%db) meta(%e) sel(0)
          acc(
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z, %z,
          %z, %z) : f32
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      llvm.store %d#3, %out : f32, !llvm.ptr
      gpu.return
    }
  }
}
