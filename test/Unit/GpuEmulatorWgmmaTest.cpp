//===- GpuEmulatorWgmmaTest.cpp - the emulator's wgmma.mma_async.sp -------===//
//
// stc_emu_wgmma_sp (stc_gpu_emulator.h) driven the way an sm_90a kernel
// drives it: stc_emu_launch runs a block of 128 threads (one warpgroup) and
// every thread packs its own A registers and metadata word, builds the B
// descriptor and calls stc_emu_wgmma_sp once per K step (two K steps of
// K = 32 with sp-sel 0 and 1, one kernel-ready metadata word serving both).
//
// A is a seeded random 64 x 64 2:4-sparse matrix (all six legal nibbles),
// B (64 x N) lies in a 256 KiB aligned buffer standing for shared memory,
// in the 128-byte swizzled K-major (or N-major) layout, at a non-zero
// shared address; registers, metadata words, offsets and descriptors come
// from runtime/format/StcHopperLayout.h. D is read with the accumulator
// table of the ISA (9.7.15.5.1.1) and compared with a float64 dense product
// (values are multiples of 1/8, so every sum is exact in float).  A
// descriptor with the wrong swizzle must give a mismatch.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/stc_gpu_emulator.h"
#include "runtime/format/StcHopperLayout.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <vector>

using namespace stc::format;

namespace {

constexpr int kM = 64, kK = 64, kSteps = 2;
constexpr size_t kWindow = 256 * 1024;
constexpr uint32_t kBBase = 2048; // shared address of the B tile

/// The six legal 2:4 nibbles: kept indices i0 < i1 as i0 | i1 << 2.
constexpr std::array<unsigned, 6> kNibbles = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};

uint16_t toHalfBits(float v, bool bf16) {
  uint32_t f;
  std::memcpy(&f, &v, 4);
  if (bf16)
    return uint16_t(f >> 16); // exact for the values used
  if (v == 0)
    return uint16_t((f >> 16) & 0x8000);
  uint32_t sign = (f >> 16) & 0x8000, exp = (f >> 23) & 0xFF;
  return uint16_t(sign | ((exp - 127 + 15) << 10) | ((f >> 13) & 0x3FF));
}

struct Problem {
  int n = 64;
  bool bf16 = false;
  bool transB = false;
  bool scaleD = true; // scale-d of the first K step (the second accumulates)
  int scaleA = 1, scaleB = 1;
  bool wrongSwizzle = false;
  bool illegalNibble = false; // row 0, group 0 gets nibble 0x1

  // Inputs.
  std::vector<double> aDense = std::vector<double>(kM * kK, 0.0);
  std::vector<uint16_t> aComp = std::vector<uint16_t>(kM * kK / 2, 0);
  std::vector<uint16_t> meta = std::vector<uint16_t>(kM * 4, 0);
  std::vector<double> b;
  std::vector<float> c; // 64 x n
  HopperSmemTile tile;
  uint8_t *smem = nullptr;
  std::set<unsigned> nibblesUsed;
  // Per thread: D registers after the two K steps.
  std::vector<float> d;
};

int dRow(int tid, int v) {
  return 16 * (tid / 32) + (tid % 32) / 4 + 8 * ((v >> 1) & 1);
}
int dCol(int tid, int v) { return 8 * (v >> 2) + 2 * (tid % 4) + (v & 1); }

void kernel(int64_t *params, int32_t tid, int32_t, int32_t) {
  auto *p = reinterpret_cast<Problem *>(params[0]);
  const int dRegs = p->n / 2;
  std::vector<float> d(static_cast<size_t>(dRegs));
  for (int v = 0; v < dRegs; ++v)
    d[size_t(v)] = p->c[size_t(dRow(tid, v) * p->n + dCol(tid, v))];
  // The kernel-ready metadata word of this thread (one block = 2 K steps).
  WgmmaSpMetaHalf h[2];
  wgmmaSpMetaWordSources(WgmmaSpType::B16, tid, h);
  uint32_t meta = uint32_t(p->meta[size_t(h[0].row * 4 + h[0].word)]) |
                  uint32_t(p->meta[size_t(h[1].row * 4 + h[1].word)]) << 16;
  for (int ks = 0; ks < kSteps; ++ks) {
    int32_t a[4] = {0, 0, 0, 0};
    for (int i = 0; i < wgmmaSpAElementsPerThread(WgmmaSpType::B16); ++i) {
      WgmmaCell cell = wgmmaSpAElement(WgmmaSpType::B16, tid, i);
      uint32_t v = p->aComp[size_t(cell.row * (kK / 2) + ks * 16 + cell.col)];
      a[i / 2] = int32_t(uint32_t(a[i / 2]) | v << (16 * (i % 2)));
    }
    uint64_t desc = hopperSmemDescriptor(p->tile, kBBase, ks * 32);
    if (p->wrongSwizzle)
      desc = (desc & ~(uint64_t(3) << 62)) |
             uint64_t(unsigned(HopperSwizzle::None)) << 62;
    stc_emu_wgmma_sp(p->bf16 ? 1 : 0, p->n, a, int64_t(desc), int32_t(meta),
                     wgmmaSpSelector(WgmmaSpType::B16, ks),
                     ks > 0 || p->scaleD ? 1 : 0, p->scaleA, p->scaleB,
                     p->transB ? 1 : 0, p->smem, int64_t(kWindow), d.data());
  }
  std::memcpy(&p->d[size_t(tid * dRegs)], d.data(), size_t(dRegs) * 4);
}

struct AlignedFree {
  void operator()(uint8_t *p) const { std::free(p); }
};

/// Builds the problem, runs it in the emulator and returns the number of
/// mismatching D elements.
int runProblem(Problem &p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> eighths(-16, 16), pick(0, 5);
  auto value = [&] { return eighths(rng) / 8.0; };
  // A: 2:4 along K, nibbles in turn first (all six appear), then random.
  int count = 0;
  for (int r = 0; r < kM; ++r)
    for (int g = 0; g < kK / 4; ++g) {
      unsigned nib = kNibbles[size_t(count < 12 ? count % 6 : pick(rng))];
      ++count;
      p.nibblesUsed.insert(nib);
      int i0 = int(nib & 3), i1 = int(nib >> 2);
      double v0 = value(), v1 = value();
      p.aDense[size_t(r * kK + 4 * g + i0)] = v0;
      p.aDense[size_t(r * kK + 4 * g + i1)] = v1;
      p.aComp[size_t(r * (kK / 2) + 2 * g)] = toHalfBits(float(v0), p.bf16);
      p.aComp[size_t(r * (kK / 2) + 2 * g + 1)] = toHalfBits(float(v1), p.bf16);
      p.meta[size_t(r * 4 + g / 4)] |= uint16_t(nib << (4 * (g % 4)));
    }
  if (p.illegalNibble)
    p.meta[0] = uint16_t((p.meta[0] & ~0xFu) | 0x1u);
  // B in "shared memory".
  std::unique_ptr<uint8_t, AlignedFree> buf(
      static_cast<uint8_t *>(std::aligned_alloc(kWindow, kWindow)));
  std::memset(buf.get(), 0, kWindow);
  p.smem = buf.get();
  p.tile = {HopperSwizzle::B128, p.transB, 16, p.n, kK};
  EXPECT_EQ(hopperSmemTileError(p.tile), "");
  EXPECT_EQ(kBBase % hopperSmemBaseAlignment(p.tile), 0u);
  p.b.assign(size_t(kK * p.n), 0.0);
  for (int k = 0; k < kK; ++k)
    for (int col = 0; col < p.n; ++col) {
      double v = value();
      p.b[size_t(k * p.n + col)] = v;
      uint16_t bits = toHalfBits(float(v), p.bf16);
      std::memcpy(buf.get() + kBBase + hopperSmemOffset(p.tile, col, k), &bits,
                  2);
    }
  p.c.assign(size_t(kM * p.n), 0.0f);
  for (float &x : p.c)
    x = float(value());
  p.d.assign(size_t(128 * p.n / 2), 0.0f);

  int64_t params[1] = {int64_t(reinterpret_cast<intptr_t>(&p))};
  stc_emu_launch(kernel, 1, 1, 128, params, "wgmma_test");

  int mismatches = 0;
  for (int tid = 0; tid < 128; ++tid)
    for (int v = 0; v < p.n / 2; ++v) {
      int row = dRow(tid, v), col = dCol(tid, v);
      double ref = p.scaleD ? p.c[size_t(row * p.n + col)] : 0.0;
      for (int k = 0; k < kK; ++k)
        ref += p.scaleA * p.aDense[size_t(row * kK + k)] * p.scaleB *
               p.b[size_t(k * p.n + col)];
      double got = p.d[size_t(tid * p.n / 2 + v)];
      if (!(std::fabs(got - ref) <= 1e-6))
        ++mismatches;
    }
  return mismatches;
}

TEST(GpuEmulatorWgmma, F16KMajorN64) {
  Problem p;
  EXPECT_EQ(runProblem(p, 1), 0);
  EXPECT_EQ(p.nibblesUsed.size(), 6u);
}

TEST(GpuEmulatorWgmma, Bf16N256ScaleDZeroNegated) {
  Problem p;
  p.n = 256;
  p.bf16 = true;
  p.scaleD = false;
  p.scaleA = -1;
  EXPECT_EQ(runProblem(p, 2), 0);
}

TEST(GpuEmulatorWgmma, F16NMajorTransB) {
  Problem p;
  p.transB = true;
  p.scaleB = -1;
  EXPECT_EQ(runProblem(p, 3), 0);
}

TEST(GpuEmulatorWgmma, WrongSwizzleMismatches) {
  Problem p;
  p.wrongSwizzle = true;
  EXPECT_GT(runProblem(p, 4), 0);
}

TEST(GpuEmulatorWgmmaDeathTest, ModelErrorIsReported) {
  // An illegal metadata nibble in a thread the selector reads: the model's
  // error is reported and the emulation stops (no crash, no result).
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Problem p;
        p.illegalNibble = true;
        runProblem(p, 5);
      },
      ::testing::ExitedWithCode(1),
      "stc-gpu-emulator: error: "
      "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16: .*");
}

} // namespace
