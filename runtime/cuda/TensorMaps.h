//===- TensorMaps.h - TMA descriptors for the CUDA runtime ------*- C++ -*-===//
//
// The checked cuTensorMapEncodeTiled that every way of building a tensor map
// goes through, and the bookkeeping of the device copies that generated code
// takes: mgpuMemAlloc notes each buffer, mgpuMemFree frees the copies that
// describe memory inside it.
//
// Internal to the runtime (not part of its API); TensorMaps.cpp defines it,
// with the entry points that build maps for generated code
// (mgpuTensorMapEncodeTiledMemref, stc_gpu_tensor_map_2d/4d).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_TENSORMAPS_H
#define STC_RUNTIME_CUDA_TENSORMAPS_H

#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"

#include <cstdint>

namespace stc::cuda {

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
                     const uint32_t *elementStrides = nullptr);

/// Records the size of the buffer at `base` that mgpuMemAlloc made, so that
/// freeTensorMapsOf knows which tensor maps describe memory inside it.
void noteDeviceBuffer(uintptr_t base, uint64_t size);

/// Whether `address` lies in a buffer noted by noteDeviceBuffer (a copy's
/// direction, for the counters of stc_gpu_counters.h).
bool isDeviceAddress(uintptr_t address);

/// Frees the cached tensor-map copies whose address lies in the buffer at
/// `base` (made by mgpuMemAlloc; nothing for another pointer). cuMemFree
/// waits for the kernels that use them.
void freeTensorMapsOf(Call &call, uintptr_t base);

/// Test hook: forgets every cached tensor-map copy and device buffer (the
/// copies died with the driver's state).
void resetTensorMapsForTesting();

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_TENSORMAPS_H
