/*===- aot-error-return.c - the failure rule through an AOT object -*- C -*-===*
 *
 * Host of aot-error-return.test: calls @forward of aot-error-return.mlir,
 * compiled ahead of time, (1) with a weight that is not 2:4: the call must
 * return with the error recorded (stc_rt_failed() and stc_rt_has_error()
 * set, the message naming the op's location) and @observe, which comes
 * after the failing op, must not have run; (2) with the error still
 * recorded (sticky): the call returns at its first check, @observe still
 * not run; (3) after stc_rt_clear_error() with 2:4 data: no error, @observe
 * ran once with the result's first element, which matches an independent
 * reference computed here. Result buffers are freed after every call,
 * failed or not (the contract of stc_runtime.h).
 *
 *===----------------------------------------------------------------------===*/
#include "runtime/stc_runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 4, K = 8, N = 6 };

void _mlir_ciface_forward(StcMemRef2D *result, StcMemRef2D *x, StcMemRef2D *w);

static int observed = 0;
static float observedValue = 0;

/* Called by the generated code after the product. */
void observe(float v) {
  ++observed;
  observedValue = v;
}

static StcMemRef2D view(float *data, int64_t rows, int64_t cols) {
  StcMemRef2D m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

static int call(float *x, float *w, StcMemRef2D *out) {
  StcMemRef2D xd = view(x, M, K), wd = view(w, K, N);
  memset(out, 0, sizeof(*out));
  _mlir_ciface_forward(out, &xd, &wd);
  return stc_rt_failed();
}

int main(void) {
  static float x[M * K], dense[K * N], sparse[K * N];
  for (int i = 0; i < M * K; ++i)
    x[i] = (float)((i * 7) % 11) - 5.0f;
  /* Every weight non-zero: not 2:4. The 2:4 one keeps rows 4g and 4g+3. */
  for (int i = 0; i < K * N; ++i) {
    dense[i] = 1.0f + (float)(i % 5);
    sparse[i] = (i / N) % 4 == 0 || (i / N) % 4 == 3 ? dense[i] : 0.0f;
  }
  StcMemRef2D out;
  int status = 0;

  if (!call(x, dense, &out) || !stc_rt_has_error() || observed != 0) {
    fprintf(stderr, "FAIL: first call: failed=%d observed=%d\n",
            stc_rt_failed(), observed);
    status = 1;
  }
  printf("error: %s\n", stc_rt_error_message());
  free(out.allocated);

  if (!call(x, sparse, &out) || observed != 0) {
    fprintf(stderr, "FAIL: a call with an error recorded ran on\n");
    status = 1;
  }
  free(out.allocated);
  printf("sticky: observed %d\n", observed);

  stc_rt_clear_error();
  if (call(x, sparse, &out) || observed != 1) {
    fprintf(stderr, "FAIL: 2:4 call: failed=%d observed=%d: %s\n",
            stc_rt_failed(), observed, stc_rt_error_message());
    status = 1;
  } else {
    double ref = 0;
    for (int k = 0; k < K; ++k)
      ref += (double)x[k] * sparse[k * N];
    const float *y = (const float *)out.aligned + out.offset;
    if (fabs(y[0] - ref) > 1e-5 * (1 + fabs(ref)) || observedValue != y[0]) {
      fprintf(stderr, "FAIL: y[0,0] = %g, observed %g, reference %g\n", y[0],
              observedValue, ref);
      status = 1;
    }
    printf("ok: observed %d, y[0,0] = %g\n", observed, y[0]);
  }
  free(out.allocated);
  return status;
}
