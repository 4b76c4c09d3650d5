//===- StcGpuLayout.h - kernel-ready layouts for mma.sp ---------*- C++ -*-===//
//
// The GPU kernel-ready layouts of a compressed N:M operand, derived from the
// canonical format (docs/DESIGN.md §3, StcFormat.h) for the warp-level PTX
// instruction `mma.sp::ordered_metadata.sync.aligned.m16n8kK.row.col`.
// docs/GPU-LAYOUT.md has the pictures and the ISA sections these follow.
//
// * Metadata: the canonical rows x Kp/16 uint16 words are regrouped into
//   uint32 words such that, in the kernel, every lane gets the `e` register of
//   an mma with one aligned load, and four consecutive words of a lane (one
//   128-bit load) serve consecutive K blocks.  The sparsity selector F is used
//   so that one word serves two vertically adjacent 16-row tiles.
// * Values: canonical row-major values are already what `ldmatrix` (non
//   transposed, .x2 or .x4) delivers as the A fragment of every shape here;
//   only padding (rows to 32, K to the instruction K) is added.
//
// MLIR-free so that the compiler (constant folding) and the run-time library
// share it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_STCGPULAYOUT_H
#define STC_RUNTIME_FORMAT_STCGPULAYOUT_H

#include "runtime/format/StcFormat.h"

#include <cstdint>
#include <vector>

namespace stc::format {

//===----------------------------------------------------------------------===//
// Instruction shapes
//===----------------------------------------------------------------------===//

/// The sparse warp-level MMA instructions served, named after the shape and
/// the width of the A/B elements (M16N8K32B16 = m16n8k32 with .f16 or .bf16).
/// The accumulator type does not change any layout.
enum class MmaSpShape {
  M16N8K16B16,  ///< .f16/.bf16, 2:4, F in 0..3.
  M16N8K32B16,  ///< .f16/.bf16, 2:4, F in 0..1.
  M16N8K8TF32,  ///< .tf32, 1:2, F in 0..3.
  M16N8K16TF32, ///< .tf32, 1:2, F in 0..1.
  M16N8K32I8,   ///< .s8/.u8, 2:4, F in 0..1.
  M16N8K64I8,   ///< .s8/.u8, 2:4, F = 0.
};

/// Fixed facts about one instruction shape and the kernel-ready layout chosen
/// for it.  A "metadata block" covers kMetaBlockRows rows x `blockK` dense
/// columns and holds exactly `wordsPerLane` uint32 words for every lane.
struct MmaSpShapeInfo {
  /// Dense K of one instruction (M = 16, N = 8 always).
  int k;
  /// Bits of one A/B element in memory (16, 32 for tf32, 8).
  int elementBits;
  /// The sparsity pattern along K.
  NMPattern pattern;
  /// Number of legal sparsity-selector values (4, 2 or 1).
  int numSelectors;
  /// 32-bit A registers per lane (= number of 8x8 b16 matrices ldmatrix
  /// loads: 2 means .x2, 4 means .x4).
  int aRegs;
  /// 32-bit B registers per lane.
  int bRegs;
  /// Dense K covered by one metadata block.
  int blockK;
  /// Instructions along K per metadata block (blockK / k).
  int kStepsPerBlock;
  /// uint32 words per lane per metadata block (2 only for m16n8k64).
  int wordsPerLane;
};

/// Rows of one metadata block: two 16-row mma tiles.
inline constexpr int kMetaBlockRows = 32;
/// uint32 words a lane loads at once (one 128-bit load).
inline constexpr int kMetaWordsPerVector = 4;
/// Legal nibble used for padded groups (2:4 "keep 0,1", 1:2 "keep 0").
inline constexpr unsigned kPadNibble = 0x4;

constexpr MmaSpShapeInfo getMmaSpShapeInfo(MmaSpShape s) {
  switch (s) {
  case MmaSpShape::M16N8K16B16:
    return {16, 16, kPattern24, 4, 2, 2, 32, 2, 1};
  case MmaSpShape::M16N8K32B16:
    return {32, 16, kPattern24, 2, 4, 4, 32, 1, 1};
  case MmaSpShape::M16N8K8TF32:
    return {8, 32, kPattern12, 4, 2, 2, 16, 2, 1};
  case MmaSpShape::M16N8K16TF32:
    return {16, 32, kPattern12, 2, 4, 4, 16, 1, 1};
  case MmaSpShape::M16N8K32I8:
    return {32, 8, kPattern24, 2, 2, 2, 32, 1, 1};
  case MmaSpShape::M16N8K64I8:
    return {64, 8, kPattern24, 1, 4, 4, 64, 1, 2};
  }
  return {0, 0, kPattern24, 0, 0, 0, 0, 0, 0};
}

/// All shapes, for loops in tests and tools.
inline constexpr MmaSpShape kAllMmaSpShapes[] = {
    MmaSpShape::M16N8K16B16,  MmaSpShape::M16N8K32B16, MmaSpShape::M16N8K8TF32,
    MmaSpShape::M16N8K16TF32, MmaSpShape::M16N8K32I8,  MmaSpShape::M16N8K64I8};

/// "m16n8k32.b16" etc., for messages.
const char *mmaSpShapeName(MmaSpShape s);

//===----------------------------------------------------------------------===//
// Metadata: the index formula the code generator mirrors
//===----------------------------------------------------------------------===//
//
// Words are grouped by 32-row block `rb`.  Within a block every lane owns a
// sequence of words s = 0, 1, 2, ... (one or two per K block, in K order);
// four consecutive words of a lane are contiguous and 16-byte aligned:
//
//   wordIndex(rb, s, lane) = ((rb * V + s / 4) * 32 + lane) * 4 + s % 4
//
// with V = vectorsPerRowBlock (MmaSpMetaLayout).  So one warp-wide 128-bit
// load at ((rb * V + v) * 32 + lane) * 4 reads 512 contiguous bytes and gives
// every lane the words of 4 K blocks (2 for m16n8k64).
//
// The mma on 16-row tile `rowTile` (rows 16*rowTile..+15) and K step `kStep`
// (dense columns kStep*k..+k-1) takes `e` = word s of its lane in row block
// rowTile / 2, with selector F, where (rt = rowTile % 2,
// kb = kStep / kStepsPerBlock, ks = kStep % kStepsPerBlock):
//
//   F in 0..3 (m16n8k16.b16, m16n8k8.tf32):   s = kb,          F = rt + 2*ks
//   F in 0..1 (m16n8k32.b16, m16n8k16.tf32,
//              m16n8k32.i8):                  s = kb,          F = rt
//   F = 0     (m16n8k64.i8):                  s = 2*kb + rt,   F = 0
//
// Every lane loads its word even where the instruction reads only the
// selected threads' registers: the load is uniform and the other words are
// those of the neighbouring tile / K step.

/// Index of word `s` of lane `lane` in 32-row block `rowBlock`.
constexpr int64_t mmaSpMetaWordIndex(int64_t rowBlock, int64_t s, int lane,
                                     int64_t vectorsPerRowBlock) {
  return ((rowBlock * vectorsPerRowBlock + s / kMetaWordsPerVector) * 32 +
          lane) *
             kMetaWordsPerVector +
         s % kMetaWordsPerVector;
}

/// The sparsity selector F of the mma on (rowTile, kStep).
constexpr int mmaSpSelector(MmaSpShape shape, int64_t rowTile, int64_t kStep) {
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  int rt = int(rowTile % 2);
  if (info.numSelectors == 4)
    return rt + 2 * int(kStep % info.kStepsPerBlock);
  if (info.numSelectors == 2)
    return rt;
  return 0;
}

/// The lane word s (within its row block) of the mma on (rowTile, kStep).
constexpr int64_t mmaSpMetaLaneWord(MmaSpShape shape, int64_t rowTile,
                                    int64_t kStep) {
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  int64_t kb = kStep / info.kStepsPerBlock;
  return kb * info.wordsPerLane +
         (info.wordsPerLane == 2 ? rowTile % 2 : int64_t(0));
}

/// Index of the `e` word lane `lane` loads for the mma on (rowTile, kStep).
constexpr int64_t mmaSpMetaWordIndexForMma(MmaSpShape shape, int64_t rowTile,
                                           int64_t kStep, int lane,
                                           int64_t vectorsPerRowBlock) {
  return mmaSpMetaWordIndex(rowTile / 2,
                            mmaSpMetaLaneWord(shape, rowTile, kStep), lane,
                            vectorsPerRowBlock);
}

/// Where the two 16-bit halves of a kernel-ready word come from: canonical
/// metadata row (relative to the 32-row block) and canonical uint16 column
/// (relative to the K block, which has blockK / (4 * pattern.m) of them).
struct MmaSpMetaHalf {
  int row;
  int word;
};

/// The canonical sources of word `w` (0 <= w < wordsPerLane) of lane `lane`
/// within one metadata block: [0] = bits 15:0, [1] = bits 31:16.  This is the
/// PTX metadata table read backwards (see docs/GPU-LAYOUT.md).
void mmaSpMetaWordSources(MmaSpShape shape, int lane, int w,
                          MmaSpMetaHalf out[2]);

//===----------------------------------------------------------------------===//
// Metadata: conversion
//===----------------------------------------------------------------------===//

/// Geometry of the kernel-ready metadata of a rows x k operand.
struct MmaSpMetaLayout {
  MmaSpShape shape = MmaSpShape::M16N8K32B16;
  /// Unpadded rows and reduction size.
  int64_t rows = 0;
  int64_t k = 0;
  /// ceil(rows / 32).
  int64_t rowBlocks = 0;
  /// ceil(k / blockK).
  int64_t kBlocks = 0;
  /// ceil(kBlocks * wordsPerLane / 4): 128-bit vectors per lane per row
  /// block.
  int64_t vectorsPerRowBlock = 0;

  /// Total uint32 words (a multiple of 128, i.e. of 512 bytes).
  int64_t numWords() const {
    return rowBlocks * vectorsPerRowBlock * 32 * kMetaWordsPerVector;
  }
};

MmaSpMetaLayout getMmaSpMetaLayout(MmaSpShape shape, int64_t rows, int64_t k);

/// Canonical -> kernel-ready.  `meta` is the canonical metadata of a
/// meta.rows x k operand with the shape's pattern (meta.cols must be
/// metaWordsPerRow(k, pattern)).  `out` is resized to numWords(); rows and
/// groups beyond the operand (padding) get the legal nibble 0x4.  Illegal
/// nibbles are an error (out cleared): the ordered-metadata instruction's
/// behaviour is undefined for them.
Status toMmaSpMeta(MmaSpShape shape, View2D<const uint16_t> meta, int64_t k,
                   std::vector<uint32_t> &out);

/// Kernel-ready -> canonical: the exact inverse of toMmaSpMeta on the
/// operand's rows and groups (padding dropped).  `meta` must be
/// rows x metaWordsPerRow(k, pattern) and `words` of the layout's size.
Status fromMmaSpMeta(MmaSpShape shape, const std::vector<uint32_t> &words,
                     int64_t k, View2D<uint16_t> meta);

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//
//
// The compressed A tile of one mma (16 rows x k/2 stored elements, row-major
// with the canonical row pitch) has exactly the shape of a dense A fragment
// loaded by ldmatrix.sync.aligned.m8n8.x{aRegs}.b16 (not transposed): 8x8 b16
// matrix j covers rows 8*(j%2)..+7 and bytes 16*(j/2)..+15 of each row, so
// lane L passes the address of
//
//   row = rowTile*16 + (L % 8) + 8 * ((L / 8) % 2),
//   col = kStep*k/2 + (L / 16) * (16 * 8 / elementBits)    (stored elements)
//
// (mmaSpLdmatrixRow/Col below).  This holds for f16/bf16 (2 elements per
// b16 pair), tf32 (one element = two b16) and int8 (four elements per b32).
// What ldmatrix needs is 16-byte aligned rows, and that the last K step and
// the last row tile read zeros: padMmaSpValues pads rows to 32 and K to the
// instruction K (then the row pitch, k/2 * elementBits/8 bytes per step, is a
// multiple of 16 bytes).

/// Row within the 16-row tile whose address lane `lane` gives to ldmatrix.
constexpr int mmaSpLdmatrixRow(int lane) {
  return (lane % 8) + 8 * ((lane / 8) % 2);
}
/// Stored-element column within the K step whose address lane `lane` gives.
constexpr int mmaSpLdmatrixCol(MmaSpShape shape, int lane) {
  return (lane / 16) * (128 / getMmaSpShapeInfo(shape).elementBits);
}

/// Rows of the padded values (and the padded metadata): a multiple of 32.
int64_t mmaSpPaddedRows(int64_t rows);
/// Dense K of the padded values: a multiple of the instruction K.
int64_t mmaSpPaddedK(MmaSpShape shape, int64_t k);

/// Copies canonical values (values.rows x values.cols, cols =
/// valuesPerRow(k, pattern)) into a zero-filled row-major
/// mmaSpPaddedRows(rows) x mmaSpPaddedK(k)/2 buffer.  T is the storage type:
/// uint16_t (f16/bf16 bits), float (tf32), int8_t or uint8_t; its size must
/// match the shape's element width.  Returns an empty vector on a mismatch.
template <typename T>
std::vector<T> padMmaSpValues(MmaSpShape shape, View2D<const T> values,
                              int64_t k);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCGPULAYOUT_H
