/*===- fake_libcuda.c - a stand-in libcuda for the self test --*- C -*-===
 *
 * Implements the few CUDA driver entry points that bench/gpu/cudrv.py calls,
 * with no GPU, so that the self test can check the ctypes plumbing on the
 * build machine: argument types, the JIT log options of cuModuleLoadDataEx,
 * error names, and above all the kernel parameter array of cuLaunchKernel
 * (the launch records every parameter's bytes, read back with
 * fake_param_u64). For the sm_90a kernels also cuTensorMapEncodeTiled,
 * cuMemAlloc/cuMemcpyHtoD/cuMemFree (a small fake device memory that the
 * test reads back), cuLaunchKernelEx with its cluster attribute,
 * cuOccupancyMaxActiveClusters and the function attributes set, each
 * recording what it was called with (the fake_* accessors). Test-only;
 * never used on the GPU machine.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;

static int paramSizes[64];
static int numParams;
static uint64_t params[64];
static unsigned launchConfig[8]; /* grid xyz, block xyz, shared, launches
                                    through cuLaunchKernel */
static int dynSharedSet = -1;
static unsigned exLaunches; /* launches through cuLaunchKernelEx */

void fake_set_param_sizes(int n, const int *sizes) {
  numParams = n;
  for (int i = 0; i < n && i < 64; ++i)
    paramSizes[i] = sizes[i];
}
uint64_t fake_param_u64(int i) { return params[i]; }
unsigned fake_launch_config(int i) { return launchConfig[i]; }
int fake_dyn_shared(void) { return dynSharedSet; }

CUresult cuGetErrorName(CUresult e, const char **s) {
  switch (e) {
  case 218:
    *s = "CUDA_ERROR_INVALID_PTX";
    return 0;
  case 500:
    *s = "CUDA_ERROR_NOT_FOUND";
    return 0;
  case 1:
    *s = "CUDA_ERROR_INVALID_VALUE";
    return 0;
  default:
    return 1;
  }
}
CUresult cuGetErrorString(CUresult e, const char **s) {
  switch (e) {
  case 218:
    *s = "a PTX JIT compilation failed";
    return 0;
  case 500:
    *s = "named symbol not found";
    return 0;
  case 1:
    *s = "invalid argument";
    return 0;
  default:
    return 1;
  }
}
CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}
CUresult cuCtxGetCurrent(void **ctx) {
  *ctx = (void *)0x1234;
  return 0;
}
CUresult cuCtxGetDevice(int *dev) {
  *dev = 0;
  return 0;
}
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuDeviceGetAttribute(int *pi, int attrib, int dev) {
  /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: an H100's 227 KiB. */
  *pi = attrib == 97 ? 227 * 1024 : attrib * 10 + dev;
  return 0;
}
/* options: 5 = error log buffer, 6 = its size (value in the pointer),
 * 3/4 = info log; "JIT_FAIL" in the PTX fails with a log. */
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                            int *options, void **values) {
  const char *ptx = (const char *)image;
  char *err = NULL, *info = NULL;
  size_t errSize = 0, infoSize = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (options[i] == 5)
      err = (char *)values[i];
    if (options[i] == 6)
      errSize = (size_t)(uintptr_t)values[i];
    if (options[i] == 3)
      info = (char *)values[i];
    if (options[i] == 4)
      infoSize = (size_t)(uintptr_t)values[i];
  }
  if (!strstr(ptx, ".entry"))
    return 218;
  if (strstr(ptx, "JIT_FAIL")) {
    if (err && errSize > 40)
      strcpy(err, "ptxas fatal   : simulated JIT failure");
    return 218;
  }
  if (info && infoSize > 40)
    strcpy(info, "info    : simulated JIT log");
  *module = (void *)0x5678;
  return 0;
}
CUresult cuModuleUnload(void *m) { return m == (void *)0x5678 ? 0 : 1; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  if (m != (void *)0x5678 || strcmp(name, "missing") == 0)
    return 500;
  *f = (void *)0x9abc;
  return 0;
}
CUresult cuFuncGetAttribute(int *pi, int attrib, void *f) {
  *pi = attrib == 0 ? 1024 : attrib + 1;
  return f == (void *)0x9abc ? 0 : 1;
}
static int funcAttrs[32];
static int funcAttrSet[32];

CUresult cuFuncSetAttribute(void *f, int attrib, int value) {
  if (attrib == 8)
    dynSharedSet = value;
  if (attrib >= 0 && attrib < 32) {
    funcAttrs[attrib] = value;
    funcAttrSet[attrib] = 1;
  }
  return f == (void *)0x9abc ? 0 : 1;
}
/* The value function attribute `attrib` was last set to, or -1. */
int fake_func_attr(int attrib) {
  return attrib >= 0 && attrib < 32 && funcAttrSet[attrib] ? funcAttrs[attrib]
                                                           : -1;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f,
                                                     int threads,
                                                     size_t shared) {
  *n = threads <= 1024 && shared <= 227 * 1024 ? 2 : 0;
  return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **kernelParams, void **extra) {
  if (f != (void *)0x9abc || extra != NULL || stream != NULL)
    return 1;
  unsigned cfg[7] = {gx, gy, gz, bx, by, bz, shared};
  memcpy(launchConfig, cfg, sizeof(cfg));
  launchConfig[7]++;
  for (int i = 0; i < numParams; ++i) {
    params[i] = 0;
    memcpy(&params[i], kernelParams[i], (size_t)paramSizes[i]);
  }
  return 0;
}

/*===- sm_90a: tensor maps, device memory, cluster launches ---------------===*/

/* cuTensorMapEncodeTiled: records its arguments (fake_map_*) and writes a
 * recognisable 128-byte map: "FAKETMAP", then the address, the two
 * innermost dims, the first stride, box[0] | box[1] << 32 and the swizzle,
 * as little-endian 64-bit words. Refuses a map buffer that is not 64-byte
 * aligned, as the driver documents. */
static struct {
  int calls;
  int dataType;
  unsigned rank;
  uint64_t address;
  uint64_t dims[5], strides[4];
  unsigned box[5], elementStrides[5];
  int interleave, swizzle, l2Promotion, oobFill;
} lastMap;

CUresult cuTensorMapEncodeTiled(void *map, int dataType, unsigned rank,
                                void *address, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  if (((uintptr_t)map & 63) != 0 || rank < 1 || rank > 5)
    return 1;
  lastMap.calls++;
  lastMap.dataType = dataType;
  lastMap.rank = rank;
  lastMap.address = (uint64_t)(uintptr_t)address;
  for (unsigned i = 0; i < rank; ++i) {
    lastMap.dims[i] = dims[i];
    lastMap.box[i] = box[i];
    lastMap.elementStrides[i] = elementStrides[i];
    if (i + 1 < rank)
      lastMap.strides[i] = strides[i];
  }
  lastMap.interleave = interleave;
  lastMap.swizzle = swizzle;
  lastMap.l2Promotion = l2Promotion;
  lastMap.oobFill = oobFill;
  uint64_t words[16] = {0};
  memcpy(&words[0], "FAKETMAP", 8);
  words[1] = lastMap.address;
  words[2] = dims[0];
  words[3] = rank > 1 ? dims[1] : 0;
  words[4] = rank > 1 ? strides[0] : 0;
  words[5] = (uint64_t)box[0] | ((uint64_t)(rank > 1 ? box[1] : 0) << 32);
  words[6] = (uint64_t)swizzle;
  memcpy(map, words, sizeof(words));
  return 0;
}
int fake_map_calls(void) { return lastMap.calls; }
/* what: 0 data type, 1 rank, 2 interleave, 3 swizzle, 4 L2 promotion,
 * 5 OOB fill; 10+i dims[i], 20+i strides[i], 30+i box[i], 40+i element
 * strides[i]; 50 address. */
uint64_t fake_map_arg(int what) {
  switch (what) {
  case 0:
    return (uint64_t)lastMap.dataType;
  case 1:
    return lastMap.rank;
  case 2:
    return (uint64_t)lastMap.interleave;
  case 3:
    return (uint64_t)lastMap.swizzle;
  case 4:
    return (uint64_t)lastMap.l2Promotion;
  case 5:
    return (uint64_t)lastMap.oobFill;
  case 50:
    return lastMap.address;
  }
  if (what >= 10 && what < 15)
    return lastMap.dims[what - 10];
  if (what >= 20 && what < 24)
    return lastMap.strides[what - 20];
  if (what >= 30 && what < 35)
    return lastMap.box[what - 30];
  if (what >= 40 && what < 45)
    return lastMap.elementStrides[what - 40];
  return ~(uint64_t)0;
}

/* Device memory: a 64 KiB pool at FAKE_DEVICE_BASE, 256-byte granules. */
#define FAKE_DEVICE_BASE 0x7e0000000000ull
static unsigned char deviceMem[1 << 16];
static size_t deviceUsed;
static int allocs, frees, copies;

CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
  size_t size = (n + 255) & ~(size_t)255;
  if (n == 0 || deviceUsed + size > sizeof(deviceMem))
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *p = FAKE_DEVICE_BASE + deviceUsed;
  deviceUsed += size;
  allocs++;
  return 0;
}
CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) {
  if (dst < FAKE_DEVICE_BASE || dst - FAKE_DEVICE_BASE + n > deviceUsed)
    return 1;
  memcpy(deviceMem + (dst - FAKE_DEVICE_BASE), src, n);
  copies++;
  return 0;
}
CUresult cuMemFree_v2(uint64_t p) {
  if (p < FAKE_DEVICE_BASE || p >= FAKE_DEVICE_BASE + deviceUsed)
    return 1;
  frees++;
  return 0;
}
/* Copies n bytes of fake device memory at addr to out; 0 on success. */
int fake_device_read(uint64_t addr, void *out, size_t n) {
  if (addr < FAKE_DEVICE_BASE || addr - FAKE_DEVICE_BASE + n > deviceUsed)
    return 1;
  memcpy(out, deviceMem + (addr - FAKE_DEVICE_BASE), n);
  return 0;
}
/* 0 allocations, 1 frees, 2 host-to-device copies. */
int fake_mem_count(int what) {
  return what == 0 ? allocs : what == 1 ? frees : copies;
}

/* cuLaunchKernelEx's configuration, laid out as cuda.h's (CUDA 12+). */
typedef struct {
  int id;
  char pad[4];
  union {
    char bytes[64];
    uint64_t align;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
} FakeLaunchAttribute;
typedef struct {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  FakeLaunchAttribute *attrs;
  unsigned numAttrs;
} FakeLaunchConfig;

static unsigned exConfig[12];      /* grid, block, shared, numAttrs, attr id,
                                      cluster xyz, launches */
static unsigned queriedCluster[4]; /* cluster xyz, queries */

static int clusterOf(const FakeLaunchConfig *c, unsigned out[3]) {
  for (unsigned i = 0; i < c->numAttrs; ++i)
    if (c->attrs[i].id == 4) {
      out[0] = c->attrs[i].value.clusterDim.x;
      out[1] = c->attrs[i].value.clusterDim.y;
      out[2] = c->attrs[i].value.clusterDim.z;
      return 1;
    }
  return 0;
}

CUresult cuLaunchKernelEx(const FakeLaunchConfig *config, void *f,
                          void **kernelParams, void **extra) {
  if (f != (void *)0x9abc || extra != NULL || config->hStream != NULL)
    return 1;
  unsigned cluster[3] = {0, 0, 0};
  if (!clusterOf(config, cluster))
    return 1;
  unsigned cfg[11] = {config->gridDimX,
                      config->gridDimY,
                      config->gridDimZ,
                      config->blockDimX,
                      config->blockDimY,
                      config->blockDimZ,
                      config->sharedMemBytes,
                      config->numAttrs,
                      (unsigned)config->attrs[0].id,
                      cluster[0],
                      cluster[1]};
  memcpy(exConfig, cfg, sizeof(cfg));
  exConfig[11] = cluster[2];
  for (int i = 0; i < numParams; ++i) {
    params[i] = 0;
    memcpy(&params[i], kernelParams[i], (size_t)paramSizes[i]);
  }
  exLaunches++;
  return 0;
}
/* 0..10: grid xyz, block xyz, shared, numAttrs, first attribute id,
 * cluster x, y; 11: cluster z; 12: cuLaunchKernelEx launches. */
unsigned fake_launch_ex_config(int i) {
  return i == 12 ? exLaunches : exConfig[i];
}

/* Clusters of up to 8 blocks, or 16 with the non-portable opt-in (function
 * attribute 14): 4 fit at once; larger ones none. */
CUresult cuOccupancyMaxActiveClusters(int *n, void *f,
                                      const FakeLaunchConfig *config) {
  unsigned c[3] = {1, 1, 1};
  if (f != (void *)0x9abc)
    return 1;
  clusterOf(config, c);
  memcpy(queriedCluster, c, sizeof(c));
  queriedCluster[3]++;
  unsigned blocks = c[0] * c[1] * c[2];
  *n = blocks <= 8 || (blocks <= 16 && fake_func_attr(14) == 1) ? 4 : 0;
  return 0;
}
/* 0..2: the cluster of the last cuOccupancyMaxActiveClusters, 3: calls. */
unsigned fake_cluster_query(int i) { return queriedCluster[i]; }
