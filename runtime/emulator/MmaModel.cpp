//===- MmaModel.cpp - CPU model of one warp's dense mma.sync ---*- C++ -*-===//
//
// The fragment tables of PTX ISA 9.7.14.5.8 (mma.m16n8k16, .f16/.bf16),
// transcribed as "lane, register element -> matrix row and column", the
// direction the ISA states them.
//
//===----------------------------------------------------------------------===//
#include "runtime/emulator/MmaModel.h"
#include "runtime/emulator/MmaElements.h"

#include <sstream>

namespace stc::emu {

using namespace detail;

namespace {

constexpr int kM = 16, kN = 8, kK = 16;

struct Cell {
  int row, col;
};

/// Element a_i (i in 0..7) of lane `lane`: "row = groupID for a0, a1, a4,
/// a5; groupID + 8 for a2, a3, a6, a7. col = threadID_in_group * 2 +
/// (i & 0x1) for a_i with i < 4; (threadID_in_group * 2) + 8 + (i & 0x1)
/// for i >= 4".
Cell aElement(int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  bool upper = i == 2 || i == 3 || i == 6 || i == 7;
  return {groupID + (upper ? 8 : 0),
          threadIdInGroup * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}

/// Element b_i (i in 0..3): "row = threadID_in_group * 2 + (i & 0x1) for
/// b0, b1; + 8 for b2, b3. col = groupID".
Cell bElement(int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  return {threadIdInGroup * 2 + (i & 1) + (i >= 2 ? 8 : 0), groupID};
}

/// Element c_i (i in 0..3): "row = groupID for c0, c1; groupID + 8 for c2,
/// c3. col = threadID_in_group * 2 + (i & 0x1)".
Cell cElement(int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  return {groupID + (i >= 2 ? 8 : 0), threadIdInGroup * 2 + (i & 1)};
}

MmaSpResult failure(std::string message) {
  MmaSpResult r;
  r.error = std::move(message);
  return r;
}

} // namespace

std::string mmaM16N8K16Name(MmaElem ab, MmaElem c) {
  std::ostringstream os;
  os << "mma.sync.aligned.m16n8k16.row.col." << elemName(c) << "."
     << elemName(ab) << "." << elemName(ab) << "." << elemName(c);
  return os.str();
}

MmaSpResult runMmaM16N8K16(MmaElem ab, MmaElem c, const MmaSpFragments &in) {
  bool legal =
      (ab == MmaElem::F16 && (c == MmaElem::F32 || c == MmaElem::F16)) ||
      (ab == MmaElem::BF16 && c == MmaElem::F32);
  if (!legal)
    return failure("illegal type combination: " + mmaM16N8K16Name(ab, c));
  const bool f16Acc = c == MmaElem::F16;
  const int cRegs = f16Acc ? 2 : 4;
  if (in.a.size() != size_t(32 * kMmaM16N8K16ARegs) ||
      in.b.size() != size_t(32 * kMmaM16N8K16BRegs) ||
      in.c.size() != size_t(32 * cRegs))
    return failure("register vectors of the wrong size");
  // Two 16-bit elements per register, element 2j + h in bits 16h + 15..16h.
  float a[kM][kK] = {}, b[kK][kN] = {};
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 2 * kMmaM16N8K16ARegs; ++i) {
      Cell cell = aElement(lane, i);
      a[cell.row][cell.col] = floatValue(
          ab, field(in.a[size_t(lane * kMmaM16N8K16ARegs + i / 2)], 16, i % 2));
    }
    for (int i = 0; i < 2 * kMmaM16N8K16BRegs; ++i) {
      Cell cell = bElement(lane, i);
      b[cell.row][cell.col] = floatValue(
          ab, field(in.b[size_t(lane * kMmaM16N8K16BRegs + i / 2)], 16, i % 2));
    }
  }
  MmaSpResult result;
  result.d.assign(size_t(32 * cRegs), 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      Cell cell = cElement(lane, i);
      size_t reg = size_t(lane * cRegs + (f16Acc ? i / 2 : i));
      uint32_t cBits = f16Acc ? field(in.c[reg], 16, i % 2) : in.c[reg];
      float acc =
          f16Acc ? format::f16ToFloat(uint16_t(cBits)) : floatOfBits(cBits);
      for (int k = 0; k < kK; ++k)
        acc += a[cell.row][k] * b[k][cell.col];
      uint32_t dBits = f16Acc ? format::floatToF16(acc) : bitsOfFloat(acc);
      putAccumulator(result.d, reg, f16Acc, i % 2, dBits);
    }
  result.ok = true;
  return result;
}

} // namespace stc::emu
