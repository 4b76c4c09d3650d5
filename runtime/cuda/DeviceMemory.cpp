//===- DeviceMemory.cpp - pooled device memory, resident weights -*- C++ -*-=//
//
// runtime/cuda/DeviceMemory.h says what and why; the entry points that
// generated code calls (stc_gpu_resident, stc_gpu_release_resident) and the
// counters and pool calls of the C API (stc_cuda_counters,
// stc_cuda_set_profiling, stc_cuda_release_cached_memory) are here too.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/DeviceMemory.h"
#include "runtime/DevicePoolPolicy.h"
#include "runtime/cuda/TensorMaps.h"
#include "runtime/stc_runtime_cuda.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

using namespace stc::cuda;

namespace {

/// A cached block: its address, the event recorded on the stream that
/// freed it (null: freed with no stream, nothing to wait for) and its serial
/// number (blocks are numbered in the order cuMemAlloc made them).
struct PoolBlock {
  CUdeviceptr ptr = 0;
  CUevent ready = nullptr;
  uint64_t serial = 0;
  bool operator==(const PoolBlock &o) const {
    return ptr == o.ptr && ready == o.ready;
  }
  /// The pool takes the free block made first (DevicePoolPolicy.h).
  bool operator<(const PoolBlock &o) const { return serial < o.serial; }
};

/// What the pool knows of a block it made: its size class and serial.
struct BlockInfo {
  uint64_t sizeClass = 0, serial = 0;
};

struct Pool {
  std::mutex mu;
  /// One cache per device (keyed like the tensor-map cache, by the
  /// device's properties, which live as long as the device's slot).
  std::map<const void *, stc::SizeClassCache<PoolBlock>> caches;
  /// Every block the pool handed out or holds.
  std::map<CUdeviceptr, BlockInfo> classes;
  uint64_t nextSerial = 1;
  int loadedModules = 0;
};

Pool &pool() {
  static Pool &p = *new Pool();
  return p;
}

stc::SizeClassCache<PoolBlock> &cacheFor(Pool &p, Call &call) {
  const void *key = &call.props();
  auto it = p.caches.find(key);
  if (it == p.caches.end())
    it =
        p.caches
            .emplace(key,
                     stc::SizeClassCache<PoolBlock>(stc::poolCacheLimitBytes()))
            .first;
  return it->second;
}

struct Counters {
  std::atomic<uint64_t> launches{0}, h2d{0}, d2h{0}, allocs{0}, frees{0};
  std::atomic<bool> profiling{false};
  std::mutex mu;
  double kernelMs = 0;
  /// Launches bracketed by events whose time is not yet added.
  std::vector<std::pair<CUevent, CUevent>> pending;
};

Counters &counters() {
  static Counters &c = *new Counters();
  return c;
}

/// The start event of the launch being made, per thread.
thread_local CUevent launchStart = nullptr;

/// Really frees a block: its tensor-map copies with it.
void releaseBlock(Call &call, const PoolBlock &block) {
  CudaDriver &drv = call.driver();
  if (block.ready)
    drv.cuEventDestroy(block.ready);
  call.check(drv.cuMemFree(block.ptr), "cuMemFree");
  countDeviceFree();
  freeTensorMapsOf(call, uintptr_t(block.ptr));
}

/// The resident uploads, by slot.
struct Residents {
  std::mutex mu;
  std::map<int64_t *, CUdeviceptr> bySlot;
};

Residents &residents() {
  static Residents &r = *new Residents();
  return r;
}

} // namespace

namespace stc::cuda {

CUdeviceptr poolAllocate(Call &call, uint64_t bytes, CUstream stream) {
  uint64_t sizeClass = stc::poolSizeClass(bytes);
  Pool &p = pool();
  std::optional<PoolBlock> cached;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    cached = cacheFor(p, call).take(sizeClass);
  }
  CudaDriver &drv = call.driver();
  if (cached) {
    if (cached->ready) {
      // Ordered after the work of the stream that freed it.
      call.check(drv.cuStreamWaitEvent(stream, cached->ready, 0),
                 "cuStreamWaitEvent");
      drv.cuEventDestroy(cached->ready);
    }
    return cached->ptr;
  }
  CUdeviceptr ptr = 0;
  CUresult r = drv.cuMemAlloc(&ptr, sizeClass);
  if (r == kCudaErrorOutOfMemory) {
    // What the cache holds may be what is missing.
    poolTrim(call);
    r = drv.cuMemAlloc(&ptr, sizeClass);
  }
  if (!call.check(r, "cuMemAlloc(" + std::to_string(bytes) + " bytes)"))
    return 0;
  countDeviceAlloc();
  noteDeviceBuffer(uintptr_t(ptr), sizeClass);
  std::lock_guard<std::mutex> lock(p.mu);
  p.classes[ptr] = {sizeClass, p.nextSerial++};
  return ptr;
}

void poolRelease(Call &call, CUdeviceptr ptr, CUstream stream) {
  Pool &p = pool();
  BlockInfo info;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.classes.find(ptr);
    if (it != p.classes.end())
      info = it->second;
  }
  uint64_t sizeClass = info.sizeClass;
  if (sizeClass == 0 || !call.ready()) {
    // Not a pool block (managed memory), or the driver is unusable.
    if (call.ready()) {
      call.check(call.driver().cuMemFree(ptr), "cuMemFree");
      countDeviceFree();
    }
    freeTensorMapsOf(call, uintptr_t(ptr));
    return;
  }
  PoolBlock block{ptr, nullptr, info.serial};
  CudaDriver &drv = call.driver();
  if (stream &&
      drv.cuEventCreate(&block.ready, kEventDisableTiming) == kCudaSuccess) {
    if (!call.check(drv.cuEventRecord(block.ready, stream), "cuEventRecord")) {
      drv.cuEventDestroy(block.ready);
      block.ready = nullptr;
    }
  }
  std::vector<std::pair<uint64_t, PoolBlock>> evicted;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    evicted = cacheFor(p, call).put(sizeClass, block);
    for (auto &[cls, b] : evicted)
      p.classes.erase(b.ptr);
  }
  for (auto &[cls, b] : evicted)
    releaseBlock(call, b);
}

void poolTrim(Call &call) {
  Pool &p = pool();
  std::vector<std::pair<uint64_t, PoolBlock>> all;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.caches.find(&call.props());
    if (it == p.caches.end())
      return;
    all = it->second.drain();
    for (auto &[cls, b] : all)
      p.classes.erase(b.ptr);
  }
  for (auto &[cls, b] : all)
    releaseBlock(call, b);
}

void noteModuleLoaded() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mu);
  ++p.loadedModules;
}

void noteModuleUnloaded(Call &call) {
  Pool &p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.loadedModules > 0 && --p.loadedModules > 0)
      return;
  }
  if (call.ready())
    poolTrim(call);
}

void countLaunch() { counters().launches++; }

void countCopy(uint64_t dst, uint64_t src, uint64_t bytes) {
  bool toDevice = isDeviceAddress(uintptr_t(dst));
  bool fromDevice = isDeviceAddress(uintptr_t(src));
  if (toDevice && !fromDevice)
    counters().h2d += bytes;
  else if (fromDevice && !toDevice)
    counters().d2h += bytes;
}

void countHostToDevice(uint64_t bytes) { counters().h2d += bytes; }
void countDeviceAlloc() { counters().allocs++; }
void countDeviceFree() { counters().frees++; }

bool profiling() { return counters().profiling.load(); }

void profileLaunchBegin(Call &call, CUstream stream) {
  launchStart = nullptr;
  CudaDriver &drv = call.driver();
  if (!drv.cuEventElapsedTime ||
      drv.cuEventCreate(&launchStart, 0) != kCudaSuccess)
    return;
  if (drv.cuEventRecord(launchStart, stream) != kCudaSuccess) {
    drv.cuEventDestroy(launchStart);
    launchStart = nullptr;
  }
}

void profileLaunchEnd(Call &call, CUstream stream) {
  if (!launchStart)
    return;
  CudaDriver &drv = call.driver();
  CUevent end = nullptr;
  if (drv.cuEventCreate(&end, 0) != kCudaSuccess ||
      drv.cuEventRecord(end, stream) != kCudaSuccess) {
    if (end)
      drv.cuEventDestroy(end);
    drv.cuEventDestroy(launchStart);
    launchStart = nullptr;
    return;
  }
  Counters &c = counters();
  std::lock_guard<std::mutex> lock(c.mu);
  c.pending.emplace_back(launchStart, end);
  launchStart = nullptr;
}

void resetDeviceMemoryForTesting() {
  {
    Pool &p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    p.caches.clear();
    p.classes.clear();
    p.loadedModules = 0;
  }
  {
    Residents &r = residents();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto &[slot, ptr] : r.bySlot)
      *slot = 0;
    r.bySlot.clear();
  }
  Counters &c = counters();
  c.launches = c.h2d = c.d2h = c.allocs = c.frees = 0;
  std::lock_guard<std::mutex> lock(c.mu);
  c.kernelMs = 0;
  c.pending.clear();
}

} // namespace stc::cuda

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void *stc_gpu_resident(int64_t *slot, const void *host, int64_t bytes) {
  if (slot && *slot)
    return reinterpret_cast<void *>(uintptr_t(*slot));
  Call call(Call::Mgpu, "stc_gpu_resident");
  if (!call.ready())
    return nullptr;
  if (!slot || !host || bytes <= 0) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null slot or host buffer, or " +
                                                   std::to_string(bytes) +
                                                   " bytes");
    return nullptr;
  }
  Residents &r = residents();
  std::lock_guard<std::mutex> lock(r.mu);
  if (*slot) // another thread's first call won
    return reinterpret_cast<void *>(uintptr_t(*slot));
  CudaDriver &drv = call.driver();
  CUdeviceptr ptr = 0;
  if (!call.check(drv.cuMemAlloc(&ptr, size_t(bytes)),
                  "cuMemAlloc(" + std::to_string(bytes) +
                      " bytes, resident weight)"))
    return nullptr;
  countDeviceAlloc();
  // Synchronous, and finished before any stream uses it: a copy from
  // pageable memory may return before its DMA is done.
  if (!call.check(drv.cuMemcpyHtoD(ptr, host, size_t(bytes)),
                  "cuMemcpyHtoD(" + std::to_string(bytes) +
                      " bytes, resident weight)") ||
      !call.check(drv.cuCtxSynchronize(), "cuCtxSynchronize")) {
    drv.cuMemFree(ptr);
    countDeviceFree();
    return nullptr;
  }
  countHostToDevice(uint64_t(bytes));
  noteDeviceBuffer(uintptr_t(ptr), uint64_t(bytes));
  r.bySlot[slot] = ptr;
  *slot = int64_t(ptr);
  return reinterpret_cast<void *>(uintptr_t(ptr));
}

void stc_gpu_release_resident(int64_t *slot) {
  if (!slot || !*slot)
    return;
  CUdeviceptr ptr = 0;
  {
    Residents &r = residents();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.bySlot.find(slot);
    if (it != r.bySlot.end()) {
      ptr = it->second;
      r.bySlot.erase(it);
    }
    *slot = 0;
  }
  if (!ptr)
    return;
  // At program unload, possibly at process exit after the driver's own
  // exit handlers: a failure here is not the program's error.
  Call call(Call::MgpuRelease, "stc_gpu_release_resident");
  if (!call.ready())
    return;
  if (call.driver().cuMemFree(ptr) == kCudaSuccess)
    countDeviceFree();
  freeTensorMapsOf(call, uintptr_t(ptr));
}

int stc_cuda_counters(StcGpuCounters *out) {
  if (!out)
    return recordError(STC_CUDA_ERROR_INVALID_ARGUMENT,
                       "stc_cuda_counters: null output");
  Counters &c = counters();
  std::vector<std::pair<CUevent, CUevent>> pending;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    pending.swap(c.pending);
  }
  double ms = 0;
  int status = STC_CUDA_SUCCESS;
  if (!pending.empty()) {
    Call call(Call::Api, "stc_cuda_counters");
    if (call.ready()) {
      CudaDriver &drv = call.driver();
      for (auto &[start, end] : pending) {
        float elapsed = 0;
        if (call.check(drv.cuEventSynchronize(end), "cuEventSynchronize") &&
            call.check(drv.cuEventElapsedTime(&elapsed, start, end),
                       "cuEventElapsedTime"))
          ms += elapsed;
        drv.cuEventDestroy(start);
        drv.cuEventDestroy(end);
      }
    }
    status = call.status();
  }
  std::lock_guard<std::mutex> lock(c.mu);
  c.kernelMs += ms;
  out->launches = c.launches;
  out->h2d_bytes = c.h2d;
  out->d2h_bytes = c.d2h;
  out->device_allocs = c.allocs;
  out->device_frees = c.frees;
  out->kernel_ms = c.kernelMs;
  return status;
}

void stc_cuda_set_profiling(int on) { counters().profiling = on != 0; }

int stc_cuda_release_cached_memory(void) {
  Call call(Call::Api, "stc_cuda_release_cached_memory");
  if (call.ready())
    poolTrim(call);
  return call.status();
}
