//===- ConvWindow.cpp - a convolution's window, read off its ops -*- C++ -*-=//
#include "passes/ConvWindow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

std::array<int64_t, 2> mlir::stc::convWindowPair(Operation *op,
                                                 StringRef name) {
  auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
  if (!attr || attr.getNumElements() != 2)
    return {1, 1};
  auto values = llvm::to_vector(attr.getValues<int64_t>());
  return {values[0], values[1]};
}

stc::SpatialZeroPad mlir::stc::spatialZeroPadOf(Value input, int64_t hDim,
                                                int64_t wDim) {
  SpatialZeroPad none;
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return none;
  Value padValue = pad.getConstantPaddingValue();
  if (!padValue || !(matchPattern(padValue, m_AnyZeroFloat()) ||
                     matchPattern(padValue, m_Zero())))
    return none;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t d = 0; d < static_cast<int64_t>(low.size()); ++d) {
    if (ShapedType::isDynamic(low[d]) || ShapedType::isDynamic(high[d]) ||
        low[d] < 0 || high[d] < 0)
      return none;
    if (d != hDim && d != wDim && (low[d] != 0 || high[d] != 0))
      return none;
  }
  SpatialZeroPad folded;
  folded.pad = pad;
  folded.source = pad.getSource();
  folded.low = {low[hDim], low[wDim]};
  folded.high = {high[hDim], high[wDim]};
  return folded;
}
