//===- KernelProblem.cpp - a sparse product as the kernels see it -*- C++ -*-=//
//
// See KernelProblem.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelProblem.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

/// The epilogue and element types shared by stc.spmm and stc.conv.
template <typename OpTy>
static Problem commonProblemOf(OpTy op) {
  Problem pb;
  Type valueType = op.getValues().getType().getElementType();
  pb.tf32 = valueType.isF32();
  pb.int8 = valueType.isInteger(8);
  pb.inputType = valueType;
  pb.outputType = op.getResult().getType().getElementType();
  pb.hasBias = static_cast<bool>(op.getBias());
  pb.hasAcc = static_cast<bool>(op.getAcc());
  pb.hasScale = static_cast<bool>(op.getScale());
  pb.biasType = pb.hasBias ? op.getBias().getType().getElementType() : Type();
  pb.accType = pb.hasAcc ? op.getAcc().getType().getElementType() : Type();
  pb.alpha = op.getAlpha().convertToDouble();
  pb.beta = op.getBeta().convertToDouble();
  pb.activation = op.getActivation();
  return pb;
}

Problem mlir::stc::gpu_kernel::problemOf(SpmmOp op) {
  Problem pb = commonProblemOf(op);
  pb.sparseLhs = op.getSparse() == SparseOperand::lhs;
  // D[k][p]: sparse lhs, dense K x N is k-major, N x K (transposed) not;
  // sparse rhs, dense M x K is p-major, K x M (transposed) k-major.
  pb.denseKMajor = pb.sparseLhs != op.getDenseTransposed();
  // Result rows/cols: (sparse rows, dense other dim) for a sparse lhs,
  // (dense other dim, sparse rows) for a sparse rhs.
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  pb.rows = resultType.getDimSize(pb.sparseLhs ? 0 : 1);
  pb.cols = resultType.getDimSize(pb.sparseLhs ? 1 : 0);
  pb.depth = op.getStaticReductionSize();
  return pb;
}

Problem mlir::stc::gpu_kernel::problemOf(ConvOp op) {
  Problem pb = commonProblemOf(op);
  RankedTensorType inputType = op.getInput().getType();
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  // Out[R, P] = S[R, K] . im2col^T: the filter is the sparse lhs of the
  // canonical problem, stored as the transpose (pixels x channels), like a
  // sparse rhs whose dense operand is the p-major im2col matrix.
  pb.sparseLhs = false;
  pb.denseKMajor = false;
  ConvGeometry cg;
  cg.kh = op.getFilterSize()[0];
  cg.kw = op.getFilterSize()[1];
  cg.strideH = op.getStrides()[0];
  cg.strideW = op.getStrides()[1];
  cg.dilationH = op.getDilations()[0];
  cg.dilationW = op.getDilations()[1];
  cg.padH = op.getPadLow()[0];
  cg.padW = op.getPadLow()[1];
  cg.padBottom = op.getPadHigh()[0];
  cg.padRight = op.getPadHigh()[1];
  cg.groups = op.getGroups();
  cg.c = op.getChannelsPerGroup();
  cg.cp = op.getPaddedChannelsPerGroup();
  cg.ic = inputType.getDimSize(3);
  cg.oc = resultType.getDimSize(3);
  cg.images = resultType.getDimSize(0);
  cg.outH = resultType.getDimSize(1);
  cg.outW = resultType.getDimSize(2);
  pb.conv = cg;
  pb.rows = cg.oc / cg.groups;
  pb.cols = ShapedType::kDynamic;
  if (resultType.hasStaticShape())
    pb.cols = resultType.getDimSize(0) * resultType.getDimSize(1) *
              resultType.getDimSize(2);
  pb.depth = op.getFlatReductionSize();
  return pb;
}

bool mlir::stc::gpu_kernel::isPointwiseConv(const Problem &pb) {
  if (!pb.conv)
    return false;
  const ConvGeometry &cg = *pb.conv;
  return cg.kh == 1 && cg.kw == 1 && cg.strideH == 1 && cg.strideW == 1 &&
         cg.padH == 0 && cg.padW == 0 && cg.padBottom == 0 &&
         cg.padRight == 0 && cg.groups == 1 && cg.c == cg.cp;
}

HopperPixelGrid mlir::stc::gpu_kernel::pixelGridOf(const Problem &pb) {
  HopperPixelGrid grid;
  if (!pb.conv)
    return grid;
  auto known = [](int64_t v) { return ShapedType::isDynamic(v) ? 0 : v; };
  grid.images = known(pb.conv->images);
  grid.outH = known(pb.conv->outH);
  grid.outW = known(pb.conv->outW);
  grid.strideH = pb.conv->strideH;
  grid.strideW = pb.conv->strideW;
  return grid;
}

LogicalResult mlir::stc::gpu_kernel::checkGpuPattern(Operation *op) {
  auto check = [&](Type valueType, NMPatternAttr pattern) -> LogicalResult {
    if (valueType.isF32() && pattern.getN() != 1)
      return op->emitError()
             << op->getName() << " on a GPU target computes f32 as tf32, "
             << "whose mma.sp needs the 1:2 pattern (--pattern=1:2), got "
             << pattern.getN() << ":" << pattern.getM()
             << "; or use f16/bf16 operands for 2:4";
    return success();
  };
  if (auto spmm = dyn_cast<SpmmOp>(op))
    return check(spmm.getValues().getType().getElementType(),
                 spmm.getPattern());
  auto conv = cast<ConvOp>(op);
  return check(conv.getValues().getType().getElementType(), conv.getPattern());
}

::stc::format::MmaSpShape mlir::stc::gpu_kernel::mmaShapeOf(const Problem &pb) {
  using ::stc::format::MmaSpShape;
  return pb.tf32   ? MmaSpShape::M16N8K16TF32
         : pb.int8 ? MmaSpShape::M16N8K64I8
                   : MmaSpShape::M16N8K32B16;
}

static std::string sizeText(int64_t n) {
  return ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n);
}

static StagingFit stagingFitOfSpmm(SpmmOp op, const Problem &pb) {
  // The staged kernel copies 16-byte chunks of rows of D and of the values
  // with cp.async: D's leading dimension (the dense operand's dimension 1
  // whichever way it is used) must be a multiple of 16 bytes. Canonical
  // f16/bf16 and tf32 value rows always are (Kp / 2 elements, Kp a multiple
  // of 16, resp. 8); i8 value rows (Kp / 2 bytes) only when Kp is a
  // multiple of 32. tf32 and i8 also need D p-major: ldmatrix.trans, which
  // turns k-major tiles into B fragments, moves 16-bit elements. A dynamic
  // size is checked at run time: the staged kernel with a direct fallback.
  int64_t staticLd = op.getDense().getType().getDimSize(1);
  int64_t elemBytes = pb.inputType.getIntOrFloatBitWidth() / 8;
  int64_t align = 16 / elemBytes;
  int64_t staticValueCols = op.getValues().getType().getDimSize(1);
  SmallVector<int64_t, 2> rowLengths = {staticLd};
  if (pb.int8)
    rowLengths.push_back(staticValueCols);
  StagingFit fit{Staging::always, ""};
  if ((pb.tf32 || pb.int8) && pb.denseKMajor)
    fit.staging = Staging::never;
  for (int64_t n : rowLengths) {
    if (fit.staging == Staging::never)
      break;
    if (ShapedType::isDynamic(n))
      fit.staging = Staging::ifAligned;
    else if (n % align != 0)
      fit.staging = Staging::never;
  }
  llvm::raw_string_ostream why(fit.needs);
  why << "for '" << pb.inputType << "' operands a dense operand ";
  if (pb.tf32 || pb.int8)
    why << "with K contiguous (a sparse rhs with dense M x K, or a "
           "sparse lhs with dense_transposed) ";
  why << "whose leading dimension " << (pb.int8 ? "and value rows " : "")
      << (pb.int8 ? "are multiples" : "is a multiple") << " of " << align
      << " elements (16 bytes), got a "
      << (pb.denseKMajor ? "k-major" : "p-major")
      << " dense operand with leading dimension " << sizeText(staticLd);
  if (pb.int8)
    why << " and " << sizeText(staticValueCols) << " values per row";
  return fit;
}

bool mlir::stc::gpu_kernel::convStagingFits(Type inputType,
                                            int64_t channelsPerGroup,
                                            int64_t valueCols) {
  bool int8 = inputType.isInteger(8);
  int64_t channelsPerChunk = inputType.isF32() ? 4 : int8 ? 16 : 8;
  bool rowsAligned =
      !int8 || (!ShapedType::isDynamic(valueCols) && valueCols % 16 == 0);
  return channelsPerGroup % channelsPerChunk == 0 && rowsAligned;
}

static StagingFit stagingFitOfConv(ConvOp conv, const Problem &pb) {
  // A 16-byte cp.async chunk is 8 consecutive f16/bf16 channels of one
  // tap, 4 f32 (tf32) or 16 i8 ones: whole taps need C to be a multiple of
  // that (which also aligns every chunk, and for tf32 makes Cp = C). The
  // im2col matrix is p-major, which tf32 and i8 need (no ldmatrix.trans of
  // 32-bit elements; i8 fragments hold 4 consecutive k).
  // i8 filter rows (Kp / 2 bytes) are copied in 16-byte chunks as well:
  // Kp must be a multiple of 32.
  const ConvGeometry &cg = *pb.conv;
  int64_t valueCols = conv.getValues().getType().getDimSize(1);
  StagingFit fit{convStagingFits(pb.inputType, cg.c, valueCols)
                     ? Staging::always
                     : Staging::never,
                 ""};
  llvm::raw_string_ostream needs(fit.needs);
  needs << "input channels per group that are a multiple of 8 (f16/bf16), "
           "4 (f32 as tf32) or 16 (i8), got "
        << "'" << pb.inputType << "' and " << cg.c;
  if (pb.int8)
    needs << ", and i8 filter rows of a multiple of 16 values, got "
          << sizeText(valueCols);
  return fit;
}

StagingFit mlir::stc::gpu_kernel::stagingFitOf(Operation *op,
                                               const Problem &pb) {
  // denseGemmOf admits only rows that are 16-byte aligned at compile time.
  if (pb.denseS)
    return {Staging::always, ""};
  if (auto spmm = dyn_cast<SpmmOp>(op))
    return stagingFitOfSpmm(spmm, pb);
  return stagingFitOfConv(cast<ConvOp>(op), pb);
}

/// Dense K of one sm_90a K step for 16-bit operands: the channels of one
/// TMA box of a convolution's input.
constexpr int64_t kWgmmaConvChannels = 64;

std::string mlir::stc::gpu_kernel::wgmmaConvUnsupported(
    Type inputType, int64_t groups, int64_t channelsPerGroup, int64_t strideH,
    int64_t strideW, bool f16Acc) {
  std::string why;
  llvm::raw_string_ostream os(why);
  bool int8 = inputType.isInteger(8);
  // A K step is one 128-byte row of channels of one filter tap: 64
  // f16/bf16 or 128 i8 channels.
  int64_t stepChannels = int8 ? 2 * kWgmmaConvChannels : kWgmmaConvChannels;
  if (!inputType.isF16() && !inputType.isBF16() && !int8)
    os << "f16, bf16 or i8 operands (got " << inputType << ")";
  else if (f16Acc)
    os << "f32 accumulation (accumulate=f16 was asked for)";
  else if (groups != 1 || channelsPerGroup % stepChannels != 0)
    os << "one group of input channels that are a multiple of " << stepChannels
       << " (a K step is " << stepChannels
       << " channels of one filter tap, one TMA box); got " << groups
       << " group(s) of " << channelsPerGroup << " channels";
  else if (strideH > 8 || strideW > 8)
    os << "strides of at most 8 (TMA element strides); got " << strideH << " x "
       << strideW;
  return why;
}

std::string mlir::stc::gpu_kernel::wgmmaUnsupported(Operation *op,
                                                    const Problem &pb,
                                                    bool f16Acc) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (pb.conv) {
    const ConvGeometry &cg = *pb.conv;
    return wgmmaConvUnsupported(pb.inputType, cg.groups, cg.c, cg.strideH,
                                cg.strideW, f16Acc);
  }
  auto spmm = cast<SpmmOp>(op);
  if (!pb.inputType.isF16() && !pb.inputType.isBF16() && !pb.int8) {
    os << "f16, bf16 or i8 operands (got " << pb.inputType << ")";
  } else if (f16Acc) {
    os << "f32 accumulation (accumulate=f16 was asked for)";
  } else if (pb.int8 && pb.denseKMajor) {
    // 8-bit wgmma has no transposes: B must be K-major in shared memory.
    os << "i8 operands with a dense operand that has K contiguous (a "
          "sparse rhs with dense M x K, or a sparse lhs with "
          "dense_transposed: 8-bit wgmma reads B only K-major); got a "
          "k-major dense operand";
  } else {
    // TMA copies rows whose length is a multiple of 16 bytes.
    int64_t align = pb.int8 ? 16 : 8;
    int64_t ld = spmm.getDense().getType().getDimSize(1);
    int64_t valueCols = spmm.getValues().getType().getDimSize(1);
    if (ShapedType::isDynamic(ld) || ld % align != 0 ||
        ShapedType::isDynamic(valueCols) || valueCols % align != 0)
      os << "static rows of values and of the dense operand that are "
            "multiples of "
         << align << " elements (16 bytes, for TMA); got "
         << sizeText(valueCols)
         << " values per row and a dense leading dimension of " << sizeText(ld);
  }
  return why;
}
