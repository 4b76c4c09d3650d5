//===- CudaTesting.h - test hooks of the CUDA runtime -----------*- C++ -*-===//
//
// Hooks for the unit tests only (not part of the C API).
//
// The driver is a process-wide singleton loaded once, which is what a real
// program wants, but the tests need to load a different driver library (none,
// a library without the CUDA symbols, the fake driver) in one process.
// stc_cuda_reset_for_testing() returns the runtime to its just-started
// state: it releases the primary contexts it retained, unloads the driver
// (the next call reads $STC_CUDA_DRIVER_LIBRARY again), forgets the current
// device and kernels, and clears the error record.  No other thread may be
// inside the runtime, and handles obtained before are dead afterwards.
//
// stc_cuda_hide_driver_entry_point_for_testing(name) makes the loaded driver
// look like one that lacks the optional entry point `name` (a pre-12.0
// driver), so that the message for a missing cuTensorMapEncodeTiled or
// cuLaunchKernelEx is tested with the one fake driver library.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_CUDA_CUDATESTING_H
#define STC_RUNTIME_CUDA_CUDATESTING_H

extern "C" void stc_cuda_reset_for_testing(void);

/// Loads the driver if needed and forgets its optional entry point `name`
/// ("cuTensorMapEncodeTiled", "cuLaunchKernelEx", "cuFuncGetAttribute",
/// "cuOccupancyMaxActiveBlocksPerMultiprocessor" or
/// "cuOccupancyMaxActiveClusters") until the next reset.
/// Returns 0, or -1 for another name or a driver that did not load.
extern "C" int stc_cuda_hide_driver_entry_point_for_testing(const char *name);

#endif // STC_RUNTIME_CUDA_CUDATESTING_H
