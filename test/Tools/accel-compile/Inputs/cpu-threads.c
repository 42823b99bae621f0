/* Calls Inputs/cpu-threads.mlir compiled with threads=2 (cpu-threads.test):
   the kernels' parallel loops on the library's own threads, on one thread,
   and on a caller's parallel-for; each result against a double reference
   (NaN-prefilled outputs, so an element no task wrote fails) and bit for
   bit against the one-thread result (a thread changes which rows it
   computes, never the order of a sum). Then the thread settings the
   library cannot honour, and a temporary that cannot be allocated inside a
   parallel loop. */
#include "thr.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

enum { M = 456, K = 600, N = 1100, B = 2, H = 4, D = 64 };

static int bad;
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++bad;                                                                   \
      printf("FAILED %s: ", #cond);                                            \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

static float a[M * K], b[K * N], c[M * N], c1[M * N];

static void fill(float *x, size_t n, float value) {
  size_t i;
  for (i = 0; i < n; ++i)
    x[i] = value;
}

static int run_mm(float *out) {
  accel_tensor ta = {a, 2, {M, K}, {K, 1}}, tb = {b, 2, {K, N}, {N, 1}},
               tc = {out, 2, {M, N}, {N, 1}};
  fill(out, M * N, NAN);
  return accel_mm(&ta, &tb, &tc);
}

static double mm_error(const float *out) {
  double worst = 0;
  int i, j, k;
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      double s = 0, e;
      for (k = 0; k < K; ++k)
        s += (double)a[i * K + k] * b[k * N + j];
      e = fabs(out[i * N + j] - s);
      if (!(e <= worst))
        worst = e; /* NaN stays */
    }
  return worst;
}

static float *q, *kk, *v, *o, *o1;

static int run_attn(int64_t L, float *out) {
  accel_tensor tq = {q, 4, {B, H, L, D}, {H * L * D, L * D, D, 1}},
               tk = {kk, 4, {B, H, L, D}, {H * L * D, L * D, D, 1}},
               tv = {v, 4, {B, H, L, D}, {H * L * D, L * D, D, 1}},
               to = {out, 4, {B, H, L, D}, {H * L * D, L * D, D, 1}};
  fill(out, (size_t)B * H * L * D, NAN);
  return accel_attn(&tq, &tk, &tv, &to);
}

/* Causal softmax(Q K^T / sqrt(D)) V in double. */
static double attn_error(int64_t L, const float *out) {
  double worst = 0, *p = malloc(sizeof(double) * L);
  int64_t bh, i, j, d;
  for (bh = 0; bh < B * H; ++bh)
    for (i = 0; i < L; ++i) {
      const float *qi = q + (bh * L + i) * D;
      double m = -INFINITY, sum = 0;
      for (j = 0; j <= i; ++j) {
        double s = 0;
        for (d = 0; d < D; ++d)
          s += (double)qi[d] * kk[(bh * L + j) * D + d];
        p[j] = s / sqrt((double)D);
        if (p[j] > m)
          m = p[j];
      }
      for (j = 0; j <= i; ++j)
        sum += p[j] = exp(p[j] - m);
      for (d = 0; d < D; ++d) {
        double s = 0, e;
        for (j = 0; j <= i; ++j)
          s += p[j] * v[(bh * L + j) * D + d];
        e = fabs(out[(bh * L + i) * D + d] - s / sum);
        if (!(e <= worst))
          worst = e;
      }
    }
  free(p);
  return worst;
}

/* A caller's parallel-for: two threads (this one and one more) take the
   tasks from a shared counter, as an application's pool would. */
struct caller_pool {
  int64_t calls, tasks, n, next;
  accel_task task;
  void *context;
};

static void *helper(void *arg) {
  struct caller_pool *p = arg;
  int64_t i;
  while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n) {
    p->task(p->context, i);
    __atomic_fetch_add(&p->tasks, 1, __ATOMIC_RELAXED);
  }
  return 0;
}

static void caller_parallel_for(void *runner, int64_t n, accel_task task,
                                void *context) {
  struct caller_pool *p = runner;
  pthread_t t;
  p->calls++;
  p->n = n;
  p->next = 0;
  p->task = task;
  p->context = context;
  pthread_create(&t, 0, helper, p);
  helper(p);
  pthread_join(t, 0);
}

/* Calls mm 10 times into a buffer of its own; counts the right results. */
struct concurrent {
  int right, unused;
};
static void *call_mm_repeatedly(void *arg) {
  struct concurrent *r = arg;
  float *out = malloc(sizeof c);
  int i;
  for (i = 0; i < 10; ++i) {
    accel_tensor ta = {a, 2, {M, K}, {K, 1}}, tb = {b, 2, {K, N}, {N, 1}},
                 tc = {out, 2, {M, N}, {N, 1}};
    fill(out, M * N, NAN);
    r->right += accel_mm(&ta, &tb, &tc) == ACCEL_OK &&
                memcmp(out, c1, sizeof c) == 0;
  }
  free(out);
  return 0;
}

/* The threads of this process (Linux: /proc/self/task). */
static int threads_of_this_process(void) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;
  if (!d)
    return -1;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* Runs every task on one new thread, none on the calling one. */
static void *run_all(void *arg) {
  struct caller_pool *p = arg;
  int64_t i;
  for (i = 0; i < p->n; ++i)
    p->task(p->context, i);
  return 0;
}

static void other_thread_parallel_for(void *runner, int64_t n,
                                      accel_task task, void *context) {
  struct caller_pool *p = runner;
  pthread_t t;
  p->calls++;
  p->n = n;
  p->task = task;
  p->context = context;
  pthread_create(&t, 0, run_all, p);
  pthread_join(t, 0);
}

int main(void) {
  const int64_t L = 200; /* not a multiple of any tile */
  size_t n = (size_t)B * H * L * D, i;
  struct caller_pool pool = {0, 0, 0, 0, 0, 0};
  double e;
  int status = accel_thr_load_check();
  printf("load_check: %d\n", status);
  if (status)
    return 1;
  q = malloc(4 * n);
  kk = malloc(4 * n);
  v = malloc(4 * n);
  o = malloc(4 * n);
  o1 = malloc(4 * n);
  for (i = 0; i < M * K; ++i)
    a[i] = (float)((int)(i * 7 % 17) - 8) / 8;
  for (i = 0; i < K * N; ++i)
    b[i] = (float)((int)(i * 5 % 13) - 6) / 8;
  for (i = 0; i < n; ++i) {
    q[i] = sinf(0.37f * i);
    kk[i] = cosf(0.11f * i);
    v[i] = sinf(0.05f * i + 1);
  }
  printf("threads: %d of %d\n", accel_thr_num_threads(), ACCEL_THR_THREADS);

  /* One thread: the reference for the others. */
  EXPECT(accel_thr_set_num_threads(1) == ACCEL_OK, "set 1");
  EXPECT(run_mm(c1) == ACCEL_OK, "mm, 1 thread");
  /* Exact: the inputs are multiples of 1/8, every product a multiple of
     1/64 and every sum below 2^18 in magnitude. */
  EXPECT((e = mm_error(c1)) == 0, "mm error %g, 1 thread", e);
  EXPECT(run_attn(L, o1) == ACCEL_OK, "attn, 1 thread");
  /* peers.py's f32 attention bound, 2 (L + D) 2^-24 max|V|: 3.1e-5. */
  EXPECT((e = attn_error(L, o1)) <= 2.0 * (L + D) * 0x1p-24, "attn error %g, 1 thread", e);

#if ACCEL_THR_THREADS == 1
  /* A sequential library: it cannot run on more threads, and never calls a
     parallel-for. */
  printf("set_num_threads(2): %d\n", accel_thr_set_num_threads(2));
  EXPECT(accel_thr_num_threads() == 1, "num_threads");
#else
  /* The library's threads. */
  EXPECT(accel_thr_set_num_threads(2) == ACCEL_OK, "set 2");
  EXPECT(run_mm(c) == ACCEL_OK, "mm, 2 threads");
  EXPECT(memcmp(c, c1, sizeof c) == 0, "mm, 2 threads != 1 thread");
  EXPECT(run_attn(L, o) == ACCEL_OK, "attn, 2 threads");
  EXPECT(memcmp(o, o1, 4 * n) == 0, "attn, 2 threads != 1 thread");
  /* More threads than the library was split for. */
  EXPECT(accel_thr_set_num_threads(3) == ACCEL_OK, "set 3");
  EXPECT(run_attn(L, o) == ACCEL_OK, "attn, 3 threads");
  EXPECT(memcmp(o, o1, 4 * n) == 0, "attn, 3 threads != 1 thread");
#endif

  /* A caller's parallel-for. */
  EXPECT(accel_thr_set_parallel_for(caller_parallel_for, &pool, 2) == ACCEL_OK,
         "set_parallel_for");
  EXPECT(accel_thr_num_threads() == (ACCEL_THR_THREADS > 1 ? 2 : 1),
         "num_threads with a caller's pool");
  EXPECT(run_mm(c) == ACCEL_OK, "mm, caller's pool");
  EXPECT(memcmp(c, c1, sizeof c) == 0, "mm, caller's pool != 1 thread");
  EXPECT(run_attn(L, o) == ACCEL_OK, "attn, caller's pool");
  EXPECT(memcmp(o, o1, 4 * n) == 0, "attn, caller's pool != 1 thread");
  printf("caller's pool: %s\n",
         pool.calls > 0 && pool.tasks > pool.calls ? "used" : "not used");
  EXPECT(accel_thr_set_parallel_for(0, 0, 1) == ACCEL_OK, "unset");
  pool.calls = 0;
  EXPECT(run_mm(c) == ACCEL_OK, "mm, own threads again");
  EXPECT(pool.calls == 0, "the caller's pool is still called");

  /* Settings the library cannot honour. */
  printf("set_num_threads(0): %d\n", accel_thr_set_num_threads(0));
  printf("set_num_threads(1025): %d\n", accel_thr_set_num_threads(1025));
  printf("set_parallel_for(width 0): %d\n",
         accel_thr_set_parallel_for(caller_parallel_for, &pool, 0));
  EXPECT(accel_thr_num_threads() == (ACCEL_THR_THREADS > 1 ? 3 : 1),
         "a refused setting changed threads");

  /* Temporaries inside a parallel loop: row i of sums allocates n + i
     floats, and the library is compiled with --max-tensor-bytes=8388608
     (2097152 floats), so with n = 2097149 rows 4..7 fail: the call ends
     with ACCEL_ERR_ALLOC, once on the library's threads and once on a
     caller's pool whose tasks all run on a thread of its own (never the
     calling one); then a call that fits runs normally. */
  {
    static float x[2097152], out[8];
    int64_t sizes[] = {10, 2097149, 2097148, 2097149, 7};
    int round, s, j, failed_on_worker = 0;
    for (round = 0; round < 2; ++round) {
      if (round == 1) {
        pool.calls = 0;
        EXPECT(accel_thr_set_parallel_for(other_thread_parallel_for, &pool,
                                          1) == ACCEL_OK,
               "set_parallel_for");
      }
      for (s = 0; s < 5; ++s) {
        accel_tensor tx = {x, 1, {sizes[s]}, {1}},
                     to = {out, 1, {8}, {1}};
        int ok = 1;
        fill(out, 8, NAN);
        status = accel_sums(&tx, &to);
        for (j = 0; j < 8; ++j)
          ok &= out[j] == (float)(sizes[s] + j);
        printf("sums %lld, %s: %d%s\n", (long long)sizes[s],
               round ? "caller's pool" : "own threads", status,
               status == ACCEL_OK ? (ok ? " right" : " WRONG") : "");
        if (round == 1 && status == ACCEL_ERR_ALLOC && pool.calls)
          failed_on_worker = 1;
      }
    }
    EXPECT(failed_on_worker == (ACCEL_THR_THREADS > 1),
           "a failure on another thread: %d", failed_on_worker);
  }
  /* Two application threads calling the library at once: one gets the
     library's threads for a loop, the other runs that loop on its own
     thread; both results are right. */
  {
    pthread_t other;
    struct concurrent mine = {0, 0}, theirs = {0, 0};
    /* The library's own threads (the test's pools above serve one caller
       at a time). */
    EXPECT(accel_thr_set_parallel_for(0, 0, 1) == ACCEL_OK, "unset");
    EXPECT(accel_thr_set_num_threads(ACCEL_THR_THREADS) == ACCEL_OK,
           "set %d", ACCEL_THR_THREADS);
    pthread_create(&other, 0, call_mm_repeatedly, &theirs);
    call_mm_repeatedly(&mine);
    pthread_join(other, 0);
    printf("concurrent calls: %d and %d of 10 right\n", mine.right,
           theirs.right);
    EXPECT(mine.right == 10 && theirs.right == 10, "concurrent calls");
  }

  /* A child of fork() after the workers started (as Python's
     multiprocessing makes): it forgets the parent's workers (not in this
     process), starts one of its own, and exits without waiting for the
     parent's. */
  {
    pid_t child;
    int child_status = -1;
    EXPECT(accel_thr_set_parallel_for(0, 0, 1) == ACCEL_OK, "unset");
    EXPECT(accel_thr_set_num_threads(ACCEL_THR_THREADS) == ACCEL_OK,
           "set %d", ACCEL_THR_THREADS);
    EXPECT(run_mm(c) == ACCEL_OK, "mm before fork");
    fflush(stdout);
    child = fork();
    if (child == 0) {
      alarm(20); /* a hang is a failure, not a stuck test */
      if (run_mm(c) != ACCEL_OK || memcmp(c, c1, sizeof c) != 0)
        exit(3);
      /* Its loops run on two threads again: it started a worker of its
         own (the parent's are not in this process). */
      exit(ACCEL_THR_THREADS == 1 || threads_of_this_process() == 2 ? 0 : 4);
    }
    waitpid(child, &child_status, 0);
    printf("forked child: %s\n",
           WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0
               ? "ok"
               : "FAILED");
    EXPECT(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
           "child status %d", child_status);
  }
  printf("%s: %d wrong\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}
