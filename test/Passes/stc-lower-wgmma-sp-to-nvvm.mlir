// stc-lower-wgmma-sp-to-nvvm turns each stc_gpu.wgmma_sp into one
// side-effecting llvm.inline_asm with the exact wgmma.mma_async.sp text:
// accumulators are outputs $0.. tied to the old values ("0", "1", ...),
// then A, B, metadata and a run-time scale-d predicate; the selector,
// scales and transpose flags are immediates present exactly for the
// variants whose PTX syntax has them.
// RUN: stc-opt %s --stc-lower-wgmma-sp-to-nvvm \
// RUN:   | FileCheck %s --implicit-check-not=stc_gpu.wgmma_sp

// f16 inputs, f32 accumulators, A from a descriptor: trans-a and trans-b
// are both immediates; scale-d absent means 1.
// CHECK-LABEL: func.func @f16_descriptor
// CHECK-SAME: (%[[DA:.*]]: i64, %[[DB:.*]]: i64, %[[E:.*]]: i32, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %[[C2:.*]]: f32, %[[C3:.*]]: f32)
func.func @f16_descriptor(%da: i64, %db: i64, %e: i32, %c0: f32, %c1: f32,
                          %c2: f32, %c3: f32) -> (f32, f32) {
  // CHECK: %[[ASM:.*]] = llvm.inline_asm has_side_effects asm_dialect = att
  // CHECK-SAME: "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {$0, $1, $2, $3}, $8, $9, $10, 0, 1, 1, 1, 1, 0;"
  // CHECK-SAME: "=f,=f,=f,=f,0,1,2,3,l,l,r" %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[DA]], %[[DB]], %[[E]]
  // CHECK-SAME: : (f32, f32, f32, f32, i64, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK: %[[D0:.*]] = llvm.extractvalue %[[ASM]][0]
  // CHECK: %[[D3:.*]] = llvm.extractvalue %[[ASM]][3]
  // CHECK: return %[[D0]], %[[D3]]
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) trans_a acc(%c0, %c1, %c2, %c3) : f32
  return %d#0, %d#3 : f32, f32
}

// A from registers, f16 accumulation in vector<2xf16> (bitcast to b32
// registers), a run-time scale-d (predicate operand "b"), negated A,
// transposed B: the register form has no trans-a.
// CHECK-LABEL: func.func @f16_registers
// CHECK-SAME: (%[[A0:.*]]: i32, %[[A1:.*]]: i32, %[[A2:.*]]: i32, %[[A3:.*]]: i32, %[[DB:.*]]: i64, %[[E:.*]]: i32, %[[P:.*]]: i1, %[[H0:.*]]: vector<2xf16>, %[[H1:.*]]: vector<2xf16>)
func.func @f16_registers(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %db: i64,
                         %e: i32, %p: i1, %h0: vector<2xf16>,
                         %h1: vector<2xf16>) -> vector<2xf16> {
  // CHECK: %[[R0:.*]] = llvm.bitcast %[[H0]] : vector<2xf16> to i32
  // CHECK: %[[R1:.*]] = llvm.bitcast %[[H1]] : vector<2xf16> to i32
  // CHECK: %[[ASM:.*]] = llvm.inline_asm has_side_effects asm_dialect = att
  // CHECK-SAME: "wgmma.mma_async.sp.sync.aligned.m64n8k32.f16.f16.f16 {$0, $1}, {$4, $5, $6, $7}, $8, $9, 1, $10, -1, 1, 1;"
  // CHECK-SAME: "=r,=r,0,1,r,r,r,r,l,r,b" %[[R0]], %[[R1]], %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[DB]], %[[E]], %[[P]]
  // CHECK: %[[X:.*]] = llvm.extractvalue %[[ASM]][1] : !llvm.struct<(i32, i32)>
  // CHECK: %[[Y:.*]] = llvm.bitcast %[[X]] : i32 to vector<2xf16>
  // CHECK: return %[[Y]]
  %h:2 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 8, a_regs(%a0, %a1, %a2, %a3)
      b_desc(%db) meta(%e) sel(1) scale_d(%p) scale_a(-1) trans_b
      acc(%h0, %h1) : vector<2xf16>
  return %h#1 : vector<2xf16>
}

// A constant scale-d is an immediate: false gives D = A * B.
// CHECK-LABEL: func.func @bf16_constant_scale_d
func.func @bf16_constant_scale_d(%da: i64, %db: i64, %e: i32, %c: f32) {
  %false = arith.constant false
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att
  // CHECK-SAME: "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, $16, $17, $18, 0, 0, 1, -1, 0, 1;"
  // CHECK-SAME: "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,l,l,r"
  %d:8 = stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 16, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) scale_d(%false) scale_b(-1) trans_b
      acc(%c, %c, %c, %c, %c, %c, %c, %c) : f32
  return
}

// tf32 (k16), e4m3 x e5m2 (k64, f16 accumulation in i32 registers) and
// s8 x u8 (k64, s32, .satfinite): no transpose immediates, and integer
// variants have no scale immediates either.
// CHECK-LABEL: func.func @other_types
func.func @other_types(%da: i64, %a: i32, %db: i64, %e: i32, %c: f32,
                       %r: i32) {
  // CHECK: "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, $13, 1, 1, 1, 1;"
  // CHECK-SAME: "=f,=f,=f,=f,0,1,2,3,r,r,r,r,l,r"
  %t:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_regs(%a, %a, %a, %a)
      b_desc(%db) meta(%e) sel(1) acc(%c, %c, %c, %c) : f32
  // CHECK: "wgmma.mma_async.sp.sync.aligned.m64n24k64.f16.e4m3.e5m2 {$0, $1, $2, $3, $4, $5}, $12, $13, $14, 0, 1, 1, 1;"
  // CHECK-SAME: "=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,l,l,r"
  %f:6 = stc_gpu.wgmma_sp f8E4M3FN * f8E5M2 -> f16, n = 24, a_desc(%da)
      b_desc(%db) meta(%e) sel(0) acc(%r, %r, %r, %r, %r, %r) : i32
  // CHECK: "wgmma.mma_async.sp.sync.aligned.m64n8k64.satfinite.s32.s8.u8 {$0, $1, $2, $3}, $8, $9, $10, 0, 1;"
  // CHECK-SAME: "=r,=r,=r,=r,0,1,2,3,l,l,r"
  %i:4 = stc_gpu.wgmma_sp si8 * ui8 -> i32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) satfinite acc(%r, %r, %r, %r) : i32
  return
}

// The pass reaches ops nested in a gpu.module kernel.
// CHECK-LABEL: gpu.func @in_kernel
gpu.module @kernels {
  gpu.func @in_kernel(%da: i64, %db: i64, %e: i32, %c: f32) kernel {
    // CHECK: llvm.inline_asm has_side_effects {{.*}}"wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16
    %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
        meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
    gpu.return
  }
}
