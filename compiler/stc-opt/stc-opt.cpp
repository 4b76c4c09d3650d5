//===- stc-opt.cpp - the stc optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt for the stc dialect and passes: the driver of the lit tests.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::stc::registerAllStcDialects(registry);
  mlir::stc::registerAllStcPasses();
  // MlirOptMain prints LLVM's version; say which STC this is after it.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-opt " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "stc optimizer driver\n", registry));
}
