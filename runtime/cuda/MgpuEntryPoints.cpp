//===- MgpuEntryPoints.cpp - the mgpu* entry points -------------*- C++ -*-===//
//
// The mgpu* entry points that MLIR's gpu-to-llvm lowering calls (modules,
// launches, streams, events, memory), implemented here over the CUDA driver
// since Debian ships no libmlir_cuda_runtime, and stc_cuda_mgpu_symbols,
// which hands them (with the GPU entry points of RuntimeEntryPoints.def) to
// a JIT.  Each is a Call of kind Mgpu (runtime/cuda/Call.h): it selects
// device 0 lazily, its messages name the entry point, and it is a no-op
// while an error is recorded.  mgpuTensorMapEncodeTiledMemref is in
// TensorMaps.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceMemory.h"
#include "runtime/cuda/Launch.h"
#include "runtime/cuda/TensorMaps.h"
#include "runtime/stc_runtime_cuda.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

using namespace stc::cuda;

namespace {

/// Converts an MLIR index launch dimension; false if it does not fit.
bool toDim(intptr_t v, unsigned &out) {
  if (v < 1 || uint64_t(v) > 0xffffffffull)
    return false;
  out = unsigned(v);
  return true;
}

void mgpuLaunch(const char *entry, void *function, const intptr_t *c,
                const intptr_t *g, const intptr_t *b, int32_t smem,
                void *stream, void **params, void **extra) {
  Call call(Call::Mgpu, entry);
  if (!call.ready())
    return;
  if (!function) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null function handle");
    return;
  }
  unsigned grid[3], block[3], cluster[3];
  for (int i = 0; i < 3; ++i) {
    if (!toDim(g[i], grid[i]) || !toDim(b[i], block[i]) ||
        (c && !toDim(c[i], cluster[i]))) {
      auto show = [](const intptr_t *v) {
        return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" +
               std::to_string(v[2]);
      };
      call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                "kernel '" + kernelName(static_cast<CUfunction>(function)) +
                    "' launched with grid " + show(g) + ", block " + show(b) +
                    (c ? ", cluster " + show(c) : std::string()) +
                    "; every size must be in [1, 2^32)");
      return;
    }
  }
  if (smem < 0) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
              "negative dynamic shared memory size " + std::to_string(smem));
    return;
  }
  launch(call, static_cast<CUfunction>(function), grid, block, unsigned(smem),
         static_cast<CUstream>(stream), params, extra, c ? cluster : nullptr);
}

/// The byte range of a ranked memref descriptor's elements: [start, +bytes).
/// Returns false (and records why) for an invalid descriptor; bytes == 0
/// for an empty memref.
bool memrefSpan(Call &call, int64_t rank, void *descriptor, int64_t elemSize,
                char *&start, uint64_t &bytes) {
  if (!descriptor || rank < 0 || elemSize <= 0) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
              "invalid memref descriptor (rank " + std::to_string(rank) +
                  ", element size " + std::to_string(elemSize) + ")");
    return false;
  }
  // {allocated, aligned, offset, sizes[rank], strides[rank]}, as LLVM lays
  // out MLIR's memref descriptor struct.
  struct Header {
    void *allocated;
    void *aligned;
    int64_t offset;
  } header;
  std::memcpy(&header, descriptor, sizeof(header));
  const char *rest = static_cast<const char *>(descriptor) + sizeof(Header);
  int64_t lo = 0, hi = 0;
  bytes = 0;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size, stride;
    std::memcpy(&size, rest + 8 * i, 8);
    std::memcpy(&stride, rest + 8 * (rank + i), 8);
    if (size == 0)
      return true;
    (stride >= 0 ? hi : lo) += stride * (size - 1);
  }
  start = static_cast<char *>(header.aligned) + (header.offset + lo) * elemSize;
  bytes = uint64_t(hi - lo + 1) * uint64_t(elemSize);
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// mgpu* entry points
//===----------------------------------------------------------------------===//

void *mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  Call call(Call::Mgpu, "mgpuModuleLoad");
  if (!call.ready())
    return nullptr;
  if (!data || !gpuBlobSize) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null or empty GPU binary");
    return nullptr;
  }
  CUmodule module =
      loadModule(call, data, /*isPtx=*/false, -1,
                 "cubin of " + std::to_string(gpuBlobSize) + " bytes");
  if (module)
    noteModuleLoaded();
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Call call(Call::Mgpu, "mgpuModuleLoadJIT");
  if (!call.ready())
    return nullptr;
  if (!data) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null PTX");
    return nullptr;
  }
  CUmodule module =
      loadModule(call, data, /*isPtx=*/true, std::max(optLevel, 0), "PTX");
  if (module)
    noteModuleLoaded();
  return module;
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  Call call(Call::MgpuRelease, "mgpuModuleUnload");
  if (call.ready())
    unloadModule(call, static_cast<CUmodule>(module));
  // The last one gives the pool's cached blocks back.
  noteModuleUnloaded(call);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Call call(Call::Mgpu, "mgpuModuleGetFunction");
  if (!call.ready())
    return nullptr;
  if (!module || !name) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null module or name");
    return nullptr;
  }
  return getFunction(call, static_cast<CUmodule>(module), name);
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount) {
  (void)paramsCount; // the driver knows the kernel's parameter list
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  mgpuLaunch("mgpuLaunchKernel", function, nullptr, grid, block, smem, stream,
             params, extra);
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra) {
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  mgpuLaunch("mgpuLaunchClusterKernel", function, cluster, grid, block, smem,
             stream, params, extra);
}

namespace {
/// The caller's stream for generated code on this thread
/// (stc_cuda_set_stream), if set.
thread_local bool callerStreamSet = false;
thread_local CUstream callerStream = nullptr;
/// stc_cuda_set_stream_nowait: generated code does not wait for its work on
/// the caller's stream.
thread_local bool callerStreamNoWait = false;

/// STC_CUDA_SYNC set (and not "0"): generated code waits for its work even
/// on a no-wait caller's stream.
bool syncForced() {
  const char *env = std::getenv("STC_CUDA_SYNC");
  return env && *env && std::string_view(env) != "0";
}
} // namespace

void stc_cuda_set_stream(StcCudaStream stream) {
  callerStreamSet = true;
  callerStream = reinterpret_cast<CUstream>(stream);
  callerStreamNoWait = false;
}

void stc_cuda_set_stream_nowait(StcCudaStream stream) {
  stc_cuda_set_stream(stream);
  callerStreamNoWait = true;
}

void stc_cuda_clear_stream(void) {
  callerStreamSet = false;
  callerStream = nullptr;
  callerStreamNoWait = false;
}

void *mgpuStreamCreate(void) {
  Call call(Call::Mgpu, "mgpuStreamCreate");
  if (!call.ready())
    return nullptr;
  // The caller's stream: the program's work is ordered with the caller's.
  if (callerStreamSet)
    return callerStream;
  CUstream s = nullptr;
  // Non-blocking: generated code orders its work with events, and must not
  // be serialized with whatever else uses the legacy default stream.
  if (!call.check(call.driver().cuStreamCreate(&s, kStreamNonBlocking),
                  "cuStreamCreate"))
    return nullptr;
  return s;
}

void mgpuStreamDestroy(void *stream) {
  // The caller's stream is the caller's to destroy.
  if (!stream || (callerStreamSet && stream == callerStream))
    return;
  Call call(Call::MgpuRelease, "mgpuStreamDestroy");
  if (call.ready())
    call.check(call.driver().cuStreamDestroy(static_cast<CUstream>(stream)),
               "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  // Each launch function ends by waiting for its stream. On a no-wait
  // caller's stream that wait is what made a call as slow as its kernels
  // plus a round trip per launch (about 18 us a launch for a BERT layer's
  // 32 on an H200, 2026-11-27); the stream orders the work without it.
  if (callerStreamSet && callerStreamNoWait &&
      static_cast<CUstream>(stream) == callerStream && !syncForced())
    return;
  Call call(Call::Mgpu, "mgpuStreamSynchronize");
  if (call.ready())
    call.check(call.driver().cuStreamSynchronize(static_cast<CUstream>(stream)),
               "cuStreamSynchronize", -1, lastKernelHint());
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  Call call(Call::Mgpu, "mgpuStreamWaitEvent");
  if (!call.ready())
    return;
  if (!event) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null event");
    return;
  }
  call.check(call.driver().cuStreamWaitEvent(static_cast<CUstream>(stream),
                                             static_cast<CUevent>(event), 0),
             "cuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  Call call(Call::Mgpu, "mgpuEventCreate");
  if (!call.ready())
    return nullptr;
  CUevent e = nullptr;
  if (!call.check(call.driver().cuEventCreate(&e, kEventDisableTiming),
                  "cuEventCreate"))
    return nullptr;
  return e;
}

void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  Call call(Call::MgpuRelease, "mgpuEventDestroy");
  if (call.ready())
    call.check(call.driver().cuEventDestroy(static_cast<CUevent>(event)),
               "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  Call call(Call::Mgpu, "mgpuEventSynchronize");
  if (!call.ready())
    return;
  if (!event) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null event");
    return;
  }
  call.check(call.driver().cuEventSynchronize(static_cast<CUevent>(event)),
             "cuEventSynchronize", -1, lastKernelHint());
}

void mgpuEventRecord(void *event, void *stream) {
  Call call(Call::Mgpu, "mgpuEventRecord");
  if (!call.ready())
    return;
  if (!event) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null event");
    return;
  }
  call.check(call.driver().cuEventRecord(static_cast<CUevent>(event),
                                         static_cast<CUstream>(stream)),
             "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint32_t isHostShared) {
  Call call(Call::Mgpu, "mgpuMemAlloc");
  if (!call.ready() || sizeBytes == 0)
    return nullptr;
  if (!(isHostShared & 0xff)) {
    // Device memory comes from the caching pool (runtime/cuda/DeviceMemory.h).
    CUdeviceptr p =
        poolAllocate(call, sizeBytes, static_cast<CUstream>(stream));
    return reinterpret_cast<void *>(uintptr_t(p));
  }
  CUdeviceptr p = 0;
  if (!call.check(
          call.driver().cuMemAllocManaged(&p, sizeBytes, kMemAttachGlobal),
          "cuMemAllocManaged(" + std::to_string(sizeBytes) + " bytes)"))
    return nullptr;
  countDeviceAlloc();
  noteDeviceBuffer(uintptr_t(p), sizeBytes);
  return reinterpret_cast<void *>(uintptr_t(p));
}

void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  Call call(Call::MgpuRelease, "mgpuMemFree");
  poolRelease(call, CUdeviceptr(uintptr_t(ptr)), static_cast<CUstream>(stream));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  Call call(Call::Mgpu, "mgpuMemcpy");
  if (!call.ready() || sizeBytes == 0)
    return;
  // Unified addressing: the driver tells host from device pointers.
  if (call.check(call.driver().cuMemcpyAsync(
                     CUdeviceptr(uintptr_t(dst)), CUdeviceptr(uintptr_t(src)),
                     sizeBytes, static_cast<CUstream>(stream)),
                 "cuMemcpyAsync(" + std::to_string(sizeBytes) + " bytes)"))
    countCopy(uint64_t(uintptr_t(dst)), uint64_t(uintptr_t(src)), sizeBytes);
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  Call call(Call::Mgpu, "mgpuMemset32");
  if (!call.ready() || count == 0)
    return;
  call.check(call.driver().cuMemsetD32Async(CUdeviceptr(uintptr_t(dst)), value,
                                            count,
                                            static_cast<CUstream>(stream)),
             "cuMemsetD32Async(" + std::to_string(count) + " elements)");
}

void mgpuMemset16(void *dst, uint32_t value, size_t count, void *stream) {
  Call call(Call::Mgpu, "mgpuMemset16");
  if (!call.ready() || count == 0)
    return;
  call.check(call.driver().cuMemsetD16Async(
                 CUdeviceptr(uintptr_t(dst)),
                 static_cast<unsigned short>(value & 0xffff), count,
                 static_cast<CUstream>(stream)),
             "cuMemsetD16Async(" + std::to_string(count) + " elements)");
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  Call call(Call::Mgpu, "mgpuMemHostRegister");
  if (!call.ready() || !ptr || sizeBytes == 0)
    return;
  call.check(call.driver().cuMemHostRegister(ptr, sizeBytes, 0),
             "cuMemHostRegister(" + std::to_string(sizeBytes) + " bytes)");
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  Call call(Call::Mgpu, "mgpuMemHostRegisterMemRef");
  if (!call.ready())
    return;
  char *start = nullptr;
  uint64_t bytes = 0;
  if (!memrefSpan(call, rank, descriptor, elementSizeBytes, start, bytes) ||
      bytes == 0)
    return;
  call.check(call.driver().cuMemHostRegister(start, bytes, 0),
             "cuMemHostRegister(" + std::to_string(bytes) + " bytes)");
}

void mgpuMemHostUnregister(void *ptr) {
  if (!ptr)
    return;
  Call call(Call::MgpuRelease, "mgpuMemHostUnregister");
  if (call.ready())
    call.check(call.driver().cuMemHostUnregister(ptr), "cuMemHostUnregister");
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  Call call(Call::MgpuRelease, "mgpuMemHostUnregisterMemRef");
  if (!call.ready())
    return;
  char *start = nullptr;
  uint64_t bytes = 0;
  if (!memrefSpan(call, rank, descriptor, elementSizeBytes, start, bytes) ||
      bytes == 0)
    return;
  call.check(call.driver().cuMemHostUnregister(start), "cuMemHostUnregister");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (errorPending())
    return;
  Status s = selectDevice(device);
  if (!s.ok())
    recordError(s.code, "mgpuSetDefaultDevice: " + s.message);
}

const StcCudaSymbol *stc_cuda_mgpu_symbols(size_t *count) {
#define STC_MGPU(name)                                                         \
  { #name, reinterpret_cast < void *>(&(name)) }
  static const StcCudaSymbol symbols[] = {
      STC_MGPU(mgpuModuleLoad),
      STC_MGPU(mgpuModuleLoadJIT),
      STC_MGPU(mgpuModuleUnload),
      STC_MGPU(mgpuModuleGetFunction),
      STC_MGPU(mgpuLaunchKernel),
      STC_MGPU(mgpuLaunchClusterKernel),
      STC_MGPU(mgpuStreamCreate),
      STC_MGPU(mgpuStreamDestroy),
      STC_MGPU(mgpuStreamSynchronize),
      STC_MGPU(mgpuStreamWaitEvent),
      STC_MGPU(mgpuEventCreate),
      STC_MGPU(mgpuEventDestroy),
      STC_MGPU(mgpuEventSynchronize),
      STC_MGPU(mgpuEventRecord),
      STC_MGPU(mgpuMemAlloc),
      STC_MGPU(mgpuMemFree),
      STC_MGPU(mgpuMemcpy),
      STC_MGPU(mgpuMemset32),
      STC_MGPU(mgpuMemset16),
      STC_MGPU(mgpuMemHostRegister),
      STC_MGPU(mgpuMemHostRegisterMemRef),
      STC_MGPU(mgpuMemHostUnregister),
      STC_MGPU(mgpuMemHostUnregisterMemRef),
      STC_MGPU(mgpuSetDefaultDevice),
      STC_MGPU(mgpuTensorMapEncodeTiledMemref),
  // The GPU runtime's own entry points of RuntimeEntryPoints.def.
#define STC_RUNTIME_ENTRY_CInterface(SYMBOL)
#define STC_RUNTIME_ENTRY_CpuPlainC(SYMBOL)
#define STC_RUNTIME_ENTRY_Emulator(SYMBOL)
#define STC_RUNTIME_ENTRY_Gpu(SYMBOL) STC_MGPU(SYMBOL),
#define STC_RUNTIME_ENTRY(KIND, NAME, SYMBOL) STC_RUNTIME_ENTRY_##KIND(SYMBOL)
#include "runtime/RuntimeEntryPoints.def"
#undef STC_RUNTIME_ENTRY_CInterface
#undef STC_RUNTIME_ENTRY_CpuPlainC
#undef STC_RUNTIME_ENTRY_Emulator
#undef STC_RUNTIME_ENTRY_Gpu
  };
#undef STC_MGPU
  if (count)
    *count = sizeof(symbols) / sizeof(symbols[0]);
  return symbols;
}
