//===- StcGpuEmulatorState.h - the emulated threads' state ------*- C++ -*-===//
//
// What the emulator's entry points share (StcGpuEmulator.cpp: launches,
// bar.sync, clusters and shared memory; StcGpuEmulatorMma.cpp: mma.sp,
// ldmatrix, cp.async, wgmma; StcGpuEmulatorTma.cpp: mbarriers, tensor maps,
// TMA loads): the rendezvous objects of a warp, a block, a cluster and a
// warpgroup, the calling thread's place in them, the error exit and the
// mbarrier lock.
//
// Internal to the emulator (not part of its API).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_EMULATOR_STCGPUEMULATORSTATE_H
#define STC_RUNTIME_EMULATOR_STCGPUEMULATORSTATE_H

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/emulator/WgmmaSpModel.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace stc::emu {

/// The 32 threads of one warp meet here at each mma.sp: every lane
/// deposits its registers; the last to arrive runs the model for the warp
/// and wakes the others, who take their result.
struct Warp {
  std::mutex mutex;
  std::condition_variable done;
  int arrived = 0;
  uint64_t generation = 0;
  MmaSpFragments in;
  std::vector<uint32_t> d;
  int inputKind = 0, selector = 0;
  // ldmatrix: each lane's row address, and the words it receives.
  const uint8_t *rows[32] = {};
  uint32_t words[32][4] = {};
  int num = 0, trans = 0;
  // shfl.sync: each lane's word and lane mask, and the word it receives.
  uint32_t shflIn[32] = {}, shflOut[32] = {};
  int shflMask[32] = {};
};

struct Cluster;

/// The threads of one block, for bar.sync, and what the mbarrier deadlock
/// check needs.
struct Block {
  std::mutex mutex;
  std::condition_variable done;
  int64_t threads = 0;
  int64_t arrived = 0;
  uint64_t generation = 0;
  /// bar.sync id, count (id 1 .. 15; bar.sync 0 is arrived/generation
  /// above), guarded by `mutex` and signalled through `done`.
  struct NamedBarrier {
    int64_t arrived = 0;
    uint64_t generation = 0;
  };
  NamedBarrier named[16];
  int64_t x = 0, y = 0;
  /// The block's rank in its cluster (%cluster_ctarank) and the cluster.
  int32_t rank = 0;
  Cluster *cluster = nullptr;
  // Guarded by mbarrierMutex: threads whose kernel returned, threads in
  // stc_emu_mbarrier_wait_parity, and for each of those the barrier and
  // parity it waits for (null when not waiting).
  int64_t exited = 0;
  int64_t waiting = 0;
  std::vector<const void *> waitBarrier;
  std::vector<int32_t> waitParity;
  // Threads in stc_emu_cluster_wait, and the cluster-barrier phase each
  // waits to see end (-1 when not waiting).
  int64_t clusterWaiting = 0;
  std::vector<int64_t> clusterWaitPhase;
};

/// The blocks of one cluster (1 x clusterY x 1), which run together: the
/// cluster barrier (barrier.cluster.arrive / wait) of all their threads.
struct Cluster {
  std::vector<Block *> blocks; // by rank
  std::mutex mutex;
  std::condition_variable done;
  int64_t threads = 0, arrived = 0;
  /// Written under `mutex`; read by the deadlock check without it.
  std::atomic<uint64_t> phase{0};
};

/// The 128 threads of one warpgroup (warps 4i .. 4i + 3 of the block) meet
/// here at each wgmma.mma_async.sp, like a Warp's lanes at an mma.sp: every
/// thread deposits its registers; the last to arrive runs the model for the
/// warpgroup and wakes the others, who take their result.
struct Warpgroup {
  std::mutex mutex;
  std::condition_variable done;
  /// Threads of the block in this warpgroup (128 unless the block ends in
  /// a partial warpgroup, which cannot run a wgmma).
  int threads = 0;
  int arrived = 0;
  uint64_t generation = 0;
  WgmmaSpInstr instr;
  WgmmaSpOperands in;
  // The uniform operands as the first thread gave them.
  int kind = 0;
  const void *smem = nullptr;
  int64_t smemBytes = 0;
  std::vector<uint32_t> d;
};

/// The calling thread's block, warp and lane, warpgroup and index in it
/// (set by stc_emu_launch).
extern thread_local Block *currentBlock;
extern thread_local int64_t currentThread;
extern thread_local Warp *currentWarp;
extern thread_local int currentLane;
extern thread_local Warpgroup *currentWarpgroup;
extern thread_local int currentWarpgroupThread;
/// The cluster-barrier phase the calling thread arrived in (-1: none
/// pending), for stc_emu_cluster_wait.
extern thread_local int64_t clusterArrivedPhase;

/// Prints "stc-gpu-emulator: error: <message>" and exits the process.
[[noreturn]] void fail(const std::string &message);

/// Every mbarrier operation and every tensor copy's complete-tx holds this
/// lock (StcGpuEmulatorTma.cpp).
extern std::mutex mbarrierMutex;

/// Under mbarrierMutex: reports a deadlock and stops when every thread of
/// `block`'s cluster (the block alone when it has none) has exited, waits
/// on an mbarrier phase that has not completed, or waits at a cluster
/// barrier that has not completed. Nothing else can then complete one (a
/// tensor copy completes its bytes before the issuing thread goes on).
/// Threads blocked elsewhere (bar.sync, an mma rendezvous) are not
/// counted, so such mixed hangs stay hangs.
void checkMbarrierDeadlock(const Block &block);

/// Counts a launch that ran for `ms` milliseconds (StcGpuEmulatorMemory.cpp,
/// for stc_emu_counters).
void noteLaunch(double ms);

/// The calling thread's cluster; an error outside stc_emu_launch.
Cluster &currentCluster(const char *what);

} // namespace stc::emu

#endif // STC_RUNTIME_EMULATOR_STCGPUEMULATORSTATE_H
