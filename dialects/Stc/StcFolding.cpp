//===- StcFolding.cpp - constant folding of stc ops ---------*- C++ -*-===//
//
// Constant weights are pruned and compressed at compile time: the folders
// here run the format library (runtime/format) on the constant's data, the
// same code that generated programs call at run time for non-constant
// weights, so both paths agree bit for bit.
//
//===----------------------------------------------------------------------===//
#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "runtime/format/StcFormat.h"
#include "runtime/format/StcLimits.h"
#include "runtime/format/StcPrune.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;
using namespace mlir::stc;
namespace fmt = ::stc::format;

static fmt::NMPattern toFormat(NMPatternAttr p) {
  return fmt::NMPattern{static_cast<int>(p.getN()), static_cast<int>(p.getM())};
}

/// Decodes `count` elements of `elementType` from raw little-endian bytes.
static std::optional<std::vector<float>>
decodeRaw(ArrayRef<char> raw, Type elementType, int64_t count, bool splat) {
  bool i8 = elementType.isInteger(8);
  size_t width = elementType.isF32() ? 4 : i8 ? 1 : 2;
  if (!(elementType.isF32() || elementType.isF16() || elementType.isBF16() ||
        i8))
    return std::nullopt;
  if (raw.size() < (splat ? width : width * count))
    return std::nullopt;
  // A splat of a huge shape is a few bytes of text: not expanded past the
  // constant bound (stc-check-sizes refuses such programs; this keeps the
  // folders safe when a pass runs on its own).
  if (count < 0 || uint64_t(count) > fmt::kMaxConstantBytes / sizeof(float))
    return std::nullopt;
  std::vector<float> out(count);
  for (int64_t i = 0; i < count; ++i) {
    const char *p = raw.data() + (splat ? 0 : i * width);
    if (i8) {
      // Two's complement: every i8 value is an exact float.
      out[i] = static_cast<float>(static_cast<int8_t>(*p));
    } else if (width == 4) {
      std::memcpy(&out[i], p, 4);
    } else {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      out[i] =
          elementType.isF16() ? fmt::f16ToFloat(bits) : fmt::bf16ToFloat(bits);
    }
  }
  return out;
}

std::optional<std::vector<float>>
mlir::stc::readFloatConstant(Attribute attr, RankedTensorType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  int64_t count = type.getNumElements();
  Type elem = type.getElementType();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return decodeRaw(dense.getRawData(), elem, count, dense.isSplat());
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return decodeRaw(blob->getData(), elem, count, /*splat=*/false);
  }
  return std::nullopt;
}

std::optional<std::vector<uint16_t>>
mlir::stc::readMetaConstant(Attribute attr, RankedTensorType type) {
  if (!type.hasStaticShape() || !type.getElementType().isInteger(16))
    return std::nullopt;
  int64_t count = type.getNumElements();
  ArrayRef<char> raw;
  bool splat = false;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    raw = dense.getRawData();
    splat = dense.isSplat();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    raw = blob->getData();
  } else {
    return std::nullopt;
  }
  if (raw.size() < (splat ? 2u : size_t(count) * 2))
    return std::nullopt;
  if (count < 0 || uint64_t(count) > fmt::kMaxConstantBytes / sizeof(uint16_t))
    return std::nullopt;
  std::vector<uint16_t> words(count);
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(&words[i], raw.data() + (splat ? 0 : i * 2), 2);
  return words;
}

DenseElementsAttr
mlir::stc::makeFloatConstant(RankedTensorType type,
                             const std::vector<float> &values) {
  Type elem = type.getElementType();
  if (elem.isF32())
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  if (elem.isInteger(8)) {
    std::vector<int8_t> bytes(values.begin(), values.end());
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(bytes.data()),
                             bytes.size()));
  }
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bits[i] =
        elem.isF16() ? fmt::floatToF16(values[i]) : fmt::floatToBF16(values[i]);
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                           bits.size() * 2));
}

bool mlir::stc::constantSatisfiesPattern(const std::vector<float> &data,
                                         int64_t dim0, int64_t dim1,
                                         int64_t reductionDim,
                                         NMPatternAttr pattern) {
  return describePatternViolation(data, dim0, dim1, reductionDim, pattern)
      .empty();
}

std::string mlir::stc::describePatternViolation(const std::vector<float> &data,
                                                int64_t dim0, int64_t dim1,
                                                int64_t reductionDim,
                                                NMPatternAttr pattern) {
  auto view = fmt::viewOf(data, dim0, dim1, static_cast<int>(reductionDim));
  if (!view)
    return "has an unexpected shape";
  std::optional<fmt::Violation> v =
      fmt::checkPattern<float>(*view, toFormat(pattern), fmt::magnitudeF32);
  if (!v)
    return "";
  return "is not " + std::to_string(pattern.getN()) + ":" +
         std::to_string(pattern.getM()) + " along dimension " +
         std::to_string(reductionDim) + ": row " + std::to_string(v->row) +
         ", group " + std::to_string(v->group) + " has " +
         std::to_string(v->count) + " non-zeros";
}

std::vector<int32_t>
mlir::stc::decodeConstantIndices(const std::vector<uint16_t> &meta,
                                 int64_t rows, int64_t valuesPerRow,
                                 NMPatternAttr pattern) {
  int64_t words = valuesPerRow / (4 * pattern.getN());
  std::vector<int32_t> idx(rows * valuesPerRow, 0);
  fmt::decodeIndices(
      fmt::View2D<const uint16_t>::rowMajor(meta.data(), rows, words),
      fmt::View2D<int32_t>::rowMajor(idx.data(), rows, valuesPerRow),
      toFormat(pattern));
  return idx;
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult PruneOp::fold(FoldAdaptor adaptor) {
  auto type = getType();
  if (!adaptor.getInput())
    return {};
  std::optional<std::vector<float>> data =
      readFloatConstant(adaptor.getInput(), type);
  if (!data)
    return {};
  // f16/bf16 constants are pruned on their exact float values: the
  // magnitudes, and so the kept elements, are the same as on the raw bits.
  std::optional<fmt::View2D<const float>> in =
      fmt::viewOf(*data, type.getDimSize(0), type.getDimSize(1),
                  static_cast<int>(getReductionDim()));
  if (!in)
    return {};
  std::vector<float> pruned(data->size());
  // Same layout as the input, so the same strides address the output.
  fmt::View2D<float> out(pruned.data(), in->rows, in->cols, in->rowStride,
                         in->colStride);
  fmt::PruneMethod method = getMethod() == PruneMethod::tile
                                ? fmt::PruneMethod::Tile
                                : fmt::PruneMethod::Strip;
  if (!fmt::pruneWithMethod<float>(*in, out, toFormat(getPattern()), method,
                                   fmt::magnitudeF32))
    return {};
  return makeFloatConstant(type, pruned);
}

LogicalResult CompressOp::fold(FoldAdaptor adaptor,
                               SmallVectorImpl<OpFoldResult> &results) {
  auto type = getInput().getType();
  if (!adaptor.getInput() || !getValues().getType().hasStaticShape() ||
      !getMeta().getType().hasStaticShape())
    return failure();
  std::optional<std::vector<float>> data =
      readFloatConstant(adaptor.getInput(), type);
  if (!data)
    return failure();
  fmt::Compressed compressed;
  fmt::Status status = fmt::compress(
      *data, type.getDimSize(0), type.getDimSize(1),
      static_cast<int>(getReductionDim()), toFormat(getPattern()), compressed);
  // A violation is reported with its location by stc-lower-to-runtime.
  if (!status.ok())
    return failure();
  results.push_back(
      makeFloatConstant(getValues().getType(), compressed.values));
  results.push_back(DenseElementsAttr::getFromRawBuffer(
      getMeta().getType(),
      ArrayRef<char>(reinterpret_cast<const char *>(compressed.meta.data()),
                     compressed.meta.size() * 2)));
  return success();
}

OpFoldResult DecompressOp::fold(FoldAdaptor adaptor) {
  auto type = getType();
  if (!adaptor.getValues() || !adaptor.getMeta() || !type.hasStaticShape() ||
      !getValues().getType().hasStaticShape())
    return {};
  std::optional<std::vector<uint16_t>> meta =
      readMetaConstant(adaptor.getMeta(), getMeta().getType());
  if (!meta)
    return {};
  std::optional<std::vector<float>> values =
      readFloatConstant(adaptor.getValues(), getValues().getType());
  if (!values)
    return {};
  int64_t dim = getReductionDim();
  fmt::Compressed compressed;
  compressed.pattern = toFormat(getPattern());
  compressed.rows = type.getDimSize(1 - dim);
  compressed.k = type.getDimSize(dim);
  compressed.values = std::move(*values);
  compressed.meta = std::move(*meta);
  std::vector<float> dense;
  if (!fmt::decompress(compressed, static_cast<int>(dim), dense).ok())
    return {};
  return makeFloatConstant(type, dense);
}

OpFoldResult CheckOp::fold(FoldAdaptor adaptor) {
  auto type = getInput().getType();
  if (!adaptor.getInput())
    return {};
  std::optional<std::vector<float>> data =
      readFloatConstant(adaptor.getInput(), type);
  if (!data)
    return {};
  bool ok =
      constantSatisfiesPattern(*data, type.getDimSize(0), type.getDimSize(1),
                               getReductionDim(), getPattern());
  return BoolAttr::get(getContext(), ok);
}
