/*===- run_linear.c - call an AOT-compiled 2:4 GPU linear layer from C ---===*
 *
 * Links with the object `stc-compile linear_f16.mlir --target=sm_XX
 * --emit=obj` makes and with stc_runtime. Builds X (M x 512) and W
 * (512 x 256) in f16 and a bias, calls @linear through its C interface,
 * and compares Y with a reference computed here in double: W pruned 2:4
 * along K the way stc.prune does (the two largest magnitudes of every 4;
 * the data below has no ties), times X, plus the bias, ReLU. Prints the
 * relative error (the tolerance for f16 inputs is 1e-2) and exits 1 above
 * it, or on a CUDA or runtime error. Usage: run_linear [M] (default 64).
 *
 *===----------------------------------------------------------------------===*/
#include "runtime/stc_runtime.h"
#include "runtime/stc_runtime_cuda.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K = 512, N = 256 };

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} Desc2D;

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} Desc1D;

void _mlir_ciface_linear(Desc2D *result, Desc2D *x, Desc2D *w, Desc1D *b);

/* IEEE half of v, which is zero or a normal number with at most 11
 * significant bits (all values below are). */
static uint16_t toHalf(double v) {
  if (v == 0.0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  int exponent;
  double mantissa = frexp(fabs(v), &exponent); /* in [0.5, 1) */
  uint16_t bits = (uint16_t)((exponent + 14) << 10);
  bits |= (uint16_t)((mantissa * 2.0 - 1.0) * 1024.0 + 0.5);
  return sign | bits;
}

/* Exactly representable in f16: multiples of 1/8 and 1/4 of small size. */
static double xValue(int m, int k) { return ((m * 13 + k * 7) % 9 - 4) / 8.0; }
/* Distinct magnitudes inside every group of 4 along K, so pruning has no
 * ties: 1 + (k + n) % 4 / 4, with alternating signs. */
static double wValue(int k, int n) {
  double magnitude = 1.0 + ((k + n) % 4) / 4.0;
  return ((k * 3 + n) % 2) ? -magnitude : magnitude;
}

int main(int argc, char **argv) {
  int M = argc > 1 ? atoi(argv[1]) : 64;
  if (M <= 0) {
    fprintf(stderr, "run_linear: M must be positive\n");
    return 2;
  }
  uint16_t *x = malloc(sizeof(uint16_t) * M * K);
  uint16_t *w = malloc(sizeof(uint16_t) * K * N);
  float *b = malloc(sizeof(float) * N);
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k)
      x[m * K + k] = toHalf(xValue(m, k));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      w[k * N + n] = toHalf(wValue(k, n));
  for (int n = 0; n < N; ++n)
    b[n] = (float)((n % 7) - 3) / 4.0f;

  Desc2D xd = {x, x, 0, {M, K}, {K, 1}};
  Desc2D wd = {w, w, 0, {K, N}, {N, 1}};
  Desc1D bd = {b, b, 0, {N}, {1}};
  Desc2D out;
  memset(&out, 0, sizeof(out));
  _mlir_ciface_linear(&out, &xd, &wd, &bd);
  if (stc_cuda_has_error()) {
    fprintf(stderr, "run_linear: %s\n", stc_cuda_last_error());
    return 1;
  }
  if (stc_rt_has_error()) {
    fprintf(stderr, "run_linear: %s\n", stc_rt_error_message());
    return 1;
  }
  if (out.sizes[0] != M || out.sizes[1] != N) {
    fprintf(stderr, "run_linear: result is %lldx%lld, expected %dx%d\n",
            (long long)out.sizes[0], (long long)out.sizes[1], M, N);
    return 1;
  }

  /* Reference: keep the two largest magnitudes of every group of 4 along
   * K of each column of W. */
  double num = 0.0, den = 0.0;
  const float *y = (const float *)out.aligned + out.offset;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int k0 = 0; k0 < K; k0 += 4) {
        for (int k = k0; k < k0 + 4; ++k) {
          int larger = 0;
          for (int j = k0; j < k0 + 4; ++j)
            larger += fabs(wValue(j, n)) > fabs(wValue(k, n));
          if (larger < 2)
            acc += xValue(m, k) * wValue(k, n);
        }
      }
      double ref = acc + b[n];
      ref = ref > 0 ? ref : 0;
      double got = y[m * out.strides[0] + n * out.strides[1]];
      num += (got - ref) * (got - ref);
      den += ref * ref;
    }
  double err = sqrt(num / (den > 0 ? den : 1));
  int ok = err < 1e-2;
  printf("run_linear: %dx%d, relative error %.3e vs the C reference: %s\n", M,
         N, err, ok ? "PASS" : "FAIL");
  free(out.allocated);
  free(x);
  free(w);
  free(b);
  return ok ? 0 : 1;
}
