/*===- fake_libcuda.c - a stand-in libcuda for the self test --*- C -*-===
 *
 * Implements the few CUDA driver entry points that bench/gpu/cudrv.py calls,
 * with no GPU, so that the self test can check the ctypes plumbing on the
 * build machine: argument types, the JIT log options of cuModuleLoadDataEx,
 * error names, and above all the kernel parameter array of cuLaunchKernel
 * (the launch records every parameter's bytes, read back with
 * fake_param_u64). Test-only; never used on the GPU machine.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int CUresult;

static int paramSizes[64];
static int numParams;
static uint64_t params[64];
static unsigned launchConfig[8]; /* grid xyz, block xyz, shared, launches */
static int dynSharedSet = -1;

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
  *pi = attrib * 10 + dev;
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
CUresult cuFuncSetAttribute(void *f, int attrib, int value) {
  if (attrib == 8)
    dynSharedSet = value;
  return f == (void *)0x9abc ? 0 : 1;
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
