//===- StcRuntimeCudaKernel.cpp - launching kernels from their info -*- C++
//-*-===//
//
// The explicit-API calls a program needs to launch stc-compile's PTX
// kernels itself, from their `--kernel-info` (bench/gpu does, through
// ctypes): function attributes, the dynamic shared memory opt-in, occupancy
// of blocks and of thread-block clusters, cluster launches, and tensor maps
// with traversal strides and L2 promotion as stc-compile's host code encodes
// them.  Each is an ApiCall (runtime/cuda/ApiCall.h): same context handling
// and error record as the rest of stc_runtime_cuda.h.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/ApiCall.h"
#include "runtime/cuda/CudaDriver.h"
#include "runtime/stc_runtime_cuda.h"

#include <string>

using namespace stc::cuda;

namespace {

/// "x*y*z" for messages.
std::string dims3(const unsigned v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" +
         std::to_string(v[2]);
}

/// Fails `call` unless the driver has the optional entry point `fn`.
template <typename Fn>
bool haveEntryPoint(ApiCall &call, Fn fn, const char *name, const char *why) {
  if (fn)
    return true;
  call.fail(STC_CUDA_ERROR_NO_DRIVER,
            std::string("the CUDA driver has no ") + name + " (" + why + ")");
  return false;
}

} // namespace

int stc_cuda_function_attribute(StcCudaFunction function, int attribute,
                                int *value) {
  ApiCall call("stc_cuda_function_attribute");
  if (!call.ready())
    return call.status();
  if (!function || !value)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_function_attribute: null function or value");
  CudaDriver &drv = call.driver();
  if (!haveEntryPoint(call, drv.cuFuncGetAttribute, "cuFuncGetAttribute",
                      "kernel attributes"))
    return call.status();
  auto fn = reinterpret_cast<CUfunction>(function);
  call.check(drv.cuFuncGetAttribute(value, attribute, fn),
             "cuFuncGetAttribute(kernel '" + call.kernelName(fn) +
                 "', attribute " + std::to_string(attribute) + ")");
  return call.status();
}

int stc_cuda_function_set_max_dynamic_shared(StcCudaFunction function,
                                             unsigned bytes) {
  ApiCall call("stc_cuda_function_set_max_dynamic_shared");
  if (!call.ready())
    return call.status();
  if (!function)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_function_set_max_dynamic_shared: null function");
  auto fn = reinterpret_cast<CUfunction>(function);
  const DeviceProperties &p = call.props();
  if (int64_t(bytes) > int64_t(p.maxSharedPerBlockOptin))
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "kernel '" + call.kernelName(fn) + "' asks for " +
                         std::to_string(bytes) +
                         " bytes of dynamic shared memory; GPU " + p.name +
                         " allows at most " +
                         std::to_string(p.maxSharedPerBlockOptin) +
                         " bytes per block (its opt-in limit)");
  if (call.check(call.driver().cuFuncSetAttribute(
                     fn, kFuncAttrMaxDynamicSharedSizeBytes, int(bytes)),
                 "cuFuncSetAttribute(kernel '" + call.kernelName(fn) +
                     "', MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
                     std::to_string(bytes) + ")"))
    call.noteSharedOptIn(fn, bytes);
  return call.status();
}

int stc_cuda_occupancy_blocks_per_sm(StcCudaFunction function,
                                     unsigned blockThreads, size_t sharedBytes,
                                     int *blocks) {
  ApiCall call("stc_cuda_occupancy_blocks_per_sm");
  if (!call.ready())
    return call.status();
  if (!function || !blocks || blockThreads == 0)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_occupancy_blocks_per_sm: null function or "
                     "result, or an empty block");
  CudaDriver &drv = call.driver();
  if (!haveEntryPoint(call, drv.cuOccupancyMaxActiveBlocksPerMultiprocessor,
                      "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                      "occupancy queries"))
    return call.status();
  auto fn = reinterpret_cast<CUfunction>(function);
  call.check(drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                 blocks, fn, int(blockThreads), sharedBytes),
             "cuOccupancyMaxActiveBlocksPerMultiprocessor(kernel '" +
                 call.kernelName(fn) + "', " + std::to_string(blockThreads) +
                 " threads, " + std::to_string(sharedBytes) +
                 " bytes of dynamic shared memory)");
  return call.status();
}

int stc_cuda_occupancy_clusters(StcCudaFunction function,
                                const unsigned grid[3], const unsigned block[3],
                                const unsigned cluster[3], unsigned sharedBytes,
                                int *clusters) {
  ApiCall call("stc_cuda_occupancy_clusters");
  if (!call.ready())
    return call.status();
  if (!function || !grid || !block || !cluster || !clusters)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_occupancy_clusters: null argument");
  CudaDriver &drv = call.driver();
  if (!haveEntryPoint(call, drv.cuOccupancyMaxActiveClusters,
                      "cuOccupancyMaxActiveClusters",
                      "cluster queries need a CUDA 12.0 or later driver"))
    return call.status();
  CUlaunchAttribute attr;
  CUlaunchConfig config =
      clusterLaunchConfig(grid, block, cluster, sharedBytes, nullptr, attr);
  auto fn = reinterpret_cast<CUfunction>(function);
  call.check(drv.cuOccupancyMaxActiveClusters(clusters, fn, &config),
             "cuOccupancyMaxActiveClusters(kernel '" + call.kernelName(fn) +
                 "', grid " + dims3(grid) + ", block " + dims3(block) +
                 ", cluster " + dims3(cluster) + ")");
  return call.status();
}

int stc_cuda_launch_cluster(StcCudaFunction function, const unsigned grid[3],
                            const unsigned block[3], const unsigned cluster[3],
                            unsigned sharedBytes, StcCudaStream stream,
                            void **params) {
  ApiCall call("stc_cuda_launch_cluster");
  if (!call.ready())
    return call.status();
  if (!function || !grid || !block || !cluster)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_launch_cluster: null function, grid, block or "
                     "cluster");
  call.launch(reinterpret_cast<CUfunction>(function), grid, block, sharedBytes,
              reinterpret_cast<CUstream>(stream), params, cluster);
  return call.status();
}

int stc_cuda_tensor_map_encode_tiled_ex(
    StcCudaTensorMap *map, int dataType, int rank, StcCudaDevicePtr address,
    const uint64_t *dims, const uint64_t *stridesBytes, const uint32_t *box,
    int swizzle, const StcCudaTensorMapOptions *options) {
  ApiCall call("stc_cuda_tensor_map_encode_tiled_ex");
  if (!call.ready())
    return call.status();
  if (!map)
    return call.fail(STC_CUDA_ERROR_INVALID_ARGUMENT,
                     "stc_cuda_tensor_map_encode_tiled_ex: null map");
  call.encodeTensorMap(
      map->bytes, dataType, rank, address, dims, stridesBytes, box, swizzle,
      options ? options->l2_promotion : STC_CUDA_L2_PROMOTION_NONE,
      options ? options->element_strides : nullptr);
  return call.status();
}
