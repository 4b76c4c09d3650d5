//===- OpTable.cpp - ONNX op type to converter --------------*- C++ -*-===//
//
// The converters of every family (ops/*.cpp), looked up by op type.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Importer.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

const OpConverter *
mlir::stc::onnx_import::lookupConverter(llvm::StringRef opType) {
  static const llvm::StringMap<const OpConverter *> table = [] {
    llvm::StringMap<const OpConverter *> map;
    for (ArrayRef<OpConverter> family :
         {getElementwiseConverters(), getContractionConverters(),
          getConvolutionConverters(), getNormalizationConverters(),
          getPoolingConverters(), getShapeConverters(),
          getQuantizationConverters()})
      for (const OpConverter &c : family)
        map[c.opType] = &c;
    return map;
  }();
  auto it = table.find(opType);
  return it == table.end() ? nullptr : it->second;
}
