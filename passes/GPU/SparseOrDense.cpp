//===- SparseOrDense.cpp - --sparsity=auto's decision ---------------------===//
//
// See SparseOrDense.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/SparseOrDense.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/KernelCandidates.h"

#include "dialects/Stc/StcOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::GpuArch;

namespace {

std::string timeText(double us, const std::string &what) {
  return llvm::formatv("{0:F1} us ({1})", us, what).str();
}

/// A kind's time: measured where the database has it, else the model's
/// best of `kernels`; and how the remark says it.
std::string timeOf(const TuningData &data,
                   const std::optional<TuningData::Hit> &hit,
                   const tuning::ModelProblem &pb,
                   ArrayRef<tuning::ModelKernel> kernels, double &us) {
  if (hit) {
    us = hit->measured->medianUs;
    return timeText(us, "measured");
  }
  std::optional<PredictedBest> best = predictBest(data.model(), pb, kernels);
  us = best->prediction.us;
  return timeText(us, best->kernel.classKey() + ", " + best->prediction.basis);
}

/// The cost of pruning and compressing a rows x k operand on every call:
/// read it, write half of it and its metadata, in two launches (stc_gpu's
/// conversion kernels are bandwidth-bound).
double runTimeCompressUs(const TuningData &data, int64_t rows, int64_t k,
                         int64_t inBytes) {
  const tuning::DeviceModel &device = data.model().deviceModel();
  double mk = static_cast<double>(rows) * static_cast<double>(k);
  double bytes = mk * static_cast<double>(inBytes) * 1.5 + mk / 8;
  return bytes / (device.dramTBs * 1e6) + 2 * device.launchUs;
}

/// "tuning database (H200): ", "cost model (H200): " or the priors'.
std::string basisText(const TuningData &data, bool bothMeasured) {
  if (bothMeasured)
    return "tuning database (" + data.deviceName().str() + "): ";
  if (data.hasData())
    return "cost model (" + data.deviceName().str() + "): ";
  return "cost model (priors, no tuning data): ";
}

/// The sparse side of `d`: its time (measured, or the model's best of
/// `kernels` for `pb`), plus, `atRunTime`, pruning and compressing the
/// `rows` x `k` operand on every call. Sets d.sparseUs and
/// d.measuredConfig; returns the remark's text.
std::string sparseSide(const TuningData &data,
                       const std::optional<TuningData::Hit> &hit,
                       const tuning::ModelProblem &pb,
                       ArrayRef<tuning::ModelKernel> kernels, bool atRunTime,
                       int64_t rows, int64_t k, SparsityDecision &d) {
  std::string text = timeOf(data, hit, pb, kernels, d.sparseUs);
  if (hit)
    d.measuredConfig = hit->measured->config;
  if (atRunTime) {
    double compressUs = runTimeCompressUs(data, rows, k, pb.inBytes);
    d.sparseUs += compressUs;
    text += llvm::formatv(" + {0:F1} us to prune and compress it at run time",
                          compressUs)
                .str();
  }
  return text;
}

/// The dense side of `d` (measured, or the model's best of `kernels` for
/// `pb`) against its sparse side: sets d.denseUs, d.sparse, d.why and, when
/// dense wins, d.measuredConfig.
void decideAgainstDense(const TuningData &data,
                        const std::optional<TuningData::Hit> &sparseHit,
                        const std::optional<TuningData::Hit> &denseHit,
                        const tuning::ModelProblem &pb,
                        ArrayRef<tuning::ModelKernel> kernels,
                        const std::string &sparseText, SparsityDecision &d) {
  std::string denseText = timeOf(data, denseHit, pb, kernels, d.denseUs);
  d.sparse = d.sparseUs <= d.denseUs;
  if (!d.sparse)
    d.measuredConfig = denseHit ? denseHit->measured->config : "";
  d.why = basisText(data, sparseHit && denseHit) + "sparse " + sparseText +
          ", dense " + denseText;
}

} // namespace

SparsityDecision gpu_kernel::decideSparsity(linalg::LinalgOp op, Value lhs,
                                            Value rhs, int64_t lhsK,
                                            int64_t rhsK, int sparseOperand,
                                            bool accumulates, bool atRunTime,
                                            GpuArch arch,
                                            const TuningData &data) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t m = lhsType.getDimSize(1 - lhsK);
  int64_t n = rhsType.getDimSize(1 - rhsK);
  int64_t k = lhsType.getDimSize(lhsK);
  SparsityDecision d;
  if (ShapedType::isDynamic(m) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(k)) {
    d.why = "its sizes are dynamic, so nothing is predicted; pruned as "
            "with force";
    return d;
  }
  tuning::TuningKey key;
  key.arch = stc_gpu::stringifyGpuArch(arch).str();
  key.m = sparseOperand == 0 ? m : n;
  key.n = sparseOperand == 0 ? n : m;
  key.k = k;
  key.dtype = tuningTypeName(lhsType.getElementType());
  key.out = tuningTypeName(
      cast<ShapedType>(op->getResult(0).getType()).getElementType());
  key.epilogue = accumulates ? "acc" : "none";
  std::string whyNoDense;
  bool hasDense = succeeded(denseGemmOf(op, whyNoDense));
  if (key.dtype.empty() || key.out.empty()) {
    d.why = "its element types are not tuned; pruned as with force";
    return d;
  }

  // Measurements decide where they exist.
  std::optional<TuningData::Hit> sparseHit = data.exactHit(key, true);
  std::optional<TuningData::Hit> denseHit =
      hasDense ? data.exactHit(key, false) : std::nullopt;
  // The model covers what was not measured. The dense kernel computes the
  // product in the program's orientation (its rows are lhs's).
  tuning::ModelProblem sparseProblem = modelProblemOf(key);
  tuning::ModelProblem denseProblem = sparseProblem;
  denseProblem.m = m;
  denseProblem.n = n;
  bool wgmma =
      stc_gpu::hasWgmma(arch) && (key.dtype == "f16" || key.dtype == "bf16");
  std::string sparseText = sparseSide(data, sparseHit, sparseProblem,
                                      modelCandidates(arch, true, wgmma),
                                      atRunTime, key.m, key.k, d);
  if (!hasDense) {
    d.why = "sparse " + sparseText + "; no dense tensor-core kernel for it (" +
            whyNoDense + ")";
    return d;
  }
  decideAgainstDense(data, sparseHit, denseHit, denseProblem,
                     modelCandidates(arch, false, wgmma), sparseText, d);
  return d;
}

SparsityDecision
gpu_kernel::decideConvSparsity(const tuning::ConvShape &shape, Type elementType,
                               Type resultType, int64_t patternM,
                               bool accumulates, bool atRunTime, GpuArch arch,
                               const TuningData &data) {
  SparsityDecision d;
  tuning::TuningKey key;
  key.op = "conv";
  key.conv = shape;
  key.arch = stc_gpu::stringifyGpuArch(arch).str();
  key.dtype = tuningTypeName(elementType);
  key.out = tuningTypeName(resultType);
  key.epilogue = accumulates ? "acc" : "none";
  if (key.dtype.empty() || key.out.empty()) {
    d.why = "its element types are not tuned; pruned as with force";
    return d;
  }
  int64_t groups = shape.groups, channels = shape.c / shape.groups;
  int64_t outH =
      ConvOp::getOutputSize(shape.h, shape.kh, shape.strideH, shape.dilationH,
                            shape.padTop, shape.padBottom);
  int64_t outW =
      ConvOp::getOutputSize(shape.w, shape.kw, shape.strideW, shape.dilationW,
                            shape.padLeft, shape.padRight);
  // The implicit GEMM of one group, as stc.conv's (channels padded to the
  // pattern).
  key.m = shape.f / groups;
  key.n = shape.n * outH * outW;
  key.k = shape.kh * shape.kw * llvm::alignTo(channels, patternM);
  // The sparse kernel stc-configure-gpu-kernels gives it: wgmma, the
  // staged mma.sp kernel, else the direct one.
  bool sparseWgmma = stc_gpu::hasWgmma(arch) &&
                     wgmmaConvUnsupported(elementType, groups, channels,
                                          shape.strideH, shape.strideW)
                         .empty();
  // (2:4 and 1:2 both store half of each filter row.)
  bool sparseStaged = convStagingFits(elementType, channels, key.k / 2);
  SmallVector<tuning::ModelKernel> sparseKernels =
      sparseWgmma || sparseStaged
          ? modelCandidates(arch, true, sparseWgmma)
          : SmallVector<tuning::ModelKernel>{{true, "direct", 64, 64}};
  std::optional<TuningData::Hit> sparseHit = data.exactHit(key, true);
  tuning::ModelProblem sparseProblem = modelProblemOf(key);
  std::string sparseText =
      sparseSide(data, sparseHit, sparseProblem, sparseKernels, atRunTime,
                 shape.f, key.k, d);
  // The dense tensor-core kernel, with the channels zero-padded where
  // stc-sparsify-convolutions pads them.
  std::string whyNoDense;
  int64_t denseChannels = denseConvKernelChannels(
      elementType, elementType, resultType, channels, groups, whyNoDense);
  if (!denseChannels) {
    d.why = "sparse " + sparseText + "; no dense tensor-core kernel for it (" +
            whyNoDense + ")";
    return d;
  }
  tuning::TuningKey denseKey = key;
  denseKey.k = shape.kh * shape.kw * denseChannels;
  std::optional<TuningData::Hit> denseHit = data.exactHit(denseKey, false);
  bool denseWgmma = stc_gpu::hasWgmma(arch) &&
                    wgmmaConvUnsupported(elementType, groups, denseChannels,
                                         shape.strideH, shape.strideW)
                        .empty();
  decideAgainstDense(data, sparseHit, denseHit, modelProblemOf(denseKey),
                     modelCandidates(arch, false, denseWgmma), sparseText, d);
  return d;
}
