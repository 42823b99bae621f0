/*===- attention_aot.c - calls an ahead-of-time compiled attention ---------===
 *
 * Part of the accel project, under the Apache License v2.0 with LLVM
 * Exceptions.
 *
 *===----------------------------------------------------------------------===
 *
 * A standalone C program (generated header + libc + libm) that links the
 * attention of examples/attention_kernel.mlir compiled ahead of time, runs it
 * on deterministic inputs and compares it with an fp64 attention computed
 * here, against the attention gate of docs/numerics.md:
 *
 *   build/bin/accel-compile examples/attention_kernel.mlir --target=cpu \
 *       --features=host -o aot
 *   clang-22 -O2 -Iaot examples/attention_aot.c -Laot -lattention_kernel \
 *       -Wl,-rpath,aot -lm -o attention_aot
 *   ./attention_aot              # prints the error and PASS or FAIL
 *   ./attention_aot bad-args     # the status codes of wrong buffers
 *   ./attention_aot no-load-check  # skips accel_attention_kernel_load_check
 *
 * Exit code: 0 PASS, 1 FAIL, 2 the library refused to run (wrong version or
 * a CPU without the compiled-for features; the message says which).
 *
 *===----------------------------------------------------------------------===*/

#include "attention_kernel.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 1, HQ = 4, HKV = 2, S = 64, D = 32 };

static void make_tensor(accel_tensor *t, void *data, int64_t b, int64_t h,
                        int64_t s, int64_t d) {
  int64_t sizes[4] = {b, h, s, d};
  int i;
  memset(t, 0, sizeof *t);
  t->data = data;
  t->rank = 4;
  for (i = 3; i >= 0; --i) {
    t->sizes[i] = sizes[i];
    t->strides[i] = i == 3 ? 1 : t->strides[i + 1] * t->sizes[i + 1];
  }
}

/* Deterministic values in [-1, 1) from a 32-bit LCG. */
static void fill(float *x, size_t n, unsigned seed) {
  size_t i;
  for (i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    x[i] = (float)((seed >> 8) / 8388608.0 - 1.0);
  }
}

static int bad_args(float *q, float *k, float *v, float *o) {
  accel_tensor tq, tk, tv, to;
  make_tensor(&tk, k, B, HKV, S, D);
  make_tensor(&tv, v, B, HKV, S, D);
  make_tensor(&to, o, B, HQ, S, D);
  make_tensor(&tq, q, B, HQ, S - 1, D);
  printf("wrong shape: %d (%s)\n", accel_attention(&tq, &tk, &tv, &to),
         accel_status_string(accel_attention(&tq, &tk, &tv, &to)));
  make_tensor(&tq, q, B, HQ, S, D);
  tq.rank = 3;
  printf("wrong rank: %d\n", accel_attention(&tq, &tk, &tv, &to));
  make_tensor(&tq, q, B, HQ, S, D);
  tq.strides[2] = 2 * D;
  printf("strided: %d (%s)\n", accel_attention(&tq, &tk, &tv, &to),
         accel_status_string(accel_attention(&tq, &tk, &tv, &to)));
  make_tensor(&tq, NULL, B, HQ, S, D);
  printf("null data: %d\n", accel_attention(&tq, &tk, &tv, &to));
  printf("null buffer: %d\n", accel_attention(&tq, NULL, &tv, &to));
  make_tensor(&to, o, B, HQ, S, D + 1);
  make_tensor(&tq, q, B, HQ, S, D);
  printf("wrong result shape: %d\n", accel_attention(&tq, &tk, &tv, &to));
  return 0;
}

int main(int argc, char **argv) {
  static float q[B * HQ * S * D], k[B * HKV * S * D], v[B * HKV * S * D],
      o[B * HQ * S * D];
  accel_tensor tq, tk, tv, to;
  double max_err = 0, max_v = 0, max_logit = 0, tol;
  int status, b, h, i, j, d, pass = 1;

  printf("library: %s\n", accel_attention_kernel_info());
  /* no-load-check: only the entry point's own checks stand between a
     missing CPU feature and the kernel. */
  status = argc > 1 && !strcmp(argv[1], "no-load-check")
               ? ACCEL_OK
               : accel_attention_kernel_load_check();
  if (status != ACCEL_OK) {
    fprintf(stderr, "attention_aot: cannot use libattention_kernel.so: %s",
            accel_status_string(status));
    if (status == ACCEL_ERR_CPU_FEATURES)
      fprintf(stderr, " (missing: %s)",
              accel_attention_kernel_missing_features());
    fprintf(stderr, "\n");
    return 2;
  }
  fill(q, sizeof q / sizeof *q, 1);
  fill(k, sizeof k / sizeof *k, 2);
  fill(v, sizeof v / sizeof *v, 3);
  if (argc > 1 && !strcmp(argv[1], "bad-args"))
    return bad_args(q, k, v, o);
  make_tensor(&tq, q, B, HQ, S, D);
  make_tensor(&tk, k, B, HKV, S, D);
  make_tensor(&tv, v, B, HKV, S, D);
  make_tensor(&to, o, B, HQ, S, D);
  for (i = 0; i < B * HQ * S * D; ++i)
    o[i] = NAN; /* every element must be written */
  status = accel_attention(&tq, &tk, &tv, &to);
  if (status != ACCEL_OK) {
    fprintf(stderr, "attention_aot: accel_attention: %s\n",
            accel_status_string(status));
    return 2;
  }

  /* fp64 causal GQA attention: query head h reads key/value head
     h / (HQ / HKV); query i sees keys j <= i; scale 1/sqrt(D). */
  for (i = 0; i < B * HKV * S * D; ++i)
    max_v = fmax(max_v, fabs(v[i]));
  for (b = 0; b < B; ++b)
    for (h = 0; h < HQ; ++h) {
      int hk = h / (HQ / HKV);
      const float *qh = q + ((size_t)(b * HQ + h) * S) * D;
      const float *kh = k + ((size_t)(b * HKV + hk) * S) * D;
      const float *vh = v + ((size_t)(b * HKV + hk) * S) * D;
      const float *oh = o + ((size_t)(b * HQ + h) * S) * D;
      for (i = 0; i < S; ++i) {
        double s[S], m = -INFINITY, sum = 0;
        for (j = 0; j <= i; ++j) {
          double dot = 0;
          for (d = 0; d < D; ++d)
            dot += (double)qh[i * D + d] * kh[j * D + d];
          s[j] = dot / sqrt((double)D);
          max_logit = fmax(max_logit, fabs(s[j]));
          m = fmax(m, s[j]);
        }
        for (j = 0; j <= i; ++j)
          sum += s[j] = exp(s[j] - m);
        for (d = 0; d < D; ++d) {
          double ref = 0, err;
          for (j = 0; j <= i; ++j)
            ref += s[j] / sum * vh[j * D + d];
          err = fabs((double)oh[i * D + d] - ref);
          if (!(err <= max_err)) /* NaN counts as an error */
            max_err = isnan(err) ? INFINITY : err;
        }
      }
    }
  /* docs/numerics.md, attention, f32 output: atol + the rounding of large
     logits + the output's rounding and the f32 sum over keys. */
  tol = 1e-5 + 2 * max_v * 2 * ldexp(1, -24) * max_logit +
        (ldexp(1, -24) + 2 * sqrt((double)S) * ldexp(1, -24)) * max_v;
  pass = max_err <= tol;
  printf("attention B=%d Hq=%d Hkv=%d S=%d D=%d causal f32: max error %.3g, "
         "tolerance %.3g: %s\n",
         B, HQ, HKV, S, D, max_err, tol, pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
