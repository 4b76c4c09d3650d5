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
//   transposed product and stores its transpose); A as K x M with B as
//   K x N qualifies for neither;
// - an operand made by a linalg.transpose of its last two dimensions is
//   read in place, the other way round (no transposed copy: attention's
//   x . x^T as torch-mlir writes it);
// - the rows it copies must be 16-byte aligned, known at compile time (a
//   static K, and a static leading dimension of D that is a multiple of 8);
// - a result that starts as a linalg.fill of zero is the plain product;
//   any other init is added (the epilogue's acc, beta = 1).
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
  /// linalg.transpose ops of the last two dimensions whose inputs S or D
  /// read in place: erased once the contraction is lowered, if nothing else
  /// uses them.
  SmallVector<Operation *, 2> foldedTransposes;
};

/// `op` as the dense kernel's problem; failure when it does not qualify,
/// with `why` saying why for a contraction ("" for an op that is not one).
FailureOr<DenseGemm> denseGemmOf(linalg::LinalgOp op, std::string &why);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_DENSEGEMM_H
