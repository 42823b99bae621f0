/* Calls the kernels of cpu-allocation-failures.mlir with sizes whose
   temporaries cannot be allocated (test/Tools/accel-compile/
   cpu-allocation-failures.test). An argument of d0 x 0 elements holds no
   data, so any d0 can be passed without memory behind it. */
#include "allocs-colsum.h"
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

/* Bytes malloc has handed out and not had back (mmapped blocks too). */
static size_t in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

int main(void) {
  static float out[1024];
  float none = 0;
  int64_t sizes[] = {5, 0, (int64_t)1 << 40, (int64_t)1 << 52, 7};
  int i, s;
  size_t before;
  for (i = 0; i < 5; ++i) {
    s = colsum(sizes[i], out);
    printf("colsum %lld: %d (%s) out[0] = %g\n", (long long)sizes[i], s,
           accel_status_string(s), out[0]);
  }
  /* A failed call frees the temporaries it made before the one that
     failed (2 MiB and 4 KiB here). */
  before = in_use();
  for (i = 0; i < 100; ++i)
    colsum((int64_t)1 << 52, out);
  printf("100 failed calls kept %s\n",
         in_use() > before + (1 << 20) ? "memory" : "no memory");
  {
    int64_t shapes[][2] = {{3, 2}, {(int64_t)1 << 62, 0}, {(int64_t)1 << 62, 1}};
    for (i = 0; i < 3; ++i) {
      float result[2] = {-1, -1};
      accel_tensor a = {&none, 2, {shapes[i][0], shapes[i][1]},
                        {shapes[i][1], 1}};
      accel_tensor r = {result, 1, {shapes[i][1]}, {1}};
      s = accel_both(&a, &r);
      printf("both %lldx%lld: %d out[0] = %g\n", (long long)shapes[i][0],
             (long long)shapes[i][1], s, result[0]);
    }
  }
  {
    int64_t d0s[] = {14, 3};
    for (i = 0; i < 2; ++i) {
      float result[4] = {-1, -1, -1, -1};
      accel_tensor a = {&none, 1, {d0s[i]}, {1}};
      accel_tensor r = {result, 1, {4}, {1}};
      s = accel_negative(&a, &r);
      printf("negative %lld: %d out[0] = %g\n", (long long)d0s[i], s,
             result[0]);
    }
  }
  {
    /* 4 MiB: a block of its own, unmapped when freed. */
    int64_t n = (int64_t)1 << 20;
    float *r0 = malloc(n * sizeof *r0), *r1 = malloc(n * sizeof *r1);
    accel_tensor a = {&none, 1, {n}, {1}};
    accel_tensor t0 = {r0, 1, {n}, {1}}, t1 = {r1, 1, {n}, {1}};
    r0[n - 1] = r1[n - 1] = -1;
    s = accel_twice(&a, &t0, &t1);
    printf("twice: %d out0 = %g out1 = %g\n", s, r0[n - 1], r1[n - 1]);
    free(r0);
    free(r1);
  }
  return 0;
}
