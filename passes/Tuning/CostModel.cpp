//===- CostModel.cpp - predicted kernel times (docs/TUNING.md) ------------===//
//
// See CostModel.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Tuning/CostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir::stc::tuning;

DeviceModel mlir::stc::tuning::deviceModelFor(llvm::StringRef deviceName,
                                              llvm::StringRef cc) {
  // Spec-sheet peaks: dense f16 tensor cores with f32 accumulation (the
  // SXM parts' clocks) and DRAM bandwidth.
  DeviceModel h100{"H100 SXM", 132, 989.4, 3.35, 3.0};
  if (deviceName.contains("H200"))
    return {"H200", 132, 989.4, 4.8, 3.0};
  if (deviceName.contains("H100") && deviceName.contains("PCIe"))
    return {"H100 PCIe", 114, 756.0, 2.0, 3.0};
  if (deviceName.contains("H100") || cc == "9.0")
    return h100;
  if (deviceName.contains("A100") || cc == "8.0")
    return {"A100 SXM", 108, 312.0, 2.04, 3.0};
  if (cc == "8.6") // A10: the data-centre sm_86 part
    return {"A10", 72, 125.0, 0.6, 3.0};
  if (cc == "8.9") // L4
    return {"L4", 58, 121.0, 0.3, 3.0};
  return h100;
}

std::string ModelKernel::classKey() const {
  return variant.empty() ? tileKey() : tileKey() + " " + variant;
}

std::string ModelKernel::tileKey() const {
  return llvm::formatv("{0} {1}x{2}", familyKey(), blockRows, blockCols).str();
}

std::string ModelKernel::familyKey() const {
  return (sparse ? "sparse " : "dense ") + family;
}

double CostModel::priorEfficiency(const ModelKernel &kernel) {
  // Fractions of the peak the kernel families reached on an H200
  // (bench/results/gpu-gemm-20261126T110723Z-5199c34, large shapes): the
  // wgmma kernel 643 TFLOP/s of a 1979 sparse peak; the staged mma.sp
  // kernel 187-201 (0.10), which its 64 x 64 warp tiles made 1.6x faster
  // since (bench/results/gpu-sweep-20261127T0746Z-warp-tiles): 0.15; the
  // direct kernel reads fragments from global memory. The dense mma.sync
  // kernel is unmeasured: its issue predicts 0.3-0.5x cuBLAS, about 0.25
  // of the dense peak. The dense wgmma kernel (the sparse one's pipeline
  // with a group in flight) is unmeasured too: predicted 0.65-0.8x cuBLAS,
  // about 0.5 of the dense peak.
  if (kernel.family == "wgmma")
    return kernel.sparse ? 0.33 : 0.5;
  if (kernel.family == "direct")
    return 0.03;
  return kernel.sparse ? 0.15 : 0.25;
}

double CostModel::rooflineUs(const ModelProblem &pb,
                             const ModelKernel &kernel) const {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  // A pixel tile covers one image: the pixels past its edge are computed
  // and thrown away.
  int64_t columnTiles =
      kernel.pixelTileH > 0 && pb.images > 0 && pb.outH > 0 && pb.outW > 0
          ? pb.images * ceilDiv(pb.outH, kernel.pixelTileH) *
                ceilDiv(pb.outW, kernel.pixelTileW)
          : ceilDiv(pb.n, kernel.blockCols);
  int64_t tiles = ceilDiv(pb.m, kernel.blockRows) * columnTiles * pb.batch;
  int64_t waves = ceilDiv(tiles, device.sms);
  // Dense-equivalent flops per microsecond of one SM.
  double peak = device.denseTflops * 1e6 / static_cast<double>(device.sms);
  if (kernel.sparse)
    peak *= 2;
  if (pb.int8)
    peak *= 2;
  double tileFlops = 2.0 * static_cast<double>(kernel.blockRows) *
                     static_cast<double>(kernel.blockCols) *
                     static_cast<double>(pb.k);
  double flopUs = static_cast<double>(waves) * tileFlops / peak;
  double mk = static_cast<double>(pb.m) * static_cast<double>(pb.k);
  // A 2:4 operand: half the values and 2 bits of metadata per value kept.
  double aBytes = kernel.sparse
                      ? mk / 2 * static_cast<double>(pb.inBytes) + mk / 8
                      : mk * static_cast<double>(pb.inBytes);
  double bBytes = pb.denseBytes >= 0
                      ? pb.denseBytes
                      : static_cast<double>(pb.k) * static_cast<double>(pb.n) *
                            static_cast<double>(pb.inBytes);
  double cBytes = static_cast<double>(pb.m) * static_cast<double>(pb.n) *
                  static_cast<double>(pb.outBytes) * (pb.readsAcc ? 2 : 1);
  double bytes = (aBytes + bBytes + cBytes) * static_cast<double>(pb.batch);
  double byteUs = bytes / (device.dramTBs * 1e6);
  return std::max(flopUs, byteUs);
}

double CostModel::efficiencyOf(const ModelProblem &pb,
                               const ModelKernel &kernel,
                               double measuredUs) const {
  // The launch is not the kernel's to improve; a time below it (a tiny
  // problem) still leaves a tenth of the measurement for the kernel.
  double kernelUs = std::max(measuredUs - device.launchUs, 0.1 * measuredUs);
  // Bounded, so that an absurd measurement cannot make a prediction zero
  // or infinite.
  return std::clamp(rooflineUs(pb, kernel) / kernelUs, 1e-6, 1e3);
}

void CostModel::addSample(const ModelProblem &pb, const ModelKernel &kernel,
                          double measuredUs, int group) {
  samples.push_back(
      {pb, kernel, measuredUs, efficiencyOf(pb, kernel, measuredUs), group});
}

CostModel::Prediction CostModel::predict(const ModelProblem &pb,
                                         const ModelKernel &kernel,
                                         int excludeGroup) const {
  auto logDistance = [&](const ModelProblem &o) {
    auto d = [](int64_t a, int64_t b) {
      return std::log(static_cast<double>(a)) -
             std::log(static_cast<double>(b));
    };
    double dm = d(pb.m, o.m), dn = d(pb.n, o.n), dk = d(pb.k, o.k),
           db = d(pb.batch, o.batch);
    return dm * dm + dn * dn + dk * dk + db * db;
  };
  // The nearest samples of the kernel's class, else of its tile, else of
  // its family.
  constexpr size_t kNeighbours = 3;
  using Key = std::string (ModelKernel::*)() const;
  for (Key key : {&ModelKernel::classKey, &ModelKernel::tileKey,
                  &ModelKernel::familyKey}) {
    std::string wanted = (kernel.*key)();
    std::vector<std::pair<double, double>> near; // (distance, efficiency)
    for (const Sample &s : samples) {
      if (s.group == excludeGroup && excludeGroup >= 0)
        continue;
      if ((s.kernel.*key)() == wanted && s.pb.int8 == pb.int8)
        near.emplace_back(logDistance(s.pb), s.efficiency);
    }
    if (near.empty())
      continue;
    size_t used = std::min(kNeighbours, near.size());
    std::partial_sort(near.begin(), near.begin() + used, near.end());
    double logSum = 0;
    for (size_t i = 0; i < used; ++i)
      logSum += std::log(near[i].second);
    double efficiency = std::exp(logSum / static_cast<double>(used));
    return {rooflineUs(pb, kernel) / efficiency + device.launchUs,
            llvm::formatv("{0} sample{1} of {2}", used, used == 1 ? "" : "s",
                          wanted)
                .str()};
  }
  return {rooflineUs(pb, kernel) / priorEfficiency(kernel) + device.launchUs,
          "prior"};
}

CostModel::Accuracy CostModel::leaveOneOut() const {
  std::vector<double> errors;
  for (const Sample &s : samples) {
    double predicted = predict(s.pb, s.kernel, s.group).us;
    errors.push_back(std::abs(predicted / s.measuredUs - 1));
  }
  Accuracy a;
  a.count = errors.size();
  if (errors.empty())
    return a;
  std::sort(errors.begin(), errors.end());
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(q * static_cast<double>(errors.size() - 1));
    return errors[i];
  };
  a.median = at(0.5);
  a.p90 = at(0.9);
  return a;
}

CostModel::ChoiceQuality CostModel::leaveOneOutChoice() const {
  std::vector<int> groups;
  for (const Sample &s : samples)
    if (!llvm::is_contained(groups, s.group))
      groups.push_back(s.group);
  std::vector<double> regrets;
  ChoiceQuality q;
  for (int group : groups) {
    const Sample *chosen = nullptr, *fastest = nullptr;
    double chosenUs = 0;
    size_t members = 0;
    for (const Sample &s : samples) {
      if (s.group != group)
        continue;
      ++members;
      double predicted = predict(s.pb, s.kernel, group).us;
      if (!chosen || predicted < chosenUs) {
        chosen = &s;
        chosenUs = predicted;
      }
      if (!fastest || s.measuredUs < fastest->measuredUs)
        fastest = &s;
    }
    if (members < 2)
      continue;
    ++q.groups;
    if (chosen == fastest)
      ++q.fastest;
    regrets.push_back(chosen->measuredUs / fastest->measuredUs - 1);
  }
  if (regrets.empty())
    return q;
  std::sort(regrets.begin(), regrets.end());
  q.medianRegret = regrets[(regrets.size() - 1) / 2];
  q.worstRegret = regrets.back();
  return q;
}
