//===- DenseGemm.cpp - a dense contraction as the tensor-core kernel's problem
//-*- C++ -*-===//
//
// See DenseGemm.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/DenseGemm.h"
#include "passes/ConvWindow.h"
#include "passes/FuseEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

/// Whether `init` is a linalg.fill of a constant zero.
static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && (matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
                  matchPattern(fill.getInputs()[0], m_Zero()));
}

/// Whether `map`'s results are exactly the loop dimensions `dims`.
static bool isExactly(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [e, d] : llvm::zip(map.getResults(), dims)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

/// The input of the linalg.transpose that swaps the last two dimensions of
/// `v` (and keeps any before them), or null: the kernel reads it in the
/// other orientation instead of a transposed copy.
static linalg::TransposeOp swappingTranspose(Value v) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return {};
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return {};
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (perm[d] != d)
      return {};
  return transpose;
}

/// Whether the 2-D result of `op` is read only by an element-wise add of a
/// bias per column (the epilogue can take it when B plays S).
static bool followedByColumnBias(linalg::LinalgOp op) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return false;
  auto g = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  return g && epilogue::matchBiasAdd(g, result, /*rank=*/2, /*channelDim=*/1);
}

FailureOr<DenseGemm> mlir::stc::gpu_kernel::denseGemmOf(linalg::LinalgOp op,
                                                        std::string &why) {
  why.clear();
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  llvm::raw_string_ostream os(why);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1) {
    os << "it is not one matrix product (or a batch of them)";
    return failure();
  }
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
  OpOperand *init = op.getDpsInitOperand(0);
  auto lhsType = cast<RankedTensorType>(lhs->get().getType());
  auto rhsType = cast<RankedTensorType>(rhs->get().getType());
  auto outType = cast<RankedTensorType>(init->get().getType());
  Type in = lhsType.getElementType(), out = outType.getElementType();
  if ((!in.isF16() && !in.isBF16()) || rhsType.getElementType() != in ||
      (!out.isF32() && !out.isF16() && !out.isBF16())) {
    os << "the tensor-core kernel takes f16 or bf16 operands and an f32, "
          "f16 or bf16 result, got "
       << in << " x " << rhsType.getElementType() << " -> " << out;
    return failure();
  }
  for (Value v : {lhs->get(), rhs->get(), init->get()})
    if (cast<RankedTensorType>(v.getType()).getEncoding()) {
      os << "an operand has an encoding";
      return failure();
    }
  // Batch first, then the matrix dimensions in one of the two orders.
  SmallVector<unsigned, 1> batch(dims->batch.begin(), dims->batch.end());
  unsigned m = dims->m[0], n = dims->n[0], k = dims->k[0];
  auto with = [&](unsigned a, unsigned b) {
    SmallVector<unsigned, 3> v(batch.begin(), batch.end());
    v.push_back(a);
    v.push_back(b);
    return v;
  };
  AffineMap lhsMap = op.getMatchingIndexingMap(lhs);
  AffineMap rhsMap = op.getMatchingIndexingMap(rhs);
  if (!isExactly(op.getMatchingIndexingMap(init), with(m, n)) ||
      !(isExactly(lhsMap, with(m, k)) || isExactly(lhsMap, with(k, m))) ||
      !(isExactly(rhsMap, with(k, n)) || isExactly(rhsMap, with(n, k)))) {
    os << "its operands are not matrices (a batch dimension first) indexed "
          "by M, N and K";
    return failure();
  }
  DenseGemm g;
  Problem &pb = g.pb;
  pb.denseS = true;
  pb.batched = !batch.empty();
  pb.inputType = in;
  pb.outputType = out;
  pb.tf32 = pb.int8 = false;
  pb.hasBias = false;
  pb.alpha = pb.beta = 1.0;
  pb.activation = Activation::none;
  if (!isZeroFill(init->get())) {
    pb.hasAcc = true;
    pb.accType = out;
    g.acc = init->get();
  } else {
    pb.hasAcc = false;
  }
  int64_t lead = batch.size();
  bool lhsKContiguous = isExactly(lhsMap, with(m, k));
  bool rhsKContiguous = isExactly(rhsMap, with(n, k));
  // An operand that is a transpose of the last two dimensions is read in
  // place, the other way round.
  Value lhsValue = lhs->get(), rhsValue = rhs->get();
  if (linalg::TransposeOp t = swappingTranspose(lhsValue)) {
    lhsValue = t.getInput();
    lhsKContiguous = !lhsKContiguous;
    g.foldedProducers.push_back(t);
  }
  if (linalg::TransposeOp t = swappingTranspose(rhsValue)) {
    rhsValue = t.getInput();
    rhsKContiguous = !rhsKContiguous;
    g.foldedProducers.push_back(t);
  }
  RankedTensorType sType, dType;
  if (lhsKContiguous && rhsKContiguous && batch.empty() &&
      followedByColumnBias(op)) {
    // Either could be S. The epilogue adds a bias per row of S, and the
    // result is followed by a bias per column (a linear layer, x . W^T):
    // S = B (N x K), D = A (M x K, p-major), as a sparse rhs; Out[N, M] is
    // stored transposed.
    pb.sparseLhs = false;
    g.s = rhsValue;
    g.d = lhsValue;
    g.denseTransposed = false;
    pb.denseKMajor = false;
  } else if (lhsKContiguous) {
    // S = A (M x K); D = B, K x N (k-major) or N x K (p-major, transposed).
    pb.sparseLhs = true;
    g.s = lhsValue;
    g.d = rhsValue;
    g.denseTransposed = rhsKContiguous;
    pb.denseKMajor = !rhsKContiguous;
  } else if (rhsKContiguous) {
    // S = B (N x K); D = A as K x M: k-major over P = M, transposed in
    // stc.spmm's sense for a sparse rhs. Out[N, M] is stored transposed.
    pb.sparseLhs = false;
    g.s = rhsValue;
    g.d = lhsValue;
    g.denseTransposed = true;
    pb.denseKMajor = true;
  } else {
    os << "neither operand has K contiguous (A is K x M and B is K x N); "
          "the tensor-core kernel reads S row by row";
    return failure();
  }
  sType = cast<RankedTensorType>(g.s.getType());
  dType = cast<RankedTensorType>(g.d.getType());
  pb.rows = sType.getDimSize(lead);
  pb.depth = sType.getDimSize(lead + 1);
  pb.cols = outType.getDimSize(lead + (pb.sparseLhs ? 1 : 0));
  // cp.async copies 16-byte chunks of S's rows and of D's.
  int64_t ld = dType.getDimSize(lead + 1);
  constexpr int64_t kAlign = 8;
  if (ShapedType::isDynamic(pb.depth) || ShapedType::isDynamic(ld) ||
      pb.depth % kAlign != 0 || ld % kAlign != 0) {
    auto text = [](int64_t v) {
      return ShapedType::isDynamic(v) ? std::string("?") : std::to_string(v);
    };
    os << "the tensor-core kernel copies 16-byte rows: it needs K and the "
          "leading dimension of the other operand to be static multiples "
          "of 8, got K = "
       << text(pb.depth) << " and " << text(ld);
    return failure();
  }
  return g;
}

std::string mlir::stc::gpu_kernel::denseConvUnsupported(
    Type input, Type filter, Type result, int64_t channelsPerGroup) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if ((!input.isF16() && !input.isBF16()) || filter != input ||
      (!result.isF32() && !result.isF16() && !result.isBF16()))
    os << "the tensor-core kernel takes f16 or bf16 input and filter and "
          "an f32, f16 or bf16 result, got "
       << input << " x " << filter << " -> " << result;
  else if (ShapedType::isDynamic(channelsPerGroup) || channelsPerGroup % 8 != 0)
    os << "the tensor-core convolution copies 16-byte chunks of 8 input "
          "channels of one filter tap: it needs input channels per group "
          "that are a static multiple of 8, got "
       << (ShapedType::isDynamic(channelsPerGroup)
               ? std::string("?")
               : std::to_string(channelsPerGroup));
  return why;
}

int64_t mlir::stc::gpu_kernel::denseConvKernelChannels(Type input, Type filter,
                                                       Type result,
                                                       int64_t channelsPerGroup,
                                                       int64_t groups,
                                                       std::string &why) {
  why = denseConvUnsupported(input, filter, result, channelsPerGroup);
  if (why.empty())
    return channelsPerGroup;
  if (ShapedType::isDynamic(channelsPerGroup))
    return 0;
  // The tensor cores then do Cp / C times the work instead of an
  // element-wise kernel all of it; a depthwise-like group of 1 or 2
  // channels would be mostly zeros.
  int64_t padded = llvm::alignTo(channelsPerGroup, 8);
  if ((groups == 1 || padded <= 3 * channelsPerGroup) &&
      denseConvUnsupported(input, filter, result, padded).empty()) {
    why.clear();
    return padded;
  }
  return 0;
}

FailureOr<DenseGemm> mlir::stc::gpu_kernel::denseConvOf(linalg::LinalgOp op,
                                                        std::string &why) {
  why.clear();
  bool grouped = isa<linalg::Conv2DNhwgcGfhwcOp>(op);
  if ((!grouped && !isa<linalg::Conv2DNhwcFhwcOp>(op)) ||
      !op.hasPureTensorSemantics() || op->getNumResults() != 1)
    return failure();
  llvm::raw_string_ostream os(why);
  Value input = op.getDpsInputOperand(0)->get();
  Value filter = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(init.getType());
  for (RankedTensorType t : {inputType, filterType, outType})
    if (t.getEncoding()) {
      os << "an operand has an encoding";
      return failure();
    }
  if (!filterType.hasStaticShape()) {
    os << "the tensor-core convolution needs a static filter";
    return failure();
  }
  // Filter [G x] F x KH x KW x C; input N x H x W [x G] x C.
  int64_t lead = grouped ? 1 : 0;
  int64_t groups = grouped ? filterType.getDimSize(0) : 1;
  int64_t f = filterType.getDimSize(lead);
  int64_t c = filterType.getDimSize(lead + 3);
  std::string unsupported = denseConvUnsupported(inputType.getElementType(),
                                                 filterType.getElementType(),
                                                 outType.getElementType(), c);
  if (!unsupported.empty()) {
    os << unsupported;
    return failure();
  }
  DenseGemm g;
  // A tensor.pad of zeros on H and W only, in front of the input, is read
  // through: the gather's taps outside the image are zeros anyway.
  SpatialZeroPad pad = spatialZeroPadOf(input, /*hDim=*/1, /*wDim=*/2);
  g.d = pad.pad ? pad.source : input;
  if (pad.pad)
    g.foldedProducers.push_back(pad.pad);
  g.s = filter;
  Problem &pb = g.pb;
  pb.denseS = true;
  pb.inputType = inputType.getElementType();
  pb.outputType = outType.getElementType();
  pb.tf32 = pb.int8 = false;
  pb.hasBias = false;
  pb.alpha = pb.beta = 1.0;
  pb.activation = Activation::none;
  pb.hasAcc = !isZeroFill(init) && !matchPattern(init, m_AnyZeroFloat());
  if (pb.hasAcc) {
    pb.accType = pb.outputType;
    g.acc = init;
  }
  // As stc.conv: Out[F, P] = S[F, K] . im2col^T, stored transposed (pixels
  // x channels), the dense operand the p-major im2col matrix.
  pb.sparseLhs = false;
  pb.denseKMajor = false;
  auto [strideH, strideW] = convWindowPair(op, "strides");
  auto [dilationH, dilationW] = convWindowPair(op, "dilations");
  ConvGeometry cg;
  cg.kh = filterType.getDimSize(lead + 1);
  cg.kw = filterType.getDimSize(lead + 2);
  cg.strideH = strideH;
  cg.strideW = strideW;
  cg.dilationH = dilationH;
  cg.dilationW = dilationW;
  cg.padH = pad.low[0];
  cg.padW = pad.low[1];
  cg.padBottom = pad.high[0];
  cg.padRight = pad.high[1];
  cg.groups = groups;
  cg.c = cg.cp = c;
  cg.ic = groups * c;
  cg.oc = groups * f;
  cg.images = outType.getDimSize(0);
  cg.outH = outType.getDimSize(1);
  cg.outW = outType.getDimSize(2);
  pb.conv = cg;
  g.padHighH = pad.high[0];
  g.padHighW = pad.high[1];
  pb.rows = f;
  pb.cols = ShapedType::kDynamic;
  if (outType.getDimSize(0) != ShapedType::kDynamic &&
      outType.getDimSize(1) != ShapedType::kDynamic &&
      outType.getDimSize(2) != ShapedType::kDynamic)
    pb.cols =
        outType.getDimSize(0) * outType.getDimSize(1) * outType.getDimSize(2);
  pb.depth = cg.kh * cg.kw * c;
  return g;
}

/// A linalg.transpose of `input` by `perm`, on a new tensor.empty.
static Value transposed(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  applyPermutationToVector(sizes, perm);
  Value init = tensor::EmptyOp::create(
      b, loc, sizes, cast<RankedTensorType>(input.getType()).getElementType());
  return linalg::TransposeOp::create(b, loc, input, init, perm)->getResult(0);
}

bool mlir::stc::gpu_kernel::splitTransposesReadInPlace(linalg::LinalgOp op) {
  bool changed = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto collapse = in->get().getDefiningOp<tensor::CollapseShapeOp>();
    Value moved = collapse ? collapse.getSrc() : in->get();
    auto transpose = moved.getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose->hasOneUse() ||
        (collapse && !collapse->hasOneUse()))
      continue;
    ArrayRef<int64_t> perm = transpose.getPermutation();
    int64_t rank = perm.size();
    if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] == rank - 1)
      continue;
    // What is left once the last two are swapped back: the identity is a
    // plain swap, which the kernel reads in place already.
    SmallVector<int64_t> keep(perm);
    std::swap(keep[rank - 2], keep[rank - 1]);
    if (isIdentityPermutation(keep))
      continue;
    SmallVector<ReassociationIndices> groups;
    if (collapse) {
      groups = collapse.getReassociationIndices();
      // The last two dimensions stay apart: the swap commutes with it.
      if (groups.size() < 2 || groups.back().size() != 1 ||
          groups[groups.size() - 2].size() != 1)
        continue;
    }
    OpBuilder b(op);
    Location loc = transpose.getLoc();
    Value rows = transposed(b, loc, transpose.getInput(), keep);
    if (collapse)
      rows = tensor::CollapseShapeOp::create(b, loc, rows, groups);
    int64_t outRank = cast<RankedTensorType>(rows.getType()).getRank();
    SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, outRank));
    std::swap(swap[outRank - 2], swap[outRank - 1]);
    Value swapped = transposed(b, loc, rows, swap);
    if (swapped.getType() != in->get().getType()) {
      // Not the same tensor after all (cannot happen for a permutation):
      // leave the operand as it was.
      swapped.getDefiningOp()->erase();
      continue;
    }
    in->set(swapped);
    if (collapse)
      collapse->erase();
    transpose->erase();
    changed = true;
  }
  return changed;
}

FailureOr<DenseGemm>
mlir::stc::gpu_kernel::denseKernelProblemOf(linalg::LinalgOp op,
                                            std::string &why) {
  FailureOr<DenseGemm> gemm = denseGemmOf(op, why);
  if (succeeded(gemm) || !why.empty())
    return gemm;
  return denseConvOf(op, why);
}
