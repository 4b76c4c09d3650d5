//===- Launch.cpp - modules, functions and launches -------------*- C++ -*-===//
//
// Loading modules, looking functions up and launching kernels, for both the
// explicit stc_cuda_* API and the mgpu* entry points: every failure is one
// message naming the driver call with its arguments (the kernel, grid,
// block, cluster and shared memory of a launch; the JIT log of a load).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Launch.h"
#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/DeviceMemory.h"
#include "runtime/stc_runtime_cuda.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

using namespace stc::cuda;

namespace {

std::string dims(unsigned x, unsigned y, unsigned z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

} // namespace

namespace stc::cuda {

CUmodule loadModule(Call &call, const void *image, bool isPtx, int optLevel,
                    const std::string &what) {
  // The driver writes at most the given size including the terminating NUL;
  // one spare byte keeps the buffer terminated whatever it does.
  static constexpr size_t kLogSize = 16 * 1024;
  std::string log(kLogSize + 1, '\0');
  int options[3];
  void *values[3];
  unsigned n = 0;
  options[n] = kJitErrorLogBuffer;
  values[n++] = &log[0];
  options[n] = kJitErrorLogBufferSizeBytes;
  values[n++] = reinterpret_cast<void *>(uintptr_t(kLogSize));
  if (isPtx && optLevel >= 0) {
    // ptxas accepts -O0..-O4.
    options[n] = kJitOptimizationLevel;
    values[n++] = reinterpret_cast<void *>(uintptr_t(std::min(optLevel, 4)));
  }
  CUmodule module = nullptr;
  CUresult r =
      call.driver().cuModuleLoadDataEx(&module, image, n, options, values);
  if (r == kCudaSuccess)
    return module;

  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && std::isspace(static_cast<unsigned char>(log.back())))
    log.pop_back();
  std::string suffix;
  const DeviceProperties &p = call.props();
  std::string sm =
      "sm_" + std::to_string(p.smMajor) + std::to_string(p.smMinor);
  if (r == kCudaErrorNoBinaryForGpu)
    suffix = "; the image has no code for this GPU (" + sm +
             "); compile for it or load PTX";
  else if (r == kCudaErrorUnsupportedPtxVersion)
    suffix = "; the driver is older than the PTX's .version; update the "
             "NVIDIA driver or target an older PTX ISA";
  if (!log.empty())
    suffix += "; JIT log:\n" + log;
  call.check(r, "cuModuleLoadDataEx(" + what + ")", STC_CUDA_ERROR_MODULE_LOAD,
             suffix);
  return nullptr;
}

CUfunction getFunction(Call &call, CUmodule module, const char *name) {
  CUfunction fn = nullptr;
  if (!call.check(call.driver().cuModuleGetFunction(&fn, module, name),
                  std::string("cuModuleGetFunction('") + name + "')"))
    return nullptr;
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  KernelInfo &info = st.kernels[fn];
  if (info.module != module || info.name != name)
    info = KernelInfo{module, name, kDefaultDynamicSharedLimit};
  return fn;
}

void unloadModule(Call &call, CUmodule module) {
  {
    // Function handles die with their module and may be reused.
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    for (auto it = st.kernels.begin(); it != st.kernels.end();)
      it = it->second.module == module ? st.kernels.erase(it) : std::next(it);
  }
  call.check(call.driver().cuModuleUnload(module), "cuModuleUnload");
}

bool launch(Call &call, CUfunction fn, const unsigned grid[3],
            const unsigned block[3], unsigned shared, CUstream stream,
            void **params, void **extra, const unsigned *cluster) {
  CudaDriver &drv = call.driver();
  std::string name = kernelName(fn);
  std::string what = "cuLaunchKernel";
  if (cluster)
    what = "cuLaunchKernelEx";
  what += "(kernel '" + name + "', grid " + dims(grid[0], grid[1], grid[2]) +
          ", block " + dims(block[0], block[1], block[2]);
  if (cluster)
    what += ", cluster " + dims(cluster[0], cluster[1], cluster[2]);
  what += ", " + std::to_string(shared) + " bytes of dynamic shared memory)";

  for (int i = 0; i < 3; ++i)
    if (grid[i] == 0 || block[i] == 0 || (cluster && cluster[i] == 0)) {
      call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                what +
                    ": every grid, block and cluster size must be at least 1");
      return false;
    }

  if (cluster) {
    const DeviceProperties &p = call.props();
    if (p.smMajor < 9) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                what + ": thread block clusters need sm_90 or later; GPU " +
                    p.name + " is sm_" + std::to_string(p.smMajor) +
                    std::to_string(p.smMinor));
      return false;
    }
    for (int i = 0; i < 3; ++i)
      if (grid[i] % cluster[i] != 0) {
        call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                  what + ": the grid is not a whole number of clusters (grid " +
                      "xyz"[i] + " = " + std::to_string(grid[i]) +
                      " is not a multiple of cluster " + "xyz"[i] + " = " +
                      std::to_string(cluster[i]) + ")");
        return false;
      }
    uint64_t blocks = uint64_t(cluster[0]) * cluster[1] * cluster[2];
    if (blocks > kMaxPortableClusterSize) {
      call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                what + ": a cluster of " + std::to_string(blocks) +
                    " blocks is more than the portable maximum of " +
                    std::to_string(kMaxPortableClusterSize));
      return false;
    }
  }

  if (shared > kDefaultDynamicSharedLimit) {
    const DeviceProperties &p = call.props();
    if (int64_t(shared) > int64_t(p.maxSharedPerBlockOptin)) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                "kernel '" + name + "' asks for " + std::to_string(shared) +
                    " bytes of dynamic shared memory; GPU " + p.name +
                    " allows at most " +
                    std::to_string(p.maxSharedPerBlockOptin) +
                    " bytes per block (its opt-in limit)");
      return false;
    }
    unsigned optin;
    {
      State &st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.kernels.find(fn);
      optin = it == st.kernels.end() ? kDefaultDynamicSharedLimit
                                     : it->second.sharedOptin;
    }
    if (shared > optin) {
      if (!call.check(drv.cuFuncSetAttribute(
                          fn, kFuncAttrMaxDynamicSharedSizeBytes, int(shared)),
                      "cuFuncSetAttribute(kernel '" + name +
                          "', MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                          std::to_string(shared) + ")",
                      STC_CUDA_ERROR_LAUNCH))
        return false;
      State &st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.kernels.find(fn);
      if (it != st.kernels.end())
        it->second.sharedOptin = std::max(it->second.sharedOptin, shared);
    }
  }

  bool timed = profiling();
  if (timed)
    profileLaunchBegin(call, stream);
  CUresult r;
  if (!cluster) {
    r = drv.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
                           block[2], shared, stream, params, extra);
  } else {
    if (!drv.cuLaunchKernelEx) {
      call.fail(STC_CUDA_ERROR_LAUNCH,
                what + ": the CUDA driver has no cuLaunchKernelEx (cluster "
                       "launches need CUDA 12.0 or later)");
      return false;
    }
    CUlaunchAttribute attr;
    CUlaunchConfig config =
        clusterLaunchConfig(grid, block, cluster, shared, stream, attr);
    r = drv.cuLaunchKernelEx(&config, fn, params, extra);
  }
  {
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    st.lastKernel = name;
  }
  if (timed)
    profileLaunchEnd(call, stream);
  if (r == kCudaSuccess)
    countLaunch();
  return call.check(r, what, STC_CUDA_ERROR_LAUNCH);
}

} // namespace stc::cuda
