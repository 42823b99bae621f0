/* cpu-allocation-failures.mlir's colsum called with an argument of d0 x 0
   elements (no data behind any d0): its temporary is d0 x 1024 floats.
   Shared by the drivers of cpu-allocation-failures.test and
   cpu-temporary-cache.test. */
#include "allocs.h"

static int colsum(int64_t d0, float *out) {
  float none = 0;
  accel_tensor a = {&none, 2, {d0, 0}, {0, 1}};
  accel_tensor r = {out, 1, {1024}, {1}};
  out[0] = -1;
  return accel_colsum(&a, &r);
}
