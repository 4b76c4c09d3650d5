/*===- run-gpu-linear.c - call an AOT-compiled GPU kernel from C --*- C -*-===*
 *
 * Links with the object that `stc-compile --target=sm_XX --emit=obj` made of
 * stc-compile-gpu-aot.mlir (@linear: X (32 x 64, f16) . prune(W) (64 x 16,
 * f16) -> f32) and with stc_runtime, whose mgpu* entry points that object
 * calls.  X is all ones and every group of 4 in a column of W is
 * (3, -2, 1, 0.5), so pruning keeps (3, -2) and every result is exactly
 * 64 / 4 * (3 - 2) = 16.  With the argument "check" the results are
 * compared with that; without, the program only has to run (the fake
 * driver computes nothing).  A CUDA error -- recorded already before main()
 * when the global constructor could not load the kernels -- is printed and
 * the exit status is 1.
 *
 *===----------------------------------------------------------------------===*/
#include "runtime/stc_runtime.h"
#include "runtime/stc_runtime_cuda.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 32, K = 64, N = 16 };

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} Desc2D;

void _mlir_ciface_linear(Desc2D *result, Desc2D *x, Desc2D *w);

int main(int argc, char **argv) {
  static uint16_t x[M * K], w[K * N];
  const uint16_t group[4] = {0x4200 /*3*/, 0xC000 /*-2*/, 0x3C00 /*1*/,
                             0x3800 /*0.5*/};
  for (int i = 0; i < M * K; ++i)
    x[i] = 0x3C00; /* 1.0 */
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      w[k * N + n] = group[k % 4];
  Desc2D xd = {x, x, 0, {M, K}, {K, 1}};
  Desc2D wd = {w, w, 0, {K, N}, {N, 1}};
  Desc2D out;
  memset(&out, 0, sizeof(out));
  _mlir_ciface_linear(&out, &xd, &wd);
  if (stc_cuda_has_error()) {
    fprintf(stderr, "run-gpu-linear: %s\n", stc_cuda_last_error());
    return 1;
  }
  if (stc_rt_has_error()) {
    fprintf(stderr, "run-gpu-linear: %s\n", stc_rt_error_message());
    return 1;
  }
  if (out.sizes[0] != M || out.sizes[1] != N) {
    fprintf(stderr, "run-gpu-linear: result is %lldx%lld\n",
            (long long)out.sizes[0], (long long)out.sizes[1]);
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "check") == 0) {
    const float *y = (const float *)out.aligned + out.offset;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float v = y[i * out.strides[0] + j * out.strides[1]];
        if (v != 16.0f) {
          fprintf(stderr, "run-gpu-linear: y[%d][%d] = %g, expected 16\n", i, j,
                  v);
          return 1;
        }
      }
    printf("run-gpu-linear: %dx%d results correct\n", M, N);
  } else {
    printf("run-gpu-linear: ran\n");
  }
  free(out.allocated);
  return 0;
}
