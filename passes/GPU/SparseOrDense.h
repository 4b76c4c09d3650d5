//===- SparseOrDense.h - --sparsity=auto's decision ------------*- C++ -*-===//
//
// Whether a contraction that --sparsity=force would prune runs faster as a
// 2:4 product or dense on the target (docs/TUNING.md, "--sparsity=auto"):
// a measured tuning-database entry for its key decides by its best kernel;
// otherwise the cost model's best sparse and best dense candidates.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_SPARSEORDENSE_H
#define STC_PASSES_GPU_SPARSEORDENSE_H

#include "passes/GPU/TuningData.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>
#include <string>

namespace mlir::stc::gpu_kernel {

struct SparsityDecision {
  bool sparse = true;
  /// The remark's text: what decided and the times ("predicted sparse
  /// 210.3 us (sparse wgmma 128x256), dense 402.0 us (dense staged
  /// 128x128)").
  std::string why;
  /// The predicted (or measured) times; 0 where there is no such kernel.
  double sparseUs = 0, denseUs = 0;
  /// The configuration the decision stands on, for stc-tune's manifest:
  /// the measured one of an exact hit ("" otherwise).
  std::string measuredConfig;
};

/// The decision for `op`, a 2-D contraction of `lhs` and `rhs` (their
/// reduction dimensions `lhsK`, `rhsK`) whose operand `sparseOperand`
/// (0: lhs, 1: rhs) would be pruned; `accumulates`: its init is not a
/// zero fill; `atRunTime`: the operand is not a constant, so every call
/// prunes and compresses it before the product (a cost the sparse side
/// pays: reading the operand and writing its compressed form, two
/// launches).
SparsityDecision decideSparsity(linalg::LinalgOp op, Value lhs, Value rhs,
                                int64_t lhsK, int64_t rhsK, int sparseOperand,
                                bool accumulates, bool atRunTime,
                                stc_gpu::GpuArch arch, const TuningData &data);

/// The decision for a 2-D convolution of `shape` (the tuning key's NHWC
/// geometry: total channels, unpadded input, the padding a tensor.pad in
/// front of it gives) whose filter --sparsity=force would prune with a
/// pattern of `patternM` (4 for 2:4): the sparse kernel stc-configure-gpu-
/// kernels would give it (wgmma, staged or direct, by its channels)
/// against the dense tensor-core kernel (wgmma or mma.sync, the channels
/// zero-padded to 8 where stc-sparsify-convolutions would pad them), by
/// measurements where the database has them, else by the cost model.
SparsityDecision decideConvSparsity(const tuning::ConvShape &shape,
                                    Type elementType, Type resultType,
                                    int64_t patternM, bool accumulates,
                                    bool atRunTime, stc_gpu::GpuArch arch,
                                    const TuningData &data);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_SPARSEORDENSE_H
