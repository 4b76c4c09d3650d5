//===- KernelIR.h - small IR helpers of the kernel builders ----*- C++ -*-===//
//
// The arithmetic, constants and guarded loads every kernel builder writes
// over and over, as methods of a thin wrapper around the builder. It holds
// nothing but the builder: what a piece of a kernel needs (the problem, its
// parameters, the thread's place) is passed to it explicitly.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELIR_H
#define STC_PASSES_GPU_KERNELIR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc::gpu_kernel {

class KernelIR {
public:
  explicit KernelIR(ImplicitLocOpBuilder &b) : b(b) {}

  ImplicitLocOpBuilder &b;

  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  Value f32(double v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value zeroOf(Type t) {
    return arith::ConstantOp::create(b, t, b.getZeroAttr(t));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  /// ceil(x / d) of a non-negative x and a positive constant d.
  Value ceilDiv(Value x, int64_t d) {
    Value rounded = add(x, i32(d - 1));
    return arith::DivUIOp::create(b, rounded, i32(d));
  }
  /// An i32 widened (sign-extended) to i64, for element indices.
  Value wide(Value v) { return arith::ExtSIOp::create(b, b.getI64Type(), v); }
  /// An index cast to i32.
  Value toI32(Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  }
  /// Element `index` (i64) of global array `base` (type `type`).
  Value loadAt(Value base, Type type, Value index) {
    Value ptr =
        LLVM::GEPOp::create(b, base.getType(), type, base, ValueRange{index});
    return LLVM::LoadOp::create(b, type, ptr);
  }
  /// loadAt when `inBounds`, else `fallback`; the address is clamped to
  /// element 0 so that no out-of-bounds address is ever formed.
  Value loadIf(Value inBounds, Value base, Type type, Value index,
               Value fallback) {
    Value safe = arith::SelectOp::create(b, inBounds, index, i64(0));
    Value v = loadAt(base, type, safe);
    return arith::SelectOp::create(b, inBounds, v, fallback);
  }
};

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELIR_H
