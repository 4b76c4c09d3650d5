//===- RowKernel.h - row reductions and their consumer in one kernel -*- C++
//-*-//
//
// A row softmax (max, sum of exponentials, division) or a LayerNorm (sum,
// mean, sum of squared deviations, normalization) is, after elementwise
// fusion, an elementwise linalg.generic over [rows..., row] that reads
// values per row, each a reduction along the row or an elementwise op on
// other such values. Lowered op by op that is one kernel per reduction (a
// block or a thread per row) and one for the consumer, each reading the
// row again from global memory, with the row values written and read in
// between. stc-lower-elementwise-to-gpu lowers such a group as one kernel
// instead:
//
// - a team of T threads per row (T = 32, a warp, for rows up to 512
//   elements; up to 256 for longer rows, about 16 elements a thread),
//   256 / T rows per block of 256 threads;
// - each row value in program order: a reduction's threads stride over the
//   row from the combiner's identity, combine across the warp with
//   butterfly shuffles (gpu.shuffle xor) and, for T > 32, across the team's
//   warps through shared memory, then combine with the starting value; an
//   elementwise row op computes from the values before it;
// - then the consumer, its threads striding over the row, each element
//   stored.
// A team past the last row recomputes the last one (every thread reaches
// every barrier) and stores nothing.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_ROWKERNEL_H
#define STC_PASSES_GPU_ROWKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::stc::gpu_kernel {

/// An elementwise linalg.generic over [rows..., row] (`consumer`) with the
/// row values it reads that one kernel computes with it (`rowOps`, in
/// program order): reductions along the row and elementwise ops over the
/// rows, each read only by ops of the group, each result at most 32 bits.
struct RowGroup {
  linalg::GenericOp consumer;
  SmallVector<linalg::GenericOp> rowOps;
  /// The tensors the group reads from outside it (a padding's result, not
  /// its source), each once: the kernel's pointer parameters, in order.
  SmallVector<Value> inputs;
};

/// The group `consumer` ends, if it reads at least one row reduction it can
/// compute with it. `lowerable` says whether a linalg.generic could be an
/// elementwise kernel of its own (the pass's checks).
std::optional<RowGroup>
rowGroupEndingAt(linalg::GenericOp consumer,
                 function_ref<bool(linalg::GenericOp)> lowerable);

/// The kernel of `group` in `kernels`, named `name`: (a pointer per input,
/// the result's pointer, an i32 per loop of the consumer); or failure, the
/// kernel erased and `why` set, when its math does not lower without
/// libdevice.
FailureOr<gpu::GPUFuncOp> buildRowKernel(const RowGroup &group,
                                         gpu::GPUModuleOp kernels,
                                         StringRef name, std::string &why);

/// Threads per row of `group`'s kernel.
int64_t rowKernelThreadsPerRow(const RowGroup &group);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_ROWKERNEL_H
