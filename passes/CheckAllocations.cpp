//===- CheckAllocations.cpp - run-time checks of large allocations -*- C++
//-*-===//
//
// The allocation half of the limits of docs/RELIABILITY.md. After
// bufferization, each `memref.alloc` at the top level of a function whose
// size is known only at run time (a dynamic dimension), or is at least
// kCheckedStaticBytes, is bracketed by two runtime calls:
//
// - before it, stc_rt_check_alloc(bytes, overflowed, where): the byte size,
//   computed from the dimensions with the overflow of every product kept,
//   must not have overflowed 64 bits and must fit the machine's memory;
// - after it, stc_rt_check_allocated(address, bytes, where): the allocation
//   must have succeeded.
//
// Both record an error (with the location of the op that needed the
// buffer) instead of letting a wrapped size or a null buffer be written;
// stc-return-on-error, which runs next, then returns before the buffer is
// used. Allocations nested in loops and other regions are tiles of bounded
// size and are left alone.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

#include "runtime/format/StcLimits.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCCHECKALLOCATIONS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

const StringRef kCheckAllocFn = runtimeSymbol(RuntimeEntryPoint::CheckAlloc);
const StringRef kCheckAllocatedFn =
    runtimeSymbol(RuntimeEntryPoint::CheckAllocated);

/// Static allocations of at least this many bytes are checked too: they may
/// exceed the memory of the machine that runs the program.
constexpr int64_t kCheckedStaticBytes = int64_t(1) << 20;

/// Bytes of one element of `type`, or none for a type whose size the pass
/// does not know (such allocations are not checked).
std::optional<int64_t> elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (int64_t(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto vector = dyn_cast<VectorType>(type)) {
    std::optional<int64_t> inner = elementBytes(vector.getElementType());
    if (!inner || vector.isScalable())
      return std::nullopt;
    return ::stc::format::checkedMul(*inner, vector.getNumElements());
  }
  return std::nullopt;
}

class AllocationChecker {
public:
  explicit AllocationChecker(ModuleOp module) : calls(module) {}

  LogicalResult check(memref::AllocOp alloc);

private:
  RuntimeCallBuilder calls;
};

LogicalResult AllocationChecker::check(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  std::optional<int64_t> bytesPerElement = elementBytes(type.getElementType());
  if (!bytesPerElement)
    return success();
  // The static part of the size, multiplied at compile time.
  std::optional<int64_t> staticBytes = *bytesPerElement;
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d) && staticBytes)
      staticBytes = ::stc::format::checkedMul(*staticBytes, d);
  if (!staticBytes)
    return alloc.emitError("stc-check-allocations: the size of ")
           << type << " overflows 64 bits";
  if (type.hasStaticShape() && *staticBytes < kCheckedStaticBytes)
    return success();

  ImplicitLocOpBuilder b(alloc.getLoc(), alloc);
  Type i64 = b.getI64Type();
  Value bytes = arith::ConstantIntOp::create(b, *staticBytes, 64);
  Value overflowed = arith::ConstantIntOp::create(b, 0, 1);
  Value zero = arith::ConstantIntOp::create(b, 0, 64);
  for (Value size : alloc.getDynamicSizes()) {
    Value dim = arith::IndexCastOp::create(b, i64, size);
    auto product = arith::MulUIExtendedOp::create(b, bytes, dim);
    Value high = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                       product.getHigh(), zero);
    overflowed = arith::OrIOp::create(b, overflowed, high);
    bytes = product.getLow();
  }
  Value where = calls.locationString(b, alloc.getLoc());
  Type i8 = b.getI8Type();
  if (!calls.declare(kCheckAllocFn, {i64, i8, where.getType()}, {i8}) ||
      !calls.declare(kCheckAllocatedFn, {i64, i64, where.getType()}, {i8}))
    return failure();
  func::CallOp::create(
      b, kCheckAllocFn, TypeRange{i8},
      ValueRange{bytes, arith::ExtUIOp::create(b, i8, overflowed), where});

  b.setInsertionPointAfter(alloc);
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, alloc.getResult());
  func::CallOp::create(
      b, kCheckAllocatedFn, TypeRange{i8},
      ValueRange{arith::IndexCastOp::create(b, i64, address), bytes, where});
  return success();
}

struct StcCheckAllocationsPass
    : public mlir::stc::impl::StcCheckAllocationsBase<StcCheckAllocationsPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (Block &block : func.getBody())
        for (auto alloc : block.getOps<memref::AllocOp>())
          allocs.push_back(alloc);
    }
    AllocationChecker checker(getOperation());
    bool failedAny = false;
    for (memref::AllocOp alloc : allocs)
      failedAny |= failed(checker.check(alloc));
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
