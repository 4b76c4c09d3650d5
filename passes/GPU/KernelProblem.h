//===- KernelProblem.h - a sparse product as the kernels see it -*- C++ -*-===//
//
// Every stc.spmm and stc.conv is one canonical problem
//
//   Out[R, P] = S[R, Kp] . D[Kp, P]
//
// with S the sparse operand (its values in the canonical compressed format,
// its metadata in a kernel-ready layout) and D the dense operand, addressed
// in place in whichever orientation the program has it (for a convolution,
// the implicit im2col matrix of the NHWC input). For a sparse rhs (X . W)
// the kernel computes the transposed product and stores the transpose.
//
// Problem is what the kernel builders need to know of it; the functions
// below derive it from the op and say which kernel families can compute
// it, for stc-configure-gpu-kernels (to choose) and stc-lower-spmm-to-gpu
// (to check the choice it is given).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELPROBLEM_H
#define STC_PASSES_GPU_KERNELPROBLEM_H

#include "dialects/Stc/StcOps.h"
#include "passes/GPU/HopperTiling.h"
#include "runtime/format/StcGpuLayout.h"

#include <optional>
#include <string>

namespace mlir::stc::gpu_kernel {

/// The convolution behind an implicit GEMM (stc.conv): D[k][p] is the
/// im2col element of output pixel p = (n, oh, ow) and filter column
/// k = (kh, kw, c), gathered from the NHWC input.
struct ConvGeometry {
  int64_t kh, kw, strideH, strideW, dilationH, dilationW, padH, padW;
  /// Padding at the bottom and right.
  int64_t padBottom = 0, padRight = 0;
  /// Input channels per group, padded per group, and in all; output
  /// channels in all; groups.
  int64_t c, cp, ic, oc, groups;
  /// The output's images and pixels per image (ShapedType::kDynamic where
  /// dynamic): the sm_90a kernel tiles each image's OH x OW pixels.
  int64_t images, outH, outW;
};

/// How one stc.spmm or stc.conv maps onto the canonical problem.
struct Problem {
  bool sparseLhs;
  /// D[k][p] is at k * ld + p (true) or p * ld + k (false).
  bool denseKMajor;
  Type inputType; // f16, bf16, f32 (computed as tf32) or i8
  bool tf32;
  /// i8 operands: m16n8k64.s8 with s32 accumulators and the scaling
  /// epilogue.
  bool int8;
  Type outputType; // f32, f16, bf16, i8 or i32
  Type biasType, accType;
  bool hasBias, hasAcc, hasScale = false;
  double alpha, beta;
  Activation activation;
  /// Accumulate in f16 (f16 inputs only): C/D are 2 registers of f16x2
  /// per mma instead of 4 f32. Set from the kernel configuration.
  bool f16Acc = false;
  /// Set for stc.conv: D is the implicit im2col matrix (p-major), R the
  /// output channels of one group, and block row tiles of all groups are
  /// stacked along the grid's y.
  std::optional<ConvGeometry> conv;
  /// S is a dense matrix (a contraction that stays dense, DenseGemm.h): its
  /// "values" are all K elements of each row, there is no metadata, and
  /// the kernel runs two mma.sync m16n8k16 where the sparse one runs one
  /// mma.sp m16n8k32.
  bool denseS = false;
  /// A batch of problems (linalg.batch_matmul): grid y stacks the row tiles
  /// of every batch element, as it stacks a convolution's groups, and each
  /// operand advances by one matrix per element.
  bool batched = false;
  /// The canonical sizes (ShapedType::kDynamic where dynamic).
  int64_t rows, cols, depth;
};

/// Whether a convolution is one matrix product: 1x1, stride 1, no
/// padding, one group of C == Cp channels. Its output pixel p reads input
/// pixel p, so the input is the [N*H*W, C] matrix and the sm_90a kernel
/// can tile its pixels flat (kernel_config without a pixel tile).
bool isPointwiseConv(const Problem &pb);

/// What the sm_90a tile choice knows of a convolution's output pixels
/// (all 0 for a GEMM, 0 for each dynamic size).
HopperPixelGrid pixelGridOf(const Problem &pb);

/// The problem of `op` (f16Acc false).
Problem problemOf(SpmmOp op);
Problem problemOf(ConvOp op);

/// mma.sp has no f32 form: f32 runs as tf32, whose sparse shape is 1:2.
/// Emits the error on `op` for an f32 operand with another pattern.
LogicalResult checkGpuPattern(Operation *op);

/// The mma.sp shape the sm_80 kernels use for `pb`'s element type.
::stc::format::MmaSpShape mmaShapeOf(const Problem &pb);

/// Whether an op can have the staged mma.sp kernel: never (element type
/// and dense orientation, or a static leading dimension that is not
/// 16-byte aligned), always (static and aligned), or only when the rows
/// turn out to be aligned at run time (a dynamic leading dimension: the
/// staged kernel and a direct fallback, chosen by the host).
enum class Staging { never, always, ifAligned };
struct StagingFit {
  Staging staging;
  /// What the staged kernel needs, for the error of kernel=staged.
  std::string needs;
};
StagingFit stagingFitOf(Operation *op, const Problem &pb);

/// Whether the staged mma.sp kernel takes a convolution of `inputType`
/// with `channelsPerGroup` input channels per group and filter rows of
/// `valueCols` stored values: its 16-byte copies hold channels of one tap
/// (8 f16/bf16, 4 f32 as tf32, 16 i8), and i8 rows are whole 16-byte
/// chunks. (stagingFitOf for a stc.conv; stc-sparsify-convolutions asks
/// before there is one.)
bool convStagingFits(Type inputType, int64_t channelsPerGroup,
                     int64_t valueCols);

/// Why the sm_90a wgmma kernel cannot compute `op` ("" if it can).
/// `f16Acc`: f16 accumulation was asked for.
std::string wgmmaUnsupported(Operation *op, const Problem &pb, bool f16Acc);

/// wgmmaUnsupported for a convolution, from its element type, groups,
/// input channels per group and strides.
std::string wgmmaConvUnsupported(Type inputType, int64_t groups,
                                 int64_t channelsPerGroup, int64_t strideH,
                                 int64_t strideW, bool f16Acc = false);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELPROBLEM_H
