//===- ElementwiseOps.cpp - element-wise ONNX operators -----*- C++ -*-===//
//
// Unary activations and math (Relu, Sigmoid, Tanh, Erf, Sqrt, ...), the
// broadcasting binary operators (Add, Sub, Mul, Div, Pow), Clip, Cast,
// Identity and Dropout, each one linalg.generic. Half-precision tensors
// compute transcendental functions in f32 and round once.
//
// Mul recognizes the GELU that torch exports for nn.GELU()
// (x * 0.5 * (1 + Erf(x / sqrt(2))), in any association of the products)
// and emits it as one generic in the form stc-fuse-epilogue folds into a
// preceding contraction.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/ConstantFolding.h"
#include "compiler/onnx/ShapeValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// The tensor element type of `v`.
Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

bool isFloat(Type t) { return isa<FloatType>(t); }

/// Input 0 as a float tensor, or a failure naming its type.
FailureOr<Value> floatInput(NodeContext &node, unsigned i = 0) {
  FailureOr<Value> x = node.input(i);
  if (failed(x))
    return failure();
  Type t = elementTypeOf(*x);
  if (!isFloat(t))
    return node.fail("needs a FLOAT, FLOAT16 or BFLOAT16 tensor, got " +
                     dtypeName(static_cast<int32_t>(dtypeOf(t))));
  return x;
}

/// Applies `fn` to `x` in computeTypeOf(x)'s precision and rounds back.
Value inComputeType(OpBuilder &b, Location loc, Value x,
                    function_ref<Value(Value)> fn) {
  Type t = x.getType();
  Type wide = computeTypeOf(t);
  return convertScalar(b, loc, fn(convertScalar(b, loc, x, wide)), t);
}

using UnaryBody = Value (*)(OpBuilder &, Location, Value);

LogicalResult convertUnary(NodeContext &node, UnaryBody fn) {
  FailureOr<Value> x = floatInput(node);
  if (failed(x))
    return failure();
  FailureOr<Value> y =
      buildElementwise(node, {*x}, elementTypeOf(*x),
                       [&](OpBuilder &b, Location loc, ValueRange args) {
                         return fn(b, loc, args[0]);
                       });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

Value reluBody(OpBuilder &b, Location loc, Value x) {
  return arith::MaximumFOp::create(b, loc, x,
                                   scalarConstant(b, loc, x.getType(), 0.0));
}

template <typename MathOp>
Value mathBody(OpBuilder &b, Location loc, Value x) {
  return inComputeType(b, loc, x,
                       [&](Value v) { return MathOp::create(b, loc, v); });
}

Value sigmoidBody(OpBuilder &b, Location loc, Value x) {
  return inComputeType(b, loc, x, [&](Value v) -> Value {
    Type t = v.getType();
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, v));
    Value one = scalarConstant(b, loc, t, 1.0);
    return arith::DivFOp::create(b, loc, one,
                                 arith::AddFOp::create(b, loc, one, e));
  });
}

Value negBody(OpBuilder &b, Location loc, Value x) {
  return arith::NegFOp::create(b, loc, x);
}

Value reciprocalBody(OpBuilder &b, Location loc, Value x) {
  return inComputeType(b, loc, x, [&](Value v) -> Value {
    return arith::DivFOp::create(b, loc, scalarConstant(b, loc, v.getType(), 1),
                                 v);
  });
}

LogicalResult convertRelu(NodeContext &n) { return convertUnary(n, reluBody); }
LogicalResult convertSigmoid(NodeContext &n) {
  return convertUnary(n, sigmoidBody);
}
LogicalResult convertTanh(NodeContext &n) {
  return convertUnary(n, mathBody<math::TanhOp>);
}
LogicalResult convertErf(NodeContext &n) {
  return convertUnary(n, mathBody<math::ErfOp>);
}
LogicalResult convertSqrt(NodeContext &n) {
  return convertUnary(n, mathBody<math::SqrtOp>);
}
LogicalResult convertExp(NodeContext &n) {
  return convertUnary(n, mathBody<math::ExpOp>);
}
LogicalResult convertLog(NodeContext &n) {
  return convertUnary(n, mathBody<math::LogOp>);
}
LogicalResult convertAbs(NodeContext &n) {
  return convertUnary(n, mathBody<math::AbsFOp>);
}
LogicalResult convertNeg(NodeContext &n) { return convertUnary(n, negBody); }
LogicalResult convertReciprocal(NodeContext &n) {
  return convertUnary(n, reciprocalBody);
}

//===----------------------------------------------------------------------===//
// GELU
//===----------------------------------------------------------------------===//

/// The GELU (erf form) of `x`: 0.5 x (1 + erf(x / sqrt(2))), computed in
/// f32. stc-fuse-epilogue matches exactly this body (passes/FuseEpilogue.cpp).
Value geluBody(OpBuilder &b, Location loc, Value x) {
  return inComputeType(b, loc, x, [&](Value v) -> Value {
    Type t = v.getType();
    Value scaled = arith::MulFOp::create(
        b, loc, v, scalarConstant(b, loc, t, 0.7071067811865476));
    Value erf = math::ErfOp::create(b, loc, scaled);
    Value onePlus =
        arith::AddFOp::create(b, loc, erf, scalarConstant(b, loc, t, 1.0));
    Value half =
        arith::MulFOp::create(b, loc, v, scalarConstant(b, loc, t, 0.5));
    return arith::MulFOp::create(b, loc, half, onePlus);
  });
}

bool near(double value, double expected) {
  return std::fabs(value - expected) <= 1e-3 * std::fabs(expected);
}

/// The single element of a one-element constant input.
std::optional<double> scalarInput(NodeContext &ctx, const onnx::NodeProto &n,
                                  unsigned i) {
  if (static_cast<int>(i) >= n.input_size())
    return std::nullopt;
  ValueEntry *entry = ctx.importer.lookup(n.input(i));
  if (!entry || !entry->constant || entry->constant->numElements() != 1 ||
      !isFloatDType(entry->constant->dtype))
    return std::nullopt;
  return entry->constant->getDouble(0);
}

const onnx::NodeProto *producerOf(NodeContext &ctx, const std::string &name) {
  ValueEntry *entry = ctx.importer.lookup(name);
  if (!entry || entry->producer < 0)
    return nullptr;
  return &ctx.importer.node(entry->producer);
}

/// The factors of the product tree below `name` (through Mul nodes, a few
/// levels deep): tensors by name, constants multiplied into `scale`.
void collectFactors(NodeContext &ctx, const std::string &name, int depth,
                    SmallVectorImpl<std::string> &factors, double &scale) {
  ValueEntry *entry = ctx.importer.lookup(name);
  if (entry && entry->constant && entry->constant->numElements() == 1 &&
      isFloatDType(entry->constant->dtype)) {
    scale *= entry->constant->getDouble(0);
    return;
  }
  const onnx::NodeProto *mul = producerOf(ctx, name);
  if (depth > 0 && mul && mul->op_type() == "Mul" && mul->input_size() == 2) {
    collectFactors(ctx, mul->input(0), depth - 1, factors, scale);
    collectFactors(ctx, mul->input(1), depth - 1, factors, scale);
    return;
  }
  factors.push_back(name);
}

/// When `sum` is Add(Erf(x / sqrt(2)), 1) (either order, or x * 1/sqrt(2)),
/// returns x.
std::optional<std::string> erfArgument(NodeContext &ctx,
                                       const std::string &sum) {
  const onnx::NodeProto *add = producerOf(ctx, sum);
  if (!add || add->op_type() != "Add" || add->input_size() != 2)
    return std::nullopt;
  for (int e = 0; e < 2; ++e) {
    std::optional<double> one = scalarInput(ctx, *add, 1 - e);
    const onnx::NodeProto *erf = producerOf(ctx, add->input(e));
    if (!one || !near(*one, 1.0) || !erf || erf->op_type() != "Erf")
      continue;
    const onnx::NodeProto *scaled = producerOf(ctx, erf->input(0));
    if (!scaled || scaled->input_size() != 2)
      continue;
    std::optional<double> c = scalarInput(ctx, *scaled, 1);
    if (!c)
      continue;
    if ((scaled->op_type() == "Div" && near(*c, std::sqrt(2.0))) ||
        (scaled->op_type() == "Mul" && near(*c, std::sqrt(0.5))))
      return scaled->input(0);
  }
  return std::nullopt;
}

/// Whether the Mul `node` completes the GELU of some x; returns x's name.
std::optional<std::string> matchGelu(NodeContext &node) {
  SmallVector<std::string> factors;
  double scale = 1.0;
  for (int i = 0; i < 2; ++i)
    collectFactors(node, node.node.input(i), 2, factors, scale);
  if (factors.size() != 2 || !near(scale, 0.5))
    return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    std::optional<std::string> x = erfArgument(node, factors[i]);
    if (x && *x == factors[1 - i])
      return x;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

enum class BinaryKind { Add, Sub, Mul, Div, Pow };

Value binaryBody(OpBuilder &b, Location loc, BinaryKind kind, Value x,
                 Value y) {
  if (isFloat(x.getType())) {
    switch (kind) {
    case BinaryKind::Add:
      return arith::AddFOp::create(b, loc, x, y);
    case BinaryKind::Sub:
      return arith::SubFOp::create(b, loc, x, y);
    case BinaryKind::Mul:
      return arith::MulFOp::create(b, loc, x, y);
    case BinaryKind::Div:
      return arith::DivFOp::create(b, loc, x, y);
    case BinaryKind::Pow: {
      Type wide = computeTypeOf(x.getType());
      Value r = math::PowFOp::create(b, loc, convertScalar(b, loc, x, wide),
                                     convertScalar(b, loc, y, wide));
      return convertScalar(b, loc, r, x.getType());
    }
    }
  }
  switch (kind) {
  case BinaryKind::Add:
    return arith::AddIOp::create(b, loc, x, y);
  case BinaryKind::Sub:
    return arith::SubIOp::create(b, loc, x, y);
  case BinaryKind::Mul:
    return arith::MulIOp::create(b, loc, x, y);
  default:
    return arith::DivSIOp::create(b, loc, x, y);
  }
}

LogicalResult convertBinary(NodeContext &node, BinaryKind kind) {
  FailureOr<bool> symbolic =
      convertSymbolicBinary(node, static_cast<int>(kind));
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  // Shape arithmetic and other small constant expressions: at import.
  if (foldBinary(node, static_cast<int>(kind)))
    return success();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  Type type = elementTypeOf(*x);
  if (kind == BinaryKind::Pow && !isFloat(type))
    return node.fail("needs a float base");
  // A one-element constant operand becomes a scalar in the body (x ^ 2 a
  // product).
  std::optional<double> scalar = scalarInput(node, node.node, 1);
  const HostTensor *rhsConstant = node.constant(1);
  auto rhsRank = rhsConstant ? static_cast<int64_t>(rhsConstant->shape.size())
                             : int64_t(0);
  if (scalar && rhsRank <= cast<RankedTensorType>(x->getType()).getRank()) {
    double c = *scalar;
    FailureOr<Value> y = buildElementwise(
        node, {*x}, type, [&](OpBuilder &b, Location loc, ValueRange args) {
          if (kind == BinaryKind::Pow && c == 2.0)
            return binaryBody(b, loc, BinaryKind::Mul, args[0], args[0]);
          if (kind == BinaryKind::Pow && c == 1.0)
            return args[0];
          return binaryBody(b, loc, kind, args[0],
                            scalarConstant(b, loc, type, c));
        });
    if (failed(y))
      return failure();
    node.setOutput(0, *y);
    return success();
  }
  // Integer division by zero traps at run time: refuse a zero divisor
  // that is known now.
  if (kind == BinaryKind::Div && !isFloat(type) && rhsConstant &&
      llvm::is_contained(rhsConstant->toInts(), 0))
    return node.fail("divides by a constant zero");
  FailureOr<Value> y = node.input(1);
  if (failed(y))
    return failure();
  Type rhsType = elementTypeOf(*y);
  if (rhsType != type && kind != BinaryKind::Pow)
    return node.fail("operands have different element types (" +
                     dtypeName(static_cast<int32_t>(dtypeOf(type))) + " and " +
                     dtypeName(static_cast<int32_t>(dtypeOf(rhsType))) + ")");
  FailureOr<Value> result = buildElementwise(
      node, {*x, *y}, type, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value rhs = convertScalar(b, loc, args[1], type);
        return binaryBody(b, loc, kind, args[0], rhs);
      });
  if (failed(result))
    return failure();
  node.setOutput(0, *result);
  return success();
}

LogicalResult convertAdd(NodeContext &n) {
  return convertBinary(n, BinaryKind::Add);
}
LogicalResult convertSub(NodeContext &n) {
  return convertBinary(n, BinaryKind::Sub);
}
LogicalResult convertDiv(NodeContext &n) {
  return convertBinary(n, BinaryKind::Div);
}
LogicalResult convertPow(NodeContext &n) {
  return convertBinary(n, BinaryKind::Pow);
}

LogicalResult convertMul(NodeContext &node) {
  if (std::optional<std::string> x = matchGelu(node)) {
    FailureOr<Value> input = node.importer.getValue(*x, node.loc);
    if (failed(input))
      return node.fail("GELU input '" + *x + "' has no value");
    if (isFloat(elementTypeOf(*input))) {
      FailureOr<Value> y =
          buildElementwise(node, {*input}, elementTypeOf(*input),
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             return geluBody(b, loc, args[0]);
                           });
      if (failed(y))
        return failure();
      node.setOutput(0, *y);
      return success();
    }
  }
  return convertBinary(node, BinaryKind::Mul);
}

//===----------------------------------------------------------------------===//
// Clip, Cast, Identity, Dropout
//===----------------------------------------------------------------------===//

LogicalResult convertClip(NodeContext &node) {
  FailureOr<Value> x = floatInput(node);
  if (failed(x))
    return failure();
  std::optional<double> low, high;
  for (unsigned i = 1; i <= 2; ++i) {
    if (!node.hasInput(i))
      continue;
    FailureOr<const HostTensor *> bound =
        node.requireConstant(i, i == 1 ? "min" : "max");
    if (failed(bound))
      return failure();
    if ((*bound)->numElements() != 1)
      return node.fail("its bounds must be scalars");
    (i == 1 ? low : high) = (*bound)->getDouble(0);
  }
  Type type = elementTypeOf(*x);
  FailureOr<Value> y = buildElementwise(
      node, {*x}, type, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value v = args[0];
        if (low)
          v = arith::MaximumFOp::create(b, loc, v,
                                        scalarConstant(b, loc, type, *low));
        if (high)
          v = arith::MinimumFOp::create(b, loc, v,
                                        scalarConstant(b, loc, type, *high));
        return v;
      });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

LogicalResult convertCast(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  FailureOr<int64_t> to = node.getInt("to", 0);
  if (failed(to))
    return failure();
  if (const HostTensor *c = node.constant(0)) {
    if (dtypeWidth(*to) == 0)
      return node.fail("cast to " + dtypeName(*to) + " is not supported");
    auto target = static_cast<DType>(*to);
    // Integers keep all 64 bits; floats convert through double.
    node.setConstantOutput(
        0, target == DType::I64
               ? HostTensor::fromInts(c->shape, c->toInts(), "")
               : HostTensor::fromDoubles(target, c->shape, c->toDoubles(), ""));
    return success();
  }
  Type target = mlirElementType(node.getContext(), *to);
  if (!target)
    return node.fail("cast to " + dtypeName(*to) + " is not supported");
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  if (elementTypeOf(*x) == target) {
    node.setOutput(0, *x);
    return success();
  }
  FailureOr<Value> y = buildElementwise(
      node, {*x}, target, [&](OpBuilder &b, Location loc, ValueRange args) {
        return convertScalar(b, loc, args[0], target);
      });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

/// Identity, and Dropout in inference (its output is its input).
LogicalResult convertIdentity(NodeContext &node) {
  FailureOr<bool> symbolic = convertSymbolicShapeOp(node);
  if (failed(symbolic) || *symbolic)
    return failure(failed(symbolic));
  if (node.node.op_type() == "Dropout" && node.hasInput(2)) {
    const HostTensor *training = node.constant(2);
    if (!training || training->numElements() != 1 || training->getInt(0))
      return node.fail("training_mode must be a constant false");
  }
  if (const HostTensor *c = node.constant(0)) {
    node.setConstantOutput(0, *c);
    return success();
  }
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  node.setOutput(0, *x);
  return success();
}

const OpConverter kConverters[] = {
    {"Relu", convertRelu, "", 1},
    {"Sigmoid", convertSigmoid, "", 1},
    {"Tanh", convertTanh, "", 1},
    {"Erf", convertErf, "", 1},
    {"Sqrt", convertSqrt, "", 1},
    {"Exp", convertExp, "", 1},
    {"Log", convertLog, "", 1},
    {"Abs", convertAbs, "", 1},
    {"Neg", convertNeg, "", 1},
    {"Reciprocal", convertReciprocal, "", 1},
    {"Add", convertAdd, "", 1},
    {"Sub", convertSub, "", 1},
    {"Mul", convertMul, "", 1},
    {"Div", convertDiv, "", 1},
    {"Pow", convertPow, "", 1},
    {"Clip", convertClip, "", 1},
    {"Cast", convertCast, "to", 1},
    {"Identity", convertIdentity, "", 1},
    {"Dropout", convertIdentity, "seed", 1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getElementwiseConverters() {
  return kConverters;
}
