//===- LowerToRuntime.cpp - run-time stc ops to stc_runtime --*- C++ -*-===//
//
// stc.prune / stc.compress / stc.decompress / stc.check whose operands are
// only known at run time (function arguments) become calls into
// stc_runtime, the same format library the compiler folds constants with.
// Operands travel as memref descriptors (llvm.emit_c_interface), and the
// op's location as a string, so a run-time error names the source line.
// Each element type has its own entry points (suffix f32, f16, bf16 or i8;
// i8 is read as signed), the element type of every memref operand being the
// tensor's own (i8 buffers stay i8; metadata is always i16).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERTORUNTIME
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// memref<?x?xT, strided<[?, ?], offset: ?>>: accepts any 2-D buffer.
static MemRefType anyLayout2D(Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  int64_t d = ShapedType::kDynamic;
  return MemRefType::get({d, d}, elementType,
                         StridedLayoutAttr::get(ctx, d, {d, d}));
}

/// The entry-point suffix of element type `t`, or "" for a type the runtime
/// has no entry points for (the ops' verifiers allow none).
static StringRef typeSuffix(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isInteger(8))
    return "i8";
  return "";
}

/// The name of the entry point `stc_rt_<base>_<suffix>` for element type
/// `elem`, or none (after an error on `op`) if there is none.
static std::optional<std::string> entryPoint(Operation *op, StringRef base,
                                             Type elem) {
  StringRef suffix = typeSuffix(elem);
  if (suffix.empty()) {
    op->emitOpError("has no run-time entry point for element type ") << elem;
    return std::nullopt;
  }
  std::string name = ("stc_rt_" + base + "_" + suffix).str();
  // Every name generated code calls is in runtime/RuntimeEntryPoints.def.
  assert(::stc::runtime::isEntrySymbol(
             name, ::stc::runtime::RuntimeEntryKind::CInterface) &&
         "a CPU runtime entry point missing from RuntimeEntryPoints.def");
  return name;
}

class RuntimeLowering {
public:
  explicit RuntimeLowering(ModuleOp module) : module(module), calls(module) {}

  LogicalResult lower(Operation *op);

private:
  func::FuncOp declare(StringRef name, TypeRange args, TypeRange results) {
    return calls.declare(name, args, results);
  }
  Value locationString(ImplicitLocOpBuilder &b, Location loc) {
    return calls.locationString(b, loc);
  }
  /// The buffer of tensor `t`, read-only, with a fully dynamic layout.
  Value readBuffer(ImplicitLocOpBuilder &b, Value t);
  /// A fresh buffer of `type` (dynamic sizes from `dynSizes`).
  Value allocate(ImplicitLocOpBuilder &b, RankedTensorType type,
                 ArrayRef<Value> sizes);
  Value asTensor(ImplicitLocOpBuilder &b, Value buffer, Type tensorType) {
    return bufferization::ToTensorOp::create(b, tensorType, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  }
  Value castAny(ImplicitLocOpBuilder &b, Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return memref::CastOp::create(b, anyLayout2D(type.getElementType()),
                                  buffer);
  }
  Value i64(ImplicitLocOpBuilder &b, int64_t v) {
    return arith::ConstantIntOp::create(b, v, 64);
  }
  Value dimOf(ImplicitLocOpBuilder &b, Value t, int64_t i) {
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.isDynamicDim(i))
      return arith::ConstantIndexOp::create(b, type.getDimSize(i));
    return tensor::DimOp::create(b, t, i);
  }

  ModuleOp module;
  RuntimeCallBuilder calls;
};

Value RuntimeLowering::readBuffer(ImplicitLocOpBuilder &b, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t d = ShapedType::kDynamic;
  auto bufferType =
      MemRefType::get(type.getShape(), type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), d, {d, d}));
  Value buffer =
      bufferization::ToBufferOp::create(b, bufferType, t, /*read_only=*/true);
  return memref::CastOp::create(b, anyLayout2D(type.getElementType()), buffer);
}

Value RuntimeLowering::allocate(ImplicitLocOpBuilder &b, RankedTensorType type,
                                ArrayRef<Value> sizes) {
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(sizes[i]);
  auto memType = MemRefType::get(type.getShape(), type.getElementType());
  return memref::AllocOp::create(b, memType, dyn);
}

LogicalResult RuntimeLowering::lower(Operation *op) {
  ImplicitLocOpBuilder b(op->getLoc(), op);
  Type i64Type = b.getI64Type();

  if (auto prune = dyn_cast<PruneOp>(op)) {
    auto type = prune.getType();
    std::optional<std::string> name =
        entryPoint(op, "prune", type.getElementType());
    if (!name)
      return failure();
    Value in = readBuffer(b, prune.getInput());
    Value out = allocate(
        b, type,
        {dimOf(b, prune.getInput(), 0), dimOf(b, prune.getInput(), 1)});
    MemRefType any = anyLayout2D(type.getElementType());
    if (!declare(*name, {any, any, i64Type, i64Type, i64Type, i64Type}, {}))
      return failure();
    // The enum's values are the runtime's STC_RT_PRUNE_* (StcEnums.td).
    func::CallOp::create(
        b, *name, TypeRange{},
        ValueRange{in, castAny(b, out), i64(b, prune.getReductionDim()),
                   i64(b, prune.getPattern().getN()),
                   i64(b, prune.getPattern().getM()),
                   i64(b, static_cast<int64_t>(prune.getMethod()))});
    prune.getResult().replaceAllUsesWith(asTensor(b, out, type));
    prune.erase();
    return success();
  }

  if (auto compress = dyn_cast<CompressOp>(op)) {
    NMPatternAttr pattern = compress.getPattern();
    int64_t dim = compress.getReductionDim();
    TypedValue<RankedTensorType> input = compress.getInput();
    auto inType = input.getType();
    Type elem = inType.getElementType();
    std::optional<std::string> name = entryPoint(op, "compress", elem);
    if (!name)
      return failure();
    Attribute attr;
    if (matchPattern(input, m_Constant(&attr))) {
      // The folder declined: report why at compile time.
      if (auto data = readFloatConstant(attr, inType)) {
        std::string why = describePatternViolation(
            *data, inType.getDimSize(0), inType.getDimSize(1), dim, pattern);
        if (!why.empty())
          return compress.emitError("stc.compress: constant operand ") << why;
      }
    }
    Value in = readBuffer(b, input);
    Value rows = dimOf(b, input, 1 - dim);
    Value k = dimOf(b, input, dim);
    int64_t colsPerWord = pattern.getColumnsPerMetaWord();
    Value words = arith::CeilDivUIOp::create(
        b, k, arith::ConstantIndexOp::create(b, colsPerWord));
    Value perRow = arith::MulIOp::create(
        b, words, arith::ConstantIndexOp::create(b, 4 * pattern.getN()));
    Value values = allocate(b, compress.getValues().getType(), {rows, perRow});
    Value meta = allocate(b, compress.getMeta().getType(), {rows, words});
    MemRefType any = anyLayout2D(elem);
    Value where = locationString(b, compress.getLoc());
    if (!declare(*name,
                 {any, any, anyLayout2D(b.getI16Type()), i64Type, i64Type,
                  i64Type, where.getType()},
                 {}))
      return failure();
    func::CallOp::create(b, *name, TypeRange{},
                         ValueRange{in, castAny(b, values), castAny(b, meta),
                                    i64(b, dim), i64(b, pattern.getN()),
                                    i64(b, pattern.getM()), where});
    compress.getValues().replaceAllUsesWith(
        asTensor(b, values, compress.getValues().getType()));
    compress.getMeta().replaceAllUsesWith(
        asTensor(b, meta, compress.getMeta().getType()));
    compress.erase();
    return success();
  }

  if (auto decompress = dyn_cast<DecompressOp>(op)) {
    auto type = decompress.getType();
    Type elem = type.getElementType();
    std::optional<std::string> name = entryPoint(op, "decompress", elem);
    if (!name)
      return failure();
    int64_t dim = decompress.getReductionDim();
    Value rows = dimOf(b, decompress.getValues(), 0);
    // A dynamic reduction size means the padded one, Kp (see the op).
    NMPatternAttr pattern = decompress.getPattern();
    Value k;
    if (type.isDynamicDim(dim)) {
      Value perRow = dimOf(b, decompress.getValues(), 1);
      Value scaled = arith::MulIOp::create(
          b, perRow, arith::ConstantIndexOp::create(b, pattern.getM()));
      k = arith::DivUIOp::create(
          b, scaled, arith::ConstantIndexOp::create(b, pattern.getN()));
    } else {
      k = arith::ConstantIndexOp::create(b, type.getDimSize(dim));
    }
    Value out = allocate(b, type,
                         dim == 1 ? SmallVector<Value>{rows, k}
                                  : SmallVector<Value>{k, rows});
    MemRefType any = anyLayout2D(elem);
    Value where = locationString(b, decompress.getLoc());
    if (!declare(*name,
                 {any, anyLayout2D(b.getI16Type()), any, i64Type, i64Type,
                  i64Type, where.getType()},
                 {}))
      return failure();
    func::CallOp::create(
        b, *name, TypeRange{},
        ValueRange{readBuffer(b, decompress.getValues()),
                   readBuffer(b, decompress.getMeta()), castAny(b, out),
                   i64(b, dim), i64(b, decompress.getPattern().getN()),
                   i64(b, decompress.getPattern().getM()), where});
    decompress.getResult().replaceAllUsesWith(asTensor(b, out, type));
    decompress.erase();
    return success();
  }

  if (auto check = dyn_cast<CheckOp>(op)) {
    Type elem = check.getInput().getType().getElementType();
    std::optional<std::string> name = entryPoint(op, "check", elem);
    if (!name)
      return failure();
    if (!declare(*name, {anyLayout2D(elem), i64Type, i64Type, i64Type},
                 {b.getI8Type()}))
      return failure();
    auto call =
        func::CallOp::create(b, *name, TypeRange{b.getI8Type()},
                             ValueRange{readBuffer(b, check.getInput()),
                                        i64(b, check.getReductionDim()),
                                        i64(b, check.getPattern().getN()),
                                        i64(b, check.getPattern().getM())});
    Value ok =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, call.getResult(0),
                              arith::ConstantIntOp::create(b, 0, 8));
    check.getResult().replaceAllUsesWith(ok);
    check.erase();
    return success();
  }
  return success();
}

struct StcLowerToRuntimePass
    : public mlir::stc::impl::StcLowerToRuntimeBase<StcLowerToRuntimePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<PruneOp, CompressOp, DecompressOp, CheckOp>(op))
        ops.push_back(op);
    });
    RuntimeLowering lowering(getOperation());
    bool failedAny = false;
    for (Operation *op : ops)
      if (failed(lowering.lower(op)))
        failedAny = true;
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
