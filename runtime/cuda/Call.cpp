//===- Call.cpp - the CUDA runtime's shared state and Call ------*- C++ -*-===//
//
// The error record and device table of runtime/cuda/Call.h, the error
// record's C API (stc_cuda_status_name ... stc_cuda_clear_error), ApiCall
// (runtime/cuda/ApiCall.h) over Call, and the test hooks of
// runtime/cuda/CudaTesting.h that return this state to its start.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Call.h"
#include "runtime/cuda/ApiCall.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/CudaTesting.h"
#include "runtime/cuda/DeviceMemory.h"
#include "runtime/cuda/Launch.h"
#include "runtime/cuda/TensorMaps.h"
#include "runtime/stc_runtime_cuda.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

using namespace stc::cuda;

namespace {

//===----------------------------------------------------------------------===//
// Error record
//===----------------------------------------------------------------------===//

/// The first error since the last stc_cuda_clear_error().  Allocated once
/// and never destroyed, so that a thread still in the runtime while the
/// process exits does not touch a destroyed object.
struct ErrorRecord {
  std::mutex mu;
  /// Read without the lock by the mgpu* fast path; written under it.
  std::atomic<bool> pending{false};
  /// Guarded by `mu`.  `text` is assigned only while no error is pending,
  /// so a pointer from stc_cuda_last_error() stays valid until the next
  /// stc_cuda_clear_error().
  int code = STC_CUDA_SUCCESS;
  std::string text;
};

ErrorRecord &errors() {
  static ErrorRecord &record = *new ErrorRecord();
  return record;
}

} // namespace

namespace stc::cuda {

bool errorPending() { return errors().pending.load(); }

int recordError(int code, const std::string &body) {
  ErrorRecord &e = errors();
  std::lock_guard<std::mutex> lock(e.mu);
  if (!e.pending.load()) {
    e.code = code;
    e.text = "error: " + body;
    e.pending.store(true);
  }
  return code;
}

//===----------------------------------------------------------------------===//
// Devices and kernels
//===----------------------------------------------------------------------===//

State &state() {
  static State &s = *new State();
  return s;
}

Status selectDevice(int ordinal) {
  CudaDriver &drv = CudaDriver::get();
  if (!drv.status().ok())
    return drv.status();
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto it = st.devices.find(ordinal);
  if (it == st.devices.end()) {
    DeviceSlot slot;
    Status s = drv.queryDevice(ordinal, slot.props);
    if (!s.ok())
      return s;
    CUresult r = drv.cuDevicePrimaryCtxRetain(&slot.context, slot.props.device);
    if (r != kCudaSuccess)
      return Status::failure(CudaDriver::classify(r),
                             drv.describe("cuDevicePrimaryCtxRetain", r));
    it = st.devices.emplace(ordinal, std::move(slot)).first;
  }
  st.current = &it->second;
  return Status::success();
}

std::string kernelName(CUfunction fn) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto it = st.kernels.find(fn);
  return it == st.kernels.end() ? std::string("(unnamed)") : it->second.name;
}

std::string lastKernelHint() {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  return st.lastKernel.empty()
             ? std::string()
             : "; the last kernel launched was '" + st.lastKernel + "'";
}

} // namespace stc::cuda

//===----------------------------------------------------------------------===//
// Error record
//===----------------------------------------------------------------------===//

const char *stc_cuda_status_name(int status) {
  switch (status) {
  case STC_CUDA_SUCCESS:
    return "SUCCESS";
  case STC_CUDA_ERROR_NO_DRIVER:
    return "NO_DRIVER";
  case STC_CUDA_ERROR_DRIVER_INIT:
    return "DRIVER_INIT";
  case STC_CUDA_ERROR_NO_DEVICE:
    return "NO_DEVICE";
  case STC_CUDA_ERROR_UNSUPPORTED_DEVICE:
    return "UNSUPPORTED_DEVICE";
  case STC_CUDA_ERROR_NOT_INITIALIZED:
    return "NOT_INITIALIZED";
  case STC_CUDA_ERROR_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case STC_CUDA_ERROR_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case STC_CUDA_ERROR_MODULE_LOAD:
    return "MODULE_LOAD";
  case STC_CUDA_ERROR_NOT_FOUND:
    return "NOT_FOUND";
  case STC_CUDA_ERROR_LAUNCH:
    return "LAUNCH";
  case STC_CUDA_ERROR_DRIVER:
    return "DRIVER";
  }
  return "UNKNOWN";
}

int stc_cuda_has_error(void) { return errorPending() ? 1 : 0; }

int stc_cuda_error_status(void) {
  ErrorRecord &e = errors();
  std::lock_guard<std::mutex> lock(e.mu);
  return e.pending.load() ? e.code : STC_CUDA_SUCCESS;
}

const char *stc_cuda_last_error(void) {
  ErrorRecord &e = errors();
  std::lock_guard<std::mutex> lock(e.mu);
  return e.pending.load() ? e.text.c_str() : "";
}

void stc_cuda_clear_error(void) {
  ErrorRecord &e = errors();
  std::lock_guard<std::mutex> lock(e.mu);
  e.pending.store(false);
  e.code = STC_CUDA_SUCCESS;
  e.text.clear();
}
//===----------------------------------------------------------------------===//
// ApiCall (runtime/cuda/ApiCall.h): Call for explicit-API entry points in
// other files
//===----------------------------------------------------------------------===//

struct stc::cuda::ApiCall::Impl {
  explicit Impl(const char *entry) : call(Call::Api, entry) {}
  Call call;
};

ApiCall::ApiCall(const char *entry) : impl(std::make_unique<Impl>(entry)) {}
ApiCall::~ApiCall() = default;
bool ApiCall::ready() const { return impl->call.ready(); }
int ApiCall::status() const { return impl->call.status(); }
CudaDriver &ApiCall::driver() const { return impl->call.driver(); }
const DeviceProperties &ApiCall::props() const { return impl->call.props(); }
int ApiCall::fail(int code, const std::string &body) {
  return impl->call.fail(code, body);
}
bool ApiCall::check(CUresult r, const std::string &what, int category) {
  return impl->call.check(r, what, category);
}
std::string ApiCall::kernelName(CUfunction fn) const {
  return stc::cuda::kernelName(fn);
}
void ApiCall::noteSharedOptIn(CUfunction fn, unsigned bytes) {
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto it = st.kernels.find(fn);
  if (it != st.kernels.end())
    it->second.sharedOptin = bytes;
}
bool ApiCall::launch(CUfunction fn, const unsigned grid[3],
                     const unsigned block[3], unsigned shared, CUstream stream,
                     void **params, const unsigned *cluster) {
  return stc::cuda::launch(impl->call, fn, grid, block, shared, stream, params,
                           /*extra=*/nullptr, cluster);
}
bool ApiCall::encodeTensorMap(void *map, int dataType, int rank,
                              uint64_t address, const uint64_t *dims,
                              const uint64_t *strides, const uint32_t *box,
                              int swizzle, int l2Promotion,
                              const uint32_t *elementStrides) {
  return stc::cuda::encodeTensorMap(impl->call, map, dataType, rank, address,
                                    dims, strides, box, swizzle,
                                    kTensorMapInterleaveNone, l2Promotion,
                                    kTensorMapOobFillNone, elementStrides);
}

//===----------------------------------------------------------------------===//
// Test hook
//===----------------------------------------------------------------------===//

void stc_cuda_reset_for_testing(void) {
  State &st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (!st.devices.empty()) {
      // Contexts are only retained through a loaded driver.
      CudaDriver &drv = CudaDriver::get();
      for (auto &entry : st.devices)
        drv.cuDevicePrimaryCtxRelease(entry.second.props.device);
    }
    st.devices.clear();
    st.current = nullptr;
    st.kernels.clear();
    st.lastKernel.clear();
  }
  resetTensorMapsForTesting();
  resetDeviceMemoryForTesting();
  CudaDriver::resetForTesting();
  stc_cuda_clear_error();
}

int stc_cuda_hide_driver_entry_point_for_testing(const char *name) {
  CudaDriver &drv = CudaDriver::get();
  if (!drv.status().ok() || !name)
    return -1;
  if (std::strcmp(name, "cuTensorMapEncodeTiled") == 0)
    drv.cuTensorMapEncodeTiled = nullptr;
  else if (std::strcmp(name, "cuLaunchKernelEx") == 0)
    drv.cuLaunchKernelEx = nullptr;
  else if (std::strcmp(name, "cuFuncGetAttribute") == 0)
    drv.cuFuncGetAttribute = nullptr;
  else if (std::strcmp(name, "cuOccupancyMaxActiveBlocksPerMultiprocessor") ==
           0)
    drv.cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
  else if (std::strcmp(name, "cuOccupancyMaxActiveClusters") == 0)
    drv.cuOccupancyMaxActiveClusters = nullptr;
  else
    return -1;
  return 0;
}
