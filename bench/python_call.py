#!/usr/bin/env python3
"""The cost of the call boundary from Python (issue 33): microseconds per
call of an accel CPU kernel through each path a user has, on a kernel small
enough that the boundary is what is measured.

    python3 bench/python_call.py [--calls=N] [--repeats=R] [--shape=M,K,N]

Paths (the same compiled f32 matmul, M x K x N, default 8 x 16 x 4):

- kernel alone: the entry point called from C in a loop (a small C program
  linked against the library; no Python): the floor every path adds to;
- numpy, ctypes: `lib["mm"](a, b)` on numpy arrays (checks, the result
  allocated, the C ABI call);
- numpy, out=: the same writing a preallocated result;
- DLPack (JAX arrays): `lib["mm"](ja, jb)` on jax.Array inputs, read in place
  through their DLPack capsules;
- JAX FFI, jit per call: `jax.jit(accel.jax.kernel(...))` called from Python
  with jax.Array inputs, `block_until_ready` each call;
- JAX FFI in an XLA loop: 1000 calls inside one jitted `lax.fori_loop`, each
  on the previous result times zero (so none is hoisted or dropped), per
  call: the custom call's own cost, with no Python between calls;
- jnp.matmul, jit per call: JAX's own dispatch of the same product, the
  reference for what a jitted call costs anyway;
- PyTorch (when installed): the kernel as a custom op (`accel.torch.register`)
  called eagerly on CPU tensors, and `torch.matmul` eagerly for reference.

Each figure is the median over R repeats of (time of N calls) / N after a
warm-up. Prints the CPU model and features, the commit and the versions.
Every path's result is checked against float64 first (FAIL otherwise).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))

import numpy as np  # noqa: E402

import peers  # noqa: E402
from accel import aot, ir  # noqa: E402

C_LOOP = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench_call.h"
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv) {
  long calls = atol(argv[1]), repeats = atol(argv[2]);
  int m = atoi(argv[3]), k = atoi(argv[4]), n = atoi(argv[5]);
  float *a = calloc((size_t)m * k, 4), *b = calloc((size_t)k * n, 4), *c = calloc((size_t)m * n, 4);
  accel_tensor ta = {a, 2, {m, k}, {k, 1}}, tb = {b, 2, {k, n}, {n, 1}}, tc = {c, 2, {m, n}, {n, 1}};
  for (long i = 0; i < calls; ++i) if (accel_mm(&ta, &tb, &tc)) return 1;
  for (long r = 0; r < repeats; ++r) {
    double t0 = now();
    for (long i = 0; i < calls; ++i) accel_mm(&ta, &tb, &tc);
    printf("%.6f\n", (now() - t0) / calls * 1e6);
  }
  return 0;
}
"""


def timed(fn, calls, repeats):
    for _ in range(min(calls, 200)):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return float(np.median(samples))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--shape", default="8,16,4")
    args = ap.parse_args()
    m, k, n = (int(x) for x in args.shape.split(","))

    f = ir.Function("mm")
    a_arg, b_arg = f.arg((m, k), "f32"), f.arg((k, n), "f32")
    f.ret(f.matmul(a_arg, b_arg))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    ref = a.astype(np.float64) @ b
    gate = k * 2.0 ** -24 / (1 - k * 2.0 ** -24) * float((np.abs(a) @ np.abs(b)).max())
    rows = []

    def check(name, value):
        err = float(np.abs(np.asarray(value, np.float64) - ref).max())
        if not err <= gate:
            print(f"FAIL {name}: error {err:.3g} > gate {gate:.3g}")
            sys.exit(1)

    with tempfile.TemporaryDirectory() as tmp:
        art = aot.compile(f, out_dir=Path(tmp) / "aot", name="bench_call", features="host")
        lib = aot.load(art)
        kernel = lib["mm"]
        exe = Path(tmp) / "loop"
        (Path(tmp) / "loop.c").write_text(C_LOOP)
        subprocess.run(["clang-22", "-O2", f"-I{art.folder}", str(Path(tmp) / "loop.c"),
                        str(art.folder / "bench_call.o"), "-o", str(exe)], check=True)
        out = subprocess.run([str(exe), str(args.calls * 10), str(args.repeats), str(m),
                              str(k), str(n)], capture_output=True, text=True, check=True)
        rows.append(("kernel alone (C loop)", float(np.median([float(x) for x in
                                                               out.stdout.split()]))))
        check("numpy", kernel(a, b))
        rows.append(("numpy, ctypes", timed(lambda: kernel(a, b), args.calls, args.repeats)))
        c = np.empty((m, n), np.float32)
        rows.append(("numpy, out=", timed(lambda: kernel(a, b, out=[c]), args.calls,
                                          args.repeats)))
        try:
            import jax
            import jax.numpy as jnp

            import accel.jax as ajax
        except ImportError as err:
            print(f"JAX paths skipped: {err}")
        else:
            ja, jb = jnp.asarray(a), jnp.asarray(b)
            check("DLPack", kernel(ja, jb))
            rows.append(("DLPack (JAX arrays), ctypes", timed(lambda: kernel(ja, jb),
                                                              args.calls, args.repeats)))
            jitted = jax.jit(ajax.kernel(kernel))
            check("JAX FFI", jitted(ja, jb))
            rows.append(("JAX FFI, jit per call", timed(
                lambda: jitted(ja, jb).block_until_ready(), args.calls, args.repeats)))
            inner = ajax.kernel(kernel)
            loop_n = 1000

            @jax.jit
            def loop(x, y):
                # Each call reads the previous result (times zero), so XLA
                # can neither hoist the call out of the loop nor drop one.
                def body(i, prev):
                    return inner(x + prev[0, 0] * 0.0, y)
                return jax.lax.fori_loop(0, loop_n, body, jnp.zeros((m, n), jnp.float32))
            check("JAX FFI loop", loop(ja, jb))
            per_loop = timed(lambda: loop(ja, jb).block_until_ready(),
                             max(1, args.calls // 100), args.repeats)
            rows.append((f"JAX FFI in an XLA loop ({loop_n} calls), per call",
                         per_loop / loop_n))
            ref_jit = jax.jit(jnp.matmul)
            check("jnp", ref_jit(ja, jb))
            rows.append(("jnp.matmul, jit per call (JAX alone)", timed(
                lambda: ref_jit(ja, jb).block_until_ready(), args.calls, args.repeats)))

        try:
            import torch

            import accel.torch as atorch
        except ImportError as err:
            print(f"PyTorch paths skipped: {err}")
        else:
            op = atorch.register(kernel, "bench_mm")
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            check("torch custom op", op(ta, tb).numpy())
            rows.append(("PyTorch custom op (accel.torch), eager", timed(
                lambda: op(ta, tb), args.calls, args.repeats)))
            check("torch.matmul", torch.matmul(ta, tb).numpy())
            rows.append(("torch.matmul, eager (PyTorch alone)", timed(
                lambda: torch.matmul(ta, tb), args.calls, args.repeats)))

    print(f"python call boundary: f32 matmul {m}x{k}x{n}, median of {args.repeats} x "
          f"{args.calls} calls")
    print(f"machine: {peers.machine()}")
    print(f"commit: {peers.commit()}")
    vers = [f"python {sys.version.split()[0]}", f"numpy {np.__version__}"]
    for module in ("jax", "torch"):
        try:
            vers.append(f"{module} {__import__(module).__version__}")
        except ImportError:
            pass
    print("versions: " + ", ".join(vers))
    width = max(len(r[0]) for r in rows)
    print(f"{'path':<{width}}  us/call")
    for name, us in rows:
        print(f"{name:<{width}}  {us:8.2f}")


if __name__ == "__main__":
    main()
