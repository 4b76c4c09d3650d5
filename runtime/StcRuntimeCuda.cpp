//===- StcRuntimeCuda.cpp - STC run-time entry points (CUDA) ----*- C++ -*-===//
//
// The C API of stc_runtime_cuda.h -- the explicit stc_cuda_* functions and
// the mgpu* entry points of MLIR's gpu-to-llvm lowering -- over the CUDA
// driver loaded by CudaDriver.
//
// State: one error record (first error kept, as in StcRuntimeCpu.cpp) and one
// device table (primary contexts retained by stc_cuda_init or lazily by the
// first mgpu* call), each behind its own mutex.  Driver calls are made
// without holding either, so kernels can be launched from several threads.
//
// Every call goes through a Call object, which pushes the current device's
// primary context for the call's duration, and turns a failing CUresult into
// a recorded message naming the driver call, its arguments, the driver's
// error name and text.  For mgpu* calls it also implements "no-op while an
// error is recorded": generated code cannot test a result, so the first
// failure must not cascade into calls on null handles.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/ApiCall.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/CudaTesting.h"
#include "runtime/stc_runtime_cuda.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

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

bool errorPending() { return errors().pending.load(); }

/// Records "error: <body>" unless an error is already recorded; returns
/// `code` so that callers can `return recordError(...)`.
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

/// Never destroyed, like the error record.
State &state() {
  static State &s = *new State();
  return s;
}

/// Makes device `ordinal` current, loading the driver and retaining the
/// device's primary context the first time.
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

std::string dims(unsigned x, unsigned y, unsigned z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

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

//===----------------------------------------------------------------------===//
// Shared implementations
//===----------------------------------------------------------------------===//

/// Bytes of one element of a CUtensorMapDataType, or 0 for an unknown one.
int tensorMapElementBytes(int dataType) {
  static constexpr int kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (dataType < 0 || dataType >= int(sizeof(kBytes) / sizeof(kBytes[0])))
    return 0;
  return kBytes[dataType];
}

/// True for the floating-point CUtensorMapDataTypes (FLOAT16 .. TFLOAT32_FTZ).
bool tensorMapIsFloat(int dataType) { return dataType >= 6 && dataType <= 12; }

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
  return buf;
}

/// Encodes a tiled tensor map after checking, with one message per rule,
/// what cuTensorMapEncodeTiled documents (so that a bad argument is named
/// rather than reported as the driver's CUDA_ERROR_INVALID_VALUE). `dims`,
/// `strides` (bytes, rank - 1 entries), `box` and `elementStrides` (the
/// traversal strides, 1..8; null: all 1) are outermost first; the driver
/// wants them innermost first.
bool encodeTensorMap(Call &call, void *map, int dataType, int rank,
                     uint64_t address, const uint64_t *dims,
                     const uint64_t *strides, const uint32_t *box, int swizzle,
                     int interleave = kTensorMapInterleaveNone,
                     int l2Promotion = kTensorMapL2PromotionNone,
                     int oobFill = kTensorMapOobFillNone,
                     const uint32_t *elementStrides = nullptr) {
  auto invalid = [&](const std::string &why) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "tensor map: " + why);
    return false;
  };
  int elemBytes = tensorMapElementBytes(dataType);
  if (elemBytes == 0)
    return invalid("unknown element type " + std::to_string(dataType));
  if (rank < 1 || rank > 5)
    return invalid("rank must be 1 to 5, got " + std::to_string(rank));
  if (interleave < kTensorMapInterleaveNone ||
      interleave > kTensorMapInterleave32B)
    return invalid("unknown interleave " + std::to_string(interleave));
  bool interleaved = interleave != kTensorMapInterleaveNone;
  bool interleaved32 = interleave == kTensorMapInterleave32B;
  if (interleaved && rank < 3)
    return invalid("an interleaved layout needs rank 3 to 5, got rank " +
                   std::to_string(rank));
  if (!dims || !box || (rank > 1 && !strides))
    return invalid("null sizes, strides or box");
  if (address % 16 != 0)
    return invalid("the global address must be 16-byte aligned, got " +
                   hex(address));
  if (interleaved32 && address % 32 != 0)
    return invalid("the global address must be 32-byte aligned with the "
                   "32-byte interleave, got " +
                   hex(address));
  if (swizzle < STC_CUDA_SWIZZLE_NONE || swizzle > STC_CUDA_SWIZZLE_128B)
    return invalid("unknown swizzle " + std::to_string(swizzle));
  if (interleaved32 && swizzle != STC_CUDA_SWIZZLE_32B)
    return invalid("the 32-byte interleave needs the 32-byte swizzle (1), "
                   "got swizzle " +
                   std::to_string(swizzle));
  if (l2Promotion < kTensorMapL2PromotionNone ||
      l2Promotion > kTensorMapL2Promotion256B)
    return invalid("unknown L2 promotion " + std::to_string(l2Promotion));
  if (oobFill < kTensorMapOobFillNone ||
      oobFill > kTensorMapOobFillNanRequestZeroFma)
    return invalid("unknown out-of-bounds fill " + std::to_string(oobFill));
  if (oobFill == kTensorMapOobFillNanRequestZeroFma &&
      !tensorMapIsFloat(dataType))
    return invalid("the NaN out-of-bounds fill needs a floating-point "
                   "element type, got element type " +
                   std::to_string(dataType));
  uint64_t globalDim[5], globalStrides[4];
  uint32_t boxDim[5], traversal[5];
  for (int i = 0; i < rank; ++i) {
    int outer = rank - 1 - i; // C order -> the driver's innermost-first
    std::string which = "dimension " + std::to_string(outer);
    if (dims[outer] == 0 || dims[outer] > (uint64_t(1) << 32))
      return invalid(which + " has size " + std::to_string(dims[outer]) +
                     ", must be 1 to 2^32");
    if (box[outer] == 0 || box[outer] > 256)
      return invalid("box " + which + " is " + std::to_string(box[outer]) +
                     ", must be 1 to 256");
    uint32_t step = elementStrides ? elementStrides[outer] : 1;
    if (step == 0 || step > 8)
      return invalid("the element stride of " + which + " is " +
                     std::to_string(step) + ", must be 1 to 8");
    globalDim[i] = dims[outer];
    boxDim[i] = box[outer];
    traversal[i] = step;
    if (i == 0)
      continue;
    uint64_t stride = strides[outer];
    if (stride % 16 != 0 || stride >= (uint64_t(1) << 40))
      return invalid("the stride of " + which + " is " +
                     std::to_string(stride) +
                     " bytes, must be a multiple of 16 below 2^40");
    if (interleaved32 && stride % 32 != 0)
      return invalid("the stride of " + which + " is " +
                     std::to_string(stride) +
                     " bytes, must be a multiple of 32 with the 32-byte "
                     "interleave");
    // globalStrides[i - 1] = (extent of dimension i - 1) + padding: a step
    // covers everything inside it.
    uint64_t inside = 0;
    bool huge = i == 1 ? __builtin_mul_overflow(globalDim[0],
                                                uint64_t(elemBytes), &inside)
                       : __builtin_mul_overflow(globalStrides[i - 2],
                                                globalDim[i - 1], &inside);
    if (huge || stride < inside)
      return invalid(
          "the stride of " + which + " is " + std::to_string(stride) +
          " bytes, less than the " +
          (huge ? std::string("2^64 or more") : std::to_string(inside)) +
          " bytes that dimension " + std::to_string(outer + 1) + " spans");
    globalStrides[i - 1] = stride;
  }
  if (!interleaved) {
    uint64_t innerBoxBytes = uint64_t(boxDim[0]) * elemBytes;
    if (innerBoxBytes % 16 != 0)
      return invalid("the innermost box extent is " +
                     std::to_string(innerBoxBytes) +
                     " bytes, must be a multiple of 16");
    uint64_t span = uint64_t(16) << swizzle; // 32, 64, 128
    if (swizzle != STC_CUDA_SWIZZLE_NONE && innerBoxBytes > span)
      return invalid("the innermost box extent is " +
                     std::to_string(innerBoxBytes) + " bytes, more than the " +
                     std::to_string(span) + "-byte swizzle span");
  }
  CudaDriver &drv = call.driver();
  if (!drv.cuTensorMapEncodeTiled) {
    call.fail(STC_CUDA_ERROR_NO_DRIVER,
              "the CUDA driver has no cuTensorMapEncodeTiled (TMA needs a "
              "CUDA 12.0 or later driver)");
    return false;
  }
  return call.check(
      drv.cuTensorMapEncodeTiled(map, dataType, unsigned(rank),
                                 reinterpret_cast<void *>(uintptr_t(address)),
                                 globalDim, globalStrides, boxDim, traversal,
                                 interleave, swizzle, l2Promotion, oobFill),
      "cuTensorMapEncodeTiled", STC_CUDA_ERROR_INVALID_ARGUMENT);
}

/// Device copies of the tensor maps that generated code asks for
/// (mgpuTensorMapEncodeTiledMemref, stc_gpu_tensor_map_2d/4d), by content (and
/// device): generated code encodes the same maps on every call of a
/// function. A copy is freed with the buffer it describes (mgpuMemFree):
/// buffers are fresh on every call, and their maps used to pile up.
struct TensorMapCopy {
  CUdeviceptr copy = 0;
  /// The global address the map describes.
  uint64_t address = 0;
};
struct TensorMapCache {
  std::mutex mu;
  std::map<std::pair<const void *, std::string>, TensorMapCopy> copies;
};

TensorMapCache &tensorMapCache() {
  static TensorMapCache &cache = *new TensorMapCache();
  return cache;
}

/// Encodes a tiled tensor map (as encodeTensorMap) and returns the device
/// address of a copy of it, which a kernel takes as a pointer parameter: the
/// cached copy of an identical map on this device if there is one, else a
/// new one.  Null, with the reason recorded, on failure.
void *deviceTensorMap(Call &call, int dataType, int rank, uint64_t address,
                      const uint64_t *dims, const uint64_t *strides,
                      const uint32_t *box, int swizzle, int interleave,
                      int l2Promotion, int oobFill,
                      const uint32_t *elementStrides = nullptr) {
  alignas(64) unsigned char map[128] = {};
  if (!encodeTensorMap(call, map, dataType, rank, address, dims, strides, box,
                       swizzle, interleave, l2Promotion, oobFill,
                       elementStrides))
    return nullptr;
  TensorMapCache &cache = tensorMapCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  auto key = std::make_pair(static_cast<const void *>(&call.props()),
                            std::string(reinterpret_cast<char *>(map), 128));
  auto it = cache.copies.find(key);
  if (it != cache.copies.end())
    return reinterpret_cast<void *>(uintptr_t(it->second.copy));
  CudaDriver &drv = call.driver();
  CUdeviceptr copy = 0;
  if (!call.check(drv.cuMemAlloc(&copy, sizeof(map)),
                  "cuMemAlloc(128 bytes, tensor map)"))
    return nullptr;
  if (!call.check(drv.cuMemcpyHtoD(copy, map, sizeof(map)),
                  "cuMemcpyHtoD(128 bytes, tensor map)")) {
    drv.cuMemFree(copy);
    return nullptr;
  }
  cache.copies.emplace(std::move(key), TensorMapCopy{copy, address});
  return reinterpret_cast<void *>(uintptr_t(copy));
}

/// Sizes of the buffers mgpuMemAlloc made, so that mgpuMemFree knows which
/// tensor maps describe memory inside the buffer it frees. Never
/// destroyed, like the error record.
struct DeviceBuffers {
  std::mutex mu;
  std::map<uintptr_t, uint64_t> sizes;
};

DeviceBuffers &deviceBuffers() {
  static DeviceBuffers &buffers = *new DeviceBuffers();
  return buffers;
}

/// Frees the cached tensor-map copies whose address lies in the buffer at
/// `base` (made by mgpuMemAlloc; nothing for another pointer). cuMemFree
/// waits for the kernels that use them.
void freeTensorMapsOf(Call &call, uintptr_t base) {
  uint64_t size = 0;
  {
    DeviceBuffers &buffers = deviceBuffers();
    std::lock_guard<std::mutex> lock(buffers.mu);
    auto it = buffers.sizes.find(base);
    if (it == buffers.sizes.end())
      return;
    size = it->second;
    buffers.sizes.erase(it);
  }
  TensorMapCache &cache = tensorMapCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  for (auto it = cache.copies.begin(); it != cache.copies.end();) {
    uint64_t address = it->second.address;
    if (address >= base && address - base < size) {
      if (call.ready())
        call.driver().cuMemFree(it->second.copy);
      it = cache.copies.erase(it);
    } else {
      ++it;
    }
  }
}

/// What stc_gpu_tensor_map_2d and stc_gpu_tensor_map_4d share: checks the
/// base and the signs of the `rank` sizes, rank - 1 byte strides, box sizes
/// and element strides (null: all 1), all outermost first (`negative` says
/// which are negative, for the message), maps `swizzleBytes` (0, 32, 64,
/// 128) to its CUtensorMapSwizzle and returns deviceTensorMap's copy of the
/// map with no interleave, L2 promotion of 128 bytes and OOB fill NONE.
template <typename Describe>
void *stcTensorMap(Call &call, const void *base, int32_t dataType, int rank,
                   const int64_t *dims, const int64_t *strides,
                   const int32_t *box, const int32_t *elementStrides,
                   int32_t swizzleBytes, Describe negative) {
  if (!call.ready())
    return nullptr;
  auto invalid = [&](const std::string &why) -> void * {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "tensor map: " + why);
    return nullptr;
  };
  if (!base)
    return invalid("null base address");
  bool anyNegative = false;
  for (int d = 0; d < rank; ++d)
    anyNegative |= dims[d] < 0 || box[d] < 0 || (d > 0 && strides[d - 1] < 0) ||
                   (elementStrides && elementStrides[d] < 0);
  if (anyNegative)
    return invalid(negative());
  int swizzle;
  switch (swizzleBytes) {
  case 0:
    swizzle = STC_CUDA_SWIZZLE_NONE;
    break;
  case 32:
    swizzle = STC_CUDA_SWIZZLE_32B;
    break;
  case 64:
    swizzle = STC_CUDA_SWIZZLE_64B;
    break;
  case 128:
    swizzle = STC_CUDA_SWIZZLE_128B;
    break;
  default:
    return invalid("the swizzle must be 0, 32, 64 or 128 bytes, got " +
                   std::to_string(swizzleBytes));
  }
  uint64_t udims[5], ustrides[4];
  uint32_t ubox[5], usteps[5];
  for (int d = 0; d < rank; ++d) {
    udims[d] = uint64_t(dims[d]);
    ubox[d] = uint32_t(box[d]);
    usteps[d] = elementStrides ? uint32_t(elementStrides[d]) : 1;
    if (d > 0)
      ustrides[d - 1] = uint64_t(strides[d - 1]);
  }
  return deviceTensorMap(call, dataType, rank, uint64_t(uintptr_t(base)), udims,
                         ustrides, ubox, swizzle, kTensorMapInterleaveNone,
                         kTensorMapL2Promotion128B, kTensorMapOobFillNone,
                         usteps);
}

/// Loads a module from PTX text (`isPtx`) or a cubin/fatbin image, capturing
/// the JIT error log into the error message.
CUmodule loadModule(Call &call, const void *image, bool isPtx, int optLevel,
                    const std::string &what) {
  // The driver writes at most the given size including the terminating NUL;
  // one spare byte keeps the buffer terminated whatever it does.
  static constexpr size_t kLogSize = 16 * 1024;
  std::string log(kLogSize + 1, '\0');
  int options[3];
  void *values[3];
  unsigned n = 0;
  options[n] = kJitErrorLogBuffer;
  values[n++] = &log[0];
  options[n] = kJitErrorLogBufferSizeBytes;
  values[n++] = reinterpret_cast<void *>(uintptr_t(kLogSize));
  if (isPtx && optLevel >= 0) {
    // ptxas accepts -O0..-O4.
    options[n] = kJitOptimizationLevel;
    values[n++] = reinterpret_cast<void *>(uintptr_t(std::min(optLevel, 4)));
  }
  CUmodule module = nullptr;
  CUresult r =
      call.driver().cuModuleLoadDataEx(&module, image, n, options, values);
  if (r == kCudaSuccess)
    return module;

  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && std::isspace(static_cast<unsigned char>(log.back())))
    log.pop_back();
  std::string suffix;
  const DeviceProperties &p = call.props();
  std::string sm =
      "sm_" + std::to_string(p.smMajor) + std::to_string(p.smMinor);
  if (r == kCudaErrorNoBinaryForGpu)
    suffix = "; the image has no code for this GPU (" + sm +
             "); compile for it or load PTX";
  else if (r == kCudaErrorUnsupportedPtxVersion)
    suffix = "; the driver is older than the PTX's .version; update the "
             "NVIDIA driver or target an older PTX ISA";
  if (!log.empty())
    suffix += "; JIT log:\n" + log;
  call.check(r, "cuModuleLoadDataEx(" + what + ")", STC_CUDA_ERROR_MODULE_LOAD,
             suffix);
  return nullptr;
}

CUfunction getFunction(Call &call, CUmodule module, const char *name) {
  CUfunction fn = nullptr;
  if (!call.check(call.driver().cuModuleGetFunction(&fn, module, name),
                  std::string("cuModuleGetFunction('") + name + "')"))
    return nullptr;
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  KernelInfo &info = st.kernels[fn];
  if (info.module != module || info.name != name)
    info = KernelInfo{module, name, kDefaultDynamicSharedLimit};
  return fn;
}

void unloadModule(Call &call, CUmodule module) {
  {
    // Function handles die with their module and may be reused.
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    for (auto it = st.kernels.begin(); it != st.kernels.end();)
      it = it->second.module == module ? st.kernels.erase(it) : std::next(it);
  }
  call.check(call.driver().cuModuleUnload(module), "cuModuleUnload");
}

/// Launches `fn`, opting it into more than 48 KiB of dynamic shared memory
/// first when needed.  `cluster` is null for an ordinary launch.
bool launch(Call &call, CUfunction fn, const unsigned grid[3],
            const unsigned block[3], unsigned shared, CUstream stream,
            void **params, void **extra, const unsigned *cluster) {
  CudaDriver &drv = call.driver();
  std::string name = kernelName(fn);
  std::string what = "cuLaunchKernel";
  if (cluster)
    what = "cuLaunchKernelEx";
  what += "(kernel '" + name + "', grid " + dims(grid[0], grid[1], grid[2]) +
          ", block " + dims(block[0], block[1], block[2]);
  if (cluster)
    what += ", cluster " + dims(cluster[0], cluster[1], cluster[2]);
  what += ", " + std::to_string(shared) + " bytes of dynamic shared memory)";

  for (int i = 0; i < 3; ++i)
    if (grid[i] == 0 || block[i] == 0 || (cluster && cluster[i] == 0)) {
      call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                what +
                    ": every grid, block and cluster size must be at least 1");
      return false;
    }

  if (cluster) {
    const DeviceProperties &p = call.props();
    if (p.smMajor < 9) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                what + ": thread block clusters need sm_90 or later; GPU " +
                    p.name + " is sm_" + std::to_string(p.smMajor) +
                    std::to_string(p.smMinor));
      return false;
    }
    for (int i = 0; i < 3; ++i)
      if (grid[i] % cluster[i] != 0) {
        call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                  what + ": the grid is not a whole number of clusters (grid " +
                      "xyz"[i] + " = " + std::to_string(grid[i]) +
                      " is not a multiple of cluster " + "xyz"[i] + " = " +
                      std::to_string(cluster[i]) + ")");
        return false;
      }
    uint64_t blocks = uint64_t(cluster[0]) * cluster[1] * cluster[2];
    if (blocks > kMaxPortableClusterSize) {
      call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                what + ": a cluster of " + std::to_string(blocks) +
                    " blocks is more than the portable maximum of " +
                    std::to_string(kMaxPortableClusterSize));
      return false;
    }
  }

  if (shared > kDefaultDynamicSharedLimit) {
    const DeviceProperties &p = call.props();
    if (int64_t(shared) > int64_t(p.maxSharedPerBlockOptin)) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                "kernel '" + name + "' asks for " + std::to_string(shared) +
                    " bytes of dynamic shared memory; GPU " + p.name +
                    " allows at most " +
                    std::to_string(p.maxSharedPerBlockOptin) +
                    " bytes per block (its opt-in limit)");
      return false;
    }
    unsigned optin;
    {
      State &st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.kernels.find(fn);
      optin = it == st.kernels.end() ? kDefaultDynamicSharedLimit
                                     : it->second.sharedOptin;
    }
    if (shared > optin) {
      if (!call.check(drv.cuFuncSetAttribute(
                          fn, kFuncAttrMaxDynamicSharedSizeBytes, int(shared)),
                      "cuFuncSetAttribute(kernel '" + name +
                          "', MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                          std::to_string(shared) + ")",
                      STC_CUDA_ERROR_LAUNCH))
        return false;
      State &st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.kernels.find(fn);
      if (it != st.kernels.end())
        it->second.sharedOptin = std::max(it->second.sharedOptin, shared);
    }
  }

  CUresult r;
  if (!cluster) {
    r = drv.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
                           block[2], shared, stream, params, extra);
  } else {
    if (!drv.cuLaunchKernelEx) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                what + ": the CUDA driver has no cuLaunchKernelEx (cluster "
                       "launches need CUDA 12.0 or later)");
      return false;
    }
    CUlaunchAttribute attr;
    std::memset(&attr, 0, sizeof(attr));
    attr.id = kLaunchAttributeClusterDimension;
    attr.value.clusterDim.x = cluster[0];
    attr.value.clusterDim.y = cluster[1];
    attr.value.clusterDim.z = cluster[2];
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = block[0];
    config.blockDimY = block[1];
    config.blockDimZ = block[2];
    config.sharedMemBytes = shared;
    config.hStream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    r = drv.cuLaunchKernelEx(&config, fn, params, extra);
  }
  {
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    st.lastKernel = name;
  }
  return call.check(r, what, STC_CUDA_ERROR_LAUNCH);
}

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
// Explicit API
//===----------------------------------------------------------------------===//

int stc_cuda_init(int device) {
  Status s = selectDevice(device);
  return s.ok() ? STC_CUDA_SUCCESS : recordError(s.code, s.message);
}

int stc_cuda_device_info(StcCudaDeviceInfo *info) {
  Call call(Call::Api, "stc_cuda_device_info");
  if (!call.ready())
    return call.status();
  if (!info)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_device_info: `info` is null");
  const DeviceProperties &p = call.props();
  std::memset(info, 0, sizeof(*info));
  info->ordinal = p.ordinal;
  info->sm_major = p.smMajor;
  info->sm_minor = p.smMinor;
  info->sm = 10 * p.smMajor + p.smMinor;
  info->driver_version = call.driver().driverVersion();
  info->max_shared_bytes_per_block = p.maxSharedPerBlockOptin;
  std::strncpy(info->name, p.name.c_str(), sizeof(info->name) - 1);
  return STC_CUDA_SUCCESS;
}

int stc_cuda_module_load_ptx(const char *ptx, StcCudaModule *module) {
  Call call(Call::Api, "stc_cuda_module_load_ptx");
  if (!call.ready())
    return call.status();
  if (!ptx || !module)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_load_ptx: null argument");
  *module = reinterpret_cast<StcCudaModule>(
      loadModule(call, ptx, /*isPtx=*/true, /*optLevel=*/-1, "PTX"));
  return call.status();
}

int stc_cuda_module_load_cubin(const void *image, size_t size,
                               StcCudaModule *module) {
  Call call(Call::Api, "stc_cuda_module_load_cubin");
  if (!call.ready())
    return call.status();
  if (!image || !size || !module)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_load_cubin: null or empty image");
  *module = reinterpret_cast<StcCudaModule>(
      loadModule(call, image, /*isPtx=*/false, -1,
                 "cubin of " + std::to_string(size) + " bytes"));
  return call.status();
}

int stc_cuda_module_unload(StcCudaModule module) {
  if (!module)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_module_unload");
  if (call.ready())
    unloadModule(call, reinterpret_cast<CUmodule>(module));
  return call.status();
}

int stc_cuda_module_get_function(StcCudaModule module, const char *name,
                                 StcCudaFunction *function) {
  Call call(Call::Api, "stc_cuda_module_get_function");
  if (!call.ready())
    return call.status();
  if (!module || !name || !function)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_get_function: null argument");
  *function = reinterpret_cast<StcCudaFunction>(
      getFunction(call, reinterpret_cast<CUmodule>(module), name));
  return call.status();
}

int stc_cuda_tensor_map_encode_tiled(StcCudaTensorMap *map, int data_type,
                                     int rank, StcCudaDevicePtr address,
                                     const uint64_t *dims,
                                     const uint64_t *strides_bytes,
                                     const uint32_t *box, int swizzle) {
  Call call(Call::Api, "stc_cuda_tensor_map_encode_tiled");
  if (!call.ready())
    return call.status();
  if (!map)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_tensor_map_encode_tiled: null map");
  if (!encodeTensorMap(call, map->bytes, data_type, rank, address, dims,
                       strides_bytes, box, swizzle))
    return call.status();
  return STC_CUDA_SUCCESS;
}

int stc_cuda_mem_alloc(size_t bytes, StcCudaDevicePtr *ptr) {
  Call call(Call::Api, "stc_cuda_mem_alloc");
  if (!call.ready())
    return call.status();
  if (!ptr)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_mem_alloc: `ptr` is null");
  *ptr = 0;
  if (bytes == 0)
    return STC_CUDA_SUCCESS;
  CUdeviceptr p = 0;
  if (call.check(call.driver().cuMemAlloc(&p, bytes),
                 "cuMemAlloc(" + std::to_string(bytes) + " bytes)"))
    *ptr = p;
  return call.status();
}

int stc_cuda_mem_free(StcCudaDevicePtr ptr) {
  if (!ptr)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_mem_free");
  if (call.ready())
    call.check(call.driver().cuMemFree(ptr), "cuMemFree");
  return call.status();
}

int stc_cuda_memcpy_htod(StcCudaDevicePtr dst, const void *src, size_t bytes) {
  Call call(Call::Api, "stc_cuda_memcpy_htod");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemcpyHtoD(dst, src, bytes),
             "cuMemcpyHtoD(" + std::to_string(bytes) + " bytes)");
  return call.status();
}

int stc_cuda_memcpy_dtoh(void *dst, StcCudaDevicePtr src, size_t bytes) {
  Call call(Call::Api, "stc_cuda_memcpy_dtoh");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemcpyDtoH(dst, src, bytes),
             "cuMemcpyDtoH(" + std::to_string(bytes) + " bytes)",
             /*category=*/-1, lastKernelHint());
  return call.status();
}

int stc_cuda_memset_d8(StcCudaDevicePtr dst, unsigned char value,
                       size_t bytes) {
  Call call(Call::Api, "stc_cuda_memset_d8");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemsetD8(dst, value, bytes),
             "cuMemsetD8(" + std::to_string(bytes) + " bytes)");
  return call.status();
}

int stc_cuda_stream_create(StcCudaStream *stream) {
  Call call(Call::Api, "stc_cuda_stream_create");
  if (!call.ready())
    return call.status();
  if (!stream)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_stream_create: `stream` is null");
  CUstream s = nullptr;
  *stream = nullptr;
  if (call.check(call.driver().cuStreamCreate(&s, kStreamNonBlocking),
                 "cuStreamCreate"))
    *stream = reinterpret_cast<StcCudaStream>(s);
  return call.status();
}

int stc_cuda_stream_destroy(StcCudaStream stream) {
  if (!stream)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_stream_destroy");
  if (call.ready())
    call.check(
        call.driver().cuStreamDestroy(reinterpret_cast<CUstream>(stream)),
        "cuStreamDestroy");
  return call.status();
}

int stc_cuda_launch(StcCudaFunction function, const unsigned grid[3],
                    const unsigned block[3], unsigned shared_bytes,
                    StcCudaStream stream, void **params) {
  Call call(Call::Api, "stc_cuda_launch");
  if (!call.ready())
    return call.status();
  if (!function || !grid || !block)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_launch: null function, grid or block");
  launch(call, reinterpret_cast<CUfunction>(function), grid, block,
         shared_bytes, reinterpret_cast<CUstream>(stream), params,
         /*extra=*/nullptr, /*cluster=*/nullptr);
  return call.status();
}

int stc_cuda_synchronize(StcCudaStream stream) {
  Call call(Call::Api, "stc_cuda_synchronize");
  if (!call.ready())
    return call.status();
  CudaDriver &drv = call.driver();
  if (stream)
    call.check(drv.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)),
               "cuStreamSynchronize", -1, lastKernelHint());
  else
    call.check(drv.cuCtxSynchronize(), "cuCtxSynchronize", -1,
               lastKernelHint());
  return call.status();
}

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
  return loadModule(call, data, /*isPtx=*/false, -1,
                    "cubin of " + std::to_string(gpuBlobSize) + " bytes");
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Call call(Call::Mgpu, "mgpuModuleLoadJIT");
  if (!call.ready())
    return nullptr;
  if (!data) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT, "null PTX");
    return nullptr;
  }
  return loadModule(call, data, /*isPtx=*/true, std::max(optLevel, 0), "PTX");
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  Call call(Call::MgpuRelease, "mgpuModuleUnload");
  if (call.ready())
    unloadModule(call, static_cast<CUmodule>(module));
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

void *mgpuStreamCreate(void) {
  Call call(Call::Mgpu, "mgpuStreamCreate");
  if (!call.ready())
    return nullptr;
  CUstream s = nullptr;
  // Non-blocking: generated code orders its work with events, and must not
  // be serialized with whatever else uses the legacy default stream.
  if (!call.check(call.driver().cuStreamCreate(&s, kStreamNonBlocking),
                  "cuStreamCreate"))
    return nullptr;
  return s;
}

void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  Call call(Call::MgpuRelease, "mgpuStreamDestroy");
  if (call.ready())
    call.check(call.driver().cuStreamDestroy(static_cast<CUstream>(stream)),
               "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
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

void *mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *descriptor,
                                     int64_t tensorDataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  Call call(Call::Mgpu, "mgpuTensorMapEncodeTiledMemref");
  if (!call.ready())
    return nullptr;
  if (tensorRank < 1 || tensorRank > 5 || !descriptor || !boxDims) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
              "tensor map: rank must be 1 to 5 with a descriptor and box "
              "sizes, got rank " +
                  std::to_string(tensorRank));
    return nullptr;
  }
  // {allocated, aligned, offset, sizes[rank], strides[rank]} (elements).
  const int64_t *words = static_cast<const int64_t *>(descriptor);
  int rank = int(tensorRank);
  int elemBytes = tensorMapElementBytes(int(tensorDataType));
  const int64_t *sizes = words + 3, *elementStrides = words + 3 + rank;
  if (elementStrides[rank - 1] != 1) {
    call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
              "tensor map: the innermost dimension must be contiguous "
              "(stride 1), got stride " +
                  std::to_string(elementStrides[rank - 1]));
    return nullptr;
  }
  uint64_t dims[5], strides[5];
  uint32_t box[5];
  for (int d = 0; d < rank; ++d) {
    dims[d] = uint64_t(std::max<int64_t>(sizes[d], 0));
    strides[d] = uint64_t(std::max<int64_t>(elementStrides[d], 0)) * elemBytes;
    box[d] = uint32_t(std::clamp<int64_t>(boxDims[d], 0, UINT32_MAX));
  }
  uint64_t address = uint64_t(words[1]) + uint64_t(words[2]) * elemBytes;
  return deviceTensorMap(call, int(tensorDataType), rank, address, dims,
                         strides, box, int(swizzle), int(interleave),
                         int(l2Promotion), int(oobFill));
}

void *stc_gpu_tensor_map_2d(const void *base, int32_t data_type, int64_t inner,
                            int64_t outer, int64_t outer_stride_bytes,
                            int32_t box_inner, int32_t box_outer,
                            int32_t swizzle_bytes) {
  Call call(Call::Mgpu, "stc_gpu_tensor_map_2d");
  // Outermost first, as encodeTensorMap takes them.
  const int64_t dims[2] = {outer, inner};
  const int64_t strides[1] = {outer_stride_bytes};
  const int32_t box[2] = {box_outer, box_inner};
  return stcTensorMap(call, base, data_type, 2, dims, strides, box,
                      /*elementStrides=*/nullptr, swizzle_bytes, [&] {
                        return "negative size, stride or box (inner " +
                               std::to_string(inner) + ", outer " +
                               std::to_string(outer) + ", outer stride " +
                               std::to_string(outer_stride_bytes) +
                               " bytes, box " + std::to_string(box_inner) +
                               "x" + std::to_string(box_outer) + ")";
                      });
}

void *stc_gpu_tensor_map_4d(const void *base, int32_t data_type, int64_t d0,
                            int64_t d1, int64_t d2, int64_t d3, int64_t s1,
                            int64_t s2, int64_t s3, int32_t b0, int32_t b1,
                            int32_t b2, int32_t b3, int32_t e0, int32_t e1,
                            int32_t e2, int32_t e3, int32_t swizzle_bytes) {
  Call call(Call::Mgpu, "stc_gpu_tensor_map_4d");
  // Outermost first, as encodeTensorMap takes them.
  const int64_t dims[4] = {d3, d2, d1, d0};
  const int64_t strides[3] = {s3, s2, s1};
  const int32_t box[4] = {b3, b2, b1, b0};
  const int32_t elementStrides[4] = {e3, e2, e1, e0};
  return stcTensorMap(call, base, data_type, 4, dims, strides, box,
                      elementStrides, swizzle_bytes, [&] {
                        auto join = [](std::initializer_list<int64_t> v) {
                          std::string out;
                          for (int64_t x : v)
                            out += (out.empty() ? "" : "x") + std::to_string(x);
                          return out;
                        };
                        return "negative size, stride, box or element stride "
                               "(innermost first: sizes " +
                               join({d0, d1, d2, d3}) + ", strides " +
                               join({s1, s2, s3}) + " bytes, box " +
                               join({b0, b1, b2, b3}) + ", element strides " +
                               join({e0, e1, e2, e3}) + ")";
                      });
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint32_t isHostShared) {
  (void)stream; // cuMemAlloc is synchronous and serves every stream
  Call call(Call::Mgpu, "mgpuMemAlloc");
  if (!call.ready() || sizeBytes == 0)
    return nullptr;
  CudaDriver &drv = call.driver();
  CUdeviceptr p = 0;
  bool ok;
  if (isHostShared & 0xff)
    ok = call.check(drv.cuMemAllocManaged(&p, sizeBytes, kMemAttachGlobal),
                    "cuMemAllocManaged(" + std::to_string(sizeBytes) +
                        " bytes)");
  else
    ok = call.check(drv.cuMemAlloc(&p, sizeBytes),
                    "cuMemAlloc(" + std::to_string(sizeBytes) + " bytes)");
  if (!ok)
    return nullptr;
  DeviceBuffers &buffers = deviceBuffers();
  std::lock_guard<std::mutex> lock(buffers.mu);
  buffers.sizes[uintptr_t(p)] = sizeBytes;
  return reinterpret_cast<void *>(uintptr_t(p));
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr)
    return;
  Call call(Call::MgpuRelease, "mgpuMemFree");
  if (call.ready())
    call.check(call.driver().cuMemFree(CUdeviceptr(uintptr_t(ptr))),
               "cuMemFree");
  freeTensorMapsOf(call, uintptr_t(ptr));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  Call call(Call::Mgpu, "mgpuMemcpy");
  if (!call.ready() || sizeBytes == 0)
    return;
  // Unified addressing: the driver tells host from device pointers.
  call.check(call.driver().cuMemcpyAsync(CUdeviceptr(uintptr_t(dst)),
                                         CUdeviceptr(uintptr_t(src)), sizeBytes,
                                         static_cast<CUstream>(stream)),
             "cuMemcpyAsync(" + std::to_string(sizeBytes) + " bytes)");
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
  { #name, reinterpret_cast < void *>(&name) }
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
  return ::kernelName(fn);
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
  return ::launch(impl->call, fn, grid, block, shared, stream, params,
                  /*extra=*/nullptr, cluster);
}
bool ApiCall::encodeTensorMap(void *map, int dataType, int rank,
                              uint64_t address, const uint64_t *dims,
                              const uint64_t *strides, const uint32_t *box,
                              int swizzle, int l2Promotion,
                              const uint32_t *elementStrides) {
  return ::encodeTensorMap(impl->call, map, dataType, rank, address, dims,
                           strides, box, swizzle, kTensorMapInterleaveNone,
                           l2Promotion, kTensorMapOobFillNone, elementStrides);
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
  {
    // The copies died with the driver's state.
    TensorMapCache &cache = tensorMapCache();
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.copies.clear();
  }
  {
    DeviceBuffers &buffers = deviceBuffers();
    std::lock_guard<std::mutex> lock(buffers.mu);
    buffers.sizes.clear();
  }
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
