//===- FormatTest.cpp - tests of the canonical N:M format -------*- C++ -*-===//
//
// Unit tests of runtime/format/StcFormat: sizes, nibbles, pruning (with the
// lower-index tie rule), compress/decompress on hand-checked words and on
// random data, error reporting, decodeIndices, f16/bf16 bit conversions,
// and i8 storage (agreement with the float path that constant folding uses).
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcFormat.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

using namespace stc::format;

using stc::test::bitsOf;
using stc::test::floatOf;

namespace {

/// Prunes a single group of row-major floats with the library.
std::vector<float> pruneRow(const std::vector<float> &row, NMPattern p) {
  return prune(row, 1, int64_t(row.size()), 1, p);
}

/// Bitwise equality of float vectors (so -0.0 != +0.0 and NaN == NaN).
void expectBitsEq(const std::vector<float> &a, const std::vector<float> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(bitsOf(a[i]), bitsOf(b[i]))
        << "at " << i << ": " << a[i] << " vs " << b[i];
}

/// Random floats, never all zero, with a fraction of exact zeros.
std::vector<float> randomDense(std::mt19937 &rng, size_t size,
                               double zeroFraction = 0.2) {
  std::uniform_real_distribution<float> val(-4.0f, 4.0f);
  std::bernoulli_distribution zero(zeroFraction);
  std::vector<float> v(size);
  for (float &x : v)
    x = zero(rng) ? 0.0f : val(rng);
  if (!v.empty())
    v[0] = 1.5f;
  return v;
}

/// Reference pruning of one group: stable sort by descending magnitude (NaN
/// first), keep the first n.
std::vector<bool> referenceKept(const std::vector<float> &group, int n) {
  std::vector<int> order(group.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int i) {
    float a = std::fabs(group[size_t(i)]);
    return std::isnan(a) ? std::numeric_limits<float>::infinity() * 2 : a;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    bool an = std::isnan(group[size_t(a)]), bn = std::isnan(group[size_t(b)]);
    if (an != bn)
      return an;
    return key(a) > key(b);
  });
  std::vector<bool> kept(group.size(), false);
  for (int i = 0; i < n; ++i)
    kept[size_t(order[size_t(i)])] = true;
  return kept;
}

} // namespace

//===----------------------------------------------------------------------===//
// Sizes and nibbles
//===----------------------------------------------------------------------===//

TEST(FormatSizes, PaddingAndCounts) {
  EXPECT_TRUE(kPattern24.isSupported());
  EXPECT_TRUE(kPattern12.isSupported());
  EXPECT_FALSE((NMPattern{2, 8}).isSupported());
  EXPECT_FALSE((NMPattern{1, 4}).isSupported());
  EXPECT_FALSE((NMPattern{4, 8}).isSupported());
  EXPECT_FALSE((NMPattern{3, 4}).isSupported());

  EXPECT_EQ(paddedReduction(1, kPattern24), 16);
  EXPECT_EQ(paddedReduction(16, kPattern24), 16);
  EXPECT_EQ(paddedReduction(17, kPattern24), 32);
  EXPECT_EQ(paddedReduction(64, kPattern24), 64);
  EXPECT_EQ(valuesPerRow(17, kPattern24), 16);
  EXPECT_EQ(metaWordsPerRow(17, kPattern24), 2);
  EXPECT_EQ(groupsPerRow(30, kPattern24), 8);

  EXPECT_EQ(paddedReduction(1, kPattern12), 8);
  EXPECT_EQ(paddedReduction(5, kPattern12), 8);
  EXPECT_EQ(paddedReduction(9, kPattern12), 16);
  EXPECT_EQ(valuesPerRow(5, kPattern12), 4);
  EXPECT_EQ(metaWordsPerRow(5, kPattern12), 1);
  EXPECT_EQ(metaWordsPerRow(17, kPattern12), 3);
}

TEST(FormatNibbles, LegalAndIllegal24) {
  const unsigned legal[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  const int pairs[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(encodeNibble(pairs[i], kPattern24), int(legal[i]));
    int idx[2] = {-1, -1};
    ASSERT_TRUE(decodeNibble(legal[i], kPattern24, idx));
    EXPECT_EQ(idx[0], pairs[i][0]);
    EXPECT_EQ(idx[1], pairs[i][1]);
  }
  int numLegal = 0;
  for (unsigned nib = 0; nib < 16; ++nib)
    numLegal += isLegalNibble(nib, kPattern24);
  EXPECT_EQ(numLegal, 6);
  for (unsigned nib : {0x0u, 0x5u, 0xFu, 0x1u, 0x6u, 0xAu})
    EXPECT_FALSE(isLegalNibble(nib, kPattern24)) << nib;
  const int bad[][2] = {{1, 0}, {2, 2}, {0, 4}, {-1, 2}};
  for (const auto &b : bad)
    EXPECT_EQ(encodeNibble(b, kPattern24), -1);
}

TEST(FormatNibbles, LegalAndIllegal12) {
  int idx[1] = {0};
  EXPECT_EQ(encodeNibble(idx, kPattern12), 0x4);
  idx[0] = 1;
  EXPECT_EQ(encodeNibble(idx, kPattern12), 0xE);
  idx[0] = 2;
  EXPECT_EQ(encodeNibble(idx, kPattern12), -1);
  ASSERT_TRUE(decodeNibble(0x4, kPattern12, idx));
  EXPECT_EQ(idx[0], 0);
  ASSERT_TRUE(decodeNibble(0xE, kPattern12, idx));
  EXPECT_EQ(idx[0], 1);
  for (unsigned nib = 0; nib < 16; ++nib)
    EXPECT_EQ(isLegalNibble(nib, kPattern12), nib == 0x4 || nib == 0xE) << nib;
}

//===----------------------------------------------------------------------===//
// Pruning
//===----------------------------------------------------------------------===//

TEST(FormatPrune, TiesGoToLowerIndex24) {
  // All equal: keep columns 0 and 1.
  expectBitsEq(pruneRow({1, 1, 1, 1}, kPattern24), {1, 1, 0, 0});
  // Negative ties with positive: |-3| == |3| == |-3|, lowest two win.
  expectBitsEq(pruneRow({-3, 3, 2, -3}, kPattern24), {-3, 3, 0, 0});
  // Tie for the second place between columns 1 and 2.
  expectBitsEq(pruneRow({1, 2, 2, 1}, kPattern24), {0, 2, 2, 0});
  expectBitsEq(pruneRow({5, -7, 7, 6}, kPattern24), {0, -7, 7, 0});
  expectBitsEq(pruneRow({0.5f, 1, 0.5f, 1}, kPattern24), {0, 1, 0, 1});
  expectBitsEq(pruneRow({2, 1, 1, 1}, kPattern24), {2, 1, 0, 0});
  expectBitsEq(pruneRow({1, 1, 1, 2}, kPattern24), {1, 0, 0, 2});
  // Zeros: the one non-zero plus the lowest zero (which stays zero).
  expectBitsEq(pruneRow({0, 0, 0, 0}, kPattern24), {0, 0, 0, 0});
  expectBitsEq(pruneRow({0, -1, 0, 0}, kPattern24), {0, -1, 0, 0});
  // Two groups in one row, negatives only; pruned entries become +0.
  std::vector<float> out =
      pruneRow({-1, -2, -3, -4, -4, -3, -2, -1}, kPattern24);
  expectBitsEq(out, {0, 0, -3, -4, -4, -3, 0, 0});
  EXPECT_FALSE(std::signbit(out[0]));
  EXPECT_FALSE(std::signbit(out[7]));
  // A kept -0.0 is copied as -0.0; a pruned -0.0 becomes +0.0.
  out = pruneRow({-0.0f, -0.0f, -0.0f, -0.0f}, kPattern24);
  EXPECT_TRUE(std::signbit(out[0]));
  EXPECT_TRUE(std::signbit(out[1]));
  EXPECT_FALSE(std::signbit(out[2]));
  EXPECT_FALSE(std::signbit(out[3]));
}

TEST(FormatPrune, TiesGoToLowerIndex12) {
  expectBitsEq(pruneRow({2, -2, 1, -3, 0, 0, 0, 5}, kPattern12),
               {2, 0, 0, -3, 0, 0, 0, 5});
  expectBitsEq(pruneRow({-1, -1}, kPattern12), {-1, 0});
}

TEST(FormatPrune, NaNIsLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> out = pruneRow({1, nan, 3, 2}, kPattern24);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(out[3], 0.0f);
  out = pruneRow({1, -inf, 2, nan}, kPattern24);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], -inf);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_TRUE(std::isnan(out[3]));
  out = pruneRow({inf, 1, nan, nan}, kPattern24);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_TRUE(std::isnan(out[2]) && std::isnan(out[3]));
  out = pruneRow({inf, nan}, kPattern12);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_TRUE(std::isnan(out[1]));
}

TEST(FormatPrune, PartialTailGroup) {
  // K = 3: the padded column counts as zero and is never written.
  expectBitsEq(pruneRow({0, 0, 5}, kPattern24), {0, 0, 5});
  expectBitsEq(pruneRow({1, 3, 2}, kPattern24), {0, 3, 2});
  expectBitsEq(pruneRow({7, 1, 2, 3, -4}, kPattern24), {7, 0, 0, 3, -4});
  expectBitsEq(pruneRow({1, 2, 3}, kPattern12), {0, 2, 3});
}

TEST(FormatPrune, RandomMatchesStableSortReference) {
  std::mt19937 rng(1234);
  // Small integers so that ties are frequent.
  std::uniform_int_distribution<int> val(-3, 3);
  for (NMPattern p : {kPattern24, kPattern12}) {
    for (int64_t k : {1, 3, 5, 17, 30, 64}) {
      const int64_t rows = 9;
      std::vector<float> dense(size_t(rows * k));
      for (float &x : dense)
        x = float(val(rng));
      dense[0] = 2.0f;
      std::vector<float> pruned = prune(dense, rows, k, 1, p);
      ASSERT_EQ(pruned.size(), dense.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t g = 0; g * p.m < k; ++g) {
          std::vector<float> group(size_t(p.m), 0.0f);
          for (int j = 0; j < p.m && g * p.m + j < k; ++j)
            group[size_t(j)] = dense[size_t(r * k + g * p.m + j)];
          std::vector<bool> kept = referenceKept(group, p.n);
          for (int j = 0; j < p.m && g * p.m + j < k; ++j) {
            float expect = kept[size_t(j)] ? group[size_t(j)] : 0.0f;
            EXPECT_EQ(bitsOf(pruned[size_t(r * k + g * p.m + j)]),
                      bitsOf(expect))
                << "k=" << k << " row " << r << " group " << g << " col " << j;
          }
        }
      EXPECT_FALSE(checkPattern<float>(
          View2D<const float>::rowMajor(pruned.data(), rows, k), p,
          magnitudeF32));
    }
  }
}

TEST(FormatPrune, InPlaceAndShapeMismatch) {
  std::vector<float> buf = {4, 3, 2, 1, 1, 2, 3, 4};
  View2D<float> v = View2D<float>::rowMajor(buf.data(), 2, 4);
  EXPECT_TRUE(prune<float>(v, v, kPattern24, magnitudeF32));
  expectBitsEq(buf, {4, 3, 0, 0, 0, 0, 3, 4});
  std::vector<float> out(6, 9.0f);
  EXPECT_FALSE(prune<float>(v, View2D<float>::rowMajor(out.data(), 2, 3),
                            kPattern24, magnitudeF32));
  EXPECT_FALSE(prune<float>(v, v, NMPattern{2, 8}, magnitudeF32));
}

TEST(FormatPrune, F16UsesHalfMagnitude) {
  // 1.0, -2.5, smallest subnormal, 65504 -> keep -2.5 and 65504.
  std::vector<uint16_t> in = {0x3C00, 0xC100, 0x0001, 0x7BFF};
  std::vector<uint16_t> out(4, 0xFFFF);
  ASSERT_TRUE(prune<uint16_t>(View2D<const uint16_t>::rowMajor(in.data(), 1, 4),
                              View2D<uint16_t>::rowMajor(out.data(), 1, 4),
                              kPattern24, magnitudeF16));
  EXPECT_EQ(out, (std::vector<uint16_t>{0, 0xC100, 0, 0x7BFF}));
  // bf16: 1.0 (0x3F80), -2.5 (0xC020), 0.5 (0x3F00), -0.0 (0x8000).
  in = {0x3F80, 0xC020, 0x3F00, 0x8000};
  ASSERT_TRUE(prune<uint16_t>(View2D<const uint16_t>::rowMajor(in.data(), 1, 4),
                              View2D<uint16_t>::rowMajor(out.data(), 1, 4),
                              kPattern24, magnitudeBF16));
  EXPECT_EQ(out, (std::vector<uint16_t>{0x3F80, 0xC020, 0, 0}));
}

//===----------------------------------------------------------------------===//
// Compress: hand-checked words
//===----------------------------------------------------------------------===//

TEST(FormatCompress, HandCheckedWords24) {
  // Row 0 groups keep (0,1) (0,2) (0,3) (1,2) -> nibbles 4 8 C 9 -> 0x9C84.
  // Row 1 groups keep (1,3) (2,3) none (3 only) -> nibbles D E 4 C -> 0xC4ED.
  std::vector<float> dense = {
      1, 2, 0, 0,  /**/ 3, 0, 4,  0,  /**/ 5, 0, 0, 6, /**/ 0, 7, 8, 0, //
      0, 9, 0, 10, /**/ 0, 0, 11, 12, /**/ 0, 0, 0, 0, /**/ 0, 0, 0, 13};
  Compressed c;
  Status s = compress(dense, 2, 16, 1, kPattern24, c);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.k, 16);
  EXPECT_EQ(c.meta, (std::vector<uint16_t>{0x9C84, 0xC4ED}));
  expectBitsEq(c.values, {1, 2, 3, 4, 5, 6, 7, 8, //
                          9, 10, 11, 12, 0, 0, 0, 13});
  std::vector<float> back;
  ASSERT_TRUE(decompress(c, 1, back).ok());
  expectBitsEq(back, dense);
}

TEST(FormatCompress, FewerThanNNonZeros) {
  // Single groups (K = 4 -> one word, padding groups are 0x4).
  struct Case {
    std::vector<float> group;
    unsigned nibble;
    std::vector<float> values;
    std::vector<float> back; // Empty: same as group.
  } cases[] = {
      {{0, 0, 0, 5}, 0xC, {0, 5}, {}},
      {{0, 0, 0, 0}, 0x4, {0, 0}, {}},
      {{5, 0, 0, 0}, 0x4, {5, 0}, {}},
      {{0, 5, 0, 0}, 0x4, {0, 5}, {}},
      {{0, 0, 5, 0}, 0x8, {0, 5}, {}},
      {{-0.0f, 0, 0, 7}, 0xC, {-0.0f, 7}, {}},
      // -0.0 counts as a zero: col 1 is not kept and comes back as +0.
      {{0, -0.0f, 6, 0}, 0x8, {0, 6}, {0, 0, 6, 0}},
  };
  for (const Case &cs : cases) {
    Compressed c;
    ASSERT_TRUE(compress(cs.group, 1, 4, 1, kPattern24, c).ok());
    ASSERT_EQ(c.meta.size(), 1u);
    EXPECT_EQ(c.meta[0], 0x4440 | cs.nibble);
    ASSERT_EQ(c.values.size(), 8u);
    expectBitsEq({c.values[0], c.values[1]}, cs.values);
    for (size_t i = 2; i < 8; ++i)
      EXPECT_EQ(bitsOf(c.values[i]), 0u);
    std::vector<float> back;
    ASSERT_TRUE(decompress(c, 1, back).ok());
    expectBitsEq(back, cs.back.empty() ? cs.group : cs.back);
  }
}

TEST(FormatCompress, HandCheckedWords12) {
  // Pairs [0,5] [6,0] [0,0] [-1,0] -> nibbles E 4 4 4 -> 0x444E.
  // Second row: [0,1] [0,2] [3,0] [0,0] -> E E 4 4 -> 0x44EE.
  std::vector<float> dense = {0, 5, 6, 0, 0, 0, -1, 0, //
                              0, 1, 0, 2, 3, 0, 0,  0};
  Compressed c;
  ASSERT_TRUE(compress(dense, 2, 8, 1, kPattern12, c).ok());
  EXPECT_EQ(c.meta, (std::vector<uint16_t>{0x444E, 0x44EE}));
  expectBitsEq(c.values, {5, 6, 0, -1, 1, 2, 3, 0});
  std::vector<float> back;
  ASSERT_TRUE(decompress(c, 1, back).ok());
  expectBitsEq(back, dense);
}

TEST(FormatCompress, PaddingGroups) {
  // K = 5 (2:4): groups 0, 1 real (group 1 partial), groups 2, 3 padding.
  std::vector<float> dense = {0, 0, 3, 4, 0, /**/ 0, 0, 0, 1, 2};
  Compressed c;
  ASSERT_TRUE(compress(dense, 2, 5, 1, kPattern24, c).ok());
  EXPECT_EQ(c.meta, (std::vector<uint16_t>{0x444E, 0x444C}));
  expectBitsEq(c.values, {3, 4, 0, 0, 0, 0, 0, 0, //
                          0, 1, 2, 0, 0, 0, 0, 0});
  // K = 3 (1:2): 2 real pairs (one partial), 2 padding pairs.
  dense = {0, 1, 2};
  ASSERT_TRUE(compress(dense, 1, 3, 1, kPattern12, c).ok());
  EXPECT_EQ(c.meta, (std::vector<uint16_t>{0x444E}));
  expectBitsEq(c.values, {1, 2, 0, 0});
}

TEST(FormatCompress, ReductionDimZero) {
  // A 8 x 2 (K x rows) row-major matrix, pattern along dimension 0.
  // Column 0 (a row of the view): 0 1 0 2 | 3 0 0 0 -> nibbles D 4.
  // Column 1: 4 0 5 0 | 0 0 6 7 -> 8 E.
  std::vector<float> dense = {0, 4, 1, 0, 0, 5, 2, 0, //
                              3, 0, 0, 0, 0, 6, 0, 7};
  Compressed c;
  ASSERT_TRUE(compress(dense, 8, 2, 0, kPattern24, c).ok());
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.k, 8);
  EXPECT_EQ(c.meta, (std::vector<uint16_t>{0x444D, 0x44E8}));
  expectBitsEq(c.values, {1, 2, 3, 0, 0, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0});
  std::vector<float> back;
  ASSERT_TRUE(decompress(c, 0, back).ok());
  expectBitsEq(back, dense);
}

//===----------------------------------------------------------------------===//
// Compress / decompress: random round trips
//===----------------------------------------------------------------------===//

TEST(FormatRoundTrip, RandomBothDims) {
  std::mt19937 rng(42);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int reductionDim : {0, 1})
      for (int64_t k : {1, 3, 5, 17, 30, 64}) {
        const int64_t rows = 7;
        int64_t dim0 = reductionDim == 1 ? rows : k;
        int64_t dim1 = reductionDim == 1 ? k : rows;
        std::vector<float> dense = randomDense(rng, size_t(rows * k));
        std::vector<float> pruned = prune(dense, dim0, dim1, reductionDim, p);
        // Pruning changed something unless there was nothing to prune.
        if (k >= 4) {
          EXPECT_NE(pruned, dense);
        }
        Compressed c;
        Status s = compress(pruned, dim0, dim1, reductionDim, p, c);
        ASSERT_TRUE(s.ok()) << s.message;
        ASSERT_EQ(int64_t(c.values.size()), rows * valuesPerRow(k, p));
        ASSERT_EQ(int64_t(c.meta.size()), rows * metaWordsPerRow(k, p));
        for (uint16_t w : c.meta)
          for (int j = 0; j < 4; ++j)
            EXPECT_TRUE(isLegalNibble((w >> (4 * j)) & 0xF, p));
        std::vector<float> back;
        s = decompress(c, reductionDim, back);
        ASSERT_TRUE(s.ok()) << s.message;
        expectBitsEq(back, pruned);
        // The unpruned dense tensor is (in general) rejected.
        if (k >= 4) {
          Compressed bad;
          EXPECT_EQ(compress(dense, dim0, dim1, reductionDim, p, bad).code,
                    ErrorCode::NotNM);
        }
      }
}

TEST(FormatRoundTrip, StridedViews) {
  std::mt19937 rng(7);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int64_t k : {1, 3, 5, 17, 30, 64}) {
      const int64_t rows = 5;
      // A column-major (transposed) view: element (r, c) at r + c*rows.
      std::vector<float> dense = randomDense(rng, size_t(rows * k));
      View2D<float> in(dense.data(), rows, k, 1, rows);
      ASSERT_TRUE(prune<float>(in, in, p, magnitudeF32));
      // Outputs with padded strides: values column-major with leading dim
      // rows+2, metadata row-major with row stride W+1.
      int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
      std::vector<float> values(size_t((rows + 2) * vpr), -9.0f);
      std::vector<uint16_t> meta(size_t(rows * (w + 1)), 0xABCD);
      View2D<float> vv(values.data(), rows, vpr, 1, rows + 2);
      View2D<uint16_t> mv(meta.data(), rows, w, w + 1, 1);
      Status s = compress<float>(in, vv, mv, p, magnitudeF32);
      ASSERT_TRUE(s.ok()) << s.message;
      // Same result as the contiguous row-major compress.
      std::vector<float> rowMajor(size_t(rows * k));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < k; ++c)
          rowMajor[size_t(r * k + c)] = in.at(r, c);
      Compressed ref;
      ASSERT_TRUE(compress(rowMajor, rows, k, 1, p, ref).ok());
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t v = 0; v < vpr; ++v)
          EXPECT_EQ(bitsOf(vv.at(r, v)),
                    bitsOf(ref.values[size_t(r * vpr + v)]));
        for (int64_t i = 0; i < w; ++i)
          EXPECT_EQ(mv.at(r, i), ref.meta[size_t(r * w + i)]);
        EXPECT_EQ(meta[size_t(r * (w + 1) + w)], 0xABCD); // Gap untouched.
      }
      // Decompress into a strided output (row stride k+1).
      std::vector<float> out(size_t(rows * (k + 1)), -7.0f);
      View2D<float> ov(out.data(), rows, k, k + 1, 1);
      s = decompress<float>(vv, mv, ov, p);
      ASSERT_TRUE(s.ok()) << s.message;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < k; ++c)
          EXPECT_EQ(bitsOf(ov.at(r, c)), bitsOf(in.at(r, c)));
        EXPECT_EQ(out[size_t(r * (k + 1) + k)], -7.0f); // Gap untouched.
      }
    }
}

TEST(FormatRoundTrip, BitExactHalfValues) {
  // f16 values including a NaN with payload, subnormals, inf, -0.0; every
  // group has at most 2 non-zeros.
  std::vector<uint16_t> in = {0x7E01, 0,      0x0001, 0,      //
                              0,      0x8000, 0xFC00, 0x03FF, //
                              0x7BFF, 0,      0,      0x8001, //
                              0,      0,      0,      0};
  for (MagnitudeFn<uint16_t> mag : {magnitudeF16, magnitudeBF16}) {
    std::vector<uint16_t> values(8, 0x1234), meta(1, 0x1234), back(16, 0x1234);
    Status s = compress<uint16_t>(
        View2D<const uint16_t>::rowMajor(in.data(), 1, 16),
        View2D<uint16_t>::rowMajor(values.data(), 1, 8),
        View2D<uint16_t>::rowMajor(meta.data(), 1, 1), kPattern24, mag);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(values, (std::vector<uint16_t>{0x7E01, 0x0001, 0xFC00, 0x03FF,
                                             0x7BFF, 0x8001, 0, 0}));
    EXPECT_EQ(meta[0], 0x4CE8);
    s = decompress<uint16_t>(
        View2D<const uint16_t>::rowMajor(values.data(), 1, 8),
        View2D<const uint16_t>::rowMajor(meta.data(), 1, 1),
        View2D<uint16_t>::rowMajor(back.data(), 1, 16), kPattern24);
    ASSERT_TRUE(s.ok()) << s.message;
    std::vector<uint16_t> expect = in;
    expect[5] = 0; // -0.0 was not stored (it is a zero in a full group).
    EXPECT_EQ(back, expect);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(FormatErrors, CompressRejectsTooManyNonZeros) {
  // 3 x 20; row 2, group 4 (cols 16..18) has 3 non-zeros.
  const int64_t rows = 3, k = 20;
  std::vector<float> dense(size_t(rows * k), 0.0f);
  dense[0] = 1;
  dense[size_t(1 * k + 5)] = 2;
  dense[size_t(2 * k + 16)] = 1;
  dense[size_t(2 * k + 17)] = -1;
  dense[size_t(2 * k + 18)] = 3;
  auto check = [&](const std::vector<float> &d, int64_t row, int64_t group,
                   int64_t count) {
    std::optional<Violation> v =
        checkPattern<float>(View2D<const float>::rowMajor(d.data(), rows, k),
                            kPattern24, magnitudeF32);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->row, row);
    EXPECT_EQ(v->group, group);
    EXPECT_EQ(v->count, count);

    int64_t vpr = valuesPerRow(k, kPattern24),
            w = metaWordsPerRow(k, kPattern24);
    std::vector<float> values(size_t(rows * vpr), 5.0f);
    std::vector<uint16_t> meta(size_t(rows * w), 0x4444);
    Status s =
        compress<float>(View2D<const float>::rowMajor(d.data(), rows, k),
                        View2D<float>::rowMajor(values.data(), rows, vpr),
                        View2D<uint16_t>::rowMajor(meta.data(), rows, w),
                        kPattern24, magnitudeF32);
    EXPECT_EQ(s.code, ErrorCode::NotNM);
    EXPECT_EQ(s.row, row);
    EXPECT_EQ(s.group, group);
    EXPECT_EQ(s.count, count);
    EXPECT_NE(s.message.find("row " + std::to_string(row) + ", group " +
                             std::to_string(group) + " has " +
                             std::to_string(count) + " non-zeros"),
              std::string::npos)
        << s.message;
    // Outputs are zero-filled.
    for (float x : values)
      EXPECT_EQ(bitsOf(x), 0u);
    for (uint16_t x : meta)
      EXPECT_EQ(x, 0);
  };
  check(dense, 2, 4, 3);
  // -0.0 is a zero: it does not make row 0 group 0 a violation.
  std::vector<float> d2 = dense;
  d2[1] = -0.0f;
  d2[2] = 2;
  check(d2, 2, 4, 3);
  // An earlier group with 4 non-zeros is reported first.
  d2[3] = 7;
  d2[1] = 1;
  check(d2, 0, 0, 4);
  // A NaN counts as a non-zero.
  std::vector<float> d3 = dense;
  d3[size_t(1 * k + 4)] = std::numeric_limits<float>::quiet_NaN();
  d3[size_t(1 * k + 6)] = 1;
  check(d3, 1, 1, 3);
}

TEST(FormatErrors, CompressRejects12) {
  std::vector<float> dense = {1, 0, 0, 1, 0, 0, 2, 3};
  Compressed c;
  Status s = compress(dense, 1, 8, 1, kPattern12, c);
  EXPECT_EQ(s.code, ErrorCode::NotNM);
  EXPECT_EQ(s.row, 0);
  EXPECT_EQ(s.group, 3);
  EXPECT_EQ(s.count, 2);
}

TEST(FormatErrors, CompressShapeAndPattern) {
  std::vector<float> dense = {1, 0, 0, 0};
  std::vector<float> values(8, 3.0f);
  std::vector<uint16_t> meta(2, 0x4444);
  View2D<const float> in = View2D<const float>::rowMajor(dense.data(), 1, 4);
  Status s = compress<float>(in, View2D<float>::rowMajor(values.data(), 1, 4),
                             View2D<uint16_t>::rowMajor(meta.data(), 1, 1),
                             kPattern24, magnitudeF32);
  EXPECT_EQ(s.code, ErrorCode::ShapeMismatch);
  EXPECT_NE(s.message.find("values has shape 1x4, expected 1x8"),
            std::string::npos)
      << s.message;
  s = compress<float>(in, View2D<float>::rowMajor(values.data(), 1, 8),
                      View2D<uint16_t>::rowMajor(meta.data(), 2, 1), kPattern24,
                      magnitudeF32);
  EXPECT_EQ(s.code, ErrorCode::ShapeMismatch);
  s = compress<float>(in, View2D<float>::rowMajor(values.data(), 1, 8),
                      View2D<uint16_t>::rowMajor(meta.data(), 1, 1),
                      NMPattern{2, 8}, magnitudeF32);
  EXPECT_EQ(s.code, ErrorCode::UnsupportedPattern);
  Compressed c;
  EXPECT_EQ(compress(dense, 2, 4, 1, kPattern24, c).code,
            ErrorCode::ShapeMismatch);
}

TEST(FormatErrors, DecompressRejectsIllegalNibbles) {
  for (unsigned bad : {0x0u, 0x5u, 0xFu}) {
    // Row 1, group 6 (word 1, nibble 2) is illegal.
    std::vector<uint16_t> meta = {0x9C84, 0x4444, 0xC4ED,
                                  uint16_t(0x4044 | (bad << 8))};
    std::vector<float> values(32, 1.0f);
    std::vector<float> out(64, 8.0f);
    Status s = decompress<float>(
        View2D<const float>::rowMajor(values.data(), 2, 16),
        View2D<const uint16_t>::rowMajor(meta.data(), 2, 2),
        View2D<float>::rowMajor(out.data(), 2, 32), kPattern24);
    EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
    EXPECT_EQ(s.row, 1);
    EXPECT_EQ(s.group, 6);
    EXPECT_EQ(s.nibble, bad);
    for (float x : out)
      EXPECT_EQ(bitsOf(x), 0u);
    std::vector<int32_t> idx(32, 5);
    s = decodeIndices(View2D<const uint16_t>::rowMajor(meta.data(), 2, 2),
                      View2D<int32_t>::rowMajor(idx.data(), 2, 16), kPattern24);
    EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
    EXPECT_EQ(s.row, 1);
    EXPECT_EQ(s.group, 6);
    for (int32_t x : idx)
      EXPECT_EQ(x, 0);
  }
  // 1:2: a legal 2:4 nibble (0x8) is illegal for 1:2.
  for (unsigned bad : {0x0u, 0x8u, 0x5u, 0xFu}) {
    std::vector<uint16_t> meta = {uint16_t(0x4E04 | (bad << 4))};
    std::vector<float> values(4, 1.0f), out(8, 8.0f);
    Status s = decompress<float>(
        View2D<const float>::rowMajor(values.data(), 1, 4),
        View2D<const uint16_t>::rowMajor(meta.data(), 1, 1),
        View2D<float>::rowMajor(out.data(), 1, 8), kPattern12);
    EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
    EXPECT_EQ(s.row, 0);
    EXPECT_EQ(s.group, 1);
  }
}

//===----------------------------------------------------------------------===//
// decodeIndices
//===----------------------------------------------------------------------===//

TEST(FormatDecode, HandChecked) {
  std::vector<uint16_t> meta = {0x9C84, 0xC4ED};
  std::vector<int32_t> idx(16, -1);
  ASSERT_TRUE(decodeIndices(View2D<const uint16_t>::rowMajor(meta.data(), 2, 1),
                            View2D<int32_t>::rowMajor(idx.data(), 2, 8),
                            kPattern24)
                  .ok());
  EXPECT_EQ(idx, (std::vector<int32_t>{0, 1, 4, 6, 8, 11, 13, 14, //
                                       1, 3, 6, 7, 8, 9, 12, 15}));
  meta = {0x444E};
  idx.assign(4, -1);
  ASSERT_TRUE(decodeIndices(View2D<const uint16_t>::rowMajor(meta.data(), 1, 1),
                            View2D<int32_t>::rowMajor(idx.data(), 1, 4),
                            kPattern12)
                  .ok());
  EXPECT_EQ(idx, (std::vector<int32_t>{1, 2, 4, 6}));
  // Shape mismatch.
  EXPECT_EQ(decodeIndices(View2D<const uint16_t>::rowMajor(meta.data(), 1, 1),
                          View2D<int32_t>::rowMajor(idx.data(), 1, 3),
                          kPattern12)
                .code,
            ErrorCode::ShapeMismatch);
}

TEST(FormatDecode, AgreesWithDecompress) {
  std::mt19937 rng(99);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int64_t k : {1, 3, 5, 17, 30, 64}) {
      const int64_t rows = 6;
      std::vector<float> dense =
          prune(randomDense(rng, size_t(rows * k)), rows, k, 1, p);
      Compressed c;
      ASSERT_TRUE(compress(dense, rows, k, 1, p, c).ok());
      int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
      std::vector<int32_t> idx(size_t(rows * vpr), -1);
      ASSERT_TRUE(decodeIndices(
                      View2D<const uint16_t>::rowMajor(c.meta.data(), rows, w),
                      View2D<int32_t>::rowMajor(idx.data(), rows, vpr), p)
                      .ok());
      // Rebuild the dense matrix from (values, indices) and compare.
      int64_t kp = paddedReduction(k, p);
      std::vector<float> rebuilt(size_t(rows * kp), 0.0f);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vpr; ++v) {
          int32_t col = idx[size_t(r * vpr + v)];
          ASSERT_GE(col, 0);
          ASSERT_LT(col, kp);
          // Strictly increasing within a row, inside the value's own group.
          if (v > 0) {
            EXPECT_LT(idx[size_t(r * vpr + v - 1)], col);
          }
          EXPECT_EQ(col / p.m, v / p.n);
          rebuilt[size_t(r * kp + col)] = c.values[size_t(r * vpr + v)];
        }
      std::vector<float> back;
      ASSERT_TRUE(decompress(c, 1, back).ok());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t col = 0; col < kp; ++col) {
          float expect = col < k ? back[size_t(r * k + col)] : 0.0f;
          EXPECT_EQ(bitsOf(rebuilt[size_t(r * kp + col)]), bitsOf(expect));
        }
    }
}

//===----------------------------------------------------------------------===//
// f16 / bf16 conversions
//===----------------------------------------------------------------------===//

TEST(FormatConvert, F16KnownValues) {
  const float inf = std::numeric_limits<float>::infinity();
  struct {
    uint16_t bits;
    float value;
  } known[] = {
      {0x3C00, 1.0f},
      {0xC100, -2.5f},
      {0x7BFF, 65504.0f},
      {0x0001, std::ldexp(1.0f, -24)},
      {0x03FF, 1023 * std::ldexp(1.0f, -24)},
      {0x0400, std::ldexp(1.0f, -14)},
      {0x8001, -std::ldexp(1.0f, -24)},
      {0x7C00, inf},
      {0xFC00, -inf},
      {0x0000, 0.0f},
      {0x3555, 0.333251953125f},
  };
  for (const auto &kv : known) {
    EXPECT_EQ(bitsOf(f16ToFloat(kv.bits)), bitsOf(kv.value)) << kv.bits;
    EXPECT_EQ(floatToF16(kv.value), kv.bits) << kv.value;
  }
  EXPECT_EQ(floatToF16(-0.0f), 0x8000);
  EXPECT_TRUE(std::signbit(f16ToFloat(0x8000)));
  // Rounding to nearest even.
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);     // tie, even
  EXPECT_EQ(floatToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02); // tie, up
  EXPECT_EQ(floatToF16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3C01);
  EXPECT_EQ(floatToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(65520.0f), 0x7C00); // Overflow rounds to inf.
  EXPECT_EQ(floatToF16(1e10f), 0x7C00);
  EXPECT_EQ(floatToF16(-1e10f), 0xFC00);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -25)), 0x0000);        // tie, even
  EXPECT_EQ(floatToF16(1.5f * std::ldexp(1.0f, -25)), 0x0001); // above tie
  EXPECT_EQ(floatToF16(3 * std::ldexp(1.0f, -25)), 0x0002);    // tie, up
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(floatToF16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)),
            0x0400); // Rounds up from subnormal to the smallest normal.
  // NaN stays NaN.
  uint16_t h = floatToF16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7E01)));
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7C01)));
}

TEST(FormatConvert, F16ExhaustiveRoundTrip) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = uint16_t(b);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF))
      continue; // NaN
    ASSERT_EQ(floatToF16(f16ToFloat(h)), h) << std::hex << h;
  }
}

TEST(FormatConvert, BF16KnownValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(floatToBF16(-2.5f), 0xC020);
  EXPECT_EQ(bf16ToFloat(0xC020), -2.5f);
  EXPECT_EQ(floatToBF16(inf), 0x7F80);
  EXPECT_EQ(floatToBF16(-inf), 0xFF80);
  EXPECT_EQ(bf16ToFloat(0x7F80), inf);
  // 65504 = 0x477FE000 rounds up to 65536 (0x4780).
  EXPECT_EQ(floatToBF16(65504.0f), 0x4780);
  EXPECT_EQ(bf16ToFloat(0x4780), 65536.0f);
  EXPECT_EQ(floatToBF16(65280.0f), 0x477F);
  // Subnormal: 0x0001 is 2^-133.
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133));
  EXPECT_EQ(floatToBF16(std::ldexp(1.0f, -133)), 0x0001);
  // Round to nearest even on ties.
  EXPECT_EQ(floatToBF16(floatOf(0x3F808000)), 0x3F80);
  EXPECT_EQ(floatToBF16(floatOf(0x3F818000)), 0x3F82);
  EXPECT_EQ(floatToBF16(floatOf(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBF16(floatOf(0x7F7FFFFF)), 0x7F80); // Max float -> inf.
  // NaN stays NaN (even one whose payload is only in the low bits).
  uint16_t b = floatToBF16(floatOf(0x7F800001));
  EXPECT_EQ(b & 0x7F80, 0x7F80);
  EXPECT_NE(b & 0x7F, 0);
  EXPECT_TRUE(std::isnan(bf16ToFloat(b)));
}

TEST(FormatConvert, BF16ExhaustiveRoundTrip) {
  for (uint32_t v = 0; v < 0x10000; ++v) {
    uint16_t h = uint16_t(v);
    if ((h & 0x7F80) == 0x7F80 && (h & 0x7F))
      continue; // NaN
    ASSERT_EQ(floatToBF16(bf16ToFloat(h)), h) << std::hex << h;
  }
}

TEST(FormatConvert, Magnitudes) {
  EXPECT_EQ(magnitudeF32(-3.0f), 3.0f);
  EXPECT_EQ(magnitudeF16(0xC100), 2.5f);
  EXPECT_EQ(magnitudeBF16(0xC020), 2.5f);
  EXPECT_EQ(magnitudeF16(0x8000), 0.0f);
  EXPECT_EQ(magnitudeBF16(0x8000), 0.0f);
  EXPECT_TRUE(std::isnan(magnitudeF16(0xFE00)));
}

//===----------------------------------------------------------------------===//
// The fast paths (built-in magnitudes, 2:4 and 1:2) agree bit for bit with
// the generic path
//===----------------------------------------------------------------------===//

namespace {
// Equal to the built-in magnitudes but not pointer-equal to them, so the
// library takes its generic path with these: the reference for the fast
// paths.  The counter proves the generic path ran.
int genericMagCalls = 0;
float genericF32(float v) {
  ++genericMagCalls;
  return magnitudeF32(v);
}
float genericF16(uint16_t b) {
  ++genericMagCalls;
  return magnitudeF16(b);
}
float genericBF16(uint16_t b) {
  ++genericMagCalls;
  return magnitudeBF16(b);
}
float genericS8(int8_t v) {
  ++genericMagCalls;
  return magnitudeS8(v);
}

template <typename T>
bool sameBits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
void expectSameBits(const std::vector<T> &a, const std::vector<T> &b,
                    const std::string &what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(sameBits(a[i], b[i])) << what << " at " << i;
}

void expectSameStatus(const Status &a, const Status &b,
                      const std::string &what) {
  EXPECT_EQ(a.code, b.code) << what;
  EXPECT_EQ(a.row, b.row) << what;
  EXPECT_EQ(a.group, b.group) << what;
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.message, b.message) << what;
}

/// Element generators full of ties (small integers), signed zeros, NaNs with
/// assorted payloads and signs, infinities and subnormals; `zeros` is the
/// probability of an exact (+0 or -0) zero.
float trickyF32(std::mt19937 &rng, double zeros) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> small(-3, 3), cat(0, 15);
  std::uniform_int_distribution<uint32_t> payload(1, 0x7FFFFF);
  if (u(rng) < zeros)
    return cat(rng) < 8 ? 0.0f : -0.0f;
  switch (cat(rng)) {
  case 0:
    return floatOf(0x7F800000u | payload(rng) |
                   (cat(rng) < 8 ? 0x80000000u : 0));
  case 1:
    return cat(rng) < 8 ? std::numeric_limits<float>::infinity()
                        : -std::numeric_limits<float>::infinity();
  case 2:
    return floatOf(payload(rng) | (cat(rng) < 8 ? 0x80000000u : 0));
  case 3:
    return cat(rng) < 8 ? std::numeric_limits<float>::max() : -3.0f;
  default:
    return float(small(rng));
  }
}

uint16_t trickyHalf(std::mt19937 &rng, double zeros, bool bf16) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> small(-3, 3), cat(0, 15);
  std::uniform_int_distribution<uint32_t> any(0, 0xFFFF);
  const uint16_t inf = bf16 ? 0x7F80 : 0x7C00;
  const uint16_t mant = bf16 ? 0x7F : 0x3FF;
  uint16_t sign = cat(rng) < 8 ? 0x8000 : 0;
  if (u(rng) < zeros)
    return sign;
  switch (cat(rng)) {
  case 0: // NaN
    return uint16_t(sign | inf | std::max<uint16_t>(1, any(rng) & mant));
  case 1:
    return uint16_t(sign | inf);
  case 2: // subnormal
    return uint16_t(sign | std::max<uint16_t>(1, any(rng) & mant));
  case 3:
    return uint16_t(any(rng));
  default: {
    float v = float(small(rng));
    return bf16 ? floatToBF16(v) : floatToF16(v);
  }
  }
}

/// One element type under test: storage T, its built-in magnitude and the
/// generic stand-in.
template <typename T>
struct Kind {
  const char *name;
  MagnitudeFn<T> builtin;
  MagnitudeFn<T> generic;
  T (*gen)(std::mt19937 &, double);
};

float genF32(std::mt19937 &rng, double zeros) { return trickyF32(rng, zeros); }
uint16_t genF16(std::mt19937 &rng, double zeros) {
  return trickyHalf(rng, zeros, false);
}
uint16_t genBF16(std::mt19937 &rng, double zeros) {
  return trickyHalf(rng, zeros, true);
}
/// i8: ties (small values of both signs), the extremes -128 (magnitude 128,
/// the largest), 127 and -127 (a tie with 127), and any value.
int8_t genS8(std::mt19937 &rng, double zeros) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> small(-3, 3), cat(0, 15), any(-128, 127);
  if (u(rng) < zeros)
    return 0;
  switch (cat(rng)) {
  case 0:
    return -128;
  case 1:
    return 127;
  case 2:
    return -127;
  case 3:
  case 4:
    return int8_t(any(rng));
  default:
    return int8_t(small(rng));
  }
}

/// Runs prune / checkPattern / compress with the built-in magnitude (fast
/// path) and with the generic stand-in on rows x k matrices, contiguous and
/// transposed (strided kernels), in place and out of place, and compares
/// every output bit for bit.
template <typename T>
void compareWithGeneric(const Kind<T> &kind) {
  std::mt19937 rng(2024);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int64_t k : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 20, 33, 64, 70})
      for (int64_t rows : {1, 5})
        for (double zeros : {0.1, 0.6}) {
          std::string what =
              std::string(kind.name) + " " + std::to_string(p.n) + ":" +
              std::to_string(p.m) + " rows=" + std::to_string(rows) +
              " k=" + std::to_string(k) + " zeros=" + std::to_string(zeros);
          SCOPED_TRACE(what);
          std::vector<T> dense(size_t(rows * k));
          for (T &x : dense)
            x = kind.gen(rng, zeros);
          auto in = View2D<const T>::rowMajor(dense.data(), rows, k);
          // The same matrix stored transposed (a K x rows buffer viewed
          // with the pattern along dimension 0).
          std::vector<T> denseT(dense.size());
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < k; ++c)
              denseT[size_t(c * rows + r)] = dense[size_t(r * k + c)];
          View2D<const T> inT(denseT.data(), rows, k, 1, rows);

          // prune.
          std::vector<T> fast(dense.size()), generic(dense.size());
          genericMagCalls = 0;
          ASSERT_TRUE(prune<T>(in, View2D<T>::rowMajor(generic.data(), rows, k),
                               p, kind.generic));
          EXPECT_GT(genericMagCalls, 0);
          genericMagCalls = 0;
          ASSERT_TRUE(prune<T>(in, View2D<T>::rowMajor(fast.data(), rows, k), p,
                               kind.builtin));
          EXPECT_EQ(genericMagCalls, 0);
          expectSameBits(fast, generic, "prune " + what);
          // Transposed in and out (strided kernel).
          std::vector<T> fastT(dense.size());
          ASSERT_TRUE(prune<T>(inT, View2D<T>(fastT.data(), rows, k, 1, rows),
                               p, kind.builtin));
          std::vector<T> genericT(dense.size());
          ASSERT_TRUE(prune<T>(inT,
                               View2D<T>(genericT.data(), rows, k, 1, rows), p,
                               kind.generic));
          expectSameBits(fastT, genericT, "prune transposed " + what);
          // In place.
          std::vector<T> inPlace = dense;
          auto ip = View2D<T>::rowMajor(inPlace.data(), rows, k);
          ASSERT_TRUE(prune<T>(ip, ip, p, kind.builtin));
          expectSameBits(inPlace, generic, "prune in place " + what);

          // checkPattern, on the dense and the pruned matrix.
          for (const std::vector<T> *m : {&dense, &generic}) {
            auto v = View2D<const T>::rowMajor(m->data(), rows, k);
            auto f = checkPattern<T>(v, p, kind.builtin);
            auto g = checkPattern<T>(v, p, kind.generic);
            ASSERT_EQ(f.has_value(), g.has_value());
            if (f) {
              EXPECT_EQ(f->row, g->row);
              EXPECT_EQ(f->group, g->group);
              EXPECT_EQ(f->count, g->count);
            }
          }

          // compress, on the pruned matrix (succeeds) and the dense one
          // (usually a NotNM error), contiguous and strided.
          const int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
          std::vector<T> prunedT(dense.size());
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < k; ++c)
              prunedT[size_t(c * rows + r)] = generic[size_t(r * k + c)];
          struct Input {
            const char *name;
            View2D<const T> view;
          };
          for (Input input :
               {Input{"pruned",
                      View2D<const T>::rowMajor(generic.data(), rows, k)},
                Input{"pruned transposed",
                      View2D<const T>(prunedT.data(), rows, k, 1, rows)},
                Input{"dense", in}, Input{"dense transposed", inT}}) {
            // Values with column stride 2 for the strided inputs.
            int64_t vcs = input.view.colStride == 1 ? 1 : 2;
            std::vector<T> fv(size_t(rows * vpr * vcs), T(1)),
                gv(size_t(rows * vpr * vcs), T(1));
            std::vector<uint16_t> fm(size_t(rows * w), 0xFFFF),
                gm(size_t(rows * w), 0xFFFF);
            Status fs = compress<T>(
                input.view, View2D<T>(fv.data(), rows, vpr, vpr * vcs, vcs),
                View2D<uint16_t>::rowMajor(fm.data(), rows, w), p,
                kind.builtin);
            Status gs = compress<T>(
                input.view, View2D<T>(gv.data(), rows, vpr, vpr * vcs, vcs),
                View2D<uint16_t>::rowMajor(gm.data(), rows, w), p,
                kind.generic);
            std::string where = std::string("compress ") + input.name;
            expectSameStatus(fs, gs, where);
            if (input.name[0] == 'p') { // A pruned input compresses.
              EXPECT_TRUE(fs.ok()) << fs.message;
            }
            expectSameBits(fv, gv, where + " values");
            EXPECT_EQ(fm, gm) << where;
          }
        }
}
} // namespace

TEST(FastPath, F32MatchesGenericPath) {
  compareWithGeneric<float>({"f32", magnitudeF32, genericF32, genF32});
}

TEST(FastPath, F16MatchesGenericPath) {
  compareWithGeneric<uint16_t>({"f16", magnitudeF16, genericF16, genF16});
}

TEST(FastPath, BF16MatchesGenericPath) {
  compareWithGeneric<uint16_t>({"bf16", magnitudeBF16, genericBF16, genBF16});
}

TEST(FastPath, S8MatchesGenericPath) {
  compareWithGeneric<int8_t>({"i8", magnitudeS8, genericS8, genS8});
}

TEST(FastPath, NaNPayloadsTieToTheLowerIndex) {
  // All NaNs have the same magnitude whatever their payload and sign, so
  // the lower indices win.
  std::vector<float> in = {
      floatOf(0x7FC00000), floatOf(0x7FC00001), floatOf(0xFFC00002), 0.0f, 1.0f,
      floatOf(0x7F800001), floatOf(0xFFFFFFFF), floatOf(0x7F800000)};
  std::vector<float> out(8);
  ASSERT_TRUE(prune<float>(View2D<const float>::rowMajor(in.data(), 1, 8),
                           View2D<float>::rowMajor(out.data(), 1, 8),
                           kPattern24, magnitudeF32));
  std::vector<uint32_t> bits(8);
  for (size_t i = 0; i < 8; ++i)
    bits[i] = bitsOf(out[i]);
  EXPECT_EQ(bits, (std::vector<uint32_t>{0x7FC00000, 0x7FC00001, 0, 0, 0,
                                         0x7F800001, 0xFFFFFFFF, 0}));
  std::vector<uint16_t> h = {0x7E00, 0x7C01, 0xFFFF, 0x7C00};
  ASSERT_TRUE(prune<uint16_t>(View2D<const uint16_t>::rowMajor(h.data(), 1, 4),
                              View2D<uint16_t>::rowMajor(h.data(), 1, 4),
                              kPattern24, magnitudeF16));
  EXPECT_EQ(h, (std::vector<uint16_t>{0x7E00, 0x7C01, 0, 0}));
}

TEST(FastPath, CompressReportsTheFirstViolation) {
  // Row 1, group 2 has three non-zeros (one of them NaN); row 0 is fine.
  std::vector<float> m(2 * 16, 0.0f);
  m[0] = 1.0f;
  m[16 + 8] = 2.0f;
  m[16 + 9] = std::numeric_limits<float>::quiet_NaN();
  m[16 + 11] = -1.0f;
  std::vector<float> v(2 * 8, 5.0f);
  std::vector<uint16_t> w(2, 0xFFFF);
  Status s = compress<float>(View2D<const float>::rowMajor(m.data(), 2, 16),
                             View2D<float>::rowMajor(v.data(), 2, 8),
                             View2D<uint16_t>::rowMajor(w.data(), 2, 1),
                             kPattern24, magnitudeF32);
  EXPECT_EQ(s.code, ErrorCode::NotNM);
  EXPECT_EQ(s.row, 1);
  EXPECT_EQ(s.group, 2);
  EXPECT_EQ(s.count, 3);
  for (float x : v)
    EXPECT_EQ(x, 0.0f); // outputs zero-filled on error
  EXPECT_EQ(w, std::vector<uint16_t>(2, 0));
}

//===----------------------------------------------------------------------===//
// i8 storage: the same results as the float path on the values as floats
//===----------------------------------------------------------------------===//

TEST(FormatI8, Magnitude) {
  EXPECT_EQ(magnitudeS8(0), 0.0f);
  EXPECT_EQ(magnitudeS8(1), 1.0f);
  EXPECT_EQ(magnitudeS8(-1), 1.0f);
  EXPECT_EQ(magnitudeS8(127), 127.0f);
  EXPECT_EQ(magnitudeS8(-127), 127.0f);
  EXPECT_EQ(magnitudeS8(-128), 128.0f);
  for (int v = -128; v < 128; ++v)
    EXPECT_EQ(magnitudeS8(int8_t(v)), std::fabs(float(v))) << v;
}

namespace {
/// Prune / check / compress / decompress of a row-major dim0 x dim1 i8
/// matrix (pattern along `dim`) with `mag`, against what the compiler's
/// folder computes: the float convenience functions (magnitudeF32) on the
/// same values converted to float.
void expectI8MatchesFloat(const std::vector<int8_t> &dense, int64_t dim0,
                          int64_t dim1, int dim, NMPattern p,
                          MagnitudeFn<int8_t> mag) {
  std::vector<float> asFloat(dense.begin(), dense.end());
  auto fin = viewOf(asFloat, dim0, dim1, dim);
  ASSERT_TRUE(fin.has_value());
  auto view = [&](auto *data) {
    using T = std::remove_pointer_t<decltype(data)>;
    return View2D<T>(data, fin->rows, fin->cols, fin->rowStride,
                     fin->colStride);
  };
  auto toFloat = [](const std::vector<int8_t> &v) {
    return std::vector<float>(v.begin(), v.end());
  };

  // prune.
  std::vector<float> fPruned = prune(asFloat, dim0, dim1, dim, p);
  std::vector<int8_t> pruned(dense.size(), 99);
  ASSERT_TRUE(prune<int8_t>(view(dense.data()), view(pruned.data()), p, mag));
  expectBitsEq(toFloat(pruned), fPruned);

  // checkPattern on the dense and the pruned matrix.
  const std::vector<int8_t> *matrices[] = {&pruned, &dense};
  for (const std::vector<int8_t> *m : matrices) {
    std::vector<float> mf = toFloat(*m);
    auto fv =
        checkPattern<float>(*viewOf(mf, dim0, dim1, dim), p, magnitudeF32);
    auto iv = checkPattern<int8_t>(view(m->data()), p, mag);
    ASSERT_EQ(fv.has_value(), iv.has_value());
    if (fv) {
      EXPECT_EQ(fv->row, iv->row);
      EXPECT_EQ(fv->group, iv->group);
      EXPECT_EQ(fv->count, iv->count);
    }
  }
  EXPECT_FALSE(checkPattern<int8_t>(view(pruned.data()), p, mag).has_value());

  // compress (the dense matrix usually fails with NotNM), then decompress.
  for (const std::vector<int8_t> *m : matrices) {
    Compressed fc;
    Status fs = compress(toFloat(*m), dim0, dim1, dim, p, fc);
    const int64_t rows = fin->rows, k = fin->cols;
    const int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
    std::vector<int8_t> values(size_t(rows * vpr), 55);
    std::vector<uint16_t> meta(size_t(rows * w), 0xFFFF);
    Status is = compress<int8_t>(
        view(m->data()), View2D<int8_t>::rowMajor(values.data(), rows, vpr),
        View2D<uint16_t>::rowMajor(meta.data(), rows, w), p, mag);
    EXPECT_EQ(fs.code, is.code);
    EXPECT_EQ(fs.row, is.row);
    EXPECT_EQ(fs.group, is.group);
    EXPECT_EQ(fs.count, is.count);
    EXPECT_EQ(fs.message, is.message);
    if (m == &pruned) {
      ASSERT_TRUE(is.ok()) << is.message;
    }
    if (!fs.ok()) {
      // Outputs are zero-filled on error.
      EXPECT_EQ(values, std::vector<int8_t>(values.size(), 0));
      EXPECT_EQ(meta, std::vector<uint16_t>(meta.size(), 0));
      continue;
    }
    expectBitsEq(toFloat(values), fc.values);
    EXPECT_EQ(meta, fc.meta);

    std::vector<float> fDense;
    ASSERT_TRUE(decompress(fc, dim, fDense).ok());
    std::vector<int8_t> back(dense.size(), 77);
    Status ds = decompress<int8_t>(
        View2D<const int8_t>::rowMajor(values.data(), rows, vpr),
        View2D<const uint16_t>::rowMajor(meta.data(), rows, w),
        view(back.data()), p);
    ASSERT_TRUE(ds.ok()) << ds.message;
    expectBitsEq(toFloat(back), fDense);
    EXPECT_EQ(back, *m); // Exact round trip of an N:M matrix.
  }
}
} // namespace

TEST(FormatI8, RandomDataMatchesFloatPath) {
  std::mt19937 rng(8);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int dim : {0, 1})
      for (auto shape : {std::pair<int64_t, int64_t>{1, 4},
                         {3, 5},
                         {4, 16},
                         {7, 17},
                         {16, 33},
                         {5, 64}})
        for (double zeros : {0.1, 0.6})
          for (bool fast : {true, false}) {
            SCOPED_TRACE(std::to_string(p.n) + ":" + std::to_string(p.m) +
                         " dim=" + std::to_string(dim) + " " +
                         std::to_string(shape.first) + "x" +
                         std::to_string(shape.second) +
                         (fast ? " fast" : " generic"));
            std::vector<int8_t> dense(size_t(shape.first * shape.second));
            for (int8_t &x : dense)
              x = genS8(rng, zeros);
            expectI8MatchesFloat(dense, shape.first, shape.second, dim, p,
                                 fast ? magnitudeS8 : genericS8);
          }
}

TEST(FormatI8, TiesAndMinus128) {
  // Group 0: -128 outranks 127; group 1: four equal magnitudes, the two
  // lowest indices win; group 2: two -128 at columns 1 and 3; group 3: one
  // non-zero, kept with the zero at column 0.
  std::vector<int8_t> in = {-128, 127,  -127, 1,    5, -5, 5, -5,
                            1,    -128, 0,    -128, 0, 0,  0, 3};
  for (MagnitudeFn<int8_t> mag : {&magnitudeS8, &genericS8}) {
    std::vector<int8_t> out(16, 9);
    ASSERT_TRUE(prune<int8_t>(View2D<const int8_t>::rowMajor(in.data(), 1, 16),
                              View2D<int8_t>::rowMajor(out.data(), 1, 16),
                              kPattern24, mag));
    EXPECT_EQ(out, (std::vector<int8_t>{-128, 127, 0, 0, 5, -5, 0, 0, 0, -128,
                                        0, -128, 0, 0, 0, 3}));
    std::vector<int8_t> values(8, 1);
    std::vector<uint16_t> meta(1, 0xFFFF);
    Status s = compress<int8_t>(
        View2D<const int8_t>::rowMajor(out.data(), 1, 16),
        View2D<int8_t>::rowMajor(values.data(), 1, 8),
        View2D<uint16_t>::rowMajor(meta.data(), 1, 1), kPattern24, mag);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(values,
              (std::vector<int8_t>{-128, 127, 5, -5, -128, -128, 0, 3}));
    // Nibbles (group 0 in the low bits): 0x4, 0x4, 0xD, 0xC.
    EXPECT_EQ(meta[0], 0xCD44);

    // 1:2: -128 beats 127 whichever comes first; equal magnitudes keep the
    // first.
    std::vector<int8_t> pairs = {127, -128, -128, 127, -7, 7, 0, -1};
    std::vector<int8_t> kept(8, 9);
    ASSERT_TRUE(prune<int8_t>(
        View2D<const int8_t>::rowMajor(pairs.data(), 1, 8),
        View2D<int8_t>::rowMajor(kept.data(), 1, 8), kPattern12, mag));
    EXPECT_EQ(kept, (std::vector<int8_t>{0, -128, -128, 0, -7, 0, 0, -1}));
  }
}

TEST(FormatI8, NotTwoFourIsReported) {
  // Row 1, group 1 holds three non-zeros (one of them -128); row 0 is 2:4.
  std::vector<int8_t> m(2 * 8, 0);
  m[0] = -128;
  m[3] = 127;
  m[8 + 4] = 1;
  m[8 + 5] = -128;
  m[8 + 7] = -1;
  auto in = View2D<const int8_t>::rowMajor(m.data(), 2, 8);
  for (MagnitudeFn<int8_t> mag : {&magnitudeS8, &genericS8}) {
    auto v = checkPattern<int8_t>(in, kPattern24, mag);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->row, 1);
    EXPECT_EQ(v->group, 1);
    EXPECT_EQ(v->count, 3);
    std::vector<int8_t> values(2 * 8, 5);
    std::vector<uint16_t> meta(2, 0xFFFF);
    Status s = compress<int8_t>(
        in, View2D<int8_t>::rowMajor(values.data(), 2, 8),
        View2D<uint16_t>::rowMajor(meta.data(), 2, 1), kPattern24, mag);
    EXPECT_EQ(s.code, ErrorCode::NotNM);
    EXPECT_EQ(s.row, 1);
    EXPECT_EQ(s.group, 1);
    EXPECT_EQ(s.count, 3);
    EXPECT_EQ(s.message, "operand is not 2:4: row 1, group 1 has 3 non-zeros");
    EXPECT_EQ(values, std::vector<int8_t>(16, 0));
    EXPECT_EQ(meta, std::vector<uint16_t>(2, 0));
  }
}

TEST(FormatI8, DecompressIllegalNibble) {
  std::vector<int8_t> values(8, 3), out(16, 9);
  std::vector<uint16_t> meta = {0x4F44};
  Status s = decompress<int8_t>(
      View2D<const int8_t>::rowMajor(values.data(), 1, 8),
      View2D<const uint16_t>::rowMajor(meta.data(), 1, 1),
      View2D<int8_t>::rowMajor(out.data(), 1, 16), kPattern24);
  EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
  EXPECT_EQ(s.group, 2);
  EXPECT_EQ(s.nibble, 0xFu);
  EXPECT_EQ(out, std::vector<int8_t>(16, 0));
}
