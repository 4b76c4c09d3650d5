//===- MmaModelTest.cpp - the dense mma.sync model against a product ------===//
//
// Tests of runtime/emulator/MmaModel: seeded random 16x16 A, 16x8 B and C
// of f16 or bf16 (f32 or f16 accumulators), put into the warp's registers
// from the matrix side (for each cell, which lane, register and half hold
// it, the inverse of the ISA tables the model transcribes, written here
// separately), compared with a float64 reference. Then the instruction's
// errors, and the emulator entry point's.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"
#include "runtime/format/StcFormat.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace stc::emu;
using stc::test::bitsOf;
using stc::test::floatOf;

namespace {

struct Loc {
  int lane, reg, half;
};

/// A (row, col) of 16 x 16: quad row % 8 holds the row, lane t of it
/// columns 2t, 2t + 1 of each 8-column half; registers: rows 0-7, rows
/// 8-15, then the same for columns 8-15.
Loc locA(int row, int col) {
  return {4 * (row % 8) + (col % 8) / 2, row / 8 + 2 * (col / 8), col % 2};
}
/// B (k, n) of 16 x 8: quad n, lane t holds k 2t, 2t + 1 of each 8-k half.
Loc locB(int k, int n) { return {4 * n + (k % 8) / 2, k / 8, k % 2}; }
/// C (m, n): quad m % 8, lane t columns 2t, 2t + 1; f32: registers
/// (m / 8) * 2 + n % 2; f16x2: register m / 8, half n % 2.
Loc locC(bool f16, int m, int n) {
  int lane = 4 * (m % 8) + n / 2;
  return f16 ? Loc{lane, m / 8, n % 2} : Loc{lane, 2 * (m / 8) + n % 2, 0};
}

uint16_t bits16(MmaElem e, float v) {
  return e == MmaElem::BF16 ? stc::format::floatToBF16(v)
                            : stc::format::floatToF16(v);
}
float value16(MmaElem e, uint16_t b) {
  return e == MmaElem::BF16 ? stc::format::bf16ToFloat(b)
                            : stc::format::f16ToFloat(b);
}

void put16(std::vector<uint32_t> &regs, int perLane, Loc l, uint16_t v) {
  uint32_t &r = regs[size_t(l.lane * perLane + l.reg)];
  r |= uint32_t(v) << (16 * l.half);
}

void checkProduct(MmaElem ab, MmaElem c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const bool f16Acc = c == MmaElem::F16;
  const int cRegs = f16Acc ? 2 : 4;
  MmaSpFragments in;
  in.a.assign(32 * kMmaM16N8K16ARegs, 0);
  in.b.assign(32 * kMmaM16N8K16BRegs, 0);
  in.c.assign(size_t(32 * cRegs), 0);
  double a[16][16], b[16][8], cm[16][8];
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) {
      uint16_t v = bits16(ab, dist(rng));
      a[r][k] = value16(ab, v);
      put16(in.a, kMmaM16N8K16ARegs, locA(r, k), v);
    }
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n) {
      uint16_t v = bits16(ab, dist(rng));
      b[k][n] = value16(ab, v);
      put16(in.b, kMmaM16N8K16BRegs, locB(k, n), v);
    }
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      Loc l = locC(f16Acc, m, n);
      if (f16Acc) {
        uint16_t v = stc::format::floatToF16(dist(rng));
        cm[m][n] = stc::format::f16ToFloat(v);
        put16(in.c, cRegs, l, v);
      } else {
        float v = dist(rng);
        cm[m][n] = v;
        in.c[size_t(l.lane * cRegs + l.reg)] = bitsOf(v);
      }
    }
  MmaSpResult result = runMmaM16N8K16(ab, c, in);
  ASSERT_TRUE(result.ok) << result.error;
  ASSERT_EQ(result.d.size(), size_t(32 * cRegs));
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double want = cm[m][n];
      for (int k = 0; k < 16; ++k)
        want += a[m][k] * b[k][n];
      Loc l = locC(f16Acc, m, n);
      uint32_t word = result.d[size_t(l.lane * cRegs + l.reg)];
      double got =
          f16Acc ? stc::format::f16ToFloat(uint16_t(word >> (16 * l.half)))
                 : floatOf(word);
      EXPECT_NEAR(got, want, f16Acc ? 0.05 : 1e-4)
          << mmaM16N8K16Name(ab, c) << " at (" << m << ", " << n << ")";
    }
}

TEST(MmaModel, F16WithF32Accumulators) {
  for (unsigned seed = 1; seed <= 4; ++seed)
    checkProduct(MmaElem::F16, MmaElem::F32, seed);
}

TEST(MmaModel, BF16WithF32Accumulators) {
  for (unsigned seed = 5; seed <= 8; ++seed)
    checkProduct(MmaElem::BF16, MmaElem::F32, seed);
}

TEST(MmaModel, F16WithF16Accumulators) {
  for (unsigned seed = 9; seed <= 12; ++seed)
    checkProduct(MmaElem::F16, MmaElem::F16, seed);
}

TEST(MmaModel, RejectsIllegalTypesAndSizes) {
  MmaSpFragments in;
  in.a.assign(32 * kMmaM16N8K16ARegs, 0);
  in.b.assign(32 * kMmaM16N8K16BRegs, 0);
  in.c.assign(32 * 2, 0);
  MmaSpResult r = runMmaM16N8K16(MmaElem::BF16, MmaElem::F16, in);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "illegal type combination: "
                     "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16");
  // f32 accumulators need 4 registers a lane.
  r = runMmaM16N8K16(MmaElem::F16, MmaElem::F32, in);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "register vectors of the wrong size");
}

class MmaModelDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(MmaModelDeathTest, EntryPointChecksKindAndLaunch) {
  int32_t a[4] = {}, b[2] = {};
  float c[4] = {}, d[4] = {};
  EXPECT_EXIT(stc_emu_mma(7, a, b, c, d), ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: mma of unknown input_kind 7");
  EXPECT_EXIT(stc_emu_mma(STC_EMU_MMA_M16N8K16_F32_F16, a, b, c, d),
              ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: mma called outside stc_emu_launch");
}

} // namespace
