//===- GpuEmulatorTmaTest.cpp - the emulator's mbarriers and TMA loads ----===//
//
// The emulator's sm_90a pipeline primitives (stc_gpu_emulator.h), driven the
// way a warp-specialised kernel drives them: mbarrier phases with many
// threads (arrival counts, expect-tx and complete-tx, parity waits, the
// parity-1 wait on a fresh barrier), a TMA producer thread feeding 128
// consumer threads through a two-stage ring of full/empty barriers, and
// 2-D box loads of random data with ragged and negative edges for each
// swizzle mode, and 4-D loads of an NHWC tensor with element strides
// (against a box computed element by element). The expected swizzled
// placement is written here as row / chunk arithmetic (chunk ^ (row % 8)
// for 128-byte rows, chunk ^ ((row / 2) % 4) for 64-byte rows, chunk ^
// ((row / 4) % 2) for 32-byte rows), not with the emulator's address
// formula. The kernels' wgmma takes A from shared memory:
// stc_emu_wgmma_sp_ss must give what the register form (checked against a
// dense product in GpuEmulatorWgmmaTest.cpp) gives for the same A. Errors
// (bad tensor maps, misused mbarriers, deadlocks, misaligned copies) must
// be reported and stop the process.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/TmaModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"
#include "runtime/format/StcHopperLayout.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

using namespace stc::emu;

namespace {

constexpr size_t kWindow = 256 * 1024;

struct AlignedFree {
  void operator()(uint8_t *p) const { std::free(p); }
};

/// Stands for a kernel's shared memory: 256 KiB aligned, zeroed.
std::unique_ptr<uint8_t, AlignedFree> sharedMemory() {
  std::unique_ptr<uint8_t, AlignedFree> smem(
      static_cast<uint8_t *>(std::aligned_alloc(kWindow, kWindow)));
  std::memset(smem.get(), 0, kWindow);
  return smem;
}

MbarrierState stateOf(const void *bar) {
  uint64_t word;
  std::memcpy(&word, bar, 8);
  return decodeMbarrier(word);
}

//===----------------------------------------------------------------------===//
// mbarrier phases
//===----------------------------------------------------------------------===//

TEST(GpuEmulatorMbarrier, ArrivalsAndTransactionsCompletePhases) {
  auto smem = sharedMemory();
  void *bar = smem.get() + 64;
  stc_emu_mbarrier_init(bar, 3);
  MbarrierState s = stateOf(bar);
  EXPECT_EQ(s.phase, 0u);
  EXPECT_EQ(s.pending, 3u);
  EXPECT_EQ(s.expected, 3u);
  EXPECT_EQ(s.tx, 0);
  // A fresh barrier has "completed" the phase of parity 1.
  stc_emu_mbarrier_wait_parity(bar, 1);

  stc_emu_mbarrier_arrive(bar, 2);
  EXPECT_EQ(stateOf(bar).pending, 1u);
  EXPECT_EQ(stateOf(bar).phase, 0u);
  stc_emu_mbarrier_arrive(bar, 1);
  s = stateOf(bar);
  EXPECT_EQ(s.phase, 1u);
  EXPECT_EQ(s.pending, 3u);
  stc_emu_mbarrier_wait_parity(bar, 0); // phase 0 is complete

  // Phase 1: the arrivals are in before the bytes.
  stc_emu_mbarrier_arrive_expect_tx(bar, 4096);
  stc_emu_mbarrier_expect_tx(bar, 1000);
  stc_emu_mbarrier_arrive(bar, 2);
  s = stateOf(bar);
  EXPECT_EQ(s.phase, 1u);
  EXPECT_EQ(s.pending, 0u);
  EXPECT_EQ(s.tx, 5096);
  stc_emu_mbarrier_complete_tx(bar, 5000);
  EXPECT_EQ(stateOf(bar).phase, 1u);
  stc_emu_mbarrier_complete_tx(bar, 96);
  s = stateOf(bar);
  EXPECT_EQ(s.phase, 2u);
  EXPECT_EQ(s.pending, 3u);
  EXPECT_EQ(s.tx, 0);
  stc_emu_mbarrier_wait_parity(bar, 1);

  // Re-initialising starts again at phase 0.
  stc_emu_mbarrier_init(bar, 1);
  EXPECT_EQ(stateOf(bar).phase, 0u);
  EXPECT_EQ(stateOf(bar).pending, 1u);
}

TEST(GpuEmulatorMbarrier, StateRoundTripsThroughItsEightBytes) {
  MbarrierState s;
  s.pending = 0xABCDE;
  s.expected = 0xFFFFF;
  s.tx = 0x12345;
  s.phase = 0xB;
  MbarrierState t = decodeMbarrier(encodeMbarrier(s));
  EXPECT_EQ(t.pending, s.pending);
  EXPECT_EQ(t.expected, s.expected);
  EXPECT_EQ(t.tx, s.tx);
  EXPECT_EQ(t.phase, s.phase);
  EXPECT_FALSE(decodeMbarrier(0).initialised());
  // The transaction count is signed (copies may complete first).
  s.tx = -0x12345;
  EXPECT_EQ(decodeMbarrier(encodeMbarrier(s)).tx, -0x12345);
}

/// With TMA multicast a partner block's copy can complete its bytes on this
/// block's barrier before this block's producer announced them: the count
/// goes below zero while an arrival is pending, and the phase completes
/// only when the arrive.expect_tx balances it.
TEST(GpuEmulatorMbarrier, BytesMayCompleteBeforeTheirExpectTx) {
  auto smem = sharedMemory();
  void *bar = smem.get() + 64;
  stc_emu_mbarrier_init(bar, 1);
  stc_emu_mbarrier_complete_tx(bar, 4096);
  MbarrierState s = stateOf(bar);
  EXPECT_EQ(s.tx, -4096);
  EXPECT_EQ(s.phase, 0u);
  stc_emu_mbarrier_arrive_expect_tx(bar, 8192);
  s = stateOf(bar);
  EXPECT_EQ(s.phase, 0u);
  EXPECT_EQ(s.tx, 4096);
  stc_emu_mbarrier_complete_tx(bar, 4096);
  s = stateOf(bar);
  EXPECT_EQ(s.phase, 1u);
  EXPECT_EQ(s.tx, 0);
  EXPECT_EQ(s.pending, 1u);
}

/// A cluster of two blocks (1 x 2) runs together: each has its rank and its
/// own copy of a shared-memory global; mapa reaches the partner's copy; the
/// cluster barrier orders them; and rank 0's multicast TMA load fills both
/// blocks and completes on each block's barrier, block 1 announcing its
/// bytes only after they landed (the count goes below zero meanwhile).
struct ClusterPair {
  static constexpr int kThreads = 64, kBoxBytes = 64 * 4;
  uint8_t *global = nullptr;
  void *map = nullptr;
  const uint8_t *tensor = nullptr;
  std::atomic<int> wrong{0};
  std::atomic<uintptr_t> window[2] = {};
};

void clusterPairKernel(int64_t *params, int32_t t, int32_t, int32_t by) {
  auto *p = reinterpret_cast<ClusterPair *>(params[0]);
  auto *smem = static_cast<uint8_t *>(stc_emu_cta_shared(p->global));
  int32_t rank = stc_emu_cluster_ctarank();
  if (rank != by % 2 || (rank == 0) != (smem == p->global))
    ++p->wrong;
  p->window[rank] = reinterpret_cast<uintptr_t>(smem);
  uint8_t *bar = smem + 64, *dst = smem + 1024;
  if (t == 0) {
    smem[0] = uint8_t(10 + rank);
    stc_emu_mbarrier_init(bar, 1);
  }
  stc_emu_cluster_arrive();
  stc_emu_cluster_wait();
  auto *peer = static_cast<uint8_t *>(stc_emu_mapa(smem + 0, rank ^ 1));
  if (peer == smem || peer[0] != 10 + (rank ^ 1) ||
      stc_emu_mapa(bar, rank) != bar)
    ++p->wrong;
  if (t == 0 && rank == 0) {
    stc_emu_mbarrier_arrive_expect_tx(bar, ClusterPair::kBoxBytes);
    stc_emu_tma_load_2d_multicast(dst, p->map, 0, 0, bar, 0b11);
  }
  stc_emu_cluster_arrive();
  stc_emu_cluster_wait();
  if (t == 0 && rank == 1) {
    if (stateOf(bar).tx != -ClusterPair::kBoxBytes)
      ++p->wrong;
    stc_emu_mbarrier_arrive_expect_tx(bar, ClusterPair::kBoxBytes);
  }
  stc_emu_mbarrier_wait_parity(bar, 0);
  if (std::memcmp(dst, p->tensor, ClusterPair::kBoxBytes) != 0)
    ++p->wrong;
  stc_emu_cluster_arrive();
  stc_emu_cluster_wait();
}

TEST(GpuEmulatorCluster, PairSharesThroughMapaMulticastAndClusterBarriers) {
  alignas(256) static uint8_t tensor[64 * 8];
  for (size_t i = 0; i < sizeof(tensor); ++i)
    tensor[i] = uint8_t(i * 7 + 3);
  auto smem = sharedMemory();
  ClusterPair pair;
  pair.global = smem.get();
  pair.tensor = tensor;
  pair.map = stc_emu_tensor_map_2d(tensor, 0, 64, 8, 64, 64, 4, 0);
  int64_t params[1] = {int64_t(reinterpret_cast<uintptr_t>(&pair))};
  // Two clusters of two, one after the other.
  stc_emu_launch_cluster(clusterPairKernel, 1, 4, ClusterPair::kThreads, params,
                         "pair", 1, 2);
  EXPECT_EQ(pair.wrong.load(), 0);
  EXPECT_EQ(pair.window[0].load(), reinterpret_cast<uintptr_t>(smem.get()));
  EXPECT_NE(pair.window[1].load(), pair.window[0].load());
  EXPECT_EQ(pair.window[1].load() % kWindow, 0u);
}

/// Every thread of a block publishes a value, arrives and waits; after the
/// wait all values of the round must be visible. Rounds alternate between
/// two buffers, so a phase that completed early (too few arrivals) or late
/// (a wait that missed its phase) shows as a wrong sum or a deadlock.
struct Rounds {
  static constexpr int kThreads = 160, kRounds = 9;
  uint8_t *smem = nullptr;
  std::vector<uint32_t> values; // [round][thread]
  std::atomic<int> wrong{0};
};

void roundsKernel(int64_t *params, int32_t t, int32_t, int32_t) {
  auto *p = reinterpret_cast<Rounds *>(params[0]);
  void *bar = p->smem + 8;
  auto *slots = reinterpret_cast<uint32_t *>(p->smem + 1024);
  if (t == 0)
    stc_emu_mbarrier_init(bar, Rounds::kThreads);
  stc_emu_barrier();
  // The fresh barrier's parity-1 wait returns at once.
  stc_emu_mbarrier_wait_parity(bar, 1);
  for (int r = 0; r < Rounds::kRounds; ++r) {
    uint32_t *buf = slots + (r % 2) * Rounds::kThreads;
    buf[t] = p->values[size_t(r * Rounds::kThreads + t)];
    stc_emu_mbarrier_arrive(bar, 1);
    stc_emu_mbarrier_wait_parity(bar, r % 2);
    uint64_t sum = 0, want = 0;
    for (int i = 0; i < Rounds::kThreads; ++i) {
      sum += buf[i];
      want += p->values[size_t(r * Rounds::kThreads + i)];
    }
    if (sum != want)
      ++p->wrong;
  }
}

TEST(GpuEmulatorMbarrier, BlockWidePhasesWithManyThreads) {
  auto smem = sharedMemory();
  Rounds p;
  p.smem = smem.get();
  std::mt19937 rng(11);
  for (int i = 0; i < Rounds::kThreads * Rounds::kRounds; ++i)
    p.values.push_back(rng() | 1);
  int64_t params[1] = {int64_t(reinterpret_cast<intptr_t>(&p))};
  stc_emu_launch(roundsKernel, 2, 1, Rounds::kThreads, params, "rounds");
  EXPECT_EQ(p.wrong.load(), 0);
  MbarrierState s = stateOf(p.smem + 8);
  EXPECT_EQ(s.phase, unsigned(Rounds::kRounds % 16));
  EXPECT_EQ(s.pending, unsigned(Rounds::kThreads));
}

//===----------------------------------------------------------------------===//
// TMA loads
//===----------------------------------------------------------------------===//

/// Expected placement of byte `b` of row `row` of a dense box with rows of
/// `rowBytes` when the box starts a repetition of the swizzle pattern:
/// the 16-byte chunk index moves, by rows.
size_t swizzledOffset(int swizzle, size_t rowBytes, size_t row, size_t b) {
  size_t chunk = b / 16, within = b % 16;
  switch (swizzle) {
  case 128: // 128-byte rows: 8 chunks, XOR the row within 8 rows
    chunk ^= row % 8;
    break;
  case 64: // 64-byte rows: 4 chunks, two rows per 128 bytes
    chunk ^= (row / 2) % 4;
    break;
  case 32: // 32-byte rows: 2 chunks, four rows per 128 bytes
    chunk ^= (row / 4) % 2;
    break;
  default:
    break;
  }
  return row * rowBytes + chunk * 16 + within;
}

struct TmaCase {
  int32_t dataType; // CUtensorMapDataType
  int elem;         // bytes
  int swizzle;
  int32_t boxInner, boxOuter;
};

/// Loads boxes at several coordinates (inside, ragged at the tensor's end
/// in both dimensions, negative) from a random tensor of 100 x 37 elements
/// (rows padded to 224 + elements' bytes) and compares every byte of the
/// destination, and the bytes around it, with the reference.
void checkTmaLoads(const TmaCase &c, unsigned seed) {
  const int64_t inner = 100, outer = 37;
  const int64_t stride = (inner * c.elem + 16 + 15) / 16 * 16;
  std::mt19937 rng(seed);
  std::vector<uint8_t> tensorBytes(size_t(stride * outer + 16));
  // 16-byte aligned base; random, never-zero bytes.
  auto *tensor = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(tensorBytes.data()) + 15) / 16 * 16);
  for (int64_t i = 0; i < stride * outer; ++i)
    tensor[i] = uint8_t(1 + rng() % 255);
  void *map = stc_emu_tensor_map_2d(tensor, c.dataType, inner, outer, stride,
                                    c.boxInner, c.boxOuter, c.swizzle);
  ASSERT_NE(map, nullptr);

  auto smem = sharedMemory();
  void *bar = smem.get() + 8;
  const size_t rowBytes = size_t(c.boxInner) * size_t(c.elem);
  const size_t boxBytes = rowBytes * size_t(c.boxOuter);
  const size_t dstOffset = 4096;
  uint8_t *dst = smem.get() + dstOffset;
  const int32_t coords[][2] = {
      {0, 0},
      {int32_t(c.boxInner), 3},
      {int32_t(inner - c.boxInner / 2), 0}, // ragged inner end
      {5, int32_t(outer - c.boxOuter / 3)}, // ragged outer end
      {int32_t(inner - 1), int32_t(outer - 1)},
      {-int32_t(c.boxInner / 2), -2}, // negative: zeros first
      {int32_t(inner + 3), 0},        // wholly outside: all zeros
  };
  stc_emu_mbarrier_init(bar, 1);
  int phase = 0;
  for (const auto &xy : coords) {
    std::memset(smem.get() + 1024, 0xAB, boxBytes + 2 * 3072);
    stc_emu_mbarrier_arrive_expect_tx(bar, int32_t(boxBytes));
    EXPECT_EQ(stateOf(bar).phase, unsigned(phase));
    stc_emu_tma_load_2d(dst, map, xy[0], xy[1], bar);
    // The whole box's bytes complete the phase.
    EXPECT_EQ(stateOf(bar).phase, unsigned(++phase)) << xy[0] << "," << xy[1];
    std::vector<uint8_t> want(boxBytes, 0);
    int nonZero = 0;
    for (int32_t j = 0; j < c.boxOuter; ++j)
      for (int32_t i = 0; i < c.boxInner; ++i) {
        int64_t x = int64_t(xy[0]) + i, y = int64_t(xy[1]) + j;
        if (x < 0 || x >= inner || y < 0 || y >= outer)
          continue;
        for (int b = 0; b < c.elem; ++b) {
          size_t at = swizzledOffset(c.swizzle, rowBytes, size_t(j),
                                     size_t(i) * size_t(c.elem) + size_t(b));
          want[at] = tensor[y * stride + x * c.elem + b];
          ++nonZero;
        }
      }
    int mismatches = 0;
    for (size_t k = 0; k < boxBytes; ++k)
      mismatches += dst[k] != want[k];
    EXPECT_EQ(mismatches, 0) << "box at (" << xy[0] << ", " << xy[1] << ")";
    for (size_t k = 0; k < 3072; ++k) {
      EXPECT_EQ(smem.get()[1024 + k], 0xAB) << "before the box";
      EXPECT_EQ(dst[boxBytes + k], 0xAB) << "after the box";
    }
    // The first box lies inside the tensor when it fits: no zeros.
    if (xy[0] == 0 && xy[1] == 0 && c.boxInner <= inner &&
        c.boxOuter <= outer) {
      EXPECT_EQ(nonZero, int(boxBytes));
    }
  }
}

TEST(GpuEmulatorTma, F16NoSwizzleRows48Bytes) {
  checkTmaLoads({6, 2, 0, 24, 16}, 1);
}

TEST(GpuEmulatorTma, U16Swizzle32) { checkTmaLoads({1, 2, 32, 16, 24}, 2); }

TEST(GpuEmulatorTma, F16Swizzle64) { checkTmaLoads({6, 2, 64, 32, 16}, 3); }

TEST(GpuEmulatorTma, F16Swizzle128) { checkTmaLoads({6, 2, 128, 64, 32}, 4); }

TEST(GpuEmulatorTma, Bf16Swizzle128TallBox) {
  checkTmaLoads({9, 2, 128, 64, 40}, 5);
}

TEST(GpuEmulatorTma, F32Swizzle128) { checkTmaLoads({7, 4, 128, 32, 16}, 6); }

TEST(GpuEmulatorTma, U8Swizzle64) { checkTmaLoads({0, 1, 64, 64, 8}, 7); }

TEST(GpuEmulatorTma, SwizzleIsTheStandardPattern) {
  // Swizzle<3,4,3> for 128 bytes, <2,4,3> for 64, <1,4,3> for 32.
  EXPECT_EQ(tmaSwizzleAddress(0x1000 + 7 * 128 + 2 * 16 + 5, 128),
            uint64_t(0x1000 + 7 * 128 + (2 ^ 7) * 16 + 5));
  EXPECT_EQ(tmaSwizzleAddress(0x1000 + 5 * 128 + 64 + 3 * 16, 64),
            uint64_t(0x1000 + 5 * 128 + 64 + (3 ^ 1) * 16));
  EXPECT_EQ(tmaSwizzleAddress(0x800 + 128 + 16, 32), uint64_t(0x800 + 128));
  EXPECT_EQ(tmaSwizzleAddress(0x1234, 0), uint64_t(0x1234));
}

TEST(GpuEmulatorTma, SameArgumentsSameMap) {
  alignas(16) static uint8_t tensor[64 * 64];
  void *a = stc_emu_tensor_map_2d(tensor, 6, 32, 64, 64, 32, 8, 64);
  void *b = stc_emu_tensor_map_2d(tensor, 6, 32, 64, 64, 32, 8, 64);
  void *c = stc_emu_tensor_map_2d(tensor, 6, 32, 64, 64, 32, 16, 64);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

//===----------------------------------------------------------------------===//
// 4-D TMA loads with element strides (implicit-GEMM convolution operands)
//===----------------------------------------------------------------------===//

/// An f16 NHWC activation of random, never-zero elements: C x W x H x N
/// (innermost first), rows of C channels, W and H strides padded.
struct Nhwc {
  static constexpr int64_t c = 64, w = 9, h = 7, n = 2;
  static constexpr int64_t sw = c * 2, sh = w * sw + 32, sn = h * sh + 64;
  std::vector<uint16_t> storage;
  uint16_t *data;

  explicit Nhwc(unsigned seed) : storage(size_t(n * sn / 2 + 8)) {
    // 16-byte aligned base.
    data = reinterpret_cast<uint16_t *>(
        (reinterpret_cast<uintptr_t>(storage.data()) + 15) / 16 * 16);
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < n * sn / 2; ++i)
      data[i] = uint16_t(1 + rng() % 0xFFFE);
  }
  /// The element at (channel, x, y, image), or 0 outside the tensor.
  uint16_t at(int64_t ch, int64_t x, int64_t y, int64_t img) const {
    if (ch < 0 || ch >= c || x < 0 || x >= w || y < 0 || y >= h || img < 0 ||
        img >= n)
      return 0;
    return data[(img * sn + y * sh + x * sw) / 2 + ch];
  }
};

struct Tma4dCase {
  int32_t box[4];   // b0 .. b3
  int32_t steps[4]; // e0 .. e3
  int swizzle;
};

/// Loads 4-D boxes at coordinates inside, before (negative, as a
/// convolution's padding reads) and past the end of the tensor with the
/// case's element strides, and compares every byte of the destination (and
/// the bytes after it) with a box computed here element by element:
/// destination element (i, j1, j2, j3) is the tensor's element at (c0 + i,
/// c1 + e1 j1, c2 + e2 j2, c3 + j3 e3), j_d < ceil(b_d / e_d), i < b0.
void checkTma4dLoads(const Tma4dCase &t, unsigned seed) {
  const Nhwc x(seed);
  void *map = stc_emu_tensor_map_4d(
      x.data, 6, Nhwc::c, Nhwc::w, Nhwc::h, Nhwc::n, Nhwc::sw, Nhwc::sh,
      Nhwc::sn, t.box[0], t.box[1], t.box[2], t.box[3], t.steps[0], t.steps[1],
      t.steps[2], t.steps[3], t.swizzle);
  ASSERT_NE(map, nullptr);
  int64_t n[4] = {t.box[0]};
  for (int d = 1; d < 4; ++d)
    n[d] = (t.box[d] + t.steps[d] - 1) / t.steps[d];
  const size_t rowBytes = size_t(n[0]) * 2;
  const size_t rows = size_t(n[1] * n[2] * n[3]);
  const size_t boxBytes = rowBytes * rows;
  auto smem = sharedMemory();
  void *bar = smem.get() + 8;
  uint8_t *dst = smem.get() + 4096;
  const int32_t coords[][4] = {
      {0, 0, 0, 0},
      {0, -1, -1, 0},                   // padding before the image
      {0, 5, 4, 1},                     // past the end in W and H
      {-8, 2, -2, 1},                   // channels before the start
      {16, int32_t(Nhwc::w) - 1, 0, 0}, // channels past the end
      {0, -3, int32_t(Nhwc::h) - 2, -1},
      {0, 0, 0, 2}, // wholly past the last image: zeros
  };
  stc_emu_mbarrier_init(bar, 1);
  int phase = 0;
  for (const auto &c : coords) {
    std::memset(dst, 0xAB, boxBytes + 2048);
    stc_emu_mbarrier_arrive_expect_tx(bar, int32_t(boxBytes));
    stc_emu_tma_load_4d(dst, map, c[0], c[1], c[2], c[3], bar);
    // The box's product(n_d) * 2 bytes complete the phase.
    EXPECT_EQ(stateOf(bar).phase, unsigned(++phase));
    EXPECT_EQ(stateOf(bar).tx, 0);
    int mismatches = 0, nonZero = 0;
    for (int64_t j3 = 0; j3 < n[3]; ++j3)
      for (int64_t j2 = 0; j2 < n[2]; ++j2)
        for (int64_t j1 = 0; j1 < n[1]; ++j1) {
          const size_t row = size_t((j3 * n[2] + j2) * n[1] + j1);
          for (int64_t i = 0; i < n[0]; ++i) {
            uint16_t want =
                x.at(c[0] + i, c[1] + t.steps[1] * j1, c[2] + t.steps[2] * j2,
                     c[3] + t.steps[3] * j3);
            nonZero += want != 0;
            for (int b = 0; b < 2; ++b) {
              size_t at =
                  swizzledOffset(t.swizzle, rowBytes, row, size_t(i) * 2 + b);
              mismatches += dst[at] != uint8_t(want >> (8 * b));
            }
          }
        }
    EXPECT_EQ(mismatches, 0) << "box at (" << c[0] << ", " << c[1] << ", "
                             << c[2] << ", " << c[3] << ")";
    if (c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0) {
      EXPECT_GT(nonZero, 0);
    }
    int outside = 0;
    for (size_t k = 0; k < 2048; ++k)
      outside += dst[boxBytes + k] != 0xAB;
    EXPECT_EQ(outside, 0) << "bytes after the box were written";
  }
}

TEST(GpuEmulatorTma4d, Swizzle128UnitStrides) {
  checkTma4dLoads({{64, 8, 4, 1}, {1, 1, 1, 1}, 128}, 11);
}

TEST(GpuEmulatorTma4d, Swizzle128Stride2InWAndH) {
  // 4 x 2 positions, every other column and row: a stride-2 convolution.
  checkTma4dLoads({{64, 8, 4, 1}, {1, 2, 2, 1}, 128}, 12);
}

TEST(GpuEmulatorTma4d, Swizzle128Stride2InWOnlyOddBoxes) {
  // ceil(7 / 2) = 4 columns, 3 rows, 2 images.
  checkTma4dLoads({{64, 7, 3, 2}, {1, 2, 1, 1}, 128}, 13);
}

TEST(GpuEmulatorTma4d, Swizzle128Stride2InHOnly) {
  checkTma4dLoads({{64, 4, 5, 1}, {1, 1, 2, 1}, 128}, 14);
}

TEST(GpuEmulatorTma4d, NoSwizzleNarrowRows) {
  // Rows of 24 channels (48 bytes), unswizzled.
  checkTma4dLoads({{24, 6, 4, 2}, {1, 2, 2, 2}, 0}, 15);
}

TEST(GpuEmulatorTma4d, InnermostElementStrideIsIgnored) {
  // CUDA: with no interleave, elementStrides[0] is ignored; b0 contiguous
  // elements are loaded, and the box bytes are the same.
  checkTma4dLoads({{64, 8, 4, 1}, {2, 2, 2, 1}, 128}, 16);
  const Nhwc x(17);
  auto *unit = static_cast<const TensorMap *>(stc_emu_tensor_map_4d(
      x.data, 6, Nhwc::c, Nhwc::w, Nhwc::h, Nhwc::n, Nhwc::sw, Nhwc::sh,
      Nhwc::sn, 64, 8, 4, 1, 1, 2, 2, 1, 128));
  auto *two = static_cast<const TensorMap *>(stc_emu_tensor_map_4d(
      x.data, 6, Nhwc::c, Nhwc::w, Nhwc::h, Nhwc::n, Nhwc::sw, Nhwc::sh,
      Nhwc::sn, 64, 8, 4, 1, 2, 2, 2, 1, 128));
  EXPECT_NE(unit, two); // different arguments, different maps
  EXPECT_EQ(tmaBoxBytes(*unit), 64 * 4 * 2 * 1 * 2);
  EXPECT_EQ(tmaBoxBytes(*two), tmaBoxBytes(*unit));
}

TEST(GpuEmulatorTma4d, SameArgumentsSameMap) {
  alignas(16) static uint8_t tensor[4 * 4 * 4 * 64];
  void *a = stc_emu_tensor_map_4d(tensor, 9, 32, 4, 4, 4, 64, 256, 1024, 32, 4,
                                  4, 1, 1, 2, 2, 1, 64);
  void *b = stc_emu_tensor_map_4d(tensor, 9, 32, 4, 4, 4, 64, 256, 1024, 32, 4,
                                  4, 1, 1, 2, 2, 1, 64);
  void *c = stc_emu_tensor_map_4d(tensor, 9, 32, 4, 4, 4, 64, 256, 1024, 32, 4,
                                  4, 1, 1, 2, 1, 1, 64);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(GpuEmulatorTma4d, DegenerateOuterDimensionsMatchTheTwoDimensionalLoad) {
  // A W x C tensor seen as 4-D with H = N = 1 loads what the 2-D map loads.
  const Nhwc x(18);
  void *map2 =
      stc_emu_tensor_map_2d(x.data, 6, Nhwc::c, Nhwc::w, Nhwc::sw, 64, 8, 128);
  void *map4 =
      stc_emu_tensor_map_4d(x.data, 6, Nhwc::c, Nhwc::w, 1, 1, Nhwc::sw,
                            Nhwc::sh, Nhwc::sn, 64, 8, 1, 1, 1, 1, 1, 1, 128);
  auto smem = sharedMemory();
  void *bar = smem.get() + 8;
  stc_emu_mbarrier_init(bar, 1);
  for (int32_t col : {-3, 0, 4}) {
    stc_emu_mbarrier_arrive_expect_tx(bar, 2 * 1024);
    stc_emu_tma_load_2d(smem.get() + 4096, map2, 0, col, bar);
    stc_emu_tma_load_4d(smem.get() + 8192, map4, 0, col, 0, 0, bar);
    EXPECT_EQ(std::memcmp(smem.get() + 4096, smem.get() + 8192, 1024), 0)
        << col;
  }
}

/// A warp-specialised pipeline: thread 128 (warp 4, the producer) loads
/// K tiles of a random f16 tensor with TMA into a two-stage ring; threads
/// 0..127 (the consumer warpgroup) wait for each tile, sum their column of
/// it and release the stage. The producer waits for an empty stage with
/// the parity-1 convention (a fresh barrier passes at once).
struct Pipeline {
  static constexpr int kTiles = 7, kStages = 2, kThreads = 160;
  static constexpr int kBoxInner = 64, kBoxOuter = 16; // f16, 128-byte rows
  uint8_t *smem = nullptr;
  void *map = nullptr;
  std::vector<uint64_t> sums; // [consumer thread]
};

void pipelineKernel(int64_t *params, int32_t t, int32_t, int32_t) {
  auto *p = reinterpret_cast<Pipeline *>(params[0]);
  uint8_t *full = p->smem + 64, *empty = p->smem + 128;
  const int stageBytes = Pipeline::kBoxInner * Pipeline::kBoxOuter * 2;
  uint8_t *stages = p->smem + 1024;
  if (t == 0)
    for (int s = 0; s < Pipeline::kStages; ++s) {
      stc_emu_mbarrier_init(full + 8 * s, 1);
      stc_emu_mbarrier_init(empty + 8 * s, 128);
    }
  stc_emu_barrier();
  if (t >= 128) {
    if (t != 128)
      return; // the rest of the producer warp
    for (int k = 0; k < Pipeline::kTiles; ++k) {
      int s = k % Pipeline::kStages, round = k / Pipeline::kStages;
      stc_emu_mbarrier_wait_parity(empty + 8 * s, (round & 1) ^ 1);
      stc_emu_mbarrier_arrive_expect_tx(full + 8 * s, stageBytes);
      stc_emu_tma_load_2d(stages + s * stageBytes, p->map, 0,
                          k * Pipeline::kBoxOuter, full + 8 * s);
    }
    return;
  }
  // Consumer t: column t % 64, rows of half (t / 64) of each tile.
  uint64_t sum = 0;
  for (int k = 0; k < Pipeline::kTiles; ++k) {
    int s = k % Pipeline::kStages, round = k / Pipeline::kStages;
    stc_emu_mbarrier_wait_parity(full + 8 * s, round & 1);
    const uint8_t *tile = stages + s * stageBytes;
    for (int r = (t / 64) * 8; r < (t / 64) * 8 + 8; ++r) {
      size_t at = swizzledOffset(128, 128, size_t(r), size_t(t % 64) * 2);
      uint16_t v;
      std::memcpy(&v, tile + at, 2);
      sum += v;
    }
    stc_emu_mbarrier_arrive(empty + 8 * s, 1);
  }
  p->sums[size_t(t)] = sum;
}

TEST(GpuEmulatorTma, WarpSpecialisedPipeline) {
  const int rows = Pipeline::kTiles * Pipeline::kBoxOuter, cols = 64;
  std::vector<uint16_t> tensor(size_t(rows * cols));
  std::mt19937 rng(21);
  for (uint16_t &v : tensor)
    v = uint16_t(1 + rng() % 65535);
  auto smem = sharedMemory();
  Pipeline p;
  p.smem = smem.get();
  p.sums.assign(128, 0);
  p.map = stc_emu_tensor_map_2d(tensor.data(), 6, cols, rows, cols * 2,
                                Pipeline::kBoxInner, Pipeline::kBoxOuter, 128);
  int64_t params[1] = {int64_t(reinterpret_cast<intptr_t>(&p))};
  stc_emu_launch(pipelineKernel, 1, 2, Pipeline::kThreads, params, "pipe");
  for (int t = 0; t < 128; ++t) {
    uint64_t want = 0;
    for (int k = 0; k < Pipeline::kTiles; ++k)
      for (int r = (t / 64) * 8; r < (t / 64) * 8 + 8; ++r)
        want += tensor[size_t((k * Pipeline::kBoxOuter + r) * cols + t % 64)];
    EXPECT_EQ(p.sums[size_t(t)], want) << "consumer " << t;
  }
}

//===----------------------------------------------------------------------===//
// wgmma with A from shared memory
//===----------------------------------------------------------------------===//

/// One warpgroup computes D = A . B + C twice, with A (a random compressed
/// 64 x 16 f16 tile, one K step) from registers and from shared memory
/// (K-major with the 32-byte swizzle, or M-major with the 128-byte one).
struct WgmmaSs {
  static constexpr int kN = 16;
  bool mMajorA = false;
  uint8_t *smem = nullptr;
  std::vector<uint16_t> aComp; // 64 x 16
  std::vector<uint32_t> meta;  // per thread
  std::vector<float> c;        // per thread, kN / 2
  uint64_t aDesc = 0, bDesc = 0;
  std::vector<float> fromRegs, fromSmem; // per thread, kN / 2
};

uint16_t halfOfEighths(int eighths) {
  // A multiple of 1/8 in [-2, 2] as f16 bits (exact).
  if (eighths == 0)
    return 0;
  float v = float(eighths) / 8.0f;
  uint32_t f;
  std::memcpy(&f, &v, 4);
  uint32_t sign = (f >> 16) & 0x8000, exp = (f >> 23) & 0xFF;
  return uint16_t(sign | ((exp - 127 + 15) << 10) | ((f >> 13) & 0x3FF));
}

void wgmmaSsKernel(int64_t *params, int32_t t, int32_t, int32_t) {
  auto *p = reinterpret_cast<WgmmaSs *>(params[0]);
  using namespace stc::format;
  int32_t a[4] = {0, 0, 0, 0};
  for (int i = 0; i < wgmmaSpAElementsPerThread(WgmmaSpType::B16); ++i) {
    WgmmaCell cell = wgmmaSpAElement(WgmmaSpType::B16, t, i);
    uint32_t v = p->aComp[size_t(cell.row * 16 + cell.col)];
    a[i / 2] = int32_t(uint32_t(a[i / 2]) | v << (16 * (i % 2)));
  }
  const int regs = WgmmaSs::kN / 2;
  std::vector<float> d(p->c.begin() + t * regs, p->c.begin() + (t + 1) * regs);
  stc_emu_wgmma_sp(0, WgmmaSs::kN, a, int64_t(p->bDesc), int32_t(p->meta[t]), 0,
                   1, 1, 1, 0, p->smem, int64_t(kWindow), d.data());
  std::memcpy(&p->fromRegs[size_t(t * regs)], d.data(), size_t(regs) * 4);
  d.assign(p->c.begin() + t * regs, p->c.begin() + (t + 1) * regs);
  stc_emu_wgmma_sp_ss(0, WgmmaSs::kN, int64_t(p->aDesc), int64_t(p->bDesc),
                      int32_t(p->meta[t]), 0, 1, 1, 1, p->mMajorA ? 1 : 0, 0,
                      p->smem, int64_t(kWindow), d.data());
  std::memcpy(&p->fromSmem[size_t(t * regs)], d.data(), size_t(regs) * 4);
}

void checkWgmmaAFromSmem(bool mMajorA, unsigned seed) {
  using namespace stc::format;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> eighths(-16, 16);
  auto smem = sharedMemory();
  WgmmaSs p;
  p.mMajorA = mMajorA;
  p.smem = smem.get();
  constexpr uint32_t kABase = 4096, kBBase = 8192;
  HopperSmemTile aTile{mMajorA ? HopperSwizzle::B128 : HopperSwizzle::B32,
                       mMajorA, 16, 64, 16};
  HopperSmemTile bTile{HopperSwizzle::B64, false, 16, WgmmaSs::kN, 32};
  ASSERT_EQ(hopperSmemTileError(aTile), "");
  ASSERT_EQ(hopperSmemTileError(bTile), "");
  for (int r = 0; r < 64; ++r)
    for (int col = 0; col < 16; ++col) {
      uint16_t bits = halfOfEighths(eighths(rng) | 1);
      p.aComp.push_back(bits);
      std::memcpy(smem.get() + kABase + hopperSmemOffset(aTile, r, col), &bits,
                  2);
    }
  for (int k = 0; k < 32; ++k)
    for (int col = 0; col < WgmmaSs::kN; ++col) {
      uint16_t bits = halfOfEighths(eighths(rng));
      std::memcpy(smem.get() + kBBase + hopperSmemOffset(bTile, col, k), &bits,
                  2);
    }
  const unsigned nibbles[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  for (int t = 0; t < 128; ++t) {
    uint32_t word = 0;
    for (int i = 0; i < 8; ++i)
      word |= nibbles[rng() % 6] << (4 * i);
    p.meta.push_back(word);
  }
  for (int i = 0; i < 128 * WgmmaSs::kN / 2; ++i)
    p.c.push_back(float(eighths(rng)) / 8.0f);
  p.aDesc = hopperSmemDescriptor(aTile, kABase, 0);
  p.bDesc = hopperSmemDescriptor(bTile, kBBase, 0);
  p.fromRegs.assign(p.c.size(), 0.0f);
  p.fromSmem.assign(p.c.size(), 0.0f);
  int64_t params[1] = {int64_t(reinterpret_cast<intptr_t>(&p))};
  stc_emu_launch(wgmmaSsKernel, 1, 1, 128, params, "wgmma_ss");
  int mismatches = 0, changed = 0;
  for (size_t i = 0; i < p.c.size(); ++i) {
    mismatches += p.fromRegs[i] != p.fromSmem[i];
    changed += p.fromRegs[i] != p.c[i];
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(changed, int(p.c.size()) / 2);
}

TEST(GpuEmulatorWgmmaSs, KMajorA) { checkWgmmaAFromSmem(false, 31); }

TEST(GpuEmulatorWgmmaSs, MMajorA) { checkWgmmaAFromSmem(true, 32); }

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

class GpuEmulatorTmaDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

#define EXPECT_EMU_ERROR(statement, regex)                                     \
  EXPECT_EXIT(statement, ::testing::ExitedWithCode(1),                         \
              "stc-gpu-emulator: error: " regex)

alignas(256) uint8_t gTensor[256 * 256];

TEST_F(GpuEmulatorTmaDeathTest, ClusterCallsNeedALaunch) {
  auto smem = sharedMemory();
  EXPECT_EMU_ERROR(stc_emu_mapa(smem.get(), 1),
                   "mapa called outside stc_emu_launch");
  EXPECT_EMU_ERROR(stc_emu_cluster_arrive(),
                   "barrier.cluster.arrive called outside stc_emu_launch");
  EXPECT_EMU_ERROR(stc_emu_cta_shared(smem.get() + 64),
                   "a shared-memory global that is not 256 KiB aligned");
}

TEST_F(GpuEmulatorTmaDeathTest, TensorMapArgumentsAreChecked) {
  EXPECT_EMU_ERROR(
      stc_emu_tensor_map_2d(gTensor + 8, 6, 64, 64, 128, 64, 8, 128),
      "tensor map: global address 0x[0-9a-f]+ is not 16-byte "
      "aligned");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 13, 64, 64, 128, 64, 8, 0),
                   "tensor map: unknown data type 13");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 136, 64, 8, 0),
                   "tensor map: outer stride of 136 bytes is not a positive "
                   "multiple of 16");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 72, 64, 128, 64, 8, 0),
                   "tensor map: outer stride of 128 bytes is less than a row "
                   "of 72 elements of 2 bytes");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 0, 64, 128, 64, 8, 0),
                   "tensor map: tensor of 0 x 64 elements");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 64, 257, 0),
                   "tensor map: box of 64 x 257 elements \\(each dimension 1 "
                   "\\.\\. 256\\)");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 0, 8, 0),
                   "tensor map: box of 0 x 8 elements");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 12, 8, 0),
                   "tensor map: box inner dimension of 24 bytes is not a "
                   "multiple of 16");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 64, 8, 16),
                   "tensor map: swizzle of 16 bytes \\(expected 0, 32, 64 or "
                   "128\\)");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 64, 8, 64),
                   "tensor map: box inner dimension of 128 bytes exceeds the "
                   "64-byte swizzle");
}

TEST_F(GpuEmulatorTmaDeathTest, TensorMap4dArgumentsAreChecked) {
  // 64 x 8 x 8 x 2 f16 (innermost first), dense: strides 128, 1024, 8192.
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 4, 1, 1, 2, 9, 1, 128),
                   "tensor map: element strides of 1 x 2 x 9 x 1 \\(each 1 "
                   "\\.\\. 8\\)");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 4, 1, 0, 2, 2, 1, 128),
                   "tensor map: element strides of 0 x 2 x 2 x 1");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 257, 1, 1, 2, 2, 1, 128),
                   "tensor map: box of 64 x 8 x 257 x 1 elements \\(each "
                   "dimension 1 \\.\\. 256\\)");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 4, 0, 1, 2, 2, 1, 128),
                   "tensor map: box of 64 x 8 x 4 x 0 elements");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 0, 2, 128, 1024,
                                         8192, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: tensor of 64 x 8 x 0 x 2 elements");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1008,
                                         8192, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: stride of dimension 2 of 1008 bytes is less "
                   "than the 1024 bytes that dimension 1 spans");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8200, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: stride of dimension 3 of 8200 bytes is not a "
                   "positive multiple of 16");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 120, 1024,
                                         8192, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: stride of dimension 1 of 120 bytes is not a "
                   "positive multiple of 16");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 72, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: stride of dimension 1 of 128 bytes is less "
                   "than a row of 72 elements of 2 bytes");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 128, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: box inner dimension of 256 bytes exceeds the "
                   "128-byte swizzle");
  EXPECT_EMU_ERROR(stc_emu_tensor_map_4d(gTensor + 8, 6, 64, 8, 8, 2, 128, 1024,
                                         8192, 64, 8, 4, 1, 1, 2, 2, 1, 128),
                   "tensor map: global address 0x[0-9a-f]+ is not 16-byte "
                   "aligned");
}

TEST_F(GpuEmulatorTmaDeathTest, MbarrierMisuseIsReported) {
  auto smem = sharedMemory();
  uint8_t *bar = smem.get() + 0x40;
  EXPECT_EMU_ERROR(stc_emu_mbarrier_arrive(bar, 1),
                   "mbarrier.arrive on an mbarrier that is not initialised "
                   ".*\\(the mbarrier at shared address 0x40\\)");
  EXPECT_EMU_ERROR(stc_emu_mbarrier_wait_parity(bar, 0),
                   "mbarrier.try_wait.parity on the mbarrier at shared "
                   "address 0x40, which is not initialised");
  EXPECT_EMU_ERROR(stc_emu_mbarrier_init(bar, 0),
                   "mbarrier.init with count 0 \\(expected 1 \\.\\. 2\\^20 - "
                   "1\\)");
  EXPECT_EMU_ERROR(stc_emu_mbarrier_init(bar + 4, 1),
                   "mbarrier.init on the mbarrier at shared address 0x44, "
                   "which is not 8-byte aligned");
  stc_emu_mbarrier_init(bar, 2);
  EXPECT_EMU_ERROR(stc_emu_mbarrier_arrive(bar, 3),
                   "mbarrier.arrive of 3 arrivals with pending arrivals 2 of "
                   "2, 0 transaction bytes");
  EXPECT_EMU_ERROR(stc_emu_mbarrier_wait_parity(bar, 2),
                   "mbarrier.try_wait.parity with parity 2 \\(expected 0 or "
                   "1\\)");
  EXPECT_EMU_ERROR(
      {
        stc_emu_mbarrier_arrive_expect_tx(bar, 100);
        stc_emu_mbarrier_arrive(bar, 1);
        stc_emu_mbarrier_complete_tx(bar, 101);
      },
      "complete-tx of 101 bytes with pending arrivals 0 of 2, 100 "
      "transaction bytes, phase 0 \\(mod 16\\) \\(more bytes than expected");
  EXPECT_EMU_ERROR(stc_emu_mbarrier_expect_tx(bar, 1 << 20),
                   "mbarrier.expect_tx of 1048576 bytes");
}

TEST_F(GpuEmulatorTmaDeathTest, TmaLoadErrorsAreReported) {
  auto smem = sharedMemory();
  uint8_t *bar = smem.get() + 8;
  stc_emu_mbarrier_init(bar, 1);
  stc_emu_mbarrier_arrive_expect_tx(bar, 4096);
  void *map = stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 64, 32, 128);
  // 128-byte aligned, but not at a repetition of the 128-byte swizzle.
  EXPECT_EMU_ERROR(stc_emu_tma_load_2d(smem.get() + 1024 + 128, map, 0, 0, bar),
                   "cp.async.bulk.tensor: destination at shared address "
                   "0x480 is not 1024-byte aligned \\(8 rows of the "
                   "128-byte swizzle\\)");
  void *plain = stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 64, 32, 0);
  EXPECT_EMU_ERROR(
      stc_emu_tma_load_2d(smem.get() + 1024 + 64, plain, 0, 0, bar),
      "cp.async.bulk.tensor: destination at shared address "
      "0x440 is not 128-byte aligned");
  void *narrow = stc_emu_tensor_map_2d(gTensor, 6, 64, 64, 128, 32, 32, 128);
  EXPECT_EMU_ERROR(stc_emu_tma_load_2d(smem.get() + 1024, narrow, 0, 0, bar),
                   "cp.async.bulk.tensor: box rows of 64 bytes with the "
                   "128-byte swizzle are not emulated");
  uint64_t garbage[16] = {};
  EXPECT_EMU_ERROR(stc_emu_tma_load_2d(smem.get() + 1024, garbage, 0, 0, bar),
                   "cp.async.bulk.tensor with a tensor map that neither "
                   "stc_emu_tensor_map_2d nor stc_emu_tensor_map_4d made");
  // The copy's rank is the map's.
  void *map4 = stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024, 8192,
                                     64, 8, 4, 1, 1, 2, 2, 1, 128);
  EXPECT_EMU_ERROR(stc_emu_tma_load_2d(smem.get() + 1024, map4, 0, 0, bar),
                   "cp.async.bulk.tensor.2d with a 4-D tensor map");
  EXPECT_EMU_ERROR(stc_emu_tma_load_4d(smem.get() + 1024, map, 0, 0, 0, 0, bar),
                   "cp.async.bulk.tensor.4d with a 2-D tensor map");
  // 4-D boxes follow the same destination rules (rows of 64 f16 here).
  EXPECT_EMU_ERROR(
      stc_emu_tma_load_4d(smem.get() + 1024 + 512, map4, 0, 0, 0, 0, bar),
      "cp.async.bulk.tensor: destination at shared address 0x600 is not "
      "1024-byte aligned");
  void *narrow4 = stc_emu_tensor_map_4d(gTensor, 6, 64, 8, 8, 2, 128, 1024,
                                        8192, 32, 8, 4, 1, 1, 2, 2, 1, 128);
  EXPECT_EMU_ERROR(
      stc_emu_tma_load_4d(smem.get() + 1024, narrow4, 0, 0, 0, 0, bar),
      "cp.async.bulk.tensor: box rows of 64 bytes with the 128-byte swizzle "
      "are not emulated");
  // ceil(8 / 2) * ceil(4 / 2) rows of 128 bytes = 1024 bytes, more than the
  // 512 the barrier expects.
  uint8_t *half = smem.get() + 32;
  stc_emu_mbarrier_init(half, 1);
  stc_emu_mbarrier_arrive_expect_tx(half, 512);
  EXPECT_EMU_ERROR(
      stc_emu_tma_load_4d(smem.get() + 1024, map4, 0, 0, 0, 0, half),
      "complete-tx of 1024 bytes with pending arrivals 0 of 1, 512 "
      "transaction bytes");
  // The box is 4096 bytes; the barrier expects only 1024.
  uint8_t *short_ = smem.get() + 16;
  stc_emu_mbarrier_init(short_, 1);
  stc_emu_mbarrier_arrive_expect_tx(short_, 1024);
  EXPECT_EMU_ERROR(stc_emu_tma_load_2d(smem.get() + 1024, map, 0, 0, short_),
                   "complete-tx of 4096 bytes with pending arrivals 0 of 1, "
                   "1024 transaction bytes");
  EXPECT_EMU_ERROR(
      stc_emu_tma_load_2d(smem.get() + 1024, map, 0, 0, smem.get() + 24),
      "cp.async.bulk.tensor completing on the mbarrier at shared address "
      "0x18, which is not initialised");
}

/// All threads arrive on a barrier that expects one arrival more.
void oneArrivalShortKernel(int64_t *params, int32_t t, int32_t, int32_t) {
  auto *bar = reinterpret_cast<uint8_t *>(params[0]);
  if (t == 0)
    stc_emu_mbarrier_init(bar, 65);
  stc_emu_barrier();
  stc_emu_mbarrier_arrive(bar, 1);
  stc_emu_mbarrier_wait_parity(bar, 0);
}

/// The consumers wait for a tile the producer never loads: it exits.
void producerExitsKernel(int64_t *params, int32_t t, int32_t, int32_t) {
  auto *bar = reinterpret_cast<uint8_t *>(params[0]);
  if (t == 0)
    stc_emu_mbarrier_init(bar, 1);
  stc_emu_barrier();
  if (t < 32)
    stc_emu_mbarrier_wait_parity(bar, 0);
}

TEST_F(GpuEmulatorTmaDeathTest, DeadlocksAreReported) {
  auto smem = sharedMemory();
  int64_t params[1] = {int64_t(reinterpret_cast<intptr_t>(smem.get() + 32))};
  EXPECT_EMU_ERROR(
      stc_emu_launch(oneArrivalShortKernel, 1, 1, 64, params, "short"),
      "mbarrier deadlock in block \\(0, 0\\): 64 threads wait "
      "for mbarrier phases that cannot complete and the other 0 "
      "have exited; 64 thread\\(s\\) \\(first [0-9]+\\) wait for "
      "the phase of parity 0 of the mbarrier at shared address "
      "0x20 \\(pending arrivals 1 of 65");
  EXPECT_EMU_ERROR(
      stc_emu_launch(producerExitsKernel, 1, 1, 64, params, "exits"),
      "mbarrier deadlock in block \\(0, 0\\): 32 threads wait "
      "for mbarrier phases that cannot complete and the other 32 "
      "have exited");
}

TEST_F(GpuEmulatorTmaDeathTest, ClustersMustTileTheGrid) {
  stc_emu_check_cluster(4, 2, 1, 2, 1, 1);
  stc_emu_check_cluster(4, 6, 1, 1, 3, 1);
  EXPECT_EMU_ERROR(stc_emu_check_cluster(3, 2, 1, 2, 1, 1),
                   "a cluster of 2 x 1 x 1 blocks does not divide the grid of "
                   "3 x 2 x 1 blocks");
  EXPECT_EMU_ERROR(stc_emu_check_cluster(4, 2, 1, 0, 1, 1),
                   "a cluster of 0 x 1 x 1 blocks");
}

} // namespace
