//===- stc-compile.cpp - the stc ahead-of-time compiler -----*- C++ -*-===//
//
// `stc-compile PROG.mlir -o OUT --emit=stc|mlir|llvm|asm|obj`: runs the stc
// pipeline and writes the program at the requested stage. Public functions
// get C entry points (`_mlir_ciface_<name>`, memref descriptors) so that an
// object file links into a C/C++ program together with stc_runtime. The
// output is written only on success, atomically.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"
#include "compiler/lib/ToolSupport.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::stc;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::Required);
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to write: stc (after sparsification), mlir (LLVM "
                  "dialect), llvm (LLVM IR), asm (assembly), obj (object "
                  "file, the default)"),
         cl::init("obj"));
static cl::opt<std::string> cpu("mcpu",
                                cl::desc("CPU to generate code for (default: "
                                         "the host)"),
                                cl::init("native"));

static constexpr const char *kTool = "stc-compile";

/// Host (or -mcpu) target machine for asm/obj.
static std::unique_ptr<llvm::TargetMachine> createTargetMachine() {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target) {
    reportError(kTool, error);
    return nullptr;
  }
  std::string cpuName =
      cpu == "native" ? llvm::sys::getHostCPUName().str() : cpu.getValue();
  std::string features;
  if (cpu == "native") {
    llvm::SubtargetFeatures f;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      f.AddFeature(feature.first(), feature.second);
    features = f.getString();
  }
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      llvm::Triple(triple), cpuName, features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerSharedToolOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-compile " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "stc-compile: the stc compiler\n");

  StcPipelineOptions options;
  if (failed(getPipelineOptions(kTool, options)))
    return 1;
  if (emit != "stc" && emit != "mlir" && emit != "llvm" && emit != "asm" &&
      emit != "obj") {
    reportError(kTool, "--emit must be stc, mlir, llvm, asm or obj, got '" +
                           emit + "'");
    return 1;
  }
  options.stopAfterStc = emit == "stc";

  DialectRegistry registry;
  registerAllStcDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  filterRemarks(context);
  OwningOpRef<ModuleOp> module =
      parseInput(kTool, inputFile, context, sourceMgr);
  if (!module)
    return 1;
  addCInterfaces(*module);
  if (failed(runStcPipeline(*module, options)))
    return 1;

  std::string text;
  llvm::raw_string_ostream os(text);
  std::unique_ptr<llvm::TargetMachine> tm;
  if (emit == "asm" || emit == "obj") {
    tm = createTargetMachine();
    if (!tm)
      return 1;
  }
  if (emit == "stc" || emit == "mlir") {
    module->print(os);
  } else {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(*module, llvmContext);
    if (!llvmModule) {
      reportError(kTool, "translation to LLVM IR failed");
      return 1;
    }
    if (tm) {
      llvmModule->setDataLayout(tm->createDataLayout());
      llvmModule->setTargetTriple(tm->getTargetTriple());
    }
    if (llvm::Error err =
            makeOptimizingTransformer(3, 0, tm.get())(llvmModule.get())) {
      reportError(kTool, "LLVM optimization failed: " +
                             llvm::toString(std::move(err)));
      return 1;
    }
    if (emit == "llvm") {
      llvmModule->print(os, nullptr);
    } else {
      llvm::SmallVector<char, 0> buffer;
      llvm::raw_svector_ostream bos(buffer);
      llvm::legacy::PassManager codegen;
      if (tm->addPassesToEmitFile(codegen, bos, nullptr,
                                  emit == "obj"
                                      ? llvm::CodeGenFileType::ObjectFile
                                      : llvm::CodeGenFileType::AssemblyFile)) {
        reportError(kTool, "the target cannot emit this file type");
        return 1;
      }
      codegen.run(*llvmModule);
      text.assign(buffer.begin(), buffer.end());
    }
  }

  // Everything succeeded: write the output in one go.
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(outputFile, &error);
  if (!out) {
    reportError(kTool, error);
    return 1;
  }
  out->os() << text;
  out->os().flush();
  if (out->os().has_error()) {
    reportError(kTool, "cannot write " + outputFile);
    out->os().clear_error();
    return 1;
  }
  out->keep();
  return 0;
}
