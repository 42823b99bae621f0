#!/usr/bin/env python3
"""Sharded kernels on this machine, and the scale model's table
(docs/distributed.md).

    python3 bench/distributed.py [--quick] [--samples=N] [--rounds=R]
                                 [--log=FILE]
        Tensor-parallel MLP (column- then row-parallel, one all-reduce) and
        head-parallel causal attention, compiled with accel-compile
        --target=cpu as one process's library, run by a C program of 2 MPI
        processes (MPICH, one core each) and, for the reference, the same
        function unsharded in 1 process. Prints each time, the speedup
        (goal >= 1.8), the largest difference between the two results, and
        the bytes the kernels handed to MPI (counted at MPI_Allreduce by the
        program) against accel-scale-model's prediction (goal: 1.00).

    python3 bench/distributed.py --table [--out=FILE]
        accel-scale-model's predicted step time of a 4096-wide MLP and
        attention under tensor and data parallelism on 2-1024 devices of
        several catalogue targets (their interconnects), with the bytes per
        process per step (markdown).
"""
import argparse
import math
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("ACCEL_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
MPICH_INCLUDE = "/usr/include/x86_64-linux-gnu/mpich"


def mlp_module(name, tokens, d, hidden, grid, elem="f32", acc="f32"):
    """Megatron's MLP: W1 split by columns, W2 by rows over `grid`
    processes (grid 0: no annotations)."""
    h_acc = elem  # the hidden activation stays in the input type
    lines = [f"module @{name} {{"]
    if grid:
        lines.append(f"  shard.grid @grid(shape = {grid})")
    lines.append(
        f"  func.func @mlp(%x: tensor<{tokens}x{d}x{elem}>, "
        f"%w1: tensor<{d}x{hidden}x{elem}>, %w2: tensor<{hidden}x{d}x{elem}>)"
        f" -> tensor<{tokens}x{d}x{acc}> {{")
    w1, w2 = "%w1", "%w2"
    if grid:
        lines += [
            "    %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding",
            f"    %w1a = shard.shard %w1 to %s1 annotate_for_users : tensor<{d}x{hidden}x{elem}>",
            "    %s2 = shard.sharding @grid split_axes = [[0], []] : !shard.sharding",
            f"    %w2a = shard.shard %w2 to %s2 annotate_for_users : tensor<{hidden}x{d}x{elem}>",
        ]
        w1, w2 = "%w1a", "%w2a"
    lines += [
        f"    %e = tensor.empty() : tensor<{tokens}x{hidden}x{h_acc}>",
        f"    %h = accel.matmul ins(%x, {w1} : tensor<{tokens}x{d}x{elem}>, "
        f"tensor<{d}x{hidden}x{elem}>) outs(%e : tensor<{tokens}x{hidden}x{h_acc}>)"
        f" -> tensor<{tokens}x{hidden}x{h_acc}>",
        f"    %e2 = tensor.empty() : tensor<{tokens}x{d}x{acc}>",
        f"    %y = accel.matmul ins(%h, {w2} : tensor<{tokens}x{hidden}x{h_acc}>, "
        f"tensor<{hidden}x{d}x{elem}>) outs(%e2 : tensor<{tokens}x{d}x{acc}>)"
        f" -> tensor<{tokens}x{d}x{acc}>",
    ]
    out = "%y"
    if grid:
        lines += [
            "    %r = shard.sharding @grid split_axes = [[]] : !shard.sharding",
            f"    %ya = shard.shard %y to %r : tensor<{tokens}x{d}x{acc}>",
        ]
        out = "%ya"
    lines += [f"    return {out} : tensor<{tokens}x{d}x{acc}>", "  }", "}"]
    return "\n".join(lines) + "\n", [
        ("x", (tokens, d)), ("w1", (d, hidden)), ("w2", (hidden, d))
    ], [("y", (tokens, d))]


def attention_module(name, batch, heads, kv_heads, seq, head_dim, grid,
                     split="heads", elem="f32"):
    """Causal GQA attention split over heads (or the batch) on `grid`
    processes (grid 0: no annotations)."""
    q = f"tensor<{batch}x{heads}x{seq}x{head_dim}x{elem}>"
    kv = f"tensor<{batch}x{kv_heads}x{seq}x{head_dim}x{elem}>"
    lines = [f"module @{name} {{"]
    if grid:
        lines.append(f"  shard.grid @grid(shape = {grid})")
    lines.append(
        f"  func.func @attention(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{")
    qv = "%q"
    if grid:
        axes = "[[], [0]]" if split == "heads" else "[[0]]"
        lines += [
            f"    %s = shard.sharding @grid split_axes = {axes} : !shard.sharding",
            f"    %qa = shard.shard %q to %s annotate_for_users : {q}",
        ]
        qv = "%qa"
    lines += [
        f"    %e = tensor.empty() : {q}",
        f"    %o = accel.attention causal ins({qv}, %k, %v : {q}, {kv}, {kv}) "
        f"outs(%e : {q}) -> {q}",
        f"    return %o : {q}", "  }", "}",
    ]
    return "\n".join(lines) + "\n", [
        ("q", (batch, heads, seq, head_dim)),
        ("k", (batch, kv_heads, seq, head_dim)),
        ("v", (batch, kv_heads, seq, head_dim)),
    ], [("o", (batch, heads, seq, head_dim))]


DRIVER = r"""
/* bench/distributed.py's driver: fills the whole inputs (the same on every
   process), hands each process its block (from the library's JSON), times
   the kernel (MPI_Barrier, then the call; median), counts the bytes the
   kernel gives MPI_Allreduce, and rank 0 writes its result. */
#include "%(module)s.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double allreduce_bytes = 0;
static long allreduce_calls = 0;
/* The library's MPI_Allreduce resolves to this one (the program's symbols
   come first); MPICH's PMPI_ entry point does the work. */
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                  MPI_Comm c) {
  int size = 0;
  PMPI_Type_size(t, &size);
  allreduce_bytes += (double)n * size;
  allreduce_calls += 1;
  return PMPI_Allreduce(s, r, n, t, op, c);
}

static float value(uint64_t seed, uint64_t i) {
  uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (i * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31; x *= 0x94D049BB133111EBull; x ^= x >> 29;
  return (float)((double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int samples = argc > 1 ? atoi(argv[1]) : 10;
  if (accel_%(module)s_load_check() != ACCEL_OK) {
    fprintf(stderr, "library mismatch\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
%(setup)s
  double *times = malloc(sizeof(double) * samples);
  for (int s = -1; s < samples; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (s == 0) { allreduce_bytes = 0; allreduce_calls = 0; }
    double t0 = MPI_Wtime();
    int status = accel_%(func)s(%(call)s);
    double t1 = MPI_Wtime();
    if (status != ACCEL_OK) {
      fprintf(stderr, "rank %%d: %%s\n", rank, accel_status_string(status));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (s >= 0) times[s] = t1 - t0;
  }
  qsort(times, samples, sizeof(double), cmp);
  if (rank == 0) {
    printf("median_ms %%.4f\n", times[samples / 2] * 1e3);
    printf("allreduce_bytes_per_call %%.0f\n",
           samples ? allreduce_bytes / samples : 0.0);
    printf("allreduce_calls_per_call %%.2f\n",
           samples ? (double)allreduce_calls / samples : 0.0);
    FILE *f = fopen(argv[2], "wb");
    fwrite(%(out)s, sizeof(float), %(out_count)s, f);
    fclose(f);
  }
  MPI_Finalize();
  return 0;
}
"""


def driver_source(module, func, inputs, outputs, meta):
    """The driver for `module`: each argument's block per its JSON entry."""
    kernel = meta["kernels"][0]
    grid = meta.get("grid", [1])
    setup, call = [], []
    for i, ((name, whole), arg) in enumerate(zip(inputs, kernel["arguments"])):
        local = arg["shape"]
        axes = arg.get("split_axes", [])
        count = 1
        for n in local:
            count *= n
        setup.append(f"  float *{name} = malloc(sizeof(float) * {count});")
        # Offsets of this rank's block: 1-D grids (rank = index).
        offs = []
        for d in range(len(whole)):
            split = axes[d] if d < len(axes) else []
            offs.append(f"({'rank' if split else '0'}) * {local[d]}")
        idx = " + ".join(
            f"(({offs[d]}) + i{d}) * {stride}" for d, stride in enumerate(
                [math.prod(whole[d + 1:])
                 for d in range(len(whole))]))
        loops = "".join(f"for (int64_t i{d} = 0; i{d} < {local[d]}; ++i{d}) "
                        for d in range(len(local)))
        lin = " + ".join(
            f"i{d} * {math.prod(local[d + 1:])}"
            for d in range(len(local)))
        setup.append(f"  {loops}{name}[{lin}] = value({i}, {idx});")
        sizes = ", ".join(map(str, local))
        strides = ", ".join(
            str(math.prod(local[d + 1:]))
            for d in range(len(local)))
        setup.append(f"  accel_tensor t_{name} = {{{name}, {len(local)}, "
                     f"{{{sizes}}}, {{{strides}}}}};")
        call.append(f"&t_{name}")
    (oname, _), res = outputs[0], kernel["results"][0]
    count = 1
    for n in res["shape"]:
        count *= n
    setup.append(f"  float *{oname} = malloc(sizeof(float) * {count});")
    sizes = ", ".join(map(str, res["shape"]))
    strides = ", ".join(
        str(math.prod(res["shape"][d + 1:]))
        for d in range(len(res["shape"])))
    setup.append(f"  accel_tensor t_{oname} = {{{oname}, {len(res['shape'])}, "
                 f"{{{sizes}}}, {{{strides}}}}};")
    call.append(f"&t_{oname}")
    return DRIVER % {
        "module": module, "func": func, "setup": "\n".join(setup),
        "call": ", ".join(call), "out": oname, "out_count": count,
    }


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def build(work, name, text, func, inputs, outputs):
    src = os.path.join(work, name + ".mlir")
    with open(src, "w") as f:
        f.write(text)
    out = os.path.join(work, name)
    run([os.path.join(BIN, "accel-compile"), src, "--target=cpu",
         "--features=host", "-o", out])
    with open(os.path.join(out, name + ".json")) as f:
        meta = json.load(f)
    csrc = os.path.join(work, name + "-driver.c")
    with open(csrc, "w") as f:
        f.write(driver_source(name, func, inputs, outputs, meta))
    exe = os.path.join(work, name + "-driver")
    run(["clang-22", "-O2", "-I", out, "-I", MPICH_INCLUDE, csrc, "-L", out,
         "-l" + name, "-lmpich", f"-Wl,-rpath,{out}", "-o", exe])
    return src, exe


def measure(exe, ranks, samples, result):
    env = dict(os.environ, MPIEXEC_TIMEOUT="600")
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    p = run(["mpiexec.mpich", "-n", str(ranks), "-bind-to", "core", exe,
             str(samples), result], env=env)
    vals = dict(line.split() for line in p.stdout.splitlines() if " " in line)
    return float(vals["median_ms"]), float(vals["allreduce_bytes_per_call"])


def predicted_payload(src):
    p = run([os.path.join(BIN, "accel-opt"), src,
             "--accel-scale-model=target=x86-64-avx512 report=-",
             "-o", "/dev/null"])
    rows = [l.split("\t") for l in p.stdout.splitlines()[1:] if l.strip()]
    return float(rows[0][6])


def max_rel_diff(a, b):
    import array
    x, y = array.array("f"), array.array("f")
    with open(a, "rb") as f:
        x.frombytes(f.read())
    with open(b, "rb") as f:
        y.frombytes(f.read())
    # Rank 0's result: the whole (replicated) or its leading block (split
    # on the outermost dimension that is not 1).
    if len(x) > len(y):
        return float("inf")
    worst = 0.0
    for u, v in zip(x, y):
        worst = max(worst, abs(u - v) / (1.0 + abs(v)))
    return worst


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    flags = set()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    feats = [f for f in ("avx2", "fma", "avx512f", "avx512_bf16",
                         "avx512_vnni", "amx_tile") if f in flags]
    return f"{model}, {os.cpu_count()} cores, features {','.join(feats)}"


def commit():
    try:
        return run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).stdout.strip()
    except Exception:
        return "unknown"


def bench(args):
    work = tempfile.mkdtemp(prefix="accel-dist-")
    cases = []
    if args.quick:
        mlp = dict(tokens=64, d=512, hidden=2048)
        att = dict(batch=1, heads=8, kv_heads=8, seq=256, head_dim=64)
    else:
        mlp = dict(tokens=1024, d=2048, hidden=8192)
        att = dict(batch=1, heads=16, kv_heads=16, seq=1024, head_dim=128)
    cases.append((f"TP MLP {mlp['tokens']} tokens x {mlp['d']} -> "
                  f"{mlp['hidden']} -> {mlp['d']}, f32", "mlp",
                  lambda g, n: mlp_module(n, grid=g, **mlp)))
    cases.append((f"head-parallel causal attention B {att['batch']}, H "
                  f"{att['heads']}, S {att['seq']}, d {att['head_dim']}, f32",
                  "attention", lambda g, n: attention_module(n, grid=g, **att)))
    lines = [f"# bench/distributed.py at {commit()} on {machine()}",
             "# 1 process x 1 core (unsharded) vs 2 MPI processes x 1 core "
             "(MPICH, -bind-to core); median of "
             f"{args.samples} calls after one warm-up, median over "
             f"{args.rounds} alternating rounds (speedup: the median of "
             "the rounds' ratios)"]
    header = ("case", "1 process ms", "2 processes ms", "speedup",
              "max rel diff", "all-reduce bytes measured", "predicted",
              "measured / predicted")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    ok = True
    for label, func, make in cases:
        text1, ins, outs = make(0, func + "_one")
        text2, _, _ = make(2, func + "_two")
        _, exe1 = build(work, func + "_one", text1, func, ins, outs)
        src2, exe2 = build(work, func + "_two", text2, func, ins, outs)
        r1, r2 = os.path.join(work, "r1.bin"), os.path.join(work, "r2.bin")
        # Rounds alternate the two runs (this VM's speed drifts between
        # minutes); the medians over the rounds are reported.
        ones, twos, speedups = [], [], []
        for _ in range(args.rounds):
            a, _ = measure(exe1, 1, args.samples, r1)
            b, measured = measure(exe2, 2, args.samples, r2)
            ones.append(a)
            twos.append(b)
            speedups.append(a / b)
        t1, t2 = statistics.median(ones), statistics.median(twos)
        speedup = statistics.median(speedups)
        predicted = predicted_payload(src2)
        diff = max_rel_diff(r2, r1)
        ratio = measured / predicted if predicted else (1.0 if measured == 0 else float("inf"))
        lines.append(f"| {label} | {t1:.2f} | {t2:.2f} | {speedup:.2f} | "
                     f"{diff:.1e} | {measured:.0f} | {predicted:.0f} | "
                     f"{ratio:.2f} |")
        ok &= diff < 1e-2 and abs(ratio - 1.0) < 1e-9
    shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.log:
        with open(args.log, "w") as f:
            f.write(text)
    return 0 if ok else 1


TARGETS = ["h100", "b200", "mi300x", "tpu-v5p", "rtx4090"]
DEVICES = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def table(args):
    work = tempfile.mkdtemp(prefix="accel-scale-")
    # A 4096-wide MLP (hidden 16384) on 8192 tokens and causal attention
    # (32 heads of 128, 8 KV heads, 4096 tokens, batch 64): bf16 inputs,
    # the row-parallel matmul accumulating in f32.
    mlp = dict(tokens=8192, d=4096, hidden=16384, elem="bf16", acc="f32")
    att = dict(batch=64, heads=32, kv_heads=8, seq=4096, head_dim=128,
               elem="bf16")
    workloads = [
        ("MLP 4096 -> 16384 -> 4096, 8192 tokens, tensor parallel (W1 by "
         "columns, W2 by rows)", lambda g: mlp_module("m", grid=g, **mlp), True),
        ("MLP, data parallel (tokens split; weights replicated)",
         lambda g: mlp_dp_module(g, **mlp), mlp["tokens"]),
        ("attention 32 heads (8 KV) x 128, 4096 tokens, batch 64, causal, "
         "head parallel", lambda g: attention_module("a", grid=g, **att)[0],
         att["kv_heads"]),
        ("attention, data parallel (batch split)",
         lambda g: attention_module("a", grid=g, split="batch", **att)[0],
         att["batch"]),
    ]
    out = [f"Generated by `python3 bench/distributed.py --table` at "
           f"{commit()} (accel-scale-model; no device ran).", ""]
    for title, make, limit in workloads:
        out.append(f"### {title}")
        out.append("")
        head = ["devices", "all-reduce bytes / device / step"] + [
            f"{t} step (speedup)" for t in TARGETS]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for p in DEVICES:
            if isinstance(limit, int) and not isinstance(limit, bool) and p > limit:
                out.append(f"| {p} | — | " + " | ".join(
                    "does not divide" for _ in TARGETS) + " |")
                continue
            text = make(p)
            if isinstance(text, tuple):
                text = text[0]
            src = os.path.join(work, f"w{p}.mlir")
            with open(src, "w") as f:
                f.write(text)
            cells, payload = [], None
            for t in TARGETS:
                r = run([os.path.join(BIN, "accel-opt"), src,
                         f"--accel-scale-model=target={t} report=-",
                         "-o", "/dev/null"])
                row = [l.split("\t") for l in r.stdout.splitlines()[1:]][0]
                payload = float(row[6])
                step, speedup = float(row[9]), float(row[10])
                cells.append(f"{human_time(step)} ({speedup:.1f}x)")
            out.append(f"| {p} | {human_bytes(payload)} | " + " | ".join(cells) + " |")
        out.append("")
    shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(out)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)
    return 0


def mlp_dp_module(grid, tokens, d, hidden, elem, acc):
    text, _, _ = mlp_module("m", tokens, d, hidden, 0, elem, acc)
    q = f"tensor<{tokens}x{d}x{elem}>"
    text = text.replace("module @m {",
                        f"module @m {{\n  shard.grid @grid(shape = {grid})")
    text = text.replace(
        "{\n    %e = tensor.empty()",
        "{\n    %sx = shard.sharding @grid split_axes = [[0]] : !shard.sharding\n"
        f"    %xa = shard.shard %x to %sx annotate_for_users : {q}\n"
        "    %e = tensor.empty()", 1)
    return text.replace("accel.matmul ins(%x,", "accel.matmul ins(%xa,", 1)


def human_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def human_bytes(b):
    if b == 0:
        return "0"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--log")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    return table(args) if args.table else bench(args)


if __name__ == "__main__":
    sys.exit(main())
