//===- Window.cpp - 2-D convolution and pooling windows -----*- C++ -*-===//
//
// See Window.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Window.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

bool Window::isPadded() const {
  return llvm::any_of(padBegin, [](int64_t p) { return p != 0; }) ||
         llvm::any_of(padEnd, [](int64_t p) { return p != 0; });
}

/// Reads the 2-value ints attribute `name` into `out` (left alone when
/// absent); values must be positive.
static LogicalResult readPair(NodeContext &node, StringRef name,
                              SmallVectorImpl<int64_t> &out) {
  FailureOr<std::optional<SmallVector<int64_t>>> v = node.getInts(name);
  if (failed(v))
    return failure();
  if (!*v)
    return success();
  if ((*v)->size() != 2)
    return node.fail("attribute '" + name +
                     "' must have 2 values (2-D windows only)");
  for (int64_t x : **v)
    if (x < 1)
      return node.fail("attribute '" + name + "' must be positive");
  out.assign((*v)->begin(), (*v)->end());
  return success();
}

FailureOr<Window> mlir::stc::onnx_import::readWindow(NodeContext &node,
                                                     Value input,
                                                     ArrayRef<int64_t> kernel) {
  Window window;
  SmallVector<int64_t> kernelAttr;
  if (failed(readPair(node, "kernel_shape", kernelAttr)) ||
      failed(readPair(node, "strides", window.strides)) ||
      failed(readPair(node, "dilations", window.dilations)))
    return failure();
  if (!kernelAttr.empty() && !kernel.empty() &&
      ArrayRef<int64_t>(kernelAttr) != kernel)
    return node.fail("kernel_shape does not match the filter");
  window.kernel.assign(kernel.begin(), kernel.end());
  if (window.kernel.empty())
    window.kernel = kernelAttr;
  if (window.kernel.size() != 2)
    return node.fail("needs kernel_shape (2-D windows only)");
  FailureOr<std::optional<SmallVector<int64_t>>> pads = node.getInts("pads");
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
  if (failed(pads) || failed(autoPad))
    return failure();
  if (*autoPad != "NOTSET" && *pads)
    return node.fail("has both auto_pad and pads");
  if (*pads) {
    if ((*pads)->size() != 4)
      return node.fail("attribute 'pads' must have 4 values");
    for (int64_t p : **pads)
      if (p < 0)
        return node.fail("negative pads are not supported");
    window.padBegin = {(**pads)[0], (**pads)[1]};
    window.padEnd = {(**pads)[2], (**pads)[3]};
  }
  if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    // The output has ceil(in / stride) positions; the padding that needs,
    // split evenly, the odd one at the end (UPPER) or the beginning.
    auto type = cast<RankedTensorType>(input.getType());
    for (int64_t i = 0; i < 2; ++i) {
      int64_t in = type.getDimSize(2 + i);
      if (ShapedType::isDynamic(in))
        return node.fail("auto_pad=" + *autoPad +
                         " needs static spatial sizes");
      int64_t s = window.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t extent = (window.kernel[i] - 1) * window.dilations[i] + 1;
      int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
      int64_t half = total / 2;
      window.padBegin[i] = *autoPad == "SAME_UPPER" ? half : total - half;
      window.padEnd[i] = total - window.padBegin[i];
    }
  } else if (*autoPad != "NOTSET" && *autoPad != "VALID") {
    return node.fail("auto_pad '" + *autoPad + "' is not supported");
  }
  return window;
}

Value mlir::stc::onnx_import::padSpatial(OpBuilder &b, Location loc,
                                         Value input, const Window &w,
                                         Value value) {
  if (!w.isPadded())
    return input;
  // H and W are the last two dimensions (N x C x H x W, or grouped
  // N x G x C/G x H x W).
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(rank, b.getIndexAttr(0));
  for (int i = 0; i < 2; ++i) {
    int64_t d = rank - 2 + i;
    if (!ShapedType::isDynamic(shape[d]))
      shape[d] += w.padBegin[i] + w.padEnd[i];
    low[d] = b.getIndexAttr(w.padBegin[i]);
    high[d] = b.getIndexAttr(w.padEnd[i]);
  }
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), input, low,
      high, value);
}

FailureOr<int64_t> mlir::stc::onnx_import::windowOutputSize(
    NodeContext &node, int64_t size, const Window &w, int i, bool ceilMode) {
  if (ShapedType::isDynamic(size))
    return node.fail("dynamic spatial sizes (H, W) are not supported");
  int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
  int64_t padded = size + w.padBegin[i] + w.padEnd[i];
  if (padded < extent)
    return node.fail("the window (" + Twine(extent) +
                     ") is larger than the padded input (" + Twine(padded) +
                     ")");
  int64_t span = padded - extent, s = w.strides[i];
  return (ceilMode ? (span + s - 1) / s : span / s) + 1;
}
