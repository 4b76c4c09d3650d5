//===- ApiCall.h - explicit-API calls defined outside StcRuntimeCuda.cpp -*- C++
//-*-===//
//
// The explicit stc_cuda_* entry points share one discipline, implemented by
// runtime/cuda/Call.h's Call: the current device's primary context is pushed
// for the call, a failing driver result becomes one recorded message naming
// the call, and the call's status is returned.  ApiCall gives entry points
// that live in other files of the runtime (StcRuntimeCudaKernel.cpp) the
// same discipline, and the two pieces of launch machinery they reuse rather
// than copy: the checked tensor-map encoder and the launch with its
// shared-memory opt-in bookkeeping.
//
// Internal to the runtime (not part of its API); runtime/cuda/Call.cpp defines
// it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_APICALL_H
#define STC_RUNTIME_CUDA_APICALL_H

#include "runtime/cuda/CudaDriver.h"

#include <cstdint>
#include <memory>
#include <string>

namespace stc::cuda {

/// One explicit-API call named `entry`: it needs a prior stc_cuda_init and
/// runs even while an error is recorded; failures are recorded unprefixed.
class ApiCall {
public:
  explicit ApiCall(const char *entry);
  ~ApiCall();
  ApiCall(const ApiCall &) = delete;
  ApiCall &operator=(const ApiCall &) = delete;

  /// Whether the driver may be used (initialized, context pushed).
  bool ready() const;
  /// STC_CUDA_SUCCESS, or the first failure of this call.
  int status() const;
  CudaDriver &driver() const;
  const DeviceProperties &props() const;

  /// Records a failure; returns its code.
  int fail(int code, const std::string &body);
  /// True when `r` is success, else records "<what> failed: NAME (text)"
  /// under `category` (default: by result).
  bool check(CUresult r, const std::string &what, int category = -1);

  /// The name `fn` was looked up by, for messages.
  std::string kernelName(CUfunction fn) const;
  /// Records that `fn` is opted in to `bytes` of dynamic shared memory, so
  /// that launches do not opt it in again.
  void noteSharedOptIn(CUfunction fn, unsigned bytes);
  /// The runtime's launch (`cluster` null: cuLaunchKernel; else
  /// cuLaunchKernelEx with that cluster), including the automatic opt-in
  /// to more than 48 KiB of dynamic shared memory.
  bool launch(CUfunction fn, const unsigned grid[3], const unsigned block[3],
              unsigned shared, CUstream stream, void **params,
              const unsigned *cluster);
  /// The runtime's checked cuTensorMapEncodeTiled (sizes outermost first;
  /// `elementStrides` null: all 1) with no interleave and no OOB fill.
  bool encodeTensorMap(void *map, int dataType, int rank, uint64_t address,
                       const uint64_t *dims, const uint64_t *strides,
                       const uint32_t *box, int swizzle, int l2Promotion,
                       const uint32_t *elementStrides);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_APICALL_H
