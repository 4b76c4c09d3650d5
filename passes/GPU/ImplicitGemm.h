//===- ImplicitGemm.h - addressing of the dense operand --------*- C++ -*-===//
//
// Where element D[k][p] of the canonical problem's dense operand is: in
// place in the program's dense matrix (k-major or p-major), or, for a
// convolution, gathered from the NHWC input as the im2col element of
// output pixel p = (n, oh, ow) and filter column k = (kh, kw, c), with taps
// outside the image and padded channels out of bounds (zeros).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_IMPLICITGEMM_H
#define STC_PASSES_GPU_IMPLICITGEMM_H

#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

namespace mlir::stc::gpu_kernel {

/// Where the gather of output pixel `p` starts: `ok` when p < P, and for a
/// convolution the batch offset (in pixels) and the top-left input row and
/// column of its receptive field.
struct PixelOrigin {
  Value ok, pixelBase, ih0, iw0;
};
PixelOrigin pixelOrigin(KernelIR &ir, const Problem &pb, const KernelArgs &args,
                        Value p);

/// D[k][p]: (in bounds, i64 element index into args.dense). `denseLd` is
/// D's leading dimension (GEMMs only).
std::pair<Value, Value> denseElement(KernelIR &ir, const Problem &pb,
                                     const KernelArgs &args, Value denseLd,
                                     const PixelOrigin &origin, Value p,
                                     Value k);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_IMPLICITGEMM_H
