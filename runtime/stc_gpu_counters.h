/*===- stc_gpu_counters.h - what a GPU run did, counted ----------*- C -*-===//
 *
 * The events `stc-run --profile` reports per call, counted the same way by
 * the CUDA runtime (stc_cuda_counters, runtime/stc_runtime_cuda.h) and by
 * the emulator (stc_emu_counters, runtime/emulator/stc_gpu_emulator.h), so
 * that a CPU-only machine checks the same residency claims as a GPU: from
 * the second call of a program on, no device allocation and no weight
 * upload. Counters only grow; a caller takes the difference of two reads.
 *
 *===----------------------------------------------------------------------===*/
#ifndef STC_RUNTIME_STC_GPU_COUNTERS_H
#define STC_RUNTIME_STC_GPU_COUNTERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StcGpuCounters {
  /* Kernel launches. */
  uint64_t launches;
  /* Bytes copied host to device (input activations, weight uploads, tensor
   * maps) and device to host (results). */
  uint64_t h2d_bytes;
  uint64_t d2h_bytes;
  /* Real device allocations and frees (cuMemAlloc/cuMemFree): a request the
   * caching pool serves from its free blocks counts as neither. */
  uint64_t device_allocs;
  uint64_t device_frees;
  /* Milliseconds the kernels ran: CUDA events around each launch while
   * profiling is on (stc_cuda_set_profiling), 0 otherwise; the emulator's
   * wall time inside its launches. */
  double kernel_ms;
} StcGpuCounters;

#ifdef __cplusplus
}
#endif

#endif /* STC_RUNTIME_STC_GPU_COUNTERS_H */
