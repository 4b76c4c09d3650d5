//===- TuningDb.h - the tuning database (docs/TUNING.md) -------*- C++ -*-===//
//
// The measured kernel choices the autotuner writes and the configuration
// pass reads: entries keyed by (device, compute capability, arch, op,
// sizes, types, epilogue class), each with its best configuration, the
// runner-up and every measured candidate. MLIR-free (configurations stay
// text here; the passes parse them), so that the unit tests and tools can
// read a database without a context.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_TUNING_TUNINGDB_H
#define STC_PASSES_TUNING_TUNINGDB_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::stc::tuning {

/// A convolution (op "conv"): an NHWC input n x h x w x c, f filters of
/// kh x kw, strides, padding (top, left, bottom, right), dilations, groups.
struct ConvShape {
  int64_t n = 0, h = 0, w = 0, c = 0, f = 0, kh = 0, kw = 0;
  int64_t strideH = 1, strideW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t dilationH = 1, dilationW = 1, groups = 1;

  bool operator==(const ConvShape &o) const;
  /// "32x56x56x64 * 256x3x3 s2 p1,1,1,1 d1 g1".
  std::string str() const;
};

/// One tuned problem (docs/TUNING.md, "Keys").
struct TuningKey {
  std::string device; // cuDeviceGetName, e.g. "NVIDIA H200"
  std::string cc;     // "9.0"
  std::string arch;   // the --target the kernels were built for
  std::string op = "matmul";
  /// The product; for a convolution its implicit GEMM per group (m = f /
  /// groups, n = n * oh * ow, k = kh * kw * c padded to the pattern).
  int64_t m = 0, n = 0, k = 0, batch = 1;
  std::string dtype, out, epilogue = "none";
  /// Set for op "conv".
  std::optional<ConvShape> conv;

  /// Everything but the device and compute capability.
  bool sameProblem(const TuningKey &other) const;
  /// "matmul 4096x4096x4096 f16->f16 none on sm_90a", for messages.
  std::string str() const;
};

/// One measured configuration.
struct MeasuredConfig {
  bool sparse = true;
  /// The #stc_gpu.kernel_config text.
  std::string config;
  double medianUs = 0;
  /// "ok", "wrong" or "failed"; only "ok" ones have a time.
  std::string status = "ok";
};

struct TuningEntry {
  TuningKey key;
  MeasuredConfig best;
  std::optional<MeasuredConfig> runnerUp;
  std::vector<MeasuredConfig> candidates;
  /// Where it came from, for messages: "FILE entry N".
  std::string origin;
};

/// Entries from any number of files; a later file's entry replaces an
/// earlier one with the same key (device included).
class TuningDb {
public:
  /// Adds the entries of `text`, named `name` in messages. On a malformed
  /// file returns the error (naming the file, the entry's index and what
  /// is wrong) and adds nothing.
  std::optional<std::string> add(llvm::StringRef text, llvm::StringRef name);

  const std::vector<TuningEntry> &entries() const { return all; }

  /// The device whose entries apply to `arch` on compute capability `cc`:
  /// `requested` when given and present, otherwise the device with the
  /// most entries for them (ties: the first in file order); "" when none.
  std::string chooseDevice(llvm::StringRef cc, llvm::StringRef arch,
                           llvm::StringRef requested = "") const;

  /// The entries of `device` for `arch`.
  std::vector<const TuningEntry *> entriesFor(llvm::StringRef device,
                                              llvm::StringRef arch) const;

  /// The entry of `device` for the problem of `key`, or null.
  const TuningEntry *find(llvm::StringRef device, const TuningKey &key) const;

  /// Compute capabilities (and a device of each) present, for remarks:
  /// "8.0 (NVIDIA A100-SXM4-80GB), 9.0 (NVIDIA H200)".
  std::string describeDevices() const;

private:
  std::vector<TuningEntry> all;
};

/// The compute capability a target runs on ("sm_90a" -> "9.0"), or "" for
/// a target that is not a GPU architecture.
std::string computeCapabilityOf(llvm::StringRef arch);

/// The database committed in tuning/ and compiled into the tools.
llvm::StringRef committedTuningDb();

} // namespace mlir::stc::tuning

#endif // STC_PASSES_TUNING_TUNINGDB_H
