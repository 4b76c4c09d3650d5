//===- stc-opt.cpp - the stc optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt for the stc dialect and passes: the driver of the lit tests.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::stc::registerAllStcDialects(registry);
  mlir::stc::registerAllStcPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "stc optimizer driver\n", registry));
}
