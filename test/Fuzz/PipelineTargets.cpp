//===- PipelineTargets.cpp - fuzz targets of the compiler --------*- C++
//-*-===//
//
// The .mlir front end and the pipeline on arbitrary text (FuzzTargets.h):
// what stc-compile does up to its output, without running anything. The
// input is refused as the tools refuse it (compiler/lib/InputText.h),
// parsed and verified, then compiled with sparsity=force (so that every
// contraction the passes recognise goes the sparse way):
//
// - pipeline-cpu: buildStcPipeline for the CPU, then translation to LLVM IR;
// - pipeline-ptx: buildStcPipeline for sm_80 and for sm_90a, through
//   gpu-module-to-binary to PTX (LLVM's NVPTX back end; no ptxas).
//
// Diagnostics are swallowed; a pipeline that reports an error but
// succeeds (the tools would print an error and exit 0) is a finding, as is
// any crash, hang or fatal error.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "compiler/InitAll.h"
#include "compiler/lib/InputText.h"
#include "compiler/lib/ToolSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

[[noreturn]] void violated() { __builtin_trap(); }

const DialectRegistry &registry() {
  static const DialectRegistry *instance = [] {
    auto *r = new DialectRegistry();
    mlir::stc::registerAllStcDialects(*r);
    return r;
  }();
  return *instance;
}

/// Parses `text` as the tools would, or gives null.
OwningOpRef<ModuleOp> parse(llvm::StringRef text, MLIRContext &context) {
  if (mlir::stc::describeBinaryInput(text) ||
      mlir::stc::findParserCrasher(text))
    return nullptr;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

/// Compiles a copy of `module` with `options`; for the CPU, translates the
/// result to LLVM IR.
void compile(ModuleOp module, const mlir::stc::StcPipelineOptions &options,
             bool &errorReported) {
  OwningOpRef<ModuleOp> copy = module.clone();
  mlir::stc::addCInterfaces(*copy);
  errorReported = false;
  PassManager pm(module.getContext());
  if (failed(mlir::stc::buildStcPipeline(pm, options)))
    violated(); // the options are valid
  if (failed(pm.run(*copy)))
    return;
  if (errorReported)
    violated(); // an error reported, and yet success
  if (options.target == "cpu") {
    llvm::LLVMContext llvmContext;
    (void)translateModuleToLLVMIR(*copy, llvmContext);
  }
}

int runPipelines(const uint8_t *data, size_t size,
                 llvm::ArrayRef<const char *> targets) {
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  bool errorReported = false;
  context.getDiagEngine().registerHandler([&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errorReported = true;
    return success();
  });
  OwningOpRef<ModuleOp> module = parse(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), context);
  if (!module)
    return 0;
  for (const char *target : targets) {
    mlir::stc::StcPipelineOptions options;
    options.target = target;
    options.sparsity = "force";
    options.gpuBinaryFormat = "isa";
    compile(*module, options, errorReported);
  }
  return 0;
}

} // namespace

int ::stc::fuzz::pipelineCpuTarget(const uint8_t *data, size_t size) {
  return runPipelines(data, size, {"cpu"});
}

int ::stc::fuzz::pipelinePtxTarget(const uint8_t *data, size_t size) {
  return runPipelines(data, size, {"sm_80", "sm_90a"});
}
