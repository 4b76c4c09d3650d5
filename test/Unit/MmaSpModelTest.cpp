//===- MmaSpModelTest.cpp - the mma.sp model against a dense product ------===//
//
// Tests of test/Unit/MmaSpModel: for every shape and type the model supports,
// seeded random 16xK sparse A tiles with non-uniform metadata (all six 2:4
// nibbles, both 1:2 nibbles), random B and C, every legal sparsity selector,
// compared with a float64 (exact for integers) dense reference.
//
// The registers are built here from the matrix side: for each matrix cell,
// which lane, register and position hold it (and for each metadata chunk,
// which lane and bits), in closed forms that are the inverse of the ISA
// tables the model transcribes.  The two directions are written separately
// so that a slip in one does not hide in the other.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaSpModel.h"
#include "test/Unit/TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace stc::format;
using namespace stc::emu;

using stc::test::bitsOf;
using stc::test::floatOf;

namespace {

//===----------------------------------------------------------------------===//
// Register locations, matrix side -> register side
//===----------------------------------------------------------------------===//

/// A place in the warp's registers: lane, register, element within it.
struct Loc {
  int lane;
  int reg;
  int slot;
};

/// Elements per 32-bit register of A and B for a shape.
int perReg(MmaSpShape s) { return 32 / getMmaSpShapeInfo(s).elementBits; }

/// Compressed A element (row, cc) of the 16 x k/2 stored tile.  Every shape
/// stores its compressed tile like a dense A fragment: 8-row x (4 * perReg)
/// column blocks, rows 0-7 before rows 8-15, the four lanes of a quad
/// side by side along the row.
Loc locA(MmaSpShape s, int row, int cc) {
  int e = perReg(s);
  return {4 * (row % 8) + (cc % (4 * e)) / e, row / 8 + 2 * (cc / (4 * e)),
          cc % e};
}

/// B element (k, n): column n belongs to quad n; K runs through the quad's
/// lanes in runs of perReg, then to the next register.
Loc locB(MmaSpShape s, int k, int n) {
  int e = perReg(s);
  return {4 * n + (k % (4 * e)) / e, k / (4 * e), k % e};
}

/// C/D element (m, n).
Loc locC(bool f16, int m, int n) {
  int lane = 4 * (m % 8) + n / 2;
  if (f16)
    return {lane, m / 8, n % 2};
  return {lane, 2 * (m / 8) + n % 2, 0};
}

/// Lane and lowest bit of the nibble for chunk `chunk` of row `row` under
/// selector f.
struct MetaLoc {
  int lane;
  int bit;
};
MetaLoc locMeta(MmaSpShape s, int row, int chunk, int f) {
  int quadBase = 4 * (row % 8);
  switch (s) {
  case MmaSpShape::M16N8K16B16:
  case MmaSpShape::M16N8K8TF32:
    return {quadBase + f, 16 * (row / 8) + 4 * chunk};
  case MmaSpShape::M16N8K32B16:
  case MmaSpShape::M16N8K16TF32:
    return {quadBase + 2 * f + chunk / 4, 16 * (row / 8) + 4 * (chunk % 4)};
  case MmaSpShape::M16N8K32I8:
    return {quadBase + 2 * f + row / 8, 4 * chunk};
  case MmaSpShape::M16N8K64I8:
    return {quadBase + 2 * (chunk / 8) + row / 8, 4 * (chunk % 8)};
  }
  return {0, 0};
}

void put(std::vector<uint32_t> &regs, int nregs, Loc at, int bits,
         uint32_t value) {
  uint32_t &r = regs[size_t(at.lane * nregs + at.reg)];
  if (bits == 32) {
    r = value;
    return;
  }
  uint32_t mask = ((1u << bits) - 1) << (bits * at.slot);
  r = (r & ~mask) | ((value << (bits * at.slot)) & mask);
}

uint32_t get(const std::vector<uint32_t> &regs, int nregs, Loc at, int bits) {
  uint32_t r = regs[size_t(at.lane * nregs + at.reg)];
  return bits == 32 ? r : (r >> (bits * at.slot)) & ((1u << bits) - 1);
}

//===----------------------------------------------------------------------===//
// Random tiles
//===----------------------------------------------------------------------===//

const std::vector<unsigned> kLegal24 = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
const std::vector<unsigned> kLegal12 = {0x4, 0xE};

/// A random non-zero element of type t: its register bits and exact value.
struct Elem {
  uint32_t bits;
  double value;
};
Elem randomElem(std::mt19937 &rng, MmaElem t) {
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  for (;;) {
    switch (t) {
    case MmaElem::F16: {
      uint16_t b = floatToF16(real(rng));
      if (f16ToFloat(b) != 0.0f)
        return {b, f16ToFloat(b)};
      break;
    }
    case MmaElem::BF16: {
      uint16_t b = floatToBF16(real(rng));
      if (bf16ToFloat(b) != 0.0f)
        return {b, bf16ToFloat(b)};
      break;
    }
    case MmaElem::TF32:
    case MmaElem::F32: {
      // tf32-exact values (low 13 bits zero) for both, so that the
      // reference needs no rounding model.
      uint32_t b = bitsOf(real(rng)) & 0xFFFFE000u;
      if (floatOf(b) != 0.0f)
        return {b, floatOf(b)};
      break;
    }
    case MmaElem::S8: {
      int v = std::uniform_int_distribution<int>(-128, 127)(rng);
      if (v != 0)
        return {uint32_t(uint8_t(int8_t(v))), double(v)};
      break;
    }
    case MmaElem::U8: {
      int v = std::uniform_int_distribution<int>(1, 255)(rng);
      return {uint32_t(v), double(v)};
    }
    case MmaElem::S32: {
      int v = std::uniform_int_distribution<int>(-100000, 100000)(rng);
      return {uint32_t(v), double(v)};
    }
    }
  }
}

int bitsOfElem(MmaElem t) {
  switch (t) {
  case MmaElem::F16:
  case MmaElem::BF16:
    return 16;
  case MmaElem::S8:
  case MmaElem::U8:
    return 8;
  default:
    return 32;
  }
}

/// One random problem: registers plus the dense matrices they encode.
struct Problem {
  MmaSpFragments frags;
  std::vector<double> a;      // 16 x K dense (zeros where pruned)
  std::vector<double> b;      // K x 8
  std::vector<double> c;      // 16 x 8
  std::vector<double> absSum; // 16 x 8: |c| + sum |a*b|, for tolerances
  std::set<unsigned> nibblesUsed;
};

/// A random problem for `instr` whose metadata is placed for selector f.
/// The metadata registers of the lanes f does not select get random bits
/// (illegal nibbles included) unless `legalElsewhere`, then random legal
/// nibbles.
Problem makeProblem(const MmaSpInstr &instr, int f, std::mt19937 &rng,
                    bool legalElsewhere = false) {
  const MmaSpShapeInfo info = getMmaSpShapeInfo(instr.shape);
  const bool tf32 = info.pattern == kPattern12;
  const int k = info.k, chunkWidth = tf32 ? 2 : 4, kept = tf32 ? 1 : 2;
  const int chunks = k / chunkWidth;
  const std::vector<unsigned> &legal = tf32 ? kLegal12 : kLegal24;
  const int aRegs = mmaSpARegs(instr), bRegs = mmaSpBRegs(instr),
            cRegs = mmaSpCRegs(instr);

  Problem p;
  p.frags.a.assign(size_t(32 * aRegs), 0);
  p.frags.b.assign(size_t(32 * bRegs), 0);
  p.frags.c.assign(size_t(32 * cRegs), 0);
  p.a.assign(size_t(16 * k), 0.0);
  p.b.assign(size_t(k * 8), 0.0);
  p.c.assign(16 * 8, 0.0);

  // Nibbles: random, with every legal value forced onto some chunk.
  std::vector<unsigned> nib(size_t(16 * chunks));
  std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
  for (unsigned &n : nib)
    n = legal[pick(rng)];
  std::vector<size_t> cells(nib.size());
  std::iota(cells.begin(), cells.end(), 0);
  std::shuffle(cells.begin(), cells.end(), rng);
  for (size_t i = 0; i < legal.size(); ++i)
    nib[cells[i]] = legal[i];

  // Unselected lanes first, so that the selected nibbles overwrite them.
  std::uniform_int_distribution<uint32_t> any;
  for (uint32_t &e : p.frags.e) {
    e = any(rng);
    if (legalElsewhere) {
      e = 0;
      for (int q = 0; q < 8; ++q)
        e |= uint32_t(legal[pick(rng)]) << (4 * q);
    }
  }
  std::vector<bool> laneSelected(32, false);
  for (int row = 0; row < 16; ++row)
    for (int ch = 0; ch < chunks; ++ch) {
      MetaLoc at = locMeta(instr.shape, row, ch, f);
      if (!laneSelected[size_t(at.lane)]) {
        laneSelected[size_t(at.lane)] = true;
        p.frags.e[size_t(at.lane)] = 0;
      }
      unsigned n = nib[size_t(row * chunks + ch)];
      p.frags.e[size_t(at.lane)] |= uint32_t(n) << at.bit;
      p.nibblesUsed.insert(n);
      // The kept positions, low index bits first.
      int idx[2] = {int(n & 3), int(n >> 2)};
      if (tf32)
        idx[0] = n == 0x4 ? 0 : 1;
      for (int j = 0; j < kept; ++j) {
        Elem v = randomElem(rng, instr.a);
        int cc = ch * kept + j;
        put(p.frags.a, aRegs, locA(instr.shape, row, cc), bitsOfElem(instr.a),
            v.bits);
        p.a[size_t(row * k + ch * chunkWidth + idx[j])] = v.value;
      }
    }

  for (int kk = 0; kk < k; ++kk)
    for (int n = 0; n < 8; ++n) {
      Elem v = randomElem(rng, instr.b);
      put(p.frags.b, bRegs, locB(instr.shape, kk, n), bitsOfElem(instr.b),
          v.bits);
      p.b[size_t(kk * 8 + n)] = v.value;
    }
  const bool f16Acc = instr.c == MmaElem::F16;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      Elem v = randomElem(rng, f16Acc ? MmaElem::F16 : instr.c);
      put(p.frags.c, cRegs, locC(f16Acc, m, n), f16Acc ? 16 : 32, v.bits);
      p.c[size_t(m * 8 + n)] = v.value;
    }

  p.absSum.assign(16 * 8, 0.0);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double s = std::fabs(p.c[size_t(m * 8 + n)]);
      for (int kk = 0; kk < k; ++kk)
        s += std::fabs(p.a[size_t(m * k + kk)] * p.b[size_t(kk * 8 + n)]);
      p.absSum[size_t(m * 8 + n)] = s;
    }
  return p;
}

/// D = A B + C in float64.
std::vector<double> reference(const Problem &p, int k) {
  std::vector<double> d(16 * 8);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double s = p.c[size_t(m * 8 + n)];
      for (int kk = 0; kk < k; ++kk)
        s += p.a[size_t(m * k + kk)] * p.b[size_t(kk * 8 + n)];
      d[size_t(m * 8 + n)] = s;
    }
  return d;
}

/// Element (m, n) of the model's D as double.
double dValue(const MmaSpInstr &instr, const std::vector<uint32_t> &d, int m,
              int n) {
  const bool f16Acc = instr.c == MmaElem::F16;
  uint32_t bits =
      get(d, mmaSpCRegs(instr), locC(f16Acc, m, n), f16Acc ? 16 : 32);
  if (instr.c == MmaElem::S32)
    return double(int32_t(bits));
  if (f16Acc)
    return f16ToFloat(uint16_t(bits));
  return floatOf(bits);
}

/// Number of D elements outside the tolerance (exact for s32; float
/// accumulation error for f32; plus one f16 rounding for f16).
int countMismatches(const MmaSpInstr &instr, const Problem &p,
                    const std::vector<uint32_t> &d) {
  int k = getMmaSpShapeInfo(instr.shape).k;
  std::vector<double> ref = reference(p, k);
  int bad = 0;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      double got = dValue(instr, d, m, n), want = ref[size_t(m * 8 + n)];
      double tol = 0.0;
      if (instr.c == MmaElem::F32)
        tol = 1e-5 * p.absSum[size_t(m * 8 + n)];
      else if (instr.c == MmaElem::F16)
        tol = 1e-3 * p.absSum[size_t(m * 8 + n)];
      if (!(std::fabs(got - want) <= tol)) {
        if (bad < 3)
          ADD_FAILURE() << mmaSpInstrName(instr) << " D[" << m << "][" << n
                        << "] = " << got << ", want " << want;
        ++bad;
      }
    }
  return bad;
}

/// Runs `instr` for every legal selector on `seeds` random problems.
void checkAgainstReference(const MmaSpInstr &instr, int seeds = 4) {
  SCOPED_TRACE(mmaSpInstrName(instr));
  const MmaSpShapeInfo info = getMmaSpShapeInfo(instr.shape);
  std::mt19937 rng(1234u + unsigned(instr.shape) * 31u + unsigned(instr.a));
  std::set<unsigned> nibbles;
  for (int f = 0; f < info.numSelectors; ++f)
    for (int seed = 0; seed < seeds; ++seed) {
      SCOPED_TRACE("selector " + std::to_string(f));
      Problem p = makeProblem(instr, f, rng);
      nibbles.insert(p.nibblesUsed.begin(), p.nibblesUsed.end());
      MmaSpResult r = runMmaSp(instr, p.frags, f);
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_EQ(countMismatches(instr, p, r.d), 0);
    }
  EXPECT_EQ(nibbles.size(),
            info.pattern == kPattern12 ? kLegal12.size() : kLegal24.size());
}

const MmaElem kF16 = MmaElem::F16, kBF16 = MmaElem::BF16, kTF32 = MmaElem::TF32,
              kS8 = MmaElem::S8, kU8 = MmaElem::U8, kF32 = MmaElem::F32,
              kS32 = MmaElem::S32;

} // namespace

//===----------------------------------------------------------------------===//
// Against the dense reference
//===----------------------------------------------------------------------===//

// m16n8k16 with f16 (f32 and f16 accumulators) and bf16, F in 0..3.
TEST(MmaSpModel, M16N8K16B16) {
  checkAgainstReference({MmaSpShape::M16N8K16B16, kF16, kF16, kF32});
  checkAgainstReference({MmaSpShape::M16N8K16B16, kF16, kF16, kF16});
  checkAgainstReference({MmaSpShape::M16N8K16B16, kBF16, kBF16, kF32});
}

// m16n8k32 with f16 (f32 and f16 accumulators) and bf16, F in 0..1.
TEST(MmaSpModel, M16N8K32B16) {
  checkAgainstReference({MmaSpShape::M16N8K32B16, kF16, kF16, kF32});
  checkAgainstReference({MmaSpShape::M16N8K32B16, kF16, kF16, kF16});
  checkAgainstReference({MmaSpShape::M16N8K32B16, kBF16, kBF16, kF32});
}

// tf32 1:2, F in 0..3 (k8) and 0..1 (k16).
TEST(MmaSpModel, M16N8K8TF32) {
  checkAgainstReference({MmaSpShape::M16N8K8TF32, kTF32, kTF32, kF32});
}

TEST(MmaSpModel, M16N8K16TF32) {
  checkAgainstReference({MmaSpShape::M16N8K16TF32, kTF32, kTF32, kF32});
}

// int8, all four signedness combinations, exact.
TEST(MmaSpModel, M16N8K32I8) {
  for (MmaElem a : {kS8, kU8})
    for (MmaElem b : {kS8, kU8})
      checkAgainstReference({MmaSpShape::M16N8K32I8, a, b, kS32});
}

TEST(MmaSpModel, M16N8K64I8) {
  for (MmaElem a : {kS8, kU8})
    for (MmaElem b : {kS8, kU8})
      checkAgainstReference({MmaSpShape::M16N8K64I8, a, b, kS32});
}

//===----------------------------------------------------------------------===//
// Hand-checked semantics
//===----------------------------------------------------------------------===//

// A single non-zero chunk: each legal nibble sends the chunk's two stored
// values to dense columns (bits 1:0) and (bits 3:2), and nothing else moves.
TEST(MmaSpModel, NibblePicksDenseColumns) {
  const MmaSpInstr instr{MmaSpShape::M16N8K32B16, kF16, kF16, kF32};
  const int row = 11, chunk = 5; // row g+8 of quad 3, second K half
  for (unsigned nibble : kLegal24) {
    MmaSpFragments fr;
    fr.a.assign(32 * 4, 0);
    fr.b.assign(32 * 4, 0);
    fr.c.assign(32 * 4, 0);
    fr.e.fill(0x44444444u);
    MetaLoc at = locMeta(instr.shape, row, chunk, 0);
    fr.e[size_t(at.lane)] &= ~(0xFu << at.bit);
    fr.e[size_t(at.lane)] |= nibble << at.bit;
    put(fr.a, 4, locA(instr.shape, row, 2 * chunk), 16, floatToF16(1.0f));
    put(fr.a, 4, locA(instr.shape, row, 2 * chunk + 1), 16, floatToF16(2.0f));
    // B(k, n) = k + 32 * n: the result names the columns that were used.
    for (int k = 0; k < 32; ++k)
      for (int n = 0; n < 8; ++n)
        put(fr.b, 4, locB(instr.shape, k, n), 16,
            floatToF16(float(k + 32 * n)));
    MmaSpResult r = runMmaSp(instr, fr, 0);
    ASSERT_TRUE(r.ok) << r.error;
    int c0 = 4 * chunk + int(nibble & 3), c1 = 4 * chunk + int(nibble >> 2);
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        double want =
            m == row ? 1.0 * (c0 + 32 * n) + 2.0 * (c1 + 32 * n) : 0.0;
        EXPECT_EQ(dValue(instr, r.d, m, n), want)
            << "nibble " << nibble << " m " << m << " n " << n;
      }
  }
}

// tf32: 0x4 keeps element 0 of the pair, 0xE element 1.
TEST(MmaSpModel, Tf32NibblePicksPairElement) {
  const MmaSpInstr instr{MmaSpShape::M16N8K8TF32, kTF32, kTF32, kF32};
  const int row = 6, chunk = 3;
  for (unsigned nibble : kLegal12) {
    MmaSpFragments fr;
    fr.a.assign(32 * 2, 0);
    fr.b.assign(32 * 2, 0);
    fr.c.assign(32 * 4, 0);
    fr.e.fill(0x44444444u);
    MetaLoc at = locMeta(instr.shape, row, chunk, 2);
    fr.e[size_t(at.lane)] &= ~(0xFu << at.bit);
    fr.e[size_t(at.lane)] |= nibble << at.bit;
    put(fr.a, 2, locA(instr.shape, row, chunk), 32, bitsOf(1.0f));
    for (int k = 0; k < 8; ++k)
      for (int n = 0; n < 8; ++n)
        put(fr.b, 2, locB(instr.shape, k, n), 32, bitsOf(float(k + 8 * n)));
    MmaSpResult r = runMmaSp(instr, fr, 2);
    ASSERT_TRUE(r.ok) << r.error;
    int col = 2 * chunk + (nibble == 0x4 ? 0 : 1);
    for (int n = 0; n < 8; ++n)
      EXPECT_EQ(dValue(instr, r.d, row, n), double(col + 8 * n));
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// Every illegal nibble in a selected lane is rejected, for every shape.
TEST(MmaSpModel, RejectsIllegalNibbles) {
  const MmaSpInstr instrs[] = {{MmaSpShape::M16N8K16B16, kF16, kF16, kF32},
                               {MmaSpShape::M16N8K32B16, kBF16, kBF16, kF32},
                               {MmaSpShape::M16N8K8TF32, kTF32, kTF32, kF32},
                               {MmaSpShape::M16N8K16TF32, kTF32, kTF32, kF32},
                               {MmaSpShape::M16N8K32I8, kS8, kS8, kS32},
                               {MmaSpShape::M16N8K64I8, kU8, kS8, kS32}};
  std::mt19937 rng(7);
  for (const MmaSpInstr &instr : instrs) {
    SCOPED_TRACE(mmaSpInstrName(instr));
    const MmaSpShapeInfo info = getMmaSpShapeInfo(instr.shape);
    const bool tf32 = info.pattern == kPattern12;
    const std::vector<unsigned> &legal = tf32 ? kLegal12 : kLegal24;
    const int chunks = info.k / (tf32 ? 2 : 4);
    int f = info.numSelectors - 1;
    for (unsigned nibble = 0; nibble < 16; ++nibble) {
      if (std::count(legal.begin(), legal.end(), nibble))
        continue;
      Problem p = makeProblem(instr, f, rng, /*legalElsewhere=*/true);
      int row = std::uniform_int_distribution<int>(0, 15)(rng);
      int chunk = std::uniform_int_distribution<int>(0, chunks - 1)(rng);
      MetaLoc at = locMeta(instr.shape, row, chunk, f);
      p.frags.e[size_t(at.lane)] &= ~(0xFu << at.bit);
      p.frags.e[size_t(at.lane)] |= nibble << at.bit;
      MmaSpResult r = runMmaSp(instr, p.frags, f);
      EXPECT_FALSE(r.ok) << "nibble " << nibble << " accepted";
      EXPECT_NE(r.error.find("illegal metadata nibble"), std::string::npos)
          << r.error;
    }
  }
}

// The lanes the selector does not pick may hold anything, illegal nibbles
// included (makeProblem fills them with random bits); all-zero words there
// are accepted too and give the same result.
TEST(MmaSpModel, IgnoresUnselectedLanes) {
  const MmaSpInstr instr{MmaSpShape::M16N8K32B16, kF16, kF16, kF32};
  std::mt19937 rng(11);
  for (int f = 0; f < 2; ++f) {
    Problem p = makeProblem(instr, f, rng);
    MmaSpResult r1 = runMmaSp(instr, p.frags, f);
    ASSERT_TRUE(r1.ok) << r1.error;
    for (int lane = 0; lane < 32; ++lane)
      if ((lane % 4) / 2 != f)
        p.frags.e[size_t(lane)] = 0;
    MmaSpResult r2 = runMmaSp(instr, p.frags, f);
    ASSERT_TRUE(r2.ok) << r2.error;
    EXPECT_EQ(r1.d, r2.d);
  }
}

TEST(MmaSpModel, RejectsBadSelectorTypesAndSizes) {
  std::mt19937 rng(3);
  const MmaSpInstr k32{MmaSpShape::M16N8K32B16, kF16, kF16, kF32};
  Problem p = makeProblem(k32, 0, rng);
  EXPECT_FALSE(runMmaSp(k32, p.frags, 2).ok);
  EXPECT_FALSE(runMmaSp(k32, p.frags, -1).ok);
  const MmaSpInstr k64{MmaSpShape::M16N8K64I8, kS8, kS8, kS32};
  Problem q = makeProblem(k64, 0, rng);
  EXPECT_TRUE(runMmaSp(k64, q.frags, 0).ok);
  EXPECT_FALSE(runMmaSp(k64, q.frags, 1).ok);
  // bf16 has no f16 accumulator form; tf32 and int8 need their own shapes.
  EXPECT_FALSE(
      runMmaSp({MmaSpShape::M16N8K32B16, kBF16, kBF16, kF16}, p.frags, 0).ok);
  EXPECT_FALSE(
      runMmaSp({MmaSpShape::M16N8K32B16, kS8, kS8, kS32}, p.frags, 0).ok);
  EXPECT_FALSE(
      runMmaSp({MmaSpShape::M16N8K32I8, kF16, kF16, kF32}, p.frags, 0).ok);
  p.frags.a.pop_back();
  EXPECT_FALSE(runMmaSp(k32, p.frags, 0).ok);
}

// The comparison can fail: metadata placed for one selector but executed
// with another (other lanes holding legal metadata) gives wrong results.
TEST(MmaSpModel, WrongSelectorIsDetected) {
  std::mt19937 rng(5);
  const MmaSpInstr instrs[] = {{MmaSpShape::M16N8K16B16, kF16, kF16, kF32},
                               {MmaSpShape::M16N8K32B16, kF16, kF16, kF32},
                               {MmaSpShape::M16N8K8TF32, kTF32, kTF32, kF32},
                               {MmaSpShape::M16N8K16TF32, kTF32, kTF32, kF32},
                               {MmaSpShape::M16N8K32I8, kS8, kS8, kS32}};
  for (const MmaSpInstr &instr : instrs) {
    SCOPED_TRACE(mmaSpInstrName(instr));
    Problem p = makeProblem(instr, 0, rng, /*legalElsewhere=*/true);
    MmaSpResult r = runMmaSp(instr, p.frags, 1);
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<double> ref = reference(p, getMmaSpShapeInfo(instr.shape).k);
    int bad = 0;
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n)
        if (std::fabs(dValue(instr, r.d, m, n) - ref[size_t(m * 8 + n)]) >
            1e-3 * p.absSum[size_t(m * 8 + n)])
          ++bad;
    // Most of the 128 elements are wrong.
    EXPECT_GT(bad, 64);
  }
}
