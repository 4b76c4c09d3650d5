//===- StructuredPrune.cpp - 2:4 pruning for sparse_tensor idioms -------===//
//
// See StructuredPrune.h.
//
//===----------------------------------------------------------------------===//
#include "passes/StructuredPrune.h"
#include "passes/SparsityPolicy.h"

#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Walks the groups of 4 consecutive elements along `dim` of a row-major
/// tensor of `shape`, calling `fn` with the flat indices of each group.
template <typename Fn>
void forEachGroup(ArrayRef<int64_t> shape, int64_t dim, Fn fn) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i)
    outer *= shape[i];
  for (int64_t i = dim + 1, e = shape.size(); i < e; ++i)
    inner *= shape[i];
  int64_t size = shape[dim];
  SmallVector<int64_t, 4> group;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      for (int64_t start = 0; start < size; start += 4) {
        group.clear();
        for (int64_t t = start; t < std::min(size, start + 4); ++t)
          group.push_back((o * size + t) * inner + in);
        fn(ArrayRef<int64_t>(group));
      }
    }
  }
}

/// Magnitude order of one element type's values: NaN above everything
/// (all NaNs equal), integers by absolute value read as unsigned.
struct FloatOrder {
  static bool isZero(const APFloat &v) { return v.isZero(); }
  static bool greater(const APFloat &a, const APFloat &b) {
    if (a.isNaN() || b.isNaN())
      return a.isNaN() && !b.isNaN();
    return abs(a).compare(abs(b)) == APFloat::cmpGreaterThan;
  }
  static APFloat zeroLike(const APFloat &v) {
    return APFloat::getZero(v.getSemantics());
  }
};

struct IntOrder {
  static bool isZero(const APInt &v) { return v.isZero(); }
  static bool greater(const APInt &a, const APInt &b) {
    return a.abs().ugt(b.abs());
  }
  static APInt zeroLike(const APInt &v) {
    return APInt::getZero(v.getBitWidth());
  }
};

/// Keeps the 2 largest of `group` (lower index winning ties): an element is
/// kept when fewer than 2 others beat it; an earlier one beats it when not
/// smaller, a later one when larger.
template <typename Order, typename T>
bool pruneGroup(std::vector<T> &values, ArrayRef<int64_t> group) {
  int nonZeros = 0;
  for (int64_t e : group)
    nonZeros += !Order::isZero(values[e]);
  if (nonZeros <= 2)
    return false;
  SmallVector<bool, 4> keep;
  for (size_t j = 0; j < group.size(); ++j) {
    int beaten = 0;
    for (size_t k = 0; k < group.size(); ++k) {
      if (k == j)
        continue;
      const T &x = values[group[j]], &y = values[group[k]];
      beaten += k < j ? !Order::greater(x, y) : Order::greater(y, x);
    }
    keep.push_back(beaten < 2);
  }
  for (size_t j = 0; j < group.size(); ++j)
    if (!keep[j])
      values[group[j]] = Order::zeroLike(values[group[j]]);
  return true;
}

template <typename Order, typename T>
int64_t countGroups(const std::vector<T> &values, ArrayRef<int64_t> shape,
                    int64_t dim) {
  int64_t count = 0;
  forEachGroup(shape, dim, [&](ArrayRef<int64_t> group) {
    int nonZeros = 0;
    for (int64_t e : group)
      nonZeros += !Order::isZero(values[e]);
    count += nonZeros > 2;
  });
  return count;
}

} // namespace

int64_t stc::countNon2To4Groups(DenseElementsAttr attr, int64_t dim) {
  ArrayRef<int64_t> shape = attr.getType().getShape();
  Type elementType = attr.getElementType();
  if (isa<FloatType>(elementType)) {
    auto range = attr.getValues<APFloat>();
    std::vector<APFloat> values(range.begin(), range.end());
    return countGroups<FloatOrder>(values, shape, dim);
  }
  auto range = attr.getValues<APInt>();
  std::vector<APInt> values(range.begin(), range.end());
  return countGroups<IntOrder>(values, shape, dim);
}

DenseElementsAttr stc::pruneConstant2To4(DenseElementsAttr attr, int64_t dim) {
  ShapedType type = attr.getType();
  ArrayRef<int64_t> shape = type.getShape();
  if (isa<FloatType>(attr.getElementType())) {
    auto range = attr.getValues<APFloat>();
    std::vector<APFloat> values(range.begin(), range.end());
    forEachGroup(shape, dim, [&](ArrayRef<int64_t> group) {
      pruneGroup<FloatOrder>(values, group);
    });
    return DenseElementsAttr::get(type, values);
  }
  auto range = attr.getValues<APInt>();
  std::vector<APInt> values(range.begin(), range.end());
  forEachGroup(shape, dim, [&](ArrayRef<int64_t> group) {
    pruneGroup<IntOrder>(values, group);
  });
  return DenseElementsAttr::get(type, values);
}

bool stc::isKnown2To4(Value value, int64_t dim) {
  if (auto prune = value.getDefiningOp<PruneOp>()) {
    NMPatternAttr p = prune.getPattern();
    // 1:2 keeps at most one of every aligned pair: at most two of four.
    return prune.getReductionDim() == static_cast<uint64_t>(dim) &&
           ((p.getN() == 2 && p.getM() == 4) ||
            (p.getN() == 1 && p.getM() == 2));
  }
  if (auto decompress = value.getDefiningOp<DecompressOp>()) {
    NMPatternAttr p = decompress.getPattern();
    return decompress.getReductionDim() == static_cast<uint64_t>(dim) &&
           ((p.getN() == 2 && p.getM() == 4) ||
            (p.getN() == 1 && p.getM() == 2));
  }
  if (auto convert = value.getDefiningOp<sparse_tensor::ConvertOp>()) {
    bool hasEncoding = false;
    return getStructuredDim(convert.getSource().getType(), hasEncoding) == dim;
  }
  return false;
}

namespace {

/// i1 values: whether element `a` is of larger magnitude than `b`.
Value magnitudeGreater(OpBuilder &b, Location loc, Value a, Value b2) {
  if (isa<FloatType>(a.getType())) {
    Value absA = math::AbsFOp::create(b, loc, a);
    Value absB = math::AbsFOp::create(b, loc, b2);
    Value gt =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, absA, absB);
    Value aNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
    Value bNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, b2, b2);
    Value bOrdered = arith::XOrIOp::create(
        b, loc, bNan, arith::ConstantIntOp::create(b, loc, 1, 1));
    Value nanWins = arith::AndIOp::create(b, loc, aNan, bOrdered);
    return arith::OrIOp::create(b, loc, gt, nanWins);
  }
  Value absA = math::AbsIOp::create(b, loc, a);
  Value absB = math::AbsIOp::create(b, loc, b2);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, absA, absB);
}

/// The same rule as pruneGroup, as a tensor.generate: element (.., j, ..)
/// is kept when fewer than 2 elements of its group beat it. Elements past
/// the end of a short last group do not exist (they are not zeros that
/// could tie).
Value buildGenericPrune(OpBuilder &b, Location loc, Value input, int64_t dim) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, input, i));
  Value size =
      type.isDynamicDim(dim)
          ? Value(tensor::DimOp::create(b, loc, input, dim))
          : Value(arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim)));
  auto body = [&](OpBuilder &nb, Location l, ValueRange indices) {
    Type elementType = type.getElementType();
    Value j = indices[dim];
    Value four = arith::ConstantIndexOp::create(nb, l, 4);
    Value start = arith::MulIOp::create(
        nb, l, arith::DivUIOp::create(nb, l, j, four), four);
    Value x = tensor::ExtractOp::create(nb, l, input, indices);
    Value beaten = arith::ConstantIndexOp::create(nb, l, 0);
    Value one = arith::ConstantIndexOp::create(nb, l, 1);
    for (int64_t t = 0; t < 4; ++t) {
      Value k = arith::AddIOp::create(nb, l, start,
                                      arith::ConstantIndexOp::create(nb, l, t));
      Value inside =
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, k, size);
      Value other =
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, k, j);
      // Read a valid element even for k past the end (its vote is masked).
      Value kRead = arith::SelectOp::create(nb, l, inside, k, j);
      SmallVector<Value> at(indices.begin(), indices.end());
      at[dim] = kRead;
      Value y = tensor::ExtractOp::create(nb, l, input, at);
      Value earlier =
          arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, k, j);
      Value xWins = magnitudeGreater(nb, l, x, y);
      Value notXWins = arith::XOrIOp::create(
          nb, l, xWins, arith::ConstantIntOp::create(nb, l, 1, 1));
      Value yWins = magnitudeGreater(nb, l, y, x);
      Value beats = arith::SelectOp::create(nb, l, earlier, notXWins, yWins);
      Value counts = arith::AndIOp::create(
          nb, l, arith::AndIOp::create(nb, l, inside, other), beats);
      beaten = arith::AddIOp::create(
          nb, l, beaten,
          arith::SelectOp::create(nb, l, counts, one,
                                  arith::ConstantIndexOp::create(nb, l, 0)));
    }
    Value keep =
        arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, beaten,
                              arith::ConstantIndexOp::create(nb, l, 2));
    Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(elementType));
    Value result = arith::SelectOp::create(nb, l, keep, x, zero);
    tensor::YieldOp::create(nb, l, result);
  };
  return tensor::GenerateOp::create(b, loc, type, dynamicSizes, body);
}

} // namespace

Value stc::buildRuntimePrune2To4(OpBuilder &b, Location loc, Value value,
                                 int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  Type elementType = type.getElementType();
  bool runtimeHasIt = elementType.isF32() || elementType.isF16() ||
                      elementType.isBF16() || elementType.isInteger(8);
  if (type.getRank() == 2 && runtimeHasIt)
    return PruneOp::create(
        b, loc, value, NMPatternAttr::get(b.getContext(), 2, 4),
        b.getI64IntegerAttr(dim),
        PruneMethodAttr::get(b.getContext(), PruneMethod::strip), UnitAttr());
  return buildGenericPrune(b, loc, value, dim);
}
