//===- StcOps.cpp - stc operations --------------------------*- C++ -*-===//
//
// Verifiers for the stc operations. Every diagnostic here has a case in
// test/Dialect/Stc/invalid.mlir.
//
//===----------------------------------------------------------------------===//
#include "dialects/Stc/StcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::stc;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Two static sizes disagree (dynamic sizes always agree).
static bool mismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// The pattern is legal for the element type: 1:2 is the tf32 form of the
/// hardware and is defined for 32-bit floats only.
static LogicalResult verifyPatternForType(Operation *op, NMPatternAttr pattern,
                                          Type elementType) {
  if (pattern.getN() == 1 && pattern.getM() == 2 && !elementType.isF32())
    return op->emitOpError("pattern 1:2 requires f32 elements, got ")
           << elementType;
  return success();
}

/// Checks a dense matrix operand with a pattern running along `dim`.
static LogicalResult verifyPatternOperand(Operation *op, RankedTensorType type,
                                          NMPatternAttr pattern, int64_t dim) {
  if (type.getRank() != 2)
    return op->emitOpError("expects a rank-2 tensor, got rank ")
           << type.getRank();
  if (dim != 0 && dim != 1)
    return op->emitOpError("reduction_dim must be 0 or 1, got ") << dim;
  return verifyPatternForType(op, pattern, type.getElementType());
}

/// Checks that (values, meta) are a compressed form of a dense `rows x k`
/// matrix under `pattern` (any size may be dynamic).
static LogicalResult verifyCompressedPair(Operation *op,
                                          RankedTensorType values,
                                          RankedTensorType meta,
                                          NMPatternAttr pattern, int64_t rows,
                                          int64_t k) {
  if (values.getRank() != 2 || meta.getRank() != 2)
    return op->emitOpError("expects rank-2 values and metadata");
  if (mismatch(values.getDimSize(0), meta.getDimSize(0)))
    return op->emitOpError("values have ")
           << values.getDimSize(0) << " rows but metadata has "
           << meta.getDimSize(0);
  if (mismatch(values.getDimSize(0), rows))
    return op->emitOpError("compressed operand has ")
           << values.getDimSize(0) << " rows, expected " << rows;
  int64_t valuesPerWord = 4 * pattern.getN();
  if (!ShapedType::isDynamic(values.getDimSize(1)) &&
      !ShapedType::isDynamic(meta.getDimSize(1)) &&
      values.getDimSize(1) != meta.getDimSize(1) * valuesPerWord)
    return op->emitOpError("values have ")
           << values.getDimSize(1) << " columns but metadata has "
           << meta.getDimSize(1) << " words per row (expected "
           << meta.getDimSize(1) * valuesPerWord << " values)";
  if (!ShapedType::isDynamic(k) &&
      mismatch(values.getDimSize(1), pattern.getValuesPerRow(k)))
    return op->emitOpError("reduction size ")
           << k << " needs " << pattern.getValuesPerRow(k)
           << " values per row under " << pattern.getN() << ":"
           << pattern.getM() << ", got " << values.getDimSize(1);
  return verifyPatternForType(op, pattern, values.getElementType());
}

/// Checks the fused epilogue's operands: `bias` (optional) is rank 1 with
/// `biasElems` elements, one per `biasUnit`; `acc` (optional) has the
/// result's shape; a non-zero `beta` needs `acc`.
static LogicalResult verifyEpilogueOperands(Operation *op, Value bias,
                                            Value acc, APFloat beta,
                                            RankedTensorType result,
                                            int64_t biasElems,
                                            StringRef biasUnit) {
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1)
      return op->emitOpError("bias must be rank 1, got rank ")
             << biasType.getRank();
    if (mismatch(biasType.getDimSize(0), biasElems))
      return op->emitOpError("bias has ")
             << biasType.getDimSize(0) << " elements, expected " << biasElems
             << " (one per " << biasUnit << ")";
  }
  if (acc) {
    auto accType = cast<RankedTensorType>(acc.getType());
    bool same = accType.getRank() == result.getRank();
    for (int64_t d = 0; same && d < result.getRank(); ++d)
      same = !mismatch(accType.getDimSize(d), result.getDimSize(d));
    if (!same)
      return op->emitOpError("acc must have the result's shape");
  } else if (beta.convertToDouble() != 0.0) {
    return op->emitOpError("beta is ")
           << beta.convertToDouble() << " but no acc operand is given";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PruneOp / CheckOp
//===----------------------------------------------------------------------===//

LogicalResult PruneOp::verify() {
  if (failed(verifyPatternOperand(*this, getInput().getType(), getPattern(),
                                  getReductionDim())))
    return failure();
  // Tile pruning keeps two per row and two per column of 4x4 tiles: that is
  // the 2:4 pattern in both directions and has no 1:2 counterpart.
  NMPatternAttr pattern = getPattern();
  if (getMethod() == PruneMethod::tile &&
      !(pattern.getN() == 2 && pattern.getM() == 4))
    return emitOpError("method tile requires the 2:4 pattern, got ")
           << pattern.getN() << ":" << pattern.getM();
  return success();
}

/// `strip` / `tile` after the `method` keyword (the attribute's own form,
/// `#stc.prune_method<tile>`, is for the attribute dictionary).
static ParseResult parsePruneMethod(OpAsmParser &parser,
                                    PruneMethodAttr &method) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<PruneMethod> value = symbolizePruneMethod(keyword);
  if (!value)
    return parser.emitError(loc, "expected prune method strip or tile, got '")
           << keyword << "'";
  method = PruneMethodAttr::get(parser.getContext(), *value);
  return success();
}

static void printPruneMethod(OpAsmPrinter &printer, PruneOp,
                             PruneMethodAttr method) {
  printer << stringifyPruneMethod(method.getValue());
}

LogicalResult CheckOp::verify() {
  return verifyPatternOperand(*this, getInput().getType(), getPattern(),
                              getReductionDim());
}

//===----------------------------------------------------------------------===//
// CompressOp / DecompressOp
//===----------------------------------------------------------------------===//

LogicalResult CompressOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(
          verifyPatternOperand(*this, input, getPattern(), getReductionDim())))
    return failure();
  if (getValues().getType().getElementType() != input.getElementType())
    return emitOpError("values element type ")
           << getValues().getType().getElementType()
           << " differs from the input's " << input.getElementType();
  int64_t dim = getReductionDim();
  return verifyCompressedPair(*this, getValues().getType(), getMeta().getType(),
                              getPattern(), input.getDimSize(1 - dim),
                              input.getDimSize(dim));
}

LogicalResult DecompressOp::verify() {
  RankedTensorType result = getResult().getType();
  if (failed(
          verifyPatternOperand(*this, result, getPattern(), getReductionDim())))
    return failure();
  if (getValues().getType().getElementType() != result.getElementType())
    return emitOpError("result element type ")
           << result.getElementType() << " differs from the values' "
           << getValues().getType().getElementType();
  int64_t dim = getReductionDim();
  return verifyCompressedPair(*this, getValues().getType(), getMeta().getType(),
                              getPattern(), result.getDimSize(1 - dim),
                              result.getDimSize(dim));
}

//===----------------------------------------------------------------------===//
// SpmmOp
//===----------------------------------------------------------------------===//

int64_t SpmmOp::getDenseReductionDim() {
  // lhs sparse: dense is K x N (N x K transposed); rhs sparse: dense is
  // M x K (K x M transposed).
  bool lhs = getSparse() == SparseOperand::lhs;
  return (lhs != getDenseTransposed()) ? 0 : 1;
}

/// The per-channel scale (rank 1, `channels` elements) and the integer
/// result rules shared by stc.spmm and stc.conv.
template <typename OpTy>
static LogicalResult verifyQuantizedEpilogue(OpTy op, int64_t channels,
                                             StringRef channelUnit) {
  if (Value scale = op.getScale()) {
    auto scaleType = cast<RankedTensorType>(scale.getType());
    if (scaleType.getRank() != 1)
      return op.emitOpError("scale must be rank 1, got rank ")
             << scaleType.getRank();
    if (mismatch(scaleType.getDimSize(0), channels))
      return op.emitOpError("scale has ")
             << scaleType.getDimSize(0) << " elements, expected " << channels
             << " (one per " << channelUnit << ")";
  }
  Type input = op.getValues().getType().getElementType();
  Type output = op.getResult().getType().getElementType();
  bool quantized = input.isInteger(8);
  if (!quantized && isa<IntegerType>(output))
    return op.emitOpError("an integer result needs i8 operands, got ")
           << input << " operands and an " << output << " result";
  if (output.isInteger(32) &&
      (op.getAlpha().convertToDouble() != 1.0 || op.getBias() ||
       op.getScale() || op.getAcc() || op.getActivation() != Activation::none))
    return op.emitOpError("an i32 result is the exact integer accumulator: "
                          "alpha, acc, bias, scale and activation need an i8 "
                          "or float result (the scaling epilogue)");
  return success();
}

LogicalResult SpmmOp::verify() {
  RankedTensorType dense = getDense().getType();
  RankedTensorType result = getResult().getType();
  if (dense.getRank() != 2)
    return emitOpError("expects a rank-2 dense operand, got rank ")
           << dense.getRank();
  if (result.getRank() != 2)
    return emitOpError("expects a rank-2 result, got rank ")
           << result.getRank();
  if (dense.getElementType() != getValues().getType().getElementType())
    return emitOpError("dense operand element type ")
           << dense.getElementType() << " differs from the sparse operand's "
           << getValues().getType().getElementType();

  bool lhs = getSparse() == SparseOperand::lhs;
  int64_t kDim = getDenseReductionDim();
  int64_t k = dense.getDimSize(kDim);
  int64_t denseOther = dense.getDimSize(1 - kDim);
  // The sparse operand's compressed rows are the result's rows (lhs) or
  // columns (rhs); the dense operand's other dimension is the remaining one.
  int64_t sparseRows = lhs ? result.getDimSize(0) : result.getDimSize(1);
  int64_t resultOther = lhs ? result.getDimSize(1) : result.getDimSize(0);
  if (mismatch(denseOther, resultOther))
    return emitOpError("dense operand shape (")
           << dense.getDimSize(0) << "x" << dense.getDimSize(1)
           << ") does not match result shape (" << result.getDimSize(0) << "x"
           << result.getDimSize(1) << ")";
  if (failed(verifyCompressedPair(*this, getValues().getType(),
                                  getMeta().getType(), getPattern(), sparseRows,
                                  k)))
    return failure();

  StringRef channel = lhs ? "row of the result" : "column of the result";
  if (failed(verifyEpilogueOperands(*this, getBias(), getAcc(), getBeta(),
                                    result, sparseRows, channel)))
    return failure();
  return verifyQuantizedEpilogue(*this, sparseRows, channel);
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

int64_t ConvOp::getChannelsPerGroup() {
  int64_t channels = getInput().getType().getDimSize(3);
  if (ShapedType::isDynamic(channels) || getGroups() < 1)
    return ShapedType::kDynamic;
  return channels / getGroups();
}

int64_t ConvOp::getPaddedChannelsPerGroup() {
  int64_t c = getChannelsPerGroup();
  if (ShapedType::isDynamic(c))
    return c;
  int64_t m = getPattern().getM();
  return (c + m - 1) / m * m;
}

int64_t ConvOp::getFlatReductionSize() {
  int64_t cp = getPaddedChannelsPerGroup();
  ArrayRef<int64_t> filter = getFilterSize();
  if (ShapedType::isDynamic(cp) || filter.size() != 2)
    return ShapedType::kDynamic;
  return filter[0] * filter[1] * cp;
}

int64_t ConvOp::getOutputSize(int64_t in, int64_t filter, int64_t stride,
                              int64_t dilation, int64_t padLow,
                              int64_t padHigh) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = in + padLow + padHigh - dilation * (filter - 1) - 1;
  // Floor division: a negative span means the filter does not fit.
  return span < 0 ? 0 : span / stride + 1;
}

LogicalResult ConvOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (input.getRank() != 4)
    return emitOpError("expects a rank-4 NHWC input, got rank ")
           << input.getRank();
  if (result.getRank() != 4)
    return emitOpError("expects a rank-4 NHWC result, got rank ")
           << result.getRank();
  if (input.getElementType() != getValues().getType().getElementType())
    return emitOpError("input element type ")
           << input.getElementType() << " differs from the filter's "
           << getValues().getType().getElementType();

  auto pairOf = [&](StringRef name, ArrayRef<int64_t> v,
                    int64_t min) -> LogicalResult {
    if (v.size() != 2)
      return emitOpError() << name << " must have 2 entries (H, W), got "
                           << v.size();
    if (v[0] < min || v[1] < min)
      return emitOpError() << name << " must be at least " << min << ", got ["
                           << v[0] << ", " << v[1] << "]";
    return success();
  };
  if (failed(pairOf("filter_size", getFilterSize(), 1)) ||
      failed(pairOf("strides", getStrides(), 1)) ||
      failed(pairOf("dilations", getDilations(), 1)) ||
      failed(pairOf("pad_low", getPadLow(), 0)) ||
      failed(pairOf("pad_high", getPadHigh(), 0)))
    return failure();
  int64_t groups = getGroups();
  if (groups < 1)
    return emitOpError("groups must be at least 1, got ") << groups;

  int64_t inChannels = input.getDimSize(3);
  int64_t outChannels = result.getDimSize(3);
  // The compressed filter's columns (KH*KW*Cp, padded again to whole
  // metadata words) do not determine C: it must come from the type.
  if (ShapedType::isDynamic(inChannels) || ShapedType::isDynamic(outChannels))
    return emitOpError("expects static channel counts, got input ")
           << input << " and result " << result;
  if (inChannels % groups != 0)
    return emitOpError("input channels (")
           << inChannels << ") are not a multiple of groups (" << groups << ")";
  if (outChannels % groups != 0)
    return emitOpError("output channels (")
           << outChannels << ") are not a multiple of groups (" << groups
           << ")";
  if (mismatch(input.getDimSize(0), result.getDimSize(0)))
    return emitOpError("result batch ")
           << result.getDimSize(0) << " differs from the input's "
           << input.getDimSize(0);
  for (int64_t d = 0; d < 2; ++d) {
    int64_t in = input.getDimSize(1 + d);
    int64_t expected =
        getOutputSize(in, getFilterSize()[d], getStrides()[d],
                      getDilations()[d], getPadLow()[d], getPadHigh()[d]);
    if (expected == 0)
      return emitOpError("the dilated filter (")
             << getDilations()[d] * (getFilterSize()[d] - 1) + 1
             << ") does not fit the padded input "
             << (d == 0 ? "height" : "width") << " ("
             << in + getPadLow()[d] + getPadHigh()[d] << ")";
    if (mismatch(result.getDimSize(1 + d), expected))
      return emitOpError("result ")
             << (d == 0 ? "height " : "width ") << result.getDimSize(1 + d)
             << " differs from the convolution's " << expected;
  }
  if (failed(verifyCompressedPair(*this, getValues().getType(),
                                  getMeta().getType(), getPattern(),
                                  outChannels, getFlatReductionSize())))
    return failure();

  if (failed(verifyEpilogueOperands(*this, getBias(), getAcc(), getBeta(),
                                    result, outChannels, "output channel")))
    return failure();
  return verifyQuantizedEpilogue(*this, outChannels, "output channel");
}

#define GET_OP_CLASSES
#include "dialects/Stc/StcOps.cpp.inc"
