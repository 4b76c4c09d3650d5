//===- KernelConfig.cpp - reading a #stc_gpu.kernel_config ----*- C++ -*-===//
//
// See KernelConfig.h. Every error here has a case in
// test/Passes/stc-lower-spmm-to-gpu-config-invalid.mlir.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelConfig.h"
#include "passes/GPU/MmaSpFragments.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::Accumulator;
using stc_gpu::KernelConfigAttr;

KernelConfigAttr mlir::stc::gpu_kernel::getKernelConfig(Operation *op) {
  return op->getAttrOfType<KernelConfigAttr>(KernelConfigAttr::kAttrName);
}

std::string mlir::stc::gpu_kernel::describeDepth(const Problem &pb) {
  if (pb.denseS)
    return "a dense contraction";
  return "K = " + (ShapedType::isDynamic(pb.depth) ? std::string("?")
                                                   : std::to_string(pb.depth));
}

int64_t mlir::stc::gpu_kernel::wgmmaStepK(const Problem &pb) {
  return HopperKernelShape::kRowBytes / (pb.int8 ? 1 : 2);
}

bool mlir::stc::gpu_kernel::takesTwoStepsPerSlot(const Problem &pb) {
  return !pb.denseS && !ShapedType::isDynamic(pb.depth) &&
         llvm::divideCeil(pb.depth, wgmmaStepK(pb)) % 2 == 0;
}

int64_t mlir::stc::gpu_kernel::wgmmaRingFills(const Problem &pb,
                                              int64_t stepsPerSlot) {
  if (ShapedType::isDynamic(pb.depth))
    return 0;
  return llvm::divideCeil(llvm::divideCeil(pb.depth, wgmmaStepK(pb)),
                          stepsPerSlot);
}

HopperKernelShape mlir::stc::gpu_kernel::hopperShapeOf(KernelConfigAttr config,
                                                       const Problem &pb) {
  HopperKernelShape shape;
  shape.elementBytes = pb.int8 ? 1 : 2;
  shape.denseA = pb.denseS;
  shape.blockRows = config.getBlockRows();
  shape.blockCols = config.getBlockCols();
  shape.stages = config.getStages();
  shape.clusterRows = config.getClusterRows();
  shape.groupRows = config.getGroupRows();
  shape.multicastB = config.getMulticastB();
  shape.metaThroughTma = config.getMetaTma();
  shape.vectorStores = config.getVectorStores();
  shape.stepsPerSlot = config.getStageKSteps();
  shape.aFromSharedMemory = config.getASource() == stc_gpu::WgmmaASource::smem;
  shape.pixelTileH = config.getPixelTileH();
  shape.pixelTileW = config.getPixelTileW();
  return shape;
}

LogicalResult mlir::stc::gpu_kernel::checkKernelConfig(
    Operation *op, const Problem &pb, KernelConfigAttr config, StringRef pass,
    const HopperDevice &device) {
  auto error = [&]() {
    InFlightDiagnostic d = op->emitError();
    d << pass << ": ";
    return d;
  };
  Accumulator acc = config.getAccumulator();
  Accumulator natural = pb.int8 ? Accumulator::s32 : Accumulator::f32;
  bool f16Allowed = pb.inputType.isF16() && !config.isWgmma();
  if (acc != natural && !(acc == Accumulator::f16 && f16Allowed))
    return error() << pb.inputType << " operands accumulate in "
                   << stc_gpu::stringifyAccumulator(natural)
                   << (pb.inputType.isF16() && !config.isWgmma() ? " (or f16)"
                                                                 : "")
                   << ", got accumulator = "
                   << stc_gpu::stringifyAccumulator(acc);
  if (pb.denseS && !config.isWgmma()) {
    // The dense kernel is the staged one with twice the bytes of A a K step
    // (no direct variant, no fallback: its rows are aligned), or on sm_90a
    // the wgmma kernel (below).
    if (!config.isStaged() || config.getDirectFallback())
      return error() << "a dense contraction runs on the staged kernel "
                        "without a direct fallback (or on sm_90a the wgmma "
                        "kernel), got family "
                     << stc_gpu::stringifyKernelFamily(config.getFamily());
    int64_t bytes = stagedSharedBytes(
        pb, config.getBlockRows(), config.getBlockCols(),
        WarpTile{config.getWarpRows(), config.getWarpCols()},
        config.getStages(), config.getStageKSteps(), config.getVectorStores());
    int64_t limit = stc_gpu::sharedBytesOptIn(config.getArch());
    if (bytes > limit)
      return error() << "the dense kernel's " << config.getStages()
                     << " stages of a " << config.getBlockRows() << " x "
                     << config.getBlockCols() << " tile take " << bytes
                     << " bytes of shared memory; "
                     << stc_gpu::stringifyGpuArch(config.getArch())
                     << " allows " << limit << " a block";
    return success();
  }
  if (config.isWgmma()) {
    if (pb.denseS && config.getMetaTma())
      return error() << "meta_tma needs a 2:4 operand; a dense contraction "
                        "has no metadata";
    if (config.getBlockCols() < 64 &&
        (pb.denseS || pb.conv || pb.denseKMajor || config.getMulticastB()))
      return error() << "block_cols = " << config.getBlockCols()
                     << " needs a 2:4 GEMM whose dense operand has K "
                        "contiguous, without multicast; got "
                     << (pb.denseS        ? "a dense contraction"
                         : pb.conv        ? "a convolution"
                         : pb.denseKMajor ? "a k-major dense operand"
                                          : "multicast_b");
    if (config.getStageKSteps() == 2 && !takesTwoStepsPerSlot(pb))
      return error() << "stage_k_steps = 2 on the wgmma kernel needs a "
                        "2:4 operand and a static K of an even number of "
                     << wgmmaStepK(pb) << "-K steps; got " << describeDepth(pb);
    if (pb.denseS) {
      // A dense A (HopperKernel.cpp) through its shared-memory descriptor
      // (f32 accumulation is checked above). A batch's blocks stack its
      // matrices' row tiles along grid y: neither paired in clusters nor
      // regrouped.
      std::string got;
      llvm::raw_string_ostream os(got);
      if (pb.batched && (config.getClusterRows() != 1 || config.getGroupRows()))
        os << "a batch with cluster_rows = " << config.getClusterRows()
           << ", group_rows = " << config.getGroupRows();
      else if (config.getASource() != stc_gpu::WgmmaASource::smem)
        os << "a_source = registers";
      if (!got.empty())
        return error() << "the dense wgmma kernel takes A from shared memory "
                          "and, for a batch, no cluster or grouped order; got "
                       << got;
    }
    // A convolution's gather, dense or 2:4, has the same rules.
    if (!pb.denseS || pb.conv)
      if (std::string why = wgmmaUnsupported(op, pb, /*f16Acc=*/false);
          !why.empty())
        return error() << "the wgmma kernel needs " << why;
    if (config.getMulticastB() &&
        (pb.conv || (pb.denseKMajor && config.getBlockCols() < 128)))
      return error() << "multicast_b needs a GEMM whose tile has at least "
                        "128 columns when its dense operand is k-major; got "
                     << (pb.conv ? "a convolution"
                                 : std::to_string(config.getBlockCols()) +
                                       " columns");
    if (!pb.conv && config.getPixelTileH() > 0)
      return error() << "a wgmma kernel has pixel tiles only for a "
                        "convolution; got pixel tiles for a GEMM";
    if (pb.conv && config.getPixelTileH() == 0 && !isPointwiseConv(pb))
      return error() << "a wgmma convolution without pixel tiles (its "
                        "pixels tiled flat) must be one matrix product: "
                        "1x1, stride 1, no padding, one group; got "
                     << pb.conv->kh << "x" << pb.conv->kw << ", stride "
                     << pb.conv->strideH << "x" << pb.conv->strideW
                     << ", padding " << pb.conv->padH << "," << pb.conv->padW
                     << "," << pb.conv->padBottom << "," << pb.conv->padRight
                     << ", " << pb.conv->groups << " group(s)";
    HopperKernelShape shape = hopperShapeOf(config, pb);
    if (shape.sharedBytes() > device.sharedBytesPerBlock)
      return error() << "the sm_90a kernel's ring of " << shape.stages
                     << " stages of " << shape.blockRows << " x "
                     << shape.blockCols << " needs " << shape.sharedBytes()
                     << " bytes of shared memory, more than the "
                     << device.sharedBytesPerBlock << " a block may have";
    return success();
  }
  StagingFit fit = stagingFitOf(op, pb);
  if (config.isStaged() && fit.staging == Staging::never)
    return error() << "the staged kernel needs " << fit.needs;
  bool needsFallback = config.isStaged() && fit.staging == Staging::ifAligned;
  if (config.getDirectFallback() != needsFallback)
    return error() << "direct_fallback must be "
                   << (needsFallback ? "true" : "false")
                   << (needsFallback
                           ? ": whether the staged kernel's rows are 16-byte "
                             "aligned is only known at run time"
                           : ": the kernel's rows are known at compile time");
  return success();
}
