//===- stc-opt.cpp - the stc optimizer driver ---------------*- C++ -*-===//
//
// mlir-opt for the stc dialect and passes: the driver of the lit tests.
// What it adds to MlirOptMain: inputs the MLIR parser must not see (binary
// files, constructs on which the upstream parser crashes) are refused
// before parsing (compiler/lib/InputText.h); diagnostic directives are
// inert without -verify-diagnostics (below); a crash of the parser or of a
// pass on the main thread (upstream MLIR's, on hand-written GPU kernels or
// IR its verifiers abort on) is one error line naming the pass
// (compiler/lib/CrashContainment.h); and the output is produced in memory
// and written only once everything succeeded, atomically for `-o`: a
// failure, even an abort, leaves no output file behind (or the old one
// untouched) and prints no IR.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"
#include "compiler/lib/CrashContainment.h"
#include "compiler/lib/InputText.h"
#include "runtime/format/StcAtomicFile.h"

#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

static constexpr const char *kTool = "stc-opt";

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::stc::installFatalErrorHandler(kTool);
  mlir::DialectRegistry registry;
  mlir::stc::registerAllStcDialects(registry);
  mlir::stc::registerAllStcPasses();
  // MlirOptMain prints LLVM's version; say which STC this is after it.
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-opt " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "stc optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // The command line's pipeline, and the record of the running pass that a
  // contained crash names.
  config.setPassPipelineSetupFn([cli = config](mlir::PassManager &pm) {
    if (mlir::failed(cli.setupPassPipeline(pm)))
      return mlir::failure();
    mlir::stc::recordRunningPass(pm);
    return mlir::success();
  });
  // Listings write no IR: MlirOptMain's own handling.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << kTool << ": error: " << error << "\n";
    return 1;
  }
  {
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(file->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (mlir::failed(
            mlir::stc::checkInputText(kTool, inputFilename, sourceMgr)))
      return 1;
  }

  // MLIR 22's driver reports every `expected-error|warning|remark|note`
  // directive of its input as "error: expected ... was not produced" even
  // without -verify-diagnostics, and still exits 0: an error printed by a
  // run that succeeded. Without -verify-diagnostics the directives are just
  // comments: they are made inert (same length, so locations stay).
  if (!config.shouldVerifyDiagnostics()) {
    std::string text = file->getBuffer().str();
    for (size_t at = text.find("expected-"); at != std::string::npos;
         at = text.find("expected-", at + 1))
      text[at + 8] = '_';
    file =
        llvm::MemoryBuffer::getMemBufferCopy(text, file->getBufferIdentifier());
  }

  std::string output;
  llvm::raw_string_ostream os(output);
  std::string what = "processing " + inputFilename;
  if (mlir::failed(mlir::stc::runContained(what, [&] {
        return mlir::MlirOptMain(os, std::move(file), registry, config);
      })))
    return 1;
  os.flush();
  if (outputFilename == "-") {
    llvm::outs() << output;
    llvm::outs().flush();
    return llvm::outs().has_error() ? 1 : 0;
  }
  if (!::stc::format::writeFileAtomically(
          outputFilename, std::vector<uint8_t>(output.begin(), output.end()),
          error)) {
    llvm::errs() << kTool << ": error: " << error << "\n";
    return 1;
  }
  return 0;
}
