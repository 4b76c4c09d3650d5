//===- stc-compile.cpp - the stc ahead-of-time compiler -----*- C++ -*-===//
//
// `stc-compile PROG.mlir -o OUT --emit=stc|mlir|llvm|asm|ptx|cubin|obj`:
// runs the stc pipeline and writes the program at the requested stage.
// Public functions get C entry points (`_mlir_ciface_<name>`, memref
// descriptors) so that an object file links into a C/C++ program together
// with stc_runtime.
//
// GPU targets (--target=sm_80 ...) compile in two halves: the kernel
// pipeline (kernels in gpu.module @stc_kernels, each gpu.func describing
// itself in `stc_gpu.kernel_info`, which --kernel-info=FILE.json exports), then
// the finalize pipeline (kernels serialized into a gpu.binary: PTX, or a
// cubin from ptxas for --emit=cubin; host code in the LLVM dialect calling
// the runtime's mgpu* entry points). `ptx`/`cubin` write the kernels;
// `llvm`/`obj` the host code, which embeds the PTX and loads it at start-up.
//
// Outputs (-o and --kernel-info) are written only when everything
// succeeded; a failed write leaves no partial file.
//
//===----------------------------------------------------------------------===//
#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"
#include "compiler/lib/ToolSupport.h"
#include "compiler/onnx/OnnxImport.h"
#include "dialects/StcGpu/StcGpuAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::stc;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input.mlir|input.onnx>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::Required);
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to write: stc (after sparsification), mlir (LLVM "
                  "dialect), llvm (LLVM IR of the host code), asm (host "
                  "assembly, --target=cpu), ptx or cubin (the GPU kernels, GPU "
                  "targets), obj (host object file, the default)"),
         cl::init("obj"));
static cl::opt<std::string> kernelInfoFile(
    "kernel-info",
    cl::desc("GPU targets: also write a JSON array describing each generated "
             "kernel (entry, launch configuration, parameters, problem)"),
    cl::value_desc("file.json"), cl::init(""));
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

/// Checks the combinations of --target, --emit and --kernel-info; selects
/// the gpu.binary format (and finds ptxas) for --emit=cubin.
static LogicalResult checkGpuOptions(StcPipelineOptions &options) {
  auto fail = [](const llvm::Twine &message) {
    reportError(kTool, message);
    return failure();
  };
  static const char *emits[] = {"stc", "mlir",  "llvm", "asm",
                                "ptx", "cubin", "obj"};
  if (!llvm::is_contained(emits, emit.getValue()))
    return fail(
        "--emit must be stc, mlir, llvm, asm, ptx, cubin or obj, got '" + emit +
        "'");
  bool gpu = isStcGpuTarget(options.target);
  if (!gpu && (emit == "ptx" || emit == "cubin"))
    return fail("--emit=" + emit +
                " needs a GPU target (--target=sm_80, sm_86, sm_89, sm_90 or "
                "sm_90a)");
  if (gpu && emit == "asm")
    return fail("--emit=asm is the host assembly of --target=cpu; for the GPU "
                "kernels of --target=" +
                options.target + " use --emit=ptx");
  if (!gpu && options.gpuDeviceEntry)
    return fail("--gpu-device-entry needs a GPU target (--target=sm_80, "
                "sm_86, sm_89, sm_90 or sm_90a)");
  if (!kernelInfoFile.empty()) {
    if (!gpu)
      return fail("--kernel-info needs a GPU target (--target=sm_80, sm_86, "
                  "sm_89, sm_90 or sm_90a)");
    if (emit == "stc")
      return fail("--kernel-info describes the generated kernels, which "
                  "--emit=stc stops before");
  }
  if (emit == "cubin") {
    options.gpuBinaryFormat = "bin";
    if (failed(findPtxas(kTool, options)))
      return failure();
  }
  return success();
}

/// An attribute of `stc_gpu.kernel_info` as JSON: strings, integers, floats,
/// booleans, arrays and dictionaries as such; anything else as its MLIR
/// text.
static llvm::json::Value toJson(Attribute attr) {
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue();
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (i.getType().isUnsignedInteger())
      return static_cast<uint64_t>(i.getValue().getZExtValue());
    return i.getValue().getSExtValue();
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute element : a)
      array.push_back(toJson(element));
    return array;
  }
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<DenseI32ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : d)
      object[entry.getName().getValue()] = toJson(entry.getValue());
    return object;
  }
  if (isa<UnitAttr>(attr))
    return true;
  if (auto t = dyn_cast<TypeAttr>(attr)) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.getValue().print(os);
    return s;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  attr.print(os);
  return s;
}

/// The `stc_gpu.kernel_info` of every generated kernel, in module order, as a
/// JSON array (one object per kernel) followed by a newline.
static std::string kernelInfoJson(ModuleOp module) {
  llvm::json::Array kernels;
  module.walk([&](gpu::GPUFuncOp func) {
    if (auto info = func->getAttrOfType<stc_gpu::KernelInfoAttr>(
            stc_gpu::KernelInfoAttr::kAttrName))
      kernels.push_back(toJson(info.toDictionary()));
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(kernels))) << "\n";
  return text;
}

/// The kernels of the finalized module: the one object of its one
/// gpu.binary (PTX text, or a cubin for format bin).
static FailureOr<std::string> kernelBinary(ModuleOp module) {
  SmallVector<gpu::BinaryOp> binaries(module.getOps<gpu::BinaryOp>());
  if (binaries.empty()) {
    reportError(kTool, "no GPU kernel to write: no op of the program runs "
                       "on the GPU (see --remarks)");
    return failure();
  }
  if (binaries.size() > 1 || binaries.front().getObjects().size() != 1) {
    reportError(kTool, "--emit=" + emit +
                           " writes one kernel module, but the program has " +
                           llvm::Twine(binaries.size()) +
                           " gpu.binary ops; use --emit=mlir");
    return failure();
  }
  auto object = cast<gpu::ObjectAttr>(binaries.front().getObjects()[0]);
  return object.getObject().getValue().str();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerSharedToolOptions("stc-compile");
  onnx_import::registerOnnxInput();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "stc-compile " << STC_VERSION_STRING << " (LLVM/MLIR "
       << STC_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "stc-compile: the stc compiler\n");

  StcPipelineOptions options;
  if (failed(getPipelineOptions(kTool, options)) ||
      failed(checkGpuOptions(options)))
    return 1;
  options.stopAfterStc = emit == "stc";
  bool gpu = isStcGpuTarget(options.target);

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
  std::string kernelInfo;
  if (gpu && !options.stopAfterStc) {
    if (failed(runPipeline(*module, [&](OpPassManager &pm) {
          buildStcGpuKernelPipeline(pm, options);
        })))
      return 1;
    kernelInfo = kernelInfoJson(*module);
    if (failed(runPipeline(*module, [&](OpPassManager &pm) {
          buildStcGpuFinalizePipeline(pm, options);
        })))
      return 1;
  } else if (failed(runStcPipeline(*module, options))) {
    return 1;
  }

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
  } else if (emit == "ptx" || emit == "cubin") {
    FailureOr<std::string> kernels = kernelBinary(*module);
    if (failed(kernels))
      return 1;
    text = std::move(*kernels);
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

  // Everything succeeded: write the outputs, each in one go, and keep them
  // only when all were written.
  std::vector<std::unique_ptr<llvm::ToolOutputFile>> files;
  auto write = [&](const std::string &path, const std::string &contents) {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(path, &error);
    if (!out) {
      reportError(kTool, error);
      return false;
    }
    out->os() << contents;
    out->os().flush();
    if (out->os().has_error()) {
      reportError(kTool, "cannot write " + path);
      out->os().clear_error();
      return false;
    }
    files.push_back(std::move(out));
    return true;
  };
  if (!write(outputFile, text))
    return 1;
  if (!kernelInfoFile.empty() && !write(kernelInfoFile, kernelInfo))
    return 1;
  for (std::unique_ptr<llvm::ToolOutputFile> &file : files)
    file->keep();
  return 0;
}
