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
// any crash, hang or fatal error in STC's code. A crash of an upstream pass
// on this thread (gpu-module-to-binary on a hand-written kernel, say) is
// contained as the tools contain it (compiler/lib/CrashContainment.h) and
// skipped: upstream's to fix (docs/RELIABILITY.md lists the known ones),
// and it would end a campaign at the first one. A crash in a pass whose
// name starts with "Stc" is a finding. A crash while parsing (an upstream
// verifier) is skipped the same way.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "compiler/InitAll.h"
#include "compiler/lib/CrashContainment.h"
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
  mlir::stc::recordRunningPass(pm);
  LogicalResult result = failure();
  std::string crashedPass;
  if (!mlir::stc::runRecovering([&] { result = pm.run(*copy); }, crashedPass)) {
    if (llvm::StringRef(crashedPass).starts_with("Stc"))
      violated();
    (void)copy.release(); // in an unknown state: leaked, not freed
    return;
  }
  if (failed(result))
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
  // A crash of the parser or a verifier is upstream's: the tools report it
  // as an error (parseWithCrashRecovery); skipped here.
  OwningOpRef<ModuleOp> module;
  std::string crashedPass;
  if (!mlir::stc::runRecovering(
          [&] {
            module = parse(
                llvm::StringRef(reinterpret_cast<const char *>(data), size),
                context);
          },
          crashedPass)) {
    (void)module.release();
    return 0;
  }
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
