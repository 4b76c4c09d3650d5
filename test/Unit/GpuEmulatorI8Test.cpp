//===- GpuEmulatorI8Test.cpp - the emulator's int8 mma.sp kinds -----------===//
//
// stc_emu_mma_sp with the integer input kinds (stc_gpu_emulator.h: 4..11,
// m16n8k64 and m16n8k32 with s8/u8 A and B, s32 accumulators), driven the
// way generated kernels drive it: stc_emu_launch runs a block of two warps,
// every thread calls stc_emu_mma_sp for its lane, once per case, so the
// rendezvous is exercised with changing shapes and register counts.
//
// Each case is a seeded random 16 x K 2:4-sparse A (non-uniform metadata,
// all six legal nibbles), random B (K x 8) and C (full int32 range, so that
// some sums wrap), and the expected D is a dense int64 product taken modulo
// 2^32.  The registers are packed here from the matrix side, from the PTX
// ISA fragment tables of mma.sp m16n8k64/m16n8k32 .s8/.u8 (9.7.14.6.2.5-6,
// B and C/D from 9.7.14.5.10) and the metadata mapping of
// docs/GPU-LAYOUT.md, written independently of runtime/emulator/MmaSpModel.
// A kind mapped to the wrong shape, signedness or accumulator fails here.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/stc_gpu_emulator.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

/// The six legal ordered 2:4 nibbles: kept indices i0 < i1 as i0 | i1 << 2.
constexpr std::array<unsigned, 6> kNibbles = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};

/// One mma.sp of a warp: inputs per lane, the expected and the emulated D.
struct Case {
  int kind = 0;
  int selector = 0;
  int k = 64;
  bool aU8 = false, bU8 = false;
  // Lane-major, 4 words per lane (A and B use 2 for k = 32).
  std::vector<int32_t> a = std::vector<int32_t>(32 * 4, 0);
  std::vector<int32_t> b = std::vector<int32_t>(32 * 4, 0);
  std::vector<int32_t> c = std::vector<int32_t>(32 * 4, 0);
  std::array<int32_t, 32> e{};
  std::vector<int32_t> expected = std::vector<int32_t>(32 * 4, 0);
  std::vector<int32_t> d = std::vector<int32_t>(32 * 4, 0);
  std::set<unsigned> nibblesUsed;
};

/// Puts byte `value` in element `slot` (bits 8*slot+7 .. 8*slot) of `word`.
void putByte(int32_t &word, int slot, uint8_t value) {
  uint32_t w = static_cast<uint32_t>(word);
  w &= ~(0xFFu << (8 * slot));
  w |= uint32_t(value) << (8 * slot);
  word = static_cast<int32_t>(w);
}

int32_t valueOf(uint8_t byte, bool u8) {
  return u8 ? int32_t(byte) : int32_t(int8_t(byte));
}

/// Kind number -> (k, aU8, bU8), as the header documents it.
Case makeCase(int kind, int selector, std::mt19937 &rng) {
  Case cs;
  cs.kind = kind;
  cs.selector = selector;
  cs.k = kind % 2 ? 32 : 64;
  int types = (kind - 4) / 2; // s8.s8, u8.u8, s8.u8, u8.s8
  cs.aU8 = types == 1 || types == 3;
  cs.bU8 = types == 1 || types == 2;
  const int k = cs.k, chunks = k / 4, aRegs = k / 16, bRegs = k / 16;
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> pick(0, 5);
  std::uniform_int_distribution<int64_t> word(INT32_MIN, INT32_MAX);

  // Metadata registers: lanes the selector does not read get illegal
  // nibbles (0x1), which must be ignored.
  for (int32_t &e : cs.e)
    e = 0x11111111;
  std::vector<int32_t> aDense(size_t(16 * k), 0);
  for (int r = 0; r < 16; ++r)
    for (int ch = 0; ch < chunks; ++ch) {
      unsigned nibble = kNibbles[size_t(pick(rng))];
      cs.nibblesUsed.insert(nibble);
      int kept[2] = {int(nibble & 3), int(nibble >> 2)};
      // Metadata: m16n8k64: thread t of the quad holds row g + 8 (t % 2),
      // chunks 8 (t / 2) .. + 7; m16n8k32: threads 2F, 2F + 1 hold rows g,
      // g + 8, chunks 0..7.  Chunk p of a register in bits 4p+3..4p.
      int t = k == 64 ? (r / 8) + 2 * (ch / 8) : 2 * selector + r / 8;
      int lane = 4 * (r % 8) + t;
      int p = ch % 8;
      // (All 8 nibbles of a read lane are written, replacing the 0x1s.)
      uint32_t e = static_cast<uint32_t>(cs.e[size_t(lane)]);
      e = (e & ~(0xFu << (4 * p))) | (nibble << (4 * p));
      cs.e[size_t(lane)] = static_cast<int32_t>(e);
      for (int j = 0; j < 2; ++j) {
        uint8_t v = static_cast<uint8_t>(byte(rng));
        aDense[size_t(r * k + 4 * ch + kept[j])] = valueOf(v, cs.aU8);
        // Compressed column cc = 2 ch + j: 16-column blocks of 4 lanes x 4
        // bytes; A register r / 8 (+ 2 for the second block), i.e. a0..a3
        // row g, a4..a7 row g + 8, a8..a11 row g (K 32..63), a12..a15 row
        // g + 8.
        int cc = 2 * ch + j;
        int aLane = 4 * (r % 8) + (cc % 16) / 4;
        int reg = r / 8 + 2 * (cc / 16);
        EXPECT_LT(reg, aRegs);
        putByte(cs.a[size_t(aLane * aRegs + reg)], cc % 4, v);
      }
    }
  // B (K x 8): element (kk, n) in lane 4 n + (kk % 16) / 4, register
  // kk / 16, byte kk % 4.
  std::vector<int32_t> bDense(size_t(k * 8), 0);
  for (int kk = 0; kk < k; ++kk)
    for (int n = 0; n < 8; ++n) {
      uint8_t v = static_cast<uint8_t>(byte(rng));
      bDense[size_t(kk * 8 + n)] = valueOf(v, cs.bU8);
      int lane = 4 * n + (kk % 16) / 4;
      putByte(cs.b[size_t(lane * bRegs + kk / 16)], kk % 4, v);
    }
  // C and D (16 x 8): element (r, n) in lane 4 (r % 8) + n / 2, register
  // 2 (r / 8) + n % 2.
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) {
      int32_t cv = static_cast<int32_t>(word(rng));
      int64_t sum = cv;
      for (int kk = 0; kk < k; ++kk)
        sum += int64_t(aDense[size_t(r * k + kk)]) * bDense[size_t(kk * 8 + n)];
      size_t at = size_t((4 * (r % 8) + n / 2) * 4 + 2 * (r / 8) + n % 2);
      cs.c[at] = cv;
      cs.expected[at] = static_cast<int32_t>(static_cast<uint32_t>(sum));
    }
  return cs;
}

/// The "kernel": thread t of warp w runs every case of warp w in order.
void kernel(int64_t *params, int32_t thread, int32_t, int32_t) {
  auto *warps = reinterpret_cast<std::vector<Case> *>(params[0]);
  int lane = thread % 32;
  for (Case &cs : warps[thread / 32]) {
    int aRegs = cs.k / 16;
    int32_t d[4];
    stc_emu_mma_sp(
        cs.kind, 1, &cs.a[size_t(lane * aRegs)], &cs.b[size_t(lane * aRegs)],
        reinterpret_cast<const float *>(&cs.c[size_t(lane * 4)]),
        cs.e[size_t(lane)], cs.selector, reinterpret_cast<float *>(d));
    for (int i = 0; i < 4; ++i)
      cs.d[size_t(lane * 4 + i)] = d[i];
  }
}

TEST(GpuEmulatorI8, AllIntegerKindsMatchDenseProduct) {
  std::mt19937 rng(2024);
  std::vector<Case> warps[2];
  for (auto &cases : warps)
    for (int kind = 4; kind <= 11; ++kind)
      for (int selector = 0; selector < (kind % 2 ? 2 : 1); ++selector)
        cases.push_back(makeCase(kind, selector, rng));
  // Every case has non-uniform metadata with all six legal nibbles (m16n8k32
  // has 128 chunks, m16n8k64 256).
  for (auto &cases : warps)
    for (const Case &cs : cases)
      EXPECT_EQ(cs.nibblesUsed.size(), 6u) << "kind " << cs.kind;

  int64_t params[1] = {reinterpret_cast<int64_t>(warps)};
  stc_emu_launch(&kernel, 1, 1, 64, params, "i8_kinds");

  for (int w = 0; w < 2; ++w)
    for (const Case &cs : warps[w]) {
      int mismatches = 0;
      for (size_t i = 0; i < cs.d.size(); ++i)
        if (cs.d[i] != cs.expected[i] && mismatches++ < 4)
          ADD_FAILURE() << "warp " << w << " kind " << cs.kind << " selector "
                        << cs.selector << ": lane " << i / 4 << " d" << i % 4
                        << " = " << cs.d[i] << ", expected " << cs.expected[i];
      EXPECT_EQ(mismatches, 0) << "kind " << cs.kind;
    }
}

// The same data under the signed and unsigned kinds gives different results
// (so a test of kind 4 alone could not pass with u8 semantics), and the
// results of kind 4 differ from a plain product where C was chosen to
// overflow: the accumulation wraps.
TEST(GpuEmulatorI8, SignednessAndWrapping) {
  std::mt19937 rng(7);
  std::vector<Case> warps[1];
  Case s8 = makeCase(4, 0, rng);
  // Force overflow: C = INT32_MAX everywhere, expected recomputed.
  for (size_t i = 0; i < s8.c.size(); ++i) {
    // expected = (c + product) mod 2^32: the product mod 2^32.
    uint32_t prod =
        static_cast<uint32_t>(s8.expected[i]) - static_cast<uint32_t>(s8.c[i]);
    s8.c[i] = INT32_MAX;
    s8.expected[i] =
        static_cast<int32_t>(static_cast<uint32_t>(INT32_MAX) + prod);
  }
  Case u8 = s8;
  u8.kind = 6; // the same registers read as u8 x u8
  warps[0] = {s8, u8};
  int64_t params[1] = {reinterpret_cast<int64_t>(warps)};
  stc_emu_launch(&kernel, 1, 1, 32, params, "i8_wrap");
  EXPECT_EQ(warps[0][0].d, warps[0][0].expected);
  EXPECT_NE(warps[0][1].d, warps[0][0].d);
  int wrapped = 0;
  for (int32_t v : warps[0][0].d)
    wrapped += v < 0; // INT32_MAX + a positive product
  EXPECT_GT(wrapped, 0);
}

} // namespace
