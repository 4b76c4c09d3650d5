//===- TensorMaps.cpp - TMA descriptors for the CUDA runtime ----*- C++ -*-===//
//
// Tensor maps (TMA descriptors, sm_90): the checked encoder of
// runtime/cuda/TensorMaps.h, which names the rule a bad argument breaks
// rather than passing on the driver's CUDA_ERROR_INVALID_VALUE; the device
// copies that generated code takes as kernel parameters, cached by content
// and freed with the buffer they describe; and the entry points that
// generated code calls to build them (mgpuTensorMapEncodeTiledMemref,
// stc_gpu_tensor_map_2d/4d).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/TensorMaps.h"
#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceMemory.h"
#include "runtime/stc_runtime_cuda.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace stc::cuda;

namespace {

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

} // namespace

namespace stc::cuda {

bool encodeTensorMap(Call &call, void *map, int dataType, int rank,
                     uint64_t address, const uint64_t *dims,
                     const uint64_t *strides, const uint32_t *box, int swizzle,
                     int interleave, int l2Promotion, int oobFill,
                     const uint32_t *elementStrides) {
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

} // namespace stc::cuda

namespace {

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
  countDeviceAlloc();
  if (!call.check(drv.cuMemcpyHtoD(copy, map, sizeof(map)),
                  "cuMemcpyHtoD(128 bytes, tensor map)")) {
    drv.cuMemFree(copy);
    countDeviceFree();
    return nullptr;
  }
  countHostToDevice(sizeof(map));
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

} // namespace

namespace stc::cuda {

void noteDeviceBuffer(uintptr_t base, uint64_t size) {
  DeviceBuffers &buffers = deviceBuffers();
  std::lock_guard<std::mutex> lock(buffers.mu);
  buffers.sizes[base] = size;
}

bool isDeviceAddress(uintptr_t address) {
  DeviceBuffers &buffers = deviceBuffers();
  std::lock_guard<std::mutex> lock(buffers.mu);
  auto it = buffers.sizes.upper_bound(address);
  if (it == buffers.sizes.begin())
    return false;
  --it;
  return address - it->first < it->second;
}

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
      if (call.ready() &&
          call.driver().cuMemFree(it->second.copy) == kCudaSuccess)
        countDeviceFree();
      it = cache.copies.erase(it);
    } else {
      ++it;
    }
  }
}

void resetTensorMapsForTesting() {
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
}

} // namespace stc::cuda

namespace {

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

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

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

void *stc_gpu_tensor_map_2d(const void *base, int32_t dataType, int64_t inner,
                            int64_t outer, int64_t outerStrideBytes,
                            int32_t boxInner, int32_t boxOuter,
                            int32_t swizzleBytes) {
  Call call(Call::Mgpu, "stc_gpu_tensor_map_2d");
  // Outermost first, as encodeTensorMap takes them.
  const int64_t dims[2] = {outer, inner};
  const int64_t strides[1] = {outerStrideBytes};
  const int32_t box[2] = {boxOuter, boxInner};
  return stcTensorMap(call, base, dataType, 2, dims, strides, box,
                      /*elementStrides=*/nullptr, swizzleBytes, [&] {
                        return "negative size, stride or box (inner " +
                               std::to_string(inner) + ", outer " +
                               std::to_string(outer) + ", outer stride " +
                               std::to_string(outerStrideBytes) +
                               " bytes, box " + std::to_string(boxInner) + "x" +
                               std::to_string(boxOuter) + ")";
                      });
}

void *stc_gpu_tensor_map_4d(const void *base, int32_t dataType, int64_t d0,
                            int64_t d1, int64_t d2, int64_t d3, int64_t s1,
                            int64_t s2, int64_t s3, int32_t b0, int32_t b1,
                            int32_t b2, int32_t b3, int32_t e0, int32_t e1,
                            int32_t e2, int32_t e3, int32_t swizzleBytes) {
  Call call(Call::Mgpu, "stc_gpu_tensor_map_4d");
  // Outermost first, as encodeTensorMap takes them.
  const int64_t dims[4] = {d3, d2, d1, d0};
  const int64_t strides[3] = {s3, s2, s1};
  const int32_t box[4] = {b3, b2, b1, b0};
  const int32_t elementStrides[4] = {e3, e2, e1, e0};
  return stcTensorMap(call, base, dataType, 4, dims, strides, box,
                      elementStrides, swizzleBytes, [&] {
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
