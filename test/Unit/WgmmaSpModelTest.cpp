//===- WgmmaSpModelTest.cpp - wgmma.sp model and Hopper layouts -----------===//
//
// End-to-end tests of runtime/format/StcHopperLayout against the CPU model of
// wgmma.mma_async.sp (runtime/emulator/WgmmaSpModel): a random dense M x K A
// (2:4 or 1:2 with non-uniform metadata: every legal nibble) and K x N B are
// put into the canonical format, then into the kernel-ready forms with the
// layout helpers (A registers or an A shared-memory tile, the metadata word
// array, the B shared-memory tile with its descriptors), every 64-row tile
// is computed by a chain of model instructions along K (scale-d
// accumulating), D is read back with the accumulator table, and the result
// is compared with a float64 product.  Deliberately wrong layouts must fail
// the same comparison.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/format/StcHopperLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace stc::format;
using namespace stc::emu;

namespace {

//===----------------------------------------------------------------------===//
// Element values
//===----------------------------------------------------------------------===//

WgmmaSpType typeOf(MmaElem a) {
  switch (a) {
  case MmaElem::TF32:
    return WgmmaSpType::TF32;
  case MmaElem::S8:
  case MmaElem::U8:
    return WgmmaSpType::I8;
  default:
    return WgmmaSpType::B16;
  }
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t bitsOfFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// The value the instruction multiplies (tf32: low 13 bits truncated, ISA
/// 9.7.15.6.3).
double valueOf(MmaElem e, uint32_t bits) {
  switch (e) {
  case MmaElem::F16:
    return f16ToFloat(uint16_t(bits));
  case MmaElem::BF16:
    return bf16ToFloat(uint16_t(bits));
  case MmaElem::TF32:
    return floatOf(bits & 0xFFFFE000u);
  case MmaElem::S8:
    return double(int8_t(uint8_t(bits)));
  case MmaElem::U8:
    return double(uint8_t(bits));
  default:
    return floatOf(bits);
  }
}

/// Random non-zero bits of type `e`.
uint32_t randomBits(std::mt19937 &rng, MmaElem e) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (;;) {
    uint32_t b = 0;
    switch (e) {
    case MmaElem::F16:
      b = floatToF16(real(rng));
      break;
    case MmaElem::BF16:
      b = floatToBF16(real(rng));
      break;
    case MmaElem::TF32:
      b = bitsOfFloat(real(rng)); // full f32: the low bits must be ignored
      break;
    case MmaElem::S8:
      b = uint8_t(int8_t(std::uniform_int_distribution<int>(-127, 127)(rng)));
      break;
    case MmaElem::U8:
      b = uint32_t(std::uniform_int_distribution<int>(0, 255)(rng));
      break;
    default:
      b = bitsOfFloat(real(rng));
    }
    if (valueOf(e, b) != 0.0)
      return b;
  }
}

//===----------------------------------------------------------------------===//
// Operands in the canonical format
//===----------------------------------------------------------------------===//

constexpr unsigned kLegal24[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};

/// A sparse M x K operand: canonical values (raw bits, M x K/2), canonical
/// metadata (M x K/(4m) uint16) and the dense values.
struct SparseA {
  MmaElem elem;
  int64_t m = 0, k = 0;
  std::vector<uint32_t> values;
  std::vector<uint16_t> meta;
  std::vector<double> dense;
  std::set<unsigned> nibblesUsed;
};

SparseA makeSparseA(std::mt19937 &rng, MmaElem elem, int64_t m, int64_t k) {
  const bool tf32 = elem == MmaElem::TF32;
  const int width = tf32 ? 2 : 4, kept = tf32 ? 1 : 2;
  SparseA a;
  a.elem = elem;
  a.m = m;
  a.k = k;
  a.values.assign(size_t(m * k / 2), 0);
  a.meta.assign(size_t(m * k / (4 * width)), 0);
  a.dense.assign(size_t(m * k), 0.0);
  std::uniform_int_distribution<int> pick(0, tf32 ? 1 : 5);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t grp = 0; grp < k / width; ++grp) {
      unsigned nibble = tf32 ? (pick(rng) ? 0xEu : 0x4u) : kLegal24[pick(rng)];
      a.nibblesUsed.insert(nibble);
      int idx[2] = {int(nibble & 3), int(nibble >> 2)};
      if (tf32)
        idx[0] = nibble == 0x4 ? 0 : 1;
      for (int j = 0; j < kept; ++j) {
        uint32_t bits = randomBits(rng, elem);
        a.values[size_t(r * k / 2 + grp * kept + j)] = bits;
        a.dense[size_t(r * k + grp * width + idx[j])] = valueOf(elem, bits);
      }
      a.meta[size_t(r * (k / (4 * width)) + grp / 4)] |=
          uint16_t(nibble << (4 * (grp % 4)));
    }
  return a;
}

/// A dense K x N operand (raw bits and values).
struct DenseB {
  MmaElem elem;
  int64_t k = 0, n = 0;
  std::vector<uint32_t> bits;
  std::vector<double> value;
};

DenseB makeB(std::mt19937 &rng, MmaElem elem, int64_t k, int64_t n) {
  DenseB b;
  b.elem = elem;
  b.k = k;
  b.n = n;
  for (int64_t i = 0; i < k * n; ++i) {
    b.bits.push_back(randomBits(rng, elem));
    b.value.push_back(valueOf(elem, b.bits.back()));
  }
  return b;
}

//===----------------------------------------------------------------------===//
// The product through the model
//===----------------------------------------------------------------------===//

using AElementFn = std::function<WgmmaCell(WgmmaSpType, int, int)>;
using SmemOffsetFn = std::function<int64_t(const HopperSmemTile &, int, int)>;
/// sp-meta of thread `tid` for (rowTile, kStep), from the word array.
using MetaFn =
    std::function<uint32_t(const std::vector<uint32_t> &words,
                           const WgmmaSpMetaLayout &, int64_t, int64_t, int)>;

uint32_t productMeta(const std::vector<uint32_t> &words,
                     const WgmmaSpMetaLayout &l, int64_t rowTile, int64_t kStep,
                     int tid) {
  return words[size_t(wgmmaSpMetaWordIndex(
      rowTile, wgmmaSpMetaLaneWord(l.type, kStep), tid, l.vectorsPerRowTile))];
}

struct Config {
  MmaElem elem = MmaElem::F16;
  MmaElem bElem = MmaElem::F16; // = elem except for mixed s8/u8
  MmaElem acc = MmaElem::F32;
  int64_t m = 128, n = 64, kSteps = 4;
  HopperSwizzle bSwizzle = HopperSwizzle::B128;
  bool bMnMajor = false;
  bool aFromSmem = false;
  HopperSwizzle aSwizzle = HopperSwizzle::B128;
  bool aMnMajor = false;
  /// scale-d of the first K step (later steps always accumulate).
  bool firstScaleD = true;
  int scaleA = 1, scaleB = 1;
  /// XORed into wgmmaSpSelector (1: the wrong selector).
  int selectorXor = 0;
  AElementFn aElement = wgmmaSpAElement;
  SmemOffsetFn smemOffset = hopperSmemOffset;
  MetaFn meta = productMeta;
  /// Swizzle written into the descriptors (default: the tile's).
  bool lieAboutBSwizzle = false;
};

std::string describe(const Config &c) {
  WgmmaSpInstr instr{int(c.n), c.elem, c.bElem, c.acc};
  std::string s = wgmmaSpInstrName(instr) + " M=" + std::to_string(c.m) +
                  " K=" + std::to_string(c.kSteps * wgmmaSpK(instr)) +
                  " B:" + (c.bMnMajor ? "MN" : "K") + "-major swz" +
                  std::to_string(hopperSwizzleBytes(c.bSwizzle));
  if (c.aFromSmem)
    s += std::string(" A:smem ") + (c.aMnMajor ? "MN" : "K") + "-major swz" +
         std::to_string(hopperSwizzleBytes(c.aSwizzle));
  else
    s += " A:regs";
  s += " scale-d0=" + std::to_string(c.firstScaleD) +
       " sa=" + std::to_string(c.scaleA) + " sb=" + std::to_string(c.scaleB);
  return s;
}

/// Bump allocator for the shared-memory image.
struct Smem {
  std::vector<uint8_t> bytes;
  uint32_t alloc(int64_t size, int64_t align) {
    size_t base =
        (bytes.size() + size_t(align) - 1) / size_t(align) * size_t(align);
    bytes.resize(base + size_t(size), 0);
    return uint32_t(base);
  }
  void put(uint32_t addr, uint32_t bits, int elemBits) {
    std::memcpy(&bytes[addr], &bits, size_t(elemBits / 8));
  }
};

/// Tile K extent used for an operand tile: one swizzle row, or 64 bytes'
/// worth of elements without swizzle (K-major); 64 for MN-major.
int tileCols(HopperSwizzle s, bool mnMajor, int bits) {
  if (mnMajor)
    return 64;
  return s == HopperSwizzle::None ? 512 / bits
                                  : hopperSwizzleBytes(s) * 8 / bits;
}

struct Outcome {
  bool ok = false;
  std::string error;
  int64_t mismatches = 0;
  double maxErr = 0.0;
};

Outcome runProduct(const Config &c, uint32_t seed) {
  std::mt19937 rng(seed);
  const WgmmaSpType type = typeOf(c.elem);
  const WgmmaSpTypeInfo info = getWgmmaSpTypeInfo(type);
  WgmmaSpInstr instr{int(c.n), c.elem, c.bElem, c.acc};
  const int kInstr = info.k, bits = info.elementBits;
  const int64_t k = c.kSteps * kInstr, m = c.m, n = c.n;
  Outcome out;

  SparseA a = makeSparseA(rng, c.elem, m, k);
  DenseB b = makeB(rng, c.bElem, k, n);

  // Metadata words.
  std::vector<uint32_t> words;
  Status st =
      toWgmmaSpMeta(type,
                    View2D<const uint16_t>::rowMajor(
                        a.meta.data(), m, metaWordsPerRow(k, info.pattern)),
                    k, words);
  if (!st.ok()) {
    out.error = st.message;
    return out;
  }
  WgmmaSpMetaLayout ml = getWgmmaSpMetaLayout(type, m, k);

  // B tiles: kCols columns each, N rows.
  Smem smem;
  HopperSmemTile bTile{c.bSwizzle, c.bMnMajor, bits, int(n),
                       tileCols(c.bSwizzle, c.bMnMajor, bits)};
  if (std::string why = hopperSmemTileError(bTile); !why.empty()) {
    out.error = "B tile: " + why;
    return out;
  }
  std::vector<uint32_t> bBase;
  for (int64_t k0 = 0; k0 < k; k0 += bTile.kCols) {
    uint32_t base = smem.alloc(hopperSmemTileBytes(bTile), 1024);
    bBase.push_back(base);
    for (int nn = 0; nn < n; ++nn)
      for (int kk = 0; kk < bTile.kCols && k0 + kk < k; ++kk)
        smem.put(base + uint32_t(c.smemOffset(bTile, nn, kk)),
                 b.bits[size_t((k0 + kk) * n + nn)], bits);
  }

  // A tiles (shared-memory form): 64 rows x kCols stored columns.
  HopperSmemTile aTile{c.aSwizzle, c.aMnMajor, bits, kWgmmaRows,
                       tileCols(c.aSwizzle, c.aMnMajor, bits)};
  std::vector<std::vector<uint32_t>> aBase(size_t(m / kWgmmaRows));
  if (c.aFromSmem) {
    if (std::string why = hopperSmemTileError(aTile); !why.empty()) {
      out.error = "A tile: " + why;
      return out;
    }
    for (int64_t rt = 0; rt < m / kWgmmaRows; ++rt)
      for (int64_t c0 = 0; c0 < k / 2; c0 += aTile.kCols) {
        uint32_t base = smem.alloc(hopperSmemTileBytes(aTile), 1024);
        aBase[size_t(rt)].push_back(base);
        for (int r = 0; r < kWgmmaRows; ++r)
          for (int cc = 0; cc < aTile.kCols && c0 + cc < k / 2; ++cc)
            smem.put(
                base + uint32_t(c.smemOffset(aTile, r, cc)),
                a.values[size_t((rt * kWgmmaRows + r) * (k / 2) + c0 + cc)],
                bits);
      }
  }

  // Initial C (used when the first step accumulates) and the reference.
  std::vector<double> cInit(size_t(m * n), 0.0);
  const int dRegs = wgmmaSpDRegs(instr);
  const int perReg = 32 / bits;
  const bool f16Acc = c.acc == MmaElem::F16, intAcc = c.acc == MmaElem::S32;

  for (int64_t rt = 0; rt < m / kWgmmaRows; ++rt) {
    WgmmaSpOperands ops;
    ops.smem = smem.bytes;
    ops.aFromSmem = c.aFromSmem;
    ops.transA = c.aMnMajor ? 1 : 0;
    ops.transB = c.bMnMajor ? 1 : 0;
    ops.scaleA = c.scaleA;
    ops.scaleB = c.scaleB;
    // Initial D: random (ignored if !firstScaleD).
    ops.d.assign(size_t(kWarpgroupThreads * dRegs), 0);
    for (int tid = 0; tid < kWarpgroupThreads; ++tid)
      for (int v = 0; v < n / 2; ++v) {
        int row = 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((v >> 1) & 1);
        int col = 8 * (v >> 2) + 2 * (tid % 4) + (v & 1);
        double init;
        uint32_t ib;
        if (intAcc) {
          int32_t x = std::uniform_int_distribution<int>(-1000, 1000)(rng);
          init = x;
          ib = uint32_t(x);
        } else if (f16Acc) {
          ib = floatToF16(std::uniform_real_distribution<float>(-1, 1)(rng));
          init = f16ToFloat(uint16_t(ib));
        } else {
          float x = std::uniform_real_distribution<float>(-1, 1)(rng);
          init = x;
          ib = bitsOfFloat(x);
        }
        size_t reg = size_t(tid * dRegs + (f16Acc ? v / 2 : v));
        ops.d[reg] |= f16Acc ? ib << (16 * (v % 2)) : ib;
        if (c.firstScaleD)
          cInit[size_t((rt * kWgmmaRows + row) * n + col)] = init;
      }

    for (int64_t ks = 0; ks < c.kSteps; ++ks) {
      ops.scaleD = ks > 0 || c.firstScaleD;
      ops.selector = wgmmaSpSelector(type, ks) ^ c.selectorXor;
      for (int tid = 0; tid < kWarpgroupThreads; ++tid)
        ops.e[size_t(tid)] = c.meta(words, ml, rt, ks, tid);
      if (c.aFromSmem) {
        int64_t col0 = ks * kInstr / 2;
        int64_t tileIdx = col0 / aTile.kCols;
        ops.aDesc = hopperSmemDescriptor(aTile, aBase[size_t(rt)][tileIdx],
                                         int(col0 % aTile.kCols));
      } else {
        ops.a.assign(size_t(kWarpgroupThreads * 4), 0);
        for (int tid = 0; tid < kWarpgroupThreads; ++tid)
          for (int i = 0; i < wgmmaSpAElementsPerThread(type); ++i) {
            WgmmaCell cell = c.aElement(type, tid, i);
            uint32_t v =
                a.values[size_t((rt * kWgmmaRows + cell.row) * (k / 2) +
                                ks * kInstr / 2 + cell.col)];
            ops.a[size_t(tid * 4 + i / perReg)] |=
                bits == 32 ? v : v << (bits * (i % perReg));
          }
      }
      int64_t k0 = ks * kInstr;
      ops.bDesc = hopperSmemDescriptor(bTile, bBase[size_t(k0 / bTile.kCols)],
                                       int(k0 % bTile.kCols));
      if (c.lieAboutBSwizzle)
        ops.bDesc = (ops.bDesc & ~(uint64_t(3) << 62)) |
                    uint64_t(unsigned(HopperSwizzle::None)) << 62;
      WgmmaSpResult r = runWgmmaSp(instr, ops);
      if (!r.ok) {
        out.error = r.error;
        return out;
      }
      ops.d = r.d;
    }

    // Read D back (accumulator table) and compare with float64.
    for (int tid = 0; tid < kWarpgroupThreads; ++tid)
      for (int v = 0; v < n / 2; ++v) {
        int row = 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((v >> 1) & 1);
        int col = 8 * (v >> 2) + 2 * (tid % 4) + (v & 1);
        int64_t gr = rt * kWgmmaRows + row;
        double ref = cInit[size_t(gr * n + col)], mag = std::fabs(ref);
        for (int64_t kk = 0; kk < k; ++kk) {
          double p = c.scaleA * a.dense[size_t(gr * k + kk)] * c.scaleB *
                     b.value[size_t(kk * n + col)];
          ref += p;
          mag += std::fabs(p);
        }
        uint32_t reg = ops.d[size_t(tid * dRegs + (f16Acc ? v / 2 : v))];
        double got;
        if (intAcc)
          got = double(int32_t(reg));
        else if (f16Acc)
          got = f16ToFloat(uint16_t(reg >> (16 * (v % 2))));
        else
          got = floatOf(reg);
        double tol = intAcc ? 0.0 : (f16Acc ? 4e-3 : 1e-5) * (1.0 + mag);
        double err = std::fabs(got - ref);
        out.maxErr = std::max(out.maxErr, err);
        if (!(err <= tol))
          ++out.mismatches;
      }
  }
  out.ok = true;
  return out;
}

void expectMatches(const Config &c, uint32_t seed = 1) {
  Outcome o = runProduct(c, seed);
  ASSERT_TRUE(o.ok) << describe(c) << ": " << o.error;
  EXPECT_EQ(o.mismatches, 0) << describe(c) << " max error " << o.maxErr;
}

void expectMismatch(const Config &c, uint32_t seed = 1) {
  Outcome o = runProduct(c, seed);
  ASSERT_TRUE(o.ok) << describe(c) << ": " << o.error;
  EXPECT_GT(o.mismatches, 0)
      << describe(c) << ": a deliberately wrong layout went unnoticed";
}

//===----------------------------------------------------------------------===//
// End to end: f16 / bf16
//===----------------------------------------------------------------------===//

TEST(WgmmaSpModel, B16RegisterAAllNsSwizzlesScales) {
  for (MmaElem elem : {MmaElem::F16, MmaElem::BF16})
    for (int n : {8, 64, 256})
      for (HopperSwizzle sw : {HopperSwizzle::None, HopperSwizzle::B128})
        for (bool scaleD : {false, true}) {
          Config c;
          c.elem = c.bElem = elem;
          c.n = n;
          c.bSwizzle = sw;
          c.firstScaleD = scaleD;
          expectMatches(c, uint32_t(n * 7 + int(sw) * 3 + scaleD));
        }
}

TEST(WgmmaSpModel, B16SharedMemoryA) {
  for (MmaElem elem : {MmaElem::F16, MmaElem::BF16})
    for (int n : {8, 64, 256})
      for (HopperSwizzle sw : {HopperSwizzle::None, HopperSwizzle::B128}) {
        Config c;
        c.elem = c.bElem = elem;
        c.n = n;
        c.aFromSmem = true;
        c.aSwizzle = sw;
        c.bSwizzle = sw == HopperSwizzle::None ? HopperSwizzle::B128
                                               : HopperSwizzle::None;
        expectMatches(c, uint32_t(n + int(sw)));
      }
}

TEST(WgmmaSpModel, B16OtherSwizzlesAndMnMajor) {
  // 64B / 32B K-major tiles hold exactly one K step of A (32 / 16 stored
  // columns = 64 / 32 bytes); B needs 64 bytes of K per step, so K-major B
  // takes 64B or 128B swizzle only.
  for (HopperSwizzle sw : {HopperSwizzle::B64, HopperSwizzle::B32}) {
    Config c;
    c.aFromSmem = true;
    c.aSwizzle = sw;
    c.bSwizzle = HopperSwizzle::B64;
    expectMatches(c, 11);
  }
  // MN-major (imm-trans = 1) A and B, no swizzle and 128B.
  for (HopperSwizzle sw : {HopperSwizzle::None, HopperSwizzle::B128})
    for (int n : {64, 256}) {
      Config c;
      c.n = n;
      c.bMnMajor = true;
      c.bSwizzle = sw;
      c.aFromSmem = true;
      c.aMnMajor = true;
      c.aSwizzle = sw;
      expectMatches(c, uint32_t(n + 5));
    }
}

TEST(WgmmaSpModel, F16AccumulatorAndNegation) {
  Config c;
  c.acc = MmaElem::F16;
  c.n = 64;
  expectMatches(c, 3);
  for (int sa : {1, -1})
    for (int sb : {1, -1}) {
      Config s;
      s.n = 8;
      s.scaleA = sa;
      s.scaleB = sb;
      expectMatches(s, 4);
    }
}

TEST(WgmmaSpModel, RandomOperandsCoverEveryNibble) {
  std::mt19937 rng(9);
  SparseA a = makeSparseA(rng, MmaElem::F16, 64, 128);
  EXPECT_EQ(a.nibblesUsed.size(), 6u);
  // The canonical operand built here is what StcFormat's compress produces
  // from the dense matrix (the product path).
  std::vector<uint16_t> dense(size_t(64 * 128), 0);
  for (size_t i = 0; i < dense.size(); ++i)
    dense[i] = a.dense[i] == 0.0 ? 0 : floatToF16(float(a.dense[i]));
  std::vector<uint16_t> values(size_t(64 * 64)), meta(size_t(64 * 8));
  Status st = compress<uint16_t>(
      View2D<const uint16_t>::rowMajor(dense.data(), 64, 128),
      View2D<uint16_t>::rowMajor(values.data(), 64, 64),
      View2D<uint16_t>::rowMajor(meta.data(), 64, 8), kPattern24, magnitudeF16);
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(meta, a.meta);
  for (size_t i = 0; i < values.size(); ++i)
    ASSERT_EQ(values[i], uint16_t(a.values[i])) << i;
}

//===----------------------------------------------------------------------===//
// End to end: tf32, s8/u8
//===----------------------------------------------------------------------===//

TEST(WgmmaSpModel, Tf32) {
  for (int n : {8, 64, 256})
    for (bool smemA : {false, true}) {
      Config c;
      c.elem = c.bElem = MmaElem::TF32;
      c.n = n;
      c.aFromSmem = smemA;
      c.bSwizzle = smemA ? HopperSwizzle::None : HopperSwizzle::B128;
      expectMatches(c, uint32_t(n + smemA));
    }
}

TEST(WgmmaSpModel, Int8) {
  for (int n : {8, 64, 256})
    for (bool smemA : {false, true}) {
      Config c;
      c.elem = MmaElem::S8;
      c.bElem = n == 64 ? MmaElem::U8 : MmaElem::S8;
      c.acc = MmaElem::S32;
      c.n = n;
      c.aFromSmem = smemA;
      c.firstScaleD = n != 8;
      expectMatches(c, uint32_t(n + smemA));
    }
}

//===----------------------------------------------------------------------===//
// Deliberately wrong layouts are caught
//===----------------------------------------------------------------------===//

TEST(WgmmaSpModel, SwappedMetadataThreadMappingIsCaught) {
  // Within each quad, swap the roles of q/2 (the K step = selector) and q%2
  // (half of the K step).
  Config c;
  c.meta = [](const std::vector<uint32_t> &w, const WgmmaSpMetaLayout &l,
              int64_t rt, int64_t ks, int tid) {
    int q = tid % 4, swapped = tid - q + 2 * (q % 2) + q / 2;
    return productMeta(w, l, rt, ks, swapped);
  };
  expectMismatch(c);
  // Rows g and g+8 in the wrong halves.
  Config h;
  h.meta = [](const std::vector<uint32_t> &w, const WgmmaSpMetaLayout &l,
              int64_t rt, int64_t ks, int tid) {
    uint32_t x = productMeta(w, l, rt, ks, tid);
    return x << 16 | x >> 16;
  };
  expectMismatch(h);
  // Warps supplying each other's rows.
  Config r;
  r.meta = [](const std::vector<uint32_t> &w, const WgmmaSpMetaLayout &l,
              int64_t rt, int64_t ks,
              int tid) { return productMeta(w, l, rt, ks, tid ^ 32); };
  expectMismatch(r);
  // The wrong selector.
  Config s;
  s.selectorXor = 1;
  expectMismatch(s);
  // I8: thread q/2 and q%2 swapped (row vs K half).
  Config i8;
  i8.elem = i8.bElem = MmaElem::S8;
  i8.acc = MmaElem::S32;
  i8.meta = c.meta;
  expectMismatch(i8);
}

TEST(WgmmaSpModel, WrongARegisterMappingIsCaught) {
  Config c;
  c.aElement = [](WgmmaSpType t, int tid, int i) {
    WgmmaCell cell = wgmmaSpAElement(t, tid, i);
    // Rows g and g+8 exchanged.
    cell.row ^= 8;
    return cell;
  };
  expectMismatch(c);
  Config d;
  d.aElement = [](WgmmaSpType t, int tid, int i) {
    // Elements of a register pair in the wrong register order.
    return wgmmaSpAElement(t, tid, i ^ 4);
  };
  expectMismatch(d);
}

TEST(WgmmaSpModel, WrongSwizzleIsCaught) {
  // Tile written with the 128B pattern but described as unswizzled.
  Config c;
  c.lieAboutBSwizzle = true;
  Outcome o = runProduct(c, 1);
  // Either an address error or a wrong result; never a silent match.
  EXPECT_TRUE(!o.ok || o.mismatches > 0);
  // Tile written without the XOR but described as 128B-swizzled.
  Config x;
  x.smemOffset = [](const HopperSmemTile &t, int mn, int k) {
    int64_t off = hopperSmemOffset(t, mn, k);
    if (t.swizzle == HopperSwizzle::None)
      return off;
    // Undo the chunk XOR (K-major: swizzle row = tile row).
    int w = hopperSwizzleBytes(t.swizzle);
    int64_t row = off / w;
    int64_t chunk = (off % w) / 16;
    int phase = int(row % 8) * (w / 16) / 8;
    return row * w + (chunk ^ phase) * 16 + off % 16;
  };
  expectMismatch(x);
}

//===----------------------------------------------------------------------===//
// Metadata conversion
//===----------------------------------------------------------------------===//

TEST(WgmmaSpLayout, MetadataRoundTrips) {
  std::mt19937 rng(5);
  for (WgmmaSpType t : kAllWgmmaSpTypes)
    for (int64_t rows : {1, 64, 70, 200})
      for (int64_t k : {8, 32, 100, 512}) {
        NMPattern p = getWgmmaSpTypeInfo(t).pattern;
        int64_t cols = metaWordsPerRow(k, p);
        std::vector<uint16_t> meta(size_t(rows * cols));
        std::uniform_int_distribution<int> pick(0, p.n == 1 ? 1 : 5);
        for (uint16_t &w : meta)
          for (int j = 0; j < 4; ++j)
            w |= uint16_t(
                (p.n == 1 ? (pick(rng) ? 0xE : 0x4) : kLegal24[pick(rng)])
                << (4 * j));
        std::vector<uint32_t> words;
        Status s = toWgmmaSpMeta(
            t, View2D<const uint16_t>::rowMajor(meta.data(), rows, cols), k,
            words);
        ASSERT_TRUE(s.ok()) << s.message;
        WgmmaSpMetaLayout l = getWgmmaSpMetaLayout(t, rows, k);
        ASSERT_EQ(int64_t(words.size()), l.numWords());
        EXPECT_EQ(words.size() % 512, 0u);
        // Every word, padding included, holds legal nibbles only.
        for (uint32_t w : words)
          for (int j = 0; j < 8; ++j)
            ASSERT_TRUE(isLegalNibble((w >> (4 * j)) & 0xF, p));
        std::vector<uint16_t> back(meta.size(), 0);
        s = fromWgmmaSpMeta(
            t, words, k, View2D<uint16_t>::rowMajor(back.data(), rows, cols));
        ASSERT_TRUE(s.ok()) << s.message;
        EXPECT_EQ(back, meta) << wgmmaSpTypeName(t) << " " << rows << "x" << k;
      }
}

TEST(WgmmaSpLayout, MetadataWordSourcesAreABijection) {
  for (WgmmaSpType t : kAllWgmmaSpTypes) {
    std::set<std::pair<int, int>> seen;
    for (int tid = 0; tid < kWgmmaThreads; ++tid) {
      WgmmaSpMetaHalf h[2];
      wgmmaSpMetaWordSources(t, tid, h);
      for (const WgmmaSpMetaHalf &x : h) {
        EXPECT_TRUE(x.row >= 0 && x.row < 64 && x.word >= 0 && x.word < 4);
        EXPECT_TRUE(seen.insert({x.row, x.word}).second);
      }
    }
    EXPECT_EQ(seen.size(), 256u) << wgmmaSpTypeName(t);
  }
}

TEST(WgmmaSpLayout, MetadataErrors) {
  std::vector<uint16_t> meta(size_t(64 * 2), 0x4444);
  meta[5] = 0x4454; // 0x5 is illegal
  std::vector<uint32_t> words;
  Status s = toWgmmaSpMeta(WgmmaSpType::B16,
                           View2D<const uint16_t>::rowMajor(meta.data(), 64, 2),
                           32, words);
  EXPECT_EQ(s.code, ErrorCode::IllegalNibble);
  EXPECT_TRUE(words.empty());
  s = toWgmmaSpMeta(WgmmaSpType::B16,
                    View2D<const uint16_t>::rowMajor(meta.data(), 64, 2), 64,
                    words);
  EXPECT_EQ(s.code, ErrorCode::ShapeMismatch);
}

TEST(WgmmaSpLayout, AElementsAreABijection) {
  for (WgmmaSpType t : kAllWgmmaSpTypes) {
    int kStored = getWgmmaSpTypeInfo(t).k / 2;
    std::set<std::pair<int, int>> seen;
    for (int tid = 0; tid < kWgmmaThreads; ++tid)
      for (int i = 0; i < wgmmaSpAElementsPerThread(t); ++i) {
        WgmmaCell c = wgmmaSpAElement(t, tid, i);
        EXPECT_TRUE(c.row >= 0 && c.row < 64 && c.col >= 0 && c.col < kStored);
        EXPECT_TRUE(seen.insert({c.row, c.col}).second);
      }
    EXPECT_EQ(int(seen.size()), 64 * kStored) << wgmmaSpTypeName(t);
  }
}

//===----------------------------------------------------------------------===//
// Shared memory and descriptors
//===----------------------------------------------------------------------===//

TEST(WgmmaSpLayout, DescriptorFields) {
  uint64_t d = encodeWgmmaDescriptor(0x1a2b0, 128, 1024, HopperSwizzle::B128);
  WgmmaDescriptor f = decodeWgmmaDescriptor(d);
  EXPECT_EQ(f.startAddress, 0x1a2b0u);
  EXPECT_EQ(f.leadingByteOffset, 128u);
  EXPECT_EQ(f.strideByteOffset, 1024u);
  EXPECT_EQ(f.baseOffset, 0u);
  EXPECT_EQ(f.swizzle, WgmmaSwizzle::B128);
  EXPECT_EQ(d >> 62, 1u);
  EXPECT_EQ((d >> 16) & 0x3FFF, 8u);
  EXPECT_EQ((d >> 32) & 0x3FFF, 64u);
  // The start address keeps its low 18 bits only.
  EXPECT_EQ(decodeWgmmaDescriptor(
                encodeWgmmaDescriptor(0x40010, 16, 16, HopperSwizzle::None))
                .startAddress,
            0x10u);
  EXPECT_EQ(decodeWgmmaDescriptor(
                encodeWgmmaDescriptor(0, 16, 16, HopperSwizzle::B32, 5))
                .baseOffset,
            5u);
  for (HopperSwizzle s : {HopperSwizzle::None, HopperSwizzle::B128,
                          HopperSwizzle::B64, HopperSwizzle::B32})
    EXPECT_EQ(
        unsigned(
            decodeWgmmaDescriptor(encodeWgmmaDescriptor(0, 0, 0, s)).swizzle),
        unsigned(s));
}

TEST(WgmmaSpLayout, SmemTilesAreBijections) {
  for (int bits : {8, 16, 32})
    for (bool mn : {false, true})
      for (HopperSwizzle s : {HopperSwizzle::None, HopperSwizzle::B32,
                              HopperSwizzle::B64, HopperSwizzle::B128}) {
        int e = bits / 8, w = hopperSwizzleBytes(s);
        HopperSmemTile t{s, mn, bits, mn ? 2 * 128 / e : 64,
                         mn ? 16 : (s == HopperSwizzle::None ? 64 / e : w / e)};
        ASSERT_EQ(hopperSmemTileError(t), "");
        std::set<int64_t> seen;
        for (int r = 0; r < t.mnRows; ++r)
          for (int k = 0; k < t.kCols; ++k) {
            int64_t off = hopperSmemOffset(t, r, k);
            EXPECT_EQ(off % e, 0);
            EXPECT_TRUE(off >= 0 && off < hopperSmemTileBytes(t));
            EXPECT_TRUE(seen.insert(off).second);
          }
        // 128B swizzle, K-major: the 16-byte chunk j of row r is at j ^ r%8.
        if (s == HopperSwizzle::B128 && !mn) {
          for (int r = 0; r < 16; ++r)
            for (int j = 0; j < 8; ++j) {
              EXPECT_EQ(hopperSmemOffset(t, r, j * 16 / e),
                        (r / 8) * 1024 + (r % 8) * 128 + ((j ^ (r % 8)) * 16));
            }
        }
      }
  HopperSmemTile bad{HopperSwizzle::B128, false, 16, 64, 32};
  EXPECT_NE(hopperSmemTileError(bad), "");
}

//===----------------------------------------------------------------------===//
// Model errors (returned, never a crash)
//===----------------------------------------------------------------------===//

/// A minimal valid f16 m64n8k32 instruction (B K-major, no swizzle, at 0).
WgmmaSpOperands minimalOperands() {
  WgmmaSpOperands ops;
  ops.a.assign(128 * 4, 0);
  ops.d.assign(128 * 4, 0);
  ops.smem.assign(1024, 0);
  HopperSmemTile t{HopperSwizzle::None, false, 16, 8, 32};
  ops.bDesc = hopperSmemDescriptor(t, 0, 0);
  ops.e.fill(0x44444444u);
  return ops;
}

TEST(WgmmaSpModel, Errors) {
  WgmmaSpInstr f16{8, MmaElem::F16, MmaElem::F16, MmaElem::F32};
  EXPECT_TRUE(runWgmmaSp(f16, minimalOperands()).ok);
  EXPECT_EQ(wgmmaSpInstrName(f16),
            "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16");

  auto expectError = [&](WgmmaSpInstr instr, WgmmaSpOperands ops,
                         const std::string &needle) {
    WgmmaSpResult r = runWgmmaSp(instr, ops);
    EXPECT_FALSE(r.ok) << needle;
    EXPECT_NE(r.error.find(needle), std::string::npos) << r.error;
  };

  // Illegal nibble in a thread the selector reads: error; in one it does
  // not read: ignored.
  for (unsigned bad : {0x0u, 0x5u, 0xAu, 0xFu, 0x1u, 0x6u}) {
    WgmmaSpOperands ops = minimalOperands();
    ops.e[33] = 0x44444404u | (bad << 4); // warp 1, lane 1: pair 0
    expectError(f16, ops, "illegal metadata nibble");
    ops.selector = 1;
    EXPECT_TRUE(runWgmmaSp(f16, ops).ok);
  }
  WgmmaSpOperands ops = minimalOperands();
  ops.selector = 2;
  expectError(f16, ops, "selector");
  expectError({12, MmaElem::F16, MmaElem::F16, MmaElem::F32}, minimalOperands(),
              "illegal N");
  expectError({40, MmaElem::S8, MmaElem::S8, MmaElem::S32}, minimalOperands(),
              "illegal N");
  expectError({8, MmaElem::BF16, MmaElem::BF16, MmaElem::F16},
              minimalOperands(), "illegal type");
  ops = minimalOperands();
  ops.scaleA = 2;
  expectError(f16, ops, "imm-scale");
  ops = minimalOperands();
  ops.transA = 1;
  expectError(f16, ops, "imm-trans-a");
  ops = minimalOperands();
  ops.transB = 1;
  expectError({8, MmaElem::TF32, MmaElem::TF32, MmaElem::F32}, ops,
              "transpose");
  ops = minimalOperands();
  ops.smem.resize(100);
  expectError(f16, ops, "outside");
  ops = minimalOperands();
  ops.bDesc |= uint64_t(1) << 49;
  expectError(f16, ops, "base offset");
  ops = minimalOperands();
  ops.bDesc = encodeWgmmaDescriptor(0, 16, 256, HopperSwizzle::B32);
  expectError(f16, ops, "exceeds");
  ops = minimalOperands();
  ops.a.pop_back();
  expectError(f16, ops, "wrong size");
  // scale-d = 0 does not read d.
  ops = minimalOperands();
  ops.d.clear();
  ops.scaleD = false;
  EXPECT_TRUE(runWgmmaSp(f16, ops).ok);
}

} // namespace
