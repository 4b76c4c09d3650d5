//===- StcGpuEmulatorMemory.cpp - device memory events, emulated -*- C++ -*-=//
//
// The emulator's half of `stc-run --profile`: generated code on the
// emulator allocates its "device" buffers as host memory, and reports each
// allocation, free and copy here, where they are counted as the CUDA
// runtime counts them (runtime/cuda/DeviceMemory.cpp): allocations through
// the same pool policy (runtime/DevicePoolPolicy.h), so that a request a
// GPU's pool would serve from its cache counts as no allocation. Resident
// weights are real host copies, made once per slot like the GPU's uploads.
//
//===----------------------------------------------------------------------===//

#include "runtime/DevicePoolPolicy.h"
#include "runtime/emulator/StcGpuEmulatorState.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace {

struct EmulatedMemory {
  std::mutex mu;
  /// Which blocks the pool would hold: interchangeable within a size class,
  /// so a block is just a number.
  stc::SizeClassCache<uint64_t> pool{stc::poolCacheLimitBytes()};
  uint64_t nextBlock = 1;
  /// The size class of every allocation not yet freed, by address.
  std::map<int64_t, uint64_t> live;
  std::map<int64_t *, void *> residents;
  StcGpuCounters counters = {};
};

EmulatedMemory &memory() {
  static EmulatedMemory &m = *new EmulatedMemory();
  return m;
}

} // namespace

namespace stc::emu {

void noteLaunch(double ms) {
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  m.counters.launches++;
  m.counters.kernel_ms += ms;
}

} // namespace stc::emu

extern "C" void stc_emu_device_alloc(int64_t address, int64_t bytes) {
  if (bytes <= 0 || address == 0)
    return;
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  uint64_t sizeClass = stc::poolSizeClass(uint64_t(bytes));
  m.live[address] = sizeClass;
  if (!m.pool.take(sizeClass))
    m.counters.device_allocs++;
}

extern "C" void stc_emu_device_free(int64_t address) {
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.live.find(address);
  if (it == m.live.end())
    return;
  m.counters.device_frees += m.pool.put(it->second, m.nextBlock++).size();
  m.live.erase(it);
}

extern "C" void stc_emu_copy(int32_t toDevice, int64_t bytes) {
  if (bytes <= 0)
    return;
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  (toDevice ? m.counters.h2d_bytes : m.counters.d2h_bytes) += uint64_t(bytes);
}

extern "C" void *stc_emu_resident(int64_t *slot, const void *host,
                                  int64_t bytes) {
  if (!slot || !host || bytes <= 0)
    stc::emu::fail("stc_emu_resident: null slot or host buffer, or " +
                   std::to_string(bytes) + " bytes");
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  if (*slot)
    return reinterpret_cast<void *>(uintptr_t(*slot));
  // 256-byte aligned, as cuMemAlloc's blocks are (TMA needs 16).
  size_t rounded = (size_t(bytes) + 255) / 256 * 256;
  void *copy = std::aligned_alloc(256, rounded);
  if (!copy)
    stc::emu::fail("stc_emu_resident: out of memory for " +
                   std::to_string(bytes) + " bytes");
  std::memcpy(copy, host, size_t(bytes));
  m.residents[slot] = copy;
  m.counters.device_allocs++;
  m.counters.h2d_bytes += uint64_t(bytes);
  *slot = int64_t(reinterpret_cast<uintptr_t>(copy));
  return copy;
}

extern "C" void stc_emu_release_resident(int64_t *slot) {
  if (!slot)
    return;
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.residents.find(slot);
  if (it != m.residents.end()) {
    std::free(it->second);
    m.residents.erase(it);
    m.counters.device_frees++;
  }
  *slot = 0;
}

extern "C" void stc_emu_counters(StcGpuCounters *counters) {
  if (!counters)
    return;
  EmulatedMemory &m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  *counters = m.counters;
}
