//===- ConstantFolding.cpp - small expressions at import time -*- C++ -*-===//
//
// See ConstantFolding.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/ConstantFolding.h"

#include "runtime/format/StcLimits.h"

#include <cmath>

using namespace mlir;
using namespace mlir::stc::onnx_import;

/// The broadcast shape of `a` and `b`, or nullopt when they do not
/// broadcast.
static std::optional<SmallVector<int64_t>> broadcastShape(ArrayRef<int64_t> a,
                                                          ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    int64_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    int64_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    shape[d] = x == 1 ? y : x;
  }
  return shape;
}

/// The flat index into a tensor of `shape` (right-aligned against the
/// result, broadcast where its size is 1) of result element `index`.
static int64_t sourceIndex(ArrayRef<int64_t> shape,
                           ArrayRef<int64_t> resultShape, int64_t index) {
  int64_t flat = 0, stride = 1;
  for (int64_t d = resultShape.size() - 1; d >= 0; --d) {
    int64_t coordinate = index % resultShape[d];
    index /= resultShape[d];
    int64_t s = d - static_cast<int64_t>(resultShape.size() - shape.size());
    if (s < 0)
      continue;
    if (shape[s] != 1)
      flat += coordinate * stride;
    stride *= shape[s];
  }
  return flat;
}

bool mlir::stc::onnx_import::foldBinary(NodeContext &node, int kind) {
  const HostTensor *a = node.constant(0);
  const HostTensor *b = node.constant(1);
  if (!a || !b || a->dtype != b->dtype)
    return false;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShape(a->shape, b->shape);
  if (!shape)
    return false;
  std::optional<int64_t> count = ::stc::format::checkedElementCount(
      std::vector<int64_t>(shape->begin(), shape->end()));
  if (!count || *count > kMaxFoldedElements)
    return false;
  bool isFloat = isFloatDType(a->dtype);
  if (!isFloat && a->dtype != DType::I64 && a->dtype != DType::I32)
    return false;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < *count; ++i) {
    int64_t ia = sourceIndex(a->shape, *shape, i);
    int64_t ib = sourceIndex(b->shape, *shape, i);
    if (isFloat) {
      double x = a->getDouble(ia), y = b->getDouble(ib);
      double r = kind == 0   ? x + y
                 : kind == 1 ? x - y
                 : kind == 2 ? x * y
                 : kind == 3 ? x / y
                             : std::pow(x, y);
      floats.push_back(r);
      continue;
    }
    int64_t x = a->getInt(ia), y = b->getInt(ib);
    if ((kind == 3 && (y == 0 || (x == INT64_MIN && y == -1))) || kind == 4)
      return false; // left to the program (and its semantics)
    // Two's complement at the element width, as the program's arith ops
    // compute (C++ signed overflow would be undefined); ONNX integer Div
    // truncates toward zero, as C++ does.
    uint64_t ux = x, uy = y;
    uint64_t r = kind == 0   ? ux + uy
                 : kind == 1 ? ux - uy
                 : kind == 2 ? ux * uy
                             : uint64_t(x / y);
    ints.push_back(a->dtype == DType::I32 ? int64_t(int32_t(uint32_t(r)))
                                          : int64_t(r));
  }
  if (isFloat)
    node.setConstantOutput(
        0, HostTensor::fromDoubles(a->dtype, *shape, floats, ""));
  else if (a->dtype == DType::I64)
    node.setConstantOutput(0, HostTensor::fromInts(*shape, ints, ""));
  else
    node.setConstantOutput(
        0,
        HostTensor::fromDoubles(a->dtype, *shape,
                                llvm::to_vector(llvm::map_range(
                                    ints, [](int64_t v) { return double(v); })),
                                ""));
  return true;
}
