/*===- stc_runtime_cuda.h - STC run-time C API for CUDA GPUs ------*- C -*-===//
 *
 * The GPU half of stc_runtime: a small explicit C API over the CUDA driver
 * for programs and for `stc-run`, and the `mgpu*` entry points that MLIR's
 * `gpu-to-llvm` lowering emits calls to.  This header compiles as C and as
 * C++ and needs no CUDA header: handles are opaque pointers and device
 * addresses are 64-bit integers.
 *
 * The driver (libcuda.so.1, or the file named by the environment variable
 * STC_CUDA_DRIVER_LIBRARY) is loaded with dlopen at first use, so a program
 * linked against stc_runtime builds and runs on a machine with no GPU and no
 * driver; it only fails, with a clear message, when it asks for the GPU.
 *
 * Errors.  Like the CPU entry points of stc_runtime.h, nothing aborts: the
 * first error since the last stc_cuda_clear_error() is recorded, as one
 * message "error: <what failed>: <driver error name> (<driver text>)", and is
 * readable with stc_cuda_last_error().  The explicit API additionally returns
 * a StcCudaStatus from every call.  The CUDA error record is separate from
 * the CPU one (stc_rt_has_error()); a host that runs GPU code checks both.
 *
 * Devices.  The runtime works on the primary context of one current device,
 * chosen by stc_cuda_init() (or, for generated code, by
 * mgpuSetDefaultDevice() or lazily device 0).  Every call makes that context
 * current for its own duration only (push/pop), so it composes with other
 * CUDA users in the same process and may be called from any thread.
 *
 *===----------------------------------------------------------------------===*/
#ifndef STC_RUNTIME_STC_RUNTIME_CUDA_H
#define STC_RUNTIME_STC_RUNTIME_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===
 * Status codes and error record
 *===----------------------------------------------------------------------===*/

typedef enum StcCudaStatus {
  STC_CUDA_SUCCESS = 0,
  /* libcuda.so.1 could not be loaded, or lacks a function STC needs. */
  STC_CUDA_ERROR_NO_DRIVER = 1,
  /* cuInit failed (driver/kernel-module mismatch, stub library, ...). */
  STC_CUDA_ERROR_DRIVER_INIT = 2,
  /* No CUDA device, or the requested ordinal does not exist. */
  STC_CUDA_ERROR_NO_DEVICE = 3,
  /* The device is older than sm_80 (no sparse tensor cores). */
  STC_CUDA_ERROR_UNSUPPORTED_DEVICE = 4,
  /* An explicit-API call made before a successful stc_cuda_init(). */
  STC_CUDA_ERROR_NOT_INITIALIZED = 5,
  /* A null handle or out-pointer, a zero-sized grid, ... */
  STC_CUDA_ERROR_INVALID_ARGUMENT = 6,
  STC_CUDA_ERROR_OUT_OF_MEMORY = 7,
  /* PTX JIT compilation or cubin loading failed (message has the JIT log). */
  STC_CUDA_ERROR_MODULE_LOAD = 8,
  /* The module has no kernel of that name. */
  STC_CUDA_ERROR_NOT_FOUND = 9,
  /* A launch was rejected, or a kernel failed while running (reported by
   * the next synchronizing call). */
  STC_CUDA_ERROR_LAUNCH = 10,
  /* Any other driver failure; the message names the call. */
  STC_CUDA_ERROR_DRIVER = 11
} StcCudaStatus;

/* The enumerator's name without the prefix, e.g. "OUT_OF_MEMORY". */
const char *stc_cuda_status_name(int status);

/* 1 when an error is recorded (explicit API or mgpu*), else 0. */
int stc_cuda_has_error(void);
/* The StcCudaStatus of the recorded error, STC_CUDA_SUCCESS if none. */
int stc_cuda_error_status(void);
/* The recorded (first) error message, "" if none.  Owned by the runtime and
 * valid until the next stc_cuda_clear_error(). */
const char *stc_cuda_last_error(void);
/* Forgets the recorded error; mgpu* entry points work again afterwards. */
void stc_cuda_clear_error(void);

/*===----------------------------------------------------------------------===
 * Explicit API (programs, stc-run)
 *
 * Every function returns a StcCudaStatus and records a failure as above.
 * Unlike the mgpu* entry points, they always attempt their work even when an
 * earlier error is recorded: their status says whether this call worked.
 *===----------------------------------------------------------------------===*/

/* Opaque handles.  A module owns its functions; a function handle is valid
 * until its module is unloaded.  Streams are created and destroyed by the
 * caller; a null stream is the device's default (legacy) stream. */
typedef struct StcCudaModuleOpaque *StcCudaModule;
typedef struct StcCudaFunctionOpaque *StcCudaFunction;
typedef struct StcCudaStreamOpaque *StcCudaStream;
/* A device address (the driver's CUdeviceptr). */
typedef uint64_t StcCudaDevicePtr;

/* Loads the driver (once per process), initializes it, checks that device
 * `device` exists and is sm_80 or later, retains its primary context and
 * makes it the runtime's current device.  Calling it again is cheap; a
 * different ordinal switches the current device.  A probe (stc-run
 * --device=auto) that falls back to the CPU on failure calls
 * stc_cuda_clear_error() afterwards. */
int stc_cuda_init(int device);

typedef struct StcCudaDeviceInfo {
  int ordinal;
  int sm;       /* 10 * major + minor, e.g. 90 */
  int sm_major; /* compute capability */
  int sm_minor;
  int driver_version;             /* cuDriverGetVersion(), e.g. 13000 */
  int max_shared_bytes_per_block; /* opt-in limit for dynamic shared memory */
  char name[256];                 /* e.g. "NVIDIA H100 80GB HBM3" */
} StcCudaDeviceInfo;

/* Describes the current device (after stc_cuda_init). */
int stc_cuda_device_info(StcCudaDeviceInfo *info);

/* Loads NUL-terminated PTX text, JIT-compiled by the driver for the current
 * device.  On failure the recorded message ends with the JIT error log. */
int stc_cuda_module_load_ptx(const char *ptx, StcCudaModule *module);
/* Loads a cubin or fatbin image of `size` bytes (copied by the driver). */
int stc_cuda_module_load_cubin(const void *image, size_t size,
                               StcCudaModule *module);
/* Unloads a module; its function handles become invalid.  Null: no-op. */
int stc_cuda_module_unload(StcCudaModule module);
/* Finds the kernel `name` (its PTX .entry name) in `module`. */
int stc_cuda_module_get_function(StcCudaModule module, const char *name,
                                 StcCudaFunction *function);

/* Device memory, owned by the caller until stc_cuda_mem_free. A zero-byte
 * allocation yields the null address and succeeds; freeing 0 is a no-op. */
int stc_cuda_mem_alloc(size_t bytes, StcCudaDevicePtr *ptr);
int stc_cuda_mem_free(StcCudaDevicePtr ptr);
/* Synchronous copies: they return when the copy is done.  They are ordered
 * after earlier work on the default stream, but not after work on streams
 * from stc_cuda_stream_create (non-blocking streams): synchronize those
 * first. */
int stc_cuda_memcpy_htod(StcCudaDevicePtr dst, const void *src, size_t bytes);
int stc_cuda_memcpy_dtoh(void *dst, StcCudaDevicePtr src, size_t bytes);
/* Sets `bytes` bytes at `dst` to `value` (e.g. to poison an output). */
int stc_cuda_memset_d8(StcCudaDevicePtr dst, unsigned char value, size_t bytes);

/* Creates a non-blocking stream (no implicit ordering with the default
 * stream), owned by the caller. */
int stc_cuda_stream_create(StcCudaStream *stream);
int stc_cuda_stream_destroy(StcCudaStream stream);

/* Launches `function` on a grid[0..2] x block[0..2] configuration with
 * `shared_bytes` bytes of dynamic shared memory; `params[i]` points to the
 * value of the kernel's i-th parameter (the driver copies them before
 * returning).  More than 48 KiB of dynamic shared memory is opted into
 * automatically, up to the device's limit.  The launch is asynchronous: a
 * kernel that fails while running is reported by stc_cuda_synchronize. */
int stc_cuda_launch(StcCudaFunction function, const unsigned grid[3],
                    const unsigned block[3], unsigned shared_bytes,
                    StcCudaStream stream, void **params);
/* Waits for `stream`, or for all work on the device when it is null. */
int stc_cuda_synchronize(StcCudaStream stream);

/* Tensor Memory Accelerator (sm_90): a CUtensorMap describing how
 * cp.async.bulk.tensor copies boxes of a tensor in device memory into shared
 * memory.  128 bytes, 64-byte aligned, opaque. */
#ifdef __cplusplus
#define STC_CUDA_ALIGN64 alignas(64)
#else
#define STC_CUDA_ALIGN64 _Alignas(64)
#endif
typedef struct StcCudaTensorMap {
  STC_CUDA_ALIGN64 unsigned char bytes[128];
} StcCudaTensorMap;

/* Element types of a tensor map (cuda.h's CUtensorMapDataType values). */
enum {
  STC_CUDA_TENSOR_U8 = 0,
  STC_CUDA_TENSOR_I32 = 3,
  STC_CUDA_TENSOR_F16 = 6,
  STC_CUDA_TENSOR_F32 = 7,
  STC_CUDA_TENSOR_BF16 = 9,
  STC_CUDA_TENSOR_TF32 = 11
};
/* Shared-memory swizzle of the box (CUtensorMapSwizzle): none, or an XOR
 * pattern over 32/64/128-byte rows, the layouts wgmma descriptors name. */
enum {
  STC_CUDA_SWIZZLE_NONE = 0,
  STC_CUDA_SWIZZLE_32B = 1,
  STC_CUDA_SWIZZLE_64B = 2,
  STC_CUDA_SWIZZLE_128B = 3
};

/* Encodes a tiled tensor map for the row-major `rank`-dimensional (1..5)
 * tensor at device address `address` (16-byte aligned): `dims` are its
 * sizes and `box` the box sizes (1..256 each), outermost first as in C;
 * `strides_bytes` the byte strides of the rank - 1 outer dimensions (the
 * innermost is contiguous), each a multiple of 16 and at least the extent
 * of the dimension inside it.  The box's innermost extent must be a
 * multiple of 16 bytes and, with a swizzle, fit the swizzle span
 * (32/64/128 bytes).  Out-of-bounds elements of a box read as zeros.  Needs
 * a driver with cuTensorMapEncodeTiled (CUDA 12.0+); the arguments are
 * checked first, each violation with its own message. */
int stc_cuda_tensor_map_encode_tiled(StcCudaTensorMap *map, int data_type,
                                     int rank, StcCudaDevicePtr address,
                                     const uint64_t *dims,
                                     const uint64_t *strides_bytes,
                                     const uint32_t *box, int swizzle);

/*===----------------------------------------------------------------------===
 * Launching stc-compile's kernels from their kernel info
 * (runtime/StcRuntimeCudaKernel.cpp)
 *
 * What a program that launches `stc-compile --emit=ptx --kernel-info` output
 * itself needs beyond the calls above (bench/gpu does): the kernel's
 * attributes and occupancy, thread-block-cluster launches, and tensor maps
 * encoded as stc-compile's own host code encodes them.
 *===----------------------------------------------------------------------===*/

/* Function attributes (cuda.h's CUfunction_attribute values). */
enum {
  STC_CUDA_FUNC_MAX_THREADS_PER_BLOCK = 0, /* given its registers */
  STC_CUDA_FUNC_STATIC_SHARED_BYTES = 1,
  STC_CUDA_FUNC_LOCAL_BYTES = 3, /* per thread: spills */
  STC_CUDA_FUNC_REGISTERS = 4,   /* per thread */
  STC_CUDA_FUNC_PTX_VERSION = 5, /* 10 * major + minor */
  STC_CUDA_FUNC_BINARY_VERSION = 6,
  STC_CUDA_FUNC_MAX_DYNAMIC_SHARED_BYTES = 8
};
/* Reads one attribute of `function` into `*value`. */
int stc_cuda_function_attribute(StcCudaFunction function, int attribute,
                                int *value);
/* Opts `function` in to `bytes` of dynamic shared memory per block (up to
 * the device's limit), as stc_cuda_launch does by itself on the first launch
 * that asks for more than 48 KiB; needed first by an occupancy query for
 * such a block.  Launches then do not opt it in again. */
int stc_cuda_function_set_max_dynamic_shared(StcCudaFunction function,
                                             unsigned bytes);
/* Blocks of `block_threads` threads with `shared_bytes` of dynamic shared
 * memory each that fit on one multiprocessor at once (0: none fits). */
int stc_cuda_occupancy_blocks_per_sm(StcCudaFunction function,
                                     unsigned block_threads,
                                     size_t shared_bytes, int *blocks);
/* Clusters of `cluster[0..2]` blocks of the launch configuration that can
 * be resident on the device at once (0: none).  Needs sm_90 and a CUDA 12.0
 * or later driver. */
int stc_cuda_occupancy_clusters(StcCudaFunction function,
                                const unsigned grid[3], const unsigned block[3],
                                const unsigned cluster[3],
                                unsigned shared_bytes, int *clusters);
/* stc_cuda_launch with thread-block clusters of cluster[0..2] blocks (at
 * most 8), through cuLaunchKernelEx: sm_90 and a CUDA 12.0 or later driver;
 * the grid must be a whole number of clusters. */
int stc_cuda_launch_cluster(StcCudaFunction function, const unsigned grid[3],
                            const unsigned block[3], const unsigned cluster[3],
                            unsigned shared_bytes, StcCudaStream stream,
                            void **params);

/* L2 promotion of a tensor map's loads (CUtensorMapL2promotion). */
enum {
  STC_CUDA_L2_PROMOTION_NONE = 0,
  STC_CUDA_L2_PROMOTION_64B = 1,
  STC_CUDA_L2_PROMOTION_128B = 2,
  STC_CUDA_L2_PROMOTION_256B = 3
};
/* What stc_cuda_tensor_map_encode_tiled_ex adds to the plain encoder. */
typedef struct StcCudaTensorMapOptions {
  /* Traversal strides, one per dimension outermost first, each 1..8 (a box
   * takes every e-th element along that dimension, as for a strided
   * convolution's input); null: all 1. */
  const uint32_t *element_strides;
  /* STC_CUDA_L2_PROMOTION_*; stc-compile's kernels use 128B. */
  int l2_promotion;
} StcCudaTensorMapOptions;
/* stc_cuda_tensor_map_encode_tiled with `options` (null: element strides 1,
 * no L2 promotion, as the plain encoder), each checked first. */
int stc_cuda_tensor_map_encode_tiled_ex(StcCudaTensorMap *map, int data_type,
                                        int rank, StcCudaDevicePtr address,
                                        const uint64_t *dims,
                                        const uint64_t *strides_bytes,
                                        const uint32_t *box, int swizzle,
                                        const StcCudaTensorMapOptions *options);

/*===----------------------------------------------------------------------===
 * mgpu* entry points (called by code from MLIR 22's gpu-to-llvm lowering)
 *
 * Signatures as MLIR 22.1 emits them (GPUToLLVMConversion.cpp for memory,
 * streams and events; SelectObjectAttr.cpp for modules and launches).  They
 * have no error result: a failure is recorded ("error: mgpuMemAlloc: ...")
 * and, while an error is recorded, every entry point is a no-op that returns
 * null and leaves its outputs untouched -- except that mgpuMemFree,
 * mgpuModuleUnload, mgpuStreamDestroy, mgpuEventDestroy and
 * mgpuMemHostUnregister* still release non-null handles (quietly), so a
 * failed run does not leak.  The first call initializes the default device.
 * Handles are the driver's CUmodule/CUfunction/CUstream/CUevent, so they
 * interoperate with the explicit API (same primary context).
 *
 * MLIR 22 loads each gpu.binary from a global constructor (priority 123)
 * and unloads it from a global destructor.  So in an AOT-linked program the
 * driver is loaded, and device 0 chosen, before main() runs: a missing
 * driver is already recorded when main() starts (check stc_cuda_has_error()
 * before trusting results), STC_CUDA_DRIVER_LIBRARY must be set in the
 * process's environment, and a later mgpuSetDefaultDevice() does not move
 * modules already loaded.  The runtime's state is never destroyed, so the
 * exit-time unloads are safe.
 *===----------------------------------------------------------------------===*/

/* cubin/fatbin image of gpuBlobSize bytes (gpu.binary format=bin|fatbin). */
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
/* NUL-terminated PTX (format=isa), JIT-compiled at ptxas level optLevel. */
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);

/* Grid and block sizes are MLIR `index` values (intptr_t); each must be in
 * [1, 2^32).  paramsCount (emitted by MLIR 22, absent in older releases) is the
 * number of entries of `params`.  `extra` is passed through to cuLaunchKernel.
 */
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
/* Thread-block-cluster launch (sm_90), through cuLaunchKernelEx. */
void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra);

void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

/* The IR passes `isHostShared` as an i8 and the memset values as i16/i32
 * without zeroext/signext, so the bits above them are unspecified in the
 * register; these parameters are declared register-wide and the
 * implementation looks only at the low 8/16 bits. */
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, uint32_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream);
void mgpuMemset16(void *dst, uint32_t value, size_t count, void *stream);

/* Page-locks host memory.  `descriptor` points to a ranked memref
 * descriptor {allocated, aligned, offset, sizes[rank], strides[rank]}; the
 * registered range is the span of its elements. */
void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregister(void *ptr);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);

void mgpuSetDefaultDevice(int32_t device);

/* nvgpu.tma.create.descriptor: encodes a tiled tensor map for the ranked
 * memref `descriptor` (its innermost stride must be 1) with box sizes
 * `boxDims` (outermost first) and returns the device address of a copy of
 * the map, which the kernel reads.  The enums are cuda.h's values.  Maps
 * are cached by content: encoding the same map again returns the same
 * device copy, so a program run repeatedly does not allocate each time;
 * the copies live until the process exits. */
void *mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *descriptor,
                                     int64_t tensorDataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims);

/*===----------------------------------------------------------------------===
 * STC's own entry points for generated host code
 *
 * Same contract as the mgpu* ones above: no error result, the failure is
 * recorded ("error: stc_gpu_tensor_map_2d: ..."), and the entry point is a
 * no-op returning null while an error is recorded.
 *===----------------------------------------------------------------------===*/

/* A TMA descriptor for a sm_90a kernel: encodes a tiled tensor map of the
 * row-major 2-D tensor at device address `base` (16-byte aligned) -- `outer`
 * rows of `inner` elements of CUtensorMapDataType `data_type` (e.g.
 * STC_CUDA_TENSOR_F16), rows `outer_stride_bytes` apart (a multiple of 16,
 * at least a row) -- read in boxes of `box_inner` x `box_outer` elements
 * (each 1..256; inner first, as cuTensorMapEncodeTiled takes them), with
 * the shared-memory swizzle of `swizzle_bytes` = 0, 32, 64 or 128 bytes
 * (the box row, box_inner elements, must be a multiple of 16 bytes and, when
 * swizzled, at most the swizzle span).  Fixed: no interleave, unit element
 * strides, out-of-bounds elements read as zeros (OOB fill NONE), and L2
 * promotion of 128 bytes (CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CUTLASS's
 * default for TMA copies): a swizzled box row is at most 128 bytes (the
 * span), so 128-byte fills bring in whole box rows and nothing else, while
 * 256 would also fetch the next 128 bytes of every row -- a prefetch of the
 * next K tile or of another block's tile that pays only for some tensors and
 * wastes DRAM bandwidth on narrow ones (metadata) and at the edges; that is
 * a tuning choice to make per operand with measurements, not a default.
 * In messages, dimension 0 is the outer (row) one and dimension 1 the inner.
 *
 * Returns the device address of a 128-byte copy of the map, which the kernel
 * takes as a pointer parameter (as with mgpuTensorMapEncodeTiledMemref,
 * whose content-keyed cache of copies it shares: the same map again gives
 * the same address, a different one a new copy; the copies live until the
 * process exits).  The device is the current one (device 0 if none yet).
 *
 * On error -- an argument that breaks a cuTensorMapEncodeTiled rule (each
 * with its own message, checked before the driver is called), a driver
 * without cuTensorMapEncodeTiled (before CUDA 12.0), no device -- it returns
 * null and records the error; from then on every mgpu* call is a no-op, so
 * the kernel that would have received the null map is never launched, and
 * the host (stc-run reports it; an AOT program checks stc_cuda_has_error())
 * sees the message rather than a fault or silently wrong results. */
void *stc_gpu_tensor_map_2d(const void *base, int32_t data_type, int64_t inner,
                            int64_t outer, int64_t outer_stride_bytes,
                            int32_t box_inner, int32_t box_outer,
                            int32_t swizzle_bytes);

/* The same for the 4-D tensor at `base` (an NHWC activation, say): sizes
 * d0..d3 elements, innermost (contiguous) first; s1..s3 the byte strides of
 * dimensions 1..3 (each a multiple of 16 below 2^40, at least the extent of
 * the dimension inside it); boxes of b0..b3 elements (each 1..256, b0 *
 * element bytes a multiple of 16 and, when swizzled, at most the swizzle
 * span); e0..e3 the traversal strides (cuTensorMapEncodeTiled's
 * elementStrides, each 1..8): a box takes ceil(b_i / e_i) elements along
 * dimension i, at coordinates c_i, c_i + e_i, ...  With no interleave the
 * driver ignores e0 (TMA has no stride along dimension 0: b0 contiguous
 * elements are loaded whatever e0 says); it is passed through unchanged.
 * Same fixed settings, cache, error contract and result as
 * stc_gpu_tensor_map_2d.  In messages, dimensions are counted outermost
 * first, as in C: "dimension 0" is d3 and "dimension 3" is d0. */
void *stc_gpu_tensor_map_4d(const void *base, int32_t data_type, int64_t d0,
                            int64_t d1, int64_t d2, int64_t d3, int64_t s1,
                            int64_t s2, int64_t s3, int32_t b0, int32_t b1,
                            int32_t b2, int32_t b3, int32_t e0, int32_t e1,
                            int32_t e2, int32_t e3, int32_t swizzle_bytes);

/* A constant of the program (a compressed weight, its metadata, a bias) on
 * the device: uploaded at the first call into `*slot` (a zero-initialized
 * global of the program, which then holds the device address), returned
 * from the slot afterwards, so a program's weights cross the bus once.
 * `bytes` bytes from `host`.  The upload completes before this returns. */
void *stc_gpu_resident(int64_t *slot, const void *host, int64_t bytes);
/* Frees the upload held by `*slot` and zeroes it; called by the program's
 * destructor (JIT engine destroyed, AOT object unloaded or process exit).
 * Never records an error: the driver may already be shutting down. */
void stc_gpu_release_resident(int64_t *slot);

/*===----------------------------------------------------------------------===
 * Profiling and device memory (runtime/cuda/DeviceMemory.cpp)
 *
 * Device memory that generated code allocates (mgpuMemAlloc) comes from a
 * caching pool: a freed block is kept for the next request of its size
 * class (ordered after its last user's stream with an event), so a program
 * called repeatedly allocates nothing from its second call on.  The cache
 * holds at most $STC_GPU_POOL_LIMIT_MB MiB (default 4096; 0: no caching)
 * and is emptied when out of memory, when the last module that generated
 * code loaded is unloaded, and by stc_cuda_release_cached_memory.
 *===----------------------------------------------------------------------===*/

#include "stc_gpu_counters.h"

/* The counters since the process started (stc_gpu_counters.h): launches,
 * copies of generated code and of the explicit API's tensor maps, real
 * allocations and frees; kernel time of the launches made while profiling
 * was on (this waits for them). */
int stc_cuda_counters(StcGpuCounters *counters);
/* Brackets every later launch with CUDA events (costs a little per launch)
 * so that stc_cuda_counters reports kernel_ms. */
void stc_cuda_set_profiling(int on);
/* Frees the pool's cached blocks on the current device. */
int stc_cuda_release_cached_memory(void);

/* Generated code called from this thread afterwards runs all its work on
 * `stream` (the caller's; null is the legacy default stream) instead of on
 * streams of its own, so that it is ordered with the caller's work (a
 * PyTorch current stream, a CUDA graph capture); the runtime never destroys
 * it. Generated code still waits for its work before each launch function
 * returns. stc_cuda_clear_stream() goes back to the runtime's own streams. */
void stc_cuda_set_stream(StcCudaStream stream);
/* stc_cuda_set_stream, and generated code no longer waits for its work on
 * `stream`: a call returns once its kernels are queued there, as a
 * PyTorch operator does, and the caller's later work on the stream is
 * ordered after them. What the host reads of device memory is still read
 * after its kernels (a copy into pageable host memory waits for the
 * stream). A kernel's fault is then reported by a later call rather than
 * by its own; STC_CUDA_SYNC=1 in the environment waits again, for
 * debugging (like CUDA_LAUNCH_BLOCKING). */
void stc_cuda_set_stream_nowait(StcCudaStream stream);
void stc_cuda_clear_stream(void);

/* The mgpu* entry points and stc_gpu_tensor_map_2d/4d by name, for a JIT's
 * symbol map (stc-run registers these as it registers the
 * _mlir_ciface_stc_rt_* ones).  `*count` receives the number of entries. */
typedef struct StcCudaSymbol {
  const char *name;
  void *address;
} StcCudaSymbol;
const StcCudaSymbol *stc_cuda_mgpu_symbols(size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* STC_RUNTIME_STC_RUNTIME_CUDA_H */
