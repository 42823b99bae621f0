/* accel_<module>_peak_temporary_bytes of cpu-allocation-failures.mlir's
   colsum (a 2 MiB temporary, freed before the d0 x 1024 floats of the
   second is made, and its 4 KiB result), printed in KiB
   (test/Tools/accel-compile/cpu-temporary-cache.test). */
#include "allocs-colsum.h"
#include <stdio.h>

int main(void) {
  static float out[1024];
  int s;
  printf("before any call: %llu KiB\n",
         (unsigned long long)accel_allocs_peak_temporary_bytes(0) >> 10);
  s = colsum(16384, out);
  printf("d0 16384: %d, %llu KiB\n", s,
         (unsigned long long)accel_allocs_peak_temporary_bytes(0) >> 10);
  /* A smaller call leaves the peak where it was... */
  s = colsum(1024, out);
  printf("then d0 1024: %d, %llu KiB\n", s,
         (unsigned long long)accel_allocs_peak_temporary_bytes(1) >> 10);
  /* ...until a reset: then it is the next calls' own. */
  printf("after the reset: %llu KiB\n",
         (unsigned long long)accel_allocs_peak_temporary_bytes(0) >> 10);
  s = colsum(1024, out);
  printf("d0 1024: %d, %llu KiB\n", s,
         (unsigned long long)accel_allocs_peak_temporary_bytes(0) >> 10);
  return 0;
}
