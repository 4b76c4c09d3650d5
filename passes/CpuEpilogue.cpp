//===- CpuEpilogue.cpp - fused epilogue of the CPU lowerings -*- C++ -*-===//
//
// act(alpha * prod + beta * acc + bias) as one element-wise linalg.generic,
// shared by stc-lower-spmm-to-cpu and stc-lower-conv-to-cpu.
//
//===----------------------------------------------------------------------===//
#include "passes/CpuEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::stc;

Value mlir::stc::buildCpuEpilogue(ImplicitLocOpBuilder &b, Value prod,
                                  AffineMap prodMap,
                                  RankedTensorType resultType,
                                  ValueRange dynamicSizes,
                                  const EpilogueSpec &spec) {
  Type outElem = resultType.getElementType();
  Type f32 = b.getF32Type();
  int64_t rank = resultType.getRank();
  Value init =
      tensor::EmptyOp::create(b, resultType.getShape(), outElem, dynamicSizes);

  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs = {prod};
  SmallVector<AffineMap> maps = {prodMap};
  Value bias = spec.bias, acc = spec.acc;
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(spec.biasMap);
  }
  if (acc) {
    inputs.push_back(acc);
    maps.push_back(id);
  }
  maps.push_back(id);
  double alpha = spec.alpha, beta = spec.beta;
  Activation act = spec.activation;
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, resultType, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        ImplicitLocOpBuilder eb(loc, nb);
        auto cF = [&](double v) {
          return arith::ConstantOp::create(eb, eb.getF32FloatAttr(v));
        };
        auto toF32 = [&](Value v) -> Value {
          return v.getType() == f32 ? v : arith::ExtFOp::create(eb, f32, v);
        };
        Value x = args[0];
        if (alpha != 1.0)
          x = arith::MulFOp::create(eb, x, cF(alpha));
        unsigned next = 1;
        if (bias)
          x = arith::AddFOp::create(eb, x, toF32(args[next++]));
        if (acc) {
          Value a = toF32(args[next++]);
          if (beta != 1.0)
            a = arith::MulFOp::create(eb, a, cF(beta));
          x = arith::AddFOp::create(eb, x, a);
        }
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
        if (outElem != f32)
          x = arith::TruncFOp::create(eb, outElem, x);
        linalg::YieldOp::create(eb, x);
      });
  return generic.getResult(0);
}
