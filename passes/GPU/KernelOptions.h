//===- KernelOptions.h - the GPU kernel knobs ---------------*- C++ -*-===//
//
// GpuKernelOptions: the overrides of stc-configure-gpu-kernels' heuristics
// (declared once, in KernelOptions.def), shared by the pass, the pipeline
// options (StcPipelineOptions::gpu) and so the tools and the C API, with
// the one check of their values.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELOPTIONS_H
#define STC_PASSES_GPU_KERNELOPTIONS_H

#include "dialects/StcGpu/StcGpuAttrs.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stc {

struct GpuKernelOptions {
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  TYPE FIELD = DEFAULT;
#include "passes/GPU/KernelOptions.def"

  /// How option names are spelled in messages: `prefix` before every
  /// option name, `knobPrefix` before a knob's NAME (the tools' --target and
  /// --gpu-NAME, stc-pipeline's target and gpu-NAME, the pass's target and
  /// NAME).
  struct Spelling {
    llvm::StringRef prefix, knobPrefix;
    static Spelling tool() { return {"--", "--gpu-"}; }
    static Spelling pipeline() { return {"", "gpu-"}; }
    static Spelling pass() { return {"", ""}; }
  };

  /// Checks every value, and the combinations that cannot work on `arch`
  /// (nullopt: the target is not a GPU, so only values are checked). Calls
  /// `error` with the first problem ("--gpu-stages must be 2, 3 or 4, got
  /// 7") and fails.
  LogicalResult verify(std::optional<stc_gpu::GpuArch> arch, Spelling spelling,
                       function_ref<void(const Twine &)> error) const;

  /// Whether any knob differs from its default: the kernel is then the
  /// user's choice, not the tuning database's.
  bool overridesHeuristics() const;

  /// The kernel family asked for; nullopt for `auto`. Valid after verify().
  std::optional<stc_gpu::KernelFamily> requestedFamily() const;
};

} // namespace mlir::stc

#endif // STC_PASSES_GPU_KERNELOPTIONS_H
