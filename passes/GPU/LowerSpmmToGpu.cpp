//===- LowerSpmmToGpu.cpp - sparse ops to their configured GPU kernels -*- C++
//-*-//
//
// stc-lower-spmm-to-gpu: every stc.spmm and stc.conv becomes the kernel its
// #stc_gpu.kernel_config describes (MmaSpKernels.h for direct and staged,
// HopperKernel.h for wgmma), with its metadata prepared
// (MetadataKernel.h) and its launch contract recorded as
// #stc_gpu.kernel_info on the gpu.func; the op itself becomes a call of a
// private host function on buffers. A dense contraction that
// stc-configure-gpu-kernels gave a configuration (DenseGemm.h) becomes the
// staged kernel with a dense S (the wgmma kernel with a dense A on sm_90a),
// @stc_gemm_N, the same way.
//
// Host: this pass runs before bufferization, which cannot see through a
// kernel launch, so it replaces the op with a call to a private function
// taking buffers (inputs, then the result), marked `stc_gpu.launches`;
// stc-gpu-host-launch defines its body (device buffers, copies, launch)
// after bufferization.
//
//===----------------------------------------------------------------------===//
#include "passes/FuseEpilogue.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/HopperKernel.h"
#include "passes/GPU/KernelConfig.h"
#include "passes/GPU/KernelHostCall.h"
#include "passes/GPU/MetadataKernel.h"
#include "passes/GPU/MmaSpFragments.h"
#include "passes/GPU/MmaSpKernels.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"
#include "dialects/StcGpu/StcGpuAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERSPMMTOGPU
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::KernelConfigAttr;
using stc_gpu::KernelInfoAttr;

namespace {

constexpr llvm::StringLiteral kPass = "stc-lower-spmm-to-gpu";

/// What the builders find out about the kernel they generate, gathered
/// into its #stc_gpu.kernel_info.
struct KernelFacts {
  std::string name;
  int64_t threads = 0;
  int64_t sharedBytes = 0, staticSharedBytes = 0;
  SmallVector<std::string> params;
  int64_t numPointers = 0;
  std::string fallbackKernel;
  int64_t stagedAlign = 0;
  SmallVector<Attribute> tensorMaps;
};

/// The parameters of every kernel: the buffers (values, meta, dense, bias,
/// acc, scale where present, out), then the canonical problem's sizes, then
/// a convolution's. Returns the number of pointers.
int64_t kernelParams(const Problem &pb, SmallVectorImpl<std::string> &names) {
  if (pb.denseS)
    names.assign({"values", "dense"});
  else
    names.assign({"values", "meta", "dense"});
  if (pb.hasBias)
    names.push_back("bias");
  if (pb.hasAcc)
    names.push_back("acc");
  if (pb.hasScale)
    names.push_back("scale");
  names.push_back("out");
  int64_t numPointers = names.size();
  for (const char *n : {"R", "P", "K", "value_cols", "meta_cols"})
    names.push_back(n);
  if (pb.conv)
    for (const char *n : {"N", "H", "W", "OH", "OW"})
      names.push_back(n);
  return numPointers;
}

/// A gpu.func `name` taking `types`, launched with `threads` per block.
gpu::GPUFuncOp newKernel(ImplicitLocOpBuilder &kb, StringRef name,
                         ArrayRef<Type> types, int64_t threads) {
  MLIRContext *ctx = kb.getContext();
  auto kernel =
      gpu::GPUFuncOp::create(kb, name, FunctionType::get(ctx, types, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  return kernel;
}

/// Records the launch contract of the kernel `facts` describes, for
/// stc-gpu-host-launch, the emulator and tools (stc-compile --kernel-info),
/// as #stc_gpu.kernel_info on its gpu.func. `meta` null: a dense kernel.
void recordKernelInfo(gpu::GPUModuleOp kernels, const KernelFacts &facts,
                      KernelConfigAttr config, const Problem &pb,
                      bool denseTransposed, const KernelMetadata *meta,
                      stc_gpu::ConvGeometryAttr geometry) {
  MLIRContext *ctx = kernels.getContext();
  auto dyn = [](int64_t v) { return ShapedType::isDynamic(v) ? -1 : v; };
  Builder b(ctx);
  SmallVector<Attribute> params;
  for (const std::string &p : facts.params)
    params.push_back(b.getStringAttr(p));
  auto info = KernelInfoAttr::get(
      ctx, facts.name, config, facts.threads, facts.sharedBytes,
      facts.staticSharedBytes, b.getArrayAttr(params), facts.numPointers,
      dyn(pb.rows), dyn(pb.cols), dyn(pb.depth), pb.sparseLhs, denseTransposed,
      pb.inputType, pb.outputType, pb.conv ? pb.conv->groups : 1,
      meta ? meta->layout : stc_gpu::MetaLayout::none,
      meta ? meta->conversionKernel : "", meta ? meta->rowsPerBlock : 0,
      meta ? meta->kPerWord : 0, meta ? meta->threads : 0, facts.fallbackKernel,
      facts.stagedAlign, geometry,
      facts.tensorMaps.empty() ? ArrayAttr()
                               : b.getArrayAttr(facts.tensorMaps));
  kernels.lookupSymbol<gpu::GPUFuncOp>(facts.name)
      ->setAttr(KernelInfoAttr::kAttrName, info);
}

class LowerSpmmToGpu
    : public mlir::stc::impl::StcLowerSpmmToGpuBase<LowerSpmmToGpu> {
public:
  using StcLowerSpmmToGpuBase::StcLowerSpmmToGpuBase;
  void runOnOperation() override;

private:
  LogicalResult lower(Operation *op, KernelConfigAttr config,
                      gpu::GPUModuleOp kernels, unsigned index);
  /// A dense contraction (DenseGemm.h) on the staged kernel, or on sm_90a
  /// the wgmma kernel.
  LogicalResult lowerDense(linalg::LinalgOp op, KernelConfigAttr config,
                           gpu::GPUModuleOp kernels, unsigned index);
  /// The direct or staged kernel (and a staged kernel's direct fallback).
  KernelFacts emitMmaSpKernel(Operation *op, gpu::GPUModuleOp kernels,
                              const Problem &pb, KernelConfigAttr config,
                              StringRef name);
  /// The sm_90a kernel (buildHopperKernel).
  KernelFacts emitHopperKernel(Operation *op, gpu::GPUModuleOp kernels,
                               const Problem &pb, KernelConfigAttr config,
                               StringRef name);
};

} // namespace

KernelFacts LowerSpmmToGpu::emitMmaSpKernel(Operation *op,
                                            gpu::GPUModuleOp kernels,
                                            const Problem &pb,
                                            KernelConfigAttr config,
                                            StringRef name) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  int64_t tileRows = config.getBlockRows(), tileCols = config.getBlockCols();
  int64_t stages = config.getStages();
  bool ordered = config.getOrderedMetadata();
  KernelFacts facts;
  facts.name = name.str();
  facts.numPointers = kernelParams(pb, facts.params);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> paramTypes(facts.numPointers, ptrType);
  paramTypes.append(facts.params.size() - facts.numPointers,
                    IntegerType::get(ctx, 32));
  ImplicitLocOpBuilder kb(loc, ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  WarpTile warp{config.getWarpRows(), config.getWarpCols()};
  int64_t groupRows = config.getGroupRows();
  facts.threads = warp.warpsIn(tileRows, tileCols) * kWarpSize;
  auto kernel = newKernel(kb, name, paramTypes, facts.threads);
  if (config.isStaged()) {
    int64_t elemBytes = pb.inputType.getIntOrFloatBitWidth() / 8;
    int64_t kSteps = config.getStageKSteps();
    bool vectorStores = config.getVectorStores();
    int64_t bytes = stagedSharedBytes(pb, tileRows, tileCols, warp, stages,
                                      kSteps, vectorStores);
    // Up to 48 KiB a static array; more (deeper or longer stages) is dynamic
    // shared memory, which the host opts in to (the kernel info's
    // shared_bytes), up to the limit the configuration's verifier checked.
    bool dynamic = bytes > kStaticSharedLimit;
    (dynamic ? facts.sharedBytes : facts.staticSharedBytes) = bytes;
    OpBuilder gb(kernels.getBodyRegion());
    gb.setInsertionPointToStart(kernels.getBody());
    auto arrayType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), dynamic ? 0 : bytes);
    auto smem = LLVM::GlobalOp::create(
        gb, loc, arrayType, /*isConstant=*/false,
        dynamic ? LLVM::Linkage::External : LLVM::Linkage::Internal,
        (name + "_smem").str(), Attribute(), /*alignment=*/16,
        /*addrSpace=*/3);
    buildStagedMmaSpKernel(kb, pb, tileRows, tileCols, warp, groupRows, stages,
                           kSteps, ordered, vectorStores, kernel, smem);
    if (config.getDirectFallback()) {
      // The direct kernel for rows the staged one cannot copy: same
      // parameters, block, tile and warp tile (so the same grid and
      // threads), no shared memory (so element stores).
      kb.setInsertionPointToEnd(kernels.getBody());
      facts.fallbackKernel = (name + "_direct").str();
      facts.stagedAlign = kChunkBytes / elemBytes;
      buildDirectMmaSpKernel(
          kb, pb, tileRows, tileCols, warp, groupRows, ordered,
          newKernel(kb, facts.fallbackKernel, paramTypes, facts.threads));
    }
  } else {
    buildDirectMmaSpKernel(kb, pb, tileRows, tileCols, warp, groupRows, ordered,
                           kernel);
  }
  return facts;
}

KernelFacts LowerSpmmToGpu::emitHopperKernel(Operation *op,
                                             gpu::GPUModuleOp kernels,
                                             const Problem &pb,
                                             KernelConfigAttr config,
                                             StringRef name) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  HopperKernelShape shape = hopperShapeOf(config, pb);
  KernelFacts facts;
  facts.name = name.str();
  facts.numPointers = kernelParams(pb, facts.params);
  int64_t numSizes = facts.params.size() - facts.numPointers;
  facts.params.push_back("values_map");
  facts.params.push_back("dense_map");
  if (shape.metaSlots())
    facts.params.push_back("meta_map");
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> paramTypes(facts.numPointers, ptrType);
  paramTypes.append(numSizes, IntegerType::get(ctx, 32));
  paramTypes.append(shape.metaSlots() ? 3 : 2, ptrType);

  ImplicitLocOpBuilder kb(loc, ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  facts.threads = shape.threads();
  auto kernel = newKernel(kb, name, paramTypes, facts.threads);
  // setmaxnreg moves registers between warpgroups only when ptxas knows the
  // count every thread starts with (else its C7508, "setmaxnreg ignored").
  if (shape.launchRegisters())
    kernel->setAttr(
        NVVM::NVVMDialect::getMaxnregAttrName(),
        kb.getI32IntegerAttr(static_cast<int32_t>(shape.launchRegisters())));
  // The dynamic shared memory (extern __shared__): launched with
  // shape.sharedBytes().
  OpBuilder gb(kernels.getBodyRegion());
  gb.setInsertionPointToStart(kernels.getBody());
  auto smem = LLVM::GlobalOp::create(
      gb, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0),
      /*isConstant=*/false, LLVM::Linkage::External, (name + "_smem").str(),
      Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  buildHopperKernel(kb, pb, shape, kernel, smem);
  facts.sharedBytes = shape.sharedBytes();

  // CUtensorMapDataType: UINT8 = 0 (TMA moves bytes; the wgmma reads
  // them as s8), FLOAT16 = 6, BFLOAT16 = 9.
  int64_t dataType = pb.int8 ? 0 : pb.inputType.isF16() ? 6 : 9;
  auto map = [&](StringRef param, StringRef operand, ArrayRef<int64_t> box,
                 int64_t swizzle, ArrayRef<int64_t> strides = {},
                 int64_t type = -1) {
    // A batch of matrices: one matrix deep.
    SmallVector<int64_t, 4> boxes(box.begin(), box.end());
    if (pb.batched)
      boxes.push_back(1);
    facts.tensorMaps.push_back(stc_gpu::TensorMapAttr::get(
        ctx, param, operand, type < 0 ? dataType : type, boxes, swizzle,
        strides));
  };
  // A's rows of a K step: 64 bytes of 2:4 values, or 128 of a dense S,
  // swizzled at their width.
  map("values_map", "values", {shape.storedK(), shape.blockRows},
      shape.aRowBytes());
  if (pb.conv && shape.tilesPerImage()) {
    // The NHWC input, innermost first: 64 channels x TW pixels (every
    // stride_w-th) x TH rows (every stride_h-th) x 1 image.
    const ConvGeometry &cg = *pb.conv;
    map("dense_map", "dense",
        {shape.blockK(), shape.pixelTileW * cg.strideW,
         shape.pixelTileH * cg.strideH, 1},
        128, {1, cg.strideW, cg.strideH, 1});
  } else if (pb.denseKMajor) {
    map("dense_map", "dense", {64, shape.blockK()}, 128);
  } else {
    // With multicast each block loads half of the tile's columns.
    map("dense_map", "dense",
        {shape.blockK(), shape.blockCols / (shape.multicastB ? 2 : 1)}, 128);
  }
  if (shape.metaSlots()) {
    // The kernel-ready words (UINT32 = 2) as [row tile][vector][2][256]
    // (stc-gpu-host-launch builds that view of the flat array): one
    // unswizzled box is a vector's 2 KiB of each of the block's 64-row
    // tiles.
    const int64_t half = 2 * HopperKernelShape::kWarpgroupThreads;
    map("meta_map", "meta",
        {half, 2, 1, shape.blockRows / HopperKernelShape::kWarpgroupRows},
        /*swizzle=*/0, {}, /*type=*/2);
  }
  return facts;
}

LogicalResult LowerSpmmToGpu::lower(Operation *op, KernelConfigAttr config,
                                    gpu::GPUModuleOp kernels, unsigned index) {
  MLIRContext *ctx = op->getContext();
  if (failed(checkGpuPattern(op)))
    return failure();
  auto spmm = dyn_cast<SpmmOp>(op);
  auto conv = dyn_cast<ConvOp>(op);
  Problem pb = spmm ? problemOf(spmm) : problemOf(conv);
  if (failed(checkKernelConfig(op, pb, config, kPass)))
    return failure();
  pb.f16Acc = config.getAccumulator() == stc_gpu::Accumulator::f16;
  std::string name = (spmm ? "stc_spmm_" : "stc_conv_") + std::to_string(index);
  Value metaOperand = spmm ? spmm.getMeta() : conv.getMeta();
  FailureOr<KernelMetadata> meta = prepareKernelMetadata(
      op, kernels, name, metaOperand, pb, config.isWgmma());
  if (failed(meta))
    return failure();
  KernelFacts facts = config.isWgmma()
                          ? emitHopperKernel(op, kernels, pb, config, name)
                          : emitMmaSpKernel(op, kernels, pb, config, name);

  // The launch contract, with a convolution's geometry.
  auto dyn = [](int64_t v) { return ShapedType::isDynamic(v) ? -1 : v; };
  stc_gpu::ConvGeometryAttr geometry;
  if (conv) {
    const ConvGeometry &cg = *pb.conv;
    RankedTensorType input = conv.getInput().getType();
    auto result = cast<RankedTensorType>(conv.getResult().getType());
    geometry = stc_gpu::ConvGeometryAttr::get(
        ctx, cg.kh, cg.kw, cg.strideH, cg.strideW, cg.dilationH, cg.dilationW,
        cg.padH, cg.padW, conv.getPadHigh()[0], conv.getPadHigh()[1], cg.c,
        cg.cp, cg.groups, dyn(input.getDimSize(0)), dyn(input.getDimSize(1)),
        dyn(input.getDimSize(2)), dyn(result.getDimSize(1)),
        dyn(result.getDimSize(2)));
  }
  recordKernelInfo(kernels, facts, config, pb,
                   spmm && spmm.getDenseTransposed(), &*meta, geometry);

  // The host side: a call to a private function on buffers, defined after
  // bufferization by stc-gpu-host-launch.
  SmallVector<Value> tensors = {spmm ? spmm.getValues() : conv.getValues(),
                                meta->operand,
                                spmm ? spmm.getDense() : conv.getInput()};
  if (pb.hasBias)
    tensors.push_back(spmm ? spmm.getBias() : conv.getBias());
  if (pb.hasAcc)
    tensors.push_back(spmm ? spmm.getAcc() : conv.getAcc());
  if (pb.hasScale)
    tensors.push_back(spmm ? spmm.getScale() : conv.getScale());
  ImplicitLocOpBuilder hb(op->getLoc(), op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<Value> dynamicSizes;
  if (spmm) {
    // Result rows/cols: (sparse rows, dense other dim) for a sparse lhs,
    // (dense other dim, sparse rows) for a sparse rhs.
    int64_t denseOtherDim = 1 - spmm.getDenseReductionDim();
    for (int64_t d = 0; d < 2; ++d) {
      if (!resultType.isDynamicDim(d))
        continue;
      bool sparseSide = (d == 0) == pb.sparseLhs;
      dynamicSizes.push_back(
          sparseSide
              ? tensor::DimOp::create(hb, spmm.getValues(), 0).getResult()
              : tensor::DimOp::create(hb, spmm.getDense(), denseOtherDim)
                    .getResult());
    }
  } else {
    // Dynamic result sizes: N from the input, OH and OW by the
    // convolution's arithmetic (floor division of non-negative values; the
    // verifier and the host's empty-result check cover filters that do not
    // fit).
    if (resultType.isDynamicDim(0))
      dynamicSizes.push_back(tensor::DimOp::create(hb, conv.getInput(), 0));
    for (int64_t d = 0; d < 2; ++d) {
      if (!resultType.isDynamicDim(1 + d))
        continue;
      auto cst = [&](int64_t v) {
        return arith::ConstantIndexOp::create(hb, v);
      };
      Value in = tensor::DimOp::create(hb, conv.getInput(), 1 + d);
      int64_t reach =
          conv.getDilations()[d] * (conv.getFilterSize()[d] - 1) + 1;
      Value span = arith::AddIOp::create(
          hb, in, cst(conv.getPadLow()[d] + conv.getPadHigh()[d]));
      // max(span - reach, -stride) / stride + 1 is max(0, ...) for any span.
      Value rest = arith::MaxSIOp::create(
          hb, arith::SubIOp::create(hb, span, cst(reach)),
          cst(-conv.getStrides()[d]));
      dynamicSizes.push_back(arith::AddIOp::create(
          hb, arith::FloorDivSIOp::create(hb, rest, cst(conv.getStrides()[d])),
          cst(1)));
    }
  }
  replaceWithHostCall(op, kernels, name, tensors, dynamicSizes);
  return success();
}

namespace {

/// The element-wise ops after a dense product that its kernel's epilogue
/// computes (foldDenseTail), in program order.
struct DenseTail {
  SmallVector<Operation *> ops;
  Value bias, residual;
  Activation activation = Activation::none;

  std::string describe() const {
    SmallVector<std::string> parts;
    if (bias)
      parts.push_back("the bias");
    if (residual)
      parts.push_back("the residual");
    if (activation != Activation::none)
      parts.push_back(stringifyActivation(activation).str());
    return llvm::join(parts, ", ");
  }
};

} // namespace

/// Folds the chain of single-use element-wise ops after the dense product
/// `op` that its epilogue computes, act(x + bias + residual), into `pb`: a
/// bias per row of S (a convolution's output channel, the last NHWC
/// dimension; a product's column when S is B, its row when S is A), then a
/// residual of the result's shape (when the product has no acc of its
/// own), then ReLU or erf GELU; each as stc-fuse-epilogue matches it after
/// a stc.spmm (FuseEpilogue.h). A bias or residual after the activation
/// ends the chain. Batched products are left alone (their bias would be
/// per matrix).
static DenseTail foldDenseTail(linalg::LinalgOp op, Problem &pb) {
  DenseTail tail;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  unsigned rank = type.getRank();
  if (pb.batched || (!pb.conv && rank != 2))
    return tail;
  unsigned channelDim = pb.conv ? rank - 1 : (pb.sparseLhs ? 0 : 1);
  Value x = op->getResult(0);
  while (x.hasOneUse()) {
    auto g = dyn_cast<linalg::GenericOp>(*x.getUsers().begin());
    if (!g || g->getResult(0).getType() != type)
      break;
    bool noActivation = tail.activation == Activation::none;
    if (Value bias = epilogue::matchBiasAdd(g, x, rank, channelDim);
        bias && !tail.bias && noActivation) {
      tail.bias = bias;
    } else if (Value residual = epilogue::matchResidualAdd(g, x, rank);
               residual && !tail.residual && !pb.hasAcc && noActivation) {
      tail.residual = residual;
    } else if (noActivation && epilogue::matchRelu(g, x, rank)) {
      tail.activation = Activation::relu;
    } else if (noActivation && epilogue::matchGeluErf(g, x, rank)) {
      tail.activation = Activation::gelu_erf;
    } else {
      break;
    }
    tail.ops.push_back(g);
    x = g->getResult(0);
  }
  if (tail.bias) {
    pb.hasBias = true;
    pb.biasType = getElementTypeOrSelf(tail.bias.getType());
  }
  if (tail.residual) {
    pb.hasAcc = true;
    pb.accType = getElementTypeOrSelf(tail.residual.getType());
    pb.beta = 1.0;
  }
  pb.activation = tail.activation;
  return tail;
}

LogicalResult LowerSpmmToGpu::lowerDense(linalg::LinalgOp op,
                                         KernelConfigAttr config,
                                         gpu::GPUModuleOp kernels,
                                         unsigned index) {
  std::string why;
  FailureOr<DenseGemm> gemm = denseKernelProblemOf(op, why);
  if (failed(gemm))
    return op->emitError() << kPass << ": " << op->getName() << " has a "
                           << KernelConfigAttr::kAttrName
                           << " but the dense tensor-core kernel cannot "
                              "compute it: "
                           << (why.empty()
                                   ? "it is not a contraction or convolution"
                                   : why);
  Problem pb = gemm->pb;
  if (failed(checkKernelConfig(op, pb, config, kPass)))
    return failure();
  pb.f16Acc = config.getAccumulator() == stc_gpu::Accumulator::f16;
  DenseTail tail = foldDenseTail(op, pb);
  std::string name =
      (pb.conv ? "stc_dense_conv_" : "stc_gemm_") + std::to_string(index);
  KernelFacts facts = config.isWgmma()
                          ? emitHopperKernel(op, kernels, pb, config, name)
                          : emitMmaSpKernel(op, kernels, pb, config, name);
  ImplicitLocOpBuilder hb(op->getLoc(), op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value s = gemm->s;
  stc_gpu::ConvGeometryAttr geometry;
  if (pb.conv) {
    // The filter as the (G*F) x (KH*KW*C) matrix of its rows (a view);
    // the input and result keep their shapes, whose N, H and W (OH, OW)
    // come first either way.
    const ConvGeometry &cg = *pb.conv;
    auto filterType = cast<RankedTensorType>(s.getType());
    s = tensor::CollapseShapeOp::create(
        hb, s,
        filterType.getRank() == 5
            ? SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}}
            : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    auto dyn = [](int64_t v) { return ShapedType::isDynamic(v) ? -1 : v; };
    auto input = cast<RankedTensorType>(gemm->d.getType());
    geometry = stc_gpu::ConvGeometryAttr::get(
        op->getContext(), cg.kh, cg.kw, cg.strideH, cg.strideW, cg.dilationH,
        cg.dilationW, cg.padH, cg.padW, gemm->padHighH, gemm->padHighW, cg.c,
        cg.cp, cg.groups, dyn(input.getDimSize(0)), dyn(input.getDimSize(1)),
        dyn(input.getDimSize(2)), dyn(resultType.getDimSize(1)),
        dyn(resultType.getDimSize(2)));
  }
  recordKernelInfo(kernels, facts, config, pb, gemm->denseTransposed,
                   /*meta=*/nullptr, geometry);
  SmallVector<Value> tensors = {s, gemm->d};
  if (pb.hasBias)
    tensors.push_back(tail.bias);
  if (pb.hasAcc)
    tensors.push_back(tail.residual ? tail.residual : gemm->acc);
  // The kernel writes the last op of the tail it folded (the op itself
  // when none).
  Operation *replaced = tail.ops.empty() ? op.getOperation() : tail.ops.back();
  Value last = cast<DestinationStyleOpInterface>(replaced).getDpsInits()[0];
  // The sizes where the call goes: the last op's init may come after op.
  hb.setInsertionPoint(replaced);
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      dynamicSizes.push_back(tensor::DimOp::create(hb, last, d));
  InFlightDiagnostic remark = op->emitRemark();
  remark << "stc: dense " << op->getName()
         << " runs on the GPU's tensor cores as @" << name << " ("
         << (pb.conv ? "implicit GEMM, " : "")
         << (config.isWgmma() ? "wgmma" : "mma.sync") << ", "
         << config.getBlockRows() << "x" << config.getBlockCols() << " tiles";
  if (!tail.ops.empty())
    remark << "; its epilogue adds " << tail.describe();
  remark << ")";
  replaceWithHostCall(replaced, kernels, name, tensors, dynamicSizes);
  // The tail's ops before the last, then the op, read by nothing now.
  for (Operation *folded :
       llvm::reverse(ArrayRef(tail.ops).drop_back(tail.ops.empty() ? 0 : 1)))
    folded->erase();
  if (replaced != op.getOperation())
    op->erase();
  for (Operation *producer : gemm->foldedProducers)
    if (producer->use_empty())
      producer->erase();
  return success();
}

void LowerSpmmToGpu::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    // Sparse ops, and the dense contractions stc-configure-gpu-kernels
    // gave the tensor-core kernel.
    if (isa<SpmmOp, ConvOp>(op) ||
        (isa<linalg::LinalgOp>(op) && getKernelConfig(op)))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  // One gpu.module, compiled for one architecture.
  SmallVector<KernelConfigAttr> configs;
  for (Operation *op : ops) {
    KernelConfigAttr config = getKernelConfig(op);
    if (!config) {
      op->emitError() << kPass << ": " << op->getName() << " has no "
                      << KernelConfigAttr::kAttrName
                      << " (run stc-configure-gpu-kernels first)";
      return signalPassFailure();
    }
    if (!configs.empty() && config.getArch() != configs.front().getArch()) {
      op->emitError() << kPass << ": kernel configurations for "
                      << stc_gpu::stringifyGpuArch(configs.front().getArch())
                      << " and " << stc_gpu::stringifyGpuArch(config.getArch())
                      << " in one module, which is compiled for one GPU";
      return signalPassFailure();
    }
    configs.push_back(config);
  }
  gpu::GPUModuleOp kernels = getOrCreateKernelModule(module);
  // Sparse and dense kernels are numbered apart (@stc_spmm_N/@stc_conv_N,
  // @stc_gemm_N), so that a sparse kernel's name does not depend on the
  // dense contractions around it.
  unsigned sparseIndex = 0, denseIndex = 0;
  for (auto [op, config] : llvm::zip(ops, configs)) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (failed(linalgOp ? lowerDense(linalgOp, config, kernels, denseIndex++)
                        : lower(op, config, kernels, sparseIndex++)))
      return signalPassFailure();
  }
}
