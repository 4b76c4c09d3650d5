//===- StcGpuEmulator.cpp - run generated GPU kernels on the CPU ----------===//

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/emulator/TmaModel.h"
#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <vector>

using namespace stc::emu;

namespace {

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
thread_local Block *currentBlock = nullptr;
thread_local int64_t currentThread = 0;
thread_local Warp *currentWarp = nullptr;
thread_local int currentLane = 0;
thread_local Warpgroup *currentWarpgroup = nullptr;
thread_local int currentWarpgroupThread = 0;
/// The cluster-barrier phase the calling thread arrived in (-1: none
/// pending), for stc_emu_cluster_wait.
thread_local int64_t clusterArrivedPhase = -1;

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "stc-gpu-emulator: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

/// Every mbarrier operation and every tensor copy's complete-tx holds this
/// lock: the barriers' state lives in shared memory (TmaModel.h), not in
/// an object of ours.
std::mutex mbarrierMutex;

void checkMbarrierDeadlock(const Block &block);

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
}

namespace {

/// The instruction of an stc_emu_mma_sp input_kind (stc_gpu_emulator.h), or
/// false for an unknown kind.
bool instrOfKind(int32_t inputKind, MmaSpInstr &instr) {
  using stc::format::MmaSpShape;
  auto integer = [&](MmaSpShape shape, MmaElem a, MmaElem b) {
    instr = {shape, a, b, MmaElem::S32};
    return true;
  };
  switch (static_cast<StcEmuMmaSpKind>(inputKind)) {
  case STC_EMU_MMA_SP_M16N8K32_F32_F16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F16, MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K32_F32_BF16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::BF16, MmaElem::BF16,
             MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K16_F32_TF32:
    instr = {MmaSpShape::M16N8K16TF32, MmaElem::TF32, MmaElem::TF32,
             MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K32_F16_F16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F16, MmaElem::F16};
    return true;
  case STC_EMU_MMA_SP_M16N8K64_S32_S8_S8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K32_S32_S8_S8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K64_S32_U8_U8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::U8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K32_S32_U8_U8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::U8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K64_S32_S8_U8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K32_S32_S8_U8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K64_S32_U8_S8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::U8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K32_S32_U8_S8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::U8, MmaElem::S8);
  }
  return false;
}

} // namespace

extern "C" void stc_emu_mma_sp(int32_t inputKind, int32_t ordered,
                               const int32_t *a, const int32_t *b,
                               const float *c, int32_t meta, int32_t selector,
                               float *d) {
  (void)ordered; // The model is of the ordered form; the plain form reads
                 // the same metadata for the legal (increasing) nibbles.
  Warp *warp = currentWarp;
  if (!warp)
    fail("mma.sp called outside stc_emu_launch");
  MmaSpInstr instr;
  if (!instrOfKind(inputKind, instr))
    fail("mma.sp of unknown input_kind " + std::to_string(inputKind));
  int lane = currentLane;
  // Registers per lane: A and B by shape; C and D 4 words (f32 or s32), or
  // 2 f16x2 words for f16 accumulators.
  const int aRegs = mmaSpARegs(instr), bRegs = mmaSpBRegs(instr),
            cRegs = mmaSpCRegs(instr);
  std::unique_lock<std::mutex> lock(warp->mutex);
  if (warp->arrived == 0) {
    warp->inputKind = inputKind;
    warp->selector = selector;
    warp->in.a.assign(size_t(32 * aRegs), 0);
    warp->in.b.assign(size_t(32 * bRegs), 0);
    warp->in.c.assign(size_t(32 * cRegs), 0);
  } else if (warp->inputKind != inputKind || warp->selector != selector) {
    fail("the lanes of a warp disagree on the mma.sp's type or selector");
  }
  for (int i = 0; i < aRegs; ++i)
    warp->in.a[lane * aRegs + i] = static_cast<uint32_t>(a[i]);
  for (int i = 0; i < bRegs; ++i)
    warp->in.b[lane * bRegs + i] = static_cast<uint32_t>(b[i]);
  for (int i = 0; i < cRegs; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &c[i], 4);
    warp->in.c[lane * cRegs + i] = bits;
  }
  warp->in.e[lane] = static_cast<uint32_t>(meta);
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    MmaSpResult result = runMmaSp(instr, warp->in, selector);
    if (!result.ok)
      fail(mmaSpInstrName(instr) + ": " + result.error);
    warp->d = std::move(result.d);
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
  for (int i = 0; i < cRegs; ++i)
    std::memcpy(&d[i], &warp->d[lane * cRegs + i], 4);
}

extern "C" void stc_emu_ldmatrix(const void *row, int32_t num, int32_t trans,
                                 int32_t *out) {
  Warp *warp = currentWarp;
  if (!warp)
    fail("ldmatrix called outside stc_emu_launch");
  if (num != 1 && num != 2 && num != 4)
    fail("ldmatrix .x" + std::to_string(num));
  int lane = currentLane;
  std::unique_lock<std::mutex> lock(warp->mutex);
  warp->rows[lane] = static_cast<const uint8_t *>(row);
  if (warp->arrived == 0) {
    warp->num = num;
    warp->trans = trans;
  } else if (warp->num != num || warp->trans != trans) {
    fail("the lanes of a warp disagree on an ldmatrix's shape");
  }
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    // Matrix m's row r is at the address of lane 8m + r (8 b16 elements,
    // 16 bytes, which must be 16-byte aligned).
    for (int m = 0; m < num; ++m)
      for (int r = 0; r < 8; ++r)
        if (reinterpret_cast<uintptr_t>(warp->rows[8 * m + r]) % 16 != 0)
          fail("ldmatrix row address not 16-byte aligned");
    for (int l = 0; l < 32; ++l) {
      for (int m = 0; m < num; ++m) {
        uint16_t lo, hi;
        if (!warp->trans) {
          const uint8_t *r = warp->rows[8 * m + l / 4];
          std::memcpy(&lo, r + 4 * (l % 4), 2);
          std::memcpy(&hi, r + 4 * (l % 4) + 2, 2);
        } else {
          std::memcpy(&lo, warp->rows[8 * m + 2 * (l % 4)] + 2 * (l / 4), 2);
          std::memcpy(&hi, warp->rows[8 * m + 2 * (l % 4) + 1] + 2 * (l / 4),
                      2);
        }
        warp->words[l][m] = uint32_t(lo) | (uint32_t(hi) << 16);
      }
    }
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
  for (int m = 0; m < num; ++m)
    out[m] = static_cast<int32_t>(warp->words[lane][m]);
}

extern "C" void stc_emu_cp_async(void *dst, const void *src, int32_t size,
                                 int32_t srcSize) {
  if (srcSize < 0 || srcSize > size)
    fail("cp.async with src-size " + std::to_string(srcSize) +
         " of a copy of " + std::to_string(size) + " bytes");
  if (reinterpret_cast<uintptr_t>(dst) % size != 0 ||
      (srcSize > 0 && reinterpret_cast<uintptr_t>(src) % size != 0))
    fail("cp.async of " + std::to_string(size) +
         " bytes from or to a misaligned address");
  std::memcpy(dst, src, srcSize);
  std::memset(static_cast<uint8_t *>(dst) + srcSize, 0, size - srcSize);
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

namespace {

/// One thread's wgmma.mma_async.sp: A from its registers `a`, or (a null)
/// from shared memory through aDesc.
void wgmmaSp(int32_t kind, int32_t n, const int32_t *a, int64_t aDesc,
             int32_t transA, int64_t bDesc, int32_t meta, int32_t selector,
             int32_t scaleD, int32_t scaleA, int32_t scaleB, int32_t transB,
             const void *smem, int64_t smemBytes, float *d) {
  Warpgroup *wg = currentWarpgroup;
  if (!wg)
    fail("wgmma.mma_async.sp called outside stc_emu_launch");
  if (wg->threads != kWarpgroupThreads)
    fail("wgmma.mma_async.sp in a warpgroup of " + std::to_string(wg->threads) +
         " threads (the block's size is not a multiple of 128)");
  WgmmaSpInstr instr;
  instr.n = n;
  switch (static_cast<StcEmuWgmmaSpKind>(kind)) {
  case STC_EMU_WGMMA_SP_F32_F16:
    instr.a = instr.b = MmaElem::F16;
    instr.d = MmaElem::F32;
    break;
  case STC_EMU_WGMMA_SP_F32_BF16:
    instr.a = instr.b = MmaElem::BF16;
    instr.d = MmaElem::F32;
    break;
  case STC_EMU_WGMMA_SP_F16_F16:
    instr.a = instr.b = MmaElem::F16;
    instr.d = MmaElem::F16;
    break;
  case STC_EMU_WGMMA_SP_S32_S8:
    instr.a = instr.b = MmaElem::S8;
    instr.d = MmaElem::S32;
    break;
  default:
    fail("wgmma.mma_async.sp of unknown kind " + std::to_string(kind));
  }
  if (n < 8 || n > 256 || n % 8 != 0)
    fail("wgmma.mma_async.sp with n = " + std::to_string(n));
  constexpr uintptr_t kWindow = uintptr_t(1) << 18; // 256 KiB
  if (!smem || reinterpret_cast<uintptr_t>(smem) % kWindow != 0 ||
      smemBytes <= 0 || uint64_t(smemBytes) > kWindow)
    fail("wgmma.mma_async.sp needs the kernel's shared memory at a 256 KiB "
         "aligned address, of 1 byte to 256 KiB (got " +
         std::to_string(smemBytes) + " bytes at " +
         std::to_string(reinterpret_cast<uintptr_t>(smem)) + ")");
  const bool aFromSmem = a == nullptr;
  const int t = currentWarpgroupThread;
  const int aRegs = wgmmaSpARegs(instr), dRegs = wgmmaSpDRegs(instr);
  std::unique_lock<std::mutex> lock(wg->mutex);
  if (wg->arrived == 0) {
    wg->instr = instr;
    wg->kind = kind;
    wg->smem = smem;
    wg->smemBytes = smemBytes;
    wg->in = WgmmaSpOperands();
    wg->in.aFromSmem = aFromSmem;
    if (aFromSmem) {
      wg->in.aDesc = static_cast<uint64_t>(aDesc);
      wg->in.transA = transA;
    } else {
      wg->in.a.assign(size_t(kWarpgroupThreads * aRegs), 0);
    }
    wg->in.bDesc = static_cast<uint64_t>(bDesc);
    wg->in.transB = transB;
    wg->in.selector = selector;
    wg->in.scaleD = scaleD != 0;
    wg->in.scaleA = scaleA;
    wg->in.scaleB = scaleB;
    wg->in.d.assign(size_t(kWarpgroupThreads * dRegs), 0);
  } else if (wg->kind != kind || wg->instr.n != n ||
             wg->in.aFromSmem != aFromSmem ||
             (aFromSmem && (wg->in.aDesc != static_cast<uint64_t>(aDesc) ||
                            wg->in.transA != transA)) ||
             wg->in.bDesc != static_cast<uint64_t>(bDesc) ||
             wg->in.transB != transB || wg->in.selector != selector ||
             wg->in.scaleD != (scaleD != 0) || wg->in.scaleA != scaleA ||
             wg->in.scaleB != scaleB || wg->smem != smem ||
             wg->smemBytes != smemBytes) {
    fail("the threads of a warpgroup disagree on a wgmma.mma_async.sp's "
         "type, n, A source or descriptor, B descriptor, selector, scales, "
         "transposes or shared memory");
  }
  if (!aFromSmem)
    for (int i = 0; i < aRegs; ++i)
      wg->in.a[size_t(t * aRegs + i)] = static_cast<uint32_t>(a[i]);
  std::memcpy(&wg->in.d[size_t(t * dRegs)], d, size_t(dRegs) * 4);
  wg->in.e[size_t(t)] = static_cast<uint32_t>(meta);
  uint64_t generation = wg->generation;
  if (++wg->arrived == kWarpgroupThreads) {
    const auto *bytes = static_cast<const uint8_t *>(smem);
    wg->in.smem.assign(bytes, bytes + smemBytes);
    WgmmaSpResult result = runWgmmaSp(instr, wg->in);
    if (!result.ok)
      fail(wgmmaSpInstrName(instr) + ": " + result.error);
    wg->d = std::move(result.d);
    wg->in.smem.clear();
    wg->arrived = 0;
    ++wg->generation;
    wg->done.notify_all();
  } else {
    wg->done.wait(lock, [&] { return wg->generation != generation; });
  }
  std::memcpy(d, &wg->d[size_t(t * dRegs)], size_t(dRegs) * 4);
}

} // namespace

extern "C" void stc_emu_wgmma_sp(int32_t kind, int32_t n, const int32_t *a,
                                 int64_t bDesc, int32_t meta, int32_t selector,
                                 int32_t scaleD, int32_t scaleA, int32_t scaleB,
                                 int32_t transB, const void *smem,
                                 int64_t smemBytes, float *d) {
  if (!a)
    fail("wgmma.mma_async.sp with A from registers and no registers");
  wgmmaSp(kind, n, a, 0, 0, bDesc, meta, selector, scaleD, scaleA, scaleB,
          transB, smem, smemBytes, d);
}

extern "C" void stc_emu_wgmma_sp_ss(int32_t kind, int32_t n, int64_t aDesc,
                                    int64_t bDesc, int32_t meta,
                                    int32_t selector, int32_t scaleD,
                                    int32_t scaleA, int32_t scaleB,
                                    int32_t transA, int32_t transB,
                                    const void *smem, int64_t smemBytes,
                                    float *d) {
  wgmmaSp(kind, n, nullptr, aDesc, transA, bDesc, meta, selector, scaleD,
          scaleA, scaleB, transB, smem, smemBytes, d);
}

//===----------------------------------------------------------------------===//
// mbarriers, tensor maps and TMA loads
//===----------------------------------------------------------------------===//

namespace {

/// Waiters sleep on one of these, chosen by the barrier's address: a
/// completed phase wakes only the threads of (about) its own barrier.
constexpr size_t kMbarrierQueues = 64;
std::condition_variable mbarrierQueues[kMbarrierQueues];

std::condition_variable &queueOf(const void *bar) {
  return mbarrierQueues[(reinterpret_cast<uintptr_t>(bar) >> 3) %
                        kMbarrierQueues];
}

/// "the mbarrier at shared address 0x..." (the low 18 bits of the host
/// address are the shared address: the shared-memory globals are 256 KiB
/// aligned).
std::string mbarrierName(const void *bar) {
  std::ostringstream os;
  os << "the mbarrier at shared address 0x" << std::hex
     << (reinterpret_cast<uintptr_t>(bar) & 0x3FFFF);
  return os.str();
}

MbarrierState loadMbarrier(const void *bar, const char *what) {
  if (!bar || reinterpret_cast<uintptr_t>(bar) % 8 != 0)
    fail(std::string(what) + " on " + mbarrierName(bar) +
         ", which is not 8-byte aligned");
  uint64_t word;
  std::memcpy(&word, bar, 8);
  return decodeMbarrier(word);
}

void storeMbarrier(void *bar, const MbarrierState &state) {
  uint64_t word = encodeMbarrier(state);
  std::memcpy(bar, &word, 8);
}

void checkMbarrier(const std::string &error, const void *bar) {
  if (!error.empty())
    fail(error + " (" + mbarrierName(bar) + ")");
}

/// Stores the new state and wakes the waiters when a phase completed.
void updateMbarrier(void *bar, const MbarrierState &state, bool completed) {
  storeMbarrier(bar, state);
  if (completed)
    queueOf(bar).notify_all();
}

/// Under mbarrierMutex: reports a deadlock and stops when every thread of
/// `block`'s cluster (the block alone when it has none) has exited, waits
/// on an mbarrier phase that has not completed, or waits at a cluster
/// barrier that has not completed. Nothing else can then complete one (a
/// tensor copy completes its bytes before the issuing thread goes on).
/// Threads blocked elsewhere (bar.sync, an mma rendezvous) are not
/// counted, so such mixed hangs stay hangs.
void checkMbarrierDeadlock(const Block &block) {
  std::vector<const Block *> blocks = {&block};
  if (block.cluster)
    blocks.assign(block.cluster->blocks.begin(), block.cluster->blocks.end());
  int64_t waiting = 0, clusterWaiting = 0, exited = 0, threads = 0;
  for (const Block *b : blocks) {
    waiting += b->waiting;
    clusterWaiting += b->clusterWaiting;
    exited += b->exited;
    threads += b->threads;
  }
  if (waiting + clusterWaiting == 0 ||
      waiting + clusterWaiting + exited != threads)
    return;
  for (const Block *b : blocks)
    for (int64_t phase : b->clusterWaitPhase)
      if (phase >= 0 && b->cluster->phase.load() != uint64_t(phase))
        return; // woken, not yet running
  // The waiting threads, by barrier and parity (first block and thread,
  // count).
  std::map<std::pair<const void *, int32_t>,
           std::tuple<const Block *, int64_t, int64_t>>
      groups;
  for (const Block *b : blocks)
    for (int64_t t = 0; t < b->threads; ++t) {
      const void *bar = b->waitBarrier[size_t(t)];
      if (!bar)
        continue;
      int32_t parity = b->waitParity[size_t(t)];
      uint64_t word;
      std::memcpy(&word, bar, 8);
      if (decodeMbarrier(word).phaseDone(parity))
        return; // woken, not yet running
      auto [it, inserted] =
          groups.try_emplace({bar, parity}, std::make_tuple(b, t, int64_t(0)));
      ++std::get<2>(it->second);
    }
  std::ostringstream os;
  os << "mbarrier deadlock in block (" << block.x << ", " << block.y << ")";
  if (blocks.size() > 1)
    os << "'s cluster of " << blocks.size() << " blocks";
  os << ": " << waiting << " threads wait for mbarrier phases that "
     << "cannot complete";
  if (clusterWaiting)
    os << ", " << clusterWaiting << " at a cluster barrier that cannot "
       << "complete,";
  os << " and the other " << exited << " have exited";
  for (const auto &[key, who] : groups) {
    uint64_t word;
    std::memcpy(&word, key.first, 8);
    os << "; " << std::get<2>(who) << " thread(s) (first " << std::get<1>(who);
    if (blocks.size() > 1)
      os << " of block rank " << std::get<0>(who)->rank;
    os << ") wait for the phase of parity " << key.second << " of "
       << mbarrierName(key.first) << " ("
       << describeMbarrier(decodeMbarrier(word)) << ")";
  }
  fail(os.str());
}

/// The tensor maps made so far, by their contents: host code may make the
/// same map at every call.
std::mutex tensorMapMutex;
std::map<std::pair<const void *, std::vector<int64_t>>,
         std::unique_ptr<TensorMap>>
    tensorMaps;

/// The emulator's map for these arguments (see makeTensorMap), made once;
/// a bad argument is an error.
void *tensorMapFor(const void *base, int32_t dataType, int32_t rank,
                   const int64_t *dims, const int64_t *strides,
                   const int32_t *box, const int32_t *elementStrides,
                   int32_t swizzleBytes) {
  auto map = std::make_unique<TensorMap>();
  std::string error = makeTensorMap(base, dataType, rank, dims, strides, box,
                                    elementStrides, swizzleBytes, *map);
  if (!error.empty())
    fail("tensor map: " + error);
  std::vector<int64_t> key = {map->dataType, map->rank, map->swizzleBytes};
  for (int32_t d = 0; d < map->rank; ++d)
    key.insert(key.end(), {map->dims[d], map->strides[d], map->box[d],
                           map->elementStrides[d]});
  std::lock_guard<std::mutex> lock(tensorMapMutex);
  auto [it, inserted] =
      tensorMaps.try_emplace(std::make_pair(base, std::move(key)), nullptr);
  if (inserted)
    it->second = std::move(map);
  return it->second.get();
}

/// cp.async.bulk.tensor.<rank>d ... .tile with the `rank` coordinates
/// `coords` (innermost first).
void tmaLoadOf(int32_t rank, void *dst, const void *map, const int32_t *coords,
               void *bar) {
  const auto *m = static_cast<const TensorMap *>(map);
  if (!m || m->magic != TensorMap::kMagic)
    fail("cp.async.bulk.tensor with a tensor map that neither "
         "stc_emu_tensor_map_2d nor stc_emu_tensor_map_4d made");
  if (m->rank != rank)
    fail("cp.async.bulk.tensor." + std::to_string(rank) + "d with a " +
         std::to_string(m->rank) + "-D tensor map");
  std::string error = tmaLoadError(*m, reinterpret_cast<uintptr_t>(dst));
  if (!error.empty())
    fail("cp.async.bulk.tensor: " + error);
  // Check the barrier before the copy writes anything.
  {
    std::lock_guard<std::mutex> lock(mbarrierMutex);
    if (!loadMbarrier(bar, "cp.async.bulk.tensor").initialised())
      fail("cp.async.bulk.tensor completing on " + mbarrierName(bar) +
           ", which is not initialised (count 0)");
  }
  tmaLoad(*m, dst, coords);
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "complete-tx");
  bool completed = false;
  checkMbarrier(mbarrierCompleteTx(state, tmaBoxBytes(*m), completed), bar);
  updateMbarrier(bar, state, completed);
}

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

Cluster &currentCluster(const char *what) {
  if (!currentBlock || !currentBlock->cluster)
    fail(std::string(what) + " called outside stc_emu_launch");
  return *currentBlock->cluster;
}

} // namespace

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

extern "C" void stc_emu_mbarrier_init(void *bar, int32_t count) {
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "mbarrier.init");
  checkMbarrier(mbarrierInit(state, count), bar);
  // Threads waiting on the old object see the new phase 0.
  updateMbarrier(bar, state, /*completed=*/true);
}

extern "C" void stc_emu_mbarrier_arrive(void *bar, int32_t count) {
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "mbarrier.arrive");
  bool completed = false;
  checkMbarrier(mbarrierArrive(state, count, completed), bar);
  updateMbarrier(bar, state, completed);
}

extern "C" void stc_emu_mbarrier_arrive_expect_tx(void *bar, int32_t bytes) {
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "mbarrier.arrive.expect_tx");
  bool completed = false;
  checkMbarrier(mbarrierExpectTx(state, bytes), bar);
  checkMbarrier(mbarrierArrive(state, 1, completed), bar);
  updateMbarrier(bar, state, completed);
}

extern "C" void stc_emu_mbarrier_expect_tx(void *bar, int32_t bytes) {
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "mbarrier.expect_tx");
  checkMbarrier(mbarrierExpectTx(state, bytes), bar);
  updateMbarrier(bar, state, /*completed=*/false);
}

extern "C" void stc_emu_mbarrier_complete_tx(void *bar, int32_t bytes) {
  std::lock_guard<std::mutex> lock(mbarrierMutex);
  MbarrierState state = loadMbarrier(bar, "complete-tx");
  bool completed = false;
  checkMbarrier(mbarrierCompleteTx(state, bytes, completed), bar);
  updateMbarrier(bar, state, completed);
}

extern "C" void stc_emu_mbarrier_wait_parity(void *bar, int32_t parity) {
  if (parity != 0 && parity != 1)
    fail("mbarrier.try_wait.parity with parity " + std::to_string(parity) +
         " (expected 0 or 1) on " + mbarrierName(bar));
  std::unique_lock<std::mutex> lock(mbarrierMutex);
  const char *what = "mbarrier.try_wait.parity";
  MbarrierState state = loadMbarrier(bar, what);
  if (!state.initialised())
    fail(std::string(what) + " on " + mbarrierName(bar) +
         ", which is not initialised (count 0)");
  if (state.phaseDone(parity))
    return;
  Block *block = currentBlock;
  if (block) {
    block->waitBarrier[size_t(currentThread)] = bar;
    block->waitParity[size_t(currentThread)] = parity;
    ++block->waiting;
    checkMbarrierDeadlock(*block);
  }
  std::condition_variable &queue = queueOf(bar);
  do
    queue.wait(lock);
  while (!loadMbarrier(bar, what).phaseDone(parity));
  if (block) {
    block->waitBarrier[size_t(currentThread)] = nullptr;
    --block->waiting;
  }
}

extern "C" void *stc_emu_tensor_map_2d(const void *base, int32_t dataType,
                                       int64_t inner, int64_t outer,
                                       int64_t outerStrideBytes,
                                       int32_t boxInner, int32_t boxOuter,
                                       int32_t swizzleBytes) {
  const int64_t dims[2] = {inner, outer};
  const int32_t box[2] = {boxInner, boxOuter};
  return tensorMapFor(base, dataType, 2, dims, &outerStrideBytes, box,
                      /*elementStrides=*/nullptr, swizzleBytes);
}

extern "C" void *stc_emu_tensor_map_4d(const void *base, int32_t dataType,
                                       int64_t d0, int64_t d1, int64_t d2,
                                       int64_t d3, int64_t s1, int64_t s2,
                                       int64_t s3, int32_t b0, int32_t b1,
                                       int32_t b2, int32_t b3, int32_t e0,
                                       int32_t e1, int32_t e2, int32_t e3,
                                       int32_t swizzleBytes) {
  const int64_t dims[4] = {d0, d1, d2, d3};
  const int64_t strides[3] = {s1, s2, s3};
  const int32_t box[4] = {b0, b1, b2, b3};
  const int32_t elementStrides[4] = {e0, e1, e2, e3};
  return tensorMapFor(base, dataType, 4, dims, strides, box, elementStrides,
                      swizzleBytes);
}

extern "C" void stc_emu_tma_load_2d(void *dst, const void *map, int32_t x,
                                    int32_t y, void *bar) {
  const int32_t coords[2] = {x, y};
  tmaLoadOf(2, dst, map, coords, bar);
}

extern "C" void stc_emu_tma_load_2d_multicast(void *dst, const void *map,
                                              int32_t x, int32_t y, void *bar,
                                              int32_t mask) {
  Cluster &cluster = currentCluster("cp.async.bulk.tensor.multicast");
  const int32_t coords[2] = {x, y};
  if (mask <= 0 || (uint64_t(mask) >> cluster.blocks.size()) != 0)
    fail("cp.async.bulk.tensor.multicast with mask " + std::to_string(mask) +
         " in a cluster of " + std::to_string(cluster.blocks.size()) +
         " blocks");
  for (int32_t r = 0; size_t(r) < cluster.blocks.size(); ++r)
    if (mask & (1 << r))
      tmaLoadOf(2, stc_emu_mapa(dst, r), map, coords, stc_emu_mapa(bar, r));
}

extern "C" void stc_emu_tma_load_4d(void *dst, const void *map, int32_t c0,
                                    int32_t c1, int32_t c2, int32_t c3,
                                    void *bar) {
  const int32_t coords[4] = {c0, c1, c2, c3};
  tmaLoadOf(4, dst, map, coords, bar);
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
