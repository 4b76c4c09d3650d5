//===- RuntimeTest.cpp - tests of the STC run-time entry points -*- C++ -*-===//
//
// Unit tests of runtime/StcRuntimeCpu.cpp: the _mlir_ciface_stc_rt_* entry
// points on strided memref descriptors (offsets, transposed views, both
// reduction dims), shape mismatches, the error API, and the i8 entry points
// against the f32 ones on the same values.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcFormat.h"
#include "runtime/format/StcPrune.h"
#include "runtime/stc_runtime.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace stc::format;

using stc::test::bitsOf;

namespace {

template <typename T>
StcMemRef2D memref(std::vector<T> &buf, int64_t offset, int64_t s0, int64_t s1,
                   int64_t st0, int64_t st1) {
  StcMemRef2D d;
  d.allocated = buf.data();
  d.aligned = buf.data();
  d.offset = offset;
  d.sizes[0] = s0;
  d.sizes[1] = s1;
  d.strides[0] = st0;
  d.strides[1] = st1;
  return d;
}

template <typename T>
StcMemRef2D rowMajor(std::vector<T> &buf, int64_t s0, int64_t s1) {
  return memref(buf, 0, s0, s1, s1, 1);
}

template <typename T>
T &at(std::vector<T> &buf, const StcMemRef2D &d, int64_t i, int64_t j) {
  return buf[size_t(d.offset + i * d.strides[0] + j * d.strides[1])];
}

/// A `where` memref over `text` (kept alive by the caller).
StcMemRef1D whereOf(std::string &text) {
  StcMemRef1D w;
  w.allocated = &text[0];
  w.aligned = &text[0];
  w.offset = 0;
  w.sizes[0] = int64_t(text.size());
  w.strides[0] = 1;
  return w;
}

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override { stc_rt_clear_error(); }
  void TearDown() override { stc_rt_clear_error(); }
};

} // namespace

TEST_F(RuntimeTest, CompressTransposedViewMatchesLibrary) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> val(-2.0f, 2.0f);
  for (int reductionDim : {0, 1})
    for (int64_t k : {5, 17, 30}) {
      const int64_t rows = 6;
      // Logical matrix L (rows x K) and its pruned version.
      std::vector<float> logical(size_t(rows * k));
      for (float &x : logical)
        x = val(rng);
      std::vector<float> pruned = prune(logical, rows, k, 1, kPattern24);

      // Store it transposed in a bigger buffer with an offset: for
      // reductionDim 1 the descriptor is rows x K with strides (1, rows+1);
      // for reductionDim 0 it is K x rows with strides (1, k+2).
      const int64_t offset = 3;
      std::vector<float> buf(size_t(offset + (rows + 2) * (k + 2)), 99.0f);
      StcMemRef2D in = reductionDim == 1
                           ? memref(buf, offset, rows, k, 1, rows + 1)
                           : memref(buf, offset, k, rows, 1, k + 2);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < k; ++c) {
          float &e = reductionDim == 1 ? at(buf, in, r, c) : at(buf, in, c, r);
          e = pruned[size_t(r * k + c)];
        }
      EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&in, reductionDim, 2, 4), 1);

      int64_t vpr = valuesPerRow(k, kPattern24);
      int64_t w = metaWordsPerRow(k, kPattern24);
      std::vector<float> values(size_t(rows * vpr), -1.0f);
      std::vector<uint16_t> meta(size_t(rows * w), 0xFFFF);
      StcMemRef2D vd = rowMajor(values, rows, vpr);
      StcMemRef2D md = rowMajor(meta, rows, w);
      std::string loc = "x.mlir:1:2";
      StcMemRef1D where = whereOf(loc);
      _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, reductionDim, 2, 4,
                                       &where);
      ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();

      Compressed ref;
      ASSERT_TRUE(compress(pruned, rows, k, 1, kPattern24, ref).ok());
      EXPECT_EQ(meta, ref.meta);
      for (size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(bitsOf(values[i]), bitsOf(ref.values[i]));

      // Decompress into another strided descriptor of the same layout.
      std::vector<float> outBuf(buf.size(), 42.0f);
      StcMemRef2D out = in;
      out.allocated = out.aligned = outBuf.data();
      _mlir_ciface_stc_rt_decompress_f32(&vd, &md, &out, reductionDim, 2, 4,
                                         &where);
      ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < k; ++c) {
          float got =
              reductionDim == 1 ? at(outBuf, out, r, c) : at(outBuf, out, c, r);
          EXPECT_EQ(bitsOf(got), bitsOf(pruned[size_t(r * k + c)]));
        }
      EXPECT_EQ(outBuf[0], 42.0f); // Before the offset: untouched.

      // decode_indices agrees with the library.
      std::vector<int32_t> idx(size_t(rows * vpr), -1);
      StcMemRef2D id = rowMajor(idx, rows, vpr);
      _mlir_ciface_stc_rt_decode_indices(&md, &id, 2, 4, &where);
      ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t v = 0; v < vpr; ++v) {
          int32_t col = idx[size_t(r * vpr + v)];
          float expect = col < k ? pruned[size_t(r * k + col)] : 0.0f;
          EXPECT_EQ(bitsOf(values[size_t(r * vpr + v)]), bitsOf(expect));
        }
    }
}

TEST_F(RuntimeTest, PruneStridedF32AndHalf) {
  // A 4 x 2 matrix pruned along dim 0 (1:2), stored transposed.
  std::vector<float> buf = {1, -3, 2, 2, 0, 5, -1, 7}; // column-major 4x2
  StcMemRef2D in = memref(buf, 0, 4, 2, 1, 4);
  // Columns of the logical 4x2 matrix: col 0 = 1 -3 2 2, col 1 = 0 5 -1 7.
  std::vector<float> outBuf(8, 9.0f);
  StcMemRef2D out = memref(outBuf, 0, 4, 2, 1, 4);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&in, 0, 1, 2), 0);
  _mlir_ciface_stc_rt_prune_f32(&in, &out, 0, 1, 2, STC_RT_PRUNE_STRIP);
  ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
  EXPECT_EQ(outBuf, (std::vector<float>{0, -3, 2, 0, 0, 5, 0, 7}));
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&out, 0, 1, 2), 1);
  // Along dim 1 (rows: (1,0) (-3,5) (2,-1) (2,7)).
  _mlir_ciface_stc_rt_prune_f32(&in, &out, 1, 1, 2, STC_RT_PRUNE_STRIP);
  EXPECT_EQ(outBuf, (std::vector<float>{1, 0, 2, 0, 0, 5, 0, 7}));

  // f16 in place: 1.0 -2.5 0.5(0x3800) 65504 -> keep -2.5, 65504.
  std::vector<uint16_t> h = {0x3C00, 0xC100, 0x3800, 0x7BFF};
  StcMemRef2D hd = rowMajor(h, 1, 4);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f16(&hd, 1, 2, 4), 0);
  _mlir_ciface_stc_rt_prune_f16(&hd, &hd, 1, 2, 4, STC_RT_PRUNE_STRIP);
  EXPECT_EQ(h, (std::vector<uint16_t>{0, 0xC100, 0, 0x7BFF}));
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f16(&hd, 1, 2, 4), 1);
  // bf16: 1.0 -2.5 0.5 -0.0 as a 4 x 1 column (dim 0).
  std::vector<uint16_t> b = {0x3F80, 0xC020, 0x3F00, 0x8000};
  std::vector<uint16_t> bo(4, 0xFFFF);
  StcMemRef2D bd = rowMajor(b, 4, 1), bod = rowMajor(bo, 4, 1);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_bf16(&bd, 0, 2, 4), 0);
  _mlir_ciface_stc_rt_prune_bf16(&bd, &bod, 0, 2, 4, STC_RT_PRUNE_STRIP);
  EXPECT_EQ(bo, (std::vector<uint16_t>{0x3F80, 0xC020, 0, 0}));
  EXPECT_EQ(stc_rt_has_error(), 0);
}

TEST_F(RuntimeTest, HalfCompressRoundTripBitExact) {
  std::vector<uint16_t> in = {0x7E01, 0,      0x0001, 0,      //
                              0,      0x8000, 0xFC00, 0x03FF, //
                              0x7BFF, 0,      0,      0x8001};
  for (int bf : {0, 1}) {
    StcMemRef2D id = rowMajor(in, 1, 12);
    std::vector<uint16_t> values(8, 0x1111), meta(1, 0x1111), back(12, 0x1111);
    StcMemRef2D vd = rowMajor(values, 1, 8), md = rowMajor(meta, 1, 1),
                bd = rowMajor(back, 1, 12);
    if (bf) {
      _mlir_ciface_stc_rt_compress_bf16(&id, &vd, &md, 1, 2, 4, nullptr);
      _mlir_ciface_stc_rt_decompress_bf16(&vd, &md, &bd, 1, 2, 4, nullptr);
    } else {
      _mlir_ciface_stc_rt_compress_f16(&id, &vd, &md, 1, 2, 4, nullptr);
      _mlir_ciface_stc_rt_decompress_f16(&vd, &md, &bd, 1, 2, 4, nullptr);
    }
    ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
    EXPECT_EQ(meta[0], 0x4CE8);
    EXPECT_EQ(values, (std::vector<uint16_t>{0x7E01, 0x0001, 0xFC00, 0x03FF,
                                             0x7BFF, 0x8001, 0, 0}));
    std::vector<uint16_t> expect = in;
    expect[5] = 0;
    EXPECT_EQ(back, expect);
  }
}

TEST_F(RuntimeTest, CompressErrorMessageAndZeroFill) {
  // Row 1 (of the view), group 1 has 3 non-zeros.
  std::vector<float> dense = {1, 0, 0, 0, 0, 0, 0, 0, //
                              0, 2, 0, 0, 1, 1, 1, 0};
  StcMemRef2D in = rowMajor(dense, 2, 8);
  std::vector<float> values(16, 3.0f);
  std::vector<uint16_t> meta(2, 0x4444);
  StcMemRef2D vd = rowMajor(values, 2, 8), md = rowMajor(meta, 2, 1);
  std::string loc = "model.mlir:12:5";
  StcMemRef1D where = whereOf(loc);
  EXPECT_EQ(stc_rt_has_error(), 0);
  EXPECT_STREQ(stc_rt_error_message(), "");
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, &where);
  ASSERT_EQ(stc_rt_has_error(), 1);
  EXPECT_STREQ(stc_rt_error_message(),
               "model.mlir:12:5: error: stc.compress: operand is not 2:4 along "
               "dimension 1: row 1, group 1 has 3 non-zeros");
  for (float x : values)
    EXPECT_EQ(bitsOf(x), 0u);
  EXPECT_EQ(meta, (std::vector<uint16_t>{0, 0}));

  // A second error does not replace the first.
  std::string loc2 = "other.mlir:1:1";
  StcMemRef1D where2 = whereOf(loc2);
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, &where2);
  EXPECT_STREQ(stc_rt_error_message(),
               "model.mlir:12:5: error: stc.compress: operand is not 2:4 along "
               "dimension 1: row 1, group 1 has 3 non-zeros");

  // Clear works.
  stc_rt_clear_error();
  EXPECT_EQ(stc_rt_has_error(), 0);
  EXPECT_STREQ(stc_rt_error_message(), "");

  // Empty location: no prefix.  1:2 along dimension 0 (the 8 x 2 view of
  // the transposed data: column 1 pair 2 = (1, 1)).
  std::string empty;
  StcMemRef1D noWhere = whereOf(empty);
  StcMemRef2D tin = memref(dense, 0, 8, 2, 1, 8);
  std::vector<float> v2(8, 3.0f);
  std::vector<uint16_t> m2(2, 0x4444);
  StcMemRef2D v2d = rowMajor(v2, 2, 4), m2d = rowMajor(m2, 2, 1);
  _mlir_ciface_stc_rt_compress_f32(&tin, &v2d, &m2d, 0, 1, 2, &noWhere);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.compress: operand is not 1:2 along dimension 0: "
               "row 1, group 2 has 2 non-zeros");
  stc_rt_clear_error();

  // A null where, and a strided, offset where ("a:1:1" at even positions).
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, nullptr);
  EXPECT_EQ(
      std::string(stc_rt_error_message()).rfind("error: stc.compress:", 0), 0u);
  stc_rt_clear_error();
  std::string spaced = "__a_:_1_:_1_";
  StcMemRef1D sw = whereOf(spaced);
  sw.offset = 2;
  sw.sizes[0] = 5;
  sw.strides[0] = 2;
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, &sw);
  EXPECT_EQ(std::string(stc_rt_error_message()).rfind("a:1:1: error: ", 0), 0u)
      << stc_rt_error_message();
}

TEST_F(RuntimeTest, SizeMismatchesAreErrors) {
  std::vector<float> dense(2 * 8, 0.0f);
  dense[0] = 1;
  StcMemRef2D in = rowMajor(dense, 2, 8);
  std::vector<float> values(16, 3.0f);
  std::vector<uint16_t> meta(4, 0x4444);
  std::string loc = "f.mlir:2:3";
  StcMemRef1D where = whereOf(loc);

  // values has 2 x 4 instead of 2 x 8.
  StcMemRef2D vd = rowMajor(values, 2, 4), md = rowMajor(meta, 2, 1);
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, &where);
  ASSERT_EQ(stc_rt_has_error(), 1);
  EXPECT_STREQ(stc_rt_error_message(),
               "f.mlir:2:3: error: stc.compress: values has shape 2x4, "
               "expected 2x8");
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(values[size_t(i)], 0.0f);
  EXPECT_EQ(values[8], 3.0f); // Outside the 2x4 descriptor: untouched.
  stc_rt_clear_error();

  // meta has 3 rows instead of 2.
  vd = rowMajor(values, 2, 8);
  md = rowMajor(meta, 3, 1);
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "f.mlir:2:3: error: stc.compress: metadata has shape 3x1, "
               "expected 2x1");
  stc_rt_clear_error();

  // decompress: out is 2 x 20 (needs 2 x 16 values, 2 x 2 meta words).
  std::vector<float> out(40, 5.0f);
  StcMemRef2D od = rowMajor(out, 2, 20);
  md = rowMajor(meta, 2, 1);
  _mlir_ciface_stc_rt_decompress_f32(&vd, &md, &od, 1, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "f.mlir:2:3: error: stc.decompress: values has shape 2x8, "
               "expected 2x16");
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
  stc_rt_clear_error();

  // prune: output shape differs.
  std::vector<float> po(16, 1.0f);
  StcMemRef2D pd = rowMajor(po, 8, 2);
  _mlir_ciface_stc_rt_prune_f32(&in, &pd, 1, 2, 4, STC_RT_PRUNE_STRIP);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.prune: output has shape 8x2, expected 2x8");
  stc_rt_clear_error();

  // decode_indices: indices has the wrong width.
  std::vector<int32_t> idx(16, 7);
  StcMemRef2D idd = rowMajor(idx, 2, 7);
  _mlir_ciface_stc_rt_decode_indices(&md, &idd, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "f.mlir:2:3: error: stc.decode_indices: indices has shape 2x7, "
               "expected 2x8");
  stc_rt_clear_error();

  // Negative size: invalid descriptor.
  StcMemRef2D neg = rowMajor(dense, -1, 8);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&neg, 1, 2, 4), 0);
  EXPECT_EQ(stc_rt_has_error(), 1);
}

TEST_F(RuntimeTest, IllegalNibbleMessages) {
  // 2:4, K = 16: row 1 word 0x4F44 has the illegal nibble 0xF at group 2.
  std::vector<float> values(16, 1.0f), out(32, 4.0f);
  std::vector<uint16_t> meta = {0x9C84, 0x4F44};
  StcMemRef2D vd = rowMajor(values, 2, 8), md = rowMajor(meta, 2, 1),
              od = rowMajor(out, 2, 16);
  std::string loc = "g.mlir:7:9";
  StcMemRef1D where = whereOf(loc);
  _mlir_ciface_stc_rt_decompress_f32(&vd, &md, &od, 1, 2, 4, &where);
  ASSERT_EQ(stc_rt_has_error(), 1);
  EXPECT_STREQ(stc_rt_error_message(),
               "g.mlir:7:9: error: stc.decompress: illegal 2:4 metadata nibble "
               "0xF at row 1, group 2");
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
  stc_rt_clear_error();

  // decode_indices reports the same nibble.
  std::vector<int32_t> idx(16, 3);
  StcMemRef2D idd = rowMajor(idx, 2, 8);
  _mlir_ciface_stc_rt_decode_indices(&md, &idd, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "g.mlir:7:9: error: stc.decode_indices: illegal 2:4 metadata "
               "nibble 0xF at row 1, group 2");
  for (int32_t x : idx)
    EXPECT_EQ(x, 0);
  stc_rt_clear_error();

  // f16 decompress, 1:2 along dim 0, nibble 0x0 in row 0 group 3.
  std::vector<uint16_t> hv(4, 0x3C00), hout(16, 0x1234);
  std::vector<uint16_t> hm = {0x0E4E};
  StcMemRef2D hvd = rowMajor(hv, 1, 4), hmd = rowMajor(hm, 1, 1),
              hod = rowMajor(hout, 8, 1);
  _mlir_ciface_stc_rt_decompress_f16(&hvd, &hmd, &hod, 0, 1, 2, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "g.mlir:7:9: error: stc.decompress: illegal 1:2 metadata nibble "
               "0x0 at row 0, group 3");
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(hout[size_t(i)], 0);
  stc_rt_clear_error();
}

TEST_F(RuntimeTest, UnsupportedPatternAndBadDim) {
  std::vector<float> dense(16, 0.0f);
  dense[3] = 1;
  StcMemRef2D in = rowMajor(dense, 2, 8);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&in, 1, 2, 8), 0);
  ASSERT_EQ(stc_rt_has_error(), 1);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.check: unsupported sparsity pattern 2:8 "
               "(supported: 2:4, 1:2)");
  stc_rt_clear_error();

  std::vector<float> values(16, 3.0f);
  std::vector<uint16_t> meta(2, 0x4444);
  StcMemRef2D vd = rowMajor(values, 2, 8), md = rowMajor(meta, 2, 1);
  std::string loc = "h.mlir:1:1";
  StcMemRef1D where = whereOf(loc);
  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 1, 4, 8, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "h.mlir:1:1: error: stc.compress: unsupported sparsity pattern "
               "4:8 (supported: 2:4, 1:2)");
  for (float x : values)
    EXPECT_EQ(x, 0.0f);
  EXPECT_EQ(meta, (std::vector<uint16_t>{0, 0}));
  stc_rt_clear_error();

  _mlir_ciface_stc_rt_compress_f32(&in, &vd, &md, 2, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "h.mlir:1:1: error: stc.compress: reduction dimension 2 is not "
               "0 or 1");
  stc_rt_clear_error();

  std::vector<float> out(16, 1.0f);
  StcMemRef2D od = rowMajor(out, 2, 8);
  _mlir_ciface_stc_rt_prune_f32(&in, &od, 1, 1, 4, STC_RT_PRUNE_STRIP);
  EXPECT_EQ(stc_rt_has_error(), 1);
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
}

namespace {
// Equal to the built-in magnitudes but not pointer-equal to them: the
// library's generic path, the reference for the entry points' fast paths.
float genericF32(float v) { return magnitudeF32(v); }
float genericF16(uint16_t b) { return magnitudeF16(b); }
float genericBF16(uint16_t b) { return magnitudeBF16(b); }
float genericS8(int8_t v) { return magnitudeS8(v); }

using PruneFn = void (*)(StcMemRef2D *, StcMemRef2D *, int64_t, int64_t,
                         int64_t, int64_t);
using CompressFn = void (*)(StcMemRef2D *, StcMemRef2D *, StcMemRef2D *,
                            int64_t, int64_t, int64_t, StcMemRef1D *);
using CheckFn = int8_t (*)(StcMemRef2D *, int64_t, int64_t, int64_t);

template <typename T>
struct EntryPoints {
  const char *name;
  PruneFn prune;
  CompressFn compress;
  CheckFn check;
  MagnitudeFn<T> generic;
  /// Ties (small integers), +-0, NaNs with payloads, infinities.
  T (*gen)(std::mt19937 &);
};

float genF32(std::mt19937 &rng) {
  std::uniform_int_distribution<int> cat(0, 9), small(-2, 2);
  std::uniform_int_distribution<uint32_t> payload(1, 0x7FFFFF);
  uint32_t u;
  switch (cat(rng)) {
  case 0:
    u = 0x7F800000u | payload(rng) | (payload(rng) & 1 ? 0x80000000u : 0);
    break;
  case 1:
    u = 0x80000000u; // -0
    break;
  case 2:
    u = 0xFF800000u; // -inf
    break;
  default: {
    float f = float(small(rng));
    std::memcpy(&u, &f, 4);
  }
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t genHalf(std::mt19937 &rng, uint16_t inf, uint16_t mant,
                 uint16_t (*conv)(float)) {
  std::uniform_int_distribution<int> cat(0, 9), small(-2, 2);
  std::uniform_int_distribution<uint32_t> any(0, 0xFFFF);
  switch (cat(rng)) {
  case 0:
    return uint16_t((any(rng) & 0x8000) | inf |
                    std::max<uint32_t>(1, any(rng) & mant));
  case 1:
    return 0x8000;
  case 2:
    return inf;
  default:
    return conv(float(small(rng)));
  }
}
uint16_t genF16(std::mt19937 &rng) {
  return genHalf(rng, 0x7C00, 0x3FF, floatToF16);
}
uint16_t genBF16(std::mt19937 &rng) {
  return genHalf(rng, 0x7F80, 0x7F, floatToBF16);
}
/// Ties (small values of both signs), zeros, -128, 127, -127 and any value.
int8_t genS8(std::mt19937 &rng) {
  std::uniform_int_distribution<int> cat(0, 9), small(-2, 2), any(-128, 127);
  switch (cat(rng)) {
  case 0:
    return -128;
  case 1:
    return 127;
  case 2:
    return -127;
  case 3:
    return int8_t(any(rng));
  default:
    return int8_t(small(rng));
  }
}

template <typename T>
bool sameBits(const T &a, const T &b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The entry points on rows x K operands (stored K x rows for reduction dim
/// 0) against the library's generic path on the logical row-major matrix.
template <typename T>
void entryPointsMatchGeneric(const EntryPoints<T> &ep) {
  std::mt19937 rng(77);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int reductionDim : {0, 1})
      for (int64_t k : {5, 16, 30, 37}) {
        const int64_t rows = 3;
        SCOPED_TRACE(std::string(ep.name) + " " + std::to_string(p.n) + ":" +
                     std::to_string(p.m) + " dim=" +
                     std::to_string(reductionDim) + " k=" + std::to_string(k));
        std::vector<T> logical(size_t(rows * k));
        for (T &x : logical)
          x = ep.gen(rng);
        // Stored operand: rows x K, or K x rows for reduction dim 0.
        std::vector<T> stored(logical.size());
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < k; ++c)
            stored[size_t(reductionDim == 1 ? r * k + c : c * rows + r)] =
                logical[size_t(r * k + c)];
        auto elem = [&](std::vector<T> &buf, int64_t r, int64_t c) -> T & {
          return buf[size_t(reductionDim == 1 ? r * k + c : c * rows + r)];
        };
        StcMemRef2D in = reductionDim == 1 ? rowMajor(stored, rows, k)
                                           : rowMajor(stored, k, rows);

        // Reference: the generic path on the logical matrix.
        auto logicalView = View2D<const T>::rowMajor(logical.data(), rows, k);
        std::vector<T> refPruned(logical.size());
        ASSERT_TRUE(prune<T>(logicalView,
                             View2D<T>::rowMajor(refPruned.data(), rows, k), p,
                             ep.generic));

        std::vector<T> outBuf(stored.size(), T(7));
        StcMemRef2D out = in;
        out.allocated = out.aligned = outBuf.data();
        ep.prune(&in, &out, reductionDim, p.n, p.m, STC_RT_PRUNE_STRIP);
        ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < k; ++c)
            ASSERT_TRUE(
                sameBits(elem(outBuf, r, c), refPruned[size_t(r * k + c)]))
                << "prune (" << r << ", " << c << ")";

        EXPECT_EQ(ep.check(&in, reductionDim, p.n, p.m),
                  checkPattern<T>(logicalView, p, ep.generic) ? 0 : 1);
        EXPECT_EQ(ep.check(&out, reductionDim, p.n, p.m), 1);

        // compress of the pruned operand, then of the raw one (an error
        // unless it happens to be N:M already).
        const int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
        for (bool raw : {false, true}) {
          const std::vector<T> &src = raw ? logical : refPruned;
          std::vector<T> refValues(size_t(rows * vpr));
          std::vector<uint16_t> refMeta(size_t(rows * w));
          Status rs =
              compress<T>(View2D<const T>::rowMajor(src.data(), rows, k),
                          View2D<T>::rowMajor(refValues.data(), rows, vpr),
                          View2D<uint16_t>::rowMajor(refMeta.data(), rows, w),
                          p, ep.generic);
          std::vector<T> values(refValues.size(), T(5));
          std::vector<uint16_t> meta(refMeta.size(), 0xFFFF);
          StcMemRef2D vd = rowMajor(values, rows, vpr);
          StcMemRef2D md = rowMajor(meta, rows, w);
          std::string loc = "c.mlir:2:3";
          StcMemRef1D where = whereOf(loc);
          StcMemRef2D &operand = raw ? in : out;
          ep.compress(&operand, &vd, &md, reductionDim, p.n, p.m, &where);
          EXPECT_EQ(stc_rt_has_error(), rs.ok() ? 0 : 1)
              << stc_rt_error_message();
          if (!rs.ok()) {
            std::string expect =
                "c.mlir:2:3: error: stc.compress: operand "
                "is not " +
                std::to_string(p.n) + ":" + std::to_string(p.m) +
                " along dimension " + std::to_string(reductionDim) + ": row " +
                std::to_string(rs.row) + ", group " + std::to_string(rs.group) +
                " has " + std::to_string(rs.count) + " non-zeros";
            EXPECT_EQ(std::string(stc_rt_error_message()), expect);
          }
          stc_rt_clear_error();
          EXPECT_EQ(meta, refMeta) << (raw ? "raw" : "pruned");
          for (size_t i = 0; i < values.size(); ++i)
            ASSERT_TRUE(sameBits(values[i], refValues[i]))
                << (raw ? "raw" : "pruned") << " value " << i;
        }
      }
}
} // namespace

TEST_F(RuntimeTest, EntryPointsMatchGenericPathF32) {
  entryPointsMatchGeneric<float>(
      {"f32", _mlir_ciface_stc_rt_prune_f32, _mlir_ciface_stc_rt_compress_f32,
       _mlir_ciface_stc_rt_check_f32, genericF32, genF32});
}

TEST_F(RuntimeTest, EntryPointsMatchGenericPathF16) {
  entryPointsMatchGeneric<uint16_t>(
      {"f16", _mlir_ciface_stc_rt_prune_f16, _mlir_ciface_stc_rt_compress_f16,
       _mlir_ciface_stc_rt_check_f16, genericF16, genF16});
}

TEST_F(RuntimeTest, EntryPointsMatchGenericPathBF16) {
  entryPointsMatchGeneric<uint16_t>({"bf16", _mlir_ciface_stc_rt_prune_bf16,
                                     _mlir_ciface_stc_rt_compress_bf16,
                                     _mlir_ciface_stc_rt_check_bf16,
                                     genericBF16, genBF16});
}

TEST_F(RuntimeTest, EntryPointsMatchGenericPathI8) {
  entryPointsMatchGeneric<int8_t>(
      {"i8", _mlir_ciface_stc_rt_prune_i8, _mlir_ciface_stc_rt_compress_i8,
       _mlir_ciface_stc_rt_check_i8, genericS8, genS8});
}

// The i8 entry points give what the f32 ones give on the same values as
// floats (the compiler folds i8 constants through the float path), on
// strided descriptors with an offset, for both reduction dims, both
// patterns and both pruning methods; decompress inverts compress.
TEST_F(RuntimeTest, I8EntryPointsMatchF32) {
  std::mt19937 rng(13);
  for (NMPattern p : {kPattern24, kPattern12})
    for (int64_t method : {STC_RT_PRUNE_STRIP, STC_RT_PRUNE_TILE})
      for (int reductionDim : {0, 1})
        for (int64_t k : {5, 16, 37}) {
          if (method == STC_RT_PRUNE_TILE && p != kPattern24)
            continue;
          const int64_t rows = 6;
          SCOPED_TRACE(std::to_string(p.n) + ":" + std::to_string(p.m) +
                       " method=" + std::to_string(method) +
                       " dim=" + std::to_string(reductionDim) +
                       " k=" + std::to_string(k));
          // Column-major storage with padding and an offset: for reduction
          // dim 1 the descriptor is rows x K, else K x rows.
          const int64_t offset = 3;
          const int64_t s0 = reductionDim == 1 ? rows : k;
          const int64_t s1 = reductionDim == 1 ? k : rows;
          const size_t size = size_t(offset + (s0 + 1) * s1);
          std::vector<int8_t> ib(size, 99), ob(size, 98);
          std::vector<float> fb(size, 99.0f), fob(size, 98.0f);
          StcMemRef2D in = memref(ib, offset, s0, s1, 1, s0 + 1);
          StcMemRef2D out = memref(ob, offset, s0, s1, 1, s0 + 1);
          StcMemRef2D fin = memref(fb, offset, s0, s1, 1, s0 + 1);
          StcMemRef2D fout = memref(fob, offset, s0, s1, 1, s0 + 1);
          for (int64_t i = 0; i < s0; ++i)
            for (int64_t j = 0; j < s1; ++j) {
              int8_t v = genS8(rng);
              at(ib, in, i, j) = v;
              at(fb, fin, i, j) = float(v);
            }
          auto expectSame = [&](std::vector<int8_t> &b, const StcMemRef2D &d,
                                std::vector<float> &f, const StcMemRef2D &fd,
                                const char *what) {
            for (int64_t i = 0; i < d.sizes[0]; ++i)
              for (int64_t j = 0; j < d.sizes[1]; ++j)
                ASSERT_EQ(bitsOf(float(at(b, d, i, j))),
                          bitsOf(at(f, fd, i, j)))
                    << what << " (" << i << ", " << j << ")";
          };

          // check and prune.
          EXPECT_EQ(
              _mlir_ciface_stc_rt_check_i8(&in, reductionDim, p.n, p.m),
              _mlir_ciface_stc_rt_check_f32(&fin, reductionDim, p.n, p.m));
          _mlir_ciface_stc_rt_prune_i8(&in, &out, reductionDim, p.n, p.m,
                                       method);
          _mlir_ciface_stc_rt_prune_f32(&fin, &fout, reductionDim, p.n, p.m,
                                        method);
          ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
          expectSame(ob, out, fob, fout, "prune");
          EXPECT_EQ(ob[0], 98); // Before the offset: untouched.
          EXPECT_EQ(_mlir_ciface_stc_rt_check_i8(&out, reductionDim, p.n, p.m),
                    1);

          // compress of the pruned and of the raw operand (usually not N:M:
          // the same error message and zero-filled outputs).
          const int64_t vpr = valuesPerRow(k, p), w = metaWordsPerRow(k, p);
          for (bool raw : {false, true}) {
            std::vector<int8_t> values(size_t(rows * vpr), 5);
            std::vector<float> fvalues(values.size(), 5.0f);
            std::vector<uint16_t> meta(size_t(rows * w), 0xFFFF),
                fmeta(meta.size(), 0xFFFF);
            StcMemRef2D vd = rowMajor(values, rows, vpr),
                        md = rowMajor(meta, rows, w);
            StcMemRef2D fvd = rowMajor(fvalues, rows, vpr),
                        fmd = rowMajor(fmeta, rows, w);
            std::string loc = "q.mlir:3:5";
            StcMemRef1D where = whereOf(loc);
            _mlir_ciface_stc_rt_compress_f32(raw ? &fin : &fout, &fvd, &fmd,
                                             reductionDim, p.n, p.m, &where);
            std::string fmsg = stc_rt_error_message();
            stc_rt_clear_error();
            _mlir_ciface_stc_rt_compress_i8(raw ? &in : &out, &vd, &md,
                                            reductionDim, p.n, p.m, &where);
            EXPECT_EQ(std::string(stc_rt_error_message()), fmsg);
            if (!raw) {
              EXPECT_EQ(fmsg, "");
            }
            stc_rt_clear_error();
            EXPECT_EQ(meta, fmeta);
            expectSame(values, vd, fvalues, fvd, "values");
            if (!fmsg.empty())
              continue;

            // decompress into a fresh strided descriptor.
            std::vector<int8_t> db(size, 42);
            StcMemRef2D dd = memref(db, offset, s0, s1, 1, s0 + 1);
            _mlir_ciface_stc_rt_decompress_i8(&vd, &md, &dd, reductionDim, p.n,
                                              p.m, &where);
            ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
            for (int64_t i = 0; i < s0; ++i)
              for (int64_t j = 0; j < s1; ++j)
                ASSERT_EQ(at(db, dd, i, j), at(raw ? ib : ob, in, i, j))
                    << "decompress (" << i << ", " << j << ")";
            EXPECT_EQ(db[0], 42);
          }
        }
}

TEST_F(RuntimeTest, I8ErrorsNameTheSourceLocation) {
  // Row 0, group 1 along dimension 1 has three non-zeros (-128 included).
  std::vector<int8_t> in = {1, 0, 0, 0, -128, 127, -1, 0};
  // K = 8 is padded to 16: 8 values and one metadata word per row.
  std::vector<int8_t> values(8, 7);
  std::vector<uint16_t> meta(1, 0xFFFF);
  StcMemRef2D id = rowMajor(in, 1, 8), vd = rowMajor(values, 1, 8),
              md = rowMajor(meta, 1, 1);
  std::string loc = "quant.py:12:4";
  StcMemRef1D where = whereOf(loc);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_i8(&id, 1, 2, 4), 0);
  _mlir_ciface_stc_rt_compress_i8(&id, &vd, &md, 1, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "quant.py:12:4: error: stc.compress: operand is not 2:4 along "
               "dimension 1: row 0, group 1 has 3 non-zeros");
  EXPECT_EQ(values, std::vector<int8_t>(8, 0));
  EXPECT_EQ(meta, std::vector<uint16_t>(1, 0));
  stc_rt_clear_error();

  // An illegal nibble (0xF, group 1) in decompress.
  std::vector<int8_t> out(8, 3);
  std::vector<uint16_t> bad = {0x00F4};
  StcMemRef2D bd = rowMajor(bad, 1, 1), od = rowMajor(out, 1, 8);
  std::vector<int8_t> v8 = {1, 2, 3, 4, 5, 6, 7, 8};
  StcMemRef2D v8d = rowMajor(v8, 1, 8);
  _mlir_ciface_stc_rt_decompress_i8(&v8d, &bd, &od, 1, 2, 4, &where);
  EXPECT_STREQ(stc_rt_error_message(),
               "quant.py:12:4: error: stc.decompress: illegal 2:4 metadata "
               "nibble 0xF at row 0, group 1");
  EXPECT_EQ(out, std::vector<int8_t>(8, 0));
  stc_rt_clear_error();

  // Unknown method and a bad pattern in prune.
  std::vector<int8_t> po(8, 5);
  StcMemRef2D pod = rowMajor(po, 1, 8);
  _mlir_ciface_stc_rt_prune_i8(&id, &pod, 1, 2, 4, 7);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.prune: unknown pruning method 7 (0 strip, 1 tile)");
  EXPECT_EQ(po, std::vector<int8_t>(8, 0));
  stc_rt_clear_error();
  EXPECT_EQ(_mlir_ciface_stc_rt_check_i8(&id, 1, 3, 4), 0);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.check: unsupported sparsity pattern 3:4 "
               "(supported: 2:4, 1:2)");
}

TEST_F(RuntimeTest, PruneTileMethod) {
  // The 4x4 of test/Dialect/Stc/canonicalize.mlir (@prune_tile_dim1), stored
  // transposed (reduction dim 0): the block-diagonal mask keeps 43.
  std::vector<float> w = {8, 6, 4, 1, 7,    -5,    3, 2,
                          1, 2, 9, 3, 0.5f, 0.25f, 1, -4};
  std::vector<float> out(16, 9.0f);
  StcMemRef2D in = rowMajor(w, 4, 4), od = rowMajor(out, 4, 4);
  _mlir_ciface_stc_rt_prune_f32(&in, &od, 0, 2, 4, STC_RT_PRUNE_TILE);
  ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
  EXPECT_EQ(out, (std::vector<float>{8, 6, 0, 0, 7, -5, 0, 0, 0, 0, 9, 3, 0, 0,
                                     1, -4}));
  // Both directions are 2:4.
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&od, 0, 2, 4), 1);
  EXPECT_EQ(_mlir_ciface_stc_rt_check_f32(&od, 1, 2, 4), 1);

  // Strided, ragged, in place and out of place, every element type: the
  // entry points agree with the library on the logical rows x K matrix.
  std::mt19937 rng(11);
  for (int reductionDim : {0, 1})
    for (int64_t rows : {3, 8})
      for (int64_t k : {5, 16}) {
        SCOPED_TRACE("dim=" + std::to_string(reductionDim) + " rows=" +
                     std::to_string(rows) + " k=" + std::to_string(k));
        std::vector<float> logical(size_t(rows * k));
        std::vector<uint16_t> halves(logical.size()), bhalves(logical.size());
        for (size_t i = 0; i < logical.size(); ++i) {
          logical[i] = genF32(rng);
          halves[i] = genF16(rng);
          bhalves[i] = genBF16(rng);
        }
        std::vector<float> refF(logical.size());
        std::vector<uint16_t> refH(logical.size()), refB(logical.size());
        ASSERT_TRUE(pruneTile<float>(
            View2D<const float>::rowMajor(logical.data(), rows, k),
            View2D<float>::rowMajor(refF.data(), rows, k), magnitudeF32));
        ASSERT_TRUE(pruneTile<uint16_t>(
            View2D<const uint16_t>::rowMajor(halves.data(), rows, k),
            View2D<uint16_t>::rowMajor(refH.data(), rows, k), magnitudeF16));
        ASSERT_TRUE(pruneTile<uint16_t>(
            View2D<const uint16_t>::rowMajor(bhalves.data(), rows, k),
            View2D<uint16_t>::rowMajor(refB.data(), rows, k), magnitudeBF16));
        // Stored operand: rows x K, or K x rows for reduction dim 0.
        auto store = [&](auto &logicalBuf) {
          auto stored = logicalBuf;
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < k; ++c)
              stored[size_t(reductionDim == 1 ? r * k + c : c * rows + r)] =
                  logicalBuf[size_t(r * k + c)];
          return stored;
        };
        auto shape = [&](auto &buf) {
          return reductionDim == 1 ? rowMajor(buf, rows, k)
                                   : rowMajor(buf, k, rows);
        };
        std::vector<float> f = store(logical), fo(f.size(), 7.0f);
        StcMemRef2D fd = shape(f), fod = shape(fo);
        _mlir_ciface_stc_rt_prune_f32(&fd, &fod, reductionDim, 2, 4,
                                      STC_RT_PRUNE_TILE);
        std::vector<uint16_t> h = store(halves), b = store(bhalves);
        StcMemRef2D hd = shape(h), bd = shape(b);
        _mlir_ciface_stc_rt_prune_f16(&hd, &hd, reductionDim, 2, 4,
                                      STC_RT_PRUNE_TILE);
        _mlir_ciface_stc_rt_prune_bf16(&bd, &bd, reductionDim, 2, 4,
                                       STC_RT_PRUNE_TILE);
        ASSERT_EQ(stc_rt_has_error(), 0) << stc_rt_error_message();
        for (size_t i = 0; i < fo.size(); ++i)
          EXPECT_EQ(bitsOf(fo[i]), bitsOf(store(refF)[i])) << i;
        EXPECT_EQ(h, store(refH));
        EXPECT_EQ(b, store(refB));
      }
}

TEST_F(RuntimeTest, PruneMethodErrors) {
  std::vector<float> in(32, 1.0f), out(32, 5.0f);
  StcMemRef2D id = rowMajor(in, 2, 16), od = rowMajor(out, 2, 16);
  _mlir_ciface_stc_rt_prune_f32(&id, &od, 1, 2, 4, 7);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.prune: unknown pruning method 7 (0 strip, 1 tile)");
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
  stc_rt_clear_error();

  std::fill(out.begin(), out.end(), 5.0f);
  _mlir_ciface_stc_rt_prune_f32(&id, &od, 1, 1, 2, STC_RT_PRUNE_TILE);
  EXPECT_STREQ(stc_rt_error_message(),
               "error: stc.prune: method tile requires the 2:4 pattern, got "
               "1:2");
  for (float x : out)
    EXPECT_EQ(x, 0.0f);
}
