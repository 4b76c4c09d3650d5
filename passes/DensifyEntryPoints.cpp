//===- DensifyEntryPoints.cpp - dense tensors at public functions -*- C++
//-*-===//
//
// The ABI of a public function (what stc-run, the C API and AOT objects
// call) is dense tensors, whatever encodings its signature names: after the
// sparsifiers, an argument that still carries an encoding arrives as the
// dense array and is converted inside (pruned first when the encoding has
// a structured[2, 4] level, as sparse_tensor.convert into one is in STC), a
// result is converted to its dense form before it is returned. Calls inside
// the module keep the sparse form: a public function that is also called
// gets a private copy for those calls. A conversion into an encoding that is
// immediately converted back becomes its source.
//
// What the conversions create is the function's to free (the caller sees
// only dense arrays): once the round trips are folded, the pruned copy of
// an argument is freed after its conversion, the sparse form of an argument
// before every return, and a returned sparse tensor that a conversion made
// after its dense copy. A returned sparse value of any other origin may
// alias an argument's and is left alone.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/SparsityPolicy.h"
#include "passes/StructuredPrune.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCDENSIFYENTRYPOINTS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Marks the conversions densify() creates, for freeConversions().
constexpr StringLiteral kArgumentConvert = "stc.densify_argument";
constexpr StringLiteral kResultConvert = "stc.densify_result";

bool isEncoded(Type t) {
  return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
}

Type denseTypeOf(Type t) {
  auto ranked = cast<RankedTensorType>(t);
  return RankedTensorType::get(ranked.getShape(), ranked.getElementType());
}

/// Whether converting `source` into the encoding of `type` and back gives
/// `source` again: always for formats without a structured level, and for
/// structured[2, 4] when `source` is 2:4 already.
bool roundTripIsIdentity(Value source, Type type) {
  bool hasEncoding = false;
  int64_t dim = getStructuredDim(type, hasEncoding);
  if (dim < 0)
    return true;
  if (isKnown2To4(source, dim))
    return true;
  DenseElementsAttr constant;
  return matchPattern(source, m_Constant(&constant)) &&
         countNon2To4Groups(constant, dim) == 0;
}

struct StcDensifyEntryPointsPass
    : public stc::impl::StcDensifyEntryPointsBase<StcDensifyEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      FunctionType type = func.getFunctionType();
      if (func.isPublic() && !func.isExternal() &&
          (llvm::any_of(type.getInputs(), isEncoded) ||
           llvm::any_of(type.getResults(), isEncoded)))
        entries.push_back(func);
    }
    for (func::FuncOp func : entries) {
      if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
        // Callers inside the module keep the sparse calling convention.
        func::FuncOp internal = func.clone();
        internal.setPrivate();
        internal->removeAttr("llvm.emit_c_interface");
        internal.setName((func.getSymName() + "_sparse_abi").str());
        symbols.insert(internal, Block::iterator(func));
        if (failed(SymbolTable::replaceAllSymbolUses(
                func, internal.getSymNameAttr(), module)))
          return signalPassFailure();
      }
      densify(func);
    }
    foldRoundTrips(module);
    for (func::FuncOp func : entries)
      freeConversions(func);
  }

private:
  void densify(func::FuncOp func) {
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      Type encodedType = arg.getType();
      if (!isEncoded(encodedType))
        continue;
      // The uses to redirect, before the prune adds its own.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : arg.getUses())
        uses.push_back(&use);
      arg.setType(denseTypeOf(encodedType));
      Location loc = arg.getLoc();
      Value dense = arg;
      bool hasEncoding = false;
      int64_t dim = getStructuredDim(encodedType, hasEncoding);
      if (dim >= 0)
        dense = buildRuntimePrune2To4(b, loc, arg, dim);
      auto convert =
          sparse_tensor::ConvertOp::create(b, loc, encodedType, dense);
      convert->setAttr(kArgumentConvert, b.getUnitAttr());
      Value sparse = convert.getResult();
      for (OpOperand *use : uses)
        use->set(sparse);
      ++numArgumentsDensified;
    }
    func.walk([&](func::ReturnOp ret) {
      OpBuilder rb(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        if (!isEncoded(operand.get().getType()))
          continue;
        auto convert = sparse_tensor::ConvertOp::create(
            rb, ret.getLoc(), denseTypeOf(operand.get().getType()),
            operand.get());
        convert->setAttr(kResultConvert, rb.getUnitAttr());
        operand.set(convert.getResult());
        ++numResultsDensified;
      }
    });
    SmallVector<Type> results;
    for (Type t : func.getFunctionType().getResults())
      results.push_back(isEncoded(t) ? denseTypeOf(t) : t);
    func.setFunctionType(
        FunctionType::get(&getContext(), entry.getArgumentTypes(), results));
    func.emitRemark() << "stc: public function @" << func.getSymName()
                      << " takes and returns dense tensors; its sparse "
                         "encodings are applied inside";
  }

  /// Frees what the conversions of densify() that survived the folding
  /// created (see the file comment), and drops their markers.
  void freeConversions(func::FuncOp func) {
    SmallVector<sparse_tensor::ConvertOp> arguments, results;
    func.walk([&](sparse_tensor::ConvertOp op) {
      if (op->removeAttr(kArgumentConvert))
        arguments.push_back(op);
      else if (op->removeAttr(kResultConvert))
        results.push_back(op);
    });
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
    llvm::SmallPtrSet<Value, 4> freed;
    auto freeAfter = [&](Operation *where, Value v) {
      OpBuilder b(where->getContext());
      b.setInsertionPointAfter(where);
      bufferization::DeallocTensorOp::create(b, where->getLoc(), v);
    };
    for (sparse_tensor::ConvertOp convert : arguments) {
      // The pruned copy (not the argument itself), once converted.
      Value source = convert.getSource();
      if (!isa<BlockArgument>(source) && source.hasOneUse())
        freeAfter(convert, source);
      if (!freed.insert(convert.getResult()).second)
        continue;
      for (func::ReturnOp ret : returns) {
        OpBuilder b(ret);
        bufferization::DeallocTensorOp::create(b, ret.getLoc(),
                                               convert.getResult());
      }
    }
    for (sparse_tensor::ConvertOp convert : results) {
      Value sparse = convert.getSource();
      if (freed.contains(sparse) ||
          !sparse.getDefiningOp<sparse_tensor::ConvertOp>())
        continue;
      // One dense copy per return of the same value: free it after the
      // last (each return has its own conversion right before it).
      bool lastUse = llvm::all_of(sparse.getUsers(), [&](Operation *user) {
        return user == convert || user->isBeforeInBlock(convert) ||
               user->getBlock() != convert->getBlock();
      });
      if (!lastUse)
        continue;
      freeAfter(convert, sparse);
    }
  }

  /// convert(convert(x : dense -> #enc) : #enc -> dense) is x when the
  /// round trip keeps x; conversions left without users are erased.
  void foldRoundTrips(ModuleOp module) {
    SmallVector<sparse_tensor::ConvertOp> toDense;
    module.walk([&](sparse_tensor::ConvertOp op) {
      if (!isEncoded(op.getType()))
        toDense.push_back(op);
    });
    for (sparse_tensor::ConvertOp outer : toDense) {
      auto inner = outer.getSource().getDefiningOp<sparse_tensor::ConvertOp>();
      if (!inner || inner.getSource().getType() != outer.getType() ||
          !roundTripIsIdentity(inner.getSource(), inner.getType()))
        continue;
      outer.replaceAllUsesWith(inner.getSource());
      outer.erase();
      if (inner->use_empty())
        inner.erase();
    }
  }
};

} // namespace
