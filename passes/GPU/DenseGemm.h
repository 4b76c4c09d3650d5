//===- DenseGemm.h - a dense contraction as the tensor-core kernel's problem -*-
// C++ -*-===//
//
// A contraction that stays dense on a GPU target (activation x activation
// in attention, weights the user leaves dense, shapes where sparse does not
// pay) runs on the staged tensor-core kernel of the sparse ops, with S a
// dense row-major matrix (Problem::denseS): the same cp.async pipeline,
// ldmatrix fragments, warp tiles and epilogue, with mma.sync m16n8k16 in
// place of mma.sp. This file says which linalg ops qualify and how they map
// onto the canonical problem Out[R, P] = S[R, K] . D[K, P]:
//
// - linalg.matmul, linalg.batch_matmul and any linalg op with the
//   contraction interface of that form (one M, N and K loop, at most one
//   batch loop, first in every operand), f16 or bf16 operands, an f32, f16
//   or bf16 result;
// - one operand with K contiguous plays S: A (M x K) as a "sparse lhs", or
//   else B given as N x K as a "sparse rhs" (the kernel computes the
//   transposed product and stores its transpose); B also when both could
//   and a bias per column follows (a linear layer: the epilogue adds a
//   bias per row of S); A as K x M with B as K x N qualifies for neither;
// - an operand made by a linalg.transpose of its last two dimensions is
//   read in place, the other way round (no transposed copy: attention's
//   x . x^T as torch-mlir writes it); a transpose that moves its input's
//   innermost dimension to the second-to-last place (attention's K^T) is
//   split first into a copy of whole rows and such a swap
//   (splitTransposesReadInPlace);
// - the rows it copies must be 16-byte aligned, known at compile time (a
//   static K, and a static leading dimension of D that is a multiple of 8);
// - a result that starts as a linalg.fill of zero is the plain product;
//   any other init is added (the epilogue's acc, beta = 1).
//
// A dense 2-D convolution is the implicit GEMM of the sparse convolution
// kernels with a dense S (Problem::conv and denseS):
//
// - linalg.conv_2d_nhwc_fhwc and the grouped linalg.conv_2d_nhwgc_gfhwc,
//   the forms stc-sparsify-convolutions brings the convolutions that stay
//   dense to on a GPU target (gpu-dense-form), f16 or bf16 operands, an
//   f32, f16 or bf16 result;
// - S is the static [G x] F x KH x KW x C filter read as the
//   (G*F) x (KH*KW*C) matrix, D the NHWC input gathered as im2col tiles;
//   a tensor.pad of zeros on the spatial dimensions in front of the input
//   is folded into the gather (no padded copy);
// - C, the input channels per group, a multiple of 8: the staged kernel
//   copies 16-byte chunks of 8 channels of one tap (the sm_90a kernel
//   takes one group of a multiple of 64 channels, else mma.sync).
//
// The element-wise tail after either (a bias per row of S: a convolution's
// output channel; a residual; ReLU or erf GELU; each the single use of the
// one before) is computed by the kernel's epilogue (stc-lower-spmm-to-gpu,
// with stc-fuse-epilogue's matchers, passes/FuseEpilogue.h).
//
// Ops that do not qualify stay with stc-lower-elementwise-to-gpu's
// one-thread-per-result kernel.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_DENSEGEMM_H
#define STC_PASSES_GPU_DENSEGEMM_H

#include "passes/GPU/KernelProblem.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <string>

namespace mlir::stc::gpu_kernel {

/// A dense contraction as the tensor-core kernel computes it.
struct DenseGemm {
  Problem pb;
  /// The operands in the roles of S and D, and the result's starting value
  /// when the product is added to it (null for a zero fill).
  Value s, d, acc;
  /// D given transposed, in the sense of stc.spmm's dense_transposed: for
  /// S = A, B as N x K; for S = B, A as K x M.
  bool denseTransposed = false;
  /// Producers S or D read through (linalg.transpose ops of the last two
  /// dimensions, a convolution's tensor.pad): erased once the op is
  /// lowered, if nothing else uses them.
  SmallVector<Operation *, 2> foldedProducers;
  /// A convolution's padding after the image (pb.conv has the padding
  /// before it).
  int64_t padHighH = 0, padHighW = 0;
};

/// `op` as the dense kernel's problem; failure when it does not qualify,
/// with `why` saying why for a contraction ("" for an op that is not one).
FailureOr<DenseGemm> denseGemmOf(linalg::LinalgOp op, std::string &why);

/// A dense convolution as the kernel's problem, likewise.
FailureOr<DenseGemm> denseConvOf(linalg::LinalgOp op, std::string &why);

/// `op` as a contraction or else a convolution (the two above).
FailureOr<DenseGemm> denseKernelProblemOf(linalg::LinalgOp op,
                                          std::string &why);

/// Splits each transpose that makes an operand of the contraction `op`
/// (through a tensor.collapse_shape of its leading dimensions, as attention
/// writes K^T: [B, S, H, D] -> [B, H, D, S] -> [B*H, D, S]) and moves the
/// innermost dimension of its input to the second-to-last place, into a
/// transpose that keeps the innermost dimension (a copy of whole rows:
/// vector loads and stores) and a swap of the last two dimensions, which
/// the kernel reads in place. Returns whether it split any. Call it for a
/// contraction the kernel takes (denseGemmOf), before its problem is
/// computed.
bool splitTransposesReadInPlace(linalg::LinalgOp op);

/// Why the dense tensor-core kernel cannot compute a convolution of these
/// element types with `channelsPerGroup` input channels per group (""
/// when it can): stc-sparsify-convolutions asks before it rewrites a
/// convolution to the form denseConvOf takes.
std::string denseConvUnsupported(Type input, Type filter, Type result,
                                 int64_t channelsPerGroup);

/// The input channels per group the dense tensor-core kernel computes a
/// convolution with: `channelsPerGroup`, or (a stem's 3, ResNeXt's groups)
/// that zero-padded to a multiple of 8, which stc-sparsify-convolutions
/// then pads the input and filter to; a group is padded only when that is
/// at most 3 times the work. 0 when the kernel cannot compute it; `why`
/// then says why (denseConvUnsupported of the unpadded channels).
int64_t denseConvKernelChannels(Type input, Type filter, Type result,
                                int64_t channelsPerGroup, int64_t groups,
                                std::string &why);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_DENSEGEMM_H
