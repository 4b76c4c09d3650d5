//===- RowKernel.cpp - row reductions and their consumer in one kernel -*- C++
//-*-//
//
// See RowKernel.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/RowKernel.h"
#include "passes/GPU/ElementwiseBody.h"

#include "dialects/StcGpu/StcGpuDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Threads per block of a row kernel.
constexpr int64_t kBlockThreads = 256;
constexpr int64_t kWarp = 32;
/// About this many elements of a row per thread, for rows longer than a
/// warp's share.
constexpr int64_t kElementsPerThread = 16;

/// (d0, ..., d{loops-1}) -> (d0, ..., d{rowDims-1}): how an op with `loops`
/// loops reads a value per row of `rowDims` dimensions.
AffineMap rowMap(MLIRContext *ctx, unsigned loops, unsigned rowDims) {
  SmallVector<AffineExpr> results;
  for (unsigned d = 0; d < rowDims; ++d)
    results.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(loops, 0, results, ctx);
}

/// Whether `op` computes values per row for a consumer over `rowDims + 1`
/// loops whose last (the row) has `rowLength` elements: a reduction of the
/// row's elements with an associative combiner, or an elementwise op over
/// the rows, in `block`, with one result of at most 32 bits.
bool isRowOp(linalg::GenericOp op, unsigned rowDims, int64_t rowLength,
             Block *block, function_ref<bool(linalg::GenericOp)> lowerable) {
  if (op->getBlock() != block || op->getNumResults() != 1 || !lowerable(op))
    return false;
  Type type = getElementTypeOrSelf(op->getResult(0).getType());
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() > 32)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned loops = iterators.size();
  if (loops != rowDims && loops != rowDims + 1)
    return false;
  for (unsigned d = 0; d < rowDims; ++d)
    if (iterators[d] != utils::IteratorType::parallel)
      return false;
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      rowMap(op.getContext(), loops, rowDims))
    return false;
  if (loops == rowDims)
    return true;
  return iterators[rowDims] == utils::IteratorType::reduction &&
         op.getStaticLoopRanges()[rowDims] == rowLength &&
         reductionCombiner(op);
}

/// Whether `use` reads a row value as a group member or consumer would:
/// an input, through the row map.
bool readsPerRow(OpOperand &use, unsigned rowDims) {
  auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
  return reader && reader.isDpsInput(&use) &&
         reader.getMatchingIndexingMap(&use) ==
             rowMap(reader.getContext(), reader.getNumLoops(), rowDims);
}

} // namespace

std::optional<RowGroup> mlir::stc::gpu_kernel::rowGroupEndingAt(
    linalg::GenericOp consumer,
    function_ref<bool(linalg::GenericOp)> lowerable) {
  unsigned loops = consumer.getNumLoops();
  if (loops < 2 || consumer.getNumReductionLoops() != 0 ||
      consumer->getNumResults() != 1 ||
      !consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0))
           .isIdentity() ||
      !lowerable(consumer))
    return std::nullopt;
  unsigned rowDims = loops - 1;
  int64_t rowLength = consumer.getStaticLoopRanges()[rowDims];
  if (ShapedType::isDynamic(rowLength))
    return std::nullopt;
  // The row ops reachable from the consumer through reads per row.
  llvm::SetVector<Operation *> members;
  SmallVector<linalg::GenericOp> worklist{consumer};
  while (!worklist.empty()) {
    linalg::GenericOp op = worklist.pop_back_val();
    for (OpOperand *in : op.getDpsInputOperands()) {
      auto producer = in->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || members.contains(producer) ||
          !readsPerRow(*in, rowDims) ||
          !isRowOp(producer, rowDims, rowLength, consumer->getBlock(),
                   lowerable))
        continue;
      members.insert(producer);
      worklist.push_back(producer);
    }
  }
  // A row value something outside the group reads is computed by a kernel
  // of its own; so, then, are the values only it read.
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *member : members) {
      bool inside = llvm::all_of(member->getUses(), [&](OpOperand &use) {
        return (use.getOwner() == consumer.getOperation() ||
                members.contains(use.getOwner())) &&
               readsPerRow(use, rowDims);
      });
      if (!inside) {
        members.remove(member);
        changed = true;
        break;
      }
    }
  }
  RowGroup group;
  group.consumer = consumer;
  for (Operation *member : members)
    group.rowOps.push_back(cast<linalg::GenericOp>(member));
  if (llvm::none_of(group.rowOps, [](linalg::GenericOp op) {
        return op.getNumReductionLoops() != 0;
      }))
    return std::nullopt;
  llvm::sort(group.rowOps, [](linalg::GenericOp a, linalg::GenericOp b) {
    return a->isBeforeInBlock(b);
  });
  // The tensors read from outside, each once: inputs, and a result's old
  // value that a body reads unless a linalg.fill of a constant made it.
  llvm::SetVector<Value> inputs;
  SmallVector<linalg::GenericOp> ops(group.rowOps);
  ops.push_back(consumer);
  for (linalg::GenericOp op : ops) {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<RankedTensorType>(operand.get().getType()) ||
          members.contains(operand.get().getDefiningOp()))
        continue;
      if (op.isDpsInit(&operand) &&
          (!op.payloadUsesValueFromOperand(&operand) ||
           filledConstant(operand.get())))
        continue;
      inputs.insert(operand.get());
    }
  }
  group.inputs = inputs.takeVector();
  return group;
}

int64_t mlir::stc::gpu_kernel::rowKernelThreadsPerRow(const RowGroup &group) {
  linalg::GenericOp consumer = group.consumer;
  int64_t rowLength =
      consumer.getStaticLoopRanges()[consumer.getNumLoops() - 1];
  return std::clamp<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(rowLength, kElementsPerThread)),
      kWarp, kBlockThreads);
}

namespace {

/// The 32-bit word that carries `v` (at most 32 bits) through a shuffle or
/// shared memory, and back.
Value toWord(ImplicitLocOpBuilder &b, Value v) {
  Type type = v.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(type))
    v = arith::BitcastOp::create(b, b.getIntegerType(width), v);
  if (width < 32)
    v = arith::ExtUIOp::create(b, b.getI32Type(), v);
  return v;
}

Value fromWord(ImplicitLocOpBuilder &b, Value word, Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 32)
    word = arith::TruncIOp::create(b, b.getIntegerType(width), word);
  if (isa<FloatType>(type))
    word = arith::BitcastOp::create(b, type, word);
  return word;
}

} // namespace

FailureOr<gpu::GPUFuncOp>
mlir::stc::gpu_kernel::buildRowKernel(const RowGroup &group,
                                      gpu::GPUModuleOp kernels, StringRef name,
                                      std::string &why) {
  linalg::GenericOp consumer = group.consumer;
  MLIRContext *ctx = consumer.getContext();
  Location loc = consumer.getLoc();
  int64_t loops = consumer.getNumLoops();
  unsigned rowDim = loops - 1;
  int64_t teamThreads = rowKernelThreadsPerRow(group);
  int64_t rowsPerBlock = kBlockThreads / teamThreads;
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  unsigned numInputs = group.inputs.size();
  gpu::GPUFuncOp kernel =
      createElementwiseKernel(kernels, loc, name, numInputs, loops);
  OpBuilder kb(ctx);
  kernel->setAttr(stc_gpu::StcGpuDialect::kRowsPerBlockAttrName,
                  kb.getI64IntegerAttr(rowsPerBlock));
  kernel.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({static_cast<int32_t>(kBlockThreads), 1, 1}));
  Block *entry = &kernel.getBody().front();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToStart(entry);
  BodyEmitter em(b, loops);
  em.setSizes(consumer.getStaticLoopRanges(), kernel, numInputs + 1);
  SmallVector<unsigned> rowDims =
      llvm::to_vector(llvm::seq<unsigned>(0, rowDim));
  Value tid = arith::IndexCastUIOp::create(
      b, i64, gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  Value bid = arith::IndexCastUIOp::create(
      b, i64, gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value team = arith::DivUIOp::create(b, tid, em.index(teamThreads));
  Value lane = arith::RemUIOp::create(b, tid, em.index(teamThreads));
  Value row = arith::AddIOp::create(
      b, arith::MulIOp::create(b, bid, em.index(rowsPerBlock)), team);
  Value rows = em.product(rowDims);
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row, rows);
  // A team past the last row computes the last row again: every thread
  // reaches every barrier and shuffle, reading only inside the tensors.
  Value computed = arith::SelectOp::create(
      b, inRange, row, arith::SubIOp::create(b, rows, em.index(1)));
  em.split(computed, rowDims);

  // The row values, as computed; the tensors read from outside, as loaded.
  DenseMap<Operation *, Value> rowValues;
  auto valueOf = [&](linalg::GenericOp op, Value acc) {
    return [&, op, acc](OpOperand *in) mutable -> Value {
      if (op.isDpsInit(in))
        return acc;
      if (Value v = rowValues.lookup(in->get().getDefiningOp()))
        return v;
      unsigned k = llvm::find(group.inputs, in->get()) - group.inputs.begin();
      return em.load(op, in, entry->getArgument(k));
    };
  };
  // The result's starting value where the body reads it: a filled
  // constant, or loaded (at the row, for a row op).
  auto startOf = [&](linalg::GenericOp op) -> Value {
    OpOperand *init = op.getDpsInitOperand(0);
    if (!op.payloadUsesValueFromOperand(init))
      return Value();
    if (arith::ConstantOp constant = filledConstant(init->get()))
      return b.clone(*constant)->getResult(0);
    unsigned k = llvm::find(group.inputs, init->get()) - group.inputs.begin();
    return em.load(op, init, entry->getArgument(k));
  };
  // Shared memory for the teams of more than a warp: a word per warp.
  Value smem;
  auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
  if (teamThreads > kWarp) {
    OpBuilder gb(kernels.getBodyRegion());
    gb.setInsertionPointToStart(kernels.getBody());
    auto words = LLVM::GlobalOp::create(
        gb, loc, LLVM::LLVMArrayType::get(i32, kBlockThreads / kWarp),
        /*isConstant=*/false, LLVM::Linkage::Internal, (name + "_rows").str(),
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);
    smem = LLVM::AddressOfOp::create(b, sharedPtr, words.getSymNameAttr());
  }
  // `v` combined over the team: butterfly shuffles across the warp (every
  // lane ends with the same value: the combiners commute), then across the
  // team's warps through shared memory.
  auto teamCombine = [&](Operation *combiner, Value v) {
    Type type = v.getType();
    for (int32_t offset = kWarp / 2; offset > 0; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(b, toWord(b, v), offset, kWarp,
                                            gpu::ShuffleMode::XOR);
      v = combineWith(b, combiner, v,
                      fromWord(b, shuffle.getShuffleResult(), type));
    }
    if (teamThreads == kWarp)
      return v;
    Value warp = arith::DivUIOp::create(b, tid, em.index(kWarp));
    auto slot = [&](Value w) {
      return LLVM::GEPOp::create(b, sharedPtr, i32, smem, ValueRange{w});
    };
    auto first = scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, tid, em.index(kWarp)),
                              em.index(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inIf(b);
      b.setInsertionPointToStart(first.thenBlock());
      LLVM::StoreOp::create(b, toWord(b, v), slot(warp));
    }
    gpu::BarrierOp::create(b);
    int64_t warpsPerTeam = teamThreads / kWarp;
    Value firstWarp = arith::MulIOp::create(b, team, em.index(warpsPerTeam));
    Value total =
        fromWord(b, LLVM::LoadOp::create(b, i32, slot(firstWarp)), type);
    for (int64_t w = 1; w < warpsPerTeam; ++w)
      total = combineWith(
          b, combiner, total,
          fromWord(b,
                   LLVM::LoadOp::create(
                       b, i32,
                       slot(arith::AddIOp::create(b, firstWarp, em.index(w)))),
                   type));
    // The words are written again by the next reduction.
    gpu::BarrierOp::create(b);
    return total;
  };

  for (linalg::GenericOp op : group.rowOps) {
    Value start = startOf(op);
    if (op.getNumReductionLoops() == 0) {
      rowValues[op] = em.emitBody(op, valueOf(op, start));
      continue;
    }
    // The team's threads stride over the row (adjacent threads, adjacent
    // elements), each from the combiner's identity.
    Operation *combiner = reductionCombiner(op);
    Type type = start.getType();
    auto loop =
        scf::ForOp::create(b, lane, em.sizes[rowDim], em.index(teamThreads),
                           ValueRange{identityOf(b, combiner, type)});
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(loop.getBody());
      em.ivs[rowDim] = loop.getInductionVar();
      scf::YieldOp::create(
          b, em.emitBody(op, valueOf(op, loop.getRegionIterArg(0))));
    }
    em.ivs[rowDim] = Value();
    rowValues[op] = combineWith(b, combiner, start,
                                teamCombine(combiner, loop.getResult(0)));
  }
  // The consumer, element by element along the row; a team past the last
  // row stores nothing.
  auto store = scf::IfOp::create(b, inRange, /*withElseRegion=*/false);
  gpu::ReturnOp::create(b);
  b.setInsertionPointToStart(store.thenBlock());
  auto loop =
      scf::ForOp::create(b, lane, em.sizes[rowDim], em.index(teamThreads));
  b.setInsertionPointToStart(loop.getBody());
  em.ivs[rowDim] = loop.getInductionVar();
  Value result = em.emitBody(consumer, valueOf(consumer, startOf(consumer)));
  Value flat =
      arith::AddIOp::create(b, arith::MulIOp::create(b, row, em.sizes[rowDim]),
                            loop.getInductionVar());
  LLVM::StoreOp::create(b, result,
                        LLVM::GEPOp::create(b, ptrType, result.getType(),
                                            entry->getArgument(numInputs),
                                            ValueRange{flat}));
  if (failed(expandKernelMath(kernel, why))) {
    eraseKernel(kernels, kernel);
    return failure();
  }
  return kernel;
}
