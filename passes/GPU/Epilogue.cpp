//===- Epilogue.cpp - the fused epilogue of every kernel -------*- C++ -*-===//
//
// See Epilogue.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/Epilogue.h"
#include "passes/CpuEpilogue.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

Value mlir::stc::gpu_kernel::emitActivation(KernelIR &ir, Activation activation,
                                            Value x) {
  ImplicitLocOpBuilder &b = ir.b;
  auto f32 = [&](double v) { return ir.f32(v); };
  switch (activation) {
  case Activation::none:
    return x;
  case Activation::relu:
    // maximumf keeps NaN, as the CPU path does.
    return arith::MaximumFOp::create(b, x, f32(0.0));
  case Activation::gelu_tanh:
  case Activation::gelu_erf: {
    // exp through the hardware's ex2.approx (the NVVM intrinsic, called by
    // name), |x| and copysign with arith ops: math ops and LLVM's own
    // exp2/fabs would become libdevice calls (or be rejected) in
    // convert-gpu-to-nvvm, and no libdevice is needed to build or load the
    // kernel this way. (The emulator maps the intrinsic back to exp2.)
    auto exp = [&](Value y) {
      Value scaled = arith::MulFOp::create(b, y, f32(1.4426950408889634));
      return LLVM::CallIntrinsicOp::create(b, b.getF32Type(),
                                           b.getStringAttr(kEx2Intrinsic),
                                           ValueRange{scaled})
          .getResult(0);
    };
    Value inner;
    if (activation == Activation::gelu_tanh) {
      // tanh(y) = 1 - 2 / (exp(2y) + 1), y = sqrt(2/pi) (x + 0.044715 x^3).
      Value x3 = arith::MulFOp::create(b, arith::MulFOp::create(b, x, x), x);
      Value y = arith::MulFOp::create(
          b, f32(0.7978845608028654),
          arith::AddFOp::create(b, x,
                                arith::MulFOp::create(b, f32(0.044715), x3)));
      // Clamp so that exp(2y) stays finite; tanh is +-1 there anyway.
      y = arith::MinimumFOp::create(
          b, arith::MaximumFOp::create(b, y, f32(-15.0)), f32(15.0));
      Value e = exp(arith::MulFOp::create(b, y, f32(2.0)));
      inner = arith::SubFOp::create(
          b, f32(1.0),
          arith::DivFOp::create(b, f32(2.0),
                                arith::AddFOp::create(b, e, f32(1.0))));
    } else {
      // erf(z), z = x / sqrt(2), by Abramowitz & Stegun 7.1.26 (absolute
      // error below 1.5e-7), odd in z.
      Value z = arith::MulFOp::create(b, x, f32(0.7071067811865476));
      Value az = arith::MaximumFOp::create(b, z, arith::NegFOp::create(b, z));
      Value tt = arith::DivFOp::create(
          b, f32(1.0),
          arith::AddFOp::create(b, f32(1.0),
                                arith::MulFOp::create(b, f32(0.3275911), az)));
      const double coeffs[] = {1.061405429, -1.453152027, 1.421413741,
                               -0.284496736, 0.254829592};
      Value poly = f32(coeffs[0]);
      for (int i = 1; i < 5; ++i)
        poly = arith::AddFOp::create(b, arith::MulFOp::create(b, poly, tt),
                                     f32(coeffs[i]));
      poly = arith::MulFOp::create(b, poly, tt);
      Value negZ2 = arith::NegFOp::create(b, arith::MulFOp::create(b, az, az));
      Value erfAbs = arith::SubFOp::create(
          b, f32(1.0), arith::MulFOp::create(b, poly, exp(negZ2)));
      inner = arith::SelectOp::create(
          b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, z, f32(0.0)),
          arith::NegFOp::create(b, erfAbs), erfAbs);
    }
    Value half = arith::MulFOp::create(b, f32(0.5), x);
    return arith::MulFOp::create(b, half,
                                 arith::AddFOp::create(b, f32(1.0), inner));
  }
  }
  llvm_unreachable("unknown activation");
}

Value mlir::stc::gpu_kernel::outputIndex(KernelIR &ir, const Problem &pb,
                                         const OutputStore &o, Value r,
                                         Value p) {
  // Out is R x P for a sparse lhs, its transpose P x R for a sparse rhs;
  // acc has the result's shape.
  return pb.sparseLhs
             ? ir.add(ir.mul(ir.wide(r), ir.wide(o.cols)), ir.wide(p))
             : ir.add(ir.mul(ir.wide(p), ir.wide(o.outLd)), ir.wide(r));
}

namespace {
/// Element `at` of `base`, or element 0's where `inBounds` is given and
/// false.
Value guardedLoad(KernelIR &ir, Value base, Type type, Value at,
                  Value inBounds) {
  return inBounds ? ir.loadIf(inBounds, base, type, at, ir.zeroOf(type))
                  : ir.loadAt(base, type, at);
}
} // namespace

EpilogueRow mlir::stc::gpu_kernel::loadEpilogueRow(KernelIR &ir,
                                                   const Problem &pb,
                                                   const OutputStore &o,
                                                   Value r, Value inBounds) {
  EpilogueRow row;
  if (pb.outputType.isInteger(32))
    return row;
  if (pb.hasScale)
    row.scale =
        guardedLoad(ir, o.scale, ir.b.getF32Type(), ir.wide(r), inBounds);
  if (pb.hasBias)
    row.bias = epilogueToF32(
        ir.b, guardedLoad(ir, o.bias, pb.biasType, ir.wide(r), inBounds));
  return row;
}

Value mlir::stc::gpu_kernel::epilogueScaled(KernelIR &ir, const Problem &pb,
                                            Value v, const EpilogueRow &row) {
  ImplicitLocOpBuilder &b = ir.b;
  v = epilogueToF32(b, v);
  Value factor = pb.alpha != 1.0 ? ir.f32(pb.alpha) : Value();
  if (pb.hasScale)
    factor = factor ? arith::MulFOp::create(b, factor, row.scale).getResult()
                    : row.scale;
  return factor ? arith::MulFOp::create(b, v, factor).getResult() : v;
}

Value mlir::stc::gpu_kernel::epilogueTail(KernelIR &ir, const Problem &pb,
                                          Value scaled, Value acc, Value bias) {
  ImplicitLocOpBuilder &b = ir.b;
  Value v = scaled;
  if (acc)
    v = arith::AddFOp::create(b, v,
                              arith::MulFOp::create(b, acc, ir.f32(pb.beta)));
  if (bias)
    v = arith::AddFOp::create(b, v, bias);
  return convertEpilogueResult(b, emitActivation(ir, pb.activation, v),
                               pb.outputType);
}

Value mlir::stc::gpu_kernel::epilogueValue(KernelIR &ir, const Problem &pb,
                                           const OutputStore &o, Value v,
                                           Value r, Value index, Value inBounds,
                                           const EpilogueRow *row) {
  // An i32 result is the exact accumulator (no epilogue: verifier).
  if (pb.outputType.isInteger(32))
    return v;
  ImplicitLocOpBuilder &b = ir.b;
  EpilogueRow loaded = row ? *row : loadEpilogueRow(ir, pb, o, r, inBounds);
  // (alpha * scale) * prod + beta * acc + bias, the CPU path's order.
  Value acc;
  if (pb.hasAcc && pb.beta != 0.0)
    acc =
        epilogueToF32(b, guardedLoad(ir, o.accIn, pb.accType, index, inBounds));
  return epilogueTail(ir, pb, epilogueScaled(ir, pb, v, loaded), acc,
                      loaded.bias);
}

void mlir::stc::gpu_kernel::storeResult(KernelIR &ir, const Problem &pb,
                                        const OutputStore &o, Value v, Value r,
                                        Value p, Value alsoInBounds) {
  ImplicitLocOpBuilder &b = ir.b;
  Value ok = ir.both(ir.lt(r, o.rows), ir.lt(p, o.cols));
  if (alsoInBounds)
    ok = ir.both(ok, alsoInBounds);
  auto guard = scf::IfOp::create(b, ok, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPointToStart(guard.thenBlock());
  Value index = outputIndex(ir, pb, o, r, p);
  v = epilogueValue(ir, pb, o, v, r, index);
  Value ptr = LLVM::GEPOp::create(b, o.out.getType(), pb.outputType, o.out,
                                  ValueRange{index});
  LLVM::StoreOp::create(b, v, ptr);
}
