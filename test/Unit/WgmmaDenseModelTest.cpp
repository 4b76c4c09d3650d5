//===- WgmmaDenseModelTest.cpp - the dense wgmma in the CPU model ---------===//
//
// The dense instruction of runtime/emulator/WgmmaSpModel (wgmma.mma_async,
// WgmmaSpInstr::sparse false) against a float64 product: a random 64 x K A
// and K x N B are written into shared-memory tiles with the layout helpers
// of runtime/format/StcHopperLayout (K-major or MN-major, with or without
// swizzle; the sm_90a dense kernel uses K-major A and either B with the
// 128-byte swizzle), a chain of instructions along K (scale-d accumulating)
// computes D, which is read back with the accumulator table. A descriptor
// that starts A at the wrong K, and the sparse instruction on the same
// operands, must both fail the comparison; dense A from registers is an
// error.
//
//===----------------------------------------------------------------------===//
#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/format/StcHopperLayout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace stc::format;
using namespace stc::emu;

namespace {

struct Image {
  std::vector<uint8_t> bytes;
  uint32_t alloc(int64_t size) {
    size_t base = (bytes.size() + 1023) / 1024 * 1024;
    bytes.resize(base + size_t(size), 0);
    return uint32_t(base);
  }
};

struct Case {
  MmaElem elem = MmaElem::F16;
  int n = 64;
  int kSteps = 3;
  HopperSwizzle swizzle = HopperSwizzle::B128;
  bool bMnMajor = false;
  bool aMnMajor = false;
  /// Elements the A descriptors are moved by (a wrong start K).
  int aSkew = 0;
  bool sparseInstr = false;
};

/// Largest |D - reference| relative to the row's magnitude; -1 with
/// `error` when the model refused.
double maxError(const Case &c, std::string &error) {
  std::mt19937 rng(20261127u + unsigned(c.n) * 7u + unsigned(c.kSteps));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  const int k = 16 * c.kSteps, m = 64, n = c.n;
  auto bits = [&](float v) -> uint32_t {
    return c.elem == MmaElem::F16 ? floatToF16(v) : floatToBF16(v);
  };
  auto value = [&](uint32_t b) -> double {
    return c.elem == MmaElem::F16 ? f16ToFloat(uint16_t(b))
                                  : bf16ToFloat(uint16_t(b));
  };
  std::vector<uint32_t> a(size_t(m * k)), b(size_t(k * n));
  for (uint32_t &x : a)
    x = bits(real(rng));
  for (uint32_t &x : b)
    x = bits(real(rng));

  // One tile per operand holding all of K: a swizzle row of K (64 f16) or,
  // without swizzle, K in 8-element core columns.
  auto tileOf = [&](bool mnMajor, int rows) {
    HopperSmemTile t;
    t.swizzle = c.swizzle;
    t.mnMajor = mnMajor;
    t.elementBits = 16;
    t.mnRows = rows;
    t.kCols = mnMajor || c.swizzle == HopperSwizzle::None
                  ? 64
                  : hopperSwizzleBytes(c.swizzle) / 2;
    return t;
  };
  HopperSmemTile aTile = tileOf(c.aMnMajor, m), bTile = tileOf(c.bMnMajor, n);
  EXPECT_EQ(hopperSmemTileError(aTile), "");
  EXPECT_EQ(hopperSmemTileError(bTile), "");
  Image image;
  std::vector<uint32_t> aBase, bBase;
  for (int k0 = 0; k0 < k; k0 += aTile.kCols) {
    uint32_t base = image.alloc(hopperSmemTileBytes(aTile));
    aBase.push_back(base);
    for (int r = 0; r < m; ++r)
      for (int kk = 0; kk < aTile.kCols && k0 + kk < k; ++kk)
        std::memcpy(&image.bytes[base + hopperSmemOffset(aTile, r, kk)],
                    &a[size_t(r * k + k0 + kk)], 2);
  }
  for (int k0 = 0; k0 < k; k0 += bTile.kCols) {
    uint32_t base = image.alloc(hopperSmemTileBytes(bTile));
    bBase.push_back(base);
    for (int col = 0; col < n; ++col)
      for (int kk = 0; kk < bTile.kCols && k0 + kk < k; ++kk)
        std::memcpy(&image.bytes[base + hopperSmemOffset(bTile, col, kk)],
                    &b[size_t((k0 + kk) * n + col)], 2);
  }

  WgmmaSpInstr instr{n, c.elem, c.elem, MmaElem::F32, c.sparseInstr};
  WgmmaSpOperands ops;
  ops.aFromSmem = true;
  ops.transA = c.aMnMajor;
  ops.transB = c.bMnMajor;
  ops.smem = image.bytes;
  ops.e.fill(0x44444444u); // legal metadata, for the sparse mutant
  std::vector<uint32_t> d;
  for (int s = 0; s < c.kSteps; ++s) {
    int k0 = 16 * s;
    ops.aDesc = hopperSmemDescriptor(aTile, aBase[size_t(k0 / aTile.kCols)],
                                     k0 % aTile.kCols + c.aSkew);
    ops.bDesc = hopperSmemDescriptor(bTile, bBase[size_t(k0 / bTile.kCols)],
                                     k0 % bTile.kCols);
    ops.scaleD = s > 0;
    ops.d = d;
    WgmmaSpResult r = runWgmmaSp(instr, ops);
    if (!r.ok) {
      error = r.error;
      return -1;
    }
    d = r.d;
  }
  double worst = 0;
  for (int tid = 0; tid < kWarpgroupThreads; ++tid)
    for (int v = 0; v < n / 2; ++v) {
      int row = 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((v >> 1) & 1);
      int col = 8 * (v >> 2) + 2 * (tid % 4) + (v & 1);
      double ref = 0, mag = 0;
      for (int kk = 0; kk < k; ++kk) {
        double p =
            value(a[size_t(row * k + kk)]) * value(b[size_t(kk * n + col)]);
        ref += p;
        mag += std::fabs(p);
      }
      float got;
      std::memcpy(&got, &d[size_t(tid * (n / 2) + v)], 4);
      worst = std::max(worst, std::fabs(double(got) - ref) / (1.0 + mag));
    }
  return worst;
}

TEST(WgmmaDenseModel, MatchesFloat64) {
  for (MmaElem elem : {MmaElem::F16, MmaElem::BF16})
    for (int n : {8, 64, 256})
      for (HopperSwizzle sw : {HopperSwizzle::B128, HopperSwizzle::None})
        for (bool bMn : {false, true})
          for (bool aMn : {false, true}) {
            // An MN-major tile spans whole swizzle rows along N.
            if (bMn && sw == HopperSwizzle::B128 && n < 64)
              continue;
            Case c;
            c.elem = elem;
            c.n = n;
            c.swizzle = sw;
            c.bMnMajor = bMn;
            c.aMnMajor = aMn;
            std::string error;
            double err = maxError(c, error);
            EXPECT_EQ(error, "");
            EXPECT_LE(err, 1e-6)
                << "n " << n << " swizzle " << int(sw) << " B MN-major " << bMn
                << " A MN-major " << aMn;
          }
}

TEST(WgmmaDenseModel, InstructionName) {
  EXPECT_EQ(wgmmaSpInstrName({128, MmaElem::F16, MmaElem::F16, MmaElem::F32,
                              /*sparse=*/false}),
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16");
  EXPECT_EQ(wgmmaSpK({64, MmaElem::S8, MmaElem::S8, MmaElem::S32, false}), 32);
}

TEST(WgmmaDenseModel, WrongStartOrSparseInstructionIsCaught) {
  Case skew;
  skew.aSkew = 8;
  std::string error;
  EXPECT_GT(maxError(skew, error), 1e-3) << error;
  Case sparse;
  sparse.sparseInstr = true;
  error.clear();
  double err = maxError(sparse, error);
  EXPECT_TRUE(err < 0 || err > 1e-3) << "the sparse instruction matched";
}

TEST(WgmmaDenseModel, RegisterAIsAnError) {
  WgmmaSpInstr instr{8, MmaElem::F16, MmaElem::F16, MmaElem::F32, false};
  WgmmaSpOperands ops;
  ops.aFromSmem = false;
  ops.a.assign(kWarpgroupThreads * 4, 0);
  ops.smem.assign(4096, 0);
  WgmmaSpResult r = runWgmmaSp(instr, ops);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "dense wgmma with A from registers is not modelled");
}

} // namespace
