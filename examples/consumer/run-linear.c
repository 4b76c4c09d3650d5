/*===- run-linear.c - call an AOT-compiled STC kernel from C ------*- C -*-===*
 *
 * Links linear.o (stc-compile --emit=obj of linear.mlir) with the STC
 * runtime, calls it on seeded random data, and checks the result against
 * an independent reference written here: 2:4 magnitude pruning of the
 * weight along the reduction dimension (ties to the lower index), a dense
 * float64 matmul, bias and ReLU.  Prints the relative error; exits 1 past
 * 1e-5 (docs/DESIGN.md §7, fp32) or on a runtime error.
 *
 *===----------------------------------------------------------------------===*/
#include "compiler/StcVersion.h"
#include "runtime/stc_runtime.h"
#include "runtime/stc_runtime_cuda.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 24, K = 64, N = 40 };

/* The C interface that `llvm.emit_c_interface` gives @linear: the result
 * descriptor first, then one descriptor per argument. */
void _mlir_ciface_linear(StcMemRef2D *result, StcMemRef2D *x, StcMemRef2D *w,
                         StcMemRef1D *b);

static uint64_t rngState = 0x5EEDu;
/* Uniform in [-1, 1), never exactly representable as all zeros. */
static float nextRandom(void) {
  rngState = rngState * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rngState >> 11) / 4503599627370496.0) - 1.0f;
}

static StcMemRef2D view2D(float *data, int64_t rows, int64_t cols) {
  StcMemRef2D m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

/* Reference 2:4 pruning of w (K x N) along dimension 0, in place: in each
 * group of 4 rows of a column keep the two largest |w|, the lower row first
 * on ties. */
static void pruneReference(float *w) {
  for (int n = 0; n < N; ++n)
    for (int g = 0; g < K; g += 4) {
      int keep0 = -1, keep1 = -1;
      for (int i = 0; i < 4; ++i) {
        float a = fabsf(w[(g + i) * N + n]);
        if (keep0 < 0 || a > fabsf(w[(g + keep0) * N + n])) {
          keep1 = keep0;
          keep0 = i;
        } else if (keep1 < 0 || a > fabsf(w[(g + keep1) * N + n])) {
          keep1 = i;
        }
      }
      for (int i = 0; i < 4; ++i)
        if (i != keep0 && i != keep1)
          w[(g + i) * N + n] = 0.0f;
    }
}

int main(void) {
  static float x[M * K], w[K * N], wPruned[K * N], b[N];
  for (int i = 0; i < M * K; ++i)
    x[i] = nextRandom();
  for (int i = 0; i < K * N; ++i)
    w[i] = wPruned[i] = nextRandom();
  for (int i = 0; i < N; ++i)
    b[i] = nextRandom();
  pruneReference(wPruned);

  StcMemRef2D xDesc = view2D(x, M, K), wDesc = view2D(w, K, N);
  StcMemRef1D bDesc = {b, b, 0, {N}, {1}};
  StcMemRef2D out;
  memset(&out, 0, sizeof(out));
  _mlir_ciface_linear(&out, &xDesc, &wDesc, &bDesc);
  if (stc_rt_has_error()) {
    fprintf(stderr, "run-linear: %s\n", stc_rt_error_message());
    return 1;
  }
  if (out.sizes[0] != M || out.sizes[1] != N) {
    fprintf(stderr, "run-linear: result is %lldx%lld\n",
            (long long)out.sizes[0], (long long)out.sizes[1]);
    return 1;
  }

  double diff = 0, norm = 0;
  const float *result = (const float *)out.aligned + out.offset;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = b[j];
      for (int k = 0; k < K; ++k)
        ref += (double)x[i * K + k] * wPruned[k * N + j];
      ref = ref > 0 ? ref : 0;
      double got = result[i * out.strides[0] + j * out.strides[1]];
      diff += (got - ref) * (got - ref);
      norm += ref * ref;
    }
  /* The result buffer was allocated by the generated code with malloc. */
  free(out.allocated);

  double relErr = sqrt(diff) / sqrt(norm);
  printf("run-linear: STC %s, %dx%dx%d, relative error %.3g\n",
         STC_VERSION_STRING, M, N, K, relErr);
  /* NaN fails too. */
  if (!(relErr < 1e-5) || norm == 0) {
    fprintf(stderr, "run-linear: FAILED\n");
    return 1;
  }
  printf("run-linear: OK\n");

  /* The installed CUDA runtime API is C too: report whether this machine
   * could run GPU objects (it never fails the CPU run). */
  if (stc_cuda_init(0) == STC_CUDA_SUCCESS) {
    StcCudaDeviceInfo info;
    if (stc_cuda_device_info(&info) == STC_CUDA_SUCCESS)
      printf("run-linear: cuda: %s\n", info.name);
  } else {
    printf("run-linear: cuda: unavailable (%s)\n",
           stc_cuda_status_name(stc_cuda_error_status()));
    stc_cuda_clear_error();
  }
  return 0;
}
