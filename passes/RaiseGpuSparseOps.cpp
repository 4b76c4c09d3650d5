//===- RaiseGpuSparseOps.cpp - upstream gpu 2:4 ops to stc.spmm -*- C++ -*-===//
//
// Upstream's cuSPARSELt path (`gpu.create_2to4_spmat`, `gpu.create_dn_tensor`,
// `gpu.spmm_buffer_size`, `gpu.spmm`, the destroy ops and their async
// tokens) describes one product C += op(A) * op(B) over device buffers. STC
// raises each `gpu.spmm` back to tensors,
//
//   to_tensor(A) [-> stc.prune -> materialize_in_destination A]
//   -> stc.compress -> stc.spmm(.., B, acc C) -> materialize_in_destination C
//
// so that the ordinary pipeline takes it: STC's CPU kernel, or its GPU
// kernel with its own host launch (which allocates the device buffers and
// copies), or the emulator. The memory ops around (gpu.alloc, gpu.memcpy,
// gpu.memset, gpu.dealloc, gpu.wait) become host memref ops and the tokens
// disappear: the program's "device" buffers are host buffers STC's launch
// copies from. That is why a module that also launches its own GPU kernels
// is refused, as is every sparse op of the family STC has no kernel for.
// The cuSPARSELt handle set-up (llvm.call @mgpuCreateSparseLtEnv /
// @mgpuDestroySparseLtEnv) has nothing to do and is removed.
//
// Semantics kept from the runtime wrappers upstream lowers these ops to:
// alpha = beta = 1 (C accumulates), the 2:4 groups run along the reduction
// dimension of op(A), and PRUNE_ONLY / PRUNE_AND_CHECK prune A in place (by
// magnitude, STC's tie rule; the check cannot fail after pruning). With
// NONE, A must already be 2:4: stc.compress checks it at run time.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCRAISEGPUSPARSEOPS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// The ops of the family STC runs.
bool isSupportedSparseOp(Operation *op) {
  return isa<gpu::Create2To4SpMatOp, gpu::CreateDnTensorOp,
             gpu::SpMMBufferSizeOp, gpu::SpMMOp, gpu::DestroySpMatOp,
             gpu::DestroyDnTensorOp>(op);
}

/// The ops of the family STC has no kernel for.
bool isUnsupportedSparseOp(Operation *op) {
  return isa<gpu::CreateCooOp, gpu::CreateCooAoSOp, gpu::CreateCsrOp,
             gpu::CreateCscOp, gpu::CreateBsrOp, gpu::SpMVBufferSizeOp,
             gpu::SpMVOp, gpu::SDDMMBufferSizeOp, gpu::SDDMMOp,
             gpu::SpGEMMCreateDescrOp, gpu::SpGEMMDestroyDescrOp,
             gpu::SpGEMMWorkEstimationOrComputeOp, gpu::SpGEMMCopyOp,
             gpu::SpMatGetSizeOp, gpu::SetCsrPointersOp>(op);
}

/// The memory and synchronisation ops that move to the host.
bool isMemoryOp(Operation *op) {
  return isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::MemsetOp,
             gpu::WaitOp>(op);
}

bool isSparseLtEnvCall(Operation *op) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  std::optional<StringRef> callee = call ? call.getCallee() : std::nullopt;
  return callee && (*callee == "mgpuCreateSparseLtEnv" ||
                    *callee == "mgpuDestroySparseLtEnv");
}

/// A matrix operand: a 2-D identity-layout view of the buffer a handle was
/// made from, and the handle's sizes.
struct Matrix {
  Value buffer;
  Value rows, cols;
};

class Raiser {
public:
  explicit Raiser(ModuleOp module) : module(module) {}

  LogicalResult run();
  int64_t numRaised = 0;

private:
  /// The cuSPARSELt handle set-up has nothing to do in STC.
  void removeSparseLtSetUp();
  LogicalResult checkTokensAndHandles(ArrayRef<Operation *> ops);
  LogicalResult moveToHost(Operation *op);
  LogicalResult raise(gpu::SpMMOp op);
  FailureOr<Value> matrixView(OpBuilder &b, Operation *where, StringRef what,
                              Value buffer, Value rows, Value cols);

  ModuleOp module;
};

LogicalResult Raiser::run() {
  SmallVector<Operation *> ops;
  bool failedAny = false;
  Operation *firstSparse = nullptr;
  module.walk([&](Operation *op) {
    if (op->getParentOfType<gpu::GPUModuleOp>())
      return;
    if (isUnsupportedSparseOp(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is not supported: STC runs the gpu sparse ops on "
                         "2:4 matrices only (gpu.create_2to4_spmat, "
                         "gpu.create_dn_tensor, gpu.spmm_buffer_size, "
                         "gpu.spmm, gpu.destroy_sp_mat, "
                         "gpu.destroy_dn_tensor)";
      failedAny = true;
    }
    if (isSupportedSparseOp(op) && !firstSparse)
      firstSparse = op;
    if (isSupportedSparseOp(op) || isMemoryOp(op))
      ops.push_back(op);
  });
  if (failedAny)
    return failure();
  removeSparseLtSetUp();
  if (!firstSparse)
    return success();
  Operation *kernel = nullptr;
  module.walk([&](Operation *op) {
    if (!kernel && isa<gpu::LaunchFuncOp, gpu::LaunchOp>(op))
      kernel = op;
  });
  if (kernel) {
    InFlightDiagnostic diag = firstSparse->emitError()
                              << "stc: '" << firstSparse->getName()
                              << "' runs on STC's kernels, whose launch "
                                 "manages device memory itself; this module "
                                 "also launches its own GPU kernels, which "
                                 "STC cannot combine with them";
    diag.attachNote(kernel->getLoc()) << "GPU kernel launched here";
    return failure();
  }
  if (failed(checkTokensAndHandles(ops)))
    return failure();
  for (Operation *op : ops) {
    if (auto spmm = dyn_cast<gpu::SpMMOp>(op)) {
      if (failed(raise(spmm)))
        return failure();
    } else if (isMemoryOp(op) && failed(moveToHost(op))) {
      return failure();
    }
  }
  // Users come after producers in the walk: erase from the end.
  for (Operation *op : llvm::reverse(ops)) {
    if (auto size = dyn_cast<gpu::SpMMBufferSizeOp>(op)) {
      // STC needs no workspace; 1 keeps the program's allocations non-empty.
      OpBuilder b(op);
      Value one = arith::ConstantIndexOp::create(b, op->getLoc(), 1);
      for (Value v : size.getBufferSzs())
        v.replaceAllUsesWith(one);
    }
    op->dropAllUses();
    op->erase();
  }
  return success();
}

void Raiser::removeSparseLtSetUp() {
  SmallVector<Operation *> calls;
  module.walk([&](Operation *op) {
    if (isSparseLtEnvCall(op))
      calls.push_back(op);
  });
  for (Operation *op : calls)
    op->erase();
  for (StringRef name : {"mgpuCreateSparseLtEnv", "mgpuDestroySparseLtEnv"})
    if (auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      if (SymbolTable::symbolKnownUseEmpty(decl, module))
        decl.erase();
}

LogicalResult Raiser::checkTokensAndHandles(ArrayRef<Operation *> ops) {
  llvm::SmallPtrSet<Operation *, 16> handled(ops.begin(), ops.end());
  for (Operation *op : ops) {
    for (Value result : op->getResults()) {
      if (isa<MemRefType, IndexType>(result.getType()))
        continue;
      for (Operation *user : result.getUsers()) {
        if (handled.contains(user))
          continue;
        return op->emitError()
               << "stc: the " << result.getType() << " of '" << op->getName()
               << "' is used by '" << user->getName()
               << "'; STC runs the gpu sparse ops synchronously and needs "
                  "their tokens and handles used by gpu ops only";
      }
    }
  }
  return success();
}

LogicalResult Raiser::moveToHost(Operation *op) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
    MemRefType type = alloc.getMemref().getType();
    if (type.getMemorySpace())
      return op->emitError("stc: gpu.alloc in memory space ")
             << type.getMemorySpace()
             << " cannot become a host buffer (STC's launch copies host "
                "buffers to the device)";
    Value host = memref::AllocOp::create(b, loc, type, alloc.getDynamicSizes(),
                                         alloc.getSymbolOperands());
    alloc.getMemref().replaceAllUsesWith(host);
  } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
    memref::DeallocOp::create(b, loc, dealloc.getMemref());
  } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
    memref::CopyOp::create(b, loc, copy.getSrc(), copy.getDst());
  } else if (auto set = dyn_cast<gpu::MemsetOp>(op)) {
    linalg::FillOp::create(b, loc, ValueRange{set.getValue()},
                           ValueRange{set.getDst()});
  }
  // gpu.wait: everything runs in program order already.
  return success();
}

FailureOr<Value> Raiser::matrixView(OpBuilder &b, Operation *where,
                                    StringRef what, Value buffer, Value rows,
                                    Value cols) {
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.getLayout().isIdentity() || type.getMemorySpace() ||
      (type.getRank() != 1 && type.getRank() != 2))
    return where->emitError() << "stc: the " << what << " must be a 1-D or "
                              << "2-D memref with the identity layout in the "
                                 "default memory space, got "
                              << type;
  if (type.getRank() == 2) {
    std::optional<int64_t> r = getConstantIntValue(rows);
    std::optional<int64_t> c = getConstantIntValue(cols);
    auto differs = [](std::optional<int64_t> v, int64_t size) {
      return v && !ShapedType::isDynamic(size) && *v != size;
    };
    if (differs(r, type.getDimSize(0)) || differs(c, type.getDimSize(1)))
      return where->emitError()
             << "stc: the " << what << " is declared "
             << (r ? std::to_string(*r) : "?") << " x "
             << (c ? std::to_string(*c) : "?") << " but its buffer is " << type;
    return buffer;
  }
  // A flat buffer holds the matrix row-major (cuSPARSELt's ld = cols).
  SmallVector<OpFoldResult> shape = {getAsOpFoldResult(rows),
                                     getAsOpFoldResult(cols)};
  SmallVector<int64_t> staticShape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(shape, dynamic, staticShape);
  auto viewType = MemRefType::get(staticShape, type.getElementType());
  return memref::ExpandShapeOp::create(b, where->getLoc(), viewType, buffer,
                                       ArrayRef<ReassociationIndices>{{0, 1}},
                                       shape)
      .getResult();
}

/// Whether STC has a 2:4 kernel for A, B of `operand` and C of `result`.
bool isSupportedCombination(Type operand, Type result) {
  if (operand.isF16() || operand.isBF16() || operand.isF32())
    return result.isF16() || result.isBF16() || result.isF32();
  return operand.isInteger(8) && result.isInteger(32);
}

LogicalResult Raiser::raise(gpu::SpMMOp op) {
  auto create = op.getSpmatA().getDefiningOp<gpu::Create2To4SpMatOp>();
  auto dnB = op.getDnmatB().getDefiningOp<gpu::CreateDnTensorOp>();
  auto dnC = op.getDnmatC().getDefiningOp<gpu::CreateDnTensorOp>();
  if (!create)
    return op.emitError("stc: gpu.spmm needs its sparse matrix from "
                        "gpu.create_2to4_spmat (STC runs 2:4 matrices only)");
  if (!dnB || !dnC || dnB.getDims().size() != 2 || dnC.getDims().size() != 2)
    return op.emitError("stc: gpu.spmm needs its dense operands from "
                        "gpu.create_dn_tensor with two sizes (matrices)");
  if (op.getModeA() == gpu::TransposeMode::CONJUGATE_TRANSPOSE ||
      op.getModeB() == gpu::TransposeMode::CONJUGATE_TRANSPOSE)
    return op.emitError("stc: gpu.spmm with CONJUGATE_TRANSPOSE is not "
                        "supported (real matrices: NON_TRANSPOSE or "
                        "TRANSPOSE)");
  OpBuilder b(op);
  Location loc = op.getLoc();
  FailureOr<Value> a = matrixView(b, create, "2:4 matrix", create.getMemref(),
                                  create.getRows(), create.getCols());
  FailureOr<Value> bMat = matrixView(b, dnB, "dense matrix", dnB.getMemref(),
                                     dnB.getDims()[0], dnB.getDims()[1]);
  FailureOr<Value> c = matrixView(b, dnC, "dense matrix", dnC.getMemref(),
                                  dnC.getDims()[0], dnC.getDims()[1]);
  if (failed(a) || failed(bMat) || failed(c))
    return failure();
  auto aType = cast<MemRefType>(a->getType());
  auto bType = cast<MemRefType>(bMat->getType());
  auto cType = cast<MemRefType>(c->getType());
  Type elementType = aType.getElementType();
  if (elementType != bType.getElementType() ||
      !isSupportedCombination(elementType, cType.getElementType()))
    return op.emitError() << "stc: gpu.spmm: STC's 2:4 kernels take f16, "
                             "bf16 or f32 matrices A and B (with an f16, "
                             "bf16 or f32 C) or i8 ones (with an i32 C), got "
                          << elementType << ", " << bType.getElementType()
                          << " and " << cType.getElementType();
  // The reduction runs along A's columns, or its rows when transposed.
  bool aTransposed = op.getModeA() == gpu::TransposeMode::TRANSPOSE;
  bool bTransposed = op.getModeB() == gpu::TransposeMode::TRANSPOSE;
  int64_t aK = aTransposed ? 0 : 1;
  int64_t m = aType.getDimSize(1 - aK), k = aType.getDimSize(aK);
  int64_t bK = bTransposed ? bType.getDimSize(1) : bType.getDimSize(0);
  int64_t n = bTransposed ? bType.getDimSize(0) : bType.getDimSize(1);
  auto conflict = [](int64_t x, int64_t y) {
    return !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y;
  };
  if (conflict(k, bK) || conflict(m, cType.getDimSize(0)) ||
      conflict(n, cType.getDimSize(1))) {
    auto size = [](int64_t v) {
      return ShapedType::isDynamic(v) ? std::string("?") : std::to_string(v);
    };
    return op.emitError() << "stc: gpu.spmm: op(A) is " << size(m) << " x "
                          << size(k) << ", op(B) " << size(bK) << " x "
                          << size(n) << " and C " << size(cType.getDimSize(0))
                          << " x " << size(cType.getDimSize(1));
  }

  MLIRContext *ctx = op.getContext();
  auto tensorOf = [](MemRefType t) {
    return RankedTensorType::get(t.getShape(), t.getElementType());
  };
  auto pattern = NMPatternAttr::get(ctx, 2, 4);
  Value aTensor =
      bufferization::ToTensorOp::create(b, loc, tensorOf(aType), *a,
                                        /*restrict=*/true, /*writable=*/true);
  if (create.getPruneFlag() != gpu::Prune2To4SpMatFlag::NONE) {
    aTensor = PruneOp::create(b, loc, aTensor, pattern, b.getI64IntegerAttr(aK),
                              PruneMethodAttr::get(ctx, PruneMethod::strip),
                              UnitAttr());
    // cuSPARSELt prunes the device buffer in place.
    bufferization::MaterializeInDestinationOp::create(
        b, loc, /*result=*/Type(), aTensor, *a, /*restrict=*/true,
        /*writable=*/true);
  }
  auto sparseType = cast<RankedTensorType>(aTensor.getType());
  int64_t rows = sparseType.getDimSize(1 - aK);
  bool dynamicK = ShapedType::isDynamic(k);
  auto valuesType = RankedTensorType::get(
      {rows, dynamicK ? ShapedType::kDynamic : pattern.getValuesPerRow(k)},
      elementType);
  auto metaType = RankedTensorType::get(
      {rows, dynamicK ? ShapedType::kDynamic : pattern.getMetaWordsPerRow(k)},
      b.getI16Type());
  auto compress = CompressOp::create(b, loc, valuesType, metaType, aTensor,
                                     pattern, b.getI64IntegerAttr(aK));
  Value bTensor =
      bufferization::ToTensorOp::create(b, loc, tensorOf(bType), *bMat,
                                        /*restrict=*/true, /*writable=*/false);
  Value cTensor =
      bufferization::ToTensorOp::create(b, loc, tensorOf(cType), *c,
                                        /*restrict=*/true, /*writable=*/true);
  // An i32 result is stc.spmm's exact accumulator, without an epilogue: C
  // is added after the product.
  bool integer = cType.getElementType().isInteger(32);
  auto spmm = SpmmOp::create(b, loc, cTensor.getType(), compress.getValues(),
                             compress.getMeta(), bTensor, /*bias=*/Value(),
                             /*acc=*/integer ? Value() : cTensor,
                             /*scale=*/Value(), pattern,
                             SparseOperandAttr::get(ctx, SparseOperand::lhs),
                             b.getBoolAttr(bTransposed), b.getF64FloatAttr(1.0),
                             b.getF64FloatAttr(integer ? 0.0 : 1.0),
                             ActivationAttr::get(ctx, Activation::none));
  Value result = spmm.getResult();
  if (integer) {
    Value empty = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, cTensor), cType.getElementType());
    result = linalg::AddOp::create(b, loc, ValueRange{result, cTensor},
                                   ValueRange{empty})
                 .getResult(0);
  }
  bufferization::MaterializeInDestinationOp::create(
      b, loc, /*result=*/Type(), result, *c, /*restrict=*/true,
      /*writable=*/true);
  op.emitRemark() << "stc: gpu.spmm on a 2:4 matrix runs on STC's kernels "
                     "(stc.spmm, "
                  << (create.getPruneFlag() == gpu::Prune2To4SpMatFlag::NONE
                          ? "A checked to be 2:4"
                          : "A pruned in place")
                  << "); its device buffers are host buffers STC copies";
  ++numRaised;
  return success();
}

struct StcRaiseGpuSparseOpsPass
    : public stc::impl::StcRaiseGpuSparseOpsBase<StcRaiseGpuSparseOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    Raiser raiser(getOperation());
    if (failed(raiser.run()))
      return signalPassFailure();
    numSpmmRaised += raiser.numRaised;
  }
};

} // namespace
