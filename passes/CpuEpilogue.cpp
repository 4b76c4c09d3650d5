//===- CpuEpilogue.cpp - fused epilogue of the CPU lowerings -*- C++ -*-===//
//
// act(alpha * scale * prod + beta * acc + bias) as one element-wise
// linalg.generic, shared by stc-lower-spmm-to-cpu and stc-lower-conv-to-cpu,
// and the conversion to the result type that the GPU kernels share.
//
//===----------------------------------------------------------------------===//
#include "passes/CpuEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::stc;

Value mlir::stc::convertEpilogueResult(ImplicitLocOpBuilder &b, Value x,
                                       Type outElem) {
  if (outElem.isF32())
    return x;
  if (!outElem.isInteger(8))
    return arith::TruncFOp::create(b, outElem, x);
  // Requantization: saturate to [-128, 127], round to nearest even, as
  // cvt.rni.sat.s8.f32 does; NaN gives 0. Clamping first is exact (the
  // bounds are integers) and keeps |x| < 2^22, where adding and removing
  // 1.5 * 2^23 rounds to an integer in the current (nearest-even) mode.
  // Plain arith ops, so that the CPU and the GPU kernels compute the same
  // thing and no libm/libdevice call is needed.
  auto cF = [&](double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  };
  Value isNan = arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, x, x);
  // One statement an op: the order of function arguments is the
  // compiler's, and the IR must not depend on it (GCC's order kept).
  Value hi = cF(127.0);
  Value lo = cF(-128.0);
  Value clamped =
      arith::MinimumFOp::create(b, arith::MaximumFOp::create(b, x, lo), hi);
  Value magic = cF(12582912.0);
  Value rounded =
      arith::SubFOp::create(b, arith::AddFOp::create(b, clamped, magic), magic);
  rounded = arith::SelectOp::create(b, isNan, cF(0.0), rounded);
  return arith::FPToSIOp::create(b, outElem, rounded);
}

Value mlir::stc::epilogueToF32(ImplicitLocOpBuilder &b, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType() == f32)
    return v;
  if (isa<IntegerType>(v.getType()))
    return arith::SIToFPOp::create(b, f32, v);
  return arith::ExtFOp::create(b, f32, v);
}

Value mlir::stc::buildCpuEpilogue(ImplicitLocOpBuilder &b, Value prod,
                                  AffineMap prodMap,
                                  RankedTensorType resultType,
                                  ValueRange dynamicSizes,
                                  const EpilogueSpec &spec) {
  Type outElem = resultType.getElementType();
  int64_t rank = resultType.getRank();
  Value init =
      tensor::EmptyOp::create(b, resultType.getShape(), outElem, dynamicSizes);

  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs = {prod};
  SmallVector<AffineMap> maps = {prodMap};
  Value bias = spec.bias, acc = spec.acc, scale = spec.scale;
  if (scale) {
    inputs.push_back(scale);
    maps.push_back(spec.biasMap);
  }
  if (acc) {
    inputs.push_back(acc);
    maps.push_back(id);
  }
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(spec.biasMap);
  }
  maps.push_back(id);
  double alpha = spec.alpha, beta = spec.beta;
  Activation act = spec.activation;
  // An integer accumulator with an integer result of its width is exact:
  // the verifier allows no epilogue there.
  bool exact = outElem == cast<ShapedType>(prod.getType()).getElementType() &&
               isa<IntegerType>(outElem);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, resultType, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        ImplicitLocOpBuilder eb(loc, nb);
        if (exact) {
          linalg::YieldOp::create(eb, args[0]);
          return;
        }
        auto cF = [&](double v) {
          return arith::ConstantOp::create(eb, eb.getF32FloatAttr(v));
        };
        // The order of the GPU epilogue: (alpha * scale) * prod, then
        // beta * acc, then bias.
        Value x = epilogueToF32(eb, args[0]);
        unsigned next = 1;
        Value factor;
        if (alpha != 1.0)
          factor = cF(alpha);
        if (scale) {
          Value s = args[next++];
          factor =
              factor ? arith::MulFOp::create(eb, factor, s).getResult() : s;
        }
        if (factor)
          x = arith::MulFOp::create(eb, x, factor);
        if (acc) {
          Value a = epilogueToF32(eb, args[next++]);
          if (beta != 1.0)
            a = arith::MulFOp::create(eb, a, cF(beta));
          x = arith::AddFOp::create(eb, x, a);
        }
        if (bias)
          x = arith::AddFOp::create(eb, x, epilogueToF32(eb, args[next++]));
        switch (act) {
        case Activation::none:
          break;
        case Activation::relu:
          x = arith::MaximumFOp::create(eb, x, cF(0.0));
          break;
        case Activation::gelu_tanh: {
          // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
          Value x3 =
              arith::MulFOp::create(eb, x, arith::MulFOp::create(eb, x, x));
          Value inner = arith::MulFOp::create(
              eb, cF(0.7978845608028654),
              arith::AddFOp::create(
                  eb, x, arith::MulFOp::create(eb, cF(0.044715), x3)));
          Value t = math::TanhOp::create(eb, inner);
          x = arith::MulFOp::create(eb, arith::MulFOp::create(eb, cF(0.5), x),
                                    arith::AddFOp::create(eb, cF(1.0), t));
          break;
        }
        case Activation::gelu_erf: {
          // 0.5 x (1 + erf(x / sqrt(2)))
          Value e = math::ErfOp::create(
              eb, arith::MulFOp::create(eb, x, cF(0.7071067811865476)));
          x = arith::MulFOp::create(eb, arith::MulFOp::create(eb, cF(0.5), x),
                                    arith::AddFOp::create(eb, cF(1.0), e));
          break;
        }
        }
        linalg::YieldOp::create(eb, convertEpilogueResult(eb, x, outElem));
      });
  return generic.getResult(0);
}
