//===- StcConstants.h - compile-time N:M work on constants --*- C++ -*-===//
//
// Bridges constant tensor attributes (dense<> and dense_resource<> blobs of
// f32/f16/bf16, and i8 read as signed, whose values floats hold exactly) and
// the MLIR-free format library, for the folders of
// stc.prune/compress/decompress/check and for the passes that inspect
// constant weights. Every conversion is exact.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCCONSTANTS_H
#define STC_DIALECTS_STC_STCCONSTANTS_H

#include "dialects/Stc/StcAttrs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::stc {

/// The elements of a constant float tensor (row-major), or none when `attr`
/// is not a readable dense<>/dense_resource<> of f32, f16, bf16 or i8 with
/// a static shape.
std::optional<std::vector<float>> readFloatConstant(Attribute attr,
                                                    RankedTensorType type);

/// The words of a constant i16 metadata tensor (dense<> or dense_resource<>),
/// or none.
std::optional<std::vector<uint16_t>> readMetaConstant(Attribute attr,
                                                      RankedTensorType type);

/// A dense<> attribute of `type` (f32/f16/bf16/i8) holding `values`, which must
/// be representable in the element type.
DenseElementsAttr makeFloatConstant(RankedTensorType type,
                                    const std::vector<float> &values);

/// Whether the row-major `dim0 x dim1` data satisfies `pattern` along
/// `reductionDim`.
bool constantSatisfiesPattern(const std::vector<float> &data, int64_t dim0,
                              int64_t dim1, int64_t reductionDim,
                              NMPatternAttr pattern);

/// Empty when the data satisfies the pattern, otherwise a sentence like
/// "is not 2:4 along dimension 0: row 3, group 1 has 3 non-zeros".
std::string describePatternViolation(const std::vector<float> &data,
                                     int64_t dim0, int64_t dim1,
                                     int64_t reductionDim,
                                     NMPatternAttr pattern);

/// CPU kernel-ready column indices (rows x valuesPerRow) of canonical
/// metadata (rows x valuesPerRow / (4n) words).
std::vector<int32_t> decodeConstantIndices(const std::vector<uint16_t> &meta,
                                           int64_t rows, int64_t valuesPerRow,
                                           NMPatternAttr pattern);

} // namespace mlir::stc

#endif // STC_DIALECTS_STC_STCCONSTANTS_H
