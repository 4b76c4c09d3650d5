//===- mock_spmm.cu - a CUDA C 2:4 product for harness tests -*- CUDA -*-===//
//
// A plain CUDA C 2:4 sparse x dense product, for testing the
// GPU benchmark harness only (bench/run_gpu_bench.sh build --mock).
//
// NOT part of STC and never reported as STC: it lets the launcher, the
// canonical-format code and the result checks of bench/gpu/gemm_bench.py be
// exercised on a GPU before stc-compile emits PTX. One thread per output,
// f32 accumulation, the canonical format of DESIGN.md section 3:
//   out[r][p] = sum_k A[r][k] * dense[k][p], A given as values R x K/2 and
//   meta R x K/16 (per group of 4 a nibble: first kept index in bits 1:0,
//   second in bits 3:2; group j of a word at bits 4j+3..4j).
// Parameters and launch follow stc-compile's kernel-info contract
// (passes/GpuKernelInfo.h: values, meta, dense, out, R, P, K, value_cols,
// meta_cols, the last two the row strides of values and meta); the dynamic
// shared memory it is launched with is only touched (to exercise the
// > 48 KiB opt-in path of the launcher).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

template <typename T>
__device__ float toF(T x);
template <>
__device__ float toF<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ float toF<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
template <typename T>
__device__ T fromF(float x);
template <>
__device__ __half fromF<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __nv_bfloat16 fromF<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

template <typename T>
__device__ void spmm(const T *values, const uint16_t *meta, const T *dense,
                     T *out, int R, int P, int K, int valueCols, int metaCols) {
  extern __shared__ unsigned char smem[];
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    smem[0] = 1;
  if (r >= R || p >= P)
    return;
  const T *vrow = values + (size_t)r * valueCols;
  const uint16_t *mrow = meta + (size_t)r * metaCols;
  float acc = 0.f;
  for (int w = 0; w < K / 16; ++w) {
    unsigned word = mrow[w];
    for (int j = 0; j < 4; ++j) {
      int g = 4 * w + j;
      unsigned nib = (word >> (4 * j)) & 0xF;
      int i0 = nib & 3, i1 = nib >> 2;
      acc += toF(vrow[2 * g]) * toF(dense[(size_t)(4 * g + i0) * P + p]);
      acc += toF(vrow[2 * g + 1]) * toF(dense[(size_t)(4 * g + i1) * P + p]);
    }
  }
  out[(size_t)r * P + p] = fromF<T>(acc);
}

// One entry per PTX, as stc-compile emits: -DMOCK_BF16 selects the bf16 one.
#ifndef MOCK_BF16
extern "C" __global__ void
mock_spmm_f16(const __half *values, const uint16_t *meta, const __half *dense,
              __half *out, int R, int P, int K, int valueCols, int metaCols) {
  spmm(values, meta, dense, out, R, P, K, valueCols, metaCols);
}
#else
extern "C" __global__ void mock_spmm_bf16(const __nv_bfloat16 *values,
                                          const uint16_t *meta,
                                          const __nv_bfloat16 *dense,
                                          __nv_bfloat16 *out, int R, int P,
                                          int K, int valueCols, int metaCols) {
  spmm(values, meta, dense, out, R, P, K, valueCols, metaCols);
}
#endif
