//===- GpuEmulatorClusterTest.cpp - cluster shared memory -------*- C++ -*-===//
//
// Each block of a cluster launch has its own shared memory: rank 0 the
// kernel's global, ranks 1.. copies of its 256 KiB window
// (stc_emu_cta_shared). The copies live as long as the launch: two launches
// leave none behind (they used to be kept, 256 KiB per extra rank, for the
// life of the process: a leak under LeakSanitizer), and within a launch
// each rank writes its own copy, which stc_emu_mapa reaches from another
// rank.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/stc_gpu_emulator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kWindow = 256 * 1024;

/// The kernel's shared-memory global (256 KiB aligned, as the emulated
/// kernels' globals are).
uint8_t *sharedGlobal = nullptr;
std::atomic<int> wrongReads{0};

/// Each thread 0 writes its rank into its block's copy, waits for the
/// cluster, and reads its partner's through mapa.
void clusterKernel(int64_t *, int32_t thread, int32_t, int32_t) {
  auto *mine = static_cast<uint8_t *>(stc_emu_cta_shared(sharedGlobal));
  int32_t rank = stc_emu_cluster_ctarank();
  if (thread == 0)
    mine[16] = static_cast<uint8_t>(100 + rank);
  stc_emu_cluster_arrive();
  stc_emu_cluster_wait();
  if (thread == 0) {
    auto *other = static_cast<uint8_t *>(stc_emu_mapa(mine, 1 - rank));
    if (other[16] != 100 + (1 - rank))
      ++wrongReads;
  }
  stc_emu_cluster_arrive();
  stc_emu_cluster_wait();
}

} // namespace

TEST(GpuEmulatorCluster, SharedCopiesLiveAsLongAsTheLaunch) {
  sharedGlobal = static_cast<uint8_t *>(std::aligned_alloc(kWindow, kWindow));
  ASSERT_NE(sharedGlobal, nullptr);
  std::memset(sharedGlobal, 0, kWindow);
  EXPECT_EQ(stc_emu_shared_copies_for_testing(), 0u);
  for (int launch = 0; launch < 2; ++launch) {
    // A 4 x 1 grid of 2 x 1 clusters: rank 1 of each cluster uses a copy.
    stc_emu_launch_cluster(clusterKernel, 4, 1, 32, nullptr, "cluster", 2, 1);
    EXPECT_EQ(stc_emu_shared_copies_for_testing(), 0u) << "launch " << launch;
  }
  EXPECT_EQ(wrongReads.load(), 0);
  std::free(sharedGlobal);
}
