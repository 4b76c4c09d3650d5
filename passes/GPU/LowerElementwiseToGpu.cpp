//===- LowerElementwiseToGpu.cpp - elementwise linalg to GPU kernels -*- C++
//-*-//
//
// stc-lower-elementwise-to-gpu: on a GPU target, the tensor computation that
// stc-lower-spmm-to-gpu leaves (bias adds, activations, residual adds,
// transposes, broadcasts, casts, and the row reductions of softmax and
// LayerNorm) runs on the device instead of as scalar loops on the host.
//
// First, producer-consumer chains of elementwise ops with the same iteration
// space are fused into one linalg.generic by upstream's elementwise fusion
// (one kernel, no intermediate tensor), and named ops (linalg.add,
// linalg.transpose, linalg.broadcast, linalg.reduce, ...) generalized. Then
// each linalg.generic with parallel and reduction loops only, one result
// whose dimensions are the parallel loops in order, inputs read through
// projected permutations (a transpose, a broadcast) or scalars defined by
// constants, and arith and math ops only in its body, becomes
//
// - a kernel in gpu.module @stc_kernels, @stc_ew_N(ptr per input, ptr out,
//   i32 size per loop): one thread per result element, 256 per block, the
//   flat index split into the parallel loop indices, each input loaded from
//   its own row-major offset, the body cloned (for a reduction, in a loop
//   over the reduction indices that carries the result, starting from the
//   old value, or from the constant when a linalg.fill made it), the result
//   stored; math functions become polynomial approximations in arith (no
//   libdevice is needed, and the emulator runs the same code); and
// - a call of a private host function on buffers (inputs, then the result)
//   and the loop sizes, marked `stc_gpu.launches`, that stc-gpu-host-launch
//   defines after bufferization like those of the sparse kernels (the
//   kernel's `stc_gpu.elementwise` attribute tells it which body to write).
//
// A reduction thread walks its whole row: right for the rows of a
// transformer (hundreds to thousands of elements) and the pooling of a CNN,
// not fast for a long reduction over few results (a warp per row is next).
//
// An op that does not qualify stays on the host; with --remarks a remark
// says why. Why not upstream's linalg-to-parallel-loops + gpu-map-parallel-
// loops + convert-parallel-loops-to-gpu: those work on buffers, after
// bufferization, where the host/device split of the sparse kernels is
// already fixed, and they outline kernels that take memref descriptors,
// which neither the host launch code nor the emulator of this project
// speaks; the kernel here is the same shape as the sparse kernels (pointer
// and i32 parameters), so it shares their launch, residency and emulation.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelHostCall.h"
#include "passes/Passes.h"

#include "dialects/StcGpu/StcGpuDialect.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERELEMENTWISETOGPU
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Threads per block of an elementwise kernel (one element each).
constexpr int64_t kThreads = 256;

/// The math ops a kernel may keep after approximation: each lowers to an
/// NVPTX instruction or LLVM intrinsic, with no libdevice call.
bool isNativeMathOp(Operation *op) {
  return isa<math::AbsFOp, math::AbsIOp, math::SqrtOp, math::FmaOp,
             math::FloorOp, math::CeilOp, math::CopySignOp, math::RoundOp,
             math::RoundEvenOp, math::TruncOp>(op);
}

std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

class LowerElementwiseToGpu
    : public mlir::stc::impl::StcLowerElementwiseToGpuBase<
          LowerElementwiseToGpu> {
public:
  void runOnOperation() override;

private:
  /// Why `op` cannot run as an elementwise kernel, or "" if it can.
  std::string whyNot(linalg::GenericOp op);
  /// The kernel of `op` in `kernels`, or failure (the kernel erased) when
  /// its math does not lower without libdevice.
  FailureOr<gpu::GPUFuncOp>
  buildKernel(linalg::GenericOp op, gpu::GPUModuleOp kernels, StringRef name,
              ArrayRef<OpOperand *> inputs, std::string &why);
  void emitHostCall(linalg::GenericOp op, gpu::GPUFuncOp kernel,
                    gpu::GPUModuleOp kernels, ArrayRef<OpOperand *> inputs);
};

/// Generalizes the named ops (linalg.add, linalg.transpose,
/// linalg.broadcast, linalg.reduce, and the dense contractions the
/// tensor-core kernel does not take: f32, or rows not 16-byte aligned at
/// compile time, DenseGemm.h), so that fusion and lowering see generics. A
/// contraction becomes a reduction over K with one thread per result
/// element: correct everywhere, far from a tiled GEMM, and still much
/// faster than the host's scalar loops.
struct GeneralizeParallelNamedOp
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::GenericOp, linalg::FillOp>(op) ||
        !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        (op.getNumLoops() != op.getNumParallelLoops() &&
         !isa<linalg::ReduceOp>(op) && !linalg::isaContractionOpInterface(op)))
      return failure();
    return failed(linalg::generalizeNamedOp(rewriter, op)) ? failure()
                                                           : success();
  }
};

std::string LowerElementwiseToGpu::whyNot(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics())
    return "it works on buffers";
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return "it has " + std::to_string(op.getNumDpsInits()) + " results";
  if (op.getNumParallelLoops() == 0)
    return "it computes a scalar";
  // The result's dimensions are the parallel loops, in order (a reduction
  // drops the others): one thread per result element.
  OpOperand *init = op.getDpsInitOperand(0);
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (outMap.getNumResults() != parallel.size())
    return "its result is not written in loop order";
  for (auto [k, e] : llvm::enumerate(outMap.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != parallel[k])
      return "its result is not written in loop order";
  }
  for (utils::IteratorType t : op.getIteratorTypesArray())
    if (t != utils::IteratorType::parallel &&
        t != utils::IteratorType::reduction)
      return "it has a loop that is neither parallel nor a reduction";
  auto outType = cast<RankedTensorType>(init->get().getType());
  if (!outType.getElementType().isIntOrFloat() ||
      outType.getElementType().getIntOrFloatBitWidth() < 8)
    return "its result has elements of type " +
           typeString(outType.getElementType());
  for (OpOperand &operand : op->getOpOperands())
    if (auto ranked = dyn_cast<RankedTensorType>(operand.get().getType()))
      if (ranked.getEncoding())
        return "it reads a tensor with an encoding (upstream's sparsifier "
               "takes it)";
  for (OpOperand *in : op.getDpsInputOperands()) {
    Type t = in->get().getType();
    if (auto ranked = dyn_cast<RankedTensorType>(t)) {
      if (!op.getMatchingIndexingMap(in).isProjectedPermutation())
        return "an input is read at computed indices";
      if (!ranked.getElementType().isIntOrFloat() ||
          ranked.getElementType().getIntOrFloatBitWidth() < 8)
        return "an input has elements of type " +
               typeString(ranked.getElementType());
    } else if (!in->get().getDefiningOp<arith::ConstantOp>()) {
      return "a scalar input is not a constant";
    }
  }
  for (Operation &inner : op.getRegion().front().without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) &&
        !isa<linalg::IndexOp>(inner))
      return "its body has " + inner.getName().getStringRef().str();
    for (Value v : inner.getOperands())
      if (!op.getRegion().isAncestor(v.getParentRegion()) &&
          !v.getDefiningOp<arith::ConstantOp>())
        return "its body uses a value computed outside it";
  }
  return "";
}

/// The constant a linalg.fill writes into `init`, if `init` is one.
static arith::ConstantOp filledConstant(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>()
              : arith::ConstantOp();
}

FailureOr<gpu::GPUFuncOp> LowerElementwiseToGpu::buildKernel(
    linalg::GenericOp op, gpu::GPUModuleOp kernels, StringRef name,
    ArrayRef<OpOperand *> inputs, std::string &why) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  int64_t rank = op.getNumLoops();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> params(inputs.size() + 1, ptrType);
  params.append(rank, i32);
  OpBuilder kb(ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(kb, loc, name, FunctionType::get(ctx, params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  kernel->setAttr(stc_gpu::StcGpuDialect::kElementwiseAttrName,
                  UnitAttr::get(ctx));
  kernel.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr({kThreads, 1, 1}));
  Block *entry = &kernel.getBody().front();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToStart(entry);
  // Index arithmetic in i64, not `index`: a loop's index-typed block
  // argument would not survive convert-gpu-to-nvvm (which converts the
  // branches but not the arith ops that feed them).
  auto index = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, i64, v).getResult();
  };
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(arith::ExtUIOp::create(
        b, i64, entry->getArgument(inputs.size() + 1 + d)));
  auto product = [&](ArrayRef<unsigned> dims) {
    Value p = index(1);
    for (unsigned d : dims)
      p = arith::MulIOp::create(b, p, sizes[d]);
    return p;
  };
  // Splits `flat` into the indices of `dims`, the last fastest.
  SmallVector<Value> ivs(rank);
  auto split = [&](Value flat, ArrayRef<unsigned> dims) {
    for (unsigned d : llvm::reverse(dims)) {
      ivs[d] = arith::RemUIOp::create(b, flat, sizes[d]);
      flat = arith::DivUIOp::create(b, flat, sizes[d]);
    }
  };
  Value tid = arith::IndexCastUIOp::create(
      b, i64, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  Value bid = arith::IndexCastUIOp::create(
      b, i64, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value gid = arith::AddIOp::create(
      b, arith::MulIOp::create(b, bid, index(kThreads)), tid);
  Value outputs = product(parallel);
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gid, outputs);
  auto guard = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
  gpu::ReturnOp::create(b);
  b.setInsertionPointToStart(guard.thenBlock());
  split(gid, parallel);

  auto elementAt = [&](Value base, Type elementType, Value offset) {
    return LLVM::GEPOp::create(b, ptrType, elementType, base,
                               ValueRange{offset});
  };
  // Row-major offset of an operand over its own dimensions, each the loop
  // dimension its map names.
  auto offsetOf = [&](OpOperand *operand) {
    Value offset = index(0);
    for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      offset = arith::AddIOp::create(
          b, arith::MulIOp::create(b, offset, sizes[d]), ivs[d]);
    }
    return offset;
  };
  auto load = [&](unsigned k) {
    Type elementType = getElementTypeOrSelf(inputs[k]->get().getType());
    return LLVM::LoadOp::create(
        b, elementType,
        elementAt(entry->getArgument(k), elementType, offsetOf(inputs[k])));
  };

  IRMapping mapping;
  Block &body = op.getRegion().front();
  OpOperand *init = op.getDpsInitOperand(0);
  BlockArgument outArg = body.getArgument(init->getOperandNumber());
  // The result's starting value: loaded, a filled constant, or unused.
  Value start;
  for (auto [k, in] : llvm::enumerate(inputs))
    if (in == init)
      start = load(k);
  if (!start && !outArg.use_empty())
    if (arith::ConstantOp constant = filledConstant(init->get()))
      start = b.clone(*constant)->getResult(0);
  for (OpOperand *in : op.getDpsInputOperands())
    if (!isa<RankedTensorType>(in->get().getType()))
      mapping.map(body.getArgument(in->getOperandNumber()),
                  b.clone(*in->get().getDefiningOp())->getResult(0));

  // The body, once per reduction step (once with no reduction dimension),
  // the result carried from step to step.
  auto emitBody = [&](Value acc) -> Value {
    if (acc)
      mapping.map(outArg, acc);
    for (auto [k, in] : llvm::enumerate(inputs))
      if (in != init)
        mapping.map(body.getArgument(in->getOperandNumber()), load(k));
    for (Operation &inner : body.without_terminator()) {
      // Constants the body captures (elementwise fusion folds scalar
      // inputs into them) are cloned into the kernel.
      for (Value v : inner.getOperands())
        if (!op.getRegion().isAncestor(v.getParentRegion()) &&
            !mapping.contains(v))
          mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
      if (auto idx = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(idx.getResult(),
                    arith::IndexCastUIOp::create(b, b.getIndexType(),
                                                 ivs[idx.getDim()]));
        continue;
      }
      b.clone(inner, mapping);
    }
    return mapping.lookup(body.getTerminator()->getOperand(0));
  };
  Value result;
  if (reduction.empty()) {
    result = emitBody(start);
  } else {
    auto loop = scf::ForOp::create(b, index(0), product(reduction), index(1),
                                   ValueRange{start});
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    split(loop.getInductionVar(), reduction);
    scf::YieldOp::create(b, emitBody(loop.getRegionIterArg(0)));
    result = loop.getResult(0);
  }
  // The result is row-major over the parallel loops: at the flat index.
  LLVM::StoreOp::create(
      b, result,
      elementAt(entry->getArgument(inputs.size()), result.getType(), gid));

  // Math functions as arith: no libdevice to link, the same code on the
  // emulator.
  RewritePatternSet patterns(ctx);
  math::populateExpansionPatterns(patterns,
                                  {"rsqrt", "powf", "fpowi", "exp2", "sinh",
                                   "cosh", "tan", "asinh", "acosh", "atanh"});
  auto all = [](StringRef) { return true; };
  populateMathF32ExpansionPatterns(patterns, all);
  populateMathPolynomialApproximationPatterns(patterns, all);
  if (failed(applyPatternsGreedily(kernel, std::move(patterns)))) {
    why = "its math did not simplify";
    kernel.erase();
    return failure();
  }
  Operation *unsupported = nullptr;
  kernel.walk([&](Operation *inner) {
    if (isa<math::MathDialect>(inner->getDialect()) && !isNativeMathOp(inner))
      unsupported = inner;
  });
  if (unsupported) {
    why = "it uses " + unsupported->getName().getStringRef().str() +
          ", which has no GPU lowering without libdevice";
    kernel.erase();
    return failure();
  }
  return kernel;
}

void LowerElementwiseToGpu::emitHostCall(linalg::GenericOp op,
                                         gpu::GPUFuncOp kernel,
                                         gpu::GPUModuleOp kernels,
                                         ArrayRef<OpOperand *> inputs) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> tensors;
  for (OpOperand *in : inputs)
    tensors.push_back(in->get());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> resultSizes;
  Value init = op.getDpsInitOperand(0)->get();
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      resultSizes.push_back(tensor::DimOp::create(b, init, d));
  // Every loop's size (a reduction's is in no result dimension), after the
  // buffers.
  SmallVector<Value> loopSizes;
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  for (Range range : linalgOp.createLoopRanges(b, op.getLoc()))
    loopSizes.push_back(
        getValueOrCreateConstantIndexOp(b, op.getLoc(), range.size));
  replaceWithHostCall(op, kernels, kernel.getName(), tensors, resultSizes,
                      loopSizes);
}

void LowerElementwiseToGpu::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  // Named parallel ops to generics, then producer-consumer fusion of
  // elementwise chains (upstream's), outside the kernels.
  {
    RewritePatternSet patterns(ctx);
    patterns.add<GeneralizeParallelNamedOp>(ctx);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          return producer && producer->hasOneUse();
        });
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto f : module.getOps<func::FuncOp>())
      if (failed(applyPatternsGreedily(f, frozen)))
        return signalPassFailure();
  }

  SmallVector<linalg::GenericOp> generics;
  for (auto f : module.getOps<func::FuncOp>())
    f.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  unsigned next = 0;
  gpu::GPUModuleOp kernels;
  for (linalg::GenericOp op : generics) {
    std::string why = whyNot(op);
    if (!why.empty()) {
      op.emitRemark() << "stc: linalg.generic stays on the host: " << why;
      continue;
    }
    if (!kernels)
      kernels = getOrCreateKernelModule(module);
    SmallVector<OpOperand *> inputs;
    for (OpOperand *in : op.getDpsInputOperands())
      if (isa<RankedTensorType>(in->get().getType()))
        inputs.push_back(in);
    // The result's old value, when the body reads it, is one more input,
    // unless a linalg.fill of a constant made it (the kernel starts from
    // the constant: no fill, no copy).
    OpOperand *init = op.getDpsInitOperand(0);
    if (op.payloadUsesValueFromOperand(init) && !filledConstant(init->get()))
      inputs.push_back(init);
    std::string name = "stc_ew_" + std::to_string(next++);
    while (SymbolTable::lookupSymbolIn(kernels, name) ||
           module.lookupSymbol(name + "_host"))
      name = "stc_ew_" + std::to_string(next++);
    FailureOr<gpu::GPUFuncOp> kernel =
        buildKernel(op, kernels, name, inputs, why);
    if (failed(kernel)) {
      op.emitRemark() << "stc: linalg.generic stays on the host: " << why;
      continue;
    }
    op.emitRemark() << "stc: "
                    << (op.getNumReductionLoops() ? "reduction" : "elementwise")
                    << " linalg.generic runs on the GPU as @" << name;
    emitHostCall(op, *kernel, kernels, inputs);
  }
}

} // namespace
