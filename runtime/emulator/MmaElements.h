//===- MmaElements.h - element decoding of the MMA models -------*- C++ -*-===//
//
// How a 32-bit operand register holds its elements, shared by the CPU
// models of mma.sp (MmaSpModel.cpp) and wgmma.mma_async.sp
// (WgmmaSpModel.cpp): the models differ in which thread holds which matrix
// cell, not in how a register's bits are read.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_EMULATOR_MMAELEMENTS_H
#define STC_RUNTIME_EMULATOR_MMAELEMENTS_H

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/format/StcFormat.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace stc::emu::detail {

/// Element `slot` (low to high) of a register holding 32/bits elements.
inline uint32_t field(uint32_t reg, int bits, int slot) {
  return bits == 32 ? reg : (reg >> (bits * slot)) & ((1u << bits) - 1);
}

inline float floatOfBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline uint32_t bitsOfFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

/// A float-type element as float.
inline float floatValue(MmaElem e, uint32_t bits) {
  switch (e) {
  case MmaElem::F16:
    return format::f16ToFloat(uint16_t(bits));
  case MmaElem::BF16:
    return format::bf16ToFloat(uint16_t(bits));
  case MmaElem::TF32:
    // .tf32 keeps 10 mantissa bits; the low 13 bits of the register are
    // ignored.
    return floatOfBits(bits & 0xFFFFE000u);
  default:
    return floatOfBits(bits);
  }
}

/// An integer element as int32.
inline int32_t intValue(MmaElem e, uint32_t bits) {
  return e == MmaElem::S8 ? int32_t(int8_t(uint8_t(bits))) : int32_t(bits);
}

/// PTX type suffix of an element type.
inline const char *elemName(MmaElem e) {
  switch (e) {
  case MmaElem::F16:
    return "f16";
  case MmaElem::BF16:
    return "bf16";
  case MmaElem::TF32:
    return "tf32";
  case MmaElem::S8:
    return "s8";
  case MmaElem::U8:
    return "u8";
  case MmaElem::F32:
    return "f32";
  case MmaElem::S32:
    return "s32";
  }
  return "?";
}

/// Stores the result bits of one accumulator element into register `reg`
/// of `d`: the whole word (f32, s32), or half `half` of an f16x2 word
/// (`f16`; d starts zeroed).
inline void putAccumulator(std::vector<uint32_t> &d, size_t reg, bool f16,
                           int half, uint32_t bits) {
  if (f16)
    d[reg] |= bits << (16 * half);
  else
    d[reg] = bits;
}

} // namespace stc::emu::detail

#endif // STC_RUNTIME_EMULATOR_MMAELEMENTS_H
