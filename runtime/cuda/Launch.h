//===- Launch.h - modules, functions and launches ---------------*- C++ -*-===//
//
// What the explicit API and the mgpu* entry points share to run kernels:
// loading a module (PTX JIT-compiled by the driver, or a cubin) with the JIT
// log in the message, looking a function up and remembering its name, and
// the checked launch (with a cluster on sm_90) that opts a kernel in to more
// than 48 KiB of dynamic shared memory.
//
// Internal to the runtime (not part of its API); Launch.cpp defines it.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_LAUNCH_H
#define STC_RUNTIME_CUDA_LAUNCH_H

#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"

#include <string>

namespace stc::cuda {

/// Loads a module from PTX text (`isPtx`) or a cubin/fatbin image, capturing
/// the JIT error log into the error message.
CUmodule loadModule(Call &call, const void *image, bool isPtx, int optLevel,
                    const std::string &what);

/// Looks up kernel `name` in `module` and remembers the handle's name (for
/// messages) and its default shared-memory opt-in.
CUfunction getFunction(Call &call, CUmodule module, const char *name);

/// Unloads `module` and forgets the function handles that die with it.
void unloadModule(Call &call, CUmodule module);

/// Launches `fn`, opting it into more than 48 KiB of dynamic shared memory
/// first when needed.  `cluster` is null for an ordinary launch.
bool launch(Call &call, CUfunction fn, const unsigned grid[3],
            const unsigned block[3], unsigned shared, CUstream stream,
            void **params, void **extra, const unsigned *cluster);

} // namespace stc::cuda

#endif // STC_RUNTIME_CUDA_LAUNCH_H
