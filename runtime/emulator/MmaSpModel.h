//===- MmaSpModel.h - CPU model of one warp's mma.sp ------------*- C++ -*-===//
//
// A CPU model of one warp executing
//
//   mma.sp::ordered_metadata.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>
//       {d...}, {a...}, {b...}, {c...}, e, F;
//
// written from the fragment tables of the PTX ISA (section 9.7.14.6 "Matrix
// multiply-accumulate operation using mma.sp instruction with sparse matrix
// A": 9.7.14.6.1 "Sparse matrix storage", 9.7.14.6.2 "Matrix fragments for
// multiply-accumulate operation with sparse matrix A"; B/C/D from 9.7.14.5.x
// "Matrix Fragments for mma.m16n8k8/k16/k32").  It is how the GPU data
// layouts (runtime/format/StcGpuLayout.h) are tested on machines without a
// GPU.  The model reads the registers in the direction the ISA states them
// (lane, register element -> matrix row/column); the tests build registers
// in the opposite direction, written separately.
//
// Numerics (assumptions, not ISA statements): products of f16/bf16/tf32
// elements are exact in float; they are added to C in increasing K order in
// float with round-to-nearest-even after every addition (the hardware's
// internal order and width are unspecified, so tests use tolerances).  f16
// accumulators: the sum is kept in float and rounded to f16 once.  .tf32
// inputs: the low 13 bits of each 32-bit register are ignored.  Integer
// accumulation is exact modulo 2^32 (no .satfinite).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_EMULATOR_MMASPMODEL_H
#define STC_RUNTIME_EMULATOR_MMASPMODEL_H

#include "runtime/format/StcGpuLayout.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stc::emu {

/// Operand element types.
enum class MmaElem { F16, BF16, TF32, S8, U8, F32, S32 };

/// One instruction: shape and the types of A, B and C (D has C's type).
/// Legal: b16 shapes with A = B = f16 and C = f32 or f16, or A = B = bf16
/// and C = f32; tf32 shapes with tf32/tf32/f32; i8 shapes with A, B in
/// {s8, u8} and C = s32.
struct MmaSpInstr {
  format::MmaSpShape shape;
  MmaElem a;
  MmaElem b;
  MmaElem c;
};

/// PTX spelling, e.g. "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col
/// .f32.f16.f16.f32".
std::string mmaSpInstrName(const MmaSpInstr &instr);

/// Whether lane `lane`'s metadata register is read under sparsity selector
/// `f` (PTX ISA 9.7.14.6.1): one thread per quad for m16n8k16.b16 and
/// m16n8k8.tf32, the pair 2F, 2F+1 for m16n8k32.b16, m16n8k16.tf32 and
/// m16n8k32.i8, all four (F = 0) for m16n8k64.i8.
bool mmaSpIsMetadataLane(format::MmaSpShape shape, int lane, int f);

/// Bits of one element of type `e` in a register (32 for f32/tf32/s32).
int mmaSpElementBits(MmaElem e);

/// 32-bit registers per lane of A (compressed), B and C/D.
int mmaSpARegs(const MmaSpInstr &instr);
int mmaSpBRegs(const MmaSpInstr &instr);
int mmaSpCRegs(const MmaSpInstr &instr);

/// The registers of a warp, lane-major: register i of lane L is
/// a[L * mmaSpARegs + i] (likewise b, c); e[L] is lane L's metadata.
struct MmaSpFragments {
  std::vector<uint32_t> a;
  std::vector<uint32_t> b;
  std::vector<uint32_t> c;
  std::array<uint32_t, 32> e{};
};

/// Result of one instruction: `d` in the layout of `c`, or an error.
struct MmaSpResult {
  bool ok = false;
  std::string error;
  std::vector<uint32_t> d;
};

/// Executes the instruction with sparsity selector `selector`.  Errors (no
/// result): an illegal type combination, a selector outside the shape's
/// range, register vectors of the wrong size, or a metadata nibble that is
/// not one of the ordered form's legal values (2:4: 0x4 0x8 0xC 0x9 0xD 0xE;
/// tf32 1:2: 0x4 0xE) in a lane whose metadata the selector reads.  Other
/// lanes' `e` registers are ignored, as on the hardware.
MmaSpResult runMmaSp(const MmaSpInstr &instr, const MmaSpFragments &in,
                     int selector);

} // namespace stc::emu

#endif // STC_RUNTIME_EMULATOR_MMASPMODEL_H
