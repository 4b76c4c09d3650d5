//===- Window.h - convolution and pooling windows -----------*- C++ -*-===//
//
// The attributes Conv, MaxPool and AveragePool share (kernel_shape,
// strides, dilations, pads, auto_pad), read once and checked the same way,
// and the padding and output sizes they imply.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_WINDOW_H
#define STC_COMPILER_ONNX_WINDOW_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// The spatial geometry of a 2-D window over an N x C x H x W tensor.
struct Window {
  SmallVector<int64_t> kernel, strides{1, 1}, dilations{1, 1};
  /// Begin and end padding of H and W.
  SmallVector<int64_t> padBegin{0, 0}, padEnd{0, 0};

  bool isPadded() const;
};

/// Reads the window attributes of `node` over `input` (N x C x H x W, or
/// N x C x L: one value per attribute, and the result is the 2-D window
/// over N x C x 1 x L). `kernel` is the filter's spatial size (Conv) or
/// empty (pooling: kernel_shape is required). auto_pad SAME_* needs static
/// spatial sizes.
FailureOr<Window> readWindow(NodeContext &node, Value input,
                             ArrayRef<int64_t> kernel);

/// `v` of rank 3 (N x C x L, or a filter F x C x K) with a height of 1
/// inserted (N x C x 1 x L): what a 1-D window (readWindow) runs over.
Value liftTo2d(OpBuilder &b, Location loc, Value v);

/// The inverse of liftTo2d: N x C x 1 x L back to N x C x L.
Value dropHeight(OpBuilder &b, Location loc, Value v);

/// `input` padded on H and W (its last two dimensions) by `window` with the
/// scalar `value`.
Value padSpatial(OpBuilder &b, Location loc, Value input, const Window &window,
                 Value value);

/// The output size along spatial dimension `i` of the window over `input`
/// of (unpadded) size `size`: floor (or ceil) of (size + pads - extent) /
/// stride + 1. Fails when the window is larger than the padded input or
/// the size is dynamic.
FailureOr<int64_t> windowOutputSize(NodeContext &node, int64_t size,
                                    const Window &window, int i, bool ceilMode);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_WINDOW_H
