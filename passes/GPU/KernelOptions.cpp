//===- KernelOptions.cpp - the GPU kernel knobs -------------*- C++ -*-===//
//
// See KernelOptions.h. Every message has a case in test/Tools/
// bad-options.test (tool spelling) or test/Passes/
// stc-configure-gpu-kernels-invalid.mlir (pass spelling).
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelOptions.h"

using namespace mlir;
using namespace mlir::stc;
using stc_gpu::GpuArch;

LogicalResult
GpuKernelOptions::verify(std::optional<GpuArch> arch, Spelling spelling,
                         function_ref<void(const Twine &)> error) const {
  auto name = [&](StringRef option) {
    return (spelling.knobPrefix + option).str();
  };
  const std::string target = (spelling.prefix + "target").str();
  auto fail = [&](const Twine &message) {
    error(message);
    return failure();
  };
  const bool hopper = arch && stc_gpu::hasWgmma(*arch);
  if (kernel != "auto" && !stc_gpu::symbolizeKernelFamily(kernel))
    return fail(name("kernel") +
                " must be auto, direct, staged or wgmma, "
                "got '" +
                kernel + "'");
  if (kernel == "wgmma" && arch && !hopper)
    return fail(name("kernel") + "=wgmma needs " + target + "=sm_90a, got " +
                target + "=" + stc_gpu::stringifyGpuArch(*arch));
  // 256 rows for any target (the staged mma.sp kernel or the sm_90a one),
  // 256 columns for the sm_90a kernel only.
  // The sm_90a kernel also takes 16 or 32 columns (decode-size products).
  for (auto [tile, isCols] :
       {std::pair{blockRows, false}, std::pair{blockCols, true}}) {
    bool sm90aCols = isCols && (hopper || !arch);
    bool wide = tile == 256 && (!isCols || sm90aCols);
    bool narrow = (tile == 16 || tile == 32) && sm90aCols;
    if (tile != 0 && tile != 64 && tile != 128 && !wide && !narrow)
      return fail(name("block-rows") + " and " + name("block-cols") +
                  " must be 64 or 128 (or 0; " + name("block-rows") +
                  "=256 too, and " + name("block-cols") +
                  "=256, 16 or 32 with " + target + "=sm_90a), got " +
                  Twine(tile));
  }
  if (blockRows == 256 && blockCols == 256)
    return fail(name("block-rows") +
                "=256 takes at most 128 columns (a 256 x 256 tile needs 256 "
                "accumulators per thread)");
  if (blockRows == 256 && wgmmaA == "registers")
    return fail(name("block-rows") + "=256 takes A from shared memory (" +
                name("wgmma-a") + "=smem)");
  if (wgmmaStages != 0 && (wgmmaStages < 2 || wgmmaStages > 12))
    return fail(name("wgmma-stages") + " must be 2 to 12 (or 0), got " +
                Twine(wgmmaStages));
  if (!stc_gpu::symbolizeWgmmaASource(wgmmaA))
    return fail(name("wgmma-a") + " must be smem or registers, got '" + wgmmaA +
                "'");
  if (pixelTiles != "auto" && pixelTiles != "image" && pixelTiles != "flat")
    return fail(name("pixel-tiles") + " must be auto, image or flat, got '" +
                pixelTiles + "'");
  if (clusterRows < 0 || clusterRows > 2)
    return fail(name("cluster-rows") + " must be 1 or 2 (or 0), got " +
                Twine(clusterRows));
  if (groupRows < 0 || groupRows > 64)
    return fail(name("group-rows") + " must be 0 to 64, got " +
                Twine(groupRows));
  for (int64_t warp : {warpRows, warpCols})
    if (warp != 0 && warp != 32 && warp != 64)
      return fail(name("warp-rows") + " and " + name("warp-cols") +
                  " must be 32 or 64 (or 0), got " + Twine(warp));
  if (stageKSteps < 0 || stageKSteps > 2)
    return fail(name("stage-k-steps") + " must be 1 or 2 (or 0), got " +
                Twine(stageKSteps));
  if (stages < 2 || stages > 4)
    return fail(name("stages") + " must be 2, 3 or 4, got " + Twine(stages));
  if (accumulate != "f32" && accumulate != "f16")
    return fail(name("accumulate") + " must be f32 or f16, got '" + accumulate +
                "'");
  return success();
}

std::optional<stc_gpu::KernelFamily> GpuKernelOptions::requestedFamily() const {
  if (kernel == "auto")
    return std::nullopt;
  return stc_gpu::symbolizeKernelFamily(kernel);
}

bool GpuKernelOptions::overridesHeuristics() const {
  GpuKernelOptions defaults;
  // FIELD is a member name: it cannot take the parentheses clang-tidy asks
  // macro arguments for.
  // NOLINTBEGIN(bugprone-macro-parentheses)
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  if (FIELD != defaults.FIELD)                                                 \
    return true;
#include "passes/GPU/KernelOptions.def"
  // NOLINTEND(bugprone-macro-parentheses)
  return false;
}
