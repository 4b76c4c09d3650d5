//===- ConfigureGpuKernels.cpp - choose each sparse op's GPU kernel -*- C++
//-*-//
//
// stc-configure-gpu-kernels: attaches a #stc_gpu.kernel_config to every
// stc.spmm and stc.conv that has none, and to every dense contraction the
// tensor-core kernel can compute (DenseGemm.h; a remark says why another
// contraction cannot). The choice is the project's
// heuristics (chooseHopperTiling, chooseMmaSpBlockTile, the ring that fits)
// with the knobs of KernelOptions.def on top; the result is checked with
// checkKernelConfig, the same check stc-lower-spmm-to-gpu applies to a
// configuration it is given, so an impossible knob is reported here, where
// it was asked for.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/ConfigureGpuKernels.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/HopperKernelShape.h"
#include "passes/GPU/HopperTiling.h"
#include "passes/GPU/KernelCandidates.h"
#include "passes/GPU/KernelConfig.h"
#include "passes/GPU/KernelOptions.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/MmaSpTiling.h"
#include "passes/GPU/TuningData.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"
#include "dialects/StcGpu/StcGpuAttrs.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

namespace mlir::stc {
#define GEN_PASS_DEF_STCCONFIGUREGPUKERNELS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::Accumulator;
using stc_gpu::GpuArch;
using stc_gpu::KernelConfigAttr;
using stc_gpu::KernelFamily;

namespace {

constexpr llvm::StringLiteral kPass = "stc-configure-gpu-kernels";

/// Where a configuration the heuristics and knobs produce breaks one of the
/// attribute's rules (the knobs are checked first, so this should not
/// happen), the attribute verifier's message goes on the op.
std::function<InFlightDiagnostic()> configError(Operation *op) {
  return [op] {
    InFlightDiagnostic d = op->emitError();
    d << kPass << ": ";
    return d;
  };
}

class ConfigureGpuKernels
    : public mlir::stc::impl::StcConfigureGpuKernelsBase<ConfigureGpuKernels> {
public:
  using Base::Base;
  /// The knobs are registered options: clonePass copies their values after
  /// this (copyOptionValuesFrom), as for the generated ones.
  ConfigureGpuKernels(const ConfigureGpuKernels &other) : Base(other) {}
  ConfigureGpuKernels(const StcConfigureGpuKernelsOptions &options,
                      const GpuKernelOptions &knobs)
      : Base(options) {
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  FIELD = knobs.FIELD;
#include "passes/GPU/KernelOptions.def"
  }
  void runOnOperation() override;

private:
  /// The knobs, one pass option each (KernelOptions.def). TYPE is a
  /// template argument and FIELD a member name: neither can take the
  /// parentheses clang-tidy asks macro arguments for.
  // NOLINTBEGIN(bugprone-macro-parentheses)
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  Option<TYPE> FIELD{*this, NAME, llvm::cl::desc(HELP),                        \
                     llvm::cl::init(DEFAULT)};
#include "passes/GPU/KernelOptions.def"
  // NOLINTEND(bugprone-macro-parentheses)

  GpuKernelOptions knobs() const {
    GpuKernelOptions k;
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP) k.FIELD = FIELD;
#include "passes/GPU/KernelOptions.def"
    return k;
  }

  /// The configuration of `op` on `arch`, or failure after an error.
  FailureOr<KernelConfigAttr> configure(Operation *op, GpuArch arch,
                                        const GpuKernelOptions &k);
  FailureOr<KernelConfigAttr> configureWgmma(Operation *op, const Problem &pb,
                                             const GpuKernelOptions &k);
  FailureOr<KernelConfigAttr> configureMmaSp(Operation *op, const Problem &pb,
                                             GpuArch arch, bool f16Acc,
                                             const GpuKernelOptions &k);
  /// A dense contraction: on sm_90a the wgmma kernel with a dense A where
  /// it applies (one matrix product, f32 accumulation, A from shared
  /// memory), else the staged kernel with a dense S (mma.sync m16n8k16 is
  /// on sm_80 and later), with the block, warp, stage and group knobs.
  /// `kernel=staged` keeps the staged kernel on sm_90a, `kernel=wgmma`
  /// asks for the wgmma one (an error where it cannot apply), and
  /// `kernel=direct` concerns the sparse ops only.
  FailureOr<KernelConfigAttr> configureDense(Operation *op, const Problem &pb,
                                             GpuArch arch,
                                             const GpuKernelOptions &k);
  /// The configuration the tuning data chooses for an op whose heuristic
  /// choice is `heuristic` (docs/TUNING.md, "Using it"): a measured one
  /// for its key, else the cost model's best candidate when the device has
  /// measurements, else `heuristic`.
  KernelConfigAttr tunedChoice(Operation *op, const Problem &pb, GpuArch arch,
                               bool dense, KernelConfigAttr heuristic);

  /// Valid during runOnOperation only.
  std::unique_ptr<TuningData> tuning;
};

} // namespace

FailureOr<KernelConfigAttr>
ConfigureGpuKernels::configure(Operation *op, GpuArch arch,
                               const GpuKernelOptions &k) {
  if (failed(checkGpuPattern(op)))
    return failure();
  Problem pb = isa<SpmmOp>(op) ? problemOf(cast<SpmmOp>(op))
                               : problemOf(cast<ConvOp>(op));
  // f16 accumulation exists for f16 operands only: other ops of the
  // program keep f32, with a remark.
  bool f16Acc = k.accumulate == "f16" && pb.inputType.isF16();
  if (k.accumulate == "f16" && !f16Acc)
    op->emitRemark() << kPass
                     << ": accumulate=f16 applies to f16 operands only "
                        "(mma.sp accumulates bf16 and tf32 in f32, i8 in "
                        "s32); this "
                     << pb.inputType << " op accumulates in "
                     << (pb.int8 ? "s32" : "f32");
  // The wgmma kernel on sm_90a where it applies (an error where it was
  // asked for and does not), else the mma.sp kernels.
  std::optional<KernelFamily> requested = k.requestedFamily();
  if (stc_gpu::hasWgmma(arch) &&
      (!requested || *requested == KernelFamily::wgmma)) {
    std::string whyNot = wgmmaUnsupported(op, pb, f16Acc);
    if (whyNot.empty())
      return configureWgmma(op, pb, k);
    if (requested)
      return op->emitError() << kPass << ": the wgmma kernel needs " << whyNot;
    op->emitRemark() << kPass
                     << ": sm_90a: mma.sp kernel, since the wgmma kernel needs "
                     << whyNot;
  }
  return configureMmaSp(op, pb, arch, f16Acc, k);
}

FailureOr<KernelConfigAttr>
ConfigureGpuKernels::configureMmaSp(Operation *op, const Problem &pb,
                                    GpuArch arch, bool f16Acc,
                                    const GpuKernelOptions &k) {
  auto [tileRows, tileCols] =
      chooseMmaSpBlockTile(ShapedType::isDynamic(pb.rows) ? -1 : pb.rows,
                           ShapedType::isDynamic(pb.cols) ? -1 : pb.cols);
  std::optional<KernelFamily> requested = k.requestedFamily();
  StagingFit fit = stagingFitOf(op, pb);
  // kernel=staged where it cannot apply is left to checkKernelConfig's
  // error.
  bool staged = requested == KernelFamily::staged ||
                (!requested && fit.staging != Staging::never);
  // 256 columns, and on sm_90a 256 rows, are for the sm_90a kernel: its
  // mma.sp fallbacks take 128. Elsewhere the staged kernel takes 256 rows.
  int64_t maxRows = staged && !stc_gpu::hasWgmma(arch) ? 256 : 128;
  if (k.blockRows)
    tileRows = std::min<int64_t>(k.blockRows, maxRows);
  if (k.blockCols)
    tileCols = std::min<int64_t>(k.blockCols, 128);
  // The staged kernel's warps by the block (its direct fallback shares
  // them); the direct kernel keeps 32 x 32 unless asked: its larger warp
  // tiles are correct but unmeasured.
  auto [warpRows, warpCols] = staged ? chooseMmaSpWarpTile(tileRows, tileCols)
                                     : std::pair<int64_t, int64_t>{32, 32};
  if (k.warpRows)
    warpRows = k.warpRows;
  if (k.warpCols)
    warpCols = k.warpCols;
  if (k.vectorStores && !staged)
    op->emitRemark() << kPass
                     << ": vector-stores: the direct mma.sp kernel has no "
                        "shared memory to stage its results in; it stores "
                        "them one element at a time";
  KernelConfigAttr config = KernelConfigAttr::getChecked(
      configError(op), op->getContext(), arch,
      staged ? KernelFamily::staged : KernelFamily::direct, tileRows, tileCols,
      /*stages=*/staged ? k.stages : int64_t{0}, /*cluster_rows=*/int64_t{1},
      /*group_rows=*/k.groupRows,
      /*multicast_b=*/false, stc_gpu::WgmmaASource::smem,
      f16Acc    ? Accumulator::f16
      : pb.int8 ? Accumulator::s32
                : Accumulator::f32,
      k.orderedMetadata,
      /*direct_fallback=*/staged && fit.staging == Staging::ifAligned,
      /*pixel_tile_h=*/int64_t{0}, /*pixel_tile_w=*/int64_t{0},
      /*warp_rows=*/warpRows, /*warp_cols=*/warpCols,
      /*stage_k_steps=*/staged && k.stageKSteps ? k.stageKSteps : int64_t{1},
      /*meta_tma=*/false, /*vector_stores=*/staged && k.vectorStores);
  if (!config)
    return failure();
  return config;
}

FailureOr<KernelConfigAttr>
ConfigureGpuKernels::configureWgmma(Operation *op, const Problem &pb,
                                    const GpuKernelOptions &k) {
  HopperDevice device;
  HopperKernelShape shape;
  shape.elementBytes = pb.int8 ? 1 : 2;
  shape.denseA = pb.denseS;
  // A pointwise convolution's pixels are tiled flat, as a GEMM's columns,
  // unless asked otherwise; any other convolution's image by image.
  bool flatPixels = isPointwiseConv(pb) && k.pixelTiles != "image";
  if (pb.conv && !flatPixels && k.pixelTiles == "flat")
    op->emitRemark() << kPass
                     << ": sm_90a: pixel tiles per image, since flat ones "
                        "(pixel-tiles=flat) need a 1x1, stride-1, unpadded "
                        "convolution of one group";
  HopperPixelGrid pixels = flatPixels ? HopperPixelGrid() : pixelGridOf(pb);
  bool known = !ShapedType::isDynamic(pb.rows) &&
               !ShapedType::isDynamic(pb.cols) &&
               !ShapedType::isDynamic(pb.depth);
  if (known) {
    // A batch's matrices each have their own tiles (a dynamic batch counts
    // as one).
    int64_t batch = 1;
    if (pb.batched)
      if (auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
          type && !type.isDynamicDim(0))
        batch = type.getDimSize(0);
    HopperTiling tiling =
        chooseHopperTiling({pb.rows, pb.cols, pb.depth, shape.elementBytes,
                            pb.denseS, batch, pixels});
    shape.blockRows = tiling.blockRows;
    shape.blockCols = tiling.blockCols;
    // The heuristic's cluster pair. Without TMA multicast of B (opt-in,
    // tma-multicast, not measured yet) it only co-schedules two blocks of
    // neighbouring rows, which share B's tiles in L2: 5-6 % faster on an
    // H200 at 8192^3 and two LLM/BERT shapes in two runs
    // (bench/results/sm90a-knobs-*/v1-*, gpu-gemm-20261126T110843Z-5199c34).
    shape.clusterRows = tiling.clusterRows;
  }
  if (k.blockRows)
    shape.blockRows = k.blockRows;
  if (k.blockCols)
    shape.blockCols = k.blockCols;
  // 256 rows (two 64-row wgmma tiles per consumer warpgroup) hold
  // 2 x BN / 2 accumulators per thread: at most 128 columns (validated
  // when both are given; the heuristic's 256 is narrowed).
  if (shape.blockRows == 256)
    shape.blockCols = std::min<int64_t>(shape.blockCols, 128);
  if (k.clusterRows)
    shape.clusterRows = k.clusterRows;
  // A batch's blocks stack its matrices' row tiles along grid y: no pairs.
  if (pb.batched)
    shape.clusterRows = 1;
  if (k.tmaMulticast) {
    // Where it cannot apply, the kernel loads its own B (a remark says
    // why), as the heuristic's cluster choice may differ per op.
    if (shape.clusterRows != 2 || pb.conv ||
        (pb.denseKMajor && shape.blockCols < 128))
      op->emitRemark() << kPass
                       << ": sm_90a: no TMA multicast, which needs a GEMM "
                          "kernel with a cluster of 2 (cluster-rows=2) and, "
                          "for a k-major dense operand, at least 128 "
                          "columns; got cluster "
                       << shape.clusterRows << ", " << shape.blockCols
                       << " columns" << (pb.conv ? ", a convolution" : "");
    else
      shape.multicastB = true;
  }
  // A group is whole clusters: the pair of a cluster shares its B tiles.
  if (k.groupRows % shape.clusterRows != 0)
    return op->emitError() << kPass << ": group-rows (" << k.groupRows
                           << ") must be a multiple of the kernel's cluster "
                              "rows ("
                           << shape.clusterRows << ")";
  if (k.stageKSteps == 2) {
    // Two K steps a ring slot where the op allows it (a remark says why
    // not).
    if (takesTwoStepsPerSlot(pb))
      shape.stepsPerSlot = 2;
    else
      op->emitRemark() << kPass
                       << ": sm_90a: one K step a ring slot, since two "
                          "(stage-k-steps=2) need a 2:4 operand and an even "
                          "number of "
                       << shape.blockK() << "-K steps; got "
                       << describeDepth(pb);
  }
  shape.stages =
      k.wgmmaStages
          ? k.wgmmaStages
          : hopperUsefulStages(
                hopperStagesThatFit(
                    shape.stepsPerSlot *
                        hopperStageBytes(shape.blockRows, shape.blockCols,
                                         shape.blockK(), shape.elementBytes,
                                         pb.denseS),
                    device),
                wgmmaRingFills(pb, shape.stepsPerSlot));
  // The metadata ring takes shared memory too: as many stages as fit
  // with it.
  shape.metaThroughTma = k.metaTma && !pb.denseS;
  while (!k.wgmmaStages && shape.stages > 2 &&
         shape.sharedBytes() > device.sharedBytesPerBlock)
    --shape.stages;
  if (pb.conv && !flatPixels) {
    // The pixel tile of BN pixels that wastes the least of the image.
    HopperPixelTile tile = chooseHopperPixelTile(shape.blockCols, pixels);
    shape.pixelTileH = tile.rows;
    shape.pixelTileW = tile.cols;
  }
  KernelConfigAttr config = KernelConfigAttr::getChecked(
      configError(op), op->getContext(), GpuArch::sm_90a, KernelFamily::wgmma,
      shape.blockRows, shape.blockCols, shape.stages, shape.clusterRows,
      k.groupRows, shape.multicastB, *stc_gpu::symbolizeWgmmaASource(k.wgmmaA),
      pb.int8 ? Accumulator::s32 : Accumulator::f32,
      /*ordered_metadata=*/true, /*direct_fallback=*/false, shape.pixelTileH,
      shape.pixelTileW, /*warp_rows=*/int64_t{32}, /*warp_cols=*/int64_t{32},
      /*stage_k_steps=*/shape.stepsPerSlot, shape.metaThroughTma,
      k.vectorStores);
  if (!config)
    return failure();
  return config;
}

FailureOr<KernelConfigAttr>
ConfigureGpuKernels::configureDense(Operation *op, const Problem &pb,
                                    GpuArch arch, const GpuKernelOptions &k) {
  bool f16Acc = k.accumulate == "f16" && pb.inputType.isF16();
  std::optional<KernelFamily> requested = k.requestedFamily();
  if (stc_gpu::hasWgmma(arch) && requested != KernelFamily::staged) {
    bool batchLayout =
        pb.batched && (k.clusterRows > 1 || k.groupRows || k.tmaMulticast);
    // A convolution's gather has the sparse convolution's rules (one group
    // of a multiple of 64 channels, TMA strides).
    std::string whyNot =
        pb.conv              ? wgmmaUnsupported(op, pb, f16Acc)
        : batchLayout        ? "no cluster, multicast or grouped order for "
                               "a batch (cluster-rows, tma-multicast or "
                               "group-rows was asked for)"
        : f16Acc             ? "f32 accumulation (accumulate=f16 "
                               "was asked for)"
        : k.wgmmaA != "smem" ? "A from shared memory (wgmma-a=registers "
                               "was asked for)"
                             : "";
    if (whyNot.empty() && pb.conv && k.wgmmaA != "smem")
      whyNot = "A from shared memory (wgmma-a=registers was asked for)";
    if (whyNot.empty())
      return configureWgmma(op, pb, k);
    if (requested == KernelFamily::wgmma)
      return op->emitError()
             << kPass << ": the dense wgmma kernel needs " << whyNot;
    op->emitRemark() << kPass << ": sm_90a: dense " << op->getName()
                     << " on the mma.sync kernel, since the wgmma kernel "
                        "needs "
                     << whyNot;
  }
  auto known = [](int64_t v) { return ShapedType::isDynamic(v) ? -1 : v; };
  auto [tileRows, tileCols] =
      chooseMmaSpBlockTile(known(pb.rows), known(pb.cols));
  if (k.blockRows)
    tileRows = std::min<int64_t>(k.blockRows, 128);
  if (k.blockCols)
    tileCols = std::min<int64_t>(k.blockCols, 128);
  auto [warpRows, warpCols] = chooseMmaSpWarpTile(tileRows, tileCols);
  if (k.warpRows)
    warpRows = k.warpRows;
  if (k.warpCols)
    warpCols = k.warpCols;
  KernelConfigAttr config = KernelConfigAttr::getChecked(
      configError(op), op->getContext(), arch, KernelFamily::staged, tileRows,
      tileCols, k.stages, /*cluster_rows=*/int64_t{1},
      /*group_rows=*/k.groupRows, /*multicast_b=*/false,
      stc_gpu::WgmmaASource::smem, f16Acc ? Accumulator::f16 : Accumulator::f32,
      /*ordered_metadata=*/false, /*direct_fallback=*/false,
      /*pixel_tile_h=*/int64_t{0}, /*pixel_tile_w=*/int64_t{0}, warpRows,
      warpCols,
      /*stage_k_steps=*/k.stageKSteps ? k.stageKSteps : int64_t{1},
      /*meta_tma=*/false, /*vector_stores=*/k.vectorStores);
  if (!config)
    return failure();
  return config;
}

KernelConfigAttr ConfigureGpuKernels::tunedChoice(Operation *op,
                                                  const Problem &pb,
                                                  GpuArch arch, bool dense,
                                                  KernelConfigAttr heuristic) {
  std::optional<tuning::TuningKey> key = tuningKeyOf(op, pb, arch);
  // Without measurements the model knows only the families' priors, which
  // do not tell the tiles of one family apart: the heuristic stays, quietly.
  if (!key || !tuning->hasData())
    return heuristic;
  const tuning::CostModel &model = tuning->model();
  tuning::ModelProblem mp = modelProblemOf(*key);
  auto quietlyFits = [&](KernelConfigAttr config) {
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    return succeeded(checkKernelConfig(op, pb, config, kPass));
  };
  // Every candidate of the op's own kind, predicted.
  SmallVector<std::pair<KernelConfigAttr, tuning::CostModel::Prediction>>
      predicted;
  for (KernelConfigAttr candidate :
       kernelCandidates(op, pb, arch, dense, heuristic))
    predicted.push_back(
        {candidate, model.predict(mp, modelKernelOf(candidate, !dense))});
  // The remark says how far the best of each kind is: the op's own from
  // its candidates, the other kind's from its families' tiles (a
  // convolution that stays dense has no tensor-core kernel).
  auto ownBest = llvm::min_element(
      predicted, [](auto &a, auto &b) { return a.second.us < b.second.us; });
  std::optional<PredictedBest> otherBest;
  if (dense)
    otherBest = predictBest(
        model, mp,
        modelCandidates(arch, /*sparse=*/true, stc_gpu::hasWgmma(arch)));
  else if (!pb.conv && (pb.inputType.isF16() || pb.inputType.isBF16()))
    otherBest = predictBest(
        model, mp,
        modelCandidates(arch, /*sparse=*/false, stc_gpu::hasWgmma(arch)));
  auto alternatives = [&](InFlightDiagnostic &d) {
    d << "; predicted best " << (dense ? "dense " : "sparse ")
      << llvm::formatv("{0:F1}", ownBest->second.us) << " us ("
      << modelKernelOf(ownBest->first, !dense).classKey() << ")";
    if (otherBest)
      d << ", best " << (dense ? "sparse " : "dense ")
        << llvm::formatv("{0:F1}", otherBest->prediction.us) << " us ("
        << otherBest->kernel.classKey() << ")";
  };
  double margin = tuning->predictionMargin();
  tuning::CostModel::Prediction heuristicTime = predicted.front().second;
  std::optional<TuningData::Hit> hit = tuning->exactHit(*key, !dense);
  if (hit && !quietlyFits(hit->config))
    hit.reset();
  if (hit && !llvm::is_contained(hit->families, heuristic.getFamily()) &&
      heuristicTime.us < (1 - margin) * hit->measured->medianUs) {
    // The entry measured other families only (it predates the heuristic's
    // kernel, as the H200 data predates the dense wgmma kernel): its best
    // stands unless the heuristic's kernel is predicted faster by more
    // than the model's typical error.
    InFlightDiagnostic d = op->emitRemark();
    d << kPass << ": tuning database: the entry for " << key->str() << " on "
      << tuning->deviceName() << " has no measurement of the "
      << stc_gpu::stringifyKernelFamily(heuristic.getFamily())
      << " kernel; its best, " << hit->config << ", measured "
      << llvm::formatv("{0:F1}", hit->measured->medianUs)
      << " us, the heuristic's " << heuristic << " is predicted "
      << llvm::formatv("{0:F1}", heuristicTime.us) << " us ("
      << heuristicTime.basis << ")";
    alternatives(d);
    return heuristic;
  }
  if (hit) {
    InFlightDiagnostic d = op->emitRemark();
    d << kPass
      << ": tuning database: " << (hit->otherBatch ? "hit" : "exact hit")
      << " for " << key->str() << " on " << tuning->deviceName()
      << (hit->epilogueFallback ? " (measured without the epilogue)" : "")
      << (hit->otherBatch
              ? llvm::formatv(" (measured at batch {0})", hit->otherBatch).str()
              : std::string())
      << ": " << hit->config << " measured "
      << llvm::formatv("{0:F1}", hit->measured->medianUs) << " us";
    alternatives(d);
    return hit->config;
  }
  // The heuristic (the first candidate) stays unless another is predicted
  // faster by more than the model's typical error (predictionMargin). Not
  // by a block taller than the problem (R rounded up to 64 rows, or the
  // heuristic's own): its tiles past R are zero fill, and where the
  // roofline is the DRAM time the model does not see them (on an H200,
  // 256-row blocks on the R = 64 pointwise convolutions ran 1.6-2.1x
  // slower than the mma.sp kernel: docs/HOPPER.md).
  int64_t tallest = heuristic.getBlockRows();
  if (!ShapedType::isDynamic(pb.rows))
    tallest = std::max<int64_t>(tallest, llvm::alignTo(pb.rows, 64));
  KernelConfigAttr chosen = heuristic;
  tuning::CostModel::Prediction chosenTime = heuristicTime;
  for (auto &[candidate, p] : predicted)
    if (candidate.getBlockRows() <= tallest && p.us < chosenTime.us &&
        p.us < (1 - margin) * heuristicTime.us) {
      chosen = candidate;
      chosenTime = p;
    }
  InFlightDiagnostic d = op->emitRemark();
  d << kPass << ": cost model (" << tuning->deviceName() << "): " << chosen
    << " predicted " << llvm::formatv("{0:F1}", chosenTime.us) << " us ("
    << chosenTime.basis << ")";
  if (chosen != heuristic)
    d << "; the heuristic's " << llvm::formatv("{0:F1}", heuristicTime.us)
      << " us";
  alternatives(d);
  return chosen;
}

void ConfigureGpuKernels::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> ops;
  // The problems of the dense contractions, found once.
  llvm::DenseMap<Operation *, Problem> dense;
  module.walk([&](Operation *op) {
    if (getKernelConfig(op))
      return;
    if (isa<SpmmOp, ConvOp>(op)) {
      ops.push_back(op);
      return;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return;
    std::string why;
    FailureOr<DenseGemm> gemm = denseKernelProblemOf(linalgOp, why);
    // A transpose that moves the innermost dimension of an operand becomes
    // a copy of whole rows and a swap the kernel reads in place.
    if (succeeded(gemm) && !gemm->pb.conv &&
        splitTransposesReadInPlace(linalgOp))
      gemm = denseKernelProblemOf(linalgOp, why);
    if (succeeded(gemm)) {
      dense[op] = gemm->pb;
      ops.push_back(op);
    } else if (!why.empty()) {
      op->emitRemark() << kPass << ": dense " << op->getName()
                       << " is not for the tensor-core kernel: " << why;
    }
  });
  if (ops.empty())
    return;
  std::optional<GpuArch> arch = stc_gpu::symbolizeGpuArch(target);
  if (!arch) {
    ops.front()->emitError()
        << kPass << ": unknown target '" << target << "' (expected "
        << stc_gpu::listGpuArchs() << ")";
    return signalPassFailure();
  }
  GpuKernelOptions k = knobs();
  if (failed(k.verify(
          arch, GpuKernelOptions::Spelling::pass(), [&](const Twine &message) {
            ops.front()->emitError() << kPass << ": " << message.str();
          })))
    return signalPassFailure();
  // The tuning databases choose where no knob did.
  FailureOr<std::unique_ptr<TuningData>> loaded = TuningData::load(
      ops.front(), kPass, *arch, tuningDb, tuningDevice, tuningBuiltin);
  if (failed(loaded))
    return signalPassFailure();
  tuning = std::move(*loaded);
  bool tuned = !k.overridesHeuristics();
  for (Operation *op : ops) {
    auto denseProblem = dense.find(op);
    bool isDense = denseProblem != dense.end();
    FailureOr<KernelConfigAttr> config =
        isDense ? configureDense(op, denseProblem->second, *arch, k)
                : configure(op, *arch, k);
    if (failed(config))
      return signalPassFailure();
    Problem pb = isDense           ? denseProblem->second
                 : isa<SpmmOp>(op) ? problemOf(cast<SpmmOp>(op))
                                   : problemOf(cast<ConvOp>(op));
    if (failed(checkKernelConfig(op, pb, *config, kPass)))
      return signalPassFailure();
    if (tuned)
      config = tunedChoice(op, pb, *arch, isDense, *config);
    op->setAttr(KernelConfigAttr::kAttrName, *config);
    ++numConfigured;
  }
}

std::unique_ptr<Pass> mlir::stc::createStcConfigureGpuKernels(
    const StcConfigureGpuKernelsOptions &options,
    const GpuKernelOptions &knobs) {
  return std::make_unique<ConfigureGpuKernels>(options, knobs);
}
