//===- SparseOrDense.cpp - --sparsity=auto's decision ---------------------===//
//
// See SparseOrDense.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/SparseOrDense.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/KernelCandidates.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::GpuArch;

namespace {

std::string timeText(double us, const std::string &what) {
  return llvm::formatv("{0:F1} us ({1})", us, what).str();
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
  // A kind's time: measured where the database has it, else the model's
  // best candidate; and how the remark says it.
  auto timeOf = [&](const std::optional<TuningData::Hit> &hit,
                    const tuning::ModelProblem &pb,
                    ArrayRef<tuning::ModelKernel> kernels, double &us) {
    if (hit) {
      us = hit->measured->medianUs;
      return timeText(us, "measured");
    }
    std::optional<PredictedBest> best = predictBest(data.model(), pb, kernels);
    us = best->prediction.us;
    return timeText(us,
                    best->kernel.classKey() + ", " + best->prediction.basis);
  };
  std::string sparseText = timeOf(
      sparseHit, sparseProblem, modelCandidates(arch, true, wgmma), d.sparseUs);
  if (sparseHit)
    d.measuredConfig = sparseHit->measured->config;
  if (atRunTime) {
    // Prune and compress on every call: read the operand, write half of
    // it and its metadata, in two launches (stc_gpu's conversion kernels
    // are bandwidth-bound).
    const tuning::DeviceModel &device = data.model().deviceModel();
    double mk = static_cast<double>(key.m) * static_cast<double>(key.k);
    double bytes =
        mk * static_cast<double>(sparseProblem.inBytes) * 1.5 + mk / 8;
    double compressUs = bytes / (device.dramTBs * 1e6) + 2 * device.launchUs;
    d.sparseUs += compressUs;
    sparseText += llvm::formatv(" + {0:F1} us to prune and compress it at "
                                "run time",
                                compressUs)
                      .str();
  }
  if (!hasDense) {
    d.why = "sparse " + sparseText + "; no dense tensor-core kernel for it (" +
            whyNoDense + ")";
    return d;
  }
  std::string denseText = timeOf(
      denseHit, denseProblem, modelCandidates(arch, false, wgmma), d.denseUs);
  d.sparse = d.sparseUs <= d.denseUs;
  if (!d.sparse)
    d.measuredConfig = denseHit ? denseHit->measured->config : "";
  d.why = (sparseHit && denseHit
               ? "tuning database (" + data.deviceName().str() + "): "
           : data.hasData()
               ? "cost model (" + data.deviceName().str() + "): "
               : std::string("cost model (priors, no tuning data): ")) +
          "sparse " + sparseText + ", dense " + denseText;
  return d;
}
