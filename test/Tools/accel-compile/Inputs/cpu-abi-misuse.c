/* Calls Inputs/cpu-abi-misuse.mlir compiled by accel-compile --target=cpu
   the ways docs/aot.md refuses or allows: NULL buffers, strides that are
   not row-major contiguous (transposed, broadcast), a wrong rank, a data
   pointer that is not aligned to the element size, and a result that
   aliases an argument. Prints each status and the values. */
#include "misuse.h"
#include <stdio.h>
#include <string.h>

static accel_tensor tensor2(void *data, int64_t rows, int64_t cols) {
  accel_tensor t = {data, 2, {rows, cols}, {cols, 1}};
  return t;
}

int main(void) {
  float a[8 * 16], b[16 * 4], c[8 * 4], s[16], t[16];
  /* 8 x 16 floats from raw + 1: the x86-64 ABI aligns arrays of 16 bytes
     or more to 16, so that address is not a multiple of 4. */
  static unsigned char raw[8 * 16 * sizeof(float) + 1];
  int i;
  for (i = 0; i < 8 * 16; ++i)
    a[i] = (float)(i % 3);
  for (i = 0; i < 16 * 4; ++i)
    b[i] = (float)(i % 4);
  accel_tensor ta = tensor2(a, 8, 16), tb = tensor2(b, 16, 4),
               tc = tensor2(c, 8, 4);

  printf("null argument: %d\n", accel_mm(NULL, &tb, &tc));
  accel_tensor nodata = tensor2(NULL, 8, 16);
  printf("null data: %d\n", accel_mm(&nodata, &tb, &tc));
  accel_tensor transposed = {b, 2, {16, 4}, {1, 16}};
  printf("transposed: %d\n", accel_mm(&ta, &transposed, &tc));
  accel_tensor broadcast = {b, 2, {16, 4}, {0, 1}};
  printf("broadcast: %d\n", accel_mm(&ta, &broadcast, &tc));
  accel_tensor rank1 = {a, 1, {8 * 16}, {1}};
  printf("rank 1: %d\n", accel_mm(&rank1, &tb, &tc));

  memcpy(raw + 1, a, sizeof(a));
  accel_tensor tshift = tensor2(raw + 1, 8, 16);
  int status = accel_mm(&tshift, &tb, &tc);
  printf("unaligned: %d c[0..3] = %g %g %g %g c[31] = %g\n", status, c[0], c[1],
         c[2], c[3], c[31]);

  /* s = s . t with the result in s's own buffer: the kernel reads its
     arguments before its buffer is copied into the caller's. */
  for (i = 0; i < 16; ++i) {
    s[i] = (float)i;
    t[i] = (i % 5 == 0) ? 1.0f : 0.0f; /* the identity */
  }
  t[1] = 1.0f; /* ... plus column 1 of row 0: s[.][1] += s[.][0] */
  accel_tensor ts = tensor2(s, 4, 4), tt = tensor2(t, 4, 4);
  status = accel_square(&ts, &tt, &ts);
  printf("aliased: %d s[0..7] = %g %g %g %g %g %g %g %g\n", status, s[0], s[1],
         s[2], s[3], s[4], s[5], s[6], s[7]);
  return 0;
}
