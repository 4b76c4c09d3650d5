//===- StcRuntimeCpu.cpp - STC run-time entry points (CPU) ------*- C++ -*-===//
//
// The C entry points of stc_runtime.h, implemented on the host CPU over MLIR
// memref descriptors with the canonical-format library (StcFormat), for f32
// (float), f16/bf16 (uint16_t bits) and i8 (int8_t, signed).  Every
// descriptor's offset and both strides are honoured: element (r, c) lives at
// aligned + offset + r*strides[0] + c*strides[1].  For an operand with
// reduction_dim 1 the view is rows = sizes[0], K = sizes[1]; with
// reduction_dim 0 it is rows = sizes[1], K = sizes[0].  Compressed operands
// (values, metadata, indices) are always rows x (per-row count).
//
// Error state: one process-wide record guarded by a mutex (not thread_local),
// so a host thread sees an error raised by generated code on any thread.
// Only the first error since the last stc_rt_clear_error() is kept; a failing
// call zero-fills its outputs and returns normally (nothing aborts), and the
// generated code returns as soon as stc_rt_failed() says so.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcFormat.h"
#include "runtime/format/StcLimits.h"
#include "runtime/format/StcPrune.h"
#include "runtime/stc_runtime.h"
#include "runtime/stc_runtime_cuda.h"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <mutex>
#include <string>

using namespace stc::format;

namespace {

//===----------------------------------------------------------------------===//
// Error state
//===----------------------------------------------------------------------===//

std::mutex &errorMutex() {
  static std::mutex mu;
  return mu;
}

/// Guarded by errorMutex().  `errorText` is assigned only while `hasError` is
/// false, so a pointer returned by stc_rt_error_message() stays valid until
/// the next stc_rt_clear_error().
bool hasError = false;
std::string errorText;
StcRtErrorHook errorHook = nullptr;

std::string locationOf(const StcMemRef1D *where) {
  if (!where || !where->aligned || where->sizes[0] <= 0)
    return std::string();
  const char *base = static_cast<const char *>(where->aligned) + where->offset;
  std::string loc;
  loc.reserve(size_t(where->sizes[0]));
  for (int64_t i = 0; i < where->sizes[0]; ++i)
    loc.push_back(base[i * where->strides[0]]);
  return loc;
}

/// Records "<where>: error: <body>" unless an error is already recorded.
void recordError(const StcMemRef1D *where, const std::string &body) {
  std::string loc = locationOf(where);
  std::string msg =
      (loc.empty() ? std::string() : loc + ": ") + "error: " + body;
  StcRtErrorHook hook;
  {
    std::lock_guard<std::mutex> lock(errorMutex());
    if (hasError)
      return;
    hasError = true;
    errorText = std::move(msg);
    hook = errorHook;
  }
  // errorText stays as it is until stc_rt_clear_error().
  if (hook)
    hook(errorText.c_str());
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

bool isValid(const StcMemRef2D *d) {
  if (!d || d->sizes[0] < 0 || d->sizes[1] < 0)
    return false;
  return d->aligned || d->sizes[0] == 0 || d->sizes[1] == 0;
}

template <typename T>
T *elementBase(const StcMemRef2D *d) {
  return d->aligned ? static_cast<T *>(d->aligned) + d->offset : nullptr;
}

/// The descriptor as stored (rows = sizes[0], cols = sizes[1]).
template <typename T>
View2D<T> plainView(const StcMemRef2D *d) {
  return View2D<T>(elementBase<T>(d), d->sizes[0], d->sizes[1], d->strides[0],
                   d->strides[1]);
}

/// The descriptor viewed with the reduction dimension as the columns.
template <typename T>
View2D<T> reductionView(const StcMemRef2D *d, int64_t reductionDim) {
  if (reductionDim == 1)
    return plainView<T>(d);
  return View2D<T>(elementBase<T>(d), d->sizes[1], d->sizes[0], d->strides[1],
                   d->strides[0]);
}

template <typename T>
void zeroFill(const StcMemRef2D *d) {
  if (!isValid(d) || !d->aligned)
    return;
  View2D<T> v = plainView<T>(d);
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c)
      v.at(r, c) = T{};
}

std::string patternName(int64_t n, int64_t m) {
  return std::to_string(n) + ":" + std::to_string(m);
}

std::string shapeName(int64_t a, int64_t b) {
  return std::to_string(a) + "x" + std::to_string(b);
}

/// Validates the pattern and reduction dim; records an error for `op` and
/// returns false if they are bad.
bool checkArgs(const char *op, int64_t reductionDim, int64_t n, int64_t m,
               const StcMemRef1D *where, NMPattern &p) {
  if (!((n == 2 && m == 4) || (n == 1 && m == 2))) {
    recordError(where, std::string(op) + ": unsupported sparsity pattern " +
                           patternName(n, m) + " (supported: 2:4, 1:2)");
    return false;
  }
  if (reductionDim != 0 && reductionDim != 1) {
    recordError(where, std::string(op) + ": reduction dimension " +
                           std::to_string(reductionDim) + " is not 0 or 1");
    return false;
  }
  p = NMPattern{int(n), int(m)};
  return true;
}

bool checkDescriptors(const char *op, const StcMemRef1D *where,
                      std::initializer_list<const StcMemRef2D *> ds) {
  for (const StcMemRef2D *d : ds)
    if (!isValid(d)) {
      recordError(where, std::string(op) + ": invalid memref descriptor");
      return false;
    }
  return true;
}

/// Records the error of a failed library call.
void reportStatus(const char *op, const Status &s, int64_t reductionDim,
                  NMPattern p, const StcMemRef1D *where) {
  if (s.code == ErrorCode::NotNM) {
    recordError(where, std::string(op) + ": operand is not " +
                           patternName(p.n, p.m) + " along dimension " +
                           std::to_string(reductionDim) + ": row " +
                           std::to_string(s.row) + ", group " +
                           std::to_string(s.group) + " has " +
                           std::to_string(s.count) + " non-zeros");
    return;
  }
  recordError(where, std::string(op) + ": " + s.message);
}

//===----------------------------------------------------------------------===//
// Generic implementations
//===----------------------------------------------------------------------===//

template <typename T>
void pruneImpl(StcMemRef2D *in, StcMemRef2D *out, int64_t reductionDim,
               int64_t n, int64_t m, int64_t method, MagnitudeFn<T> mag) {
  // Outputs are zeroed only on failure: `out` may alias `in`.
  const char *op = "stc.prune";
  NMPattern p;
  if (!checkArgs(op, reductionDim, n, m, nullptr, p) ||
      !checkDescriptors(op, nullptr, {in, out})) {
    zeroFill<T>(out);
    return;
  }
  if (method != STC_RT_PRUNE_STRIP && method != STC_RT_PRUNE_TILE) {
    zeroFill<T>(out);
    recordError(nullptr, std::string(op) + ": unknown pruning method " +
                             std::to_string(method) + " (0 strip, 1 tile)");
    return;
  }
  if (method == STC_RT_PRUNE_TILE && p != kPattern24) {
    zeroFill<T>(out);
    recordError(nullptr, std::string(op) +
                             ": method tile requires the 2:4 pattern, got " +
                             patternName(n, m));
    return;
  }
  if (in->sizes[0] != out->sizes[0] || in->sizes[1] != out->sizes[1]) {
    zeroFill<T>(out);
    recordError(nullptr, std::string(op) + ": output has shape " +
                             shapeName(out->sizes[0], out->sizes[1]) +
                             ", expected " +
                             shapeName(in->sizes[0], in->sizes[1]));
    return;
  }
  pruneWithMethod<T>(reductionView<const T>(in, reductionDim),
                     reductionView<T>(out, reductionDim), p,
                     method == STC_RT_PRUNE_TILE ? PruneMethod::Tile
                                                 : PruneMethod::Strip,
                     mag);
}

template <typename T>
void compressImpl(StcMemRef2D *in, StcMemRef2D *values, StcMemRef2D *meta,
                  int64_t reductionDim, int64_t n, int64_t m,
                  StcMemRef1D *where, MagnitudeFn<T> mag) {
  const char *op = "stc.compress";
  NMPattern p;
  if (!checkArgs(op, reductionDim, n, m, where, p) ||
      !checkDescriptors(op, where, {in, values, meta})) {
    zeroFill<T>(values);
    zeroFill<uint16_t>(meta);
    return;
  }
  // On failure the library zero-fills values and meta itself.
  Status s =
      compress<T>(reductionView<const T>(in, reductionDim),
                  plainView<T>(values), plainView<uint16_t>(meta), p, mag);
  if (!s.ok())
    reportStatus(op, s, reductionDim, p, where);
}

template <typename T>
void decompressImpl(StcMemRef2D *values, StcMemRef2D *meta, StcMemRef2D *out,
                    int64_t reductionDim, int64_t n, int64_t m,
                    StcMemRef1D *where) {
  const char *op = "stc.decompress";
  NMPattern p;
  if (!checkArgs(op, reductionDim, n, m, where, p) ||
      !checkDescriptors(op, where, {values, meta, out})) {
    zeroFill<T>(out);
    return;
  }
  Status s =
      decompress<T>(plainView<const T>(values), plainView<const uint16_t>(meta),
                    reductionView<T>(out, reductionDim), p);
  if (!s.ok())
    reportStatus(op, s, reductionDim, p, where);
}

template <typename T>
int8_t checkImpl(StcMemRef2D *in, int64_t reductionDim, int64_t n, int64_t m,
                 MagnitudeFn<T> mag) {
  const char *op = "stc.check";
  NMPattern p;
  if (!checkArgs(op, reductionDim, n, m, nullptr, p) ||
      !checkDescriptors(op, nullptr, {in}))
    return 0;
  return checkPattern<T>(reductionView<const T>(in, reductionDim), p, mag) ? 0
                                                                           : 1;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

extern "C" {

void _mlir_ciface_stc_rt_prune_f32(StcMemRef2D *in, StcMemRef2D *out,
                                   int64_t reduction_dim, int64_t n, int64_t m,
                                   int64_t method) {
  pruneImpl<float>(in, out, reduction_dim, n, m, method, magnitudeF32);
}
void _mlir_ciface_stc_rt_prune_f16(StcMemRef2D *in, StcMemRef2D *out,
                                   int64_t reduction_dim, int64_t n, int64_t m,
                                   int64_t method) {
  pruneImpl<uint16_t>(in, out, reduction_dim, n, m, method, magnitudeF16);
}
void _mlir_ciface_stc_rt_prune_bf16(StcMemRef2D *in, StcMemRef2D *out,
                                    int64_t reduction_dim, int64_t n, int64_t m,
                                    int64_t method) {
  pruneImpl<uint16_t>(in, out, reduction_dim, n, m, method, magnitudeBF16);
}
void _mlir_ciface_stc_rt_prune_i8(StcMemRef2D *in, StcMemRef2D *out,
                                  int64_t reduction_dim, int64_t n, int64_t m,
                                  int64_t method) {
  pruneImpl<int8_t>(in, out, reduction_dim, n, m, method, magnitudeS8);
}

void _mlir_ciface_stc_rt_compress_f32(StcMemRef2D *in, StcMemRef2D *values,
                                      StcMemRef2D *meta, int64_t reduction_dim,
                                      int64_t n, int64_t m,
                                      StcMemRef1D *where) {
  compressImpl<float>(in, values, meta, reduction_dim, n, m, where,
                      magnitudeF32);
}
void _mlir_ciface_stc_rt_compress_f16(StcMemRef2D *in, StcMemRef2D *values,
                                      StcMemRef2D *meta, int64_t reduction_dim,
                                      int64_t n, int64_t m,
                                      StcMemRef1D *where) {
  compressImpl<uint16_t>(in, values, meta, reduction_dim, n, m, where,
                         magnitudeF16);
}
void _mlir_ciface_stc_rt_compress_bf16(StcMemRef2D *in, StcMemRef2D *values,
                                       StcMemRef2D *meta, int64_t reduction_dim,
                                       int64_t n, int64_t m,
                                       StcMemRef1D *where) {
  compressImpl<uint16_t>(in, values, meta, reduction_dim, n, m, where,
                         magnitudeBF16);
}
void _mlir_ciface_stc_rt_compress_i8(StcMemRef2D *in, StcMemRef2D *values,
                                     StcMemRef2D *meta, int64_t reduction_dim,
                                     int64_t n, int64_t m, StcMemRef1D *where) {
  compressImpl<int8_t>(in, values, meta, reduction_dim, n, m, where,
                       magnitudeS8);
}

void _mlir_ciface_stc_rt_decompress_f32(StcMemRef2D *values, StcMemRef2D *meta,
                                        StcMemRef2D *out, int64_t reduction_dim,
                                        int64_t n, int64_t m,
                                        StcMemRef1D *where) {
  decompressImpl<float>(values, meta, out, reduction_dim, n, m, where);
}
void _mlir_ciface_stc_rt_decompress_f16(StcMemRef2D *values, StcMemRef2D *meta,
                                        StcMemRef2D *out, int64_t reduction_dim,
                                        int64_t n, int64_t m,
                                        StcMemRef1D *where) {
  decompressImpl<uint16_t>(values, meta, out, reduction_dim, n, m, where);
}
void _mlir_ciface_stc_rt_decompress_bf16(StcMemRef2D *values, StcMemRef2D *meta,
                                         StcMemRef2D *out,
                                         int64_t reduction_dim, int64_t n,
                                         int64_t m, StcMemRef1D *where) {
  decompressImpl<uint16_t>(values, meta, out, reduction_dim, n, m, where);
}
void _mlir_ciface_stc_rt_decompress_i8(StcMemRef2D *values, StcMemRef2D *meta,
                                       StcMemRef2D *out, int64_t reduction_dim,
                                       int64_t n, int64_t m,
                                       StcMemRef1D *where) {
  decompressImpl<int8_t>(values, meta, out, reduction_dim, n, m, where);
}

int8_t _mlir_ciface_stc_rt_check_f32(StcMemRef2D *in, int64_t reduction_dim,
                                     int64_t n, int64_t m) {
  return checkImpl<float>(in, reduction_dim, n, m, magnitudeF32);
}
int8_t _mlir_ciface_stc_rt_check_f16(StcMemRef2D *in, int64_t reduction_dim,
                                     int64_t n, int64_t m) {
  return checkImpl<uint16_t>(in, reduction_dim, n, m, magnitudeF16);
}
int8_t _mlir_ciface_stc_rt_check_bf16(StcMemRef2D *in, int64_t reduction_dim,
                                      int64_t n, int64_t m) {
  return checkImpl<uint16_t>(in, reduction_dim, n, m, magnitudeBF16);
}
int8_t _mlir_ciface_stc_rt_check_i8(StcMemRef2D *in, int64_t reduction_dim,
                                    int64_t n, int64_t m) {
  return checkImpl<int8_t>(in, reduction_dim, n, m, magnitudeS8);
}

void _mlir_ciface_stc_rt_decode_indices(StcMemRef2D *meta, StcMemRef2D *indices,
                                        int64_t n, int64_t m,
                                        StcMemRef1D *where) {
  const char *op = "stc.decode_indices";
  NMPattern p;
  if (!checkArgs(op, /*reductionDim=*/1, n, m, where, p) ||
      !checkDescriptors(op, where, {meta, indices})) {
    zeroFill<int32_t>(indices);
    return;
  }
  Status s = decodeIndices(plainView<const uint16_t>(meta),
                           plainView<int32_t>(indices), p);
  if (!s.ok())
    reportStatus(op, s, 1, p, where);
}

int8_t _mlir_ciface_stc_rt_check_reduction(int64_t k, int64_t k_padded,
                                           int64_t granule,
                                           StcMemRef1D *where) {
  // A compressed operand of Kp columns stands for any K in (Kp - granule, Kp].
  // In 128 bits: the sizes come from generated code, but nothing bounds
  // them (Kp - granule overflowed for the fuzzer's values).
  using Wide = __int128;
  if (k <= k_padded && Wide(k) > Wide(k_padded) - granule)
    return 1;
  Wide first = std::max<Wide>(Wide(k_padded) - granule + 1, 0);
  std::string expected =
      granule <= 1 ? "the sparse operand's " + std::to_string(k_padded)
                   : "the compressed operand (" + std::to_string(k_padded) +
                         " columns hold " +
                         std::to_string(static_cast<long long>(
                             std::min<Wide>(first, Wide(INT64_MAX)))) +
                         ".." + std::to_string(k_padded) + ")";
  recordError(where, "stc.spmm: the dense operand has reduction size " +
                         std::to_string(k) + ", which does not match " +
                         expected);
  return 0;
}

int8_t _mlir_ciface_stc_rt_check_alloc(int64_t bytes, int8_t overflowed,
                                       StcMemRef1D *where) {
  std::string why =
      describeAllocationLimit(static_cast<uint64_t>(bytes), overflowed != 0);
  if (why.empty())
    return 1;
  recordError(where, "cannot allocate a buffer: " + why);
  return 0;
}

int8_t _mlir_ciface_stc_rt_check_allocated(int64_t address, int64_t bytes,
                                           StcMemRef1D *where) {
  if (address != 0)
    return 1;
  recordError(where, "out of memory: allocating " +
                         formatBytes(static_cast<uint64_t>(bytes)) + " failed");
  return 0;
}

int stc_rt_failed(void) {
  return stc_rt_has_error() || stc_cuda_has_error() ? 1 : 0;
}

int stc_rt_has_error(void) {
  std::lock_guard<std::mutex> lock(errorMutex());
  return hasError ? 1 : 0;
}

const char *stc_rt_error_message(void) {
  std::lock_guard<std::mutex> lock(errorMutex());
  return hasError ? errorText.c_str() : "";
}

void stc_rt_clear_error(void) {
  std::lock_guard<std::mutex> lock(errorMutex());
  hasError = false;
  errorText.clear();
}

void stc_rt_set_error_hook(StcRtErrorHook hook) {
  std::lock_guard<std::mutex> lock(errorMutex());
  errorHook = hook;
}

} // extern "C"
