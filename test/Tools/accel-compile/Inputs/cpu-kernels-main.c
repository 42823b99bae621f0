/* Calls Inputs/cpu-kernels.mlir compiled by accel-compile --target=cpu:
   an out-argument written in place and two results, one of them the
   argument itself, with a dynamic dimension. Prints what it sees. */
#include "kernels.h"
#include <stdio.h>

static accel_tensor tensor2(float *data, int64_t rows, int64_t cols) {
  accel_tensor t = {data, 2, {rows, cols}, {cols, 1}};
  return t;
}

int main(void) {
  float a[8 * 16], b[16 * 4], c[8 * 4], x[3 * 4], y0[3 * 4], y1[3 * 4];
  int i, status;
  accel_tensor ta = tensor2(a, 8, 16), tb = tensor2(b, 16, 4),
               tc = tensor2(c, 8, 4), tx = tensor2(x, 3, 4),
               t0 = tensor2(y0, 3, 4), t1 = tensor2(y1, 3, 4),
               wrong = tensor2(y1, 2, 4);
  for (i = 0; i < 8 * 16; ++i)
    a[i] = 1.0f;
  for (i = 0; i < 16 * 4; ++i)
    b[i] = (float)(i % 4);
  for (i = 0; i < 8 * 4; ++i)
    c[i] = 100.0f;
  for (i = 0; i < 3 * 4; ++i)
    x[i] = (float)i;
  printf("load check: %d\n", accel_kernels_load_check());
  status = accel_mm_inplace(&ta, &tb, &tc, &tc);
  printf("mm_inplace: %d c[0..3] = %g %g %g %g\n", status, c[0], c[1], c[2],
         c[3]);
  status = accel_two(&tx, &t0, &t1);
  printf("two: %d y0[11] = %g y1[11] = %g\n", status, y0[11], y1[11]);
  printf("two, result 1 with 2 rows: %d\n", accel_two(&tx, &t0, &wrong));
  return 0;
}
