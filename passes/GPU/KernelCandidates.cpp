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
#include "llvm/Support/FormatVariadic.h"

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

/// What a candidate changes of the heuristic's configuration.
struct Variant {
  KernelFamily family;
  int64_t rows, cols, stages, clusterRows = 1;
  /// Grouped block order (row tiles per group), 0 for launch order.
  int64_t groupRows = 0;
  /// wgmma: TMA multicast of B in a cluster of 2; A from registers.
  bool multicastB = false, aFromRegisters = false;
  /// staged: mma.sp K steps per pipeline stage.
  int64_t stageKSteps = 1;
  /// wgmma, 2:4: the metadata through the TMA ring.
  bool metaTma = false;
  /// wgmma convolution: pixel tiles per image even where the heuristic
  /// tiles a pointwise convolution's pixels flat.
  bool perImage = false;
};

/// `base` changed as `v` says; null when the attribute's verifier refuses
/// it. `pixels`: a convolution's output (pixelGridOf).
KernelConfigAttr variantOf(Operation *op, KernelConfigAttr base,
                           const Variant &v, const HopperPixelGrid &pixels) {
  auto [warpRows, warpCols] = v.family == KernelFamily::staged
                                  ? chooseMmaSpWarpTile(v.rows, v.cols)
                                  : std::pair<int64_t, int64_t>{32, 32};
  bool wgmma = v.family == KernelFamily::wgmma;
  // A wgmma convolution's pixel tile covers the block's columns, chosen
  // as the heuristic chooses it.
  int64_t pixelW = 0, pixelH = 0;
  if (wgmma && (base.getPixelTileW() || v.perImage)) {
    HopperPixelTile tile = chooseHopperPixelTile(v.cols, pixels);
    pixelW = tile.cols;
    pixelH = tile.rows;
  }
  return KernelConfigAttr::getChecked(
      [op] { return op->emitError(); }, op->getContext(), base.getArch(),
      v.family, v.rows, v.cols, v.stages, v.clusterRows, v.groupRows,
      v.multicastB,
      v.aFromRegisters ? stc_gpu::WgmmaASource::registers
                       : stc_gpu::WgmmaASource::smem,
      base.getAccumulator(), base.getOrderedMetadata() || wgmma,
      v.family == KernelFamily::staged && base.getDirectFallback(), pixelH,
      pixelW, warpRows, warpCols, v.stageKSteps, v.metaTma,
      /*vector_stores=*/false);
}

} // namespace

SmallVector<KernelConfigAttr>
gpu_kernel::kernelCandidates(Operation *op, const Problem &pb, GpuArch arch,
                             bool dense, KernelConfigAttr heuristic) {
  SmallVector<KernelConfigAttr> result = {heuristic};
  // Rejected candidates are not the user's errors.
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  // True when the candidate is in the list (now or before).
  auto add = [&](Variant v) {
    // The sm_90a kernel's ring: no slots past the op's fills.
    if (v.family == KernelFamily::wgmma)
      v.stages =
          hopperUsefulStages(v.stages, wgmmaRingFills(pb, v.stageKSteps));
    KernelConfigAttr config = variantOf(op, heuristic, v, pixelGridOf(pb));
    if (!config)
      return false;
    if (llvm::is_contained(result, config))
      return true;
    if (failed(checkKernelConfig(op, pb, config, "tuner")))
      return false;
    result.push_back(config);
    return true;
  };
  KernelFamily family = heuristic.getFamily();
  int64_t rows = heuristic.getBlockRows(), cols = heuristic.getBlockCols();
  if (family == KernelFamily::wgmma) {
    // The knobs the H200 runs found worth 5-30 % on some shapes, on the
    // heuristic's tile first: the grouped order, multicast of B, A from
    // registers (2:4 only), the cluster.
    int64_t stages = heuristic.getStages();
    int64_t cluster = heuristic.getClusterRows();
    add({family, rows, cols, stages, 3 - cluster});
    add({family, rows, cols, stages, cluster, /*groupRows=*/8 * cluster});
    add({family, rows, cols, stages, 2, 0, /*multicastB=*/true});
    if (!dense) {
      add({family, rows, cols, stages, cluster, 0, false,
           /*aFromRegisters=*/true});
      // The metadata ring takes 2 KiB per 64 rows and vector slot: one
      // stage fewer where the heuristic's ring fills shared memory.
      Variant metaTma{family,          rows,  cols, stages, cluster, 0,
                      false,           false, 1,
                      /*metaTma=*/true};
      if (!add(metaTma)) {
        --metaTma.stages;
        add(metaTma);
      }
    }
    HopperKernelShape shape;
    shape.elementBytes = pb.int8 ? 1 : 2;
    auto stepBytes = [&](int64_t r, int64_t c) {
      return hopperStageBytes(r, c, shape.blockK(), shape.elementBytes, dense);
    };
    // Decode-size products (at most 32 columns): 16 or 32 columns and a
    // ring as deep as fits (up to 12 slots), so that more of A is in
    // flight. (Which products can take them, checkKernelConfig says.)
    if (!ShapedType::isDynamic(pb.cols) && pb.cols <= 32) {
      int64_t narrow = pb.cols <= 16 ? 16 : 32;
      for (int64_t r : {64, 128})
        add({family, r, narrow,
             hopperStagesThatFit(stepBytes(r, narrow), HopperDevice(),
                                 kMaxWgmmaStages),
             1});
    }
    // Two K steps a ring slot, as many slots as fit.
    add({family, rows, cols, hopperStagesThatFit(2 * stepBytes(rows, cols)),
         cluster, 0, false, false, /*stageKSteps=*/2});
    for (auto [r, c] : candidateTiles(KernelFamily::wgmma, arch)) {
      int64_t fit = hopperStagesThatFit(stepBytes(r, c));
      for (int64_t clusterRows : {1, 2})
        add({family, r, c, fit, clusterRows});
    }
    // A pointwise convolution tiled flat: the same tiles per image, so
    // that the measurement decides.
    if (pb.conv && heuristic.getPixelTileW() == 0)
      for (auto [r, c] : candidateTiles(KernelFamily::wgmma, arch)) {
        Variant image{family, r, c, hopperStagesThatFit(stepBytes(r, c)), 1};
        image.perImage = true;
        add(image);
      }
    // The mma.sp (dense: mma.sync) kernel the sm_90 target would build,
    // for comparison.
    add({KernelFamily::staged, 128, 128, 3});
    return result;
  }
  if (family == KernelFamily::staged) {
    int64_t stages = heuristic.getStages();
    add({family, rows, cols, stages, 1, 0, false, false, /*stageKSteps=*/2});
    add({family, rows, cols, stages, 1, /*groupRows=*/8});
  }
  for (auto [r, c] : candidateTiles(family, arch)) {
    if (family == KernelFamily::direct) {
      add({family, r, c, 0});
      continue;
    }
    for (int64_t stages : {3, 4})
      add({family, r, c, stages});
  }
  return result;
}

SmallVector<tuning::ModelKernel>
gpu_kernel::modelCandidates(GpuArch arch, bool sparse, bool wgmma) {
  SmallVector<tuning::ModelKernel> result;
  KernelFamily family = wgmma ? KernelFamily::wgmma : KernelFamily::staged;
  for (auto [rows, cols] : candidateTiles(family, arch))
    result.push_back({sparse, stringifyKernelFamily(family).str(), rows, cols});
  return result;
}

tuning::ModelKernel gpu_kernel::modelKernelOf(KernelConfigAttr config,
                                              bool sparse) {
  // Everything but the family and tile, in a short stable spelling.
  std::string variant = llvm::formatv("s{0}", config.getStages()).str();
  if (config.getClusterRows() != 1)
    variant += llvm::formatv(" c{0}", config.getClusterRows()).str();
  if (config.getGroupRows())
    variant += llvm::formatv(" g{0}", config.getGroupRows()).str();
  if (config.getMulticastB())
    variant += " mc";
  if (config.getASource() == stc_gpu::WgmmaASource::registers)
    variant += " areg";
  if (config.getMetaTma())
    variant += " mtma";
  if (config.getVectorStores())
    variant += " vst";
  if (!config.isWgmma())
    variant +=
        llvm::formatv(" w{0}x{1}", config.getWarpRows(), config.getWarpCols())
            .str();
  if (config.getStageKSteps() != 1)
    variant += llvm::formatv(" k{0}", config.getStageKSteps()).str();
  if (config.getAccumulator() == stc_gpu::Accumulator::f16)
    variant += " f16acc";
  return {sparse,
          stringifyKernelFamily(config.getFamily()).str(),
          config.getBlockRows(),
          config.getBlockCols(),
          variant,
          config.getPixelTileH(),
          config.getPixelTileW()};
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
    const tuning::ConvShape &c = *key.conv;
    pb.images = c.n;
    pb.outH = ConvOp::getOutputSize(c.h, c.kh, c.strideH, c.dilationH, c.padTop,
                                    c.padBottom);
    pb.outW = ConvOp::getOutputSize(c.w, c.kw, c.strideW, c.dilationW,
                                    c.padLeft, c.padRight);
  }
  return pb;
}
