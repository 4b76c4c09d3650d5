//===- RuntimeCalls.cpp - calls from generated code to stc_runtime -*- C++
//-*-===//
//
// See RuntimeCalls.h.
//
//===----------------------------------------------------------------------===//
#include "passes/RuntimeCalls.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::stc;

func::FuncOp RuntimeCallBuilder::declare(StringRef name, TypeRange args,
                                         TypeRange results) {
  FunctionType type = FunctionType::get(module.getContext(), args, results);
  if (Operation *existing = module.lookupSymbol(name)) {
    auto func = dyn_cast<func::FuncOp>(existing);
    if (!func || func.getFunctionType() != type) {
      existing->emitError()
          << "symbol @" << name << " is reserved for the stc runtime";
      return nullptr;
    }
    return func;
  }
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
  func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return func;
}

Value RuntimeCallBuilder::locationString(ImplicitLocOpBuilder &b,
                                         Location loc) {
  std::string text = "<unknown location>";
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    text = fileLoc.getFilename().str() + ":" +
           std::to_string(fileLoc.getLine()) + ":" +
           std::to_string(fileLoc.getColumn());
  std::string &symbol = locationSymbols[text];
  auto i8 = b.getI8Type();
  int64_t len = text.size();
  auto type = MemRefType::get({len}, i8);
  if (symbol.empty()) {
    // A fresh name: the module may already hold globals of an earlier run.
    do {
      symbol = "__stc_location_" + std::to_string(numLocations++);
    } while (module.lookupSymbol(symbol));
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    SmallVector<int8_t> bytes(text.begin(), text.end());
    auto init = DenseElementsAttr::get(RankedTensorType::get({len}, i8),
                                       ArrayRef<int8_t>(bytes));
    memref::GlobalOp::create(mb, module.getLoc(), symbol,
                             mb.getStringAttr("private"), type, init,
                             /*constant=*/true, /*alignment=*/nullptr);
  }
  Value global = memref::GetGlobalOp::create(b, type, symbol);
  return memref::CastOp::create(b, MemRefType::get({ShapedType::kDynamic}, i8),
                                global);
}
