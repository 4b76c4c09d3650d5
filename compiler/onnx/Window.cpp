//===- Window.cpp - convolution and pooling windows ---------*- C++ -*-===//
//
// See Window.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Window.h"

#include "compiler/onnx/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

bool Window::isPadded() const {
  return llvm::any_of(padBegin, [](int64_t p) { return p != 0; }) ||
         llvm::any_of(padEnd, [](int64_t p) { return p != 0; });
}

/// Reads the ints attribute `name`, one value per spatial dimension, into
/// `out` (left alone when absent); values must be positive.
static LogicalResult readSpatial(NodeContext &node, StringRef name,
                                 int64_t spatial,
                                 SmallVectorImpl<int64_t> &out) {
  FailureOr<std::optional<SmallVector<int64_t>>> v = node.getInts(name);
  if (failed(v))
    return failure();
  if (!*v)
    return success();
  if (static_cast<int64_t>((*v)->size()) != spatial)
    return node.fail("attribute '" + name + "' must have " + Twine(spatial) +
                     " value" + (spatial == 1 ? "" : "s") +
                     " (one per spatial dimension of the input)");
  for (int64_t x : **v)
    if (x < 1)
      return node.fail("attribute '" + name + "' must be positive");
  out.assign((*v)->begin(), (*v)->end());
  return success();
}

/// (kernel - 1) * dilation + 1, or none when it overflows int64.
static std::optional<int64_t> windowExtent(int64_t kernel, int64_t dilation) {
  std::optional<int64_t> span = llvm::checkedMul(kernel - 1, dilation);
  return span ? llvm::checkedAdd(*span, int64_t(1)) : std::nullopt;
}

FailureOr<Window> mlir::stc::onnx_import::readWindow(NodeContext &node,
                                                     Value input,
                                                     ArrayRef<int64_t> kernel) {
  auto type = cast<RankedTensorType>(input.getType());
  // 1-D (N x C x L) or 2-D (N x C x H x W); a 1-D window is read with one
  // value per attribute and returned as the 2-D window over N x C x 1 x L.
  // (Conv and the pooling ops check the rank first, with their own error.)
  const int64_t spatial = type.getRank() - 2;
  assert((spatial == 1 || spatial == 2) && "1-D or 2-D windows only");
  Window window;
  window.strides.assign(spatial, 1);
  window.dilations.assign(spatial, 1);
  window.padBegin.assign(spatial, 0);
  window.padEnd.assign(spatial, 0);
  SmallVector<int64_t> kernelAttr;
  if (failed(readSpatial(node, "kernel_shape", spatial, kernelAttr)) ||
      failed(readSpatial(node, "strides", spatial, window.strides)) ||
      failed(readSpatial(node, "dilations", spatial, window.dilations)))
    return failure();
  if (!kernelAttr.empty() && !kernel.empty() &&
      ArrayRef<int64_t>(kernelAttr) != kernel)
    return node.fail("kernel_shape does not match the filter");
  window.kernel.assign(kernel.begin(), kernel.end());
  if (window.kernel.empty())
    window.kernel = kernelAttr;
  if (static_cast<int64_t>(window.kernel.size()) != spatial)
    return node.fail("needs kernel_shape (one value per spatial dimension)");
  FailureOr<std::optional<SmallVector<int64_t>>> pads = node.getInts("pads");
  FailureOr<std::string> autoPad = node.getString("auto_pad", "NOTSET");
  if (failed(pads) || failed(autoPad))
    return failure();
  if (*autoPad != "NOTSET" && *pads)
    return node.fail("has both auto_pad and pads");
  if (*pads) {
    if (static_cast<int64_t>((*pads)->size()) != 2 * spatial)
      return node.fail("attribute 'pads' must have " + Twine(2 * spatial) +
                       " values");
    for (int64_t p : **pads)
      if (p < 0)
        return node.fail("negative pads are not supported");
    window.padBegin.assign((*pads)->begin(), (*pads)->begin() + spatial);
    window.padEnd.assign((*pads)->begin() + spatial, (*pads)->end());
  }
  if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    // The output has ceil(in / stride) positions; the padding that needs,
    // split evenly, the odd one at the end (UPPER) or the beginning.
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t in = type.getDimSize(2 + i);
      if (ShapedType::isDynamic(in))
        return node.fail("auto_pad=" + *autoPad +
                         " needs static spatial sizes");
      int64_t s = window.strides[i];
      int64_t out = in / s + (in % s != 0);
      // (out - 1) * s + extent - in, without overflowing for huge
      // attributes: the extent is refused past 2^62 below.
      std::optional<int64_t> extent =
          windowExtent(window.kernel[i], window.dilations[i]);
      std::optional<int64_t> reach =
          out > 0 ? llvm::checkedMul(out - 1, s) : std::optional<int64_t>(0);
      reach =
          reach && extent ? llvm::checkedAdd(*reach, *extent) : std::nullopt;
      if (!reach)
        return node.fail("auto_pad=" + *autoPad +
                         ": the window's sizes overflow 64 bits");
      int64_t total = std::max<int64_t>(0, *reach - in);
      int64_t half = total / 2;
      window.padBegin[i] = *autoPad == "SAME_UPPER" ? half : total - half;
      window.padEnd[i] = total - window.padBegin[i];
    }
  } else if (*autoPad != "NOTSET" && *autoPad != "VALID") {
    return node.fail("auto_pad '" + *autoPad + "' is not supported");
  }
  if (spatial == 1) {
    // The same window over a height of 1.
    for (SmallVector<int64_t> *v :
         {&window.kernel, &window.strides, &window.dilations})
      v->insert(v->begin(), 1);
    window.padBegin.insert(window.padBegin.begin(), 0);
    window.padEnd.insert(window.padEnd.begin(), 0);
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
  std::optional<int64_t> extentOr = windowExtent(w.kernel[i], w.dilations[i]);
  std::optional<int64_t> paddedOr = llvm::checkedAdd(size, w.padBegin[i]);
  if (paddedOr)
    paddedOr = llvm::checkedAdd(*paddedOr, w.padEnd[i]);
  if (!extentOr || !paddedOr)
    return node.fail("the window's sizes (kernel, dilations, pads) overflow "
                     "64 bits");
  int64_t extent = *extentOr, padded = *paddedOr;
  if (padded < extent)
    return node.fail("the window (" + Twine(extent) +
                     ") is larger than the padded input (" + Twine(padded) +
                     ")");
  int64_t span = padded - extent, s = w.strides[i];
  return span / s + (ceilMode && span % s != 0) + 1;
}

Value mlir::stc::onnx_import::liftTo2d(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v);
  return reshapeTo(b, loc, v,
                   {sizes[0], sizes[1], b.getIndexAttr(1), sizes[2]});
}

Value mlir::stc::onnx_import::dropHeight(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v);
  return reshapeTo(b, loc, v, {sizes[0], sizes[1], sizes[3]});
}
