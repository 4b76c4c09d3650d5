//===- StcRuntimeCuda.cpp - the explicit CUDA C API -------------*- C++ -*-===//
//
// The explicit stc_cuda_* functions of stc_runtime_cuda.h that launchers and
// benchmarks call: device selection and information, modules, memory,
// streams, launches and tiled tensor maps.  Each is a Call of kind Api
// (runtime/cuda/Call.h): it needs a prior stc_cuda_init, runs even while an
// error is recorded, and returns its status.  The rest of the C API lives
// beside it: StcRuntimeCudaKernel.cpp (kernel attributes, occupancy, cluster
// launches), runtime/cuda/MgpuEntryPoints.cpp (the mgpu* entry points of
// MLIR's gpu-to-llvm lowering), runtime/cuda/TensorMaps.cpp (tensor maps for
// generated code) and runtime/cuda/Call.cpp (the error record).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Call.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/cuda/Launch.h"
#include "runtime/cuda/TensorMaps.h"
#include "runtime/stc_runtime_cuda.h"

#include <cstring>
#include <string>

using namespace stc::cuda;

//===----------------------------------------------------------------------===//
// Explicit API
//===----------------------------------------------------------------------===//

int stc_cuda_init(int device) {
  Status s = selectDevice(device);
  return s.ok() ? STC_CUDA_SUCCESS : recordError(s.code, s.message);
}

int stc_cuda_device_info(StcCudaDeviceInfo *info) {
  Call call(Call::Api, "stc_cuda_device_info");
  if (!call.ready())
    return call.status();
  if (!info)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_device_info: `info` is null");
  const DeviceProperties &p = call.props();
  std::memset(info, 0, sizeof(*info));
  info->ordinal = p.ordinal;
  info->sm_major = p.smMajor;
  info->sm_minor = p.smMinor;
  info->sm = 10 * p.smMajor + p.smMinor;
  info->driver_version = call.driver().driverVersion();
  info->max_shared_bytes_per_block = p.maxSharedPerBlockOptin;
  std::strncpy(info->name, p.name.c_str(), sizeof(info->name) - 1);
  return STC_CUDA_SUCCESS;
}

int stc_cuda_module_load_ptx(const char *ptx, StcCudaModule *module) {
  Call call(Call::Api, "stc_cuda_module_load_ptx");
  if (!call.ready())
    return call.status();
  if (!ptx || !module)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_load_ptx: null argument");
  *module = reinterpret_cast<StcCudaModule>(
      loadModule(call, ptx, /*isPtx=*/true, /*optLevel=*/-1, "PTX"));
  return call.status();
}

int stc_cuda_module_load_cubin(const void *image, size_t size,
                               StcCudaModule *module) {
  Call call(Call::Api, "stc_cuda_module_load_cubin");
  if (!call.ready())
    return call.status();
  if (!image || !size || !module)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_load_cubin: null or empty image");
  *module = reinterpret_cast<StcCudaModule>(
      loadModule(call, image, /*isPtx=*/false, -1,
                 "cubin of " + std::to_string(size) + " bytes"));
  return call.status();
}

int stc_cuda_module_unload(StcCudaModule module) {
  if (!module)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_module_unload");
  if (call.ready())
    unloadModule(call, reinterpret_cast<CUmodule>(module));
  return call.status();
}

int stc_cuda_module_get_function(StcCudaModule module, const char *name,
                                 StcCudaFunction *function) {
  Call call(Call::Api, "stc_cuda_module_get_function");
  if (!call.ready())
    return call.status();
  if (!module || !name || !function)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_module_get_function: null argument");
  *function = reinterpret_cast<StcCudaFunction>(
      getFunction(call, reinterpret_cast<CUmodule>(module), name));
  return call.status();
}

int stc_cuda_tensor_map_encode_tiled(StcCudaTensorMap *map, int dataType,
                                     int rank, StcCudaDevicePtr address,
                                     const uint64_t *dims,
                                     const uint64_t *stridesBytes,
                                     const uint32_t *box, int swizzle) {
  Call call(Call::Api, "stc_cuda_tensor_map_encode_tiled");
  if (!call.ready())
    return call.status();
  if (!map)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_tensor_map_encode_tiled: null map");
  if (!encodeTensorMap(call, map->bytes, dataType, rank, address, dims,
                       stridesBytes, box, swizzle))
    return call.status();
  return STC_CUDA_SUCCESS;
}

int stc_cuda_mem_alloc(size_t bytes, StcCudaDevicePtr *ptr) {
  Call call(Call::Api, "stc_cuda_mem_alloc");
  if (!call.ready())
    return call.status();
  if (!ptr)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_mem_alloc: `ptr` is null");
  *ptr = 0;
  if (bytes == 0)
    return STC_CUDA_SUCCESS;
  CUdeviceptr p = 0;
  if (call.check(call.driver().cuMemAlloc(&p, bytes),
                 "cuMemAlloc(" + std::to_string(bytes) + " bytes)"))
    *ptr = p;
  return call.status();
}

int stc_cuda_mem_free(StcCudaDevicePtr ptr) {
  if (!ptr)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_mem_free");
  if (call.ready())
    call.check(call.driver().cuMemFree(ptr), "cuMemFree");
  return call.status();
}

int stc_cuda_memcpy_htod(StcCudaDevicePtr dst, const void *src, size_t bytes) {
  Call call(Call::Api, "stc_cuda_memcpy_htod");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemcpyHtoD(dst, src, bytes),
             "cuMemcpyHtoD(" + std::to_string(bytes) + " bytes)");
  return call.status();
}

int stc_cuda_memcpy_dtoh(void *dst, StcCudaDevicePtr src, size_t bytes) {
  Call call(Call::Api, "stc_cuda_memcpy_dtoh");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemcpyDtoH(dst, src, bytes),
             "cuMemcpyDtoH(" + std::to_string(bytes) + " bytes)",
             /*category=*/-1, lastKernelHint());
  return call.status();
}

int stc_cuda_memset_d8(StcCudaDevicePtr dst, unsigned char value,
                       size_t bytes) {
  Call call(Call::Api, "stc_cuda_memset_d8");
  if (!call.ready() || bytes == 0)
    return call.status();
  call.check(call.driver().cuMemsetD8(dst, value, bytes),
             "cuMemsetD8(" + std::to_string(bytes) + " bytes)");
  return call.status();
}

int stc_cuda_stream_create(StcCudaStream *stream) {
  Call call(Call::Api, "stc_cuda_stream_create");
  if (!call.ready())
    return call.status();
  if (!stream)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_stream_create: `stream` is null");
  CUstream s = nullptr;
  *stream = nullptr;
  if (call.check(call.driver().cuStreamCreate(&s, kStreamNonBlocking),
                 "cuStreamCreate"))
    *stream = reinterpret_cast<StcCudaStream>(s);
  return call.status();
}

int stc_cuda_stream_destroy(StcCudaStream stream) {
  if (!stream)
    return STC_CUDA_SUCCESS;
  Call call(Call::Api, "stc_cuda_stream_destroy");
  if (call.ready())
    call.check(
        call.driver().cuStreamDestroy(reinterpret_cast<CUstream>(stream)),
        "cuStreamDestroy");
  return call.status();
}

int stc_cuda_launch(StcCudaFunction function, const unsigned grid[3],
                    const unsigned block[3], unsigned sharedBytes,
                    StcCudaStream stream, void **params) {
  Call call(Call::Api, "stc_cuda_launch");
  if (!call.ready())
    return call.status();
  if (!function || !grid || !block)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_launch: null function, grid or block");
  launch(call, reinterpret_cast<CUfunction>(function), grid, block, sharedBytes,
         reinterpret_cast<CUstream>(stream), params,
         /*extra=*/nullptr, /*cluster=*/nullptr);
  return call.status();
}

int stc_cuda_synchronize(StcCudaStream stream) {
  Call call(Call::Api, "stc_cuda_synchronize");
  if (!call.ready())
    return call.status();
  CudaDriver &drv = call.driver();
  if (stream)
    call.check(drv.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)),
               "cuStreamSynchronize", -1, lastKernelHint());
  else
    call.check(drv.cuCtxSynchronize(), "cuCtxSynchronize", -1,
               lastKernelHint());
  return call.status();
}
