//===- GpuLayoutTest.cpp - kernel-ready mma.sp layouts, end to end --------===//
//
// Tests of runtime/format/StcGpuLayout through the product path: a random
// M x K operand is pruned and compressed with StcFormat (canonical), turned
// into the kernel-ready metadata and padded values with StcGpuLayout, and
// then every 16-row x 8-column tile is computed the way the planned kernel
// will: A and B registers by ldmatrix (modelled here from the PTX ISA
// ldmatrix section) from the padded values and from B^T, each lane's `e` by
// ONE load of word mmaSpMetaWordIndexForMma(...), the selector from
// mmaSpSelector, the mma by the CPU model (MmaSpModel), accumulating over the
// K loop, and D stored by the accumulator fragment table.  The M x N result
// is compared with a float64 product of the pruned A and B.  Deliberately
// broken layouts must fail the same comparison.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/format/StcGpuLayout.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace stc::format;
using namespace stc::emu;

namespace {

int64_t roundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

/// ldmatrix.sync.aligned.m8n8.x{num}.b16 (not transposed) from the shared
/// memory image `smem`, lane L supplying byte address addr[L] (PTX ISA
/// 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix"): threads
/// 8j..8j+7 give the row addresses of matrix j; every row is 16 bytes and
/// must be 16-byte aligned; register j of lane L receives matrix j's row
/// L / 4, b16 elements 2 * (L % 4) and 2 * (L % 4) + 1 (Figure 104: "a
/// group of four threads loads an entire row").
std::vector<uint32_t> ldmatrix(const std::vector<uint8_t> &smem,
                               const std::array<int64_t, 32> &addr, int num) {
  std::vector<uint32_t> regs(size_t(32 * num), 0);
  for (int j = 0; j < num; ++j)
    for (int r = 0; r < 8; ++r) {
      int64_t a = addr[size_t(8 * j + r)];
      if (a % 16 != 0 || a < 0 || a + 16 > int64_t(smem.size())) {
        ADD_FAILURE() << "ldmatrix row address " << a << " misaligned or out "
                      << "of the " << smem.size() << "-byte buffer";
        return regs;
      }
    }
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < num; ++j) {
      int64_t a = addr[size_t(8 * j + lane / 4)] + 4 * (lane % 4);
      uint32_t v;
      std::memcpy(&v, &smem[size_t(a)], 4);
      regs[size_t(lane * num + j)] = v;
    }
  return regs;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// One end-to-end case.
struct Case {
  MmaSpShape shape;
  MmaElem elem; // A and B
  MmaElem acc;  // C and D
  int64_t m, n, k;
};

std::string caseName(const Case &c) {
  return mmaSpInstrName({c.shape, c.elem, c.elem, c.acc}) +
         " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
         " K=" + std::to_string(c.k);
}

/// A random non-zero value of the element type and its storage bits.
struct Value {
  double value;
  uint32_t bits;
};
Value randomValue(std::mt19937 &rng, MmaElem t) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (;;) {
    float f = real(rng);
    switch (t) {
    case MmaElem::F16: {
      uint16_t b = floatToF16(f);
      if (f16ToFloat(b) != 0.0f)
        return {f16ToFloat(b), b};
      break;
    }
    case MmaElem::BF16: {
      uint16_t b = floatToBF16(f);
      if (bf16ToFloat(b) != 0.0f)
        return {bf16ToFloat(b), b};
      break;
    }
    case MmaElem::TF32: {
      // Full f32 values: the kernel passes f32 bits, the mma reads tf32.
      if (f != 0.0f) {
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return {f, b};
      }
      break;
    }
    default: {
      int v = std::uniform_int_distribution<int>(-127, 127)(rng);
      if (v != 0)
        return {double(v), uint32_t(uint8_t(int8_t(v)))};
      break;
    }
    }
  }
}

int elemBytes(MmaSpShape s) { return getMmaSpShapeInfo(s).elementBits / 8; }

/// The sparse operand, canonical and kernel-ready.
struct SparseA {
  std::vector<double> dense;   // M x K after pruning (the reference)
  std::vector<uint16_t> meta;  // canonical, M x metaWordsPerRow
  std::vector<uint8_t> values; // padded values image (mmaSpPaddedRows x ..)
  int64_t pitchBytes = 0;
};

template <typename T>
void appendBytes(std::vector<uint8_t> &out, const std::vector<T> &v) {
  out.resize(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
}

/// Prunes and compresses a random M x K A with StcFormat and pads its values
/// with padMmaSpValues.
SparseA makeSparseA(const Case &c, std::mt19937 &rng) {
  const MmaSpShapeInfo info = getMmaSpShapeInfo(c.shape);
  const NMPattern p = info.pattern;
  const int64_t vpr = valuesPerRow(c.k, p), mpr = metaWordsPerRow(c.k, p);
  SparseA a;
  a.meta.assign(size_t(c.m * mpr), 0);
  a.dense.assign(size_t(c.m * c.k), 0.0);
  auto metaView = View2D<uint16_t>::rowMajor(a.meta.data(), c.m, mpr);
  a.pitchBytes = mmaSpPaddedK(c.shape, c.k) / 2 * elemBytes(c.shape);

  if (c.elem == MmaElem::F16 || c.elem == MmaElem::BF16) {
    MagnitudeFn<uint16_t> mag =
        c.elem == MmaElem::F16 ? magnitudeF16 : magnitudeBF16;
    std::vector<uint16_t> dense(size_t(c.m * c.k));
    for (uint16_t &x : dense)
      x = uint16_t(randomValue(rng, c.elem).bits);
    auto view = View2D<uint16_t>::rowMajor(dense.data(), c.m, c.k);
    EXPECT_TRUE(prune<uint16_t>(view, view, p, mag));
    std::vector<uint16_t> values(size_t(c.m * vpr));
    Status s = compress<uint16_t>(
        view, View2D<uint16_t>::rowMajor(values.data(), c.m, vpr), metaView, p,
        mag);
    EXPECT_TRUE(s.ok()) << s.message;
    for (size_t i = 0; i < dense.size(); ++i)
      a.dense[i] =
          c.elem == MmaElem::F16 ? f16ToFloat(dense[i]) : bf16ToFloat(dense[i]);
    appendBytes(a.values,
                padMmaSpValues<uint16_t>(
                    c.shape,
                    View2D<const uint16_t>::rowMajor(values.data(), c.m, vpr),
                    c.k));
    return a;
  }

  // tf32 and int8 go through the f32 path of the format library (int8
  // values are small integers, exact in float).
  std::vector<float> dense(size_t(c.m * c.k));
  for (float &x : dense)
    x = float(randomValue(rng, c.elem).value);
  auto view = View2D<float>::rowMajor(dense.data(), c.m, c.k);
  EXPECT_TRUE(prune<float>(view, view, p, magnitudeF32));
  std::vector<float> values(size_t(c.m * vpr));
  Status s =
      compress<float>(view, View2D<float>::rowMajor(values.data(), c.m, vpr),
                      metaView, p, magnitudeF32);
  EXPECT_TRUE(s.ok()) << s.message;
  for (size_t i = 0; i < dense.size(); ++i)
    a.dense[i] = dense[i];
  if (c.elem == MmaElem::TF32) {
    appendBytes(a.values, padMmaSpValues<float>(c.shape,
                                                View2D<const float>::rowMajor(
                                                    values.data(), c.m, vpr),
                                                c.k));
  } else {
    std::vector<int8_t> v8(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      v8[i] = int8_t(values[i]);
    appendBytes(
        a.values,
        padMmaSpValues<int8_t>(
            c.shape, View2D<const int8_t>::rowMajor(v8.data(), c.m, vpr), c.k));
  }
  return a;
}

/// Dense K x N B: the reference and B^T (N x K, rows padded to 8 and K to
/// the instruction K) as the byte image ldmatrix reads.
struct DenseB {
  std::vector<double> dense; // K x N
  std::vector<uint8_t> transposed;
  int64_t pitchBytes = 0;
};

DenseB makeDenseB(const Case &c, std::mt19937 &rng) {
  const int eb = elemBytes(c.shape);
  const int64_t kp = mmaSpPaddedK(c.shape, c.k), np = roundUp(c.n, 8);
  DenseB b;
  b.dense.assign(size_t(c.k * c.n), 0.0);
  b.transposed.assign(size_t(np * kp * eb), 0);
  b.pitchBytes = kp * eb;
  for (int64_t kk = 0; kk < c.k; ++kk)
    for (int64_t n = 0; n < c.n; ++n) {
      Value v = randomValue(rng, c.elem);
      b.dense[size_t(kk * c.n + n)] = v.value;
      std::memcpy(&b.transposed[size_t(n * b.pitchBytes + kk * eb)], &v.bits,
                  size_t(eb));
    }
  return b;
}

//===----------------------------------------------------------------------===//
// The planned kernel, on the model
//===----------------------------------------------------------------------===//

/// Ways to break the layout on purpose.
enum class Break {
  None,
  /// Use selector F ^ 1 (exchanges the roles of the two row tiles).
  SwapSelector,
  /// Exchange the 16-bit halves of every loaded e word.
  SwapMetaHalves,
  /// Exchange the row addresses of rows g and g+8 in the A ldmatrix.
  SwapARowHalves,
};

struct Outcome {
  bool ok = true;
  std::string error;
  double relErr = 0.0;
  int64_t mismatches = 0;
};

Outcome runKernel(const Case &c, const SparseA &a, const DenseB &b,
                  const std::vector<uint32_t> &metaWords, Break brk) {
  const MmaSpShapeInfo info = getMmaSpShapeInfo(c.shape);
  const MmaSpInstr instr{c.shape, c.elem, c.elem, c.acc};
  const MmaSpMetaLayout layout = getMmaSpMetaLayout(c.shape, c.m, c.k);
  const int eb = elemBytes(c.shape);
  const int64_t rowTiles = (c.m + 15) / 16, nTiles = (c.n + 7) / 8;
  const int64_t kSteps = mmaSpPaddedK(c.shape, c.k) / info.k;
  const bool f16Acc = c.acc == MmaElem::F16;
  const int cRegs = mmaSpCRegs(instr);

  std::vector<double> out(size_t(c.m * c.n), 0.0);
  Outcome res;
  for (int64_t rt = 0; rt < rowTiles; ++rt)
    for (int64_t nt = 0; nt < nTiles; ++nt) {
      MmaSpFragments fr;
      fr.c.assign(size_t(32 * cRegs), 0); // +0.0 / 0
      for (int64_t ks = 0; ks < kSteps; ++ks) {
        std::array<int64_t, 32> aAddr, bAddr;
        for (int lane = 0; lane < 32; ++lane) {
          int row = mmaSpLdmatrixRow(lane);
          if (brk == Break::SwapARowHalves)
            row ^= 8;
          aAddr[size_t(lane)] =
              (rt * 16 + row) * a.pitchBytes +
              (ks * info.k / 2 + mmaSpLdmatrixCol(c.shape, lane)) * eb;
          // B^T: matrix j = rows n 0..7, bytes 16j..16j+15 of the K step.
          bAddr[size_t(lane)] = (nt * 8 + lane % 8) * b.pitchBytes +
                                ks * info.k * eb + 16 * (lane / 8);
        }
        fr.a = ldmatrix(a.values, aAddr, info.aRegs);
        fr.b = ldmatrix(b.transposed, bAddr, info.bRegs);
        for (int lane = 0; lane < 32; ++lane) {
          uint32_t e = metaWords[size_t(mmaSpMetaWordIndexForMma(
              c.shape, rt, ks, lane, layout.vectorsPerRowBlock))];
          if (brk == Break::SwapMetaHalves)
            e = (e << 16) | (e >> 16);
          fr.e[size_t(lane)] = e;
        }
        int f = mmaSpSelector(c.shape, rt, ks);
        if (brk == Break::SwapSelector)
          f ^= 1;
        MmaSpResult r = runMmaSp(instr, fr, f);
        if (!r.ok) {
          res.ok = false;
          res.error = r.error;
          return res;
        }
        fr.c = r.d;
      }
      // Epilogue: the accumulator table (row = groupID (+8 for c2, c3),
      // col = threadID_in_group * 2 + (i & 1)).
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
          int64_t m = rt * 16 + lane / 4 + (i >= 2 ? 8 : 0);
          int64_t n = nt * 8 + (lane % 4) * 2 + (i & 1);
          if (m >= c.m || n >= c.n)
            continue;
          uint32_t reg = fr.c[size_t(lane * cRegs + (f16Acc ? i / 2 : i))];
          double v;
          if (c.acc == MmaElem::S32) {
            v = double(int32_t(reg));
          } else if (f16Acc) {
            v = f16ToFloat(uint16_t(reg >> (16 * (i % 2))));
          } else {
            float f;
            std::memcpy(&f, &reg, 4);
            v = f;
          }
          out[size_t(m * c.n + n)] = v;
        }
    }

  double num = 0.0, den = 0.0;
  for (int64_t m = 0; m < c.m; ++m)
    for (int64_t n = 0; n < c.n; ++n) {
      double ref = 0.0;
      for (int64_t kk = 0; kk < c.k; ++kk)
        ref += a.dense[size_t(m * c.k + kk)] * b.dense[size_t(kk * c.n + n)];
      double got = out[size_t(m * c.n + n)];
      num += (got - ref) * (got - ref);
      den += ref * ref;
      if (got != ref)
        ++res.mismatches;
    }
  res.relErr = std::sqrt(num / den);
  if (std::isnan(res.relErr))
    res.relErr = INFINITY;
  return res;
}

/// The tolerance of a case: docs/DESIGN.md §7, and exact for int8.  With
/// f32 accumulators the f16/bf16 inputs are exact, so only the float sums
/// differ from the reference; tf32 inputs are truncated to 10 mantissa bits.
double tolerance(const Case &c) {
  switch (c.acc) {
  case MmaElem::F16:
    return 1e-2;
  case MmaElem::S32:
    return 0.0;
  default:
    return c.elem == MmaElem::TF32 ? 2e-3 : 1e-5;
  }
}

Outcome runCase(const Case &c, Break brk = Break::None, unsigned seed = 1) {
  std::mt19937 rng(seed + unsigned(c.m * 131 + c.n * 17 + c.k));
  SparseA a = makeSparseA(c, rng);
  DenseB b = makeDenseB(c, rng);
  std::vector<uint32_t> words;
  Status s =
      toMmaSpMeta(c.shape,
                  View2D<const uint16_t>::rowMajor(
                      a.meta.data(), c.m,
                      metaWordsPerRow(c.k, getMmaSpShapeInfo(c.shape).pattern)),
                  c.k, words);
  EXPECT_TRUE(s.ok()) << s.message;
  return runKernel(c, a, b, words, brk);
}

/// Problem sizes: exact tiles, ragged M, N and K (padding), several row
/// blocks and K vectors.
const std::vector<std::array<int64_t, 3>> kSizes = {
    {16, 8, 64}, {32, 16, 128}, {37, 19, 100}, {5, 3, 7}, {80, 24, 300}};

void checkEndToEnd(MmaSpShape shape, MmaElem elem, MmaElem acc) {
  for (const auto &mnk : kSizes) {
    Case c{shape, elem, acc, mnk[0], mnk[1], mnk[2]};
    SCOPED_TRACE(caseName(c));
    Outcome o = runCase(c);
    ASSERT_TRUE(o.ok) << o.error;
    if (acc == MmaElem::S32)
      EXPECT_EQ(o.mismatches, 0);
    else
      EXPECT_LT(o.relErr, tolerance(c));
  }
}

/// Random canonical metadata with legal nibbles.
std::vector<uint16_t> randomCanonicalMeta(std::mt19937 &rng, int64_t rows,
                                          int64_t cols, NMPattern p) {
  static const unsigned legal24[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  static const unsigned legal12[] = {0x4, 0xE};
  std::vector<uint16_t> meta(size_t(rows * cols));
  std::uniform_int_distribution<int> pick(0, p == kPattern12 ? 1 : 5);
  for (uint16_t &w : meta) {
    w = 0;
    for (int j = 0; j < 4; ++j)
      w |= uint16_t((p == kPattern12 ? legal12 : legal24)[pick(rng)] << 4 * j);
  }
  return meta;
}

} // namespace

//===----------------------------------------------------------------------===//
// Shape facts and the index formula
//===----------------------------------------------------------------------===//

// The table of shapes agrees with the ISA's counts: A holds k/2 stored
// elements per row of 16, B k x 8, one metadata block is 32 words per lane
// group x wordsPerLane, i.e. 32 rows x blockK / chunk nibbles.
TEST(GpuLayout, ShapeInfoIsConsistent) {
  for (MmaSpShape s : kAllMmaSpShapes) {
    SCOPED_TRACE(mmaSpShapeName(s));
    MmaSpShapeInfo info = getMmaSpShapeInfo(s);
    EXPECT_EQ(info.aRegs * 32 * 32, 16 * info.k / 2 * info.elementBits);
    EXPECT_EQ(info.bRegs * 32 * 32, info.k * 8 * info.elementBits);
    EXPECT_EQ(info.kStepsPerBlock * info.k, info.blockK);
    int chunk = info.pattern == kPattern12 ? 2 : 4;
    EXPECT_EQ(kMetaBlockRows * (info.blockK / chunk) * 4,
              32 * info.wordsPerLane * 32);
    // One 16 x k tile needs 16 * k / chunk nibbles; the selected lanes hold
    // exactly that many.
    EXPECT_EQ(16 * info.k / chunk * 4, 32 / info.numSelectors * 32);
  }
}

// The documented formula, on a few values.
TEST(GpuLayout, MetaWordIndexFormula) {
  // Lane vectors are 4 words (16 bytes), lanes side by side.
  EXPECT_EQ(mmaSpMetaWordIndex(0, 0, 0, 3), 0);
  EXPECT_EQ(mmaSpMetaWordIndex(0, 1, 0, 3), 1);
  EXPECT_EQ(mmaSpMetaWordIndex(0, 3, 0, 3), 3);
  EXPECT_EQ(mmaSpMetaWordIndex(0, 0, 1, 3), 4);
  EXPECT_EQ(mmaSpMetaWordIndex(0, 4, 0, 3), 128);
  EXPECT_EQ(mmaSpMetaWordIndex(1, 0, 0, 3), 3 * 128);
  EXPECT_EQ(mmaSpMetaWordIndex(2, 5, 7, 3), (2 * 3 + 1) * 128 + 7 * 4 + 1);
  // m16n8k32.b16: F = row tile parity, one word per 32 K.
  EXPECT_EQ(mmaSpSelector(MmaSpShape::M16N8K32B16, 3, 5), 1);
  EXPECT_EQ(mmaSpMetaLaneWord(MmaSpShape::M16N8K32B16, 3, 5), 5);
  // m16n8k16.b16: F = row tile parity + 2 * (K step parity).
  EXPECT_EQ(mmaSpSelector(MmaSpShape::M16N8K16B16, 2, 3), 2);
  EXPECT_EQ(mmaSpMetaLaneWord(MmaSpShape::M16N8K16B16, 2, 3), 1);
  // m16n8k64.i8: F = 0, two words per 64 K.
  EXPECT_EQ(mmaSpSelector(MmaSpShape::M16N8K64I8, 1, 3), 0);
  EXPECT_EQ(mmaSpMetaLaneWord(MmaSpShape::M16N8K64I8, 1, 3), 7);
  // The ldmatrix addresses: rows 0-7 then 8-15, second 16 bytes for lanes
  // 16-31.
  EXPECT_EQ(mmaSpLdmatrixRow(9), 9);
  EXPECT_EQ(mmaSpLdmatrixRow(17), 1);
  EXPECT_EQ(mmaSpLdmatrixCol(MmaSpShape::M16N8K32B16, 17), 8);
  EXPECT_EQ(mmaSpLdmatrixCol(MmaSpShape::M16N8K16TF32, 31), 4);
  EXPECT_EQ(mmaSpLdmatrixCol(MmaSpShape::M16N8K64I8, 16), 16);
}

// Every word of the kernel-ready array that carries data is the e of exactly
// one (mma, selected lane), and the words of the padding vectors of none.
TEST(GpuLayout, EveryMetaWordFeedsExactlyOneMma) {
  for (MmaSpShape s : kAllMmaSpShapes) {
    SCOPED_TRACE(mmaSpShapeName(s));
    MmaSpShapeInfo info = getMmaSpShapeInfo(s);
    for (int64_t rows : {16, 40, 96})
      for (int64_t k : {8, 64, 200}) {
        MmaSpMetaLayout l = getMmaSpMetaLayout(s, rows, k);
        std::vector<int> uses(size_t(l.numWords()), 0);
        int64_t kSteps = l.kBlocks * info.kStepsPerBlock;
        for (int64_t rt = 0; rt < 2 * l.rowBlocks; ++rt)
          for (int64_t ks = 0; ks < kSteps; ++ks) {
            int f = mmaSpSelector(s, rt, ks);
            ASSERT_LT(f, info.numSelectors);
            for (int lane = 0; lane < 32; ++lane) {
              int q = lane % 4;
              bool selected = info.numSelectors == 4   ? q == f
                              : info.numSelectors == 2 ? q / 2 == f
                                                       : true;
              int64_t idx = mmaSpMetaWordIndexForMma(s, rt, ks, lane,
                                                     l.vectorsPerRowBlock);
              ASSERT_GE(idx, 0);
              ASSERT_LT(idx, l.numWords());
              if (selected)
                ++uses[size_t(idx)];
            }
          }
        int64_t used = 0;
        for (int u : uses) {
          EXPECT_LE(u, 1);
          used += u;
        }
        EXPECT_EQ(used, l.rowBlocks * l.kBlocks * info.wordsPerLane * 32);
      }
  }
}

//===----------------------------------------------------------------------===//
// Canonical <-> kernel-ready
//===----------------------------------------------------------------------===//

TEST(GpuLayout, MetaRoundTrip) {
  std::mt19937 rng(42);
  for (MmaSpShape s : kAllMmaSpShapes) {
    SCOPED_TRACE(mmaSpShapeName(s));
    NMPattern p = getMmaSpShapeInfo(s).pattern;
    for (int64_t rows : {1, 16, 31, 33, 64, 70})
      for (int64_t k : {1, 8, 16, 40, 64, 100, 130, 256}) {
        int64_t cols = metaWordsPerRow(k, p);
        std::vector<uint16_t> meta = randomCanonicalMeta(rng, rows, cols, p);
        std::vector<uint32_t> words;
        Status st = toMmaSpMeta(
            s, View2D<const uint16_t>::rowMajor(meta.data(), rows, cols), k,
            words);
        ASSERT_TRUE(st.ok()) << st.message;
        ASSERT_EQ(int64_t(words.size()),
                  getMmaSpMetaLayout(s, rows, k).numWords());
        std::vector<uint16_t> back(meta.size(), 0xFFFF);
        st = fromMmaSpMeta(s, words, k,
                           View2D<uint16_t>::rowMajor(back.data(), rows, cols));
        ASSERT_TRUE(st.ok()) << st.message;
        EXPECT_EQ(back, meta) << "rows " << rows << " k " << k;
      }
  }
}

// Rows and K blocks beyond the operand are padded with the legal nibble 0x4,
// so that a kernel running whole tiles never feeds an illegal nibble.
TEST(GpuLayout, MetaPaddingIsLegal) {
  for (MmaSpShape s : kAllMmaSpShapes) {
    SCOPED_TRACE(mmaSpShapeName(s));
    NMPattern p = getMmaSpShapeInfo(s).pattern;
    int64_t rows = 3, k = 5;
    // All-0xE metadata, so that padding (0x4) is recognisable.
    std::vector<uint16_t> meta(size_t(rows * metaWordsPerRow(k, p)), 0xEEEE);
    std::vector<uint32_t> words;
    ASSERT_TRUE(toMmaSpMeta(s,
                            View2D<const uint16_t>::rowMajor(
                                meta.data(), rows, metaWordsPerRow(k, p)),
                            k, words)
                    .ok());
    int64_t data = 0, pad = 0;
    for (uint32_t w : words)
      for (int j = 0; j < 8; ++j) {
        unsigned n = (w >> (4 * j)) & 0xF;
        EXPECT_TRUE(n == 0xE || n == 0x4) << n;
        ++(n == 0xE ? data : pad);
      }
    // Exactly the operand's nibbles are data.
    EXPECT_EQ(data, rows * metaWordsPerRow(k, p) * 4);
    EXPECT_EQ(data + pad, int64_t(words.size()) * 8);
  }
}

TEST(GpuLayout, RejectsBadInputs) {
  std::vector<uint16_t> meta(2 * 2, 0x4444);
  std::vector<uint32_t> words;
  auto view = View2D<const uint16_t>::rowMajor(meta.data(), 2, 2);
  EXPECT_TRUE(toMmaSpMeta(MmaSpShape::M16N8K32B16, view, 32, words).ok());
  // Wrong number of canonical words per row for K.
  Status s = toMmaSpMeta(MmaSpShape::M16N8K32B16, view, 64, words);
  EXPECT_EQ(s.code, ErrorCode::ShapeMismatch);
  EXPECT_TRUE(words.empty());
  // An unordered 2:4 nibble (0x1 = indices 1, 0).
  meta[3] = 0x4144;
  s = toMmaSpMeta(MmaSpShape::M16N8K32B16, view, 32, words);
  EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
  EXPECT_EQ(s.row, 1);
  EXPECT_EQ(s.group, 6);
  EXPECT_EQ(s.nibble, 0x1u);
  // 0x8 is legal 2:4 but not 1:2.
  std::vector<uint16_t> m12(2, 0x4E84);
  s = toMmaSpMeta(MmaSpShape::M16N8K8TF32,
                  View2D<const uint16_t>::rowMajor(m12.data(), 2, 1), 8, words);
  EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
  // fromMmaSpMeta with a words array of the wrong size.
  std::vector<uint16_t> back(4);
  s = fromMmaSpMeta(MmaSpShape::M16N8K32B16, std::vector<uint32_t>(7), 32,
                    View2D<uint16_t>::rowMajor(back.data(), 2, 2));
  EXPECT_EQ(s.code, ErrorCode::ShapeMismatch);
  // padMmaSpValues: element size must match the shape.
  std::vector<float> vals(8);
  EXPECT_TRUE(padMmaSpValues<float>(
                  MmaSpShape::M16N8K32B16,
                  View2D<const float>::rowMajor(vals.data(), 1, 8), 16)
                  .empty());
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

// Padding copies the canonical rows and zero-fills; when rows are a multiple
// of 32 and K of the instruction K, the canonical values are returned as
// they are: they are ldmatrix-ready (the end-to-end tests show the rest).
TEST(GpuLayout, PadValues) {
  std::vector<uint16_t> v(size_t(3 * 8));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = uint16_t(i + 1);
  // K = 16 -> 8 stored per row; m16n8k32 pads K to 32 (16 stored), rows to 32.
  std::vector<uint16_t> p = padMmaSpValues<uint16_t>(
      MmaSpShape::M16N8K32B16, View2D<const uint16_t>::rowMajor(v.data(), 3, 8),
      16);
  ASSERT_EQ(p.size(), size_t(32 * 16));
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 16; ++c)
      EXPECT_EQ(p[size_t(r * 16 + c)],
                r < 3 && c < 8 ? v[size_t(r * 8 + c)] : uint16_t(0));
  std::vector<uint16_t> w(size_t(32 * 16), 7);
  EXPECT_EQ(padMmaSpValues<uint16_t>(
                MmaSpShape::M16N8K32B16,
                View2D<const uint16_t>::rowMajor(w.data(), 32, 16), 32),
            w);
  std::vector<int8_t> i8(size_t(32 * 32), 3);
  EXPECT_EQ(padMmaSpValues<int8_t>(
                MmaSpShape::M16N8K64I8,
                View2D<const int8_t>::rowMajor(i8.data(), 32, 32), 64),
            i8);
}

//===----------------------------------------------------------------------===//
// End to end
//===----------------------------------------------------------------------===//

TEST(GpuLayout, EndToEndF16) {
  checkEndToEnd(MmaSpShape::M16N8K16B16, MmaElem::F16, MmaElem::F32);
  checkEndToEnd(MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F32);
}

TEST(GpuLayout, EndToEndF16Accumulator) {
  checkEndToEnd(MmaSpShape::M16N8K16B16, MmaElem::F16, MmaElem::F16);
  checkEndToEnd(MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F16);
}

TEST(GpuLayout, EndToEndBF16) {
  checkEndToEnd(MmaSpShape::M16N8K16B16, MmaElem::BF16, MmaElem::F32);
  checkEndToEnd(MmaSpShape::M16N8K32B16, MmaElem::BF16, MmaElem::F32);
}

TEST(GpuLayout, EndToEndTF32) {
  checkEndToEnd(MmaSpShape::M16N8K8TF32, MmaElem::TF32, MmaElem::F32);
  checkEndToEnd(MmaSpShape::M16N8K16TF32, MmaElem::TF32, MmaElem::F32);
}

TEST(GpuLayout, EndToEndInt8) {
  checkEndToEnd(MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::S32);
  checkEndToEnd(MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::S32);
}

// The comparison catches broken layouts: swapped selector roles, swapped
// g / g+8 metadata halves, swapped A row halves.
TEST(GpuLayout, WrongLayoutsFail) {
  struct Broken {
    MmaSpShape shape;
    MmaElem elem, acc;
    Break brk;
  };
  const Broken cases[] = {
      {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F32,
       Break::SwapSelector},
      {MmaSpShape::M16N8K16B16, MmaElem::BF16, MmaElem::F32,
       Break::SwapSelector},
      {MmaSpShape::M16N8K16TF32, MmaElem::TF32, MmaElem::F32,
       Break::SwapSelector},
      {MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::S32, Break::SwapSelector},
      {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F32,
       Break::SwapMetaHalves},
      {MmaSpShape::M16N8K8TF32, MmaElem::TF32, MmaElem::F32,
       Break::SwapMetaHalves},
      {MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::S32,
       Break::SwapMetaHalves},
      {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F32,
       Break::SwapARowHalves},
      {MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::S32,
       Break::SwapARowHalves},
  };
  for (const Broken &b : cases) {
    Case c{b.shape, b.elem, b.acc, 64, 16, 128};
    SCOPED_TRACE(caseName(c) + " break " + std::to_string(int(b.brk)));
    ASSERT_TRUE(runCase(c).ok);
    Outcome o = runCase(c, b.brk);
    // Either the model refuses (not here: every nibble stays legal) or the
    // result is far off.
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_GT(o.relErr, 0.1);
  }
}
