/* Calls Inputs/cpu-dynamic-sizes.mlir compiled by accel-compile --target=cpu
   with dynamic sizes that agree (status 0 and the values) and with sizes
   that the ops tie together but that disagree: status 2 (ACCEL_ERR_SHAPE)
   before the kernel runs, so the caller's result buffer keeps its -1s and
   nothing is read past an argument. Prints each status and c[0]. */
#include "dyn.h"
#include <stdio.h>

static accel_tensor tensor1(float *data, int64_t n) {
  accel_tensor t = {data, 1, {n}, {1}};
  return t;
}
static accel_tensor tensor2(float *data, int64_t rows, int64_t cols) {
  accel_tensor t = {data, 2, {rows, cols}, {cols, 1}};
  return t;
}
static accel_tensor tensor4(float *data, int64_t b, int64_t h, int64_t s,
                            int64_t d) {
  accel_tensor t = {data, 4, {b, h, s, d}, {h * s * d, s * d, d, 1}};
  return t;
}
static void fill(float *p, int n, float v) {
  int i;
  for (i = 0; i < n; ++i)
    p[i] = v;
}

int main(void) {
  static float a[256], b[256], c[256], o[256];
  accel_tensor ta, tb, tc, tv, to;
  fill(a, 256, 1.0f);
  fill(b, 256, 1.0f);

  /* The catalogue's reproducer: A 8x16 with B 8x4 read past B. */
  ta = tensor2(a, 8, 16), tb = tensor2(b, 16, 4), tc = tensor2(c, 8, 4);
  fill(c, 256, -1.0f);
  printf("dynk: %d c[0] = %g\n", accel_dynk(&ta, &tb, &tc), c[0]);
  tb = tensor2(b, 8, 4);
  fill(c, 256, -1.0f);
  printf("dynk K 16/8: %d c[0] = %g\n", accel_dynk(&ta, &tb, &tc), c[0]);

  ta = tensor2(a, 3, 5), tb = tensor2(b, 5, 2), tc = tensor2(c, 3, 2);
  fill(c, 256, -1.0f);
  printf("dynmn: %d c[0] = %g\n", accel_dynmn(&ta, &tb, &tc), c[0]);
  tb = tensor2(b, 6, 2);
  fill(c, 256, -1.0f);
  printf("dynmn K 5/6: %d c[0] = %g\n", accel_dynmn(&ta, &tb, &tc), c[0]);
  tb = tensor2(b, 5, 2), tc = tensor2(c, 4, 2);
  printf("dynmn M 3/4: %d c[0] = %g\n", accel_dynmn(&ta, &tb, &tc), c[0]);

  /* C = C + A B^T in place: A 3x5, B 2x5, C 3x2. */
  ta = tensor2(a, 3, 5), tb = tensor2(b, 2, 5), tc = tensor2(c, 3, 2);
  fill(c, 256, -1.0f);
  printf("dyntb: %d c[0] = %g\n", accel_dyntb(&ta, &tb, &tc, &tc), c[0]);
  fill(c, 256, -1.0f);
  tb = tensor2(b, 2, 6);
  printf("dyntb K 5/6: %d c[0] = %g\n", accel_dyntb(&ta, &tb, &tc, &tc), c[0]);
  tb = tensor2(b, 3, 5);
  fill(c, 256, -1.0f);
  printf("dyntb N 3/2: %d c[0] = %g\n", accel_dyntb(&ta, &tb, &tc, &tc), c[0]);

  ta = tensor1(a, 7), tb = tensor1(b, 7), tc = tensor1(c, 7);
  fill(c, 256, -1.0f);
  printf("add: %d c[0] = %g\n", accel_add(&ta, &tb, &tc, &tc), c[0]);
  fill(c, 256, -1.0f);
  tb = tensor1(b, 6);
  printf("add 7/6: %d c[0] = %g\n", accel_add(&ta, &tb, &tc, &tc), c[0]);

  ta = tensor2(a, 2, 5), tc = tensor2(c, 2, 5);
  fill(c, 256, -1.0f);
  printf("sm: %d c[0] = %g\n", accel_sm(&ta, &tc, &tc), c[0]);
  fill(c, 256, -1.0f);
  ta = tensor2(a, 2, 6), tc = tensor2(c, 2, 6);
  printf("sm cast 6/5: %d c[0] = %g\n", accel_sm(&ta, &tc, &tc), c[0]);

  /* Q 1x2x4xD, K 1x2xSkvxD, V 1x2xSkvx8, O 1x2x4x8. */
  ta = tensor4(a, 1, 2, 4, 3), tb = tensor4(b, 1, 2, 5, 3);
  tv = tensor4(c, 1, 2, 5, 8), to = tensor4(o, 1, 2, 4, 8);
  fill(c, 256, 2.0f);
  fill(o, 256, -1.0f);
  printf("att: %d o[0] = %g\n", accel_att(&ta, &tb, &tv, &to, &to), o[0]);
  fill(o, 256, -1.0f);
  tb = tensor4(b, 1, 2, 5, 4);
  printf("att D 3/4: %d o[0] = %g\n", accel_att(&ta, &tb, &tv, &to, &to), o[0]);
  tb = tensor4(b, 1, 2, 5, 3), tv = tensor4(c, 1, 2, 6, 8);
  fill(o, 256, -1.0f);
  printf("att Skv 5/6: %d o[0] = %g\n", accel_att(&ta, &tb, &tv, &to, &to),
         o[0]);
  return 0;
}
