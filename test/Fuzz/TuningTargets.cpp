//===- TuningTargets.cpp - fuzz target of the tuning database --*- C++ -*-===//
//
// A tuning database (docs/TUNING.md) is a file users pass with --tuning-db:
// any bytes must be refused with one message naming the file, or read into
// complete entries from which the cost model predicts finite, positive
// times (FuzzTargets.h).
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "dialects/StcGpu/StcGpuDialect.h"
#include "passes/GPU/KernelCandidates.h"
#include "passes/GPU/TuningData.h"
#include "passes/Tuning/CostModel.h"
#include "passes/Tuning/TuningDb.h"

#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <string>

using namespace mlir::stc;

namespace {

[[noreturn]] void violated() { __builtin_trap(); }

bool finitePositive(double x) { return std::isfinite(x) && x > 0; }

} // namespace

int stc::fuzz::tuningDbTarget(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  tuning::TuningDb db;
  if (std::optional<std::string> error = db.add(text, "fuzz.json")) {
    if (error->rfind("tuning database fuzz.json: ", 0) != 0 ||
        !db.entries().empty())
      violated();
    return 0;
  }
  static mlir::MLIRContext *context = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<mlir::stc_gpu::StcGpuDialect>();
    return c;
  }();
  for (const tuning::TuningEntry &e : db.entries()) {
    if (e.key.m <= 0 || e.key.n <= 0 || e.key.k <= 0 || e.key.batch <= 0 ||
        e.best.status != "ok" || !finitePositive(e.best.medianUs))
      violated();
    tuning::CostModel model(tuning::deviceModelFor(e.key.device, e.key.cc));
    for (const tuning::MeasuredConfig &c : e.candidates) {
      if (c.status != "ok")
        continue;
      std::string why;
      mlir::stc_gpu::KernelConfigAttr config =
          gpu_kernel::parseKernelConfig(context, c.config, why);
      if (!config && why.empty())
        violated(); // every refusal says why
      if (config)
        model.addSample(gpu_kernel::modelProblemOf(e.key),
                        gpu_kernel::modelKernelOf(config, c.sparse), c.medianUs,
                        0);
    }
    for (bool sparse : {true, false}) {
      tuning::ModelKernel kernel{sparse, sparse ? "wgmma" : "staged", 128, 128};
      if (!finitePositive(
              model.predict(gpu_kernel::modelProblemOf(e.key), kernel).us))
        violated();
    }
    tuning::CostModel::Accuracy a = model.leaveOneOut();
    if (!std::isfinite(a.median) || !std::isfinite(a.p90))
      violated();
  }
  return 0;
}
