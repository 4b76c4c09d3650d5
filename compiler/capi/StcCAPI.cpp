//===- StcCAPI.cpp - C API of the STC compiler ----------------*- C++ -*-===//
//
// Thin wrappers over compiler/InitAll.h and the registered `stc-pipeline`,
// so that the C API and the C++ tools build the very same pipeline.
//
//===----------------------------------------------------------------------===//
#include "compiler/capi/StcCAPI.h"

#include "compiler/InitAll.h"
#include "compiler/StcVersion.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Stc, stc, mlir::stc::StcDialect)

// The generated per-pass entry points call mlir::stc::create<Pass>().
using namespace mlir::stc;
#include "compiler/capi/StcPasses.capi.cpp.inc"

void stcRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::stc::registerAllStcDialects(*unwrap(registry));
}

void stcRegisterAllPasses(void) {
  // The pass registry rejects a second registration of the same pipeline.
  static std::once_flag once;
  std::call_once(once, [] { mlir::stc::registerAllStcPasses(); });
}

/// Adds `stc-pipeline{options}` to `pm`; errors go to `report`.
static mlir::LogicalResult
addPipeline(mlir::OpPassManager &pm, llvm::StringRef options,
            llvm::function_ref<void(const llvm::Twine &)> report) {
  stcRegisterAllPasses();
  const mlir::PassPipelineInfo *pipeline =
      mlir::PassPipelineInfo::lookup("stc-pipeline");
  if (!pipeline) {
    report("stc-pipeline is not registered");
    return mlir::failure();
  }
  // Option parse errors are printed by the option parser to llvm::errs()
  // with no handler to redirect them; the handler below sees the rest.
  return pipeline->addToPipeline(pm, options, [&](const llvm::Twine &msg) {
    report(msg);
    return mlir::failure();
  });
}

MlirLogicalResult stcAddPipeline(MlirOpPassManager passManager,
                                 MlirStringRef options,
                                 MlirStringCallback errorCallback,
                                 void *userData) {
  auto report = [&](const llvm::Twine &msg) {
    if (!errorCallback)
      return;
    std::string text = msg.str();
    errorCallback(mlirStringRefCreate(text.data(), text.size()), userData);
  };
  return wrap(addPipeline(*unwrap(passManager), unwrap(options), report));
}

MlirLogicalResult stcRunPipeline(MlirModule module, MlirStringRef options) {
  mlir::ModuleOp op = unwrap(module);
  mlir::PassManager pm(op->getContext());
  bool reported = false;
  if (mlir::failed(addPipeline(pm, unwrap(options), [&](const llvm::Twine &m) {
        op.emitError() << "stc pipeline: " << m;
        reported = true;
      }))) {
    // The option parser prints malformed option text to stderr itself and
    // returns no message; the caller still gets one diagnostic.
    if (!reported)
      op.emitError() << "stc pipeline: invalid options '" << unwrap(options)
                     << "'";
    return mlirLogicalResultFailure();
  }
  return wrap(pm.run(op));
}

MlirStringRef stcGetVersion(void) {
  return mlirStringRefCreateFromCString(STC_VERSION_STRING);
}
