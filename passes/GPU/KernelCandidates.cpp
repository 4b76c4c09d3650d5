//===- KernelCandidates.cpp - the configurations a tuner tries ------------===//
//
// See KernelCandidates.h. The space is small on purpose: the knobs the
// H200 runs showed to matter (block tile, wgmma cluster, staged pipeline
// depth), each family's legal tiles, with the rest as the heuristic sets
// it. A device machine times a few dozen kernels per minute.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelCandidates.h"
#include "passes/GPU/HopperKernelShape.h"
#include "passes/GPU/HopperTiling.h"
#include "passes/GPU/KernelConfig.h"
#include "passes/GPU/MmaSpTiling.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::GpuArch;
using stc_gpu::KernelConfigAttr;
using stc_gpu::KernelFamily;

SmallVector<std::pair<int64_t, int64_t>>
gpu_kernel::candidateTiles(KernelFamily family, GpuArch arch) {
  switch (family) {
  case KernelFamily::wgmma:
    // 256 rows take at most 128 columns (two 64-row tiles per consumer).
    return {{128, 256}, {128, 128}, {256, 128},
            {128, 64},  {64, 256},  {64, 128}};
  case KernelFamily::staged: {
    SmallVector<std::pair<int64_t, int64_t>> tiles = {
        {128, 128}, {128, 64}, {64, 128}, {64, 64}};
    // The staged kernel's 256-row tiles are for the mma.sp targets; on
    // sm_90a its tiles stop at 128.
    if (!stc_gpu::hasWgmma(arch))
      tiles.push_back({256, 128});
    return tiles;
  }
  case KernelFamily::direct:
    return {{64, 64}, {128, 64}, {64, 128}};
  }
  return {};
}

namespace {

/// `base` with another family, tile, ring or pipeline depth and cluster;
/// null when the attribute's verifier refuses it.
KernelConfigAttr variantOf(Operation *op, KernelConfigAttr base,
                           KernelFamily family, int64_t rows, int64_t cols,
                           int64_t stages, int64_t clusterRows) {
  auto [warpRows, warpCols] = family == KernelFamily::staged
                                  ? chooseMmaSpWarpTile(rows, cols)
                                  : std::pair<int64_t, int64_t>{32, 32};
  bool wgmma = family == KernelFamily::wgmma;
  // A wgmma convolution's pixel tile covers the block's columns: rows of
  // 8 or 16 pixels, as the heuristic makes them.
  int64_t pixelW = 0, pixelH = 0;
  if (wgmma && base.getPixelTileW()) {
    pixelW = cols == 64 ? 8 : 16;
    pixelH = cols / pixelW;
  }
  return KernelConfigAttr::getChecked(
      [op] { return op->emitError(); }, op->getContext(), base.getArch(),
      family, rows, cols, stages, clusterRows,
      /*group_rows=*/int64_t{0}, /*multicast_b=*/false,
      wgmma ? base.getASource() : stc_gpu::WgmmaASource::smem,
      base.getAccumulator(), base.getOrderedMetadata() || wgmma,
      family == KernelFamily::staged && base.getDirectFallback(), pixelH,
      pixelW, warpRows, warpCols,
      /*stage_k_steps=*/int64_t{1});
}

} // namespace

SmallVector<KernelConfigAttr>
gpu_kernel::kernelCandidates(Operation *op, const Problem &pb, GpuArch arch,
                             bool dense, KernelConfigAttr heuristic) {
  SmallVector<KernelConfigAttr> result = {heuristic};
  // Rejected candidates are not the user's errors.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  auto add = [&](KernelConfigAttr config) {
    if (!config || llvm::is_contained(result, config))
      return;
    if (succeeded(checkKernelConfig(op, pb, config, "tuner")))
      result.push_back(config);
  };
  KernelFamily family = heuristic.getFamily();
  if (!dense && family == KernelFamily::wgmma) {
    HopperKernelShape shape;
    shape.elementBytes = pb.int8 ? 1 : 2;
    for (auto [rows, cols] : candidateTiles(KernelFamily::wgmma, arch)) {
      int64_t stages = hopperStagesThatFit(
          hopperStageBytes(rows, cols, shape.blockK(), shape.elementBytes));
      for (int64_t cluster : {1, 2})
        add(variantOf(op, heuristic, family, rows, cols, stages, cluster));
    }
    // The mma.sp kernel the sm_90 target would build, for comparison.
    add(variantOf(op, heuristic, KernelFamily::staged, 128, 128, 3, 1));
    return result;
  }
  for (auto [rows, cols] : candidateTiles(family, arch)) {
    if (family == KernelFamily::direct) {
      add(variantOf(op, heuristic, family, rows, cols, 0, 1));
      continue;
    }
    for (int64_t stages : {3, 4})
      add(variantOf(op, heuristic, family, rows, cols, stages, 1));
  }
  return result;
}

SmallVector<tuning::ModelKernel>
gpu_kernel::modelCandidates(GpuArch arch, bool sparse, bool wgmma) {
  SmallVector<tuning::ModelKernel> result;
  KernelFamily family =
      sparse && wgmma ? KernelFamily::wgmma : KernelFamily::staged;
  for (auto [rows, cols] : candidateTiles(family, arch))
    result.push_back({sparse, stringifyKernelFamily(family).str(), rows, cols});
  return result;
}

tuning::ModelKernel gpu_kernel::modelKernelOf(KernelConfigAttr config,
                                              bool sparse) {
  return {sparse, stringifyKernelFamily(config.getFamily()).str(),
          config.getBlockRows(), config.getBlockCols()};
}

std::string gpu_kernel::tuningTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isInteger(8))
    return "i8";
  if (type.isInteger(32))
    return "i32";
  return "";
}

namespace {

/// The convolution of an stc.conv with static sizes.
std::optional<tuning::ConvShape> convShapeOf(ConvOp op) {
  RankedTensorType input = op.getInput().getType();
  auto result = cast<RankedTensorType>(op.getResult().getType());
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return std::nullopt;
  tuning::ConvShape c;
  c.n = input.getDimSize(0);
  c.h = input.getDimSize(1);
  c.w = input.getDimSize(2);
  c.c = input.getDimSize(3);
  c.f = result.getDimSize(3);
  c.kh = op.getFilterSize()[0];
  c.kw = op.getFilterSize()[1];
  c.strideH = op.getStrides()[0];
  c.strideW = op.getStrides()[1];
  c.dilationH = op.getDilations()[0];
  c.dilationW = op.getDilations()[1];
  c.padTop = op.getPadLow()[0];
  c.padLeft = op.getPadLow()[1];
  c.padBottom = op.getPadHigh()[0];
  c.padRight = op.getPadHigh()[1];
  c.groups = op.getGroups();
  return c;
}

} // namespace

std::optional<tuning::TuningKey>
gpu_kernel::tuningKeyOf(Operation *op, const Problem &pb, GpuArch arch) {
  if (ShapedType::isDynamic(pb.rows) || ShapedType::isDynamic(pb.cols) ||
      ShapedType::isDynamic(pb.depth))
    return std::nullopt;
  tuning::TuningKey key;
  if (pb.conv) {
    auto conv = dyn_cast<ConvOp>(op);
    key.conv = conv ? convShapeOf(conv) : std::nullopt;
    if (!key.conv)
      return std::nullopt;
    key.op = "conv";
  }
  key.arch = stc_gpu::stringifyGpuArch(arch).str();
  key.m = pb.rows;
  key.n = pb.cols;
  key.k = pb.depth;
  if (pb.batched) {
    auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
    if (!type || type.isDynamicDim(0))
      return std::nullopt;
    key.batch = type.getDimSize(0);
  }
  key.dtype = tuningTypeName(pb.inputType);
  key.out = tuningTypeName(pb.outputType);
  if (key.dtype.empty() || key.out.empty())
    return std::nullopt;
  bool act = pb.activation != Activation::none;
  key.epilogue = pb.hasAcc           ? "acc"
                 : pb.hasBias && act ? "bias_act"
                 : pb.hasBias        ? "bias"
                 : act               ? "act"
                                     : "none";
  return key;
}

tuning::ModelProblem gpu_kernel::modelProblemOf(const tuning::TuningKey &key) {
  auto bytes = [](llvm::StringRef t) -> int64_t {
    return t == "i8" ? 1 : t == "f32" || t == "i32" ? 4 : 2;
  };
  tuning::ModelProblem pb;
  pb.m = key.m;
  pb.n = key.n;
  pb.k = key.k;
  pb.batch = key.batch;
  pb.inBytes = bytes(key.dtype);
  pb.outBytes = bytes(key.out);
  pb.int8 = key.dtype == "i8";
  pb.readsAcc = key.epilogue == "acc";
  if (key.conv) {
    // Independent groups; each reads its share of the input once.
    pb.batch = key.conv->groups;
    pb.denseBytes = static_cast<double>(key.conv->n * key.conv->h *
                                        key.conv->w * key.conv->c) *
                    static_cast<double>(pb.inBytes) /
                    static_cast<double>(key.conv->groups);
  }
  return pb;
}
