/* Dense single-precision GEMM baseline for the STC CPU benchmarks.
 *
 *   sgemm_openblas M N K WARMUP REPEATS
 *
 * Computes C = A * B (row-major, A is MxK, B is KxN) with OpenBLAS cblas_sgemm
 * on random data (uniform in [-1, 1), fixed seed), runs WARMUP untimed calls,
 * then REPEATS timed calls (clock_gettime(CLOCK_MONOTONIC)), and prints one
 * machine-readable line per fact:
 *   corename <name>
 *   config <openblas_get_config() string>
 *   threads <n>
 *   time_ms <t>          (one per repeat, in order)
 *   checksum <sum of C>  (keeps the compiler from dropping the work)
 * The thread count is whatever OpenBLAS picked up from OPENBLAS_NUM_THREADS.
 */
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Declared in openblas_config.h on most installs; declare here too in case. */
char *openblas_get_corename(void);
char *openblas_get_config(void);
int openblas_get_num_threads(void);

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float rand_uniform(void) {
  /* xorshift64*: deterministic, fast, good enough for benchmark data. */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  uint64_t r = rng_state * 0x2545F4914F6CDD1Dull;
  return (float)((double)(r >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s M N K WARMUP REPEATS\n", argv[0]);
    return 2;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int warmup = atoi(argv[4]), repeats = atoi(argv[5]);
  if (m <= 0 || n <= 0 || k <= 0 || warmup < 0 || repeats <= 0) {
    fprintf(stderr, "bad arguments\n");
    return 2;
  }
  float *a = aligned_alloc(64, sizeof(float) * ((m * k + 15) / 16 * 16));
  float *b = aligned_alloc(64, sizeof(float) * ((k * n + 15) / 16 * 16));
  float *c = aligned_alloc(64, sizeof(float) * ((m * n + 15) / 16 * 16));
  if (!a || !b || !c) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (long i = 0; i < m * k; ++i)
    a[i] = rand_uniform();
  for (long i = 0; i < k * n; ++i)
    b[i] = rand_uniform();
  for (long i = 0; i < m * n; ++i)
    c[i] = 0.0f;

  printf("corename %s\n", openblas_get_corename());
  printf("config %s\n", openblas_get_config());
  printf("threads %d\n", openblas_get_num_threads());

  for (int r = 0; r < warmup; ++r)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0f, a, (int)k, b, (int)n, 0.0f, c, (int)n);
  for (int r = 0; r < repeats; ++r) {
    double t0 = now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n,
                (int)k, 1.0f, a, (int)k, b, (int)n, 0.0f, c, (int)n);
    double t1 = now_ms();
    printf("time_ms %.6f\n", t1 - t0);
  }
  double sum = 0.0;
  for (long i = 0; i < m * n; ++i)
    sum += c[i];
  printf("checksum %.6e\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
