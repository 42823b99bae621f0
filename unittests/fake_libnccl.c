//===- fake_libnccl.c - a host-memory stand-in for NCCL (and RCCL)
//---------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The NCCL API subset the sharded GPU host libraries call (GpuHost.cpp),
// for ranks that are threads of one process, on host memory (the fake
// drivers' device pointers are host pointers). ncclAllReduce runs at once
// (as if its stream were synchronous): every rank's input is copied, the
// ranks meet at a barrier, each reduces all copies in rank order into its
// output. ncclCommSplit groups the ranks by color, ordered by key, as NCCL
// does. RCCL has the same API, so one fake serves both.
//
// Test hooks: FAKE_NCCL_FAIL=1 makes ncclAllReduce fail (ncclInternalError);
// FAKE_NCCL_DROP=1 leaves the last rank's part out of every sum (a broken
// all-reduce the numerical checks must catch); fake_nccl_calls() and
// fake_nccl_bytes() count this process's all-reduces and the bytes each
// rank handed to them, fake_nccl_splits() the ranks' ncclCommSplit calls;
// fake_nccl_stream() is the last stream given.
//
//===----------------------------------------------------------------------===//

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int ncclResult_t;
enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5
};

#define MAX_RANKS 64
#define MAX_GROUPS 64

/* The ranks of one communicator: what they hand each other. */
struct group {
  int id, nranks;
  pthread_barrier_t barrier;
  void *copies[MAX_RANKS];
  int colors[MAX_RANKS], keys[MAX_RANKS];
  struct group *children[MAX_RANKS]; /* a split's groups, by color's lowest rank */
};

typedef struct ncclComm {
  struct group *group;
  int rank;
} *ncclComm_t;

typedef struct {
  char internal[128];
} ncclUniqueId;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct group *groups[MAX_GROUPS];
static int numGroups, nextId = 1;
static long long calls, bytes, splits;
static void *lastStream;

long long fake_nccl_calls(void) { return calls; }
long long fake_nccl_bytes(void) { return bytes; }
long long fake_nccl_splits(void) { return splits; }
void *fake_nccl_stream(void) { return lastStream; }
void fake_nccl_reset(void) {
  pthread_mutex_lock(&lock);
  calls = bytes = 0;
  pthread_mutex_unlock(&lock);
}

static struct group *newGroup(int id, int nranks) {
  struct group *g = calloc(1, sizeof(struct group));
  g->id = id;
  g->nranks = nranks;
  pthread_barrier_init(&g->barrier, NULL, (unsigned)nranks);
  return g;
}

ncclResult_t ncclGetVersion(int *version) {
  *version = 22304;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof(*id));
  pthread_mutex_lock(&lock);
  int n = nextId++;
  pthread_mutex_unlock(&lock);
  memcpy(id->internal, &n, sizeof(n));
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id,
                              int rank) {
  int n;
  memcpy(&n, id.internal, sizeof(n));
  if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks)
    return ncclInvalidArgument;
  pthread_mutex_lock(&lock);
  struct group *g = NULL;
  for (int i = 0; i < numGroups; ++i)
    if (groups[i]->id == n)
      g = groups[i];
  if (!g && numGroups < MAX_GROUPS) {
    g = newGroup(n, nranks);
    groups[numGroups++] = g;
  }
  pthread_mutex_unlock(&lock);
  /* The table of ids is full: no rank could find the others' group. */
  if (!g)
    return ncclInternalError;
  if (g->nranks != nranks)
    return ncclInvalidUsage;
  *comm = calloc(1, sizeof(struct ncclComm));
  (*comm)->group = g;
  (*comm)->rank = rank;
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  free(comm);
  return ncclSuccess;
}

ncclResult_t ncclCommCount(ncclComm_t comm, int *count) {
  if (!comm)
    return ncclInvalidArgument;
  *count = comm->group->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(ncclComm_t comm, int *rank) {
  if (!comm)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                           ncclComm_t *newcomm, void *config) {
  (void)config;
  struct group *g = comm->group;
  pthread_mutex_lock(&lock);
  ++splits;
  pthread_mutex_unlock(&lock);
  g->colors[comm->rank] = color;
  g->keys[comm->rank] = key;
  pthread_barrier_wait(&g->barrier);
  /* The lowest rank of each color makes its group. */
  int members = 0, lowest = -1, position = 0;
  for (int r = 0; r < g->nranks; ++r) {
    if (g->colors[r] != color)
      continue;
    if (lowest < 0)
      lowest = r;
    ++members;
    if (g->keys[r] < key || (g->keys[r] == key && r < comm->rank))
      ++position;
  }
  if (lowest == comm->rank) {
    pthread_mutex_lock(&lock);
    int id = nextId++;
    pthread_mutex_unlock(&lock);
    g->children[lowest] = newGroup(id, members);
  }
  pthread_barrier_wait(&g->barrier);
  *newcomm = calloc(1, sizeof(struct ncclComm));
  (*newcomm)->group = g->children[lowest];
  (*newcomm)->rank = position;
  pthread_barrier_wait(&g->barrier);
  return ncclSuccess;
}

static size_t sizeOf(int type) {
  switch (type) {
  case 0: case 1: return 1;
  case 2: case 3: return 4;
  case 4: case 5: return 8;
  case 6: case 9: return 2;
  case 7: return 4;
  case 8: return 8;
  default: return 0;
  }
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31,
           mant = h & 1023, bits;
  if (exp == 0 && mant == 0)
    bits = sign;
  else if (exp == 0) {
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 1024));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((mant & 1023) << 13);
  } else if (exp == 31)
    bits = sign | 0x7f800000u | (mant << 13);
  else
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t floatToHalf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int exp = (int)((x >> 23) & 255) - 112;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 255) == 255)
    return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return (uint16_t)sign;
    mant |= 0x800000;
    int shift = 14 - exp;
    uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1),
             mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = (uint32_t)(exp << 10) | (mant >> 13), rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return (uint16_t)(sign | half);
}

static double load(const void *p, int type, size_t i) {
  switch (type) {
  case 0: return ((const int8_t *)p)[i];
  case 2: return ((const int32_t *)p)[i];
  case 4: return (double)((const int64_t *)p)[i];
  case 6: return halfToFloat(((const uint16_t *)p)[i]);
  case 7: return ((const float *)p)[i];
  case 8: return ((const double *)p)[i];
  case 9: {
    uint32_t bits = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  default: return 0;
  }
}

static void store(void *p, int type, size_t i, double v) {
  switch (type) {
  case 0: ((int8_t *)p)[i] = (int8_t)(int64_t)v; break;
  case 2: ((int32_t *)p)[i] = (int32_t)(int64_t)v; break;
  case 4: ((int64_t *)p)[i] = (int64_t)v; break;
  case 6: ((uint16_t *)p)[i] = floatToHalf((float)v); break;
  case 7: ((float *)p)[i] = (float)v; break;
  case 8: ((double *)p)[i] = v; break;
  case 9: {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    ((uint16_t *)p)[i] = (uint16_t)(bits >> 16);
    break;
  }
  }
}

/* One step of the reduction in the element type's own arithmetic (f32
   and narrower floats round after each step, as NCCL's kernels do). */
static double combine(double a, double b, int type, int op) {
  double r;
  switch (op) {
  case 0: r = a + b; break;
  case 1: r = a * b; break;
  case 2: r = a > b ? a : b; break;
  case 3: r = a < b ? a : b; break;
  default: r = a + b; break; /* average: summed, divided at the end */
  }
  if (type == 7 || type == 6 || type == 9)
    r = (float)r;
  return r;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count,
                           int type, int op, ncclComm_t comm, void *stream) {
  size_t width = sizeOf(type);
  if (!comm || width == 0 || op < 0 || op > 4 || (count && (!send || !recv)))
    return ncclInvalidArgument;
  const char *fail = getenv("FAKE_NCCL_FAIL");
  if (fail && *fail == '1')
    return ncclInternalError;
  const char *dropText = getenv("FAKE_NCCL_DROP");
  int drop = dropText && *dropText == '1';
  struct group *g = comm->group;
  pthread_mutex_lock(&lock);
  ++calls;
  bytes += (long long)(count * width);
  lastStream = stream;
  pthread_mutex_unlock(&lock);
  void *copy = malloc(count * width + 1);
  memcpy(copy, send, count * width);
  g->copies[comm->rank] = copy;
  pthread_barrier_wait(&g->barrier);
  int ranks = g->nranks - (drop && g->nranks > 1 ? 1 : 0);
  for (size_t i = 0; i < count; ++i) {
    double v = load(g->copies[0], type, i);
    for (int r = 1; r < ranks; ++r)
      v = combine(v, load(g->copies[r], type, i), type, op);
    if (op == 4)
      v = type == 2 || type == 4 || type == 0 ? (double)((int64_t)v / g->nranks)
                                              : v / g->nranks;
    store(recv, type, i, v);
  }
  pthread_barrier_wait(&g->barrier);
  free(copy);
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess: return "no error";
  case ncclUnhandledCudaError: return "unhandled cuda error";
  case ncclSystemError: return "unhandled system error";
  case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument: return "invalid argument";
  case ncclInvalidUsage: return "invalid usage";
  default: return "unknown result code";
  }
}
