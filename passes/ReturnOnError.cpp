//===- ReturnOnError.cpp - return from generated code after an error -----===//
//
// The failure rule of docs/RELIABILITY.md: a run-time error stops the call
// before any later op runs. The runtime records errors instead of aborting
// (runtime/stc_runtime.h); this pass makes the generated code act on them.
// After bufferization, every call that can record an error is followed by a
// test of stc_rt_failed() (the CPU and the GPU runtime's records) and a
// branch to an exit block of its own:
//
// - a C-interface runtime entry point (RuntimeEntryPoints.def: from
// stc-lower-to-runtime,
//   stc-lower-spmm-to-cpu and stc-check-allocations);
// - a function defined in the module (the callee may have failed and
//   returned early itself);
// - a GPU launch function that stc-gpu-host-launch defines later
//   (`stc_gpu.launches`): its driver calls record GPU errors.
//
// An exit block returns placeholders: a fresh buffer of each memref result
// type (zero elements along dynamic dimensions), zero for a scalar. Running
// before the deallocation pipeline is what makes the early return free
// every buffer the function owns at that point, as the normal return
// would: nothing leaks, and the caller frees the placeholders as it frees
// results.
//
// A call nested in a region (a loop body) is tested after the outermost op
// that holds it, since a region cannot be left early.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuDialect.h"
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCRETURNONERROR
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// int stc_rt_failed(void): a plain C function (no memref arguments).
const StringRef kFailedFn = runtimeSymbol(RuntimeEntryPoint::Failed);

/// Whether `call` may leave an error recorded.
bool mayRecordError(func::CallOp call, SymbolTableCollection &symbols) {
  StringRef name = call.getCallee();
  if (name == kFailedFn)
    return false;
  if (::stc::runtime::isEntrySymbol(
          std::string_view(name.data(), name.size()),
          ::stc::runtime::RuntimeEntryKind::CInterface))
    return true;
  auto callee =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee)
    return false;
  return !callee.isExternal() ||
         callee->hasAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName);
}

/// A value of `type` for the exit block to return, or null (after an
/// error) for a type it cannot make.
Value placeholder(OpBuilder &b, Location loc, Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    auto identity =
        MemRefType::get(memref.getShape(), memref.getElementType(),
                        MemRefLayoutAttrInterface(), memref.getMemorySpace());
    SmallVector<Value> sizes(memref.getNumDynamicDims(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    Value buffer = memref::AllocOp::create(b, loc, identity, sizes);
    if (identity == memref)
      return buffer;
    if (!memref::CastOp::areCastCompatible(identity, memref)) {
      emitError(loc) << "stc-return-on-error: cannot return a placeholder of "
                     << type;
      return nullptr;
    }
    return memref::CastOp::create(b, loc, memref, buffer);
  }
  if (isa<IntegerType, FloatType, IndexType>(type))
    return arith::ConstantOp::create(b, loc,
                                     cast<TypedAttr>(b.getZeroAttr(type)));
  return ub::PoisonOp::create(b, loc, type);
}

struct StcReturnOnErrorPass
    : public mlir::stc::impl::StcReturnOnErrorBase<StcReturnOnErrorPass> {
  void runOnOperation() override;

  /// The deallocation pipeline that follows must know how to free buffers
  /// on the two edges of the cf.cond_br this pass adds: the control-flow
  /// dialect's deallocation model, registered with the pass (the pass
  /// manager applies it to the context before the pipeline runs) rather
  /// than left to every tool's and embedder's registry.
  void getDependentDialects(DialectRegistry &registry) const override {
    StcReturnOnErrorBase::getDependentDialects(registry);
    cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  }

private:
  /// Declares (once) `func.func private @stc_rt_failed() -> i32`.
  LogicalResult declareFailed();
  LogicalResult instrument(func::FuncOp func,
                           ArrayRef<Operation *> checkpoints);
};

LogicalResult StcReturnOnErrorPass::declareFailed() {
  ModuleOp module = getOperation();
  auto type = FunctionType::get(&getContext(), {},
                                {IntegerType::get(&getContext(), 32)});
  if (Operation *existing = module.lookupSymbol(kFailedFn)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (func && func.isExternal() && func.getFunctionType() == type)
      return success();
    return existing->emitError()
           << "symbol @" << kFailedFn << " is reserved for the stc runtime";
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), kFailedFn, type);
  func.setPrivate();
  return success();
}

LogicalResult
StcReturnOnErrorPass::instrument(func::FuncOp func,
                                 ArrayRef<Operation *> checkpoints) {
  Region &body = func.getBody();
  for (Operation *op : checkpoints) {
    Location at = op->getLoc();
    // One exit block per test: the deallocation pass does not accept a
    // block reached by several conditional branches (it would have to pass
    // each one's buffers along), and each exit frees what is live there.
    Block *exit = new Block();
    body.push_back(exit);
    OpBuilder b = OpBuilder::atBlockBegin(exit);
    SmallVector<Value> results;
    for (Type type : func.getFunctionType().getResults()) {
      Value value = placeholder(b, at, type);
      if (!value)
        return failure();
      results.push_back(value);
    }
    func::ReturnOp::create(b, at, results);

    Block *block = op->getBlock();
    Block *rest = block->splitBlock(std::next(op->getIterator()));
    b.setInsertionPointToEnd(block);
    Value status = func::CallOp::create(b, at, kFailedFn,
                                        TypeRange{b.getI32Type()}, ValueRange{})
                       .getResult(0);
    Value failedNow =
        arith::CmpIOp::create(b, at, arith::CmpIPredicate::ne, status,
                              arith::ConstantIntOp::create(b, at, 0, 32));
    cf::CondBranchOp::create(b, at, failedNow, exit, rest);
  }
  return success();
}

void StcReturnOnErrorPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTableCollection symbols;
  // Per function, the top-level ops after which to test (in order, once
  // each).
  SmallVector<std::pair<func::FuncOp, SmallVector<Operation *>>> work;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    llvm::SetVector<Operation *> checkpoints;
    func.walk([&](func::CallOp call) {
      if (!mayRecordError(call, symbols))
        return;
      Operation *top = call;
      while (top->getParentOp() != func)
        top = top->getParentOp();
      checkpoints.insert(top);
    });
    if (!checkpoints.empty())
      work.emplace_back(func, checkpoints.takeVector());
  }
  if (work.empty())
    return;
  if (failed(declareFailed()))
    return signalPassFailure();
  for (auto &[func, checkpoints] : work)
    if (failed(instrument(func, checkpoints)))
      return signalPassFailure();
}

} // namespace
