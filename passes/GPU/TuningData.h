//===- TuningData.h - the tuning databases a pass run uses -----*- C++ -*-===//
//
// The committed tuning database plus a user's --tuning-db, narrowed to the
// device that applies to the target, with the cost model fitted to its
// measurements (docs/TUNING.md). Loaded once per pass run by
// stc-configure-gpu-kernels, --sparsity=auto and stc-tune.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_TUNINGDATA_H
#define STC_PASSES_GPU_TUNINGDATA_H

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "passes/Tuning/CostModel.h"
#include "passes/Tuning/TuningDb.h"

#include <memory>

namespace mlir::stc::gpu_kernel {

class TuningData {
public:
  /// Reads the committed database (unless `builtin` is false) and
  /// `userPath` (when not empty) for `arch`. A file that cannot be read or is
  /// malformed, or a measured configuration that does not parse, is an error on
  /// `where` beginning with `pass`; a database with no entry for the target is
  /// a remark (it is ignored).
  static FailureOr<std::unique_ptr<TuningData>>
  load(Operation *where, StringRef pass, stc_gpu::GpuArch arch,
       StringRef userPath, StringRef requestedDevice, bool builtin = true);

  /// Whether measurements apply to the target.
  bool hasData() const { return !device.empty(); }
  /// The device whose measurements apply ("" without data).
  StringRef deviceName() const { return device; }

  /// The fastest measured candidate of the kind asked for (a sparse or a
  /// dense kernel) for `key`'s problem, or null. A key with an epilogue
  /// also takes the entry without one (an epilogue barely moves a GEMM's
  /// time); `epilogueFallback` says when that happened. A convolution
  /// without an entry takes the entry of the same layer at the nearest
  /// other batch size (`otherBatch`): the tuner measures ResNet-50's
  /// layers at batch 32, and a kernel's block and pixel tiles are chosen
  /// per output tile, which the batch only multiplies.
  struct Hit {
    const tuning::MeasuredConfig *measured = nullptr;
    stc_gpu::KernelConfigAttr config;
    bool epilogueFallback = false;
    /// A convolution measured at another batch size (this one's geometry
    /// otherwise): that batch; 0 for an entry of this very problem.
    int64_t otherBatch = 0;
    /// The entry's overall best (sparse or dense).
    const tuning::MeasuredConfig *best = nullptr;
    /// The kernel families the entry measured for the kind (any status):
    /// an entry written before a family existed does not speak for it.
    SmallVector<stc_gpu::KernelFamily, 3> families;
  };
  std::optional<Hit> exactHit(tuning::TuningKey key, bool sparse) const;

  /// The cost model of the device (its spec-sheet model without data).
  const tuning::CostModel &model() const { return *costModel; }

  /// How much faster than the heuristic's configuration another must be
  /// predicted before the model's choice replaces it: the model's own
  /// median leave-one-out error on this data, at least 3 %. A prediction
  /// within its typical error is no reason to leave the heuristic: on the
  /// first H200 database (7 problems per target) the model, without a
  /// problem's own measurements, chose candidates 28 % slower than the
  /// fastest (median) where the heuristic's were 12 % slower.
  double predictionMargin() const { return margin; }

private:
  TuningData(MLIRContext *context, stc_gpu::GpuArch arch)
      : context(context), arch(arch) {}

  MLIRContext *context;
  stc_gpu::GpuArch arch;
  tuning::TuningDb db;
  std::string device;
  std::unique_ptr<tuning::CostModel> costModel;
  double margin = 0.03;
};

/// The best of `kernels` on `pb` by the model: the kernel, its prediction.
struct PredictedBest {
  tuning::ModelKernel kernel;
  tuning::CostModel::Prediction prediction;
};
std::optional<PredictedBest> predictBest(const tuning::CostModel &model,
                                         const tuning::ModelProblem &pb,
                                         ArrayRef<tuning::ModelKernel> kernels);

/// Parses a #stc_gpu.kernel_config text; null (with `why`) when it does not
/// parse or is another attribute.
stc_gpu::KernelConfigAttr parseKernelConfig(MLIRContext *context,
                                            StringRef text, std::string &why);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_TUNINGDATA_H
