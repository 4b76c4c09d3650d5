//===- CostModel.h - predicted kernel times (docs/TUNING.md) ---*- C++ -*-===//
//
// A roofline with measured efficiencies: the time a candidate kernel would
// take on a problem is its roofline time (the larger of its tile-padded,
// wave-quantized tensor-core time and its DRAM time) divided by the
// efficiency its nearest measured neighbours of the same class reached,
// plus the launch. Without measurements, the prior efficiency of its
// family. MLIR-free: the passes describe a kernel configuration as a
// ModelKernel.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_TUNING_COSTMODEL_H
#define STC_PASSES_TUNING_COSTMODEL_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::stc::tuning {

/// What the model knows of a GPU (spec-sheet numbers).
struct DeviceModel {
  std::string name;
  int64_t sms = 132;
  /// Dense f16/bf16 tensor-core peak with f32 accumulation, TFLOP/s.
  double denseTflops = 989.4;
  /// DRAM bandwidth, TB/s.
  double dramTBs = 3.35;
  /// Launch and tail overhead of one kernel, microseconds.
  double launchUs = 3.0;
};

/// The model of `deviceName` (when known) or of the compute capability
/// `cc` (its most common data-centre part).
DeviceModel deviceModelFor(llvm::StringRef deviceName, llvm::StringRef cc);

/// A product C[m, n] = A[m, k] . B[k, n], `batch` times.
struct ModelProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  /// Bytes per operand and result element.
  int64_t inBytes = 2, outBytes = 2;
  /// Integer (i8) operands: twice the f16 tensor-core rate.
  bool int8 = false;
  /// The epilogue reads an initial value of C's size.
  bool readsAcc = false;
  /// Bytes of B read from memory per product, where that is not k x n
  /// elements (a convolution reads its input, not the im2col matrix);
  /// negative: k x n.
  double denseBytes = -1;
  /// A convolution's output images and pixels per image (0: a GEMM, or
  /// unknown): a kernel with a pixel tile covers each image separately.
  int64_t images = 0, outH = 0, outW = 0;
};

/// A candidate kernel as the model sees it.
struct ModelKernel {
  bool sparse = true;
  /// direct, staged or wgmma.
  std::string family;
  int64_t blockRows = 128, blockCols = 128;
  /// The rest of the configuration ("s5 c2 g8"), "" where it is not known
  /// (a family's generic tile).
  std::string variant;
  /// The sm_90a convolution kernel's TH x TW pixel tile (0 x 0: columns
  /// tiled flat).
  int64_t pixelTileH = 0, pixelTileW = 0;

  /// "sparse wgmma 128x256 s5 c2": samples of one class share an
  /// efficiency. The fallbacks when a class has no samples: the tile
  /// ("sparse wgmma 128x256", any variant), then the family
  /// ("sparse wgmma").
  std::string classKey() const;
  std::string tileKey() const;
  std::string familyKey() const;
};

class CostModel {
public:
  explicit CostModel(DeviceModel device) : device(std::move(device)) {}

  const DeviceModel &deviceModel() const { return device; }

  /// A measured time of `kernel` on `pb`. `group` ties the samples of one
  /// database entry together (leave-one-out leaves out a group).
  void addSample(const ModelProblem &pb, const ModelKernel &kernel,
                 double measuredUs, int group);
  size_t numSamples() const { return samples.size(); }

  /// Microseconds at 100 % of the peaks, launch excluded.
  double rooflineUs(const ModelProblem &pb, const ModelKernel &kernel) const;

  struct Prediction {
    double us = 0;
    /// What the efficiency came from: "3 samples of sparse wgmma
    /// 128x256", "1 sample of dense staged", "prior".
    std::string basis;
  };
  /// The predicted time, ignoring the samples of `excludeGroup`.
  Prediction predict(const ModelProblem &pb, const ModelKernel &kernel,
                     int excludeGroup = -1) const;

  /// |predicted / measured - 1| of every sample, predicted without its
  /// group's samples.
  struct Accuracy {
    size_t count = 0;
    double median = 0, p90 = 0;
  };
  Accuracy leaveOneOut() const;

  /// What a tuner needs of the model: for each group (one problem's
  /// candidates) with two samples or more, the candidate with the fastest
  /// prediction, made without the group's samples, against the fastest
  /// measured one. `regret` is measured(chosen) / measured(fastest) - 1.
  struct ChoiceQuality {
    size_t groups = 0;
    /// Groups whose chosen candidate is the fastest measured.
    size_t fastest = 0;
    double medianRegret = 0, worstRegret = 0;
  };
  ChoiceQuality leaveOneOutChoice() const;

  /// The efficiency a family reaches without measurements (docs/TUNING.md,
  /// "Priors").
  static double priorEfficiency(const ModelKernel &kernel);

private:
  struct Sample {
    ModelProblem pb;
    ModelKernel kernel;
    double measuredUs;
    double efficiency;
    int group;
  };
  double efficiencyOf(const ModelProblem &pb, const ModelKernel &kernel,
                      double measuredUs) const;

  DeviceModel device;
  std::vector<Sample> samples;
};

} // namespace mlir::stc::tuning

#endif // STC_PASSES_TUNING_COSTMODEL_H
