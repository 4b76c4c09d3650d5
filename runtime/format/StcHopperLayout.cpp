//===- StcHopperLayout.cpp - kernel-ready layouts for wgmma.sp --*- C++ -*-===//
//
// The formulas are in StcHopperLayout.h and docs/HOPPER-LAYOUT.md;
// test/Unit/WgmmaSpModelTest.cpp checks them end to end against a CPU model
// of wgmma.mma_async.sp written from the PTX ISA.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcHopperLayout.h"

#include <string>

namespace stc::format {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Canonical uint16 metadata words per metadata block (4 for every type).
int canonicalWordsPerBlock(const WgmmaSpTypeInfo &info) {
  return info.blockK / (4 * info.pattern.m);
}

constexpr uint16_t kPadWord = 0x4444;

Status shapeMismatch(std::string message) {
  Status s;
  s.code = ErrorCode::ShapeMismatch;
  s.message = std::move(message);
  return s;
}

} // namespace

const char *wgmmaSpTypeName(WgmmaSpType t) {
  switch (t) {
  case WgmmaSpType::B16:
    return "m64nNk32.b16";
  case WgmmaSpType::TF32:
    return "m64nNk16.tf32";
  case WgmmaSpType::I8:
    return "m64nNk64.i8";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// (a) A from registers
//===----------------------------------------------------------------------===//

WgmmaCell wgmmaSpAElement(WgmmaSpType t, int tid, int i) {
  int w = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  int row0 = 16 * w + g;
  switch (t) {
  case WgmmaSpType::B16:
    // Two per register; registers: (row g, cols 0-7), (g+8, 0-7),
    // (g, 8-15), (g+8, 8-15) with the quad's 4 threads side by side.
    return {row0 + 8 * ((i / 2) % 2), 2 * q + i % 2 + 8 * (i / 4)};
  case WgmmaSpType::TF32:
    // One per register: (g, q), (g+8, q), (g, q+4), (g+8, q+4).
    return {row0 + 8 * (i % 2), q + 4 * (i / 2)};
  case WgmmaSpType::I8:
    // Four per register: (g, 4q..), (g+8, 4q..), (g, 16+4q..), (g+8, ..).
    return {row0 + 8 * ((i / 4) % 2), 4 * q + i % 4 + 16 * (i / 8)};
  }
  return {0, 0};
}

//===----------------------------------------------------------------------===//
// (b) Metadata
//===----------------------------------------------------------------------===//

void wgmmaSpMetaWordSources(WgmmaSpType t, int tid, WgmmaSpMetaHalf out[2]) {
  int w = tid / 32, lane = tid % 32, g = lane / 4, q = lane % 4;
  switch (t) {
  case WgmmaSpType::B16:
  case WgmmaSpType::TF32:
    // Pair q/2 serves K step q/2 of the block (selector = that step), and
    // within the pair thread q%2 the (q%2)-th half of the step: canonical
    // word 2*(q/2) + q%2 = q of the block.
    out[0] = {16 * w + g, q};
    out[1] = {16 * w + g + 8, q};
    return;
  case WgmmaSpType::I8: {
    // All four threads, one K step per block: thread q holds one row
    // (g or g+8) and half of the 64 dense columns (two canonical words).
    int row = 16 * w + g + 8 * (q % 2);
    out[0] = {row, 2 * (q / 2)};
    out[1] = {row, 2 * (q / 2) + 1};
    return;
  }
  }
  out[0] = out[1] = {0, 0};
}

WgmmaSpMetaLayout getWgmmaSpMetaLayout(WgmmaSpType t, int64_t rows, int64_t k) {
  WgmmaSpTypeInfo info = getWgmmaSpTypeInfo(t);
  WgmmaSpMetaLayout l;
  l.type = t;
  l.rows = rows;
  l.k = k;
  l.rowTiles = ceilDiv(rows, kWgmmaRows);
  l.kBlocks = ceilDiv(k, info.blockK);
  l.vectorsPerRowTile = ceilDiv(l.kBlocks, kWgmmaMetaWordsPerVector);
  return l;
}

Status toWgmmaSpMeta(WgmmaSpType t, View2D<const uint16_t> meta, int64_t k,
                     std::vector<uint32_t> &out) {
  out.clear();
  WgmmaSpTypeInfo info = getWgmmaSpTypeInfo(t);
  int64_t cols = metaWordsPerRow(k, info.pattern);
  if (k < 0 || meta.rows < 0 || meta.cols != cols)
    return shapeMismatch(std::string("metadata of ") + wgmmaSpTypeName(t) +
                         " operand with K=" + std::to_string(k) + " needs " +
                         std::to_string(cols) + " words per row, got " +
                         std::to_string(meta.cols));
  if (Status s = validateMeta(meta, info.pattern); !s.ok())
    return s;

  WgmmaSpMetaLayout l = getWgmmaSpMetaLayout(t, meta.rows, k);
  int cwPerBlock = canonicalWordsPerBlock(info);
  auto canonical = [&](int64_t r, int64_t c) -> uint32_t {
    return r < meta.rows && c < cols ? meta.at(r, c) : kPadWord;
  };
  out.assign(size_t(l.numWords()), 0);
  int64_t wordsPerTileThread = l.vectorsPerRowTile * kWgmmaMetaWordsPerVector;
  for (int64_t rt = 0; rt < l.rowTiles; ++rt)
    for (int64_t s = 0; s < wordsPerTileThread; ++s)
      for (int tid = 0; tid < kWgmmaThreads; ++tid) {
        uint32_t word = uint32_t(kPadWord) * 0x10001u;
        if (s < l.kBlocks) {
          WgmmaSpMetaHalf src[2];
          wgmmaSpMetaWordSources(t, tid, src);
          int64_t row0 = rt * kWgmmaRows, col0 = s * cwPerBlock;
          word = canonical(row0 + src[0].row, col0 + src[0].word) |
                 canonical(row0 + src[1].row, col0 + src[1].word) << 16;
        }
        out[size_t(wgmmaSpMetaWordIndex(rt, s, tid, l.vectorsPerRowTile))] =
            word;
      }
  return Status();
}

Status fromWgmmaSpMeta(WgmmaSpType t, const std::vector<uint32_t> &words,
                       int64_t k, View2D<uint16_t> meta) {
  WgmmaSpTypeInfo info = getWgmmaSpTypeInfo(t);
  int64_t cols = metaWordsPerRow(k, info.pattern);
  WgmmaSpMetaLayout l = getWgmmaSpMetaLayout(t, meta.rows, k);
  if (k < 0 || meta.rows < 0 || meta.cols != cols ||
      int64_t(words.size()) != l.numWords())
    return shapeMismatch(std::string("kernel-ready metadata of ") +
                         wgmmaSpTypeName(t) + " does not match " +
                         std::to_string(meta.rows) +
                         " x K=" + std::to_string(k));
  int cwPerBlock = canonicalWordsPerBlock(info);
  for (int64_t rt = 0; rt < l.rowTiles; ++rt)
    for (int64_t s = 0; s < l.kBlocks; ++s)
      for (int tid = 0; tid < kWgmmaThreads; ++tid) {
        uint32_t word = words[size_t(
            wgmmaSpMetaWordIndex(rt, s, tid, l.vectorsPerRowTile))];
        WgmmaSpMetaHalf src[2];
        wgmmaSpMetaWordSources(t, tid, src);
        for (int h = 0; h < 2; ++h) {
          int64_t r = rt * kWgmmaRows + src[h].row;
          int64_t c = s * cwPerBlock + src[h].word;
          if (r < meta.rows && c < cols)
            meta.at(r, c) = uint16_t(word >> (16 * h));
        }
      }
  return Status();
}

//===----------------------------------------------------------------------===//
// (c) Shared memory tiles and matrix descriptors
//===----------------------------------------------------------------------===//

int hopperSwizzleBytes(HopperSwizzle s) {
  switch (s) {
  case HopperSwizzle::B128:
    return 128;
  case HopperSwizzle::B64:
    return 64;
  case HopperSwizzle::B32:
    return 32;
  case HopperSwizzle::None:
    break;
  }
  return 16;
}

std::string hopperSmemTileError(const HopperSmemTile &tile) {
  const int e = tile.elementBits / 8;
  const int w = hopperSwizzleBytes(tile.swizzle);
  const bool swizzled = tile.swizzle != HopperSwizzle::None;
  if (tile.elementBits != 8 && tile.elementBits != 16 && tile.elementBits != 32)
    return "element width must be 8, 16 or 32 bits";
  if (tile.mnRows <= 0 || tile.kCols <= 0)
    return "empty tile";
  if (!tile.mnMajor) {
    if (tile.mnRows % 8 != 0)
      return "K-major tile rows must be a multiple of 8";
    if (swizzled ? tile.kCols * e != w : (tile.kCols * e) % 16 != 0)
      return swizzled ? "K-major swizzled tile rows must be exactly the "
                        "swizzle width"
                      : "K-major tile rows must be a multiple of 16 bytes";
    return "";
  }
  if ((tile.mnRows * e) % w != 0)
    return "MN-major tile extent along M/N must be a multiple of " +
           std::to_string(w) + " bytes";
  if (tile.kCols % 8 != 0)
    return "MN-major tile K must be a multiple of 8";
  return "";
}

int64_t hopperSmemTileBytes(const HopperSmemTile &tile) {
  return int64_t(tile.mnRows) * tile.kCols * (tile.elementBits / 8);
}

int64_t hopperSmemBaseAlignment(const HopperSmemTile &tile) {
  return tile.swizzle == HopperSwizzle::None
             ? 16
             : 8 * hopperSwizzleBytes(tile.swizzle);
}

uint32_t hopperSmemLbo(const HopperSmemTile &tile) {
  const int e = tile.elementBits / 8, w = hopperSwizzleBytes(tile.swizzle);
  if (tile.swizzle == HopperSwizzle::None)
    return tile.mnMajor ? uint32_t(tile.mnRows * e * 8) : 128u;
  // K-major swizzled: "not used, assumed to be 1" (encoded 1 = 16 bytes).
  return tile.mnMajor ? uint32_t(tile.kCols / 8 * 8 * w) : 16u;
}

uint32_t hopperSmemSbo(const HopperSmemTile &tile) {
  const int e = tile.elementBits / 8, w = hopperSwizzleBytes(tile.swizzle);
  if (tile.swizzle == HopperSwizzle::None)
    return tile.mnMajor ? 128u : uint32_t(tile.kCols * e * 8);
  return uint32_t(8 * w);
}

int64_t hopperSmemOffset(const HopperSmemTile &tile, int mn, int k) {
  const int e = tile.elementBits / 8;
  const int w = hopperSwizzleBytes(tile.swizzle), c = w / 16;
  if (tile.swizzle == HopperSwizzle::None) {
    if (!tile.mnMajor)
      return int64_t(mn / 8) * hopperSmemSbo(tile) + (k * e / 16) * 128 +
             (mn % 8) * 16 + (k * e) % 16;
    return int64_t(k / 8) * hopperSmemLbo(tile) + (mn * e / 16) * 128 +
           (k % 8) * 16 + (mn * e) % 16;
  }
  if (!tile.mnMajor) {
    // Row r of a W-byte swizzle row; chunk j of the row moves to
    // j ^ phase, phase = (r % 8) * c / 8 (128B: r%8, 64B: (r%8)/2,
    // 32B: (r%8)/4).
    int r8 = mn % 8, phase = r8 * c / 8;
    int chunk = (k * e) / 16;
    return int64_t(mn / 8) * 8 * w + int64_t(r8) * w +
           int64_t(chunk ^ phase) * 16 + (k * e) % 16;
  }
  // MN-major: the k-th W-byte row of an atom holds W/e consecutive mn.
  int k8 = k % 8, phase = k8 * c / 8;
  int inRow = (mn * e) % w;
  return int64_t((mn * e) / w) * hopperSmemLbo(tile) + int64_t(k / 8) * 8 * w +
         int64_t(k8) * w + int64_t((inRow / 16) ^ phase) * 16 + inRow % 16;
}

uint64_t encodeWgmmaDescriptor(uint32_t startAddress, uint32_t lboBytes,
                               uint32_t sboBytes, HopperSwizzle swizzle,
                               unsigned baseOffset) {
  auto enc = [](uint32_t x) -> uint64_t { return (x & 0x3FFFFu) >> 4; };
  return enc(startAddress) | enc(lboBytes) << 16 | enc(sboBytes) << 32 |
         uint64_t(baseOffset & 0x7u) << 49 |
         uint64_t(unsigned(swizzle) & 0x3u) << 62;
}

uint64_t hopperSmemDescriptor(const HopperSmemTile &tile, uint32_t tileBase,
                              int kOffset) {
  const int e = tile.elementBits / 8, w = hopperSwizzleBytes(tile.swizzle);
  uint32_t start;
  if (!tile.mnMajor)
    start = tile.swizzle == HopperSwizzle::None
                ? uint32_t(kOffset * e / 16 * 128)
                : uint32_t(kOffset * e);
  else
    start = tile.swizzle == HopperSwizzle::None
                ? uint32_t(kOffset / 8) * hopperSmemLbo(tile)
                : uint32_t(kOffset / 8 * 8 * w);
  return encodeWgmmaDescriptor(tileBase + start, hopperSmemLbo(tile),
                               hopperSmemSbo(tile), tile.swizzle);
}

} // namespace stc::format
