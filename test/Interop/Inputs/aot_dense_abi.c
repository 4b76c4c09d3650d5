/* Calls two entry points compiled ahead of time from aot-dense-abi.mlir
 * through their C interface: @csr_times names a CSR argument (f64,
 * upstream's sparsifier runs it) and @nv24_times a 2:4 one (f32, STC's
 * kernel), but both take and return plain dense memref descriptors
 * (docs/INTEROP.md). Prints the two products, which must be equal, then
 * calls @nv24_times with data that is not 2:4, which must set the
 * runtime's error. */
#include "runtime/stc_runtime.h"

#include <stdio.h>
#include <stdlib.h>

void _mlir_ciface_csr_times(StcMemRef2D *result, StcMemRef2D *a,
                            StcMemRef2D *b);
void _mlir_ciface_nv24_times(StcMemRef2D *result, StcMemRef2D *a,
                             StcMemRef2D *b); /* f32 */

static StcMemRef2D view(void *data, int64_t rows, int64_t cols) {
  StcMemRef2D d = {data, data, 0, {rows, cols}, {cols, 1}};
  return d;
}

/* Prints and frees a result of doubles (f64) or floats. */
static void print(const char *name, StcMemRef2D *r, int f64) {
  printf("%s:", name);
  for (int64_t i = 0; i < r->sizes[0]; ++i) {
    for (int64_t j = 0; j < r->sizes[1]; ++j) {
      int64_t at = r->offset + i * r->strides[0] + j * r->strides[1];
      printf(" %g", f64 ? ((double *)r->aligned)[at]
                        : (double)((float *)r->aligned)[at]);
    }
  }
  printf("\n");
  free(r->allocated);
}

int main(void) {
  /* 4 x 8, every group of 4 along a row with at most 2 non-zeros. */
  double a[32] = {1, 0, -2, 0, 0, 3, 0, 4, 0, 5, 6, 0, 7, 0,  0, -8,
                  9, 0, 0,  1, 0, 0, 2, 0, 0, 0, 0, 0, 3, -4, 0, 0};
  double b[24];
  float af[32], bf[24];
  for (int i = 0; i < 24; ++i)
    bf[i] = (float)(b[i] = (i * 5) % 7 - 3);
  for (int i = 0; i < 32; ++i)
    af[i] = (float)a[i];
  StcMemRef2D av = view(a, 4, 8), bv = view(b, 8, 3), r;
  StcMemRef2D afv = view(af, 4, 8), bfv = view(bf, 8, 3);
  _mlir_ciface_csr_times(&r, &av, &bv);
  print("csr", &r, 1);
  _mlir_ciface_nv24_times(&r, &afv, &bfv);
  print("2:4", &r, 0);
  if (stc_rt_has_error())
    return 1;
  af[1] = 1; /* row 0, group 0 now has 3 non-zeros */
  _mlir_ciface_nv24_times(&r, &afv, &bfv);
  free(r.allocated);
  printf("error: %s\n", stc_rt_has_error() ? stc_rt_error_message() : "none");
  return 0;
}
