//===- ConvWindow.h - a convolution's window, read off its ops -*- C++ -*-===//
//
// What both convolution paths (the 2:4 stc.conv of
// stc-sparsify-convolutions and the dense implicit GEMM of
// passes/GPU/DenseGemm.cpp) read off a linalg convolution the same way:
// its strides and dilations, and a zero tensor.pad in front of its input
// that the kernels read through (their taps outside the image are zeros
// anyway).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_CONVWINDOW_H
#define STC_PASSES_CONVWINDOW_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>

namespace mlir::stc {

/// The two entries of a convolution's `strides` or `dilations` attribute
/// (H, W), 1 and 1 when it is absent.
std::array<int64_t, 2> convWindowPair(Operation *op, StringRef name);

/// A zero tensor.pad in front of a convolution input, with static padding
/// on H and W only.
struct SpatialZeroPad {
  tensor::PadOp pad;
  /// The pad's source: what the convolution reads instead.
  Value source;
  /// The padding before and after, on H and on W.
  std::array<int64_t, 2> low{0, 0}, high{0, 0};
};

/// The spatial zero pad producing `input`, whose H and W are its
/// dimensions `hDim` and `wDim`; none (a null pad) when `input` is no such
/// pad: another padding value, a dynamic or negative padding, or padding on
/// another dimension.
SpatialZeroPad spatialZeroPadOf(Value input, int64_t hDim, int64_t wDim);

} // namespace mlir::stc

#endif // STC_PASSES_CONVWINDOW_H
