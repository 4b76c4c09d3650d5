//===- SparsifyConvolutions.cpp - convolutions to stc.conv ----*- C++ -*-===//
//
// Finds 2-D linalg convolutions whose filter is sparse (an stc.prune behind
// it, the upstream structured[2, 4] encoding, or the sparsity option) and
// rewrites them to stc.compress + stc.conv. The filter is brought to the
// canonical (G*F) x (KH*KW*Cp) matrix that stc.conv takes (on the data for
// constants, so that pruning and compression fold), NCHW-style activations
// are transposed to NHWC at the boundary, and a zero tensor.pad in front of
// the input folds into the convolution's padding.
//
// On a GPU target (gpu-dense-form), a convolution that stays dense is
// brought to the NHWC form of the dense tensor-core kernel instead
// (passes/GPU/DenseGemm.h): linalg.conv_2d_nhwc_fhwc, or
// linalg.conv_2d_nhwgc_gfhwc when grouped, its filter transposed to
// [G x] F x KH x KW x C (on the data for a constant), its activations
// transposed at the boundary and a zero pad in front of the input moved
// after that transpose, where the kernel folds it.
//
//===----------------------------------------------------------------------===//
#include "passes/ConvWindow.h"
#include "passes/GPU/DenseGemm.h"
#include "passes/GPU/SparseOrDense.h"
#include "passes/Passes.h"
#include "passes/SparsityPolicy.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCSPARSIFYCONVOLUTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

/// Canonical filter dimensions: stc.conv's filter is (G*F) x KH x KW x C
/// flattened, i.e. these dimensions in this order.
enum FilterDim : int64_t { kG = 0, kF, kKH, kKW, kC, kNumFilterDims };

/// Canonical activation dimensions: stc.conv's input is N x H x W x (G*C)
/// and its result N x OH x OW x (G*F), i.e. these in this order (the last
/// one is C for the input, F for the result).
enum ActivationDim : int64_t { kN = 0, kH, kW, kGroup, kChannel };

/// How one linalg convolution lays out its operands.
struct ConvLayout {
  /// The filter layout's name, for remarks ("FHWC").
  StringRef filterName;
  /// The canonical FilterDim of each filter dimension.
  SmallVector<int64_t, 5> filterDims;
  /// The canonical ActivationDim of each input (and result) dimension; the
  /// result has F where the input has C.
  SmallVector<int64_t, 5> activationDims;

  bool isGrouped() const { return filterDims.size() == 5; }
  int64_t filterDimOf(FilterDim d) const {
    return llvm::find(filterDims, d) - filterDims.begin();
  }
  int64_t activationDimOf(ActivationDim d) const {
    return llvm::find(activationDims, d) - activationDims.begin();
  }
};

/// The layout of the supported convolutions, or none.
static std::optional<ConvLayout> getLayout(Operation *op) {
  using Dims = SmallVector<int64_t, 5>;
  Dims nhwc{kN, kH, kW, kChannel}, nchw{kN, kChannel, kH, kW};
  Dims ngchw{kN, kGroup, kChannel, kH, kW};
  Dims nhwgc{kN, kH, kW, kGroup, kChannel};
  return llvm::TypeSwitch<Operation *, std::optional<ConvLayout>>(op)
      .Case([&](linalg::Conv2DNhwcFhwcOp) {
        return ConvLayout{"FHWC", {kF, kKH, kKW, kC}, nhwc};
      })
      .Case([&](linalg::Conv2DNhwcHwcfOp) {
        return ConvLayout{"HWCF", {kKH, kKW, kC, kF}, nhwc};
      })
      .Case([&](linalg::Conv2DNchwFchwOp) {
        return ConvLayout{"FCHW", {kF, kC, kKH, kKW}, nchw};
      })
      .Case([&](linalg::Conv2DNgchwFgchwOp) {
        return ConvLayout{"FGCHW", {kF, kG, kC, kKH, kKW}, ngchw};
      })
      .Case([&](linalg::Conv2DNgchwGfchwOp) {
        return ConvLayout{"GFCHW", {kG, kF, kC, kKH, kKW}, ngchw};
      })
      .Case([&](linalg::Conv2DNhwgcGfhwcOp) {
        return ConvLayout{"GFHWC", {kG, kF, kKH, kKW, kC}, nhwgc};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The permutation that sorts `dims` (canonical positions of the dimensions
/// of some value) into canonical order: `transpose(v, perm)` has its
/// dimensions in canonical order.
static SmallVector<int64_t> toCanonical(ArrayRef<int64_t> dims) {
  SmallVector<int64_t> perm(dims.size());
  for (auto [i, p] : llvm::enumerate(perm))
    p = i;
  llvm::sort(perm, [&](int64_t a, int64_t b) { return dims[a] < dims[b]; });
  return perm;
}

/// Why a convolution that is not in the table above is left dense.
static std::string unsupportedReason(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("linalg.depthwise_conv"))
    return "depthwise convolutions have one input channel per group, "
           "nothing to prune along";
  if (name.ends_with("_q"))
    return "quantized convolutions are not supported";
  return ("only 2-D convolutions with batch and channel dimensions are "
          "supported, got '" +
          name + "'")
      .str();
}

//===----------------------------------------------------------------------===//
// Tracing the filter
//===----------------------------------------------------------------------===//

/// What we learned about a filter by walking back through the
/// sparse_tensor.convert that gives it an encoding, 4-D/5-D transposes, and
/// a tensor.expand_shape of an stc.prune.
struct FilterTrace {
  /// The filter with its encoding stripped (the convert's source), or the
  /// encoded function argument itself.
  Value filter;
  /// The filter's type carried #sparse_tensor.encoding structured[2, 4].
  bool encoded = false;
  /// The filter's type carried a sparse encoding without a structured[2, 4]
  /// level (CSR, ...): upstream's sparsifier runs the convolution.
  bool otherEncoding = false;
  /// The filter dimension that encoding runs along (-1: none usable).
  int64_t encodedDim = -1;
  /// The value reached through the transposes, and how: filter dimension
  /// `i` is dimension `perm[i]` of `base`.
  Value base;
  SmallVector<int64_t> perm;
  /// `base` is a readable float constant (then `data` holds it).
  std::optional<std::vector<float>> data;
  /// An stc.prune behind the filter (through tensor.expand_shape, or
  /// directly on a rank-2 filter). Mutable: ops' accessors are not const.
  mutable PruneOp prune;

  bool isExplicitlySparse() const { return encoded || prune; }
  bool isConstant() const { return data.has_value(); }
};

/// Traces `filter`; reads a constant's data only when `readData` is set
/// (the sparsity option or an encoding may need it).
static FilterTrace traceFilter(Value filter, bool readData) {
  FilterTrace trace;
  bool hasEncoding = false;
  trace.encodedDim = getStructuredDim(filter.getType(), hasEncoding);
  trace.otherEncoding = hasEncoding && trace.encodedDim < 0;
  trace.encoded = hasEncoding && !trace.otherEncoding;
  if (trace.encoded)
    if (auto convert = filter.getDefiningOp<sparse_tensor::ConvertOp>())
      filter = convert.getSource();
  trace.filter = filter;
  auto type = dyn_cast<RankedTensorType>(filter.getType());
  if (!type)
    return trace;
  int64_t rank = type.getRank();
  trace.perm.resize(rank);
  for (auto [i, p] : llvm::enumerate(trace.perm))
    p = i;
  Value v = filter;
  while (auto transpose = v.getDefiningOp<linalg::TransposeOp>()) {
    ArrayRef<int64_t> q = transpose.getPermutation();
    for (int64_t &p : trace.perm)
      p = q[p];
    v = transpose.getInput();
  }
  trace.base = v;
  Attribute attr;
  if ((readData || trace.encoded) && matchPattern(v, m_Constant(&attr)))
    trace.data = readFloatConstant(attr, cast<RankedTensorType>(v.getType()));
  if (auto expand = v.getDefiningOp<tensor::ExpandShapeOp>())
    v = expand.getSrc();
  trace.prune = v.getDefiningOp<PruneOp>();
  return trace;
}

/// The rank-2 stc.prune behind `trace` when it prunes exactly the canonical
/// flattened filter along its columns: `tensor.expand_shape` of a
/// (G*F) x (KH*KW*C) matrix to F x KH x KW x C (G x F x KH x KW x C when
/// grouped), transposed to the convolution's filter layout.
static bool isCanonicalPrune(const FilterTrace &trace,
                             const ConvLayout &layout) {
  auto expand = trace.base.getDefiningOp<tensor::ExpandShapeOp>();
  if (!trace.prune || !expand || trace.prune.getReductionDim() != 1)
    return false;
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  SmallVector<ReassociationIndices> expected =
      layout.isGrouped() ? SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}}
                         : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}};
  if (groups != expected)
    return false;
  // Expanded dimension of canonical dimension d.
  int64_t offset = layout.isGrouped() ? 0 : 1;
  for (auto [i, d] : llvm::enumerate(layout.filterDims))
    if (trace.perm[i] != d - offset)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// `linalg.transpose` of `v` by `perm` into a new tensor.empty (`v` itself
/// when `perm` is the identity).
static Value transpose(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> perm) {
  if (isIdentityPermutation(perm))
    return v;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  applyPermutationToVector(sizes, perm);
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, getElementTypeOrSelf(v.getType()));
  return linalg::TransposeOp::create(b, loc, v, init, perm)->getResult(0);
}

/// An N x H x W x G x C (or N x H x W x C) activation in the layout's own
/// order, brought to N x H x W x (G*C).
static Value activationToNhwc(OpBuilder &b, Location loc, Value v,
                              const ConvLayout &layout) {
  v = transpose(b, loc, v, toCanonical(layout.activationDims));
  if (!layout.isGrouped())
    return v;
  return tensor::CollapseShapeOp::create(
      b, loc, v, SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

/// The NHWC type of a value of type `type` in the layout's own order.
static RankedTensorType nhwcType(RankedTensorType type,
                                 const ConvLayout &layout) {
  SmallVector<int64_t> shape(type.getShape());
  applyPermutationToVector(shape, toCanonical(layout.activationDims));
  if (layout.isGrouped()) {
    int64_t channels =
        ShapedType::isDynamic(shape[3]) || ShapedType::isDynamic(shape[4])
            ? ShapedType::kDynamic
            : shape[3] * shape[4];
    shape = {shape[0], shape[1], shape[2], channels};
  }
  return RankedTensorType::get(shape, type.getElementType());
}

/// The inverse of activationToNhwc: an N x OH x OW x (G*F) result brought to
/// `type`, in the layout's own order.
static Value nhwcToActivation(OpBuilder &b, Location loc, Value v,
                              RankedTensorType type, const ConvLayout &layout) {
  SmallVector<int64_t> perm = toCanonical(layout.activationDims);
  if (layout.isGrouped()) {
    SmallVector<int64_t> shape(type.getShape());
    applyPermutationToVector(shape, perm);
    auto expandedType = RankedTensorType::get(shape, type.getElementType());
    v = tensor::ExpandShapeOp::create(
        b, loc, expandedType, v,
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  }
  return transpose(b, loc, v, invertPermutationVector(perm));
}

/// The filter sizes G, F, KH, KW, C (G = 1 when not grouped).
static SmallVector<int64_t> canonicalFilterSizes(RankedTensorType type,
                                                 const ConvLayout &layout) {
  SmallVector<int64_t> sizes(kNumFilterDims, 1);
  for (auto [i, d] : llvm::enumerate(layout.filterDims))
    sizes[d] = type.getDimSize(i);
  return sizes;
}

/// The canonical (G*F) x (KH*KW*Cp) filter of a constant: `trace.data` is
/// `trace.base`, whose dimension `trace.perm[i]` is filter dimension `i`.
static std::vector<float> flattenConstantFilter(const FilterTrace &trace,
                                                const ConvLayout &layout,
                                                ArrayRef<int64_t> sizes,
                                                int64_t cp) {
  ArrayRef<int64_t> baseShape =
      cast<RankedTensorType>(trace.base.getType()).getShape();
  SmallVector<int64_t> baseStrides = computeStrides(baseShape);
  // Stride in `data` of one step along each canonical dimension.
  SmallVector<int64_t> stride(kNumFilterDims, 0);
  for (auto [i, d] : llvm::enumerate(layout.filterDims))
    stride[d] = baseStrides[trace.perm[i]];
  const std::vector<float> &data = *trace.data;
  std::vector<float> flat;
  flat.reserve(sizes[kG] * sizes[kF] * sizes[kKH] * sizes[kKW] * cp);
  for (int64_t g = 0; g < sizes[kG]; ++g)
    for (int64_t f = 0; f < sizes[kF]; ++f)
      for (int64_t kh = 0; kh < sizes[kKH]; ++kh)
        for (int64_t kw = 0; kw < sizes[kKW]; ++kw)
          for (int64_t c = 0; c < cp; ++c)
            flat.push_back(
                c >= sizes[kC]
                    ? 0.0f
                    : data[g * stride[kG] + f * stride[kF] + kh * stride[kKH] +
                           kw * stride[kKW] + c * stride[kC]]);
  return flat;
}

/// The canonical (G*F) x (KH*KW*Cp) filter of a value, built from ops:
/// transposed to [G x] F x KH x KW x C, C padded with zeros, flattened.
static Value flattenFilter(OpBuilder &b, Location loc, Value filter,
                           const ConvLayout &layout, ArrayRef<int64_t> sizes,
                           int64_t cp) {
  // The channels are padded before the transpose, whose kernel then reads
  // through the pad on a GPU target (a pad after it would be read by the
  // collapse, on the host).
  Value v = filter;
  int64_t rank = layout.filterDims.size();
  if (cp != sizes[kC]) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t channelDim = layout.filterDimOf(kC);
    SmallVector<int64_t> shape(type.getShape());
    shape[channelDim] = cp;
    auto paddedType = RankedTensorType::get(shape, type.getElementType());
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> high(low);
    high[channelDim] = b.getIndexAttr(cp - sizes[kC]);
    v = tensor::PadOp::create(b, loc, paddedType, v, low, high, zero);
  }
  v = transpose(b, loc, v, toCanonical(layout.filterDims));
  SmallVector<ReassociationIndices> flat =
      layout.isGrouped() ? SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}}
                         : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}};
  return tensor::CollapseShapeOp::create(b, loc, v, flat);
}

/// Whether `v` is a zero constant or a linalg.fill of zero.
static bool isZeroInit(Value v) {
  return isZeroFilled(v) || matchPattern(v, m_AnyZeroFloat());
}

/// The pads in front of a convolution input: a tensor.pad of zeros whose
/// static padding is on the spatial dimensions only (ConvWindow.h); the
/// input itself, with no padding, otherwise.
struct FoldedPad {
  Value input;
  std::array<int64_t, 2> low{0, 0}, high{0, 0};
};

static FoldedPad foldInputPad(Value input, const ConvLayout &layout) {
  SpatialZeroPad pad = spatialZeroPadOf(input, layout.activationDimOf(kH),
                                        layout.activationDimOf(kW));
  if (!pad.pad)
    return FoldedPad{input};
  return FoldedPad{pad.source, pad.low, pad.high};
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct StcSparsifyConvolutionsPass
    : public mlir::stc::impl::StcSparsifyConvolutionsBase<
          StcSparsifyConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Rewrites `op` when its filter is sparse; reports why not otherwise.
  /// Returns failure for errors.
  LogicalResult sparsify(linalg::LinalgOp op, const FilterTrace &trace);
  /// Brings a convolution that stayed dense to the form of the GPU's dense
  /// tensor-core kernel, when that kernel can compute it.
  void toDenseKernelForm(linalg::LinalgOp op);
  /// sparsity=auto: whether `op` (filter sizes `sizes`) is pruned, with a
  /// remark saying why; failure for a tuning database that cannot be read.
  FailureOr<bool> autoKeepsSparse(linalg::LinalgOp op, const ConvLayout &layout,
                                  ArrayRef<int64_t> sizes, int64_t patternM,
                                  bool atRunTime);

  SparsityMode mode = SparsityMode::Explicit;
  NMPatternAttr pruneAs;
  /// sparsity=auto on a GPU target: the tuning data, loaded at first use
  /// (shared: the pass is copied when a pass manager clones it).
  std::shared_ptr<gpu_kernel::TuningData> tuning;
  /// Encoded function arguments whose encoding a rewrite consumed.
  llvm::SmallSetVector<BlockArgument, 4> strippedArgs;
  /// Encoding conversions whose source a rewrite used instead.
  llvm::SmallSetVector<Operation *, 4> bypassedConverts;
};

LogicalResult StcSparsifyConvolutionsPass::sparsify(linalg::LinalgOp op,
                                                    const FilterTrace &trace) {
  Value filterOperand = op.getDpsInputs()[1];
  bool wouldBeSparse = trace.isExplicitlySparse() || prunesWeights(mode) ||
                       (mode == SparsityMode::Enable && trace.isConstant());
  // An encoding STC cannot honour is left to upstream's sparsifier; any
  // other sparse filter that cannot be used stays dense. Both with a remark.
  auto leaveDense = [&](const Twine &reason) -> LogicalResult {
    if (trace.encoded) {
      op.emitRemark("stc: convolution left to the upstream sparsifier: ")
          << reason;
      return success();
    }
    if (wouldBeSparse)
      op.emitRemark("stc: convolution left dense: ") << reason;
    return success();
  };

  if (trace.otherEncoding) {
    op.emitRemark("stc: convolution left to the upstream sparsifier: its "
                  "filter's encoding has no structured[2, 4] level (STC's "
                  "kernels take 2:4 along the input channels)");
    return success();
  }
  std::optional<ConvLayout> layout = getLayout(op);
  if (!layout)
    return leaveDense(unsupportedReason(op));
  Value input = op.getDpsInputs()[0];
  Value init = op.getDpsInits()[0];
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(filterOperand.getType());
  auto resultType = dyn_cast<RankedTensorType>(init.getType());
  if (!op.hasPureTensorSemantics() || !inputType || !filterType || !resultType)
    return leaveDense("only convolutions on ranked tensors are supported");
  Type elementType = inputType.getElementType();
  auto isFloat = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  // Quantized: i8 x i8 accumulated in i32 (linalg sign-extends), the form
  // of a QDQ Conv; its rescale to float is fused later (stc-fuse-epilogue).
  bool quantized =
      elementType.isInteger(8) && resultType.getElementType().isInteger(32);
  if ((!isFloat(elementType) && !quantized) ||
      elementType != filterType.getElementType() ||
      (!quantized && !isFloat(resultType.getElementType())))
    return leaveDense("only f32, f16 and bf16 convolutions with the same "
                      "input and filter type, and i8 x i8 -> i32 ones, are "
                      "supported");
  if (!filterType.hasStaticShape())
    return leaveDense("dynamic filter sizes are not supported");
  int64_t channelDim = layout->activationDimOf(kChannel);
  if (inputType.isDynamicDim(channelDim) ||
      (layout->isGrouped() &&
       inputType.isDynamicDim(layout->activationDimOf(kGroup))))
    return leaveDense("dynamic input channels are not supported");
  if (trace.encoded && trace.encodedDim != layout->filterDimOf(kC)) {
    op.emitRemark("stc: convolution left to the upstream sparsifier: its "
                  "structured[2, 4] level runs along a dimension that is not "
                  "the input-channel dimension of the ")
        << layout->filterName << " filter";
    return success();
  }

  SmallVector<int64_t> sizes = canonicalFilterSizes(filterType, *layout);
  if (sizes[kC] == 1)
    return leaveDense("1 input channel per group, nothing to prune along");

  // The pattern and how the filter becomes sparse.
  bool canonicalPrune = trace.prune && isCanonicalPrune(trace, *layout);
  if (trace.prune && !canonicalPrune && !trace.encoded) {
    op.emitRemark("stc: convolution left dense: the stc.prune behind the "
                  "filter does not run along its input channels (expected "
                  "stc.prune along 1 of the (G*F) x (KH*KW*C) filter, "
                  "expanded to ")
        << (layout->isGrouped() ? "GFHWC" : "FHWC")
        << " with tensor.expand_shape)";
    return success();
  }
  NMPatternAttr pattern = pruneAs;
  StringRef why;
  // sparsity=auto weighs the kernels once the pattern is known to apply.
  bool weighKernels = false;
  if (trace.encoded) {
    pattern = NMPatternAttr::get(&getContext(), 2, 4);
    why = "sparse_tensor encoding";
  } else if (canonicalPrune) {
    pattern = trace.prune.getPattern();
    why = "stc.prune";
  } else if (mode == SparsityMode::Force) {
    why = "sparsity=force";
  } else if (mode == SparsityMode::Auto) {
    why = "sparsity=auto";
    weighKernels = true;
  } else if (mode == SparsityMode::Enable && trace.isConstant()) {
    why = "sparsity=enable";
  } else {
    return success();
  }
  // The encoding is stripped from arguments and bypassed for conversions;
  // anything else would have to keep it.
  if (trace.encoded && !trace.isConstant() &&
      !isa<BlockArgument>(trace.filter) &&
      sparse_tensor::getSparseTensorEncoding(trace.filter.getType()))
    return leaveDense("only a function argument, a sparse_tensor.convert or "
                      "a constant can be compressed");
  if (!isPatternEligible(pattern, elementType))
    return leaveDense(Twine("pattern ") + Twine(pattern.getN()) + ":" +
                      Twine(pattern.getM()) + " needs f32 operands");
  if (weighKernels) {
    FailureOr<bool> sparse = autoKeepsSparse(op, *layout, sizes, pattern.getM(),
                                             !trace.isConstant());
    if (failed(sparse))
      return failure();
    if (!*sparse)
      return success();
  }
  int64_t m = pattern.getM();
  int64_t cp = (sizes[kC] + m - 1) / m * m;
  if (canonicalPrune && !trace.encoded && cp != sizes[kC]) {
    op.emitRemark("stc: convolution left dense: the filter is pruned along "
                  "its flattened (kh, kw, c) columns but C = ")
        << sizes[kC] << " is not a multiple of " << m
        << ", so its groups straddle filter positions";
    return success();
  }

  int64_t rows = sizes[kG] * sizes[kF];
  int64_t k = sizes[kKH] * sizes[kKW] * cp;
  auto flatType = RankedTensorType::get({rows, k}, elementType);
  std::optional<std::vector<float>> flatData;
  if (trace.isConstant() && !canonicalPrune)
    flatData = flattenConstantFilter(trace, *layout, sizes, cp);
  if (mode == SparsityMode::Enable && !trace.isExplicitlySparse() &&
      !constantSatisfiesPattern(*flatData, rows, k, 1, pattern))
    return success();

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value toCompress;
  if (canonicalPrune) {
    toCompress = trace.prune.getResult();
  } else if (flatData) {
    toCompress = arith::ConstantOp::create(
        b, loc, makeFloatConstant(flatType, *flatData));
  } else {
    Value filter = trace.filter;
    // The rewrite consumes the encoding: the argument becomes dense (its
    // other users are checked once every convolution is rewritten).
    if (trace.encoded && filter == filterOperand) {
      if (auto arg = dyn_cast<BlockArgument>(filter)) {
        arg.setType(RankedTensorType::get(filterType.getShape(), elementType));
        strippedArgs.insert(arg);
      }
    }
    toCompress = flattenFilter(b, loc, filter, *layout, sizes, cp);
  }
  if (trace.encoded)
    if (auto convert = filterOperand.getDefiningOp<sparse_tensor::ConvertOp>())
      bypassedConverts.insert(convert);
  if (!trace.isExplicitlySparse() && prunesWeights(mode))
    toCompress = PruneOp::create(
        b, loc, toCompress, pattern, b.getI64IntegerAttr(1),
        PruneMethodAttr::get(b.getContext(), PruneMethod::strip), UnitAttr());
  auto valuesType =
      RankedTensorType::get({rows, pattern.getValuesPerRow(k)}, elementType);
  auto metaType = RankedTensorType::get({rows, pattern.getMetaWordsPerRow(k)},
                                        b.getI16Type());
  auto compress = CompressOp::create(b, loc, valuesType, metaType, toCompress,
                                     pattern, b.getI64IntegerAttr(1));

  // Activations in NHWC; the pad in front of the input folds.
  FoldedPad pad = foldInputPad(input, *layout);
  Value nhwcInput = activationToNhwc(b, loc, pad.input, *layout);
  Value acc;
  // An i32 result is the exact accumulator and has no epilogue: a non-zero
  // i32 init is added after the convolution, exactly.
  Value integerInit;
  if (!isZeroInit(init)) {
    if (quantized)
      integerInit = init;
    else
      acc = activationToNhwc(b, loc, init, *layout);
  }
  auto conv = ConvOp::create(
      b, loc, nhwcType(resultType, *layout), compress.getValues(),
      compress.getMeta(), nhwcInput, /*bias=*/Value(), acc,
      /*scale=*/Value(), pattern, ArrayRef<int64_t>{sizes[kKH], sizes[kKW]},
      convWindowPair(op, "strides"), convWindowPair(op, "dilations"), pad.low,
      pad.high, sizes[kG], APFloat(1.0), APFloat(acc ? 1.0 : 0.0),
      Activation::none);
  Value result =
      nhwcToActivation(b, loc, conv.getResult(), resultType, *layout);
  if (integerInit)
    result = addIntegerInit(b, loc, result, integerInit);

  int64_t denseValues = sizes[kKH] * sizes[kKW] * sizes[kC];
  InFlightDiagnostic remark = op.emitRemark();
  remark << "stc: " << pattern.getN() << ":" << pattern.getM()
         << " sparse convolution (" << why << "): filter "
         << shapeString(filterType.getShape()) << " (" << layout->filterName;
  if (layout->isGrouped())
    remark << ", " << sizes[kG] << " groups";
  remark << "), " << denseValues << " -> " << pattern.getValuesPerRow(k)
         << " values per output channel, rewritten to stc.conv";
  remark.report();

  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  if (auto padOp = input.getDefiningOp<tensor::PadOp>())
    if (pad.input != input && padOp->use_empty())
      padOp->erase();
  return success();
}

FailureOr<bool> StcSparsifyConvolutionsPass::autoKeepsSparse(
    linalg::LinalgOp op, const ConvLayout &layout, ArrayRef<int64_t> sizes,
    int64_t patternM, bool atRunTime) {
  std::optional<stc_gpu::GpuArch> arch = stc_gpu::symbolizeGpuArch(target);
  if (!arch) {
    // The CPU's dense convolution is the naive loops of
    // convert-linalg-to-loops; the 2:4 one runs tiles of im2col on the
    // sparse microkernel.
    op.emitRemark() << "stc: sparsity=auto on " << target
                    << ": sparse (a dense convolution runs as scalar loops "
                       "there, the 2:4 one on the sparse microkernel)";
    return true;
  }
  FoldedPad pad = foldInputPad(op.getDpsInputs()[0], layout);
  auto inputType = cast<RankedTensorType>(pad.input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  tuning::ConvShape shape;
  shape.n = inputType.getDimSize(layout.activationDimOf(kN));
  shape.h = inputType.getDimSize(layout.activationDimOf(kH));
  shape.w = inputType.getDimSize(layout.activationDimOf(kW));
  if (ShapedType::isDynamic(shape.n) || ShapedType::isDynamic(shape.h) ||
      ShapedType::isDynamic(shape.w)) {
    op.emitRemark() << "stc: sparsity=auto on " << target
                    << ": sparse, its sizes are dynamic, so nothing is "
                       "predicted; pruned as with force";
    return true;
  }
  if (!tuning) {
    FailureOr<std::unique_ptr<gpu_kernel::TuningData>> loaded =
        gpu_kernel::TuningData::load(op, "stc-sparsify-convolutions", *arch,
                                     tuningDb, tuningDevice, tuningBuiltin);
    if (failed(loaded))
      return failure();
    tuning = std::move(*loaded);
  }
  shape.c = sizes[kG] * sizes[kC];
  shape.f = sizes[kG] * sizes[kF];
  shape.kh = sizes[kKH];
  shape.kw = sizes[kKW];
  auto [strideH, strideW] = convWindowPair(op, "strides");
  auto [dilationH, dilationW] = convWindowPair(op, "dilations");
  shape.strideH = strideH;
  shape.strideW = strideW;
  shape.dilationH = dilationH;
  shape.dilationW = dilationW;
  shape.padTop = pad.low[0];
  shape.padLeft = pad.low[1];
  shape.padBottom = pad.high[0];
  shape.padRight = pad.high[1];
  shape.groups = sizes[kG];
  bool accumulates = !isZeroInit(op.getDpsInits()[0]);
  gpu_kernel::SparsityDecision decision = gpu_kernel::decideConvSparsity(
      shape, inputType.getElementType(), resultType.getElementType(), patternM,
      accumulates, atRunTime, *arch, *tuning);
  op.emitRemark() << "stc: sparsity=auto on " << target << ": "
                  << (decision.sparse ? "sparse" : "kept dense") << ", "
                  << decision.why;
  return decision.sparse;
}

void StcSparsifyConvolutionsPass::toDenseKernelForm(linalg::LinalgOp op) {
  std::optional<ConvLayout> layout = getLayout(op);
  if (!layout || !op.hasPureTensorSemantics())
    return;
  // Already the kernel's form: rewritten only to pad its channels (and
  // else left to stc-configure-gpu-kernels, which says why it does not
  // take it).
  bool canonical =
      isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwgcGfhwcOp>(op);
  Value input = op.getDpsInputs()[0];
  Value filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  auto resultType = dyn_cast<RankedTensorType>(init.getType());
  if (!inputType || !filterType || !resultType ||
      !filterType.hasStaticShape() || inputType.getEncoding() ||
      filterType.getEncoding() || resultType.getEncoding())
    return;
  FilterTrace trace = traceFilter(filter, /*readData=*/true);
  if (trace.encoded || trace.otherEncoding)
    return;
  SmallVector<int64_t> sizes = canonicalFilterSizes(filterType, *layout);
  int64_t channels = inputType.isDynamicDim(layout->activationDimOf(kChannel))
                         ? ShapedType::kDynamic
                         : sizes[kC];
  std::string why;
  int64_t kernelChannels = gpu_kernel::denseConvKernelChannels(
      inputType.getElementType(), filterType.getElementType(),
      resultType.getElementType(), channels, sizes[kG], why);
  SmallVector<int64_t> toNhwc = toCanonical(layout->activationDims);
  // C channels per group, not a multiple of 8 (a stem, C = 3; ResNeXt's
  // groups): the input's channels are zero-padded to Cp, by its transpose
  // to NHWC where there is one (one kernel reads the input through the
  // pad), else by a copy through the pad (stc-lower-elementwise-to-gpu);
  // the filter gets zero channels too.
  int64_t cp = kernelChannels ? kernelChannels : sizes[kC];
  if (canonical && kernelChannels == sizes[kC])
    return;
  if (kernelChannels && cp != sizes[kC])
    op.emitRemark("stc: dense convolution: input channels zero-padded from ")
        << sizes[kC] << " to " << cp << " for the GPU's tensor cores";
  if (!kernelChannels) {
    if (canonical)
      return;
    op.emitRemark("stc: dense convolution stays off the GPU's tensor cores "
                  "(an element-wise kernel computes it): ")
        << why;
    return;
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  // The input in N x H x W [x G] x Cp; the zero pad goes after the
  // transpose, where the kernel reads through it.
  FoldedPad pad = foldInputPad(input, *layout);
  Value x = pad.input;
  Value inputZero = arith::ConstantOp::create(
      b, loc, b.getZeroAttr(inputType.getElementType()));
  int64_t rank = inputType.getRank();
  if (cp != sizes[kC]) {
    // The transpose's sizes come from the unpadded input: a tensor.dim of
    // the pad would keep it (on the host) after the transpose's kernel
    // reads through it.
    int64_t channelDim = layout->activationDimOf(kChannel);
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)), high(low);
    high[channelDim] = b.getIndexAttr(cp - sizes[kC]);
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> padded(xType.getShape());
    padded[channelDim] = cp;
    SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(b, loc, x);
    xSizes[channelDim] = b.getIndexAttr(cp);
    applyPermutationToVector(xSizes, toNhwc);
    x = tensor::PadOp::create(
        b, loc, RankedTensorType::get(padded, xType.getElementType()), x, low,
        high, inputZero);
    if (!isIdentityPermutation(toNhwc)) {
      Value init =
          tensor::EmptyOp::create(b, loc, xSizes, xType.getElementType());
      x = linalg::TransposeOp::create(b, loc, x, init, toNhwc)->getResult(0);
    }
  } else {
    x = transpose(b, loc, x, toNhwc);
  }
  if (pad.input != input) {
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)), high(low);
    for (int64_t d = 0; d < 2; ++d) {
      low[1 + d] = b.getIndexAttr(pad.low[d]);
      high[1 + d] = b.getIndexAttr(pad.high[d]);
    }
    auto xType = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> padded(xType.getShape());
    for (int64_t d = 0; d < 2; ++d)
      if (!ShapedType::isDynamic(padded[1 + d]))
        padded[1 + d] += pad.low[d] + pad.high[d];
    x = tensor::PadOp::create(
        b, loc, RankedTensorType::get(padded, xType.getElementType()), x, low,
        high, inputZero);
  }
  // The filter as [G x] F x KH x KW x Cp: the flattened canonical matrix,
  // expanded.
  int64_t rows = sizes[kG] * sizes[kF];
  int64_t k = sizes[kKH] * sizes[kKW] * cp;
  Value flat = trace.isConstant()
                   ? arith::ConstantOp::create(
                         b, loc,
                         makeFloatConstant(
                             RankedTensorType::get({rows, k},
                                                   filterType.getElementType()),
                             flattenConstantFilter(trace, *layout, sizes, cp)))
                         .getResult()
                   : flattenFilter(b, loc, filter, *layout, sizes, cp);
  SmallVector<int64_t> filterShape = {sizes[kF], sizes[kKH], sizes[kKW], cp};
  if (layout->isGrouped())
    filterShape.insert(filterShape.begin(), sizes[kG]);
  Value w = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(filterShape, filterType.getElementType()),
      flat,
      layout->isGrouped() ? SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}}
                          : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  // The result in N x OH x OW [x G] x F, from a zero fill or the init.
  SmallVector<int64_t> outShape(resultType.getShape());
  applyPermutationToVector(outShape, toNhwc);
  auto outType = RankedTensorType::get(outShape, resultType.getElementType());
  Value out;
  if (isZeroInit(init)) {
    SmallVector<OpFoldResult> outSizes = tensor::getMixedSizes(b, loc, init);
    applyPermutationToVector(outSizes, toNhwc);
    Value empty =
        tensor::EmptyOp::create(b, loc, outSizes, resultType.getElementType());
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(resultType.getElementType()));
    out = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  } else {
    out = transpose(b, loc, init, toNhwc);
  }
  Attribute strides = op->getAttr("strides");
  Attribute dilations = op->getAttr("dilations");
  Value y = layout->isGrouped()
                ? linalg::Conv2DNhwgcGfhwcOp::create(
                      b, loc, TypeRange{outType}, ValueRange{x, w},
                      ValueRange{out}, strides, dilations)
                      ->getResult(0)
                : linalg::Conv2DNhwcFhwcOp::create(
                      b, loc, TypeRange{outType}, ValueRange{x, w},
                      ValueRange{out}, strides, dilations)
                      ->getResult(0);
  y = transpose(b, loc, y, invertPermutationVector(toNhwc));
  op->getResult(0).replaceAllUsesWith(y);
  op->erase();
  if (auto padOp = input.getDefiningOp<tensor::PadOp>())
    if (pad.input != input && padOp->use_empty())
      padOp->erase();
}

void StcSparsifyConvolutionsPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<SparsityMode> parsedMode = parseSparsityMode(module, sparsity);
  if (failed(parsedMode))
    return signalPassFailure();
  mode = *parsedMode;
  FailureOr<NMPatternAttr> parsedPattern = parsePatternOption(module, pattern);
  if (failed(parsedPattern))
    return signalPassFailure();
  pruneAs = *parsedPattern;

  // Trace every filter before rewriting any convolution: a rewrite strips
  // the encoding of a filter that other convolutions may share.
  SmallVector<std::pair<linalg::LinalgOp, FilterTrace>> candidates;
  module.walk([&](linalg::LinalgOp op) {
    StringRef name = op->getName().getStringRef();
    if (!name.starts_with("linalg.conv_") &&
        !name.starts_with("linalg.depthwise_conv_"))
      return;
    if (op.getNumDpsInputs() < 2 || op.getNumDpsInits() != 1)
      return;
    candidates.emplace_back(
        op, traceFilter(op.getDpsInputs()[1], mode != SparsityMode::Explicit));
  });
  bool failedAny = false;
  for (auto &[op, trace] : candidates)
    if (failed(sparsify(op, trace)))
      failedAny = true;
  // What stayed dense, in the GPU kernel's form.
  if (gpuDenseForm && !failedAny) {
    SmallVector<linalg::LinalgOp> dense;
    module.walk([&](linalg::LinalgOp op) {
      if (op->getName().getStringRef().starts_with("linalg.conv_2d_"))
        dense.push_back(op);
    });
    for (linalg::LinalgOp op : dense)
      toDenseKernelForm(op);
  }

  // The encodings the rewrites consumed: conversions lose their last use,
  // arguments their encoding (already), functions their signature's.
  // A conversion with other users stays for upstream's sparsifier.
  for (Operation *convert : bypassedConverts)
    if (convert->use_empty())
      convert->erase();
  llvm::SmallPtrSet<Operation *, 4> funcs;
  for (BlockArgument arg : strippedArgs) {
    for (Operation *user : arg.getUsers()) {
      if (!isa<linalg::TransposeOp, tensor::CollapseShapeOp, tensor::PadOp,
               tensor::DimOp, PruneOp, CompressOp>(user)) {
        user->emitError("stc: this use of a structured[2, 4] filter "
                        "argument that an STC convolution consumed is not "
                        "supported (the argument becomes dense); convert it "
                        "with sparse_tensor.convert for the other uses");
        failedAny = true;
      }
    }
    if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
      funcs.insert(func);
  }
  for (Operation *op : funcs) {
    auto func = cast<func::FuncOp>(op);
    func.setFunctionType(
        FunctionType::get(&getContext(), func.getBody().getArgumentTypes(),
                          func.getFunctionType().getResults()));
  }
  if (failedAny)
    signalPassFailure();
}

} // namespace
