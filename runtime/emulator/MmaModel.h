//===- MmaModel.h - CPU model of one warp's dense mma.sync -----*- C++ -*-===//
//
// A CPU model of one warp executing the dense
//
//   mma.sync.aligned.m16n8k16.row.col.<d>.<a>.<b>.<c> {d...}, {a...}, {b...},
//       {c...};
//
// for f16 and bf16 operands, written from the fragment tables of the PTX ISA
// (9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point
// type"). It is what the emulator runs for the dense tensor-core GEMM kernel
// (a contraction that stays dense), as MmaSpModel is for mma.sp. The
// numerics are MmaSpModel's: exact products, added to C in increasing K
// order in float; f16 accumulators kept in float and rounded once.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_EMULATOR_MMAMODEL_H
#define STC_RUNTIME_EMULATOR_MMAMODEL_H

#include "runtime/emulator/MmaSpModel.h"

namespace stc::emu {

/// 32-bit registers per lane of the dense m16n8k16 A and B.
constexpr int kMmaM16N8K16ARegs = 4;
constexpr int kMmaM16N8K16BRegs = 2;

/// PTX spelling, e.g. "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32".
std::string mmaM16N8K16Name(MmaElem ab, MmaElem c);

/// Executes the instruction for A = B = `ab` (F16 or BF16) and C = D = `c`
/// (F32; or F16 with f16 operands). `in.a` has 4 registers a lane, `in.b`
/// 2, `in.c` 4 (f32) or 2 (f16x2); `in.e` is not read. Errors (no result):
/// an illegal type combination or register vectors of the wrong size.
MmaSpResult runMmaM16N8K16(MmaElem ab, MmaElem c, const MmaSpFragments &in);

} // namespace stc::emu

#endif // STC_RUNTIME_EMULATOR_MMAMODEL_H
