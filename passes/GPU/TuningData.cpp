//===- TuningData.cpp - the tuning databases a pass run uses --------------===//
//
// See TuningData.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/TuningData.h"
#include "passes/GPU/KernelCandidates.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;
using stc_gpu::GpuArch;
using stc_gpu::KernelConfigAttr;

KernelConfigAttr gpu_kernel::parseKernelConfig(MLIRContext *context,
                                               StringRef text,
                                               std::string &why) {
  std::string message;
  Attribute attr;
  {
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    attr = parseAttribute(text, context);
  }
  auto config = dyn_cast_or_null<KernelConfigAttr>(attr);
  if (!config)
    why = attr ? "not a #stc_gpu.kernel_config"
               : (message.empty() ? std::string("does not parse") : message);
  return config;
}

FailureOr<std::unique_ptr<TuningData>>
TuningData::load(Operation *where, StringRef pass, GpuArch arch,
                 StringRef userPath, StringRef requestedDevice, bool builtin) {
  std::unique_ptr<TuningData> data(new TuningData(where->getContext(), arch));
  auto fail = [&](const Twine &message) {
    where->emitError() << pass << ": " << message;
    return failure();
  };
  if (builtin)
    if (std::optional<std::string> error =
            data->db.add(tuning::committedTuningDb(),
                         "tuning/stc-tuning-db.json (built in)"))
      return fail(*error);
  std::string archName = stc_gpu::stringifyGpuArch(arch).str();
  std::string cc = tuning::computeCapabilityOf(archName);
  std::string device = requestedDevice.str();
  bool userLacksTarget = false;
  if (!userPath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(userPath, /*IsText=*/true);
    if (!buffer)
      return fail("cannot read tuning database '" + userPath +
                  "': " + buffer.getError().message());
    if (std::optional<std::string> error =
            data->db.add((*buffer)->getBuffer(), userPath))
      return fail(*error);
    // Without --tuning-device, a user's file names the device: the one with
    // the most entries there for this target, even where the committed
    // database has more of another (a user who tuned on their own card
    // means that card). The file alone, read again (it read above).
    if (device.empty()) {
      tuning::TuningDb user;
      (void)user.add((*buffer)->getBuffer(), userPath);
      device = user.chooseDevice(cc, archName, "");
      userLacksTarget = device.empty();
    }
  }
  data->device = data->db.chooseDevice(cc, archName, device);
  // The user's file says nothing of this target, but the committed one
  // does: say whose measurements apply.
  if (userLacksTarget && !data->device.empty())
    where->emitRemark() << pass << ": '" << userPath
                        << "' has no tuning data for " << archName
                        << "; the built-in database's (" << data->device
                        << ") applies";
  if (data->device.empty() && (!userPath.empty() || !requestedDevice.empty()))
    where->emitRemark() << pass << ": no tuning data for " << archName
                        << (requestedDevice.empty()
                                ? std::string()
                                : " on '" + requestedDevice.str() + "'")
                        << " (the databases have " << data->db.describeDevices()
                        << "); the heuristics choose";
  data->costModel = std::make_unique<tuning::CostModel>(
      tuning::deviceModelFor(data->device, cc));
  for (auto [group, entry] :
       llvm::enumerate(data->db.entriesFor(data->device, archName))) {
    for (const tuning::MeasuredConfig &c : entry->candidates) {
      if (c.status != "ok")
        continue;
      std::string why;
      KernelConfigAttr config = parseKernelConfig(data->context, c.config, why);
      if (!config)
        return fail(entry->origin + ": configuration '" + c.config +
                    "': " + why);
      data->costModel->addSample(modelProblemOf(entry->key),
                                 modelKernelOf(config, c.sparse), c.medianUs,
                                 static_cast<int>(group));
    }
  }
  data->margin = std::max(0.03, data->costModel->leaveOneOut().median);
  return data;
}

std::optional<TuningData::Hit> TuningData::exactHit(tuning::TuningKey key,
                                                    bool sparse) const {
  if (!hasData())
    return std::nullopt;
  // This problem's entry; else, with an epilogue, the one without it; else,
  // for a convolution, the same layer's (epilogue as found so far) at the
  // nearest batch size, in ratio.
  const std::string epilogue = key.epilogue;
  const tuning::TuningEntry *entry = db.find(device, key);
  if (!entry && key.epilogue != "none") {
    key.epilogue = "none";
    entry = db.find(device, key);
  }
  if (!entry && key.conv) {
    double nearest = 0;
    for (const tuning::TuningEntry *e : db.entriesFor(device, key.arch)) {
      if (!e->key.conv || e->key.dtype != key.dtype || e->key.out != key.out ||
          e->key.epilogue != key.epilogue)
        continue;
      tuning::ConvShape other = *e->key.conv;
      other.n = key.conv->n;
      if (!(other == *key.conv))
        continue;
      double ratio =
          std::abs(std::log(double(e->key.conv->n) / double(key.conv->n)));
      if (!entry || ratio < nearest) {
        entry = e;
        nearest = ratio;
      }
    }
  }
  if (!entry)
    return std::nullopt;
  bool fallback = entry->key.epilogue != epilogue;
  int64_t otherBatch =
      key.conv && entry->key.conv->n != key.conv->n ? entry->key.conv->n : 0;
  // The best measured kernel of the kind asked for; `best` and
  // `runner_up` are among the candidates when the tuner wrote them.
  const tuning::MeasuredConfig *measured = nullptr;
  auto consider = [&](const tuning::MeasuredConfig &c) {
    if (c.status == "ok" && c.sparse == sparse &&
        (!measured || c.medianUs < measured->medianUs))
      measured = &c;
  };
  consider(entry->best);
  if (entry->runnerUp)
    consider(*entry->runnerUp);
  for (const tuning::MeasuredConfig &c : entry->candidates)
    consider(c);
  if (!measured)
    return std::nullopt;
  std::string why;
  KernelConfigAttr config = parseKernelConfig(context, measured->config, why);
  if (!config || config.getArch() != arch)
    return std::nullopt;
  Hit hit{measured, config, fallback, otherBatch, &entry->best, {}};
  auto family = [&](const tuning::MeasuredConfig &c) {
    if (c.sparse != sparse)
      return;
    std::string ignored;
    if (KernelConfigAttr parsed = parseKernelConfig(context, c.config, ignored))
      if (!llvm::is_contained(hit.families, parsed.getFamily()))
        hit.families.push_back(parsed.getFamily());
  };
  family(entry->best);
  if (entry->runnerUp)
    family(*entry->runnerUp);
  for (const tuning::MeasuredConfig &c : entry->candidates)
    family(c);
  return hit;
}

std::optional<PredictedBest>
gpu_kernel::predictBest(const tuning::CostModel &model,
                        const tuning::ModelProblem &pb,
                        ArrayRef<tuning::ModelKernel> kernels) {
  std::optional<PredictedBest> best;
  for (const tuning::ModelKernel &kernel : kernels) {
    tuning::CostModel::Prediction p = model.predict(pb, kernel);
    if (!best || p.us < best->prediction.us)
      best = PredictedBest{kernel, p};
  }
  return best;
}
