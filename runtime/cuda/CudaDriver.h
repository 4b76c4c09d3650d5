//===- CudaDriver.h - the CUDA driver API, loaded with dlopen --*- C++ -*-===//
//
// The few CUDA driver types, constants and entry points that stc_runtime
// uses, declared here with the driver's documented ABI so that no CUDA header
// or library is needed at build time, and CudaDriver, which loads
// libcuda.so.1 (or $STC_CUDA_DRIVER_LIBRARY) once per process, resolves every
// entry point with dlsym and calls cuInit.  Versioned functions are resolved
// by the `_v2` names that cuda.h maps them to, as a program compiled against
// cuda.h would reference them.
//
// Internal to the runtime (not part of its API); the public C API is
// runtime/stc_runtime_cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_CUDADRIVER_H
#define STC_RUNTIME_CUDA_CUDADRIVER_H

#include "runtime/stc_runtime_cuda.h"

#include <cstddef>
#include <string>

namespace stc::cuda {

//===----------------------------------------------------------------------===//
// Driver ABI (values from the CUDA driver API reference / cuda.h)
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

// CUresult values the runtime inspects.
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorOutOfMemory = 2;
constexpr CUresult kCudaErrorStubLibrary = 34;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr CUresult kCudaErrorInvalidDevice = 101;
constexpr CUresult kCudaErrorNoBinaryForGpu = 209;
constexpr CUresult kCudaErrorInvalidPtx = 218;
constexpr CUresult kCudaErrorUnsupportedPtxVersion = 222;
constexpr CUresult kCudaErrorNotFound = 500;

// CUdevice_attribute.
constexpr int kDeviceAttrComputeCapabilityMajor = 75;
constexpr int kDeviceAttrComputeCapabilityMinor = 76;
constexpr int kDeviceAttrMaxSharedMemoryPerBlockOptin = 97;

// CUjit_option.
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
constexpr int kJitOptimizationLevel = 7;

// CUfunction_attribute.
constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;

// Flags.
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kMemAttachGlobal = 0x1;

/// Dynamic shared memory a kernel may use without opting in.
constexpr unsigned kDefaultDynamicSharedLimit = 48 * 1024;

/// Blocks per thread-block cluster that every sm_90 GPU supports; larger
/// clusters need CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED.
constexpr unsigned kMaxPortableClusterSize = 8;

// cuTensorMapEncodeTiled's enums (CUtensorMapInterleave, ...L2promotion,
// ...FloatOOBfill); the swizzles are StcCudaSwizzle's values.
constexpr int kTensorMapInterleaveNone = 0;
constexpr int kTensorMapInterleave32B = 2;
constexpr int kTensorMapL2PromotionNone = 0;
constexpr int kTensorMapL2Promotion128B = 2;
constexpr int kTensorMapL2Promotion256B = 3;
constexpr int kTensorMapOobFillNone = 0;
constexpr int kTensorMapOobFillNanRequestZeroFma = 1;

// cuLaunchKernelEx's configuration (CUDA 12.0+): CUlaunchAttribute is a
// 4-byte id padded to 8 and a 64-byte value union; CUlaunchConfig follows.
constexpr int kLaunchAttributeClusterDimension = 4;
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute ABI");

/// The configuration of a launch (or an occupancy query) with a thread-block
/// cluster: `attr` becomes its one attribute, the cluster's shape, and must
/// outlive the configuration.
inline CUlaunchConfig clusterLaunchConfig(const unsigned grid[3],
                                          const unsigned block[3],
                                          const unsigned cluster[3],
                                          unsigned sharedBytes, CUstream stream,
                                          CUlaunchAttribute &attr) {
  attr = CUlaunchAttribute{};
  attr.id = kLaunchAttributeClusterDimension;
  attr.value.clusterDim.x = cluster[0];
  attr.value.clusterDim.y = cluster[1];
  attr.value.clusterDim.z = cluster[2];
  CUlaunchConfig config{};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = sharedBytes;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return config;
}

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

/// The outcome of a runtime step: a StcCudaStatus and, on failure, a message
/// body (no "error: " prefix; the caller adds context).
struct Status {
  int code = STC_CUDA_SUCCESS;
  std::string message;

  bool ok() const { return code == STC_CUDA_SUCCESS; }
  static Status success() { return Status(); }
  static Status failure(int code, std::string message) {
    Status s;
    s.code = code;
    s.message = std::move(message);
    return s;
  }
};

/// What stc_cuda_init learns about a device.
struct DeviceProperties {
  int ordinal = -1;
  CUdevice device = 0;
  std::string name;
  int smMajor = 0;
  int smMinor = 0;
  int maxSharedPerBlockOptin = 0;
};

//===----------------------------------------------------------------------===//
// CudaDriver
//===----------------------------------------------------------------------===//

/// The loaded driver.  get() loads it on first use; a failed load is kept
/// (status() says why) and not retried, since a missing library does not
/// appear while the process runs.  The entry points are plain function
/// pointers, non-null whenever status().ok() (except the optional ones).
class CudaDriver {
public:
  /// Loads, resolves and cuInit()s the driver the first time (thread-safe)
  /// and returns the process-wide instance; check status() before use.
  static CudaDriver &get();

  /// Test hook: unloads the driver so that the next get() loads it again,
  /// reading $STC_CUDA_DRIVER_LIBRARY anew.  No other thread may be using
  /// the runtime; references returned by get() become dangling.
  static void resetForTesting();

  /// The library path the driver was (or would have been) loaded from.
  const std::string &libraryPath() const { return path; }
  /// Why the driver is unusable, or success.
  const Status &status() const { return loadStatus; }
  /// cuDriverGetVersion(), e.g. 13000 for CUDA 13.0.
  int driverVersion() const { return version; }

  /// "<call> failed: CUDA_ERROR_NAME (driver text)".
  std::string describe(const std::string &call, CUresult result) const;
  /// Maps a failing CUresult to a StcCudaStatus.
  static int classify(CUresult result);

  /// Checks that device `ordinal` exists and is sm_80 or later; fills
  /// `props`.  Requires status().ok().
  Status queryDevice(int ordinal, DeviceProperties &props) const;

  // Entry points (cuda.h names; the comment gives the dlsym name where it
  // differs).
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr; // _v2
  CUresult (*cuCtxPushCurrent)(CUcontext) = nullptr;         // _v2
  CUresult (*cuCtxPopCurrent)(CUcontext *) = nullptr;        // _v2
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr; // _v2
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;                          // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr; // _v2
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;       // _v2
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t,
                            CUstream) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr; // _v2
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t,
                               CUstream) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t,
                               CUstream) = nullptr;
  CUresult (*cuMemHostRegister)(void *, size_t, unsigned) = nullptr; // _v2
  CUresult (*cuMemHostUnregister)(void *) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr; // _v2
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr; // _v2
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  /// Optional: only kernel timing (stc_cuda_set_profiling) needs it.
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  /// Optional (CUDA 12.0+); null when the driver lacks it.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **) = nullptr;
  /// Optional (CUDA 12.0+, sm_90 TMA descriptors); null when the driver
  /// lacks it. The enums are passed as their int values (cuda.h's
  /// CUtensorMapDataType, ...Interleave, ...Swizzle, ...L2promotion,
  /// ...FloatOOBfill); the map is 128 bytes, 64-byte aligned.
  CUresult (*cuTensorMapEncodeTiled)(
      void *tensorMap, int dataType, unsigned rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides,
      const unsigned *boxDim, const unsigned *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill) = nullptr;
  /// Optional: the kernel queries of the explicit API
  /// (StcRuntimeCudaKernel.cpp); null when the driver lacks them.
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int,
                                                          size_t) = nullptr;
  CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction,
                                           const CUlaunchConfig *) = nullptr;

  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;
  ~CudaDriver();

private:
  CudaDriver() = default;
  void load();
  template <typename Fn>
  bool resolve(Fn &slot, const char *symbol);

  void *handle = nullptr;
  std::string path;
  Status loadStatus;
  int version = 0;
};

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_CUDADRIVER_H
