//===- Call.h - the CUDA runtime's shared state and Call --------*- C++ -*-===//
//
// What every entry point of stc_runtime_cuda.h shares: one error record
// (first error kept, as in StcRuntimeCpu.cpp) and one device table (primary
// contexts retained by stc_cuda_init or lazily by the first mgpu* call), each
// behind its own mutex.  Driver calls are made without holding either, so
// kernels can be launched from several threads.
//
// Every call goes through a Call object, which pushes the current device's
// primary context for the call's duration, and turns a failing CUresult into
// a recorded message naming the driver call, its arguments, the driver's
// error name and text.  For mgpu* calls it also implements "no-op while an
// error is recorded": generated code cannot test a result, so the first
// failure must not cascade into calls on null handles.
//
// Internal to the runtime (not part of its API); Call.cpp defines it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_CALL_H
#define STC_RUNTIME_CUDA_CALL_H

#include "runtime/cuda/CudaDriver.h"
#include "runtime/stc_runtime_cuda.h"

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace stc::cuda {

//===----------------------------------------------------------------------===//
// Error record
//===----------------------------------------------------------------------===//

/// Whether an error is recorded since the last stc_cuda_clear_error().
bool errorPending();

/// Records "error: <body>" unless an error is already recorded; returns
/// `code` so that callers can `return recordError(...)`.
int recordError(int code, const std::string &body);

//===----------------------------------------------------------------------===//
// Devices and kernels
//===----------------------------------------------------------------------===//

struct DeviceSlot {
  DeviceProperties props;
  CUcontext context = nullptr;
};

/// What the runtime remembers about a function handle it handed out: its
/// name for messages, and how much dynamic shared memory it was opted into.
struct KernelInfo {
  CUmodule module = nullptr;
  std::string name;
  unsigned sharedOptin = kDefaultDynamicSharedLimit;
};

struct State {
  std::mutex mu;
  /// Retained primary contexts by ordinal.  Slots are never erased (except
  /// by the test reset), so pointers to them stay valid.
  std::map<int, DeviceSlot> devices;
  const DeviceSlot *current = nullptr;
  std::unordered_map<CUfunction, KernelInfo> kernels;
  /// Name of the most recent launch, to point at the likely culprit when a
  /// later synchronization reports a kernel fault.
  std::string lastKernel;
};

/// The device table.  Never destroyed, like the error record.
State &state();

/// Makes device `ordinal` current, loading the driver and retaining the
/// device's primary context the first time.
Status selectDevice(int ordinal);

/// The name `fn` was looked up by, for messages ("(unnamed)" if none).
std::string kernelName(CUfunction fn);

/// "; the last kernel launched was '<name>'" (empty before any launch), for
/// the message of a synchronization that reports a kernel fault.
std::string lastKernelHint();

//===----------------------------------------------------------------------===//
// Call
//===----------------------------------------------------------------------===//

/// One entry-point invocation.  ready() says whether it may use the driver;
/// check() and fail() record errors, prefixed with the entry point's name for
/// mgpu* calls (the user sees generated code fail and needs to know which
/// runtime call it was) and unprefixed for the explicit API (whose caller
/// knows what it called; the message names the driver call).
class Call {
public:
  enum Kind {
    /// stc_cuda_*: needs a prior stc_cuda_init; runs even with an error
    /// recorded.
    Api,
    /// mgpu*: initializes the default device lazily; a no-op while an
    /// error is recorded.
    Mgpu,
    /// mgpu* that release a handle: run even while an error is recorded,
    /// but then record nothing (the first error is what matters).
    MgpuRelease,
  };

  Call(Kind kind, const char *entry) : kind(kind), entry(entry) {
    if (errorPending()) {
      if (kind == Mgpu) {
        code = STC_CUDA_ERROR_DRIVER; // any non-success: not ready
        return;
      }
      if (kind == MgpuRelease)
        quiet = true;
    }
    const DeviceSlot *slot = currentSlot();
    if (!slot && kind != Api && !quiet) {
      Status s = selectDevice(0);
      if (!s.ok()) {
        fail(s.code, s.message);
        return;
      }
      slot = currentSlot();
    }
    if (!slot) {
      code =
          kind == Api
              ? recordError(STC_CUDA_ERROR_NOT_INITIALIZED,
                            std::string(entry) + " called before stc_cuda_init")
              : STC_CUDA_ERROR_NOT_INITIALIZED;
      return;
    }
    device = slot;
    drv = &CudaDriver::get();
    if (check(drv->cuCtxPushCurrent(slot->context), "cuCtxPushCurrent"))
      pushed = true;
  }

  ~Call() {
    if (!pushed)
      return;
    CUcontext popped = nullptr;
    check(drv->cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
  }

  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;

  bool ready() const { return code == STC_CUDA_SUCCESS; }
  int status() const { return code; }
  CudaDriver &driver() const { return *drv; }
  const DeviceProperties &props() const { return device->props; }

  /// Records a failure (unless quiet); returns its code.
  int fail(int failCode, const std::string &body) {
    if (code == STC_CUDA_SUCCESS)
      code = failCode;
    if (quiet)
      return failCode;
    return recordError(failCode,
                       kind == Api ? body : std::string(entry) + ": " + body);
  }

  /// True when `r` is success; otherwise records "<what> failed: NAME
  /// (text)<suffix>" under StcCudaStatus `category` (default: by result;
  /// out-of-memory is always reported as such).
  bool check(CUresult r, const std::string &what, int category = -1,
             const std::string &suffix = std::string()) {
    if (r == kCudaSuccess)
      return true;
    int cls = CudaDriver::classify(r);
    if (category >= 0 && cls != STC_CUDA_ERROR_OUT_OF_MEMORY)
      cls = category;
    fail(cls, drv->describe(what, r) + suffix);
    return false;
  }

private:
  static const DeviceSlot *currentSlot() {
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    return st.current;
  }

  Kind kind;
  const char *entry;
  int code = STC_CUDA_SUCCESS;
  bool quiet = false;
  bool pushed = false;
  CudaDriver *drv = nullptr;
  const DeviceSlot *device = nullptr;
};

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_CALL_H
