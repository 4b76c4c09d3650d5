//===- stc-import-onnx.cpp - ONNX model to MLIR -------------*- C++ -*-===//
//
// `stc-import-onnx model.onnx -o model.mlir`: the ONNX front end alone. The
// output is linalg/tensor/arith/math on tensors with the weights as
// dense_resource blobs, what stc-compile and stc-run read (they also read
// the .onnx file directly). Errors are one line and leave no output file;
// `--remarks` prints which weights are already 2:4 sparse.
//
//===----------------------------------------------------------------------===//
#include "compiler/StcVersion.h"
#include "compiler/onnx/OnnxImport.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"));
static cl::opt<std::string> entry("entry",
                                  cl::desc("Name of the function the graph "
                                           "becomes"),
                                  cl::init("main"));
static cl::opt<bool> remarks("remarks",
                             cl::desc("Print the importer's remarks (weights "
                                      "that are already 2:4 sparse)"),
                             cl::init(false));

static constexpr const char *kTool = "stc-import-onnx";

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << kTool << " " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "stc-import-onnx: ONNX model to MLIR\n");
  if (entry.empty()) {
    llvm::errs() << kTool << ": error: --entry must name a function\n";
    return 1;
  }

  MLIRContext context;
  context.printOpOnDiagnostic(false);
  // Diagnostics print as `file:line:col: kind: message` (the model's
  // nodes are `model.onnx:<node index>:0`); remarks only when asked for
  // (the filter is registered last, so it runs first).
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  context.getDiagEngine().registerHandler([](Diagnostic &d) {
    return success(d.getSeverity() == DiagnosticSeverity::Remark && !remarks);
  });
  stc::onnx_import::ImportOptions options;
  options.entry = entry;
  OwningOpRef<ModuleOp> module =
      stc::onnx_import::importOnnxFile(kTool, inputFile, context, options);
  if (!module)
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << kTool << ": error: " << error << "\n";
    return 1;
  }
  module->print(output->os(), OpPrintingFlags());
  output->os() << "\n";
  if (output->os().has_error()) {
    llvm::errs() << kTool << ": error: cannot write " << outputFile << "\n";
    output->os().clear_error();
    return 1;
  }
  output->keep();
  return 0;
}
