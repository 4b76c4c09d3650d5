//===- CrashContainment.cpp - upstream crashes as error lines ----*- C++
//-*-===//
//
// See CrashContainment.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/lib/CrashContainment.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// The pass running on this thread ("" between passes).
thread_local std::string runningPass;

/// The tool named in the error lines (installFatalErrorHandler).
std::string fatalErrorTool = "stc";

class RunningPassRecorder : public PassInstrumentation {
public:
  void runBeforePass(Pass *pass, Operation *) override {
    runningPass = pass->getName().str();
  }
  void runAfterPass(Pass *, Operation *) override { runningPass.clear(); }
  void runAfterPassFailed(Pass *, Operation *) override { runningPass.clear(); }
};

void printFatalError(void *, const char *reason, bool) {
  llvm::errs() << fatalErrorTool << ": error: LLVM: " << reason << "\n";
  llvm::errs().flush();
}

} // namespace

void mlir::stc::installFatalErrorHandler(llvm::StringRef tool) {
  fatalErrorTool = tool.str();
  llvm::install_fatal_error_handler(printFatalError);
}

void mlir::stc::recordRunningPass(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<RunningPassRecorder>());
}

bool mlir::stc::runRecovering(llvm::function_ref<void()> body,
                              std::string &crashedPass) {
  runningPass.clear();
  llvm::CrashRecoveryContext::Enable();
  bool survived;
  {
    llvm::CrashRecoveryContext recovery;
    survived = recovery.RunSafely(body);
  }
  llvm::CrashRecoveryContext::Disable();
  crashedPass = survived ? std::string() : runningPass;
  return survived;
}

LogicalResult
mlir::stc::runContained(llvm::StringRef what,
                        llvm::function_ref<LogicalResult()> body) {
  LogicalResult result = failure();
  std::string pass;
  if (runRecovering([&] { result = body(); }, pass))
    return result;
  llvm::errs() << fatalErrorTool << ": error: " << what << " crashed";
  if (!pass.empty())
    llvm::errs() << " in pass '" << pass << "'";
  llvm::errs() << " (a bug: STC's if the pass is one of STC's, else of "
                  "upstream MLIR/LLVM on this input; see docs/RELIABILITY.md)"
               << "\n";
  llvm::errs().flush();
  std::_Exit(1);
}
