//===- my-opt.cpp - an opt tool of a project that embeds STC ----*- C++ -*-===//
//
// The smallest embedding of STC's C++ API: one header registers the dialect,
// the upstream dialects its inputs use, every pass and the `stc-pipeline`.
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
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "my-opt, built with STC " << STC_VERSION_STRING << "\n";
  });
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "my-opt: a consumer of the STC package\n", registry));
}
