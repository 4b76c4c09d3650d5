//===- SparsityPolicy.cpp - which weights the sparsifiers pick -----------===//
//
// See SparsityPolicy.h.
//
//===----------------------------------------------------------------------===//
#include "passes/SparsityPolicy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

FailureOr<stc::SparsityMode> stc::parseSparsityMode(Operation *where,
                                                    StringRef value) {
  if (value == "explicit")
    return SparsityMode::Explicit;
  if (value == "enable")
    return SparsityMode::Enable;
  if (value == "force")
    return SparsityMode::Force;
  if (value == "auto")
    return SparsityMode::Auto;
  where->emitError() << "unknown sparsity mode '" << value
                     << "' (expected explicit, enable, force or auto)";
  return failure();
}

FailureOr<stc::NMPatternAttr> stc::parsePatternOption(Operation *where,
                                                      StringRef value) {
  MLIRContext *ctx = where->getContext();
  if (value == "2:4")
    return NMPatternAttr::get(ctx, 2, 4);
  if (value == "1:2")
    return NMPatternAttr::get(ctx, 1, 2);
  where->emitError() << "unsupported pattern '" << value
                     << "' (expected 2:4 or 1:2)";
  return failure();
}

bool stc::isPatternEligible(NMPatternAttr pattern, Type elementType) {
  return pattern.getN() == 2 || elementType.isF32();
}

int64_t stc::getStructuredDim(Type type, bool &hasEncoding) {
  auto enc = sparse_tensor::getSparseTensorEncoding(type);
  hasEncoding = enc != nullptr;
  if (!enc)
    return -1;
  ArrayRef<sparse_tensor::LevelType> levels = enc.getLvlTypes();
  if (levels.empty() || !sparse_tensor::isNOutOfMLT(levels.back()) ||
      sparse_tensor::getN(levels.back()) != 2 ||
      sparse_tensor::getM(levels.back()) != 4)
    return -1;
  AffineMap dimToLvl = enc.getDimToLvl();
  if (!dimToLvl)
    return cast<RankedTensorType>(type).getRank() - 1;
  int64_t dim = -1;
  dimToLvl.getResults().back().walk([&](AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      dim = d.getPosition();
  });
  return dim;
}

bool stc::isZeroFilled(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Attribute value;
  if (!matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return false;
  if (auto i = dyn_cast<IntegerAttr>(value))
    return i.getValue().isZero();
  auto f = dyn_cast<FloatAttr>(value);
  return f && f.getValue().isZero();
}

Value stc::addIntegerInit(OpBuilder &b, Location loc, Value result,
                          Value init) {
  Value empty =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, init),
                              getElementTypeOrSelf(init.getType()));
  return linalg::AddOp::create(b, loc, ValueRange{result, init},
                               ValueRange{empty})
      .getResult(0);
}
