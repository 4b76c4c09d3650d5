// Every verifier diagnostic of stc_gpu.wgmma_sp, one case per rule. The legal
// combinations are those of the PTX ISA's wgmma.mma_async.sp (sm_90a); ptxas
// rejects each of these cases in its PTX form.
// RUN: stc-opt %s -split-input-file -verify-diagnostics

func.func @a_type_not_an_input(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op a_type must be f16, bf16, tf32, f8E4M3FN, f8E5M2, si8 or ui8, got 'f32'}}
  %d:4 = stc_gpu.wgmma_sp f32 * f32 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @b_type_not_an_input(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op b_type must be f16, bf16, tf32, f8E4M3FN, f8E5M2, si8 or ui8, got 'i8'}}
  %d:4 = stc_gpu.wgmma_sp f16 * i8 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @mixed_16_bit_types(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op a_type 'f16' and b_type 'bf16' do not form a sparse wgmma (f16, bf16 and tf32 need equal types; e4m3/e5m2 and s8/u8 mix only within their family)}}
  %d:4 = stc_gpu.wgmma_sp f16 * bf16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @fp8_times_int8(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op a_type 'f8E4M3FN' and b_type 'si8' do not form a sparse wgmma}}
  %d:2 = stc_gpu.wgmma_sp f8E4M3FN * si8 -> f16, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%r, %r) : i32
  return
}

// -----

func.func @bf16_accumulates_in_f32_only(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op d_type 'f16' is not legal for 'bf16' inputs (expected f32)}}
  %d:2 = stc_gpu.wgmma_sp bf16 * bf16 -> f16, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%r, %r) : i32
  return
}

// -----

func.func @f16_accumulates_in_f32_or_f16(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op d_type 'i32' is not legal for 'f16' inputs (expected f32 or f16)}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> i32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%r, %r, %r, %r) : i32
  return
}

// -----

func.func @int8_accumulates_in_i32(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op d_type 'f32' is not legal for 'si8' inputs (expected i32)}}
  %d:4 = stc_gpu.wgmma_sp si8 * si8 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @n_not_multiple_of_8(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op n must be a multiple of 8 from 8 to 256, got 12}}
  %d:6 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 12, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c, %c, %c) : f32
  return
}

// -----

func.func @n_above_256(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op n must be a multiple of 8 from 8 to 256, got 264}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 264, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @int8_n_40(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op n = 40 is not a shape of 8-bit integer inputs (8, 16, 24, 32 or a multiple of 16 up to 256)}}
  %d:20 = stc_gpu.wgmma_sp ui8 * ui8 -> i32, n = 40, a_desc(%da) b_desc(%db)
      meta(%e) sel(0)
      acc(%r, %r, %r, %r, %r, %r, %r, %r, %r, %r,
          %r, %r, %r, %r, %r, %r, %r, %r, %r, %r) : i32
  return
}

// -----

func.func @a_twice(%da: i64, %a: i32, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op expects A either as a descriptor (a_desc) or as registers (a_regs), not both}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da)
      a_regs(%a, %a, %a, %a) b_desc(%db) meta(%e) sel(0) acc(%c, %c, %c, %c)
      : f32
  return
}

// -----

func.func @no_a(%db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op expects A as a descriptor (a_desc) or as registers (a_regs)}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, b_desc(%db) meta(%e) sel(0)
      acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @three_a_registers(%a: i32, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op expects 4 A registers (a_regs), got 3}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_regs(%a, %a, %a) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @f32_accumulator_count(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op expects 8 accumulator registers for n = 16 and d_type 'f32', got 4}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 16, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @f16_accumulator_count(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op expects 4 accumulator registers for n = 16 and d_type 'f16', got 8}}
  %d:8 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 16, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%r, %r, %r, %r, %r, %r, %r, %r) : i32
  return
}

// -----

func.func @f32_accumulators_are_f32(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op accumulator registers must be f32 for d_type 'f32', got 'i32'}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%r, %r, %r, %r) : i32
  return
}

// -----

func.func @f16_accumulators_are_packed(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op accumulator registers must be i32 or vector<2xf16> for d_type 'f16', got 'f32'}}
  %d:2 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c) : f32
  return
}

// -----

func.func @i32_accumulators_are_i32(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op accumulator registers must be i32 for d_type 'i32', got 'f32'}}
  %d:4 = stc_gpu.wgmma_sp si8 * si8 -> i32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
  return
}

// -----

// Only the generic form can give the accumulators different types.
func.func @accumulators_of_two_types(%da: i64, %db: i64, %e: i32, %r: i32,
                                     %h: vector<2xf16>) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op accumulator registers must all have one type, got 'i32' and 'vector<2xf16>'}}
  %d:2 = "stc_gpu.wgmma_sp"(%r, %h, %da, %db, %e)
      <{a_type = f16, b_type = f16, d_type = f16, n = 8 : i64,
        operandSegmentSizes = array<i32: 2, 1, 0, 1, 1, 0>}>
      : (i32, vector<2xf16>, i64, i64, i32) -> (i32, vector<2xf16>)
  return
}

// -----

func.func @results_are_the_accumulators(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op results must have the accumulators' types (2 x 'i32')}}
  %d:2 = "stc_gpu.wgmma_sp"(%r, %r, %da, %db, %e)
      <{a_type = f16, b_type = f16, d_type = f16, n = 8 : i64,
        operandSegmentSizes = array<i32: 2, 1, 0, 1, 1, 0>}>
      : (i32, i32, i64, i64, i32) -> (vector<2xf16>, vector<2xf16>)
  return
}

// -----

func.func @selector_of_16_bit_inputs(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op sel must be 0 or 1 for 'f16' inputs, got 2}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(2) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @selector_of_8_bit_inputs(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op sel must be 0 for 'f8E5M2' inputs, got 1}}
  %d:4 = stc_gpu.wgmma_sp f8E5M2 * f8E5M2 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(1) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @scale_not_a_sign(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op scale_b must be 1 or -1, got 2}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) scale_b(2) acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @integer_negation(%da: i64, %db: i64, %e: i32, %r: i32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op scale_a (negation) needs floating point inputs, got 'si8'}}
  %d:4 = stc_gpu.wgmma_sp si8 * si8 -> i32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) scale_a(-1) acc(%r, %r, %r, %r) : i32
  return
}

// -----

func.func @tf32_transpose(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op trans_a/trans_b need f16 or bf16 inputs, got 'tf32'}}
  %d:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) trans_b acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @trans_a_of_registers(%a: i32, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op trans_a needs A from a descriptor (a_desc)}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_regs(%a, %a, %a, %a)
      b_desc(%db) meta(%e) sel(0) trans_a acc(%c, %c, %c, %c) : f32
  return
}

// -----

func.func @satfinite_of_floats(%da: i64, %db: i64, %e: i32, %c: f32) {
  // expected-error @+1 {{'stc_gpu.wgmma_sp' op satfinite needs 8-bit integer inputs, got 'f16'}}
  %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
      meta(%e) sel(0) satfinite acc(%c, %c, %c, %c) : f32
  return
}
