//===- Bufferize.cpp - tensors to memrefs, STC's way or upstream's -*- C++
//-*-===//
//
// Once STC's own ops are lowered, a module either holds plain tensors only,
// or still holds sparse tensors STC does not specialize (CSR, COO, BSR, 2:4
// on f64, sparse_tensor.new/print, conversions between formats ...). The
// first is bufferized by one-shot bufferization with ownership-based
// deallocation, which frees every temporary and owns every buffer: explicit
// deallocations in the program (bufferization.dealloc_tensor,
// memref.dealloc) are dropped first, since that pass refuses them and would
// free the buffers itself. The second goes through upstream's
// sparsification-and-bufferization mini-pipeline, as `mlir-opt
// --sparsifier` runs it (runtime library on), which sparsifies the
// remaining kernels and bufferizes the whole module; buffers are then freed
// where the program frees them, as under upstream's sparsifier (ownership-
// based deallocation cannot run there: it would free the sparse runtime's
// storage it sees returned by calls), except in the functions that never
// see such storage (ownedBufferFunctions): STC's own functions in a module
// that also has a CSR one, say, get ownership-based deallocation after
// the pipeline, as they would on STC's path, instead of leaking their
// temporaries on every call.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCBUFFERIZE
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

bool isSparseType(Type t) {
  return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
}

/// Whether anything in `root` needs upstream's sparsifier.
bool holdsSparseTensors(Operation *root) {
  WalkResult found = root->walk([](Operation *op) {
    if (isa<sparse_tensor::SparseTensorDialect>(op->getDialect()) ||
        llvm::any_of(op->getOperandTypes(), isSparseType) ||
        llvm::any_of(op->getResultTypes(), isSparseType))
      return WalkResult::interrupt();
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      if (llvm::any_of(func.getArgumentTypes(), isSparseType) ||
          llvm::any_of(func.getResultTypes(), isSparseType))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool returnsBuffers(FunctionOpInterface f) {
  return llvm::any_of(f.getResultTypes(), [](Type t) {
    return isa<BaseMemRefType, TensorType>(t);
  });
}

/// The names of the functions of `module` (before bufferization) whose
/// buffers are all their own: no sparse tensor, no deallocation of their
/// own, and calls only to such functions or to external ones that return
/// no buffers (STC's runtime). After upstream's pipeline nothing they hold
/// comes from the sparse runtime, so ownership-based deallocation applies.
SmallVector<StringAttr> ownedBufferFunctions(ModuleOp module) {
  SymbolTable symbols(module);
  llvm::SetVector<func::FuncOp> owned;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isExternal() || holdsSparseTensors(f))
      continue;
    WalkResult bad = f.walk([](Operation *op) {
      return isa<bufferization::DeallocTensorOp, memref::DeallocOp,
                 func::CallIndirectOp>(op)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (!bad.wasInterrupted())
      owned.insert(f);
  }
  // Drop callers of anything else, until none is left to drop.
  for (bool changed = true; changed;) {
    changed = false;
    for (func::FuncOp f : SmallVector<func::FuncOp>(owned.getArrayRef())) {
      WalkResult bad = f.walk([&](func::CallOp call) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        bool fine = callee && (callee.isExternal() ? !returnsBuffers(callee)
                                                   : owned.contains(callee));
        return fine ? WalkResult::advance() : WalkResult::interrupt();
      });
      if (bad.wasInterrupted()) {
        owned.remove(f);
        changed = true;
      }
    }
  }
  SmallVector<StringAttr> names;
  for (func::FuncOp f : owned)
    names.push_back(f.getSymNameAttr());
  return names;
}

/// Run-time errors (docs/RELIABILITY.md): allocations whose size is known
/// only at run time are checked first, then every call that can record an
/// error is followed by an early return. On STC's path both run before the
/// deallocation pipeline, which then frees on the early returns what the
/// normal return frees.
void addRunTimeErrorChecks(OpPassManager &pm) {
  pm.addPass(createStcCheckAllocations());
  pm.addPass(createStcReturnOnError());
}

/// One-shot bufferization with ownership-based deallocation.
void buildStcBufferization(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  addRunTimeErrorChecks(pm);
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // Results the function does not own (constants, arguments) are cloned.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// The bufferizing middle of upstream's `sparsifier` pipeline
/// (sparse_tensor::buildSparsifier), with its default options.
void buildUpstreamSparsifier(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgGeneralizeNamedOpsPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  SparsificationOptions sparsification(SparseParallelizationStrategy::kNone,
                                       SparseEmitStrategy::kFunctional,
                                       /*enableRT=*/true);
  pm.addPass(createSparsificationAndBufferizationPass(
      getBufferizationOptionsForSparsification(
          /*analysisOnly=*/false),
      sparsification, /*createSparseDeallocs=*/true,
      /*enableRuntimeLibrary=*/true, /*enableBufferInitialization=*/false,
      /*vectorLength=*/0, /*enableVLAVectorization=*/false,
      /*enableSIMDIndex32=*/false, /*enableGPULibgen=*/false,
      SparseEmitStrategy::kFunctional, SparseParallelizationStrategy::kNone));
  pm.addPass(createStorageSpecifierToLLVMPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addPass(memref::createExpandReallocPass());
  // The sparsifier has placed its deallocations already: an early return
  // leaves the buffers live at that point to the process (an error path
  // only; upstream's sparse runtime objects cannot be freed from here).
  addRunTimeErrorChecks(pm);
}

struct StcBufferizePass : public stc::impl::StcBufferizeBase<StcBufferizePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager stc(ModuleOp::getOperationName());
    OpPassManager upstream(ModuleOp::getOperationName());
    buildStcBufferization(stc);
    buildUpstreamSparsifier(upstream);
    stc.getDependentDialects(registry);
    upstream.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpPassManager pm(ModuleOp::getOperationName());
    SmallVector<StringAttr> owned;
    if (holdsSparseTensors(module)) {
      owned = ownedBufferFunctions(module);
      module.emitRemark()
          << "stc: sparse tensors STC does not specialize remain: upstream's "
             "sparsifier bufferizes this module (buffers are freed where the "
             "program frees them"
          << (owned.empty() ? std::string()
                            : ", and by ownership-based deallocation in " +
                                  std::to_string(owned.size()) +
                                  " function(s) that hold none")
          << ")";
      ++numUpstreamModules;
      buildUpstreamSparsifier(pm);
    } else {
      dropExplicitDeallocations(module);
      buildStcBufferization(pm);
    }
    if (failed(runPipeline(pm, module)) ||
        (!owned.empty() && failed(deallocateOwnedBuffers(module, owned))))
      signalPassFailure();
  }

private:
  /// Ownership-based deallocation of the functions `names` of a module that
  /// upstream's pipeline bufferized: function by function, then the lowering
  /// of the deallocations for the whole module (it may add a helper).
  LogicalResult deallocateOwnedBuffers(ModuleOp module,
                                       ArrayRef<StringAttr> names) {
    OpPassManager perFunction(func::FuncOp::getOperationName());
    perFunction.addPass(createCanonicalizerPass());
    perFunction.addPass(
        bufferization::createOwnershipBasedBufferDeallocationPass());
    perFunction.addPass(createCanonicalizerPass());
    perFunction.addPass(
        bufferization::createBufferDeallocationSimplificationPass());
    SymbolTable symbols(module);
    for (StringAttr name : names)
      if (auto f = symbols.lookup<func::FuncOp>(name))
        if (failed(runPipeline(perFunction, f)))
          return failure();
    OpPassManager whole(ModuleOp::getOperationName());
    whole.addPass(bufferization::createLowerDeallocationsPass());
    whole.addPass(createCSEPass());
    whole.addPass(createCanonicalizerPass());
    whole.addPass(createConvertBufferizationToMemRefPass());
    return runPipeline(whole, module);
  }

  void dropExplicitDeallocations(ModuleOp module) {
    SmallVector<Operation *> deallocs;
    module.walk([&](Operation *op) {
      if (isa<bufferization::DeallocTensorOp, memref::DeallocOp>(op))
        deallocs.push_back(op);
    });
    for (Operation *op : deallocs)
      op->erase();
    numDeallocationsDropped += deallocs.size();
  }
};

} // namespace
