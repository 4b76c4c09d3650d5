//===- StcGpuEmulatorTma.cpp - mbarriers and TMA in the emulator *- C++ -*-===//
//
// The emulator's mbarriers (init, arrive, expect-tx, complete-tx, parity
// waits, and the deadlock check that turns a hang into an error), tensor
// maps and TMA tile loads (multicast included), over TmaModel.h
// (stc_gpu_emulator.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/StcGpuEmulatorState.h"
#include "runtime/emulator/TmaModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace stc::emu;

//===----------------------------------------------------------------------===//
// mbarriers, tensor maps and TMA loads
//===----------------------------------------------------------------------===//

/// Every mbarrier operation and every tensor copy's complete-tx holds this
/// lock: the barriers' state lives in shared memory (TmaModel.h), not in
/// an object of ours.
std::mutex stc::emu::mbarrierMutex;

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

} // namespace

void stc::emu::checkMbarrierDeadlock(const Block &block) {
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

namespace {

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

} // namespace

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
