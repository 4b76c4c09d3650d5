//===- mock_spmm.cu - a CUDA C 2:4 product for harness tests -*- CUDA -*-===//
//
// A plain CUDA C 2:4 sparse x dense product, for testing the
// GPU benchmark harness only (bench/run_gpu_bench.sh build --mock).
//
// NOT part of STC and never reported as STC: it lets the launcher, the
// canonical-format code and the result checks of bench/gpu/gemm_bench.py be
// exercised on a GPU before stc-compile emits PTX. One thread per output,
// f32 accumulation (i8: exact s32), the canonical format of
// docs/DESIGN.md §3:
//   out[r][p] = sum_k A[r][k] * dense[k][p], A given as values R x K/2 and
//   meta R x K/16 (per group of 4 a nibble: first kept index in bits 1:0,
//   second in bits 3:2; group j of a word at bits 4j+3..4j); the i8 entry
//   reads dense transposed, P x K (dense[p][k]), as the benchmark's i8
//   programs give it (dense_transposed).
// Parameters and launch follow stc-compile's kernel-info contract
// (passes/GpuKernelInfo.h: values, meta, dense, out, R, P, K, value_cols,
// meta_cols, the last two the row strides of values and meta); the dynamic
// shared memory it is launched with is only touched (to exercise the
// > 48 KiB opt-in path of the launcher).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// Per input type: the output type, the accumulator, and the conversions.
template <typename T>
struct Elem;
template <>
struct Elem<__half> {
  using Acc = float;
  using Out = __half;
  static __device__ float in(__half x) { return __half2float(x); }
  static __device__ __half out(float a) { return __float2half_rn(a); }
};
template <>
struct Elem<__nv_bfloat16> {
  using Acc = float;
  using Out = __nv_bfloat16;
  static __device__ float in(__nv_bfloat16 x) { return __bfloat162float(x); }
  static __device__ __nv_bfloat16 out(float a) {
    return __float2bfloat16_rn(a);
  }
};
template <>
struct Elem<int8_t> {
  using Acc = int32_t; // exact: the benchmark's i8 products fit in s32
  using Out = int32_t;
  static __device__ int32_t in(int8_t x) { return x; }
  static __device__ int32_t out(int32_t a) { return a; }
};

// Transposed: dense is P x K (K contiguous) instead of K x P.
template <typename T, bool Transposed>
__device__ void spmm(const T *values, const uint16_t *meta, const T *dense,
                     typename Elem<T>::Out *out, int R, int P, int K,
                     int valueCols, int metaCols) {
  using E = Elem<T>;
  extern __shared__ unsigned char smem[];
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    smem[0] = 1;
  if (r >= R || p >= P)
    return;
  auto b = [&](int k) {
    return E::in(Transposed ? dense[(size_t)p * K + k]
                            : dense[(size_t)k * P + p]);
  };
  const T *vrow = values + (size_t)r * valueCols;
  const uint16_t *mrow = meta + (size_t)r * metaCols;
  typename E::Acc acc = 0;
  for (int w = 0; w < K / 16; ++w) {
    unsigned word = mrow[w];
    for (int j = 0; j < 4; ++j) {
      int g = 4 * w + j;
      unsigned nib = (word >> (4 * j)) & 0xF;
      int i0 = nib & 3, i1 = nib >> 2;
      acc += E::in(vrow[2 * g]) * b(4 * g + i0);
      acc += E::in(vrow[2 * g + 1]) * b(4 * g + i1);
    }
  }
  out[(size_t)r * P + p] = E::out(acc);
}

// One entry per PTX, as stc-compile emits: -DMOCK_BF16 selects the bf16
// one, -DMOCK_I8 the i8 one (i32 output, dense transposed).
#if defined(MOCK_I8)
extern "C" __global__ void
mock_spmm_i8(const int8_t *values, const uint16_t *meta, const int8_t *dense,
             int32_t *out, int R, int P, int K, int valueCols, int metaCols) {
  spmm<int8_t, true>(values, meta, dense, out, R, P, K, valueCols, metaCols);
}
#elif defined(MOCK_BF16)
extern "C" __global__ void mock_spmm_bf16(const __nv_bfloat16 *values,
                                          const uint16_t *meta,
                                          const __nv_bfloat16 *dense,
                                          __nv_bfloat16 *out, int R, int P,
                                          int K, int valueCols, int metaCols) {
  spmm<__nv_bfloat16, false>(values, meta, dense, out, R, P, K, valueCols,
                             metaCols);
}
#else
extern "C" __global__ void
mock_spmm_f16(const __half *values, const uint16_t *meta, const __half *dense,
              __half *out, int R, int P, int K, int valueCols, int metaCols) {
  spmm<__half, false>(values, meta, dense, out, R, P, K, valueCols, metaCols);
}
#endif
