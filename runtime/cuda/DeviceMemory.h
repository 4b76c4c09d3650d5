//===- DeviceMemory.h - pooled device memory, resident weights --*- C++ -*-===//
//
// Device memory for generated code, kept across calls so that a program's
// second call allocates nothing and uploads no weight:
//
// - the caching pool behind mgpuMemAlloc/mgpuMemFree (the policy of
//   runtime/DevicePoolPolicy.h, one cache per device): a freed block is
//   cached, with an event recorded on the stream that freed it, and the next
//   request of its size class waits for that event on its own stream
//   instead of allocating; out of memory empties the cache and retries once;
//   the cache is emptied when the last module generated code loaded is
//   unloaded, and by stc_cuda_release_cached_memory;
// - resident uploads (stc_gpu_resident): a program's constant weights,
//   copied to the device at the first call into a slot (a global of the
//   program) and released by the program's destructor
//   (stc_gpu_release_resident), so at unload;
// - the counters of stc_gpu_counters.h.
//
// Internal to the runtime (not part of its API); DeviceMemory.cpp defines it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_DEVICEMEMORY_H
#define STC_RUNTIME_CUDA_DEVICEMEMORY_H

#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"

#include <cstddef>
#include <cstdint>

namespace stc::cuda {

/// A device block of at least `bytes` for work on `stream`: a cached one of
/// its size class (ordered after its previous user's work) or a new one.
/// 0 on failure, recorded in `call`.
CUdeviceptr poolAllocate(Call &call, uint64_t bytes, CUstream stream);

/// Returns `ptr` (from poolAllocate) to the cache once the work queued on
/// `stream` so far is done; releases what the cache limit evicts.
void poolRelease(Call &call, CUdeviceptr ptr, CUstream stream);

/// Releases every cached block of the current device.
void poolTrim(Call &call);

/// A module generated code loaded, or unloaded (the last unload trims).
void noteModuleLoaded();
void noteModuleUnloaded(Call &call);

/// Counts a launch, a copy of `bytes` from `src` to `dst` (its direction
/// from which addresses are device buffers of this runtime), a real
/// allocation and a real free (for the tensor-map copies too).
void countLaunch();
void countCopy(uint64_t dst, uint64_t src, uint64_t bytes);
void countHostToDevice(uint64_t bytes);
void countDeviceAlloc();
void countDeviceFree();

/// Whether kernel time is measured (stc_cuda_set_profiling), and the
/// events that bracket a launch while it is: recorded before and after.
bool profiling();
void profileLaunchBegin(Call &call, CUstream stream);
void profileLaunchEnd(Call &call, CUstream stream);

/// Test hook: forgets the pool, the resident uploads and the counters (the
/// memory died with the driver's state).
void resetDeviceMemoryForTesting();

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_DEVICEMEMORY_H
