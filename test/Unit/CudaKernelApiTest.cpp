//===- CudaKernelApiTest.cpp - launching kernels from their info -*- C++
//-*-===//
//
// Unit tests of runtime/StcRuntimeCudaKernel.cpp (function attributes, the
// shared-memory opt-in, occupancy, cluster launches, tensor maps with
// options) against the fake driver of FakeCudaDriver.cpp, whose kernels
// report 128 registers and at most 512 threads per block and whose
// occupancy follows the H100's limits.  As in CudaRuntimeTest.cpp, every
// test starts from stc_cuda_reset_for_testing() with the fake selected
// through STC_CUDA_DRIVER_LIBRARY.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaTesting.h"
#include "runtime/stc_runtime_cuda.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#ifndef STC_FAKE_CUDA_DRIVER
#error "STC_FAKE_CUDA_DRIVER must name the fake driver library"
#endif

namespace {

/// A kernel with one pointer and one i32 parameter.
const char *const kPtx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	ret;
}
)";

std::string lastError() { return stc_cuda_last_error(); }

class CudaKernelApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    handle = dlopen(STC_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    setScenario = reinterpret_cast<int (*)(const char *)>(
        dlsym(handle, "stcFakeCudaSetScenario"));
    queryFn = reinterpret_cast<long long (*)(const char *)>(
        dlsym(handle, "stcFakeCudaQuery"));
    ASSERT_TRUE(setScenario && queryFn);
    const char *old = std::getenv("STC_CUDA_DRIVER_LIBRARY");
    hadEnv = old != nullptr;
    if (old)
      oldEnv = old;
  }

  void TearDown() override {
    EXPECT_EQ(query("context_depth"), 0) << "unbalanced context push/pop";
    stc_cuda_reset_for_testing();
    if (hadEnv)
      setenv("STC_CUDA_DRIVER_LIBRARY", oldEnv.c_str(), 1);
    else
      unsetenv("STC_CUDA_DRIVER_LIBRARY");
    dlclose(handle);
  }

  /// Selects a fake scenario, initializes device 0 and loads kernel `k`.
  StcCudaFunction load(const char *name = "healthy") {
    EXPECT_EQ(setScenario(name), 0) << name;
    stc_cuda_reset_for_testing();
    setenv("STC_CUDA_DRIVER_LIBRARY", STC_FAKE_CUDA_DRIVER, 1);
    StcCudaFunction fn = nullptr;
    EXPECT_EQ(stc_cuda_init(0), STC_CUDA_SUCCESS) << lastError();
    EXPECT_EQ(stc_cuda_module_load_ptx(kPtx, &module), STC_CUDA_SUCCESS)
        << lastError();
    EXPECT_EQ(stc_cuda_module_get_function(module, "k", &fn), STC_CUDA_SUCCESS)
        << lastError();
    return fn;
  }

  long long query(const char *key) {
    long long v = queryFn(key);
    EXPECT_NE(v, LLONG_MIN) << "unknown fake query key " << key;
    return v;
  }

  StcCudaModule module = nullptr;

private:
  void *handle = nullptr;
  int (*setScenario)(const char *) = nullptr;
  long long (*queryFn)(const char *) = nullptr;
  bool hadEnv = false;
  std::string oldEnv;
};

TEST_F(CudaKernelApiTest, FunctionAttributesComeFromTheDriver) {
  StcCudaFunction fn = load();
  int v = -1;
  EXPECT_EQ(stc_cuda_function_attribute(fn, STC_CUDA_FUNC_REGISTERS, &v),
            STC_CUDA_SUCCESS);
  EXPECT_EQ(v, 128);
  EXPECT_EQ(
      stc_cuda_function_attribute(fn, STC_CUDA_FUNC_MAX_THREADS_PER_BLOCK, &v),
      STC_CUDA_SUCCESS);
  EXPECT_EQ(v, 512);
  EXPECT_EQ(stc_cuda_function_attribute(fn, STC_CUDA_FUNC_LOCAL_BYTES, &v),
            STC_CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(stc_cuda_function_attribute(fn, STC_CUDA_FUNC_BINARY_VERSION, &v),
            STC_CUDA_SUCCESS);
  EXPECT_EQ(v, 90);
  EXPECT_EQ(stc_cuda_has_error(), 0) << lastError();
}

TEST_F(CudaKernelApiTest, FunctionAttributeErrorsAreNamed) {
  StcCudaFunction fn = load();
  int v = 0;
  EXPECT_EQ(stc_cuda_function_attribute(nullptr, 4, &v),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "error: stc_cuda_function_attribute: null function or value");
  stc_cuda_clear_error();
  EXPECT_EQ(stc_cuda_function_attribute(fn, 99, &v), STC_CUDA_ERROR_DRIVER);
  EXPECT_EQ(lastError(), "error: cuFuncGetAttribute(kernel 'k', attribute "
                         "99) failed: CUDA_ERROR_INVALID_VALUE (invalid "
                         "argument)");
}

TEST_F(CudaKernelApiTest, OptInBeforeOccupancyAndLaunchesKeepIt) {
  StcCudaFunction fn = load();
  int blocks = -1;
  // Not opted in: no block with 100 KiB of dynamic shared memory fits.
  EXPECT_EQ(stc_cuda_occupancy_blocks_per_sm(fn, 256, 100 * 1024, &blocks),
            STC_CUDA_SUCCESS);
  EXPECT_EQ(blocks, 0);
  EXPECT_EQ(stc_cuda_function_set_max_dynamic_shared(fn, 100 * 1024),
            STC_CUDA_SUCCESS)
      << lastError();
  EXPECT_EQ(stc_cuda_occupancy_blocks_per_sm(fn, 256, 100 * 1024, &blocks),
            STC_CUDA_SUCCESS);
  // 228 KiB / 100 KiB = 2; 64K registers / (256 x 128) = 2.
  EXPECT_EQ(blocks, 2);
  // A launch asking for less than the opt-in does not set it again (the
  // runtime knows the function is opted in), so the fake still has 100 KiB.
  const unsigned grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
  StcCudaDevicePtr p = 0;
  int n = 7;
  void *params[] = {&p, &n};
  EXPECT_EQ(stc_cuda_launch(fn, grid, block, 90 * 1024, nullptr, params),
            STC_CUDA_SUCCESS)
      << lastError();
  EXPECT_EQ(query("shared_optin"), 100 * 1024);
  EXPECT_EQ(query("shared"), 90 * 1024);
}

TEST_F(CudaKernelApiTest, OptInAboveTheDeviceLimitIsAnError) {
  StcCudaFunction fn = load();
  EXPECT_EQ(stc_cuda_function_set_max_dynamic_shared(fn, 300 * 1024),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: kernel 'k' asks for 307200 bytes of dynamic "
                         "shared memory; GPU Fake NVIDIA H100 allows at most "
                         "232448 bytes per block (its opt-in limit)");
  stc_cuda_clear_error();
  EXPECT_EQ(stc_cuda_function_set_max_dynamic_shared(nullptr, 1024),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "error: stc_cuda_function_set_max_dynamic_shared: null function");
}

TEST_F(CudaKernelApiTest, OccupancyArgumentErrors) {
  StcCudaFunction fn = load();
  int blocks = 0;
  EXPECT_EQ(stc_cuda_occupancy_blocks_per_sm(fn, 0, 0, &blocks),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: stc_cuda_occupancy_blocks_per_sm: null "
                         "function or result, or an empty block");
  stc_cuda_clear_error();
  const unsigned g[3] = {4, 4, 1}, b[3] = {128, 1, 1}, c[3] = {1, 2, 1};
  EXPECT_EQ(stc_cuda_occupancy_clusters(fn, g, b, c, 0, nullptr),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: stc_cuda_occupancy_clusters: null argument");
}

TEST_F(CudaKernelApiTest, ClusterOccupancy) {
  StcCudaFunction fn = load();
  const unsigned grid[3] = {4, 4, 1}, block[3] = {384, 1, 1},
                 cluster[3] = {1, 2, 1};
  int clusters = -1;
  EXPECT_EQ(stc_cuda_occupancy_clusters(fn, grid, block, cluster, 0, &clusters),
            STC_CUDA_SUCCESS)
      << lastError();
  EXPECT_EQ(clusters, 66); // 132 multiprocessors, two blocks a cluster
  const unsigned nine[3] = {9, 1, 1};
  EXPECT_EQ(stc_cuda_occupancy_clusters(fn, grid, block, nine, 0, &clusters),
            STC_CUDA_ERROR_DRIVER);
  EXPECT_EQ(lastError(), "error: cuOccupancyMaxActiveClusters(kernel 'k', "
                         "grid 4x4x1, block 384x1x1, cluster 9x1x1) failed: "
                         "CUDA_ERROR_INVALID_VALUE (invalid argument)");
}

TEST_F(CudaKernelApiTest, MissingKernelQueryEntryPointsAreNamed) {
  StcCudaFunction fn = load();
  int v = 0;
  ASSERT_EQ(stc_cuda_hide_driver_entry_point_for_testing("cuFuncGetAttribute"),
            0);
  EXPECT_EQ(stc_cuda_function_attribute(fn, 4, &v), STC_CUDA_ERROR_NO_DRIVER);
  EXPECT_EQ(lastError(), "error: the CUDA driver has no cuFuncGetAttribute "
                         "(kernel attributes)");
  stc_cuda_clear_error();
  ASSERT_EQ(stc_cuda_hide_driver_entry_point_for_testing(
                "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
            0);
  EXPECT_EQ(stc_cuda_occupancy_blocks_per_sm(fn, 32, 0, &v),
            STC_CUDA_ERROR_NO_DRIVER);
  EXPECT_EQ(lastError(), "error: the CUDA driver has no "
                         "cuOccupancyMaxActiveBlocksPerMultiprocessor "
                         "(occupancy queries)");
  stc_cuda_clear_error();
  ASSERT_EQ(stc_cuda_hide_driver_entry_point_for_testing(
                "cuOccupancyMaxActiveClusters"),
            0);
  const unsigned one[3] = {1, 1, 1};
  EXPECT_EQ(stc_cuda_occupancy_clusters(fn, one, one, one, 0, &v),
            STC_CUDA_ERROR_NO_DRIVER);
  EXPECT_EQ(lastError(), "error: the CUDA driver has no "
                         "cuOccupancyMaxActiveClusters (cluster queries need "
                         "a CUDA 12.0 or later driver)");
}

TEST_F(CudaKernelApiTest, ClusterLaunchReachesLaunchKernelEx) {
  StcCudaFunction fn = load();
  const unsigned grid[3] = {3, 4, 1}, block[3] = {384, 1, 1},
                 cluster[3] = {1, 2, 1};
  StcCudaDevicePtr p = 0x1000;
  int n = 5;
  void *params[] = {&p, &n};
  EXPECT_EQ(
      stc_cuda_launch_cluster(fn, grid, block, cluster, 4096, nullptr, params),
      STC_CUDA_SUCCESS)
      << lastError();
  EXPECT_EQ(query("launches"), 1);
  EXPECT_EQ(query("grid.x"), 3);
  EXPECT_EQ(query("grid.y"), 4);
  EXPECT_EQ(query("cluster.x"), 1);
  EXPECT_EQ(query("cluster.y"), 2);
  EXPECT_EQ(query("cluster.z"), 1);
  EXPECT_EQ(query("shared"), 4096);
  EXPECT_EQ(query("param_bytes"), 12);
}

TEST_F(CudaKernelApiTest, ClusterLaunchErrorsAreNamed) {
  StcCudaFunction fn = load();
  const unsigned grid[3] = {3, 3, 1}, block[3] = {128, 1, 1},
                 cluster[3] = {1, 2, 1};
  EXPECT_EQ(
      stc_cuda_launch_cluster(fn, grid, block, nullptr, 0, nullptr, nullptr),
      STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: stc_cuda_launch_cluster: null function, "
                         "grid, block or cluster");
  stc_cuda_clear_error();
  EXPECT_EQ(
      stc_cuda_launch_cluster(fn, grid, block, cluster, 0, nullptr, nullptr),
      STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "error: cuLaunchKernelEx(kernel 'k', grid 3x3x1, block 128x1x1, "
            "cluster 1x2x1, 0 bytes of dynamic shared memory): the grid is "
            "not a whole number of clusters (grid y = 3 is not a multiple of "
            "cluster y = 2)");
  EXPECT_EQ(query("launches"), 0);
}

TEST_F(CudaKernelApiTest, TensorMapOptionsReachTheDriver) {
  load();
  alignas(64) StcCudaTensorMap map;
  // An NHWC input 2 x 8 x 8 x 64 f16, read in boxes 1 x 4 x 8 x 64 taking
  // every second pixel: what a stride-2 convolution's kernel asks for.
  const uint64_t dims[4] = {2, 8, 8, 64};
  const uint64_t strides[3] = {8 * 8 * 64 * 2, 8 * 64 * 2, 64 * 2};
  const uint32_t box[4] = {1, 4, 8, 64}, steps[4] = {1, 2, 2, 1};
  StcCudaTensorMapOptions options = {steps, STC_CUDA_L2_PROMOTION_128B};
  EXPECT_EQ(stc_cuda_tensor_map_encode_tiled_ex(
                &map, STC_CUDA_TENSOR_F16, 4, 0x10000, dims, strides, box,
                STC_CUDA_SWIZZLE_128B, &options),
            STC_CUDA_SUCCESS)
      << lastError();
  // Innermost first, as the driver takes them.
  EXPECT_EQ(query("tensor_map.dim0"), 64);
  EXPECT_EQ(query("tensor_map.dim3"), 2);
  EXPECT_EQ(query("tensor_map.stride1"), 128);
  EXPECT_EQ(query("tensor_map.box1"), 8);
  EXPECT_EQ(query("tensor_map.element_stride0"), 1);
  EXPECT_EQ(query("tensor_map.element_stride1"), 2);
  EXPECT_EQ(query("tensor_map.element_stride2"), 2);
  EXPECT_EQ(query("tensor_map.element_stride3"), 1);
  EXPECT_EQ(query("tensor_map.l2_promotion"), 2);
  EXPECT_EQ(query("tensor_map.interleave"), 0);
  EXPECT_EQ(query("tensor_map.oob_fill"), 0);
  // Without options: as the plain encoder (unit steps, no promotion).
  EXPECT_EQ(stc_cuda_tensor_map_encode_tiled_ex(&map, STC_CUDA_TENSOR_F16, 4,
                                                0x10000, dims, strides, box,
                                                STC_CUDA_SWIZZLE_128B, nullptr),
            STC_CUDA_SUCCESS);
  EXPECT_EQ(query("tensor_map.element_stride1"), 1);
  EXPECT_EQ(query("tensor_map.l2_promotion"), 0);
}

TEST_F(CudaKernelApiTest, TensorMapOptionErrorsAreNamed) {
  load();
  alignas(64) StcCudaTensorMap map;
  const uint64_t dims[2] = {64, 64}, strides[1] = {128};
  const uint32_t box[2] = {8, 64}, steps[2] = {9, 1};
  StcCudaTensorMapOptions options = {steps, STC_CUDA_L2_PROMOTION_128B};
  EXPECT_EQ(stc_cuda_tensor_map_encode_tiled_ex(&map, STC_CUDA_TENSOR_F16, 2,
                                                0x10000, dims, strides, box, 0,
                                                &options),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: tensor map: the element stride of dimension "
                         "0 is 9, must be 1 to 8");
  stc_cuda_clear_error();
  options = {nullptr, 7};
  EXPECT_EQ(stc_cuda_tensor_map_encode_tiled_ex(&map, STC_CUDA_TENSOR_F16, 2,
                                                0x10000, dims, strides, box, 0,
                                                &options),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "error: tensor map: unknown L2 promotion 7");
  stc_cuda_clear_error();
  EXPECT_EQ(stc_cuda_tensor_map_encode_tiled_ex(nullptr, STC_CUDA_TENSOR_F16, 2,
                                                0x10000, dims, strides, box, 0,
                                                &options),
            STC_CUDA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "error: stc_cuda_tensor_map_encode_tiled_ex: null map");
}

TEST_F(CudaKernelApiTest, CallsBeforeInitAreErrors) {
  EXPECT_EQ(setenv("STC_CUDA_DRIVER_LIBRARY", STC_FAKE_CUDA_DRIVER, 1), 0);
  stc_cuda_reset_for_testing();
  int v = 0;
  EXPECT_EQ(stc_cuda_function_attribute(nullptr, 4, &v),
            STC_CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(lastError(), "error: stc_cuda_function_attribute called before "
                         "stc_cuda_init");
}

} // namespace
