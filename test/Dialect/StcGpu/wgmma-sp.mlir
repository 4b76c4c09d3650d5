// Round trip of stc_gpu.wgmma_sp (sparse warpgroup MMA) in custom and generic
// form: every input type family, both forms of A, f32/f16/i32
// accumulators, the optional scale-d operand and every immediate.
// RUN: stc-opt %s | stc-opt | FileCheck %s
// RUN: stc-opt %s --mlir-print-op-generic | stc-opt | FileCheck %s

// CHECK-LABEL: func.func @descriptor_a
// CHECK-SAME: (%[[DA:.*]]: i64, %[[DB:.*]]: i64, %[[E:.*]]: i32, %[[C:.*]]: f32)
func.func @descriptor_a(%da: i64, %db: i64, %e: i32, %c: f32) -> f32 {
  // CHECK: %[[D:.*]]:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%[[DA]]) b_desc(%[[DB]]) meta(%[[E]]) sel(0) acc(%[[C]], %[[C]], %[[C]], %[[C]]) : f32
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  // CHECK: stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 8, a_desc(%[[DA]]) b_desc(%[[DB]]) meta(%[[E]]) sel(1) scale_a(-1) scale_b(-1) trans_a trans_b acc(%[[D]]#0, %[[D]]#1, %[[D]]#2, %[[D]]#3) : f32
  %b:4 = stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(1) scale_a(-1) scale_b(-1) trans_a trans_b
      acc(%d#0, %d#1, %d#2, %d#3) : f32
  return %b#3 : f32
}

// CHECK-LABEL: func.func @register_a
func.func @register_a(%a: i32, %db: i64, %e: i32, %p: i1, %h: vector<2xf16>,
                      %r: i32) {
  // CHECK: stc_gpu.wgmma_sp f16 * f16 -> f16, n = 16, a_regs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) b_desc(%{{.*}}) meta(%{{.*}}) sel(1) scale_d(%{{.*}}) trans_b acc(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : vector<2xf16>
  %h2:4 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 16, a_regs(%a, %a, %a, %a)
      b_desc(%db) meta(%e) sel(1) scale_d(%p) trans_b acc(%h, %h, %h, %h)
      : vector<2xf16>
  // f16 accumulation in i32 registers.
  // CHECK: stc_gpu.wgmma_sp f16 * f16 -> f16, n = 8, a_regs({{.*}}) b_desc({{.*}}) meta({{.*}}) sel(0) acc({{.*}}) : i32
  %r2:2 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 8, a_regs(%a, %a, %a, %a)
      b_desc(%db) meta(%e) sel(0) acc(%r, %r) : i32
  return
}

// CHECK-LABEL: func.func @other_types
func.func @other_types(%da: i64, %a: i32, %db: i64, %e: i32, %c: f32,
                       %r: i32) {
  // CHECK: stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_desc({{.*}}) sel(1) scale_b(-1) acc({{.*}}) : f32
  %t:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(1) scale_b(-1) acc(%c, %c, %c, %c) : f32
  // CHECK: stc_gpu.wgmma_sp f8E4M3FN * f8E5M2 -> f16, n = 8, a_regs({{.*}}) sel(0) acc({{.*}}) : i32
  %f:2 = stc_gpu.wgmma_sp f8E4M3FN * f8E5M2 -> f16, n = 8, a_regs(%a, %a, %a, %a)
      b_desc(%db) meta(%e) sel(0) acc(%r, %r) : i32
  // CHECK: stc_gpu.wgmma_sp si8 * ui8 -> i32, n = 8, a_desc({{.*}}) sel(0) satfinite acc({{.*}}) : i32
  %i:4 = stc_gpu.wgmma_sp si8 * ui8 -> i32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) satfinite acc(%r, %r, %r, %r) : i32
  return
}
