/*===- runtime-threads.c - concurrent calls into one compiled module -*- C
 *-*-===*
 *
 * Host of runtime-threads.test: runtime-threads.mlir, compiled ahead of
 * time and linked here with the runtime (built with ThreadSanitizer), is
 * called by 4 threads at once, 25 times each, every thread with its own
 * inputs. Each result must equal, bit for bit, the one the same inputs
 * gave in a call made alone before the threads started, and no error may
 * be recorded; ThreadSanitizer reports any data race in the runtime.
 *
 *===----------------------------------------------------------------------===*/
#include "runtime/stc_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 16, K = 64, N = 32, THREADS = 4, CALLS = 25 };

void _mlir_ciface_layer(StcMemRef2D *result, StcMemRef2D *x, StcMemRef2D *w,
                        StcMemRef1D *b);

struct Work {
  float x[M * K], w[K * N], b[N];
  float expected[M * N];
  int failures;
};

static struct Work work[THREADS];

static void call(struct Work *t, float *out) {
  StcMemRef2D xd = {t->x, t->x, 0, {M, K}, {K, 1}};
  StcMemRef2D wd = {t->w, t->w, 0, {K, N}, {N, 1}};
  StcMemRef1D bd = {t->b, t->b, 0, {N}, {1}};
  StcMemRef2D result;
  memset(&result, 0, sizeof(result));
  _mlir_ciface_layer(&result, &xd, &wd, &bd);
  const float *y = (const float *)result.aligned + result.offset;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      out[i * N + j] = y[i * result.strides[0] + j * result.strides[1]];
  free(result.allocated);
}

static void *worker(void *arg) {
  struct Work *t = (struct Work *)arg;
  float out[M * N];
  for (int c = 0; c < CALLS; ++c) {
    call(t, out);
    if (memcmp(out, t->expected, sizeof(out)) != 0)
      ++t->failures;
  }
  return NULL;
}

int main(void) {
  unsigned state = 12345u;
  for (int t = 0; t < THREADS; ++t) {
    for (int i = 0; i < M * K; ++i)
      work[t].x[i] =
          (float)((state = state * 1103515245u + 12345u) >> 16) / 65536.0f -
          0.5f;
    for (int i = 0; i < K * N; ++i)
      work[t].w[i] =
          (float)((state = state * 1103515245u + 12345u) >> 16) / 65536.0f -
          0.5f;
    for (int i = 0; i < N; ++i)
      work[t].b[i] = 0.01f * (float)(i - t);
    call(&work[t], work[t].expected);
  }
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, worker, &work[t]);
  int failures = 0;
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    failures += work[t].failures;
  }
  if (stc_rt_failed()) {
    printf("runtime-threads: error recorded: %s\n", stc_rt_error_message());
    return 1;
  }
  printf("runtime-threads: %d threads x %d calls, %d results differ\n", THREADS,
         CALLS, failures);
  return failures != 0;
}
