//===- CheckSizes.cpp - refuse shapes too large to compile or run -*- C++
//-*-===//
//
// The compile-time half of the limits of docs/RELIABILITY.md (the bounds
// are in runtime/format/StcLimits.h). A static shape whose element count or
// byte size overflows 64 bits makes every size computation downstream
// wrong (folders, buffer sizes, kernel grids), and a splat constant of a
// huge shape is a few bytes of text that folders and the LLVM translation
// would try to expand: both are refused here, at the op, before any pass
// looks at them.
//
//===----------------------------------------------------------------------===//
#include "passes/CheckSizes.h"
#include "passes/Passes.h"

#include "runtime/format/StcLimits.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCCHECKSIZES
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
namespace limits = ::stc::format;

namespace {

/// Bytes of one element, or none for a type without a known size.
std::optional<int64_t> elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (int64_t(type.getIntOrFloatBitWidth()) + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = elementBytes(complex.getElementType());
    return part ? std::optional<int64_t>(2 * *part) : std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::string mlir::stc::whyTypeTooLarge(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank() || !shaped.hasStaticShape())
    return std::string();
  std::vector<int64_t> shape(shaped.getShape().begin(),
                             shaped.getShape().end());
  std::optional<int64_t> count = limits::checkedElementCount(shape);
  if (!count)
    return "its element count overflows 64 bits";
  Type element = shaped.getElementType();
  if (auto vector = dyn_cast<VectorType>(element))
    if (!vector.isScalable())
      count = limits::checkedMul(*count, vector.getNumElements());
  std::optional<int64_t> width = elementBytes(
      isa<VectorType>(element) ? cast<VectorType>(element).getElementType()
                               : element);
  if (!count || !width)
    return count ? std::string() : "its element count overflows 64 bits";
  std::optional<int64_t> bytes = limits::checkedMul(*count, *width);
  if (!bytes)
    return "its size in bytes overflows 64 bits";
  if (uint64_t(*bytes) > limits::kMaxStaticBytes)
    return "it is " + limits::formatBytes(*bytes) +
           ", more than the 2^47 bytes a 64-bit process can address";
  return std::string();
}

namespace {

/// Why the constant `attr` is refused, or "".
std::string checkConstant(Attribute attr) {
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements)
    return std::string();
  auto type = dyn_cast<ShapedType>(elements.getType());
  if (!type || !type.hasStaticShape())
    return std::string();
  // A type beyond the bounds is reported as such (checkType).
  if (!whyTypeTooLarge(type).empty())
    return std::string();
  std::optional<int64_t> width = elementBytes(type.getElementType());
  if (!width)
    return std::string();
  int64_t bytes = type.getNumElements() * *width; // checkType: no overflow
  if (uint64_t(bytes) > limits::kMaxConstantBytes)
    return "it holds " + limits::formatBytes(bytes) +
           " once expanded, more than the 2 GiB a constant may hold";
  return std::string();
}

/// Reports each refused type once, at the first op (in program order) that
/// mentions it, and each refused constant at its op.
class SizeChecker {
public:
  /// False after reporting an error on `op`.
  bool check(Operation *op);

private:
  bool checkTypeOf(Operation *op, Type t);
  llvm::DenseSet<Type> seen;
};

bool SizeChecker::checkTypeOf(Operation *op, Type t) {
  if (!seen.insert(t).second)
    return true;
  std::string why = whyTypeTooLarge(t);
  if (why.empty())
    return true;
  op->emitError() << "stc-check-sizes: " << t << " is too large: " << why;
  return false;
}

bool SizeChecker::check(Operation *op) {
  bool ok = true;
  SmallVector<Type> types(op->getResultTypes());
  llvm::append_range(types, op->getOperandTypes());
  for (Region &region : op->getRegions())
    for (Block &block : region)
      llvm::append_range(types, block.getArgumentTypes());
  for (NamedAttribute named : op->getAttrs()) {
    Attribute attr = named.getValue();
    if (auto typeAttr = dyn_cast<TypeAttr>(attr)) {
      // Function signatures, global types.
      if (auto fn = dyn_cast<FunctionType>(typeAttr.getValue())) {
        llvm::append_range(types, fn.getInputs());
        llvm::append_range(types, fn.getResults());
      } else {
        types.push_back(typeAttr.getValue());
      }
    }
    if (auto elements = dyn_cast<ElementsAttr>(attr)) {
      if (std::string why = checkConstant(attr); !why.empty()) {
        op->emitError() << "stc-check-sizes: " << elements.getType()
                        << " is too large: " << why;
        ok = false;
      }
    }
  }
  for (Type t : types)
    ok &= checkTypeOf(op, t);
  // A dimension index that is a constant outside the rank is undefined
  // behaviour at run time, and upstream's memref.dim folders crash on it
  // (mutation fuzzer: `tensor.dim %w, %c-1`): refused here, at the op.
  std::optional<int64_t> dimIndex;
  Value shaped;
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    dimIndex = dim.getConstantIndex();
    shaped = dim.getSource();
  } else if (auto dim = dyn_cast<memref::DimOp>(op)) {
    dimIndex = dim.getConstantIndex();
    shaped = dim.getSource();
  }
  if (dimIndex) {
    auto type = dyn_cast<ShapedType>(shaped.getType());
    if (type && type.hasRank() &&
        (*dimIndex < 0 || *dimIndex >= type.getRank())) {
      op->emitError() << "stc-check-sizes: dimension index " << *dimIndex
                      << " is out of range for the rank-" << type.getRank()
                      << " " << type;
      ok = false;
    }
  }
  return ok;
}

struct StcCheckSizesPass
    : public mlir::stc::impl::StcCheckSizesBase<StcCheckSizesPass> {
  void runOnOperation() override {
    SizeChecker checker;
    bool refused = false;
    getOperation().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { refused |= !checker.check(op); });
    if (refused)
      signalPassFailure();
  }
};

} // namespace
