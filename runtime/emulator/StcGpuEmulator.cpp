//===- StcGpuEmulator.cpp - run generated GPU kernels on the CPU *- C++ -*-===//
//
// The emulator's launches (stc_gpu_emulator.h): every thread of a block,
// and every block of a cluster together, runs as a host thread; bar.sync;
// clusters (%cluster_ctarank, barrier.cluster.arrive / wait) and each
// block's shared memory (mapa).  The instructions are in
// StcGpuEmulatorMma.cpp and StcGpuEmulatorTma.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/StcGpuEmulatorState.h"
#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace stc::emu;

namespace stc::emu {

thread_local Block *currentBlock = nullptr;
thread_local int64_t currentThread = 0;
thread_local Warp *currentWarp = nullptr;
thread_local int currentLane = 0;
thread_local Warpgroup *currentWarpgroup = nullptr;
thread_local int currentWarpgroupThread = 0;
thread_local int64_t clusterArrivedPhase = -1;

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "stc-gpu-emulator: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

} // namespace stc::emu

namespace {

/// Frees the shared-memory copies of cluster ranks 1.. (below).
void freeSharedCopies();

} // namespace

extern "C" void stc_emu_launch(stc_emu_kernel_fn kernel, int64_t gridX,
                               int64_t gridY, int64_t threads, int64_t *params,
                               const char *name) {
  stc_emu_launch_cluster(kernel, gridX, gridY, threads, params, name, 1, 1);
}

extern "C" void stc_emu_launch_cluster(stc_emu_kernel_fn kernel, int64_t gridX,
                                       int64_t gridY, int64_t threads,
                                       int64_t *params, const char *name,
                                       int64_t clusterX, int64_t clusterY) {
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    fail("a block of " + std::to_string(threads) +
         " threads (expected a multiple of 32 up to 1024)");
  if (clusterX < 1 || clusterY < 1 || clusterX * clusterY > 8 ||
      gridX % clusterX != 0 || gridY % clusterY != 0)
    fail("a cluster of " + std::to_string(clusterX) + " x " +
         std::to_string(clusterY) + " blocks in a grid of " +
         std::to_string(gridX) + " x " + std::to_string(gridY));
  const int64_t clusterSize = clusterX * clusterY;
  static const bool trace = [] {
    const char *env = std::getenv("STC_EMU_TRACE");
    return env && *env && std::string(env) != "0";
  }();
  if (trace)
    std::fprintf(stderr,
                 "stc-emu: launch %s: %lld x %lld blocks of %lld "
                 "threads\n",
                 name ? name : "?", (long long)gridX, (long long)gridY,
                 (long long)threads);
  int64_t warps = threads / 32;
  auto started = std::chrono::steady_clock::now();
  // One cluster at a time, its blocks together (a block waits on mbarriers
  // its partner's arrivals and copies complete). Rank: x fastest.
  for (int64_t by0 = 0; by0 < gridY; by0 += clusterY) {
    for (int64_t bx0 = 0; bx0 < gridX; bx0 += clusterX) {
      Cluster cluster;
      cluster.threads = threads * clusterSize;
      std::vector<std::unique_ptr<Block>> blocks;
      std::vector<std::vector<std::unique_ptr<Warp>>> blockWarps;
      std::vector<std::vector<std::unique_ptr<Warpgroup>>> blockWarpgroups;
      for (int64_t r = 0; r < clusterSize; ++r) {
        auto block = std::make_unique<Block>();
        block->threads = threads;
        block->x = bx0 + r % clusterX;
        block->y = by0 + r / clusterX;
        block->rank = static_cast<int32_t>(r);
        block->cluster = &cluster;
        block->waitBarrier.assign(size_t(threads), nullptr);
        block->waitParity.assign(size_t(threads), 0);
        block->clusterWaitPhase.assign(size_t(threads), -1);
        cluster.blocks.push_back(block.get());
        blocks.push_back(std::move(block));
        blockWarps.emplace_back();
        for (int64_t w = 0; w < warps; ++w)
          blockWarps.back().push_back(std::make_unique<Warp>());
        blockWarpgroups.emplace_back();
        for (int64_t t = 0; t < threads; t += kWarpgroupThreads) {
          blockWarpgroups.back().push_back(std::make_unique<Warpgroup>());
          blockWarpgroups.back().back()->threads = static_cast<int>(
              std::min<int64_t>(kWarpgroupThreads, threads - t));
        }
      }
      std::vector<std::thread> workers;
      workers.reserve(size_t(threads * clusterSize));
      for (int64_t r = 0; r < clusterSize; ++r) {
        Block *block = blocks[size_t(r)].get();
        for (int64_t t = 0; t < threads; ++t) {
          workers.emplace_back([&, block, r, t] {
            currentBlock = block;
            currentThread = t;
            currentWarp = blockWarps[size_t(r)][size_t(t / 32)].get();
            currentLane = static_cast<int>(t % 32);
            currentWarpgroup =
                blockWarpgroups[size_t(r)][size_t(t / kWarpgroupThreads)].get();
            currentWarpgroupThread = static_cast<int>(t % kWarpgroupThreads);
            clusterArrivedPhase = -1;
            kernel(params, static_cast<int32_t>(t),
                   static_cast<int32_t>(block->x),
                   static_cast<int32_t>(block->y));
            // The threads left may all be waiting on mbarriers only this one
            // could have completed.
            std::lock_guard<std::mutex> lock(mbarrierMutex);
            ++block->exited;
            checkMbarrierDeadlock(*block);
          });
        }
      }
      for (std::thread &worker : workers)
        worker.join();
    }
  }
  // The copies of shared memory that ranks 1.. used live as long as the
  // launch, as shared memory does (they used to be kept for the process:
  // 256 KiB per extra rank, never freed).
  if (clusterSize > 1)
    freeSharedCopies();
  noteLaunch(std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - started)
                 .count());
}

extern "C" void stc_emu_barrier(void) {
  Block *block = currentBlock;
  if (!block)
    fail("bar.sync called outside stc_emu_launch");
  std::unique_lock<std::mutex> lock(block->mutex);
  uint64_t generation = block->generation;
  if (++block->arrived == block->threads) {
    block->arrived = 0;
    ++block->generation;
    block->done.notify_all();
  } else {
    block->done.wait(lock, [&] { return block->generation != generation; });
  }
}

extern "C" void stc_emu_named_barrier(int32_t id, int32_t count) {
  Block *block = currentBlock;
  if (!block)
    fail("bar.sync called outside stc_emu_launch");
  if (id < 1 || id > 15 || count <= 0 || count % 32 != 0 ||
      count > block->threads)
    fail("bar.sync " + std::to_string(id) + ", " + std::to_string(count) +
         " in a block of " + std::to_string(block->threads) +
         " threads (expected barrier 1 .. 15 and a thread count that is a "
         "multiple of 32 up to the block's)");
  std::unique_lock<std::mutex> lock(block->mutex);
  Block::NamedBarrier &barrier = block->named[id];
  uint64_t generation = barrier.generation;
  if (++barrier.arrived == count) {
    barrier.arrived = 0;
    ++barrier.generation;
    block->done.notify_all();
  } else {
    block->done.wait(lock, [&] { return barrier.generation != generation; });
  }
}

extern "C" void stc_emu_warp_sync(int32_t memberMask) {
  Warp *warp = currentWarp;
  if (!warp)
    fail("bar.warp.sync called outside stc_emu_launch");
  if (memberMask != -1)
    fail("bar.warp.sync with member mask " + std::to_string(memberMask) +
         " (only the full mask 0xffffffff is emulated)");
  std::unique_lock<std::mutex> lock(warp->mutex);
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
}

extern "C" int32_t stc_emu_shfl_xor(int32_t value, int32_t laneMask) {
  Warp *warp = currentWarp;
  if (!warp)
    fail("shfl.sync called outside stc_emu_launch");
  if (laneMask < 0 || laneMask > 31)
    fail("shfl.sync.bfly lane mask " + std::to_string(laneMask) +
         " (expected 0 .. 31)");
  std::unique_lock<std::mutex> lock(warp->mutex);
  int lane = currentLane;
  warp->shflIn[lane] = static_cast<uint32_t>(value);
  warp->shflMask[lane] = laneMask;
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    // The last lane to arrive delivers every lane's word; a lane reads its
    // own before any lane can arrive at the next collective.
    for (int l = 0; l < 32; ++l)
      warp->shflOut[l] = warp->shflIn[l ^ warp->shflMask[l]];
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
  return static_cast<int32_t>(warp->shflOut[lane]);
}

//===----------------------------------------------------------------------===//
// Clusters and shared memory
//===----------------------------------------------------------------------===//

namespace {

/// Shared memory per block of a cluster. The kernels' shared-memory
/// globals serve rank 0; ranks 1.. get copies of the same 256 KiB window
/// (the globals are 256 KiB aligned, so the window holds one global and
/// the low 18 bits of an address are its shared address), made on first
/// use and kept until the launch ends: shared memory starts undefined, so a
/// block may find an earlier cluster's bytes there, as on a GPU.
constexpr uintptr_t kSmemWindow = uintptr_t(1) << 18;
std::mutex smemCopiesMutex;
/// Window base -> the copies for ranks 1, 2, ...
std::map<uintptr_t, std::vector<uint8_t *>> smemCopies;

/// The window of `rank` for the global window `base` (made if need be).
uint8_t *smemWindowOf(uintptr_t base, int32_t rank) {
  if (rank == 0)
    return reinterpret_cast<uint8_t *>(base);
  std::lock_guard<std::mutex> lock(smemCopiesMutex);
  std::vector<uint8_t *> &copies = smemCopies[base];
  while (copies.size() < size_t(rank)) {
    void *p = std::aligned_alloc(kSmemWindow, kSmemWindow);
    if (!p)
      fail("out of memory for a cluster block's shared memory");
    std::memset(p, 0, kSmemWindow);
    copies.push_back(static_cast<uint8_t *>(p));
  }
  return copies[size_t(rank - 1)];
}

void freeSharedCopies() {
  std::lock_guard<std::mutex> lock(smemCopiesMutex);
  for (auto &[base, copies] : smemCopies)
    for (uint8_t *copy : copies)
      std::free(copy);
  smemCopies.clear();
}

/// The global window base of a shared address of any block (its own
/// window when it is in no copy).
uintptr_t globalWindowOf(uintptr_t address) {
  uintptr_t window = address & ~(kSmemWindow - 1);
  std::lock_guard<std::mutex> lock(smemCopiesMutex);
  for (const auto &[base, copies] : smemCopies)
    for (uint8_t *copy : copies)
      if (reinterpret_cast<uintptr_t>(copy) == window)
        return base;
  return window;
}

} // namespace

Cluster &stc::emu::currentCluster(const char *what) {
  if (!currentBlock || !currentBlock->cluster)
    fail(std::string(what) + " called outside stc_emu_launch");
  return *currentBlock->cluster;
}

extern "C" void *stc_emu_cta_shared(void *global) {
  uintptr_t base = reinterpret_cast<uintptr_t>(global);
  if (base % kSmemWindow != 0)
    fail("a shared-memory global that is not 256 KiB aligned");
  int32_t rank = currentBlock ? currentBlock->rank : 0;
  return smemWindowOf(base, rank);
}

extern "C" void *stc_emu_mapa(void *address, int32_t rank) {
  Cluster &cluster = currentCluster("mapa");
  if (rank < 0 || size_t(rank) >= cluster.blocks.size())
    fail("mapa to block rank " + std::to_string(rank) + " of a cluster of " +
         std::to_string(cluster.blocks.size()));
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  return smemWindowOf(globalWindowOf(a), rank) + (a & (kSmemWindow - 1));
}

extern "C" int32_t stc_emu_cluster_ctarank(void) {
  return currentBlock ? currentBlock->rank : 0;
}

extern "C" void stc_emu_cluster_arrive(void) {
  Cluster &cluster = currentCluster("barrier.cluster.arrive");
  if (clusterArrivedPhase >= 0)
    fail("barrier.cluster.arrive twice without a wait");
  std::lock_guard<std::mutex> lock(cluster.mutex);
  clusterArrivedPhase = static_cast<int64_t>(cluster.phase.load());
  if (++cluster.arrived == cluster.threads) {
    cluster.arrived = 0;
    cluster.phase.fetch_add(1);
    cluster.done.notify_all();
  }
}

extern "C" void stc_emu_cluster_wait(void) {
  Cluster &cluster = currentCluster("barrier.cluster.wait");
  if (clusterArrivedPhase < 0)
    fail("barrier.cluster.wait without an arrive");
  Block *block = currentBlock;
  {
    // The other threads may all be blocked on what this one waits for.
    std::lock_guard<std::mutex> lock(mbarrierMutex);
    block->clusterWaitPhase[size_t(currentThread)] = clusterArrivedPhase;
    ++block->clusterWaiting;
    checkMbarrierDeadlock(*block);
  }
  {
    std::unique_lock<std::mutex> lock(cluster.mutex);
    uint64_t phase = static_cast<uint64_t>(clusterArrivedPhase);
    cluster.done.wait(lock, [&] { return cluster.phase.load() != phase; });
  }
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  block->clusterWaitPhase[size_t(currentThread)] = -1;
  --block->clusterWaiting;
  clusterArrivedPhase = -1;
}

extern "C" size_t stc_emu_shared_copies_for_testing(void) {
  std::lock_guard<std::mutex> lock(smemCopiesMutex);
  size_t count = 0;
  for (const auto &[base, copies] : smemCopies)
    count += copies.size();
  return count;
}

extern "C" void stc_emu_check_cluster(int64_t gridX, int64_t gridY,
                                      int64_t gridZ, int64_t clusterX,
                                      int64_t clusterY, int64_t clusterZ) {
  if (clusterX < 1 || clusterY < 1 || clusterZ < 1 || gridX % clusterX != 0 ||
      gridY % clusterY != 0 || gridZ % clusterZ != 0)
    fail("a cluster of " + std::to_string(clusterX) + " x " +
         std::to_string(clusterY) + " x " + std::to_string(clusterZ) +
         " blocks does not divide the grid of " + std::to_string(gridX) +
         " x " + std::to_string(gridY) + " x " + std::to_string(gridZ) +
         " blocks");
}
