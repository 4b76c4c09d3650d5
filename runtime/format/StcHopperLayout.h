//===- StcHopperLayout.h - kernel-ready layouts for wgmma.sp ----*- C++ -*-===//
//
// The layouts that the warpgroup-level sparse MMA of sm_90a,
//
//   wgmma.mma_async.sp.sync.aligned.m64nNkK.<d>.<a>.<b>
//       d, {a | a-desc}, b-desc, sp-meta, sp-sel, scale-d, ...
//
// expects, derived from the canonical 2:4 / 1:2 format (docs/DESIGN.md §3,
// StcFormat.h):
//
// (a) which canonical compressed value (row, stored column) each thread's A
//     register element holds (A from registers);
// (b) the kernel-ready metadata: which canonical metadata half-words each
//     thread's sp-meta register holds, the word array a kernel loads them
//     from (one 32-bit word per thread per two K steps, four words per
//     128-bit load), and the conversion canonical <-> kernel-ready;
// (c) the shared-memory byte offset of element (mn, k) of an operand tile
//     (B, or A in the shared-memory form) in the ISA's canonical layouts,
//     K-major or MN-major, for each swizzle mode, and the matching 64-bit
//     matrix descriptor.
//
// docs/HOPPER-LAYOUT.md has the pictures and the PTX ISA sections (9.7.15.x)
// these follow; test/Unit/WgmmaSpModelTest.cpp checks them end to end
// against a CPU model of the instruction written from the ISA
// (runtime/emulator/WgmmaSpModel.h), which does not use this file.
//
// MLIR-free, like StcGpuLayout.h (whose mma.sp layouts are unchanged).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_STCHOPPERLAYOUT_H
#define STC_RUNTIME_FORMAT_STCHOPPERLAYOUT_H

#include "runtime/format/StcFormat.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stc::format {

//===----------------------------------------------------------------------===//
// Instruction types
//===----------------------------------------------------------------------===//

/// The sparse wgmma families, by A/B element width (the accumulator type
/// changes no layout).
enum class WgmmaSpType {
  B16,  ///< .f16/.bf16, m64nNk32, 2:4, sp-sel 0..1.
  TF32, ///< .tf32, m64nNk16, 1:2, sp-sel 0..1.
  I8,   ///< .s8/.u8 (and .e4m3/.e5m2), m64nNk64, 2:4, sp-sel 0.
};

/// Fixed facts about one family and the kernel-ready metadata chosen for
/// it.  A "metadata block" covers 64 rows x `blockK` dense columns and holds
/// exactly one uint32 word per thread of the warpgroup.
struct WgmmaSpTypeInfo {
  /// Dense K of one instruction (M = 64 always).
  int k;
  /// Bits of one A/B element.
  int elementBits;
  /// The sparsity pattern along K.
  NMPattern pattern;
  /// Number of legal sp-sel values (2 or 1).
  int numSelectors;
  /// Dense K of one metadata block (= k * kStepsPerBlock).
  int blockK;
  /// Instructions along K served by one word per thread.
  int kStepsPerBlock;
};

/// Rows of one wgmma (and of one metadata block).
inline constexpr int kWgmmaRows = 64;
/// Threads of a warpgroup.
inline constexpr int kWgmmaThreads = 128;
/// uint32 words a thread loads at once (one 128-bit load).
inline constexpr int kWgmmaMetaWordsPerVector = 4;

constexpr WgmmaSpTypeInfo getWgmmaSpTypeInfo(WgmmaSpType t) {
  switch (t) {
  case WgmmaSpType::B16:
    return {32, 16, kPattern24, 2, 64, 2};
  case WgmmaSpType::TF32:
    return {16, 32, kPattern12, 2, 32, 2};
  case WgmmaSpType::I8:
    return {64, 8, kPattern24, 1, 64, 1};
  }
  return {0, 0, kPattern24, 0, 0, 0};
}

inline constexpr WgmmaSpType kAllWgmmaSpTypes[] = {
    WgmmaSpType::B16, WgmmaSpType::TF32, WgmmaSpType::I8};

/// "m64nNk32.b16" etc., for messages.
const char *wgmmaSpTypeName(WgmmaSpType t);

//===----------------------------------------------------------------------===//
// (a) A from registers
//===----------------------------------------------------------------------===//
//
// Thread T of the warpgroup (warp w = T / 32, lane = T % 32, g = lane / 4,
// q = lane % 4) holds 4 registers of packed (compressed) A.  Element i
// (0 <= i < wgmmaSpAElementsPerThread; register i / perReg, bits
// (i % perReg) * elementBits and up, perReg = 32 / elementBits) is the
// canonical compressed value at row 16w + g (+8) and stored column (within
// the K step's k/2 stored columns):
//
//   B16:  row 16w + g + 8*((i/2)%2),  col 2q + i%2 + 8*(i/4)
//   TF32: row 16w + g + 8*(i%2),      col q + 4*(i/2)
//   I8:   row 16w + g + 8*((i/4)%2),  col 4q + i%4 + 16*(i/8)
//
// i.e. each warp's 16 x k/2 slice has the layout of the warp-level mma.sp
// A fragment (m16n8k32 / m16n8k16 / m16n8k64), which is that of a dense A
// fragment of the compressed tile, so `ldmatrix` (.x4, not transposed) of
// the row-major compressed values delivers it (as for mma.sp,
// docs/GPU-LAYOUT.md).

/// A cell of the compressed operand: row within the 64-row tile, stored
/// column within the K step.
struct WgmmaCell {
  int row;
  int col;
};

/// Compressed A elements per thread: 8 (B16), 4 (TF32), 16 (I8).
constexpr int wgmmaSpAElementsPerThread(WgmmaSpType t) {
  return 4 * 32 / getWgmmaSpTypeInfo(t).elementBits;
}

/// The canonical cell of A element `i` of thread `tid` (0..127).
WgmmaCell wgmmaSpAElement(WgmmaSpType t, int tid, int i);

//===----------------------------------------------------------------------===//
// (b) Metadata
//===----------------------------------------------------------------------===//
//
// What one instruction reads (PTX ISA 9.7.15.6.1/9.7.15.6.2): warp w
// supplies the metadata of rows 16w..16w+15.  B16/TF32: sp-sel F picks the
// thread pair q = 2F, 2F+1 of every quad; thread 2F holds the first half of
// the K step (16 dense columns, tf32 8), thread 2F+1 the second; bits 15:0
// row g, bits 31:16 row g+8.  So each 16-bit half is exactly one canonical
// uint16 metadata word.  I8: sp-sel 0, all threads; thread q holds row
// g + 8*(q%2), dense columns 32*(q/2)..+31 = two canonical words.
//
// Kernel-ready layout: the pair the selector does not read carries the
// metadata of the next K step, so one word per thread serves two K steps
// (B16, TF32: a "metadata block" of 64 rows x 2k dense columns) and no
// loaded word is wasted.  Word s of thread T in 64-row tile `rowTile`:
//
//   wgmmaSpMetaWordIndex(rowTile, s, T, V)
//       = ((rowTile * V + s / 4) * 128 + T) * 4 + s % 4
//   V = vectorsPerRowTile = ceil(kBlocks / 4),  kBlocks = ceil(K / blockK)
//
// so a warpgroup-wide 128-bit load at ((rowTile*V + v)*128 + T)*4 reads
// 2 KiB contiguously and gives every thread the words of 4 K blocks.  The
// instruction on (rowTile, kStep) takes sp-meta = word
// s = kStep / kStepsPerBlock and sp-sel = kStep % kStepsPerBlock
// (wgmmaSpMetaLaneWord, wgmmaSpSelector).
//
// Content of the word of thread T (canonical row within the 64-row tile,
// canonical uint16 column within the block, which has 4 of them):
//
//   B16, TF32:  bits 15:0 (16w+g, q), bits 31:16 (16w+g+8, q)
//   I8:         r = 16w + g + 8*(q%2):  bits 15:0 (r, 2*(q/2)),
//                                       bits 31:16 (r, 2*(q/2)+1)

/// Index of word `s` of thread `tid` in 64-row tile `rowTile`.
constexpr int64_t wgmmaSpMetaWordIndex(int64_t rowTile, int64_t s, int tid,
                                       int64_t vectorsPerRowTile) {
  return ((rowTile * vectorsPerRowTile + s / kWgmmaMetaWordsPerVector) *
              kWgmmaThreads +
          tid) *
             kWgmmaMetaWordsPerVector +
         s % kWgmmaMetaWordsPerVector;
}

/// sp-sel of the instruction on K step `kStep`.
constexpr int wgmmaSpSelector(WgmmaSpType t, int64_t kStep) {
  return int(kStep % getWgmmaSpTypeInfo(t).kStepsPerBlock);
}

/// The word s (within its 64-row tile) of the instruction on K step `kStep`.
constexpr int64_t wgmmaSpMetaLaneWord(WgmmaSpType t, int64_t kStep) {
  return kStep / getWgmmaSpTypeInfo(t).kStepsPerBlock;
}

/// Where a 16-bit half of a kernel-ready word comes from: canonical row
/// (within the 64-row tile) and canonical uint16 column (within the block).
struct WgmmaSpMetaHalf {
  int row;
  int word;
};

/// The canonical sources of the word of thread `tid`: [0] = bits 15:0,
/// [1] = bits 31:16.
void wgmmaSpMetaWordSources(WgmmaSpType t, int tid, WgmmaSpMetaHalf out[2]);

/// Geometry of the kernel-ready metadata of a rows x k operand.
struct WgmmaSpMetaLayout {
  WgmmaSpType type = WgmmaSpType::B16;
  int64_t rows = 0;
  int64_t k = 0;
  /// ceil(rows / 64).
  int64_t rowTiles = 0;
  /// ceil(k / blockK).
  int64_t kBlocks = 0;
  /// ceil(kBlocks / 4).
  int64_t vectorsPerRowTile = 0;

  /// Total uint32 words (a multiple of 512, i.e. of 2 KiB).
  int64_t numWords() const {
    return rowTiles * vectorsPerRowTile * kWgmmaThreads *
           kWgmmaMetaWordsPerVector;
  }
};

WgmmaSpMetaLayout getWgmmaSpMetaLayout(WgmmaSpType t, int64_t rows, int64_t k);

/// Canonical -> kernel-ready.  `meta` is the canonical metadata of a
/// meta.rows x k operand (meta.cols == metaWordsPerRow(k, pattern)).  `out`
/// is resized to numWords(); rows and groups beyond the operand get the
/// legal nibble 0x4.  An illegal nibble is an error (out cleared).
Status toWgmmaSpMeta(WgmmaSpType t, View2D<const uint16_t> meta, int64_t k,
                     std::vector<uint32_t> &out);

/// Kernel-ready -> canonical: the exact inverse of toWgmmaSpMeta on the
/// operand's rows and groups.
Status fromWgmmaSpMeta(WgmmaSpType t, const std::vector<uint32_t> &words,
                       int64_t k, View2D<uint16_t> meta);

//===----------------------------------------------------------------------===//
// (c) Shared memory tiles and matrix descriptors
//===----------------------------------------------------------------------===//
//
// An operand tile in shared memory is `mnRows` (M of A, N of B) x `kCols`
// elements (for A: stored, i.e. compressed, columns; for B: dense K).  The
// arrangement chosen for each (major-ness, swizzle) is one instance of the
// ISA's canonical layouts (9.7.15.5.1.2.1.3); offsets are from the tile
// base, which must be aligned to hopperSmemBaseAlignment (so the descriptor
// base offset is 0).  W = swizzle width in bytes (128/64/32), c = W/16,
// e = elementBits/8:
//
// K-major, no swizzle: 8-row x 16-byte core matrices (128 contiguous
//   bytes), K-adjacent ones contiguous, row groups of 8 after each other:
//     off(r, k) = (r/8)*SBO + (k*e/16)*128 + (r%8)*16 + (k*e)%16
//     LBO = 128, SBO = kCols*e*8
// K-major, W-byte swizzle: rows of exactly W bytes (kCols*e == W), 8-row
//   atoms of 8W bytes; 16-byte chunk j of row r is stored at chunk
//   j ^ phase(r), phase(r) = (r%8)*c/8:
//     off(r, k) = (r/8)*8W + (r%8)*W + ((k*e/16) ^ phase(r))*16 + (k*e)%16
//     SBO = 8W, LBO unused (encoded as 1, "assumed to be 1")
// MN-major, no swizzle: core matrices of (16/e) mn x 8 k, mn contiguous:
//     off(r, k) = (k/8)*LBO + (r*e/16)*128 + (k%8)*16 + (r*e)%16
//     SBO = 128, LBO = mnRows*e*8
// MN-major, W-byte swizzle: atoms of (W/e) mn x 8 k, each k a W-byte row:
//     off(r, k) = (r*e/W)*LBO + (k/8)*8W + (k%8)*W
//                 + (((r*e%W)/16) ^ phase(k))*16 + (r*e)%16
//     SBO = 8W, LBO = kCols/8 * 8W
//
// The instruction reading columns [kOffset, kOffset + K extent) of the tile
// gets the descriptor of the tile with the start address advanced to the
// unswizzled offset of (0, kOffset): the swizzle is a function of the
// absolute address, so a start inside a swizzle row is legal.

/// The descriptor's swizzle modes (values = the ISA's encoding, bits 63..62).
enum class HopperSwizzle : unsigned { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// Bytes of one swizzle row: 128, 64, 32, or 16 for None.
int hopperSwizzleBytes(HopperSwizzle s);

/// One operand tile in shared memory.
struct HopperSmemTile {
  HopperSwizzle swizzle = HopperSwizzle::B128;
  /// false: K-major (imm-trans = 0); true: MN-major (imm-trans = 1).
  bool mnMajor = false;
  int elementBits = 16;
  int mnRows = 64;
  int kCols = 64;
};

/// Why `tile` is not a supported arrangement, or "" if it is: mnRows and
/// kCols positive; K-major: mnRows % 8 == 0, kCols*e a multiple of 16
/// (equal to W when swizzled); MN-major: mnRows*e a multiple of 16 (of W
/// when swizzled), kCols % 8 == 0.
std::string hopperSmemTileError(const HopperSmemTile &tile);

/// Bytes of the tile.
int64_t hopperSmemTileBytes(const HopperSmemTile &tile);

/// Alignment the tile base needs: 8W (1024 / 512 / 256) when swizzled, 16
/// otherwise.
int64_t hopperSmemBaseAlignment(const HopperSmemTile &tile);

/// Byte offset of element (mn, k) from the tile base (formulas above).
int64_t hopperSmemOffset(const HopperSmemTile &tile, int mn, int k);

/// The 64-bit matrix descriptor (9.7.15.5.1.2.2): bits 13..0 start address,
/// 29..16 LBO, 45..32 SBO (each (x & 0x3FFFF) >> 4), 51..49 base offset,
/// 63..62 swizzle.
uint64_t encodeWgmmaDescriptor(uint32_t startAddress, uint32_t lboBytes,
                               uint32_t sboBytes, HopperSwizzle swizzle,
                               unsigned baseOffset = 0);

/// LBO and SBO (bytes) of the arrangement (formulas above).
uint32_t hopperSmemLbo(const HopperSmemTile &tile);
uint32_t hopperSmemSbo(const HopperSmemTile &tile);

/// The descriptor of the instruction that reads columns kOffset.. of the
/// tile at shared-memory address `tileBase`.  kOffset must be a multiple of
/// 8 (MN-major) or of 16 bytes' worth of elements (K-major).
uint64_t hopperSmemDescriptor(const HopperSmemTile &tile, uint32_t tileBase,
                              int kOffset);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCHOPPERLAYOUT_H
