/* Calls Inputs/cpu-amx.mlir compiled for AMX (cpu-amx.test): the library's
   CPU check asks Linux for the tile state before the first kernel; both
   results are checked element by element against a double reference (bf16
   inputs are small integers: every product and sum is exact in f32; int8
   spans [-128, 127] and accumulates a given C into a separate result).
   The outputs are prefilled (NaN, INT32_MIN), so an element the kernel
   misses fails. */
#include "amx.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint16_t bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16); /* exact: small integers */
}

int main(void) {
  enum { M = 61, K = 100, N = 45, M8 = 70, K8 = 130, N8 = 33 };
  static uint16_t a[M * K], b[K * N];
  static float af[M * K], bf[K * N], c[M * N];
  static int8_t a8[M8 * K8], b8[K8 * N8];
  static int32_t c8[M8 * N8], out8[M8 * N8], ref8[M8 * N8];
  int i, j, k, bad = 0, status;
  for (i = 0; i < M * K; ++i) {
    af[i] = (float)(i * 7 % 9 - 4);
    a[i] = bf16(af[i]);
  }
  for (i = 0; i < K * N; ++i) {
    bf[i] = (float)(i * 5 % 11 - 5);
    b[i] = bf16(bf[i]);
  }
  for (i = 0; i < M * N; ++i)
    c[i] = NAN;
  accel_tensor ta = {a, 2, {M, K}, {K, 1}}, tb = {b, 2, {K, N}, {N, 1}},
               tc = {c, 2, {M, N}, {N, 1}};
  status = accel_mm_bf16(&ta, &tb, &tc);
  printf("mm_bf16: %d\n", status);
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double s = 0;
      for (k = 0; k < K; ++k)
        s += (double)af[i * K + k] * bf[k * N + j];
      if (!(c[i * N + j] == s) && bad++ < 5)
        printf("bf16 [%d,%d] = %g, expected %g\n", i, j, c[i * N + j], s);
    }
  for (i = 0; i < M8 * K8; ++i)
    a8[i] = (int8_t)(i * 37 + 11);
  for (i = 0; i < K8 * N8; ++i)
    b8[i] = (int8_t)(i * 53 + 3);
  for (i = 0; i < M8 * N8; ++i) {
    c8[i] = ref8[i] = i * 1000 - 70000;
    out8[i] = INT32_MIN;
  }
  for (i = 0; i < M8; ++i)
    for (j = 0; j < N8; ++j)
      for (k = 0; k < K8; ++k)
        ref8[i * N8 + j] += (int32_t)a8[i * K8 + k] * b8[k * N8 + j];
  accel_tensor t8a = {a8, 2, {M8, K8}, {K8, 1}},
               t8b = {b8, 2, {K8, N8}, {N8, 1}},
               t8c = {c8, 2, {M8, N8}, {N8, 1}},
               t8out = {out8, 2, {M8, N8}, {N8, 1}};
  status = accel_mm_i8(&t8a, &t8b, &t8c, &t8out);
  printf("mm_i8: %d\n", status);
  for (i = 0; i < M8 * N8; ++i)
    if (out8[i] != ref8[i] && bad++ < 10)
      printf("i8 [%d] = %d, expected %d\n", i, out8[i], ref8[i]);
  printf("%s: %d wrong\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}
