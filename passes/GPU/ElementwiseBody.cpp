//===- ElementwiseBody.cpp - a linalg.generic's body inside a kernel -*- C++
//-*-//
//
// See ElementwiseBody.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/ElementwiseBody.h"

#include "dialects/StcGpu/StcGpuDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::stc::gpu_kernel;

tensor::PadOp mlir::stc::gpu_kernel::foldablePad(Value v) {
  auto pad = v.getDefiningOp<tensor::PadOp>();
  if (!pad || pad.getNofold() || !pad.getConstantPaddingValue() ||
      !pad.getConstantPaddingValue().getDefiningOp<arith::ConstantOp>())
    return tensor::PadOp();
  RankedTensorType source = pad.getSourceType();
  for (auto [d, low, high] :
       llvm::zip(llvm::seq<int64_t>(0, source.getRank()), pad.getStaticLow(),
                 pad.getStaticHigh())) {
    if (ShapedType::isDynamic(low) || ShapedType::isDynamic(high) || low < 0 ||
        high < 0)
      return tensor::PadOp();
    if ((low != 0 || high != 0) && source.isDynamicDim(d))
      return tensor::PadOp();
  }
  return pad;
}

arith::ConstantOp mlir::stc::gpu_kernel::filledConstant(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>()
              : arith::ConstantOp();
}

Operation *mlir::stc::gpu_kernel::reductionCombiner(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  BlockArgument acc =
      body.getArgument(op.getDpsInitOperand(0)->getOperandNumber());
  Operation *combine = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!acc.hasOneUse() || !combine || combine->getBlock() != &body ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
           arith::MaxSIOp, arith::MinSIOp>(combine) ||
      (combine->getOperand(0) != acc && combine->getOperand(1) != acc))
    return nullptr;
  return combine;
}

Value mlir::stc::gpu_kernel::identityOf(ImplicitLocOpBuilder &b,
                                        Operation *combine, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    APFloat v = isa<arith::AddFOp>(combine)   ? APFloat::getZero(sem)
                : isa<arith::MulFOp>(combine) ? APFloat::getOne(sem)
                : isa<arith::MaximumFOp, arith::MaxNumFOp>(combine)
                    ? APFloat::getInf(sem, /*Negative=*/true)
                    : APFloat::getInf(sem);
    return arith::ConstantOp::create(b, f, b.getFloatAttr(f, v));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = isa<arith::AddIOp>(combine)    ? APInt::getZero(width)
            : isa<arith::MulIOp>(combine)  ? APInt(width, 1)
            : isa<arith::MaxSIOp>(combine) ? APInt::getSignedMinValue(width)
                                           : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, type, b.getIntegerAttr(type, v));
}

Value mlir::stc::gpu_kernel::combineWith(ImplicitLocOpBuilder &b,
                                         Operation *combine, Value x, Value y) {
  OperationState state(b.getLoc(), combine->getName());
  state.addOperands({x, y});
  state.addTypes(x.getType());
  state.addAttributes(combine->getAttrs());
  return b.create(state)->getResult(0);
}

/// The math ops a kernel may keep after expansion: each lowers to an
/// NVPTX instruction or LLVM intrinsic, with no libdevice call.
static bool isNativeMathOp(Operation *op) {
  return isa<math::AbsFOp, math::AbsIOp, math::SqrtOp, math::FmaOp,
             math::FloorOp, math::CeilOp, math::CopySignOp, math::RoundOp,
             math::RoundEvenOp, math::TruncOp>(op);
}

LogicalResult mlir::stc::gpu_kernel::expandKernelMath(gpu::GPUFuncOp kernel,
                                                      std::string &why) {
  RewritePatternSet patterns(kernel.getContext());
  math::populateExpansionPatterns(patterns,
                                  {"rsqrt", "powf", "fpowi", "exp2", "sinh",
                                   "cosh", "tan", "asinh", "acosh", "atanh"});
  auto all = [](StringRef) { return true; };
  populateMathF32ExpansionPatterns(patterns, all);
  populateMathPolynomialApproximationPatterns(patterns, all);
  if (failed(applyPatternsGreedily(kernel, std::move(patterns)))) {
    why = "its math did not simplify";
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
    return failure();
  }
  return success();
}

void mlir::stc::gpu_kernel::eraseKernel(gpu::GPUModuleOp kernels,
                                        gpu::GPUFuncOp kernel) {
  for (StringRef suffix : {"_partials", "_rows"})
    if (Operation *shared = SymbolTable::lookupSymbolIn(
            kernels, (kernel.getName() + suffix).str()))
      shared->erase();
  kernel.erase();
}

gpu::GPUFuncOp mlir::stc::gpu_kernel::createElementwiseKernel(
    gpu::GPUModuleOp kernels, Location loc, StringRef name, unsigned numInputs,
    unsigned numLoops) {
  MLIRContext *ctx = kernels.getContext();
  SmallVector<Type> params(numInputs + 1, LLVM::LLVMPointerType::get(ctx));
  params.append(numLoops, IntegerType::get(ctx, 32));
  OpBuilder kb(ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(kb, loc, name, FunctionType::get(ctx, params, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  kernel->setAttr(stc_gpu::StcGpuDialect::kElementwiseAttrName,
                  UnitAttr::get(ctx));
  return kernel;
}

Value BodyEmitter::index(int64_t v) {
  return arith::ConstantIntOp::create(b, b.getI64Type(), v).getResult();
}

void BodyEmitter::setSizes(ArrayRef<int64_t> staticRanges,
                           gpu::GPUFuncOp kernel, unsigned firstSizeParam) {
  sizes.clear();
  for (auto [d, range] : llvm::enumerate(staticRanges))
    sizes.push_back(
        ShapedType::isDynamic(range)
            ? arith::ExtUIOp::create(b, b.getI64Type(),
                                     kernel.getArgument(firstSizeParam + d))
                  .getResult()
            : index(range));
}

Value BodyEmitter::product(ArrayRef<unsigned> dims) {
  Value p = index(1);
  for (unsigned d : dims)
    p = arith::MulIOp::create(b, p, sizes[d]);
  return p;
}

void BodyEmitter::split(Value flat, ArrayRef<unsigned> dims) {
  for (unsigned d : llvm::reverse(dims)) {
    ivs[d] = arith::RemUIOp::create(b, flat, sizes[d]);
    flat = arith::DivUIOp::create(b, flat, sizes[d]);
  }
}

// The value of an index expression (loop indices, constants, sums and
// products by constants: the pass admits no other).
Value BodyEmitter::evaluate(AffineExpr e) {
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return ivs[dim.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return index(c.getValue());
  auto bin = cast<AffineBinaryOpExpr>(e);
  Value l = evaluate(bin.getLHS()), r = evaluate(bin.getRHS());
  if (e.getKind() == AffineExprKind::Add)
    return arith::AddIOp::create(b, l, r).getResult();
  return arith::MulIOp::create(b, l, r).getResult();
}

// Row-major offset of `in` over its own dimensions: each the loop
// dimension its map names, or a computed index (a convolution's
// oh * stride + kh) into a dimension of static size. Through a folded
// tensor.pad, into the pad's source at the index minus the low padding;
// `inside` then says whether that is in the source.
Value BodyEmitter::offsetOf(linalg::GenericOp op, OpOperand *in,
                            tensor::PadOp pad, Value &inside) {
  Value offset = index(0);
  auto type =
      pad ? pad.getSourceType() : cast<RankedTensorType>(in->get().getType());
  for (auto [d, e] :
       llvm::enumerate(op.getMatchingIndexingMap(in).getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    Value at = dim ? ivs[dim.getPosition()] : evaluate(e);
    // A dynamic size is the loop's where the map names the loop; the
    // leading dimension's size is never used (the pass, foldablePad).
    Value size = !type.isDynamicDim(d) ? index(type.getDimSize(d))
                 : dim                 ? sizes[dim.getPosition()]
                                       : index(1);
    if (pad && (pad.getStaticLow()[d] != 0 || pad.getStaticHigh()[d] != 0)) {
      at = arith::SubIOp::create(b, at, index(pad.getStaticLow()[d]));
      // Unsigned: a negative index is a huge one.
      inside = arith::AndIOp::create(
          b, inside,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ult, at, size));
    }
    offset =
        arith::AddIOp::create(b, arith::MulIOp::create(b, offset, size), at);
  }
  return offset;
}

Value BodyEmitter::load(linalg::GenericOp op, OpOperand *in, Value base) {
  Type elementType = getElementTypeOrSelf(in->get().getType());
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  tensor::PadOp pad = foldablePad(in->get());
  Value inside = arith::ConstantIntOp::create(b, 1, 1);
  Value at = LLVM::GEPOp::create(b, ptrType, elementType, base,
                                 ValueRange{offsetOf(op, in, pad, inside)});
  if (!pad)
    return LLVM::LoadOp::create(b, elementType, at);
  // The source's element where the index is inside it, else the padding
  // value (the load is guarded: no address outside the source).
  Value padValue =
      b.clone(*pad.getConstantPaddingValue().getDefiningOp())->getResult(0);
  auto ifInside = scf::IfOp::create(b, elementType, inside,
                                    /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifInside.thenBlock());
  scf::YieldOp::create(b, LLVM::LoadOp::create(b, elementType, at).getResult());
  b.setInsertionPointToStart(ifInside.elseBlock());
  scf::YieldOp::create(b, padValue);
  return ifInside.getResult(0);
}

Value BodyEmitter::emitBody(linalg::GenericOp op,
                            function_ref<Value(OpOperand *)> valueOf) {
  // A mapping per copy of the body: the constants it captures are copied
  // where this copy is (another may be in a loop that does not dominate).
  IRMapping mapping;
  Block &body = op.getRegion().front();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    if (isa<RankedTensorType>(operand.get().getType()))
      mapping.map(arg, valueOf(&operand));
    else
      mapping.map(arg, b.clone(*operand.get().getDefiningOp())->getResult(0));
  }
  for (Operation &inner : body.without_terminator()) {
    // Constants the body captures (elementwise fusion folds scalar inputs
    // into them) are cloned into the kernel.
    for (Value v : inner.getOperands())
      if (!op.getRegion().isAncestor(v.getParentRegion()) &&
          !mapping.contains(v))
        mapping.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    if (auto idx = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(idx.getResult(), arith::IndexCastUIOp::create(
                                       b, b.getIndexType(), ivs[idx.getDim()]));
      continue;
    }
    b.clone(inner, mapping);
  }
  // A body that yields a constant from outside (fusion folded a filled
  // value into it) yields its copy.
  Value yielded = body.getTerminator()->getOperand(0);
  if (!mapping.contains(yielded))
    mapping.map(yielded, b.clone(*yielded.getDefiningOp())->getResult(0));
  return mapping.lookup(yielded);
}
