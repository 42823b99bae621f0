/* Calls cpu-allocation-failures.mlir's colsum, whose temporary is d0 x 1024
   floats, with d0 = 16384 (64 MiB: over glibc's largest mmap threshold, so
   without the library's cache every call maps, faults in and zeroes it
   again), and counts the page faults of the calls
   (test/Tools/accel-compile/cpu-temporary-cache.test). */
#include "allocs-colsum.h"
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* The process's address space in bytes (/proc/self/statm). */
static long long address_space(void) {
  long long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lld", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return pages * sysconf(_SC_PAGESIZE);
}

static long faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

int main(void) {
  static float out[1024];
  const int64_t d0 = 16384;
  long before, per_call;
  int i, s = colsum(d0, out);
  printf("first call: %d out[0] = %g\n", s, out[0]);
  /* 64 MiB is 16384 pages of 4 KiB or 32 huge pages: a call that maps its
     temporary anew faults at least 32 times. */
  before = faults();
  for (i = 0; i < 8; ++i)
    s |= colsum(d0, out);
  per_call = (faults() - before) / 8;
  printf("8 calls: %d out[0] = %g, %s\n", s, out[0],
         per_call < 8 ? "temporaries reused" : "temporaries faulted in");
  accel_allocs_release_memory();
  before = faults();
  s = colsum(d0, out);
  printf("after release_memory: %d out[0] = %g, %s\n", s, out[0],
         faults() - before >= 32 ? "faulted in" : "reused");
  /* A failed allocation empties the cache and tries again: with 16 MiB of
     address space left, a 24 MiB temporary (too small to reuse the cached
     64 MiB block) fits only once that block is freed. */
  {
    struct rlimit limit;
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = (rlim_t)(address_space() + (16 << 20));
    setrlimit(RLIMIT_AS, &limit);
    s = colsum(6144, out);
    printf("24 MiB with 16 MiB of address space left: %d out[0] = %g\n", s,
           out[0]);
  }
  return 0;
}
