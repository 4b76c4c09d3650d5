//===- MmaSpModel.cpp - CPU model of one warp's mma.sp ----------*- C++ -*-===//
//
// The model reads every operand the way the PTX ISA tables are written: for
// each lane and each element of its registers, the ISA gives the matrix row
// and column (A: the dense column range of the non-zeros; metadata: the
// matrix rows and chunks whose indices sit in which bits).  The tables are
// transcribed per shape in the "ISA tables" section, with the ISA section
// they come from.  Where the ISA gives the mapping only in a figure (an
// image), the comment says so and names the cross-check; mappings that are
// not verified on hardware are marked *probe* (docs/GPU-LAYOUT.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/emulator/MmaElements.h"

#include <cstring>
#include <sstream>

namespace stc::emu {

using format::MmaSpShape;

namespace {

using namespace detail;

//===----------------------------------------------------------------------===//
// ISA tables
//===----------------------------------------------------------------------===//

/// A matrix cell.
struct Cell {
  int row;
  int col;
};

/// Non-zero element a_i of lane `lane` (9.7.14.6.2.x "Multiplicand A"): its
/// row, and `firstcol` of the dense column range [firstcol..lastcol] whose
/// non-zeros its register holds ("Mapping of the non-zero elements is as
/// described in Sparse matrix storage").
Cell aElementRange(MmaSpShape shape, int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  switch (shape) {
  case MmaSpShape::M16N8K16B16:
    // 9.7.14.6.2.1: row = groupID for a0 and a1, groupID + 8 for a2 and a3;
    // firstcol = threadID_in_group * 4.
    return {i < 2 ? groupID : groupID + 8, threadIdInGroup * 4};
  case MmaSpShape::M16N8K32B16:
    // 9.7.14.6.2.2: row = groupID for 0 <= i < 2 || 4 <= i < 6, else
    // groupID + 8; firstcol = threadID_in_group * 4 (+ 16 for i >= 4).
    return {(i < 2 || (4 <= i && i < 6)) ? groupID : groupID + 8,
            threadIdInGroup * 4 + (i >= 4 ? 16 : 0)};
  case MmaSpShape::M16N8K16TF32:
    // 9.7.14.6.2.3: row = groupID for a0 and a2, groupID + 8 for a1 and a3;
    // firstcol = threadID_in_group * 2 for a0, a1, (.. * 2) + 8 for a2, a3.
    return {(i == 0 || i == 2) ? groupID : groupID + 8,
            threadIdInGroup * 2 + (i >= 2 ? 8 : 0)};
  case MmaSpShape::M16N8K8TF32:
    // 9.7.14.6.2.4: row = groupID for a0, groupID + 8 for a1;
    // firstcol = threadID_in_group * 2.
    return {i == 0 ? groupID : groupID + 8, threadIdInGroup * 2};
  case MmaSpShape::M16N8K32I8:
    // 9.7.14.6.2.5: row = groupID for 0 <= i < 4, else groupID + 8;
    // firstcol = threadID_in_group * 8.
    return {i < 4 ? groupID : groupID + 8, threadIdInGroup * 8};
  case MmaSpShape::M16N8K64I8:
    // 9.7.14.6.2.6: row = groupID for 0 <= i < 4 || 8 <= i < 12, else
    // groupID + 8; firstcol = threadID_in_group * 8 (+ 32 for i >= 8).
    return {(i < 4 || (8 <= i && i < 12)) ? groupID : groupID + 8,
            threadIdInGroup * 8 + (i >= 8 ? 32 : 0)};
  }
  return {0, 0};
}

/// Element b_i of lane `lane`: (row = K index, col = N index).
Cell bElement(MmaSpShape shape, int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  switch (shape) {
  case MmaSpShape::M16N8K16B16:
    // 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point
    // type": row = threadID_in_group * 2 + (i & 0x1) for b0, b1, and + 8 for
    // b2, b3; col = groupID.
    return {threadIdInGroup * 2 + (i & 1) + (i >= 2 ? 8 : 0), groupID};
  case MmaSpShape::M16N8K32B16:
    // 9.7.14.6.2.2, Figure 121 (an image): the m16n8k16 pattern continued,
    // one register per 8 rows of K.  Cross-checked with CuTe's SM80 sparse
    // BLayout (k = 2t + (i&1) + 8*(i/2)).
    return {threadIdInGroup * 2 + (i & 1) + 8 * (i / 2), groupID};
  case MmaSpShape::M16N8K8TF32:
    // 9.7.14.5.7 "Matrix Fragments for mma.m16n8k8", .tf32: row =
    // threadID_in_group for b0, threadID_in_group + 4 for b1; col = groupID.
    return {threadIdInGroup + (i == 1 ? 4 : 0), groupID};
  case MmaSpShape::M16N8K16TF32:
    // 9.7.14.6.2.3, Figure 124 (an image): the m16n8k8 pattern continued,
    // row = threadID_in_group + 4 * i.  Cross-checked with CuTe.
    return {threadIdInGroup + 4 * i, groupID};
  case MmaSpShape::M16N8K32I8:
    // 9.7.14.5.10 "Matrix Fragments for mma.m16n8k32", .s8/.u8: row =
    // threadID_in_group * 4 + (i & 0x3), + 16 for i >= 4; col = groupID.
    return {threadIdInGroup * 4 + (i & 3) + (i >= 4 ? 16 : 0), groupID};
  case MmaSpShape::M16N8K64I8:
    // 9.7.14.6.2.6, Figures 132-135 (images): the m16n8k32 pattern
    // continued, one register per 16 rows of K.  Cross-checked with CuTe.
    return {threadIdInGroup * 4 + (i & 3) + 16 * (i / 4), groupID};
  }
  return {0, 0};
}

/// Element c_i (= d_i) of lane `lane`: 9.7.14.5.7/8/10 accumulators:
/// row = groupID for c0, c1 and groupID + 8 for c2, c3;
/// col = threadID_in_group * 2 + (i & 0x1).
Cell cElement(int lane, int i) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  return {i < 2 ? groupID : groupID + 8, threadIdInGroup * 2 + (i & 1)};
}

/// The chunk whose indices sit in nibble `p` (bits 4p+3..4p) of the metadata
/// register of selected lane `lane`: (row, chunk index along K).  The ISA
/// gives these only as figures ("Tk: [m..n] in cell [x][y..z]"); what the
/// figures show is cross-checked against CuTe's SM80 sparse ELayouts and the
/// upstream MLIR sm_80 integration test sparse-mma-2-4-f16.mlir.
Cell metadataChunk(MmaSpShape shape, int lane, int p) {
  int groupID = lane >> 2, threadIdInGroup = lane % 4;
  switch (shape) {
  case MmaSpShape::M16N8K16B16: // Figure 119
  case MmaSpShape::M16N8K8TF32: // Figure 127
    // Bits 15:0: row groupID, chunks 0..3 (the whole K step); bits 31:16:
    // row groupID + 8.
    return {groupID + 8 * (p / 4), p % 4};
  case MmaSpShape::M16N8K32B16:  // Figure 122
  case MmaSpShape::M16N8K16TF32: // Figure 125
    // Thread 2F: chunks 0..3, thread 2F+1: chunks 4..7; bits 15:0 row
    // groupID, bits 31:16 row groupID + 8.
    return {groupID + 8 * (p / 4), 4 * (threadIdInGroup % 2) + p % 4};
  case MmaSpShape::M16N8K32I8: // Figure 129, *probe*
    // Thread 2F: row groupID, thread 2F+1: row groupID + 8; all 8 chunks,
    // chunk p in nibble p.
    return {groupID + 8 * (threadIdInGroup % 2), p};
  case MmaSpShape::M16N8K64I8: // Figures 136-137, *probe*
    // Threads 0, 1: chunks 0..7 (columns 0-31), threads 2, 3: chunks 8..15
    // (columns 32-63); even thread row groupID, odd thread row groupID + 8.
    return {groupID + 8 * (threadIdInGroup % 2), 8 * (threadIdInGroup / 2) + p};
  }
  return {0, 0};
}

/// Decodes a metadata nibble of the ordered form (9.7.14.6.1): for 2:4 two
/// 2-bit indices, the first non-zero's in bits 1:0 and the second's in bits
/// 3:2, meaningful only as 0b0100 0b1000 0b1001 0b1100 0b1101 0b1110; for
/// .tf32 (1:2) 0b0100 keeps element 0 and 0b1110 element 1 of the 2-wide
/// chunk.  Anything else is undefined behaviour on the GPU: false.
bool decodeOrderedNibble(unsigned nibble, bool tf32, int idx[2]) {
  if (tf32) {
    if (nibble != 0x4 && nibble != 0xE)
      return false;
    idx[0] = nibble == 0x4 ? 0 : 1;
    return true;
  }
  switch (nibble) {
  case 0x4:
  case 0x8:
  case 0x9:
  case 0xC:
  case 0xD:
  case 0xE:
    idx[0] = int(nibble & 3);
    idx[1] = int(nibble >> 2);
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

bool isLegalCombination(const MmaSpInstr &in) {
  int bits = format::getMmaSpShapeInfo(in.shape).elementBits;
  if (bits == 16)
    return (in.a == MmaElem::F16 && in.b == MmaElem::F16 &&
            (in.c == MmaElem::F32 || in.c == MmaElem::F16)) ||
           (in.a == MmaElem::BF16 && in.b == MmaElem::BF16 &&
            in.c == MmaElem::F32);
  if (bits == 32)
    return in.a == MmaElem::TF32 && in.b == MmaElem::TF32 &&
           in.c == MmaElem::F32;
  auto isInt8 = [](MmaElem e) { return e == MmaElem::S8 || e == MmaElem::U8; };
  return isInt8(in.a) && isInt8(in.b) && in.c == MmaElem::S32;
}

MmaSpResult failure(std::string message) {
  MmaSpResult r;
  r.error = std::move(message);
  return r;
}

} // namespace

/// Which lanes supply metadata for selector F (9.7.14.6.1 "Sparse matrix
/// storage"): one thread per quad (F in 0..3) for m16n8k16.b16 and
/// m16n8k8.tf32; the thread pair 2F, 2F+1 (F in 0..1) for m16n8k32.b16,
/// m16n8k16.tf32 and m16n8k32.i8; all four (F = 0) for m16n8k64.i8.
bool mmaSpIsMetadataLane(MmaSpShape shape, int lane, int f) {
  int threadIdInGroup = lane % 4;
  switch (format::getMmaSpShapeInfo(shape).numSelectors) {
  case 4:
    return threadIdInGroup == f;
  case 2:
    return threadIdInGroup / 2 == f;
  default:
    return f == 0;
  }
}

int mmaSpElementBits(MmaElem e) {
  switch (e) {
  case MmaElem::F16:
  case MmaElem::BF16:
    return 16;
  case MmaElem::S8:
  case MmaElem::U8:
    return 8;
  default:
    return 32;
  }
}

std::string mmaSpInstrName(const MmaSpInstr &instr) {
  std::ostringstream os;
  os << "mma.sp::ordered_metadata.sync.aligned.m16n8k"
     << format::getMmaSpShapeInfo(instr.shape).k << ".row.col."
     << elemName(instr.c) << "." << elemName(instr.a) << "."
     << elemName(instr.b) << "." << elemName(instr.c);
  return os.str();
}

int mmaSpARegs(const MmaSpInstr &instr) {
  return format::getMmaSpShapeInfo(instr.shape).aRegs;
}

int mmaSpBRegs(const MmaSpInstr &instr) {
  return format::getMmaSpShapeInfo(instr.shape).bRegs;
}

int mmaSpCRegs(const MmaSpInstr &instr) {
  return instr.c == MmaElem::F16 ? 2 : 4;
}

MmaSpResult runMmaSp(const MmaSpInstr &instr, const MmaSpFragments &in,
                     int selector) {
  const format::MmaSpShapeInfo info = format::getMmaSpShapeInfo(instr.shape);
  if (!isLegalCombination(instr))
    return failure("illegal type combination: " + mmaSpInstrName(instr));
  if (selector < 0 || selector >= info.numSelectors)
    return failure("sparsity selector " + std::to_string(selector) +
                   " out of range 0.." + std::to_string(info.numSelectors - 1));
  const int aRegs = mmaSpARegs(instr), bRegs = mmaSpBRegs(instr),
            cRegs = mmaSpCRegs(instr);
  if (in.a.size() != size_t(32 * aRegs) || in.b.size() != size_t(32 * bRegs) ||
      in.c.size() != size_t(32 * cRegs))
    return failure("register vectors of the wrong size");

  const int kDense = info.k;
  const bool tf32 = info.pattern == format::kPattern12;
  // A metadata chunk: 4 dense columns with 2 kept (2:4) or 2 with 1 (1:2).
  const int chunkWidth = tf32 ? 2 : 4, keptPerChunk = tf32 ? 1 : 2;
  const int chunks = kDense / chunkWidth;

  // Metadata: kept in-chunk indices per (row, chunk), from the selected
  // lanes only.  Every nibble of a selected lane's register is used.
  std::vector<int> kept(size_t(16 * chunks * keptPerChunk), -1);
  for (int lane = 0; lane < 32; ++lane) {
    if (!mmaSpIsMetadataLane(instr.shape, lane, selector))
      continue;
    for (int p = 0; p < 8; ++p) {
      unsigned nibble = (in.e[size_t(lane)] >> (4 * p)) & 0xF;
      int idx[2] = {0, 0};
      if (!decodeOrderedNibble(nibble, tf32, idx)) {
        std::ostringstream os;
        os << "illegal metadata nibble 0x" << std::hex << nibble << std::dec
           << " in bits " << 4 * p + 3 << ".." << 4 * p << " of lane " << lane
           << " (selector " << selector << ")";
        return failure(os.str());
      }
      Cell ch = metadataChunk(instr.shape, lane, p);
      int *slot = &kept[size_t((ch.row * chunks + ch.col) * keptPerChunk)];
      if (slot[0] != -1)
        return failure("model bug: metadata chunk covered twice");
      for (int j = 0; j < keptPerChunk; ++j)
        slot[j] = idx[j];
    }
  }
  for (int v : kept)
    if (v < 0)
      return failure("model bug: metadata chunk not covered");

  // A: place every non-zero at its dense column.  Element i of a register
  // whose range starts at firstcol is the (i % perReg)-th non-zero of that
  // range, in increasing column order; with keptPerChunk per chunk it lies
  // in chunk firstcol/chunkWidth + (i % perReg) / keptPerChunk.
  const int aBits = mmaSpElementBits(instr.a);
  const int aPerReg = 32 / aBits;
  std::vector<uint32_t> aDense(size_t(16 * kDense), 0);
  std::vector<bool> aSet(size_t(16 * chunks * keptPerChunk), false);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < aRegs * aPerReg; ++i) {
      Cell range = aElementRange(instr.shape, lane, i);
      int inReg = i % aPerReg;
      int chunk = range.col / chunkWidth + inReg / keptPerChunk;
      int j = inReg % keptPerChunk;
      size_t keptAt = size_t((range.row * chunks + chunk) * keptPerChunk + j);
      if (aSet[keptAt])
        return failure("model bug: A element loaded twice");
      aSet[keptAt] = true;
      int col = chunk * chunkWidth + kept[keptAt];
      aDense[size_t(range.row * kDense + col)] =
          field(in.a[size_t(lane * aRegs + i / aPerReg)], aBits, inReg);
    }

  // B: K x N.
  const int bBits = mmaSpElementBits(instr.b);
  const int bPerReg = 32 / bBits;
  std::vector<uint32_t> bDense(size_t(kDense * 8), 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < bRegs * bPerReg; ++i) {
      Cell cell = bElement(instr.shape, lane, i);
      bDense[size_t(cell.row * 8 + cell.col)] =
          field(in.b[size_t(lane * bRegs + i / bPerReg)], bBits, i % bPerReg);
    }

  // C, the products, D.
  MmaSpResult result;
  result.d.assign(size_t(32 * cRegs), 0);
  const bool f16Acc = instr.c == MmaElem::F16;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      Cell cell = cElement(lane, i);
      size_t reg = size_t(lane * cRegs + (f16Acc ? i / 2 : i));
      uint32_t cBits = f16Acc ? field(in.c[reg], 16, i % 2) : in.c[reg];
      uint32_t dBits;
      if (instr.c == MmaElem::S32) {
        // Exact modulo 2^32.
        uint32_t acc = cBits;
        for (int k = 0; k < kDense; ++k)
          acc += uint32_t(
              intValue(instr.a, aDense[size_t(cell.row * kDense + k)]) *
              intValue(instr.b, bDense[size_t(k * 8 + cell.col)]));
        dBits = acc;
      } else {
        float acc =
            f16Acc ? format::f16ToFloat(uint16_t(cBits)) : floatOfBits(cBits);
        for (int k = 0; k < kDense; ++k) {
          // The product is exact in float, so contraction into an FMA would
          // not change the result.
          float prod =
              floatValue(instr.a, aDense[size_t(cell.row * kDense + k)]) *
              floatValue(instr.b, bDense[size_t(k * 8 + cell.col)]);
          acc += prod;
        }
        dBits = f16Acc ? format::floatToF16(acc) : bitsOfFloat(acc);
      }
      putAccumulator(result.d, reg, f16Acc, i % 2, dBits);
    }
  result.ok = true;
  return result;
}

} // namespace stc::emu
