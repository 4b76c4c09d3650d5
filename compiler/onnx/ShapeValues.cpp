//===- ShapeValues.cpp - shapes that depend on dynamic sizes -*- C++ -*-===//
//
// See ShapeValues.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/ShapeValues.h"

#include "compiler/onnx/ConstantFolding.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

std::optional<SymbolicInts>
mlir::stc::onnx_import::readSymbolic(NodeContext &node, unsigned i) {
  if (!node.hasInput(i))
    return std::nullopt;
  ValueEntry *entry = node.importer.lookup(node.node.input(i));
  if (!entry)
    return std::nullopt;
  if (entry->symbolic)
    return *entry->symbolic;
  const HostTensor *c = entry->constant.get();
  if (!c || (c->dtype != DType::I64 && c->dtype != DType::I32) ||
      c->shape.size() > 1 || c->numElements() > kMaxFoldedElements)
    return std::nullopt;
  SymbolicInts ints;
  ints.scalar = c->shape.empty();
  for (int64_t v : c->toInts())
    ints.elements.push_back(node.b.getIndexAttr(v));
  return ints;
}

bool mlir::stc::onnx_import::hasSymbolicInput(NodeContext &node) {
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    if (!node.hasInput(i))
      continue;
    ValueEntry *entry = node.importer.lookup(node.node.input(i));
    if (entry && entry->symbolic)
      return true;
  }
  return false;
}

void mlir::stc::onnx_import::setSymbolicOutput(NodeContext &node, unsigned i,
                                               SymbolicInts ints) {
  SmallVector<int64_t> fixed;
  for (OpFoldResult e : ints.elements)
    if (std::optional<int64_t> c = getConstantIntValue(e))
      fixed.push_back(*c);
  if (fixed.size() == ints.elements.size()) {
    SmallVector<int64_t> shape;
    if (!ints.scalar)
      shape.push_back(fixed.size());
    node.setConstantOutput(i, HostTensor::fromInts(shape, fixed, ""));
    return;
  }
  if (i >= static_cast<unsigned>(node.node.output_size()) ||
      node.node.output(i).empty())
    return;
  ValueEntry entry;
  entry.symbolic = std::make_shared<SymbolicInts>(std::move(ints));
  entry.producer = node.index;
  node.importer.define(node.node.output(i), std::move(entry));
}

Value GraphImporter::materializeSymbolic(const SymbolicInts &ints,
                                         Location loc) {
  SmallVector<Value> elements;
  for (OpFoldResult e : ints.elements) {
    if (std::optional<int64_t> c = getConstantIntValue(e))
      elements.push_back(arith::ConstantIntOp::create(builder, loc, *c, 64));
    else
      elements.push_back(arith::IndexCastOp::create(
          builder, loc, builder.getI64Type(), cast<Value>(e)));
  }
  SmallVector<int64_t> shape;
  if (!ints.scalar)
    shape.push_back(elements.size());
  return tensor::FromElementsOp::create(
      builder, loc, RankedTensorType::get(shape, builder.getI64Type()),
      elements);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

/// `x <kind> y` on sizes (0 Add, 1 Sub, 2 Mul, 3 Div truncating toward
/// zero), folded when both are static.
static FailureOr<OpFoldResult> applySizes(NodeContext &node, int kind,
                                          OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> a = getConstantIntValue(x);
  std::optional<int64_t> b = getConstantIntValue(y);
  if (kind == 3 && b && *b == 0)
    return node.fail("divides a shape by zero");
  if (a && b) {
    int64_t r = 0;
    bool overflow = kind == 0   ? llvm::AddOverflow(*a, *b, r)
                    : kind == 1 ? llvm::SubOverflow(*a, *b, r)
                    : kind == 2 ? llvm::MulOverflow(*a, *b, r)
                                : (*a == INT64_MIN && *b == -1);
    if (overflow)
      return node.fail("computes a shape value that overflows 64 bits");
    if (kind == 3)
      r = *a / *b;
    return OpFoldResult(node.b.getIndexAttr(r));
  }
  OpBuilder &builder = node.b;
  Location loc = node.loc;
  Value l = getValueOrCreateConstantIndexOp(builder, loc, x);
  Value r = getValueOrCreateConstantIndexOp(builder, loc, y);
  Value v;
  switch (kind) {
  case 0:
    v = arith::AddIOp::create(builder, loc, l, r);
    break;
  case 1:
    v = arith::SubIOp::create(builder, loc, l, r);
    break;
  case 2:
    v = arith::MulIOp::create(builder, loc, l, r);
    break;
  default:
    v = arith::DivSIOp::create(builder, loc, l, r);
    break;
  }
  return OpFoldResult(v);
}

FailureOr<bool> mlir::stc::onnx_import::convertSymbolicBinary(NodeContext &node,
                                                              int kind) {
  if (!hasSymbolicInput(node))
    return false;
  std::optional<SymbolicInts> a = readSymbolic(node, 0);
  std::optional<SymbolicInts> b = readSymbolic(node, 1);
  if (!a || !b || kind > 3)
    return node.fail("computes with a shape that depends on a dynamic size "
                     "in a way the importer does not follow (only Add, "
                     "Sub, Mul and Div of shape entries and integer "
                     "constants)");
  size_t n = std::max(a->elements.size(), b->elements.size());
  if ((a->elements.size() != n && a->elements.size() != 1) ||
      (b->elements.size() != n && b->elements.size() != 1))
    return node.fail("shape operands of " + Twine(a->elements.size()) +
                     " and " + Twine(b->elements.size()) +
                     " elements do not broadcast");
  SymbolicInts result;
  result.scalar = a->scalar && b->scalar;
  for (size_t i = 0; i < n; ++i) {
    FailureOr<OpFoldResult> r =
        applySizes(node, kind, a->elements[a->elements.size() == 1 ? 0 : i],
                   b->elements[b->elements.size() == 1 ? 0 : i]);
    if (failed(r))
      return failure();
    result.elements.push_back(*r);
  }
  setSymbolicOutput(node, 0, std::move(result));
  return true;
}

//===----------------------------------------------------------------------===//
// Shape operators on shapes
//===----------------------------------------------------------------------===//

/// The constant integer input `i`.
static FailureOr<std::vector<int64_t>>
constantInts(NodeContext &node, unsigned i, StringRef role) {
  FailureOr<const HostTensor *> t = node.requireConstant(i, role);
  if (failed(t))
    return failure();
  return (*t)->toInts();
}

FailureOr<bool>
mlir::stc::onnx_import::convertSymbolicShapeOp(NodeContext &node) {
  if (!hasSymbolicInput(node))
    return false;
  StringRef op = node.node.op_type();
  auto unsupported = [&]() -> FailureOr<bool> {
    return node.fail("uses a shape that depends on a dynamic size in a way "
                     "the importer does not follow");
  };
  std::optional<SymbolicInts> data = readSymbolic(node, 0);
  if (op == "Concat") {
    SymbolicInts result;
    for (unsigned i = 0; i < node.numInputs(); ++i) {
      std::optional<SymbolicInts> part = readSymbolic(node, i);
      if (!part || part->scalar)
        return unsupported();
      llvm::append_range(result.elements, part->elements);
    }
    setSymbolicOutput(node, 0, std::move(result));
    return true;
  }
  if (!data)
    return unsupported();
  if (op == "Identity" || op == "Cast") {
    FailureOr<int64_t> to = node.getInt("to", 7);
    if (failed(to))
      return failure();
    if (*to != 7 && *to != 6)
      return unsupported();
    setSymbolicOutput(node, 0, *data);
    return true;
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    // Between a scalar and a one-element vector only.
    bool unsqueeze = op == "Unsqueeze";
    if (data->scalar != unsqueeze || data->elements.size() != 1)
      return unsupported();
    if (node.hasInput(1)) {
      FailureOr<std::vector<int64_t>> axes = constantInts(node, 1, "axes");
      if (failed(axes))
        return failure();
      if (axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))
        return unsupported();
    }
    data->scalar = !unsqueeze;
    setSymbolicOutput(node, 0, *data);
    return true;
  }
  if (op == "Gather") {
    FailureOr<const HostTensor *> indices = node.requireConstant(1, "indices");
    if (failed(indices))
      return failure();
    if (data->scalar || (*indices)->shape.size() > 1)
      return unsupported();
    int64_t n = data->elements.size();
    SymbolicInts result;
    result.scalar = (*indices)->shape.empty();
    for (int64_t i : (*indices)->toInts()) {
      if (i < -n || i >= n)
        return node.fail("index " + Twine(i) + " is out of range for " +
                         Twine(n) + " elements");
      result.elements.push_back(data->elements[i < 0 ? i + n : i]);
    }
    setSymbolicOutput(node, 0, std::move(result));
    return true;
  }
  if (op == "Slice") {
    FailureOr<std::vector<int64_t>> starts = constantInts(node, 1, "starts");
    FailureOr<std::vector<int64_t>> ends = constantInts(node, 2, "ends");
    if (failed(starts) || failed(ends))
      return failure();
    std::vector<int64_t> steps = {1};
    if (node.hasInput(4)) {
      FailureOr<std::vector<int64_t>> s = constantInts(node, 4, "steps");
      if (failed(s))
        return failure();
      steps = *s;
    }
    if (data->scalar || starts->size() != 1 || ends->size() != 1 ||
        steps.size() != 1 || steps[0] <= 0)
      return unsupported();
    int64_t n = data->elements.size();
    auto clampPos = [&](int64_t p) {
      return std::clamp<int64_t>(p < 0 ? p + n : p, 0, n);
    };
    SymbolicInts result;
    for (int64_t i = clampPos((*starts)[0]); i < clampPos((*ends)[0]);
         i += steps[0])
      result.elements.push_back(data->elements[i]);
    setSymbolicOutput(node, 0, std::move(result));
    return true;
  }
  return false;
}
