//===- CudaDriver.cpp - the CUDA driver API, loaded with dlopen -*- C++ -*-===//
//
// Loading is all-or-nothing: the library, every required entry point and
// cuInit must succeed, otherwise status() holds the one message a user needs
// ("CUDA driver not found (...); use --device=cpu" and the like) and no entry
// point is used.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

using namespace stc::cuda;

namespace {

/// The default soname; the unversioned libcuda.so exists only with the
/// development package (and in the toolkit as a stub that cannot run).
constexpr const char *kDefaultLibrary = "libcuda.so.1";

std::mutex &driverMutex() {
  static std::mutex mu;
  return mu;
}

/// Guarded by driverMutex().  Deliberately never destroyed at exit:
/// dlclose()ing libcuda while contexts may still exist races with the
/// driver's own exit handlers.  Only resetForTesting() deletes it.
CudaDriver *&instance() {
  static CudaDriver *driver = nullptr;
  return driver;
}

std::string dlErrorText() {
  const char *e = dlerror();
  return e ? std::string(e) : std::string("unknown dlopen error");
}

} // namespace

CudaDriver &CudaDriver::get() {
  std::lock_guard<std::mutex> lock(driverMutex());
  CudaDriver *&driver = instance();
  if (!driver) {
    driver = new CudaDriver();
    driver->load();
  }
  return *driver;
}

void CudaDriver::resetForTesting() {
  std::lock_guard<std::mutex> lock(driverMutex());
  delete instance();
  instance() = nullptr;
}

CudaDriver::~CudaDriver() {
  if (handle)
    dlclose(handle);
}

template <typename Fn>
bool CudaDriver::resolve(Fn &slot, const char *symbol) {
  dlerror();
  void *address = dlsym(handle, symbol);
  if (!address) {
    loadStatus = Status::failure(
        STC_CUDA_ERROR_NO_DRIVER,
        "CUDA driver " + path + " lacks " + symbol + " (" + dlErrorText() +
            "); STC needs a driver for CUDA 11 or later; use --device=cpu");
    return false;
  }
  slot = reinterpret_cast<Fn>(address);
  return true;
}

void CudaDriver::load() {
  const char *env = std::getenv("STC_CUDA_DRIVER_LIBRARY");
  path = env && *env ? env : kDefaultLibrary;

  // RTLD_LOCAL: the driver's symbols must not satisfy other libraries'
  // references (and a fake driver in tests must not leak into the process).
  dlerror();
  handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    // dlerror() usually starts with the path already; do not say it twice.
    std::string why = dlErrorText();
    if (why.compare(0, path.size(), path) != 0)
      why = path + ": " + why;
    loadStatus = Status::failure(STC_CUDA_ERROR_NO_DRIVER,
                                 "CUDA driver not found (" + why +
                                     "); use --device=cpu");
    return;
  }

  bool ok =
      resolve(cuGetErrorName, "cuGetErrorName") &&
      resolve(cuGetErrorString, "cuGetErrorString") &&
      resolve(cuInit, "cuInit") &&
      resolve(cuDriverGetVersion, "cuDriverGetVersion") &&
      resolve(cuDeviceGetCount, "cuDeviceGetCount") &&
      resolve(cuDeviceGet, "cuDeviceGet") &&
      resolve(cuDeviceGetName, "cuDeviceGetName") &&
      resolve(cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
      resolve(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
      resolve(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
      resolve(cuCtxPushCurrent, "cuCtxPushCurrent_v2") &&
      resolve(cuCtxPopCurrent, "cuCtxPopCurrent_v2") &&
      resolve(cuCtxSynchronize, "cuCtxSynchronize") &&
      resolve(cuModuleLoadDataEx, "cuModuleLoadDataEx") &&
      resolve(cuModuleUnload, "cuModuleUnload") &&
      resolve(cuModuleGetFunction, "cuModuleGetFunction") &&
      resolve(cuFuncSetAttribute, "cuFuncSetAttribute") &&
      resolve(cuLaunchKernel, "cuLaunchKernel") &&
      resolve(cuMemAlloc, "cuMemAlloc_v2") &&
      resolve(cuMemAllocManaged, "cuMemAllocManaged") &&
      resolve(cuMemFree, "cuMemFree_v2") &&
      resolve(cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
      resolve(cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
      resolve(cuMemcpyAsync, "cuMemcpyAsync") &&
      resolve(cuMemsetD8, "cuMemsetD8_v2") &&
      resolve(cuMemsetD16Async, "cuMemsetD16Async") &&
      resolve(cuMemsetD32Async, "cuMemsetD32Async") &&
      resolve(cuMemHostRegister, "cuMemHostRegister_v2") &&
      resolve(cuMemHostUnregister, "cuMemHostUnregister") &&
      resolve(cuStreamCreate, "cuStreamCreate") &&
      resolve(cuStreamDestroy, "cuStreamDestroy_v2") &&
      resolve(cuStreamSynchronize, "cuStreamSynchronize") &&
      resolve(cuStreamWaitEvent, "cuStreamWaitEvent") &&
      resolve(cuEventCreate, "cuEventCreate") &&
      resolve(cuEventDestroy, "cuEventDestroy_v2") &&
      resolve(cuEventRecord, "cuEventRecord") &&
      resolve(cuEventSynchronize, "cuEventSynchronize");
  if (!ok)
    return;
  // Only cluster launches need it; its absence is reported when one is made.
  cuLaunchKernelEx = reinterpret_cast<decltype(cuLaunchKernelEx)>(
      dlsym(handle, "cuLaunchKernelEx"));
  // Only kernel timing needs it; without it kernel_ms stays 0.
  cuEventElapsedTime = reinterpret_cast<decltype(cuEventElapsedTime)>(
      dlsym(handle, "cuEventElapsedTime"));
  // Only TMA descriptors need it; its absence is reported when one is made.
  cuTensorMapEncodeTiled = reinterpret_cast<decltype(cuTensorMapEncodeTiled)>(
      dlsym(handle, "cuTensorMapEncodeTiled"));
  // Only the kernel queries of StcRuntimeCudaKernel.cpp need these; their
  // absence is reported when one is made.
  cuFuncGetAttribute = reinterpret_cast<decltype(cuFuncGetAttribute)>(
      dlsym(handle, "cuFuncGetAttribute"));
  cuOccupancyMaxActiveBlocksPerMultiprocessor =
      reinterpret_cast<decltype(cuOccupancyMaxActiveBlocksPerMultiprocessor)>(
          dlsym(handle, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  cuOccupancyMaxActiveClusters =
      reinterpret_cast<decltype(cuOccupancyMaxActiveClusters)>(
          dlsym(handle, "cuOccupancyMaxActiveClusters"));

  // The version is informative only (device info); it works before cuInit.
  if (cuDriverGetVersion(&version) != kCudaSuccess)
    version = 0;

  CUresult r = cuInit(0);
  if (r == kCudaSuccess)
    return;
  if (r == kCudaErrorNoDevice) {
    loadStatus = Status::failure(STC_CUDA_ERROR_NO_DEVICE,
                                 describe("cuInit", r) + "; use --device=cpu");
    return;
  }
  std::string hint;
  if (r == kCudaErrorStubLibrary)
    hint = "; " + path +
           " is the CUDA toolkit's stub library, not a driver (it must not "
           "be on the library path at run time)";
  loadStatus =
      Status::failure(STC_CUDA_ERROR_DRIVER_INIT,
                      describe("cuInit", r) + hint + "; use --device=cpu");
}

std::string CudaDriver::describe(const std::string &call,
                                 CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  // Both return CUDA_ERROR_INVALID_VALUE (and leave the pointer null) for a
  // code this driver does not know.
  if (cuGetErrorName && cuGetErrorName(result, &name) != kCudaSuccess)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != kCudaSuccess)
    text = nullptr;
  // The toolkit's stub fails every call, these two included.
  if (!name && result == kCudaErrorStubLibrary) {
    name = "CUDA_ERROR_STUB_LIBRARY";
    text = "CUDA driver is a stub library";
  }
  std::string msg = call + " failed: ";
  msg += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    msg += std::string(" (") + text + ")";
  return msg;
}

int CudaDriver::classify(CUresult result) {
  if (result == kCudaSuccess)
    return STC_CUDA_SUCCESS;
  if (result == kCudaErrorOutOfMemory)
    return STC_CUDA_ERROR_OUT_OF_MEMORY;
  if (result == kCudaErrorNoDevice || result == kCudaErrorInvalidDevice)
    return STC_CUDA_ERROR_NO_DEVICE;
  if (result >= 200 && result < 300 && result != 201 /*INVALID_CONTEXT*/)
    return STC_CUDA_ERROR_MODULE_LOAD; // image, PTX and JIT errors
  if (result == kCudaErrorNotFound)
    return STC_CUDA_ERROR_NOT_FOUND;
  if (result >= 700 && result < 800)
    return STC_CUDA_ERROR_LAUNCH; // faults of running kernels, bad launches
  return STC_CUDA_ERROR_DRIVER;
}

Status CudaDriver::queryDevice(int ordinal, DeviceProperties &props) const {
  int count = 0;
  CUresult r = cuDeviceGetCount(&count);
  if (r != kCudaSuccess)
    return Status::failure(classify(r), describe("cuDeviceGetCount", r));
  if (count == 0)
    return Status::failure(STC_CUDA_ERROR_NO_DEVICE,
                           "no CUDA device found (the driver reports 0 "
                           "devices); use --device=cpu");
  if (ordinal < 0 || ordinal >= count)
    return Status::failure(STC_CUDA_ERROR_NO_DEVICE,
                           "CUDA device " + std::to_string(ordinal) +
                               " requested, but the driver reports " +
                               std::to_string(count) + " device" +
                               (count == 1 ? "" : "s"));

  props.ordinal = ordinal;
  if ((r = cuDeviceGet(&props.device, ordinal)) != kCudaSuccess)
    return Status::failure(classify(r), describe("cuDeviceGet", r));
  char name[256] = {0};
  if ((r = cuDeviceGetName(name, int(sizeof(name)) - 1, props.device)) !=
      kCudaSuccess)
    return Status::failure(classify(r), describe("cuDeviceGetName", r));
  props.name = name;
  struct {
    int attr;
    int *out;
  } attrs[] = {
      {kDeviceAttrComputeCapabilityMajor, &props.smMajor},
      {kDeviceAttrComputeCapabilityMinor, &props.smMinor},
      {kDeviceAttrMaxSharedMemoryPerBlockOptin, &props.maxSharedPerBlockOptin}};
  for (auto &a : attrs)
    if ((r = cuDeviceGetAttribute(a.out, a.attr, props.device)) != kCudaSuccess)
      return Status::failure(classify(r), describe("cuDeviceGetAttribute", r));

  // mma.sp needs sm_80; everything STC generates for the GPU uses it.
  if (props.smMajor < 8)
    return Status::failure(STC_CUDA_ERROR_UNSUPPORTED_DEVICE,
                           "GPU " + props.name + " is sm_" +
                               std::to_string(props.smMajor) +
                               std::to_string(props.smMinor) +
                               "; STC's GPU kernels need sm_80 or later");
  return Status::success();
}
