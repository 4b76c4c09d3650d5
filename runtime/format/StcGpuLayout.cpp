//===- StcGpuLayout.cpp - kernel-ready layouts for mma.sp -------*- C++ -*-===//
//
// Canonical <-> kernel-ready metadata for the warp-level sparse MMA shapes and
// the padding of canonical values for ldmatrix.  The formulas are in
// StcGpuLayout.h and docs/GPU-LAYOUT.md; test/Unit/GpuLayoutTest.cpp checks
// them end to end against a CPU model of mma.sp written from the PTX ISA.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcGpuLayout.h"

#include <string>

namespace stc::format {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// uint16 canonical metadata words per metadata block.
int canonicalWordsPerBlock(const MmaSpShapeInfo &info) {
  return info.blockK / (4 * info.pattern.m);
}

/// A canonical word made of padding groups only.
constexpr uint16_t kPadWord = kPadNibble * 0x1111u;

Status shapeMismatch(std::string message) {
  Status s;
  s.code = ErrorCode::ShapeMismatch;
  s.message = std::move(message);
  return s;
}

} // namespace

const char *mmaSpShapeName(MmaSpShape s) {
  switch (s) {
  case MmaSpShape::M16N8K16B16:
    return "m16n8k16.b16";
  case MmaSpShape::M16N8K32B16:
    return "m16n8k32.b16";
  case MmaSpShape::M16N8K8TF32:
    return "m16n8k8.tf32";
  case MmaSpShape::M16N8K16TF32:
    return "m16n8k16.tf32";
  case MmaSpShape::M16N8K32I8:
    return "m16n8k32.i8";
  case MmaSpShape::M16N8K64I8:
    return "m16n8k64.i8";
  }
  return "?";
}

void mmaSpMetaWordSources(MmaSpShape shape, int lane, int w,
                          MmaSpMetaHalf out[2]) {
  // g = groupID, q = threadID_in_group (PTX ISA 9.7.14.6.2).
  int g = lane / 4, q = lane % 4;
  switch (shape) {
  case MmaSpShape::M16N8K32B16:
  case MmaSpShape::M16N8K16TF32: {
    // Threads 2F and 2F+1 of a quad: row g in bits 15:0, row g+8 in bits
    // 31:16; thread 2F the first half of the K step, 2F+1 the second.  F
    // picks the 16-row tile of the block.
    int rowTile = q / 2, kHalf = q % 2;
    out[0] = {16 * rowTile + g, kHalf};
    out[1] = {16 * rowTile + g + 8, kHalf};
    return;
  }
  case MmaSpShape::M16N8K16B16:
  case MmaSpShape::M16N8K8TF32: {
    // Thread F of a quad: row g in bits 15:0, row g+8 in bits 31:16, the
    // whole K step.  F = rowTile + 2 * (K step within the block).
    int rowTile = q % 2, kSub = q / 2;
    out[0] = {16 * rowTile + g, kSub};
    out[1] = {16 * rowTile + g + 8, kSub};
    return;
  }
  case MmaSpShape::M16N8K32I8: {
    // Threads 2F and 2F+1: one row each (g, g+8), all 32 dense columns
    // (8 nibbles).  *probe*: from CuTe's SM80 sparse traits, not yet
    // verified on hardware.
    int rowTile = q / 2, rowHalf = q % 2;
    int row = 16 * rowTile + g + 8 * rowHalf;
    out[0] = {row, 0};
    out[1] = {row, 1};
    return;
  }
  case MmaSpShape::M16N8K64I8: {
    // All four threads, F = 0: thread q holds row g + 8*(q%2), dense columns
    // 32*(q/2)..+31.  Word w of the lane serves 16-row tile w of the block.
    // *probe* like m16n8k32.i8.
    int rowTile = w, rowHalf = q % 2, kHalf = q / 2;
    int row = 16 * rowTile + g + 8 * rowHalf;
    out[0] = {row, 2 * kHalf};
    out[1] = {row, 2 * kHalf + 1};
    return;
  }
  }
  out[0] = out[1] = {0, 0};
}

MmaSpMetaLayout getMmaSpMetaLayout(MmaSpShape shape, int64_t rows, int64_t k) {
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  MmaSpMetaLayout l;
  l.shape = shape;
  l.rows = rows;
  l.k = k;
  l.rowBlocks = ceilDiv(rows, kMetaBlockRows);
  l.kBlocks = ceilDiv(k, info.blockK);
  l.vectorsPerRowBlock =
      ceilDiv(l.kBlocks * info.wordsPerLane, kMetaWordsPerVector);
  return l;
}

Status toMmaSpMeta(MmaSpShape shape, View2D<const uint16_t> meta, int64_t k,
                   std::vector<uint32_t> &out) {
  out.clear();
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  int64_t cols = metaWordsPerRow(k, info.pattern);
  if (k < 0 || meta.rows < 0 || meta.cols != cols)
    return shapeMismatch(std::string("metadata of ") + mmaSpShapeName(shape) +
                         " operand with K=" + std::to_string(k) + " needs " +
                         std::to_string(cols) + " words per row, got " +
                         std::to_string(meta.cols));
  if (Status s = validateMeta(meta, info.pattern); !s.ok())
    return s;

  MmaSpMetaLayout l = getMmaSpMetaLayout(shape, meta.rows, k);
  int cwPerBlock = canonicalWordsPerBlock(info);
  auto canonical = [&](int64_t r, int64_t c) -> uint32_t {
    return r < meta.rows && c < cols ? meta.at(r, c) : kPadWord;
  };
  out.assign(size_t(l.numWords()), 0);
  int64_t wordsPerRowBlockLane = l.vectorsPerRowBlock * kMetaWordsPerVector;
  for (int64_t rb = 0; rb < l.rowBlocks; ++rb)
    for (int64_t s = 0; s < wordsPerRowBlockLane; ++s) {
      int64_t kb = s / info.wordsPerLane;
      int w = int(s % info.wordsPerLane);
      for (int lane = 0; lane < 32; ++lane) {
        uint32_t word = uint32_t(kPadWord) * 0x10001u;
        if (kb < l.kBlocks) {
          MmaSpMetaHalf src[2];
          mmaSpMetaWordSources(shape, lane, w, src);
          int64_t row0 = rb * kMetaBlockRows, col0 = kb * cwPerBlock;
          word = canonical(row0 + src[0].row, col0 + src[0].word) |
                 canonical(row0 + src[1].row, col0 + src[1].word) << 16;
        }
        out[size_t(mmaSpMetaWordIndex(rb, s, lane, l.vectorsPerRowBlock))] =
            word;
      }
    }
  return Status();
}

Status fromMmaSpMeta(MmaSpShape shape, const std::vector<uint32_t> &words,
                     int64_t k, View2D<uint16_t> meta) {
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  int64_t cols = metaWordsPerRow(k, info.pattern);
  MmaSpMetaLayout l = getMmaSpMetaLayout(shape, meta.rows, k);
  if (k < 0 || meta.rows < 0 || meta.cols != cols ||
      int64_t(words.size()) != l.numWords())
    return shapeMismatch(std::string("kernel-ready metadata of ") +
                         mmaSpShapeName(shape) + " does not match " +
                         std::to_string(meta.rows) +
                         " x K=" + std::to_string(k));
  int cwPerBlock = canonicalWordsPerBlock(info);
  for (int64_t rb = 0; rb < l.rowBlocks; ++rb)
    for (int64_t kb = 0; kb < l.kBlocks; ++kb)
      for (int w = 0; w < info.wordsPerLane; ++w)
        for (int lane = 0; lane < 32; ++lane) {
          int64_t s = kb * info.wordsPerLane + w;
          uint32_t word = words[size_t(
              mmaSpMetaWordIndex(rb, s, lane, l.vectorsPerRowBlock))];
          MmaSpMetaHalf src[2];
          mmaSpMetaWordSources(shape, lane, w, src);
          for (int h = 0; h < 2; ++h) {
            int64_t r = rb * kMetaBlockRows + src[h].row;
            int64_t c = kb * cwPerBlock + src[h].word;
            if (r < meta.rows && c < cols)
              meta.at(r, c) = uint16_t(word >> (16 * h));
          }
        }
  return validateMeta(meta, info.pattern);
}

int64_t mmaSpPaddedRows(int64_t rows) {
  return ceilDiv(rows, kMetaBlockRows) * kMetaBlockRows;
}

int64_t mmaSpPaddedK(MmaSpShape shape, int64_t k) {
  int instrK = getMmaSpShapeInfo(shape).k;
  return ceilDiv(k, instrK) * instrK;
}

template <typename T>
std::vector<T> padMmaSpValues(MmaSpShape shape, View2D<const T> values,
                              int64_t k) {
  MmaSpShapeInfo info = getMmaSpShapeInfo(shape);
  if (int(sizeof(T)) * 8 != info.elementBits || values.rows < 0 || k < 0 ||
      values.cols != valuesPerRow(k, info.pattern))
    return {};
  int64_t rows = mmaSpPaddedRows(values.rows);
  // Both patterns keep half of the dense columns.
  int64_t cols = mmaSpPaddedK(shape, k) / 2;
  std::vector<T> out(size_t(rows * cols), T(0));
  for (int64_t r = 0; r < values.rows; ++r)
    for (int64_t c = 0; c < values.cols; ++c)
      out[size_t(r * cols + c)] = values.at(r, c);
  return out;
}

template std::vector<uint16_t>
    padMmaSpValues<uint16_t>(MmaSpShape, View2D<const uint16_t>, int64_t);
template std::vector<float> padMmaSpValues<float>(MmaSpShape,
                                                  View2D<const float>, int64_t);
template std::vector<int8_t>
    padMmaSpValues<int8_t>(MmaSpShape, View2D<const int8_t>, int64_t);
template std::vector<uint8_t>
    padMmaSpValues<uint8_t>(MmaSpShape, View2D<const uint8_t>, int64_t);

} // namespace stc::format
