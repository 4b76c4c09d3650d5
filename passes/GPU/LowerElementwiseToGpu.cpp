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
// (one kernel, no intermediate tensor; a producer with several consumers is
// recomputed in each where that reads fewer bytes, recomputeOrFuse), and
// named ops (linalg.add, linalg.transpose, linalg.broadcast, linalg.reduce,
// dense contractions and convolutions ...) generalized. Then
// each linalg.generic with parallel and reduction loops only, one result
// whose dimensions are the parallel loops in order, inputs read through
// projected permutations (a transpose, a broadcast) or linear index
// expressions into dimensions of static size (a convolution's sliding
// window, oh * stride + kh), or scalars defined by constants, and arith and
// math ops only in its body, becomes
//
// - a kernel in gpu.module @stc_kernels, @stc_ew_N(ptr per input, ptr out,
//   i32 size per loop): one thread per result element (for an op with no
//   reduction whose inputs are contiguous along the innermost loop or do
//   not depend on it, up to 8 adjacent elements a thread: a vector load per
//   input, a vector store, element by element where a pointer is not
//   aligned for them), 256 per block, the
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
// A reduction whose body combines the result with one new value by an
// associative op (add, multiply, max, min) over rows of at least 64 (or a
// dynamic number of) elements runs a block per result element instead:
// its threads stride over the row, adjacent threads reading adjacent
// elements, then combine their partial values in a tree in shared memory,
// and thread 0 adds the starting value and stores the result (the floating-
// point sums are reassociated, as on every GPU). Other reductions, and
// short rows, keep one thread per result walking its row.
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
#include "passes/GPU/ElementwiseBody.h"
#include "passes/GPU/KernelHostCall.h"
#include "passes/GPU/RowKernel.h"
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <functional>

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
  /// Replaces `op` by a call of its kernel's host function on `inputs`
  /// (the tensors the kernel reads, a folded padding's source for its
  /// result); for a row kernel, `op` is the group's consumer.
  void emitHostCall(linalg::GenericOp op, gpu::GPUFuncOp kernel,
                    gpu::GPUModuleOp kernels, ArrayRef<Value> inputs,
                    bool rowKernel = false);
};

/// Generalizes the named ops (linalg.add, linalg.transpose,
/// linalg.broadcast, linalg.reduce, and the dense contractions the
/// tensor-core kernel does not take: f32, or rows not 16-byte aligned at
/// compile time, DenseGemm.h), and dense convolutions (no 2:4 filter: no
/// implicit-GEMM kernel), so that fusion and lowering see generics. A
/// contraction or convolution becomes a reduction with one thread (or
/// block) per result element: correct everywhere, far from a tiled GEMM
/// or cuDNN, and still much faster than the host's scalar loops.
struct GeneralizeParallelNamedOp
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    StringRef name = op->getName().getStringRef();
    bool convolution = name.starts_with("linalg.conv_") ||
                       name.starts_with("linalg.depthwise_conv_");
    if (isa<linalg::GenericOp, linalg::FillOp>(op) ||
        !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        (op.getNumLoops() != op.getNumParallelLoops() &&
         !isa<linalg::ReduceOp>(op) && !linalg::isaContractionOpInterface(op) &&
         !convolution))
      return failure();
    return failed(linalg::generalizeNamedOp(rewriter, op)) ? failure()
                                                           : success();
  }
};

/// Whether `e` is a sum of loop indices times constants (and constants).
static bool isLinearIndex(AffineExpr e) {
  if (isa<AffineDimExpr, AffineConstantExpr>(e))
    return true;
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (e.getKind() == AffineExprKind::Add)
    return isLinearIndex(bin.getLHS()) && isLinearIndex(bin.getRHS());
  if (e.getKind() == AffineExprKind::Mul)
    return (isa<AffineConstantExpr>(bin.getLHS()) ||
            isa<AffineConstantExpr>(bin.getRHS())) &&
           isLinearIndex(bin.getLHS()) && isLinearIndex(bin.getRHS());
  return false;
}

/// Whether the kernel can read an input of `type` through `map`: a
/// projected permutation (the loop's own indices: transposes, broadcasts),
/// or linear index expressions (a convolution's sliding windows) into
/// dimensions whose size is static (any size for the leading one).
static bool isReadableMap(AffineMap map, RankedTensorType type) {
  if (map.getNumSymbols() != 0)
    return false;
  if (map.isProjectedPermutation())
    return true;
  for (auto [k, e] : llvm::enumerate(map.getResults()))
    if (!isLinearIndex(e) ||
        (!isa<AffineDimExpr>(e) && k != 0 && type.isDynamicDim(k)))
      return false;
  return true;
}

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
      if (!isReadableMap(op.getMatchingIndexingMap(in), ranked))
        return "an input is read at computed indices other than sums of "
               "loop indices times constants into dimensions of static size";
      if (!ranked.getElementType().isIntOrFloat() ||
          ranked.getElementType().getIntOrFloatBitWidth() < 8)
        return "an input has elements of type " +
               typeString(ranked.getElementType());
    } else if (!in->get().getDefiningOp<arith::ConstantOp>()) {
      return "a scalar input is not a constant";
    }
  }
  for (Operation &inner : op.getRegion().front()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) &&
        !isa<linalg::IndexOp, linalg::YieldOp>(inner))
      return "its body has " + inner.getName().getStringRef().str();
    for (Value v : inner.getOperands())
      if (!op.getRegion().isAncestor(v.getParentRegion()) &&
          !v.getDefiningOp<arith::ConstantOp>())
        return "its body uses a value computed outside it";
  }
  return "";
}

/// Threads of a block that reduces one row of `rows` elements (-1:
/// dynamic): a power of two from 32 (one warp) to kThreads, about the row;
/// 0 when a row is too short to share (one thread per result then).
static int64_t rowReductionThreads(int64_t rowLength) {
  constexpr int64_t kMinRow = 64;
  if (rowLength < 0)
    return kThreads;
  if (rowLength < kMinRow)
    return 0;
  return std::min<int64_t>(kThreads, llvm::PowerOf2Ceil(rowLength));
}

/// Whether `in` (an input of the all-parallel `op`) is read contiguously
/// along the innermost loop: its last dimension is that loop, of the
/// loop's static size, and no other dimension depends on it. Then the
/// elements a thread computes along the loop are adjacent in memory.
static bool isContiguousAlongInnermost(linalg::GenericOp op, OpOperand *in,
                                       int64_t innerSize) {
  unsigned inner = op.getNumLoops() - 1;
  AffineMap map = op.getMatchingIndexingMap(in);
  auto type = cast<RankedTensorType>(in->get().getType());
  if (map.getNumResults() == 0 ||
      map.getResults().back() != getAffineDimExpr(inner, op.getContext()) ||
      type.getShape().back() != innerSize)
    return false;
  return llvm::none_of(map.getResults().drop_back(),
                       [&](AffineExpr e) { return e.isFunctionOfDim(inner); });
}

/// Elements of the innermost loop that each thread of an all-parallel
/// kernel computes, loading and storing them as one vector: 16 bytes of
/// the narrowest element (at most 8 elements), halved until it divides the
/// loop's static size; 1 (one element a thread) when an input is read
/// through a padding or along the loop in another order (a transpose that
/// moves the innermost dimension, a window). An input that does not depend
/// on the loop (a bias along another dimension, a scalar) is loaded once.
static int64_t vectorWidth(linalg::GenericOp op, ArrayRef<OpOperand *> inputs) {
  if (op.getNumReductionLoops() != 0)
    return 1;
  unsigned inner = op.getNumLoops() - 1;
  int64_t innerSize = op.getStaticLoopRanges()[inner];
  if (ShapedType::isDynamic(innerSize))
    return 1;
  int64_t narrowest =
      getElementTypeOrSelf(op->getResult(0).getType()).getIntOrFloatBitWidth() /
      8;
  for (OpOperand *in : inputs) {
    if (foldablePad(in->get()))
      return 1;
    if (!op.getMatchingIndexingMap(in).isFunctionOfDim(inner))
      continue;
    if (!isContiguousAlongInnermost(op, in, innerSize))
      return 1;
    narrowest = std::min<int64_t>(
        narrowest,
        getElementTypeOrSelf(in->get().getType()).getIntOrFloatBitWidth() / 8);
  }
  int64_t width = std::min<int64_t>(8, 16 / std::max<int64_t>(narrowest, 1));
  while (width > 1 && innerSize % width != 0)
    width /= 2;
  return width;
}

/// The body of an all-parallel kernel whose thread computes the `width`
/// elements from the flat result index `first` (their innermost loop
/// indices em.ivs[inner] + 0 .. width - 1): where every pointer it reads
/// or writes along the loop is aligned for it, one vector load per such
/// input, the body once per element, one vector store; otherwise (a
/// caller's device pointer into the middle of a buffer) element by element.
static void emitVectorizedBody(BodyEmitter &em, linalg::GenericOp op,
                               ArrayRef<OpOperand *> inputs, Block *entry,
                               Value first, int64_t width, Value start) {
  ImplicitLocOpBuilder &b = em.b;
  MLIRContext *ctx = op.getContext();
  unsigned inner = op.getNumLoops() - 1;
  Value innerBase = em.ivs[inner];
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Value out = entry->getArgument(inputs.size());
  Type outType = getElementTypeOrSelf(op->getResult(0).getType());
  // Bytes a vector access of `type` must be aligned to.
  auto alignmentOf = [&](Type type) {
    return std::min<int64_t>(16, width * type.getIntOrFloatBitWidth() / 8);
  };
  SmallVector<bool> alongLoop;
  Value aligned = arith::ConstantIntOp::create(b, 1, 1);
  auto checkAligned = [&](Value pointer, Type type) {
    Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), pointer);
    Value low =
        arith::AndIOp::create(b, address, em.index(alignmentOf(type) - 1));
    aligned = arith::AndIOp::create(
        b, aligned,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, low, em.index(0)));
  };
  for (auto [k, in] : llvm::enumerate(inputs)) {
    alongLoop.push_back(op.getMatchingIndexingMap(in).isFunctionOfDim(inner));
    if (alongLoop.back())
      checkAligned(entry->getArgument(k),
                   getElementTypeOrSelf(in->get().getType()));
  }
  checkAligned(out, outType);
  auto ifAligned = scf::IfOp::create(b, aligned, /*withElseRegion=*/true);
  auto index32 = [&](int64_t j) {
    return arith::ConstantIntOp::create(b, b.getI32Type(), j).getResult();
  };
  {
    // Vectors: each input along the loop loaded once, the others (the
    // same value for the thread's elements) once too.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifAligned.thenBlock());
    SmallVector<Value> loaded;
    for (auto [k, in] : llvm::enumerate(inputs)) {
      Type type = getElementTypeOrSelf(in->get().getType());
      if (!alongLoop[k]) {
        loaded.push_back(em.load(op, in, entry->getArgument(k)));
        continue;
      }
      // em.load at the first element's indices, as a vector.
      Value scalarAt = em.load(op, in, entry->getArgument(k));
      auto scalarLoad = scalarAt.getDefiningOp<LLVM::LoadOp>();
      auto vector =
          LLVM::LoadOp::create(b, VectorType::get({width}, type),
                               scalarLoad.getAddr(), alignmentOf(type));
      scalarLoad.erase();
      loaded.push_back(vector);
    }
    Value results =
        LLVM::PoisonOp::create(b, VectorType::get({width}, outType));
    for (int64_t j = 0; j < width; ++j) {
      em.ivs[inner] = arith::AddIOp::create(b, innerBase, em.index(j));
      auto valueOf = [&](OpOperand *in) -> Value {
        auto it = llvm::find(inputs, in);
        if (it == inputs.end())
          return start; // a filled constant
        unsigned k = it - inputs.begin();
        if (!alongLoop[k])
          return loaded[k];
        return LLVM::ExtractElementOp::create(b, loaded[k], index32(j));
      };
      results = LLVM::InsertElementOp::create(
          b, results, em.emitBody(op, valueOf), index32(j));
    }
    LLVM::StoreOp::create(
        b, results,
        LLVM::GEPOp::create(b, ptrType, outType, out, ValueRange{first}),
        alignmentOf(outType));
  }
  {
    // Element by element, as a kernel of one element a thread.
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifAligned.elseBlock());
    auto loop =
        scf::ForOp::create(b, em.index(0), em.index(width), em.index(1));
    b.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    em.ivs[inner] = arith::AddIOp::create(b, innerBase, j);
    Value result = em.emitBody(op, [&](OpOperand *in) -> Value {
      auto it = llvm::find(inputs, in);
      if (it == inputs.end())
        return start;
      return em.load(op, in, entry->getArgument(it - inputs.begin()));
    });
    LLVM::StoreOp::create(
        b, result,
        LLVM::GEPOp::create(b, ptrType, outType, out,
                            ValueRange{arith::AddIOp::create(b, first, j)}));
  }
}

FailureOr<gpu::GPUFuncOp> LowerElementwiseToGpu::buildKernel(
    linalg::GenericOp op, gpu::GPUModuleOp kernels, StringRef name,
    ArrayRef<OpOperand *> inputs, std::string &why) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  int64_t rank = op.getNumLoops();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  gpu::GPUFuncOp kernel =
      createElementwiseKernel(kernels, loc, name, inputs.size(), rank);
  OpBuilder kb(ctx);
  // A reduction with an associative combiner over long enough rows: a
  // block per result element, its threads striding over the row (adjacent
  // threads, adjacent elements) and combining in shared memory. A thread
  // walking a whole row alone reads it one element at a time, each of a
  // warp's threads from another row.
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  Operation *combiner = reduction.empty() ? nullptr : reductionCombiner(op);
  int64_t rowLength = 1;
  SmallVector<int64_t> staticRanges = op.getStaticLoopRanges();
  for (unsigned d : reduction)
    rowLength = ShapedType::isDynamic(staticRanges[d]) || rowLength < 0
                    ? -1
                    : rowLength * staticRanges[d];
  int64_t blockThreads = combiner ? rowReductionThreads(rowLength) : 0;
  if (blockThreads)
    kernel->setAttr(stc_gpu::StcGpuDialect::kBlockPerElementAttrName,
                    UnitAttr::get(ctx));
  kernel.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr(
      {static_cast<int32_t>(blockThreads ? blockThreads : kThreads), 1, 1}));
  Block *entry = &kernel.getBody().front();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToStart(entry);
  BodyEmitter em(b, rank);
  // With the sizes as parameters, the exp step of a BERT layer's softmax
  // (no reduction: one thread per element) did three 64-bit divisions per
  // element and took 37 us for 6.3 M f32 elements, 50 MB read and written:
  // 1.4 TB/s of the H200's 4.8 (session 10's Nsight Compute profile). The
  // parameters stay (the host passes them either way).
  em.setSizes(staticRanges, kernel, inputs.size() + 1);
  Value tid = arith::IndexCastUIOp::create(
      b, i64, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  Value bid = arith::IndexCastUIOp::create(
      b, i64, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value gid =
      blockThreads
          ? bid
          : arith::AddIOp::create(
                b, arith::MulIOp::create(b, bid, em.index(kThreads)), tid)
                .getResult();
  // Elements per thread along the innermost loop (vectors), for the
  // kernels with no reduction.
  int64_t width = reduction.empty() ? vectorWidth(op, inputs) : 1;
  if (width > 1)
    kernel->setAttr(stc_gpu::StcGpuDialect::kElementsPerThreadAttrName,
                    kb.getI64IntegerAttr(width));
  Value outputs = em.product(parallel);
  if (width > 1)
    outputs = arith::DivUIOp::create(b, outputs, em.index(width));
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, gid, outputs);
  auto guard = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
  gpu::ReturnOp::create(b);
  b.setInsertionPointToStart(guard.thenBlock());
  Value first = width > 1
                    ? arith::MulIOp::create(b, gid, em.index(width)).getResult()
                    : gid;
  em.split(first, parallel);

  OpOperand *init = op.getDpsInitOperand(0);
  auto loadInput = [&](OpOperand *in) {
    unsigned k = llvm::find(inputs, in) - inputs.begin();
    return em.load(op, in, entry->getArgument(k));
  };
  // The result's starting value: loaded, a filled constant, or unused.
  Value start;
  if (width > 1) {
    if (!llvm::is_contained(inputs, init) &&
        op.payloadUsesValueFromOperand(init))
      if (arith::ConstantOp constant = filledConstant(init->get()))
        start = b.clone(*constant)->getResult(0);
    emitVectorizedBody(em, op, inputs, entry, first, width, start);
    if (failed(expandKernelMath(kernel, why))) {
      eraseKernel(kernels, kernel);
      return failure();
    }
    return kernel;
  }
  if (llvm::is_contained(inputs, init))
    start = loadInput(init);
  else if (op.payloadUsesValueFromOperand(init))
    if (arith::ConstantOp constant = filledConstant(init->get()))
      start = b.clone(*constant)->getResult(0);
  // The body, once per reduction step (once with no reduction dimension),
  // the result carried from step to step.
  auto emitBody = [&](Value acc) {
    return em.emitBody(
        op, [&](OpOperand *in) { return in == init ? acc : loadInput(in); });
  };
  Value result;
  if (reduction.empty()) {
    result = emitBody(start);
  } else if (blockThreads) {
    // Each thread combines the elements tid, tid + threads, ... of the row
    // from the identity; then a tree in shared memory; thread 0 combines
    // the row's value with the start and stores it.
    Type type = start.getType();
    auto loop = scf::ForOp::create(b, tid, em.product(reduction),
                                   em.index(blockThreads),
                                   ValueRange{identityOf(b, combiner, type)});
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(loop.getBody());
      em.split(loop.getInductionVar(), reduction);
      scf::YieldOp::create(b, emitBody(loop.getRegionIterArg(0)));
    }
    OpBuilder gb(kernels.getBodyRegion());
    gb.setInsertionPointToStart(kernels.getBody());
    auto partials = LLVM::GlobalOp::create(
        gb, loc, LLVM::LLVMArrayType::get(type, blockThreads),
        /*isConstant=*/false, LLVM::Linkage::Internal,
        (name + "_partials").str(), Attribute(), /*alignment=*/16,
        /*addrSpace=*/3);
    auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
    Value smem =
        LLVM::AddressOfOp::create(b, sharedPtr, partials.getSymNameAttr());
    auto slot = [&](Value i) {
      return LLVM::GEPOp::create(b, sharedPtr, type, smem, ValueRange{i});
    };
    LLVM::StoreOp::create(b, loop.getResult(0), slot(tid));
    gpu::BarrierOp::create(b);
    for (int64_t half = blockThreads / 2; half > 0; half /= 2) {
      auto lower =
          scf::IfOp::create(b,
                            arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                                  tid, em.index(half)),
                            /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inIf(b);
        b.setInsertionPointToStart(lower.thenBlock());
        Value other = arith::AddIOp::create(b, tid, em.index(half));
        LLVM::StoreOp::create(
            b,
            combineWith(b, combiner, LLVM::LoadOp::create(b, type, slot(tid)),
                        LLVM::LoadOp::create(b, type, slot(other))),
            slot(tid));
      }
      gpu::BarrierOp::create(b);
    }
    auto first = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, em.index(0)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(first.thenBlock());
    result = combineWith(b, combiner, start,
                         LLVM::LoadOp::create(b, type, slot(em.index(0))));
  } else {
    auto loop = scf::ForOp::create(b, em.index(0), em.product(reduction),
                                   em.index(1), ValueRange{start});
    OpBuilder::InsertionGuard inLoop(b);
    b.setInsertionPointToStart(loop.getBody());
    em.split(loop.getInductionVar(), reduction);
    scf::YieldOp::create(b, emitBody(loop.getRegionIterArg(0)));
    result = loop.getResult(0);
  }
  // The result is row-major over the parallel loops: at the flat index.
  LLVM::StoreOp::create(b, result,
                        LLVM::GEPOp::create(b, ptrType, result.getType(),
                                            entry->getArgument(inputs.size()),
                                            ValueRange{gid}));
  if (failed(expandKernelMath(kernel, why))) {
    eraseKernel(kernels, kernel);
    return failure();
  }
  return kernel;
}

void LowerElementwiseToGpu::emitHostCall(linalg::GenericOp op,
                                         gpu::GPUFuncOp kernel,
                                         gpu::GPUModuleOp kernels,
                                         ArrayRef<Value> inputs,
                                         bool rowKernel) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> tensors;
  for (Value in : inputs) {
    tensor::PadOp pad = foldablePad(in);
    tensors.push_back(pad ? pad.getSource() : in);
  }
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> resultSizes;
  Value init = op.getDpsInitOperand(0)->get();
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      resultSizes.push_back(tensor::DimOp::create(b, init, d));
  // Every loop's size (a reduction's is in no result dimension), after the
  // buffers. A row kernel's consumer (all loops parallel, the result
  // written in loop order) reads them off its result: its other operands
  // may be row values computed inside the kernel, whose ops go away.
  SmallVector<Value> loopSizes;
  if (rowKernel) {
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      loopSizes.push_back(
          resultType.isDynamicDim(d)
              ? tensor::DimOp::create(b, init, d).getResult()
              : arith::ConstantIndexOp::create(b, resultType.getDimSize(d))
                    .getResult());
    replaceWithHostCall(op, kernels, kernel.getName(), tensors, resultSizes,
                        loopSizes);
    return;
  }
  auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
  for (Range range : linalgOp.createLoopRanges(b, op.getLoc())) {
    Value size = getValueOrCreateConstantIndexOp(b, op.getLoc(), range.size);
    // A size read off a folded padding's unpadded dimension is its
    // source's (the padded tensor is never made).
    if (auto dim = size.getDefiningOp<tensor::DimOp>())
      if (tensor::PadOp pad = foldablePad(dim.getSource()))
        if (std::optional<int64_t> d = dim.getConstantIndex();
            d && pad.getStaticLow()[*d] == 0 && pad.getStaticHigh()[*d] == 0) {
          size = tensor::DimOp::create(b, pad.getSource(), *d);
          if (dim->use_empty())
            dim.erase();
        }
    loopSizes.push_back(size);
  }
  replaceWithHostCall(op, kernels, kernel.getName(), tensors, resultSizes,
                      loopSizes);
}

/// Bytes per element of the full-size (identity-indexed) operands of
/// `op`: what reading them costs per result element.
static int64_t fullOperandBytes(linalg::GenericOp op) {
  int64_t bytes = 0;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(in->get().getType());
    if (type && op.getMatchingIndexingMap(in).isIdentity())
      bytes += type.getElementTypeBitWidth() / 8;
  }
  return bytes;
}

/// The fusion control: a producer with one use fuses into it (the
/// intermediate tensor disappears); a producer with several uses, every one
/// a linalg.generic, is recomputed in each when that reads fewer bytes
/// than writing its result once and reading it in each consumer, e.g.
/// softmax's exp(x - max): each of the sum and the division then reads the
/// f16 x instead of the f32 exponentials, one kernel and about half the
/// traffic less. Upstream keeps a result that still has other uses as an
/// extra result of the fused op, so the recomputed producer must be one
/// every consumer takes (all uses fusable).
static bool recomputeOrFuse(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  if (!producer)
    return false;
  if (producer->hasOneUse())
    return true;
  if (producer->getNumResults() != 1 || producer.getNumReductionLoops() != 0 ||
      !llvm::all_of(producer->getUses(), [&](OpOperand &use) {
        auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
        return consumer && consumer.isDpsInput(&use) &&
               consumer.getMatchingIndexingMap(&use).isIdentity() &&
               consumer.getNumLoops() == producer.getNumLoops();
      }))
    return false;
  auto type = cast<RankedTensorType>(producer->getResult(0).getType());
  int64_t out = type.getElementTypeBitWidth() / 8;
  int64_t uses = std::distance(producer->use_begin(), producer->use_end());
  return uses * fullOperandBytes(producer) <= (1 + uses) * out;
}

void LowerElementwiseToGpu::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  // Named parallel ops to generics, then producer-consumer fusion of
  // elementwise chains (upstream's), outside the kernels.
  {
    RewritePatternSet patterns(ctx);
    patterns.add<GeneralizeParallelNamedOp>(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, recomputeOrFuse);
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
  // A kernel name no kernel or host function has yet.
  auto nextName = [&] {
    std::string name = "stc_ew_" + std::to_string(next++);
    while (SymbolTable::lookupSymbolIn(kernels, name) ||
           module.lookupSymbol(name + "_host"))
      name = "stc_ew_" + std::to_string(next++);
    return name;
  };
  // Lowers `op` to a kernel and a host call, or leaves it on the host with
  // a remark saying why (`what` is on the host, `kind` runs on the GPU).
  // Returns whether it is on the GPU.
  auto lower = [&](linalg::GenericOp op, StringRef what, StringRef kind) {
    std::string why = whyNot(op);
    if (!why.empty()) {
      op.emitRemark() << "stc: " << what << " stays on the host: " << why;
      return false;
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
    std::string name = nextName();
    FailureOr<gpu::GPUFuncOp> kernel =
        buildKernel(op, kernels, name, inputs, why);
    if (failed(kernel)) {
      op.emitRemark() << "stc: " << what << " stays on the host: " << why;
      return false;
    }
    InFlightDiagnostic remark = op.emitRemark();
    remark << "stc: " << kind << " runs on the GPU as @" << name;
    if ((*kernel)->hasAttr(stc_gpu::StcGpuDialect::kBlockPerElementAttrName))
      remark << " (a block of " << (*kernel).getKnownBlockSizeAttr()[0]
             << " threads per result element)";
    emitHostCall(
        op, *kernel, kernels,
        llvm::map_to_vector(inputs, [](OpOperand *in) { return in->get(); }));
    return true;
  };
  // Row reductions and the elementwise op that reads them (a softmax, a
  // LayerNorm): one kernel for the group, a team of threads per row
  // (RowKernel.h). Found from the last op back, each op in one group.
  llvm::SmallPtrSet<Operation *, 16> grouped;
  SmallVector<RowGroup> groups;
  for (linalg::GenericOp op : llvm::reverse(generics)) {
    if (grouped.contains(op))
      continue;
    std::optional<RowGroup> group =
        rowGroupEndingAt(op, [&](linalg::GenericOp candidate) {
          return !grouped.contains(candidate) && whyNot(candidate).empty();
        });
    if (!group)
      continue;
    grouped.insert(op);
    for (linalg::GenericOp member : group->rowOps)
      grouped.insert(member);
    groups.push_back(std::move(*group));
  }
  for (RowGroup &group : groups) {
    if (!kernels)
      kernels = getOrCreateKernelModule(module);
    std::string name = nextName();
    std::string why;
    FailureOr<gpu::GPUFuncOp> kernel =
        buildRowKernel(group, kernels, name, why);
    if (failed(kernel)) {
      // Each op on its own then, where it says why.
      grouped.erase(group.consumer);
      for (linalg::GenericOp member : group.rowOps)
        grouped.erase(member);
      continue;
    }
    int64_t reductions = llvm::count_if(group.rowOps, [](linalg::GenericOp op) {
      return op.getNumReductionLoops() != 0;
    });
    group.consumer.emitRemark()
        << "stc: elementwise linalg.generic runs on the GPU as @" << name
        << " with the " << group.rowOps.size() << " row values it reads ("
        << reductions << " row reductions; a team of "
        << rowKernelThreadsPerRow(group) << " threads per row)";
    for (linalg::GenericOp member : group.rowOps)
      member.emitRemark() << "stc: "
                          << (member.getNumReductionLoops()
                                  ? "reduction linalg.generic"
                                  : "elementwise linalg.generic")
                          << " runs on the GPU inside @" << name
                          << ", with the op that reads it";
    emitHostCall(group.consumer, *kernel, kernels, group.inputs,
                 /*rowKernel=*/true);
    for (linalg::GenericOp member : llvm::reverse(group.rowOps))
      member.erase();
  }
  for (linalg::GenericOp op : generics)
    if (!grouped.contains(op))
      lower(op, "linalg.generic",
            op.getNumReductionLoops() ? "reduction linalg.generic"
                                      : "elementwise linalg.generic");
  // A padding something other than a kernel reads (a tensor-core kernel's
  // operand: the channels of an NHWC stem) becomes a copy through it: a
  // kernel of its own, reading the source where the index is inside it.
  SmallVector<tensor::PadOp> readPads;
  module.walk([&](tensor::PadOp pad) {
    if (!pad->use_empty() && foldablePad(pad.getResult()))
      readPads.push_back(pad);
  });
  // Pads whose copy stays on the host have said why already.
  llvm::SmallPtrSet<Operation *, 4> explained;
  for (tensor::PadOp pad : readPads) {
    OpBuilder b(pad->getContext());
    b.setInsertionPointAfter(pad);
    Location loc = pad.getLoc();
    RankedTensorType type = pad.getResultType();
    // The sizes from the source (foldablePad: a padded dimension is
    // static), so that the pad has no other user once the copy reads it.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(
          type.isDynamicDim(d)
              ? OpFoldResult(tensor::DimOp::create(b, loc, pad.getSource(), d)
                                 .getResult())
              : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
    Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    AffineMap id = b.getMultiDimIdentityMap(type.getRank());
    auto copy = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{pad.getResult()}, ValueRange{empty},
        ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc, args[0]);
        });
    pad.getResult().replaceAllUsesExcept(copy->getResult(0), copy);
    if (!lower(copy, "tensor.pad", "tensor.pad (a copy through the padding)")) {
      // Back as it was: the pad stays, its copy's remark said why.
      copy->getResult(0).replaceAllUsesWith(pad.getResult());
      copy.erase();
      explained.insert(pad);
    }
  }
  // Paddings every kernel read through are gone.
  SmallVector<tensor::PadOp> pads;
  module.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  for (tensor::PadOp pad : pads)
    if (pad->use_empty())
      pad.erase();
  // The tensor computation no GPU kernel takes (a padding something else
  // reads, a named op that is not generalized: pooling) runs on the host:
  // say so, as for the generics above, instead of falling back in silence.
  for (auto f : module.getOps<func::FuncOp>()) {
    f.walk([&](Operation *op) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if ((linalgOp && linalgOp.hasPureTensorSemantics() &&
           !isa<linalg::GenericOp, linalg::FillOp>(op)) ||
          (isa<tensor::PadOp>(op) && !explained.contains(op)))
        op->emitRemark() << "stc: " << op->getName()
                         << " stays on the host: no GPU kernel takes it";
    });
  }
}

} // namespace
