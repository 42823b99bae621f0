#!/usr/bin/env python3
"""NVIDIA device check, in three steps so that the GPU machine needs neither
LLVM nor our build (only Python, PyTorch and CuPy):

    python3 bench/gpu/check.py prepare [--dir .gpu-check] [--chip sm_90a]
        here, with the build tree: compiles the benchmark kernels with
        accel-compile --target=nvptx and records the numerics catalogue
        (every `accel-run --target=nvptx` RUN line of test/Integration/GPU)
        with accel-run --record: kernels, launch metadata, input buffers,
        NaN-prefilled outputs.
    python3 bench/gpu/check.py device [--dir .gpu-check] [--out OUT] [--quick]
        on the GPU machine (written for an H200 with CUDA 13, PyTorch 2.11
        and CuPy; no network): launches every recorded kernel with the
        project's own launcher (accel-launch, which prepare copies into the
        folder: it needs only the C library and libcuda; CuPy only if
        accel-launch cannot open the driver) and writes its output buffers
        next to its inputs; times every benchmark kernel with accel-launch
        --time; times our bf16 GEMM (4096^3 and
        8192^3, a few tile configurations at 4096^3, the best at 8192^3)
        against torch.matmul (cuBLAS), flash attention (bf16, B*S = 16k,
        H*d = 2048, d 64/128, causal or not) against PyTorch SDPA's
        FlashAttention-2 and cuDNN backends, and our fp8 e4m3 GEMM against
        torch._scaled_mm (launched through CuPy on PyTorch's tensors, the
        references' timers); checks each benchmark output against a float64
        (GEMM) or f32 math-backend (attention) reference. Writes
        OUT/gpu-check.csv, OUT/gpu-check.log and OUT/gpu-results.tgz.N (the
        output buffers, gzip'd, in parts of 12 MiB). Finishes within a few minutes.
    python3 bench/gpu/check.py verify [--dir .gpu-check] --results OUT/gpu-results.tgz.0
        here again: unpacks the output buffers into the record folders and
        checks them with accel-run --replay against the fp64 oracle and the
        gates of docs/numerics.md (the same checks as the lit tests); refuses
        a folder another compiler id (another commit) prepared. Writes the
        run's record, to be committed, into
        bench/gpu/results/<date>-<commit>/ (--evidence): gpu-check.csv,
        gpu-check.log, gpu-environment.json (GPU, driver, CUDA, library
        versions), gpu-kernels.csv (every kernel with the sha256 of its PTX
        and cubin) and gpu-verify.log.

`all` runs the three in one process on a machine with the build and a GPU.
"""
import argparse
import csv
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ACCEL_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")
LOG = []


def log(*a):
    line = " ".join(str(x) for x in a)
    LOG.append(line)
    print(line, flush=True)


# --------------------------------------------------------------------------
# What is compiled
# --------------------------------------------------------------------------

def gemm_source(m, n, k, dtype="bf16", out="f32", transpose_b=False):
    b = f"tensor<{n}x{k}x{dtype}>" if transpose_b else f"tensor<{k}x{n}x{dtype}>"
    a, c = f"tensor<{m}x{k}x{dtype}>", f"tensor<{m}x{n}x{out}>"
    tb = "transpose_b " if transpose_b else ""
    return (f"func.func @gemm(%a: {a}, %b: {b}) -> {c} {{\n"
            f"  %c = tensor.empty() : {c}\n"
            f"  %0 = accel.matmul {tb}ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
            f"  return %0 : {c}\n}}\n")


def attention_source(b, h, s, d, causal, dtype="bf16"):
    """Attention on bf16 Q, K, V; dtype "tf32": f32 inputs that hold TF32
    values (accel.tf32_inputs, what compute = tf32 leaves), the TF32
    attention kernel."""
    t = f"tensor<{b}x{h}x{s}x{d}x{'f32' if dtype == 'tf32' else dtype}>"
    o = f"tensor<{b}x{h}x{s}x{d}xf32>"
    c = "causal " if causal else ""
    mark = " {accel.tf32_inputs}" if dtype == "tf32" else ""
    return (f"func.func @attn(%q: {t}, %k: {t}, %v: {t}) -> {o} {{\n"
            f"  %o = tensor.empty() : {o}\n"
            f"  %0 = accel.attention {c}ins(%q, %k, %v : {t}, {t}, {t}) "
            f"outs(%o : {o}){mark} -> {o}\n  return %0 : {o}\n}}\n")


def dequant_source(m, n, k, group=128):
    """C [m, n] f32 = A [m, k] bf16 times int4 W [n, k] (unsigned, zero
    points, bf16 scales in groups of `group`): a decode step's projection
    (issue 31)."""
    a, w = f"tensor<{m}x{k}xbf16>", f"tensor<{n}x{k // 2}xi8>"
    s, c = f"tensor<{n}x{k // group}xbf16>", f"tensor<{m}x{n}xf32>"
    return (f"func.func @dequant(%a: {a}, %w: {w}, %s: {s}, %z: {s}) -> {c} {{\n"
            f"  %c = tensor.empty() : {c}\n"
            f"  %0 = accel.dequant_matmul bits(4) group({group}) unsigned "
            f"ins(%a, %w : {a}, {w}) scales(%s : {s}) zero_points(%z : {s}) "
            f"outs(%c : {c}) -> {c}\n  return %0 : {c}\n}}\n")


def paged_source(b, ctx, hq=32, hkv=8, d=128, page=16):
    """Decode attention over a paged bf16 KV cache (issue 31): b sequences
    of up to ctx keys in `page`-token pages of a pool of b * ctx / page
    pages, Llama 3 8B's heads by default; O in bf16."""
    n = ctx // page
    q, o = f"tensor<{b}x{hq}x1x{d}xbf16>", f"tensor<{b}x{hq}x1x{d}xbf16>"
    pool = f"tensor<{b * n}x{page}x{hkv}x{d}xbf16>"
    bt, ln = f"tensor<{b}x{n}xi32>", f"tensor<{b}xi32>"
    return (f"func.func @paged(%q: {q}, %kc: {pool}, %vc: {pool}, %bt: {bt}, "
            f"%len: {ln}) -> {o} {{\n"
            f"  %o = tensor.empty() : {o}\n"
            f"  %0 = accel.paged_attention ins(%q, %kc, %vc : {q}, {pool}, {pool}) "
            f"block_table(%bt : {bt}) kv_lengths(%len : {ln}) outs(%o : {o}) -> {o}\n"
            f"  return %0 : {o}\n}}\n")


# Tile configurations of the bf16 GEMM tried at 4096^3 ("" = the default
# choice of convert-accel-to-gpu); the fastest one also runs at 8192^3.
# The default on sm_90a is wgmma; the last one is the mma.sync kernel.
GEMM_CONFIGS = ["", "mma=wgmma tile-n=128", "mma=wgmma stages=3",
                "mma=wgmma tile-m=192 tile-n=128", "mma=wgmma tile-m=128 tile-n=192",
                "mma=mma.sync tile-m=128 tile-n=256 tile-k=32 warps=8 stages=3"]
ATTENTION = [(4, 32, 4096, 64, False), (4, 32, 4096, 64, True),
             (4, 16, 4096, 128, False), (4, 16, 4096, 128, True)]
LLM_GEMMS = [(4096, 14336, 4096), (16, 4096, 4096)]
# Weight-only int4 GEMV / skinny GEMM (M, N, K), issue 31's shapes.
DEQUANT = [(1, 4096, 4096), (8, 4096, 4096), (16, 4096, 4096),
           (1, 14336, 4096), (16, 14336, 4096)]
ATTENTION_SWEEP = [(16, 16, 1024, 128, False), (16, 16, 1024, 128, True),
                   (1, 16, 16384, 128, False), (1, 16, 16384, 128, True)]
ATTENTION_CONFIGS = ["", "stages=3", "mma=mma.sync"]
# TF32 attention (f32 inputs, compute = tf32 / allow_tf32; issue 27).
ATTENTION_TF32 = [(4, 16, 4096, 128, False), (4, 16, 4096, 128, True),
                  (4, 32, 4096, 64, True)]
# Decode attention over a paged cache (batch, context), issue 31's
# contexts.
PAGED = [(1, 4096), (1, 32768), (8, 4096), (8, 32768)]


def bench_cases(quick):
    """(name, kind, shape, options, source) of every benchmark kernel."""
    cases = []
    sizes = [4096] if quick else [4096, 8192]
    for n in sizes:
        for i, opt in enumerate(GEMM_CONFIGS if not quick else GEMM_CONFIGS[:2]):
            cases.append((f"gemm_bf16_{n}_c{i}", "gemm_bf16", (n, n, n), opt,
                          gemm_source(n, n, n)))
    for (b, h, s, d, causal) in (ATTENTION[:1] if quick else ATTENTION):
        for i, opt in enumerate(ATTENTION_CONFIGS):
            cases.append((f"attn_{b}_{h}_{s}_{d}_{int(causal)}_c{i}", "attention",
                          (b, h, s, d, causal), opt,
                          attention_source(b, h, s, d, causal)))
    # Two LLM shapes (issue 29): a prefill MLP projection and a decode-size
    # batch, B as [N, K] as a linear layer holds it; the default
    # configuration only.
    for (m, n, k) in ([] if quick else LLM_GEMMS):
        cases.append((f"gemm_bf16tb_{m}x{n}x{k}", "gemm_bf16_tb", (m, n, k), "",
                      gemm_source(m, n, k, transpose_b=True)))
    # Shorter and longer sequences (issue 29: S 1k-16k), the default
    # configuration only.
    for (b, h, s, d, causal) in ([] if quick else ATTENTION_SWEEP):
        cases.append((f"attn_{b}_{h}_{s}_{d}_{int(causal)}_c0", "attention",
                      (b, h, s, d, causal), "",
                      attention_source(b, h, s, d, causal)))
    for n in sizes:
        for i, opt in enumerate(["", "mma=mma.sync"]):
            cases.append((f"gemm_bf16tb_{n}_c{i}", "gemm_bf16_tb", (n, n, n),
                          opt, gemm_source(n, n, n, transpose_b=True)))
    for (m, n, k) in (DEQUANT[:1] if quick else DEQUANT):
        cases.append((f"dequant_int4_{m}x{n}x{k}", "dequant_int4", (m, n, k),
                      "", dequant_source(m, n, k)))
    for (b, h, s, d, causal) in (ATTENTION_TF32[:1] if quick else ATTENTION_TF32):
        cases.append((f"attn_tf32_{b}_{h}_{s}_{d}_{int(causal)}", "attention_tf32",
                      (b, h, s, d, causal), "",
                      attention_source(b, h, s, d, causal, "tf32")))
    for (b, ctx) in (PAGED[:1] if quick else PAGED):
        cases.append((f"paged_bf16_{b}x{ctx}", "paged", (b, ctx), "",
                      paged_source(b, ctx)))
    for n in sizes:
        for i, opt in enumerate(["", "mma=mma.sync"]):
            cases.append((f"gemm_e4m3_{n}_c{i}", "gemm_e4m3", (n, n, n), opt,
                          gemm_source(n, n, n, "f8E4M3FN", "f32",
                                      transpose_b=True)))
    return cases


# Programs checked on the device beside the catalogue: whole functions of
# several kernels (epilogues, norms, RoPE, the Llama-style block at its small
# size), each as accel-run records it for the chips named.
PROGRAMS = [("examples/llama_block_small.mlir", ["--target=nvptx"]),
            ("examples/llama_block_small.mlir",
             ["--target=nvptx", "--nvptx-pipeline-options=chip=sm_90a"])]


def catalogue_runs(folder=None):
    """(test file, accel-run arguments) of every RUN line that runs
    `accel-run %s` with --target=nvptx (a --record or --replay folder of
    the test dropped): of `folder`, or by default of test/Integration/GPU
    and test/Conversion/AccelToGPU, then PROGRAMS."""
    folders = [folder] if folder else [
        os.path.join(ROOT, "test", "Integration", "GPU"),
        os.path.join(ROOT, "test", "Conversion", "AccelToGPU")]
    runs = []
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".mlir"):
                continue
            for line in open(os.path.join(folder, name)):
                m = re.match(r"//\s*RUN:\s*accel-run %s (.*?)\s*\|", line)
                if not m or "--target=nvptx" not in m.group(1):
                    continue
                args = [a for a in shlex.split(m.group(1))
                        if not a.startswith(("--record", "--replay"))]
                if (os.path.join(folder, name), args) not in runs:
                    runs.append((os.path.join(folder, name), args))
    if not folder:
        runs += [(os.path.join(ROOT, f), a) for f, a in PROGRAMS]
    return runs


# --------------------------------------------------------------------------
# prepare (here)
# --------------------------------------------------------------------------

def prepare(args):
    import hashlib
    import shutil
    work = os.path.abspath(args.dir)
    os.makedirs(work, exist_ok=True)
    plan = {"chip": args.chip, "catalogue": [], "bench": []}
    # The launcher travels with the kernels: it needs neither LLVM nor our
    # build on the GPU machine (tools/accel-launch).
    launcher_bin = os.path.join(BIN, "accel-launch")
    if not os.path.exists(launcher_bin):
        sys.exit(f"prepare: {launcher_bin} is missing: build accel-launch")
    shutil.copy2(launcher_bin, os.path.join(work, "accel-launch"))
    plan["launcher_sha256"] = hashlib.sha256(
        open(launcher_bin, "rb").read()).hexdigest()
    runs = [(t, a) for t, a in catalogue_runs()
            if not args.records or re.search(args.records, os.path.relpath(t, ROOT))]
    for i, (test, run_args) in enumerate(runs):
        rec = f"catalogue/{i:02d}"
        cmd = [os.path.join(BIN, "accel-run"), test] + run_args + \
            [f"--record={os.path.join(work, rec)}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"prepare: {' '.join(cmd)} failed:\n{r.stderr}")
        plan["catalogue"].append({"dir": rec, "test": os.path.relpath(test, ROOT),
                                  "args": run_args})
        log(f"recorded {os.path.relpath(test, ROOT)} {' '.join(run_args)} -> {rec}")
    for (name, kind, shape, opt, src) in ([] if args.no_bench else bench_cases(args.quick)):
        out = os.path.join(work, "bench", name)
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "kernel.mlir")
        open(path, "w").write(src)
        opts = f"chip={args.chip} {opt}".strip()
        cmd = [os.path.join(BIN, "accel-compile"), path, "--target=nvptx",
               f"--chip={args.chip}", f"--options={opt}", "-o",
               os.path.join(out, "k")]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            log(f"prepare: {name} ({opts}) does not compile: "
                f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
            continue
        # The kernel's launch metadata (kernel.json is the host library's
        # program description, docs/aot.md).
        metas = sorted(f for f in os.listdir(os.path.join(out, "k"))
                       if f.endswith(".json") and f != "kernel.json")
        # Every kernel of the function, in launch order (a paged attention's
        # split kernel, then its combine: their names sort so).
        plan["bench"].append({"name": name, "kind": kind, "shape": list(shape),
                              "options": opts,
                              "metadata": f"bench/{name}/k/{metas[0]}",
                              "kernels": [f"bench/{name}/k/{m}" for m in metas]})
        meta = json.load(open(os.path.join(out, "k", metas[0])))
        log(f"compiled {name} ({opts}): grid {meta['grid']} block {meta['block']} "
            f"smem {meta['dynamic_shared_bytes']} regs "
            f"{(meta.get('resources') or {}).get('registers', '?')}")
    # The compiler id (version + git commit) every record was made with, and
    # the sha256 of every kernel's PTX / cubin: the evidence names the code
    # it measured (`verify` writes them beside the results).
    ids = set()
    plan["kernels"] = []
    for rec in plan["catalogue"]:
        folder = os.path.join(work, rec["dir"])
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        ids.add(manifest["compiler"])
        for fn in manifest["functions"]:
            # One kernel ("metadata"), or a program's kernels in order.
            for meta_file in fn.get("kernels") or [fn["metadata"]]:
                meta = json.load(open(os.path.join(folder, meta_file)))
                plan["kernels"].append(kernel_row(
                    rec["test"] + " " + " ".join(rec["args"]), fn["name"], meta))
    for b in plan["bench"]:
        for path in b.get("kernels") or [b["metadata"]]:
            meta = json.load(open(os.path.join(work, path)))
            ids.add(meta["compiler"])
            plan["kernels"].append(kernel_row("bench " + b["options"], b["name"], meta))
    if len(ids) != 1:
        sys.exit(f"prepare: the kernels come from several compilers: {sorted(ids)}")
    plan["compiler"] = ids.pop()
    json.dump(plan, open(os.path.join(work, "plan.json"), "w"), indent=1)
    log(f"prepared {work}: {len(plan['catalogue'])} catalogue records, "
        f"{len(plan['bench'])} benchmark kernels")
    if args.archive:
        pack(work, args.archive, args.max_part_mib)


def kernel_row(source, name, meta):
    """One line of gpu-kernels.csv: where the kernel comes from and the
    sha256 of its PTX and cubin, as its metadata records them."""
    h = meta.get("sha256") or {}
    return [source, name, meta["kernel"], meta["chip"], h.get("ptx", ""),
            h.get("cubin", "")]


def pack(work, archive, max_part_mib=0):
    """`work` as a gzip'd tar for the GPU machine, each set of identical
    files (records of one test under other options share their inputs)
    stored once, as hard links. With max_part_mib, in parts
    (ARCHIVE stem + .partN.tar.gz) of at most that many MiB of distinct
    input bytes each, for machines that take a limited tree per call: every
    part holds plan.json and accel-launch, some of the catalogue records,
    and the last one the benchmark kernels; `device` runs what its part
    holds and `verify` takes every part's results."""
    import hashlib
    seen = {}
    sizes = {}
    for folder, _, files in sorted(os.walk(work)):
        for name in sorted(files):
            path = os.path.join(folder, name)
            data = open(path, "rb").read()
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen and not os.path.samefile(seen[digest], path):
                os.remove(path)
                os.link(seen[digest], path)
            seen.setdefault(digest, path)
            # What the part costs: distinct bytes, an all-ones output
            # prefill (which compresses to nothing) not counted.
            sizes[path] = (digest, 0 if data.count(255) == len(data) else len(data))
    def no_results(info):  # results of an earlier run never travel
        return None if info.name.endswith(".result.bin") else info

    if not max_part_mib:
        with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
            tar.add(work, ".", filter=no_results)
        log(f"packed {work} into {archive} ({os.path.getsize(archive) >> 20} MiB)")
        return
    plan = json.load(open(os.path.join(work, "plan.json")))
    parts, current, held, used = [], [], set(), 0
    for rec in plan["catalogue"]:
        folder = os.path.join(work, rec["dir"])
        files = [os.path.join(folder, n) for n in sorted(os.listdir(folder))]
        new = {sizes[f][0]: sizes[f][1] for f in files if sizes[f][0] not in held}
        cost = sum(new.values())
        if current and used + cost > max_part_mib << 20:
            parts.append(current)
            current, held, used = [], set(), 0
            new = {sizes[f][0]: sizes[f][1] for f in files}
            cost = sum(new.values())
        current.append(rec["dir"])
        held |= set(new)
        used += cost
    if current or not parts:
        parts.append(current)
    stem = archive[:-len(".tar.gz")] if archive.endswith(".tar.gz") else archive
    for i, dirs in enumerate(parts):
        name = f"{stem}.part{i}.tar.gz"
        with tarfile.open(name, "w:gz", compresslevel=6) as tar:
            tar.add(os.path.join(work, "plan.json"), "./plan.json")
            tar.add(os.path.join(work, "accel-launch"), "./accel-launch")
            for d in dirs:
                tar.add(os.path.join(work, d), f"./{d}", filter=no_results)
            if i == len(parts) - 1 and os.path.isdir(os.path.join(work, "bench")):
                tar.add(os.path.join(work, "bench"), "./bench")
        log(f"packed {(dirs[0] + '..' + dirs[-1]) if dirs else 'no records'} into {name} "
            f"({os.path.getsize(name) >> 20} MiB)")


# --------------------------------------------------------------------------
# device (the GPU machine)
# --------------------------------------------------------------------------

def load_kernel(folder, meta):
    """The kernel of `meta` from its cubin (or PTX, which the driver JIT
    compiles) in `folder`, allowed the dynamic shared memory it needs."""
    import cupy
    image = os.path.join(folder, meta["cubin"] or meta["ptx"])
    kernel = cupy.RawModule(path=image).get_function(meta["kernel"])
    smem = meta["dynamic_shared_bytes"]
    if smem > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = smem
    return kernel, smem


def launcher(folder, meta, tensors):
    """A function launching `meta`'s kernel on `tensors` (torch tensors or
    CuPy arrays, one per buffer argument, in order)."""
    import cupy
    kernel, smem = load_kernel(folder, meta)
    ptrs = []
    for arg, t in zip(meta["arguments"], tensors):
        if arg["kind"] != "buffer":
            raise RuntimeError(f"{meta['kernel']}: scalar argument {arg['name']} "
                               "is not supported here")
        ptr = t.data_ptr() if hasattr(t, "data_ptr") else t.data.ptr
        ptrs.append(cupy.uint64(ptr))
    grid, block = tuple(meta["grid"]), tuple(meta["block"])
    ptrs = tuple(ptrs)
    return lambda: kernel(grid, block, ptrs, shared_mem=smem)


def timed(fn, repeats, warmup=5):
    """Median milliseconds of `repeats` runs of `fn`, with CUDA events."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def run_catalogue(work, plan, rows):
    """Launches every recorded kernel once on its recorded buffers with
    accel-launch (the project's launcher), which writes the buffers each
    function's kernels write as <fn>.b<N>.result.bin / <fn>.<name>.result.bin;
    CuPy only where accel-launch cannot open the driver."""
    tool = os.path.join(work, "accel-launch")
    folders = [os.path.join(work, rec["dir"]) for rec in plan["catalogue"]]
    if not folders:
        log("catalogue: no records here")
        return
    r = subprocess.run([tool] + folders, capture_output=True, text=True,
                       timeout=300)
    for line in r.stdout.splitlines() + r.stderr.splitlines():
        log("  " + line)
    errors = [l for l in r.stderr.splitlines() if l.startswith("accel-launch: error:")]
    if r.returncode != 0 and any("no NVIDIA driver" in l for l in errors):
        log("catalogue: accel-launch cannot open the driver; launching with CuPy")
        return run_catalogue_cupy(work, plan, rows)
    for line in errors:
        rows.append(("numerics", line[len("accel-launch: error: "):], "FAIL",
                     "", "accel-launch"))
    summary = (r.stdout.strip().splitlines() or [""])[-1]
    rows.append(("launcher", "accel-launch catalogue", str(r.returncode), "0",
                 summary))
    log(f"catalogue: {summary} (rc {r.returncode}; checked by `check.py verify`)")


def run_catalogue_cupy(work, plan, rows):
    """The catalogue through CuPy: the fallback where accel-launch cannot
    run. Single-kernel records only."""
    import cupy
    import numpy as np
    launched = 0
    for rec in plan["catalogue"]:
        folder = os.path.join(work, rec["dir"])
        manifest = json.load(open(os.path.join(folder, "manifest.json")))
        for fn in manifest["functions"]:
            try:
                meta = json.load(open(os.path.join(folder, fn["metadata"])))
                bufs = [cupy.asarray(np.fromfile(os.path.join(folder, b), np.uint8))
                        for b in fn["buffers"]]
                launcher(folder, meta, bufs)()
                cupy.cuda.Device().synchronize()
                for i, (arg, b) in enumerate(zip(meta["arguments"], bufs)):
                    if arg["access"] != "in":
                        cupy.asnumpy(b).tofile(os.path.join(
                            folder, f"{fn['name']}.b{i}.result.bin"))
                launched += 1
            except Exception as e:  # keep going: replay reports the missing ones
                log(f"catalogue {rec['test']} @{fn['name']}: launch failed: {e}")
                rows.append(("numerics", f"{rec['test']} @{fn['name']}", "FAIL",
                             "", f"launch: {e}"))
    log(f"catalogue (CuPy): launched {launched} kernels (checked by `check.py verify`)")


def time_with_launcher(work, plan, rows, repeats):
    """Every benchmark kernel timed by accel-launch --time (its own CUDA
    events, inputs it generates): the same kernels the CuPy-launched
    benchmarks below time, so the two timers check each other."""
    tool = os.path.join(work, "accel-launch")
    # Not the paged attention's: accel-launch's own inputs make no valid
    # block table (its kernels would read nothing; bench_paged times them).
    metas = [os.path.join(work, b["metadata"]) for b in plan["bench"]
             if b["kind"] != "paged"]
    if not metas:
        return
    r = subprocess.run([tool, "--time", f"--repeat={repeats}"] + metas,
                       capture_output=True, text=True, timeout=300)
    by_path = {os.path.join(work, b["metadata"]): b for b in plan["bench"]}
    for line in r.stdout.splitlines():
        m = re.match(r"(\S+): (\S+) ([0-9.]+) ms \(median of (\d+)\)", line)
        if not m or m.group(1) not in by_path:
            log("  " + line)
            continue
        b = by_path[m.group(1)]
        ms = float(m.group(3))
        note = f"{m.group(2)}, median of {m.group(4)}"
        if b["kind"].startswith("gemm"):
            mm, n, k = b["shape"]
            note += f", {2.0 * mm * n * k / ms / 1e9:.1f} TFLOP/s"
        log(f"accel-launch --time {b['name']} [{b['options']}]: {ms:.4f} ms ({note})")
        rows.append(("launcher", f"{b['name']} [{b['options']}]", f"{ms:.4f}",
                     "", "ms, " + note))
    for line in r.stderr.splitlines():
        log("  " + line)
        if line.startswith("accel-launch: error:"):
            rows.append(("launcher", line[len("accel-launch: error: "):], "FAIL",
                         "", "accel-launch --time"))


def gemm_once(work, case, rows, repeats):
    """Checks and times one bf16 GEMM kernel; its TFLOP/s and verdict."""
    import torch
    m, n, k = case["shape"]
    meta_path = os.path.join(work, case["metadata"])
    meta = json.load(open(meta_path))
    tb = case["kind"] == "gemm_bf16_tb"
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, k, device="cuda").to(torch.bfloat16) if tb else \
        torch.randn(k, n, device="cuda").to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    ours = launcher(os.path.dirname(meta_path), meta, (a, b, c))
    ours()
    torch.cuda.synchronize()
    bk = b.t() if tb else b  # [K, N] either way
    ref = a.double() @ bk.double()
    # The matmul gate of docs/numerics.md: gamma_K(2^-24) |A||B|.
    u = 2.0 ** -24
    bound = k * u / (1 - k * u) * (a.double().abs() @ bk.double().abs()) + 1e-30
    worst = float(((c.double() - ref).abs() / bound).max())
    ok = bool(torch.isfinite(c).all()) and worst <= 1.0
    del ref, bound
    t_ours = timed(ours, repeats)
    t_ref = timed(lambda: torch.matmul(a, bk), repeats)
    flops = 2.0 * m * n * k
    tf_ours, tf_ref = flops / t_ours / 1e9, flops / t_ref / 1e9
    ratio = tf_ours / tf_ref
    what = "bf16 GEMM (B as [N, K])" if tb else "bf16 GEMM"
    log(f"{what} {m}x{n}x{k} [{case['options']}]: ours {tf_ours:.1f} TFLOP/s, "
        f"torch.matmul {tf_ref:.1f} TFLOP/s, ratio {ratio:.3f} (goal >= 0.9); "
        f"worst err/gate {worst:.3f} -> {'PASS' if ok else 'FAIL'}; "
        f"{(meta.get('resources') or {}).get('registers', '?')} registers")
    rows.append(("gemm", f"{'bf16 B[N,K]' if tb else 'bf16'} {m}x{n}x{k} "
                 f"[{case['options']}]", f"{ratio:.3f}",
                 ">= 0.9", f"ours {tf_ours:.1f} TF/s, cuBLAS {tf_ref:.1f}, "
                 f"{'PASS' if ok else 'FAIL'} (err/gate {worst:.2f})"))
    del a, b, c
    torch.cuda.empty_cache()
    return tf_ours, ok


def bench_gemm(work, plan, rows, repeats):
    """Every configuration at 4096^3, then the fastest correct one (else the
    default) at the larger sizes."""
    cases = [c for c in plan["bench"] if c["kind"] == "gemm_bf16"]
    best, best_tf = None, 0.0
    for case in [c for c in cases if c["shape"][0] <= 4096]:
        tf, ok = gemm_once(work, case, rows, repeats)
        if ok and tf > best_tf:
            best, best_tf = case["name"].rsplit("_", 1)[1], tf
    for case in [c for c in cases if c["shape"][0] > 4096]:
        if case["name"].rsplit("_", 1)[1] == (best or "c0"):
            gemm_once(work, case, rows, repeats)
    for case in [c for c in plan["bench"] if c["kind"] == "gemm_bf16_tb"]:
        gemm_once(work, case, rows, repeats)


def bench_dequant(work, plan, rows, repeats):
    """The int4 weight-only kernels (DequantKernel.h) against fp64 and
    against cuBLAS's bf16 matmul with the same weights dequantised (what a
    user without int4 kernels runs); the weights' bytes read per second.
    Cold weights, as in a decode step (a model's layers do not stay in
    cache): both sides cycle through copies of their weights, 256 MiB or
    more of them, so each call reads its weights from DRAM."""
    import torch
    for case in [c for c in plan["bench"] if c["kind"] == "dequant_int4"]:
        m, n, k = case["shape"]
        group = 128
        meta_path = os.path.join(work, case["metadata"])
        meta = json.load(open(meta_path))
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        q = torch.randint(0, 16, (n, k), device="cuda", dtype=torch.int32)
        packed = (q[:, 0::2] | (q[:, 1::2] << 4)).to(torch.uint8).view(torch.int8)
        scales = (torch.rand(n, k // group, device="cuda") * 0.02 + 0.001).to(torch.bfloat16)
        zeros = torch.randint(0, 16, (n, k // group), device="cuda").to(torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        copies = max(1, -(-(256 << 20) // (n * k // 2)))
        packs = [packed.contiguous()] + [packed.clone() for _ in range(copies - 1)]
        launches = [launcher(os.path.dirname(meta_path), meta,
                             (a, p, scales, zeros, c)) for p in packs]
        turn = [0]

        def ours():
            launches[turn[0] % len(launches)]()
            turn[0] += 1
        launches[0]()
        torch.cuda.synchronize()
        # The op's dequantisation (exact here: integer zero points, bf16
        # scales), then the f32 matmul gate of docs/numerics.md.
        zf = zeros.double().repeat_interleave(group, dim=1)
        sf = scales.double().repeat_interleave(group, dim=1)
        w = (q.double() - zf) * sf
        ref = a.double() @ w.t()
        u = 2.0 ** -24
        bound = k * u / (1 - k * u) * (a.double().abs() @ w.abs().t()) + 1e-30
        worst = float(((c.double() - ref).abs() / bound).max())
        ok = bool(torch.isfinite(c).all()) and worst <= 1.0
        wb = w.to(torch.bfloat16)
        del ref, bound, zf, sf, w
        wbs = [wb] + [wb.clone() for _ in range(max(1, -(-(256 << 20) // (2 * n * k))) - 1)]
        t_ours = timed(ours, repeats)

        def theirs():
            torch.matmul(a, wbs[turn[0] % len(wbs)].t())
            turn[0] += 1
        t_ref = timed(theirs, repeats)
        nbytes = n * k // 2 + 2 * 2 * n * (k // group) + 2 * m * k
        log(f"int4 dequant {m}x{n}x{k} g{group}: ours {t_ours * 1e3:.1f} us "
            f"({nbytes / t_ours / 1e6:.0f} GB/s), cuBLAS bf16 {t_ref * 1e3:.1f} us, "
            f"cuBLAS / ours {t_ref / t_ours:.2f}; worst err/gate {worst:.3f} -> "
            f"{'PASS' if ok else 'FAIL'}; "
            f"{(meta.get('resources') or {}).get('registers', '?')} registers")
        rows.append(("dequant", f"int4 g{group} {m}x{n}x{k}", f"{t_ref / t_ours:.3f}",
                     "", f"ours {t_ours * 1e3:.1f} us ({nbytes / t_ours / 1e6:.0f} GB/s), "
                     f"cuBLAS bf16 {t_ref * 1e3:.1f} us, {'PASS' if ok else 'FAIL'} "
                     f"(err/gate {worst:.2f})"))
        del a, q, packed, packs, launches, scales, zeros, c, wb, wbs
        torch.cuda.empty_cache()


def bench_paged(work, plan, rows, repeats):
    """Decode attention over a paged bf16 KV cache (PagedAttentionKernel.h:
    the split kernel, then the combine) against PyTorch SDPA's decode path
    on the same keys gathered into a contiguous cache (FlashAttention-2
    backend, GQA; its cache needs no table: a baseline that favours it),
    and the bytes of K and V read per second. Cold pools: both sides cycle
    through copies, 256 MiB or more, so each call reads from DRAM."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    for case in [c for c in plan["bench"] if c["kind"] == "paged"]:
        b, ctx = case["shape"]
        hq, hkv, d, page = 32, 8, 128, 16
        n = ctx // page
        pages = b * n
        paths = [os.path.join(work, m) for m in case["kernels"]]
        metas = [json.load(open(m)) for m in paths]
        torch.manual_seed(2)
        q = torch.randn(b, hq, 1, d, device="cuda").to(torch.bfloat16)
        table = torch.randperm(pages, device="cuda").to(torch.int32).view(b, n)
        lengths = torch.full((b,), ctx, device="cuda", dtype=torch.int32)
        o = torch.full((b, hq, 1, d), float("nan"), device="cuda",
                       dtype=torch.bfloat16)
        pool_bytes = 2 * pages * page * hkv * d * 2
        copies = max(1, -(-(256 << 20) // pool_bytes))
        pools = [tuple(torch.randn(pages, page, hkv, d, device="cuda")
                       .to(torch.bfloat16) for _ in range(2))
                 for _ in range(copies)]
        # The splits' states (the host library's workspace temporary).
        part = None
        if len(metas) > 1:
            part = torch.empty(metas[0]["arguments"][-1]["byte_size"] // 4,
                               device="cuda", dtype=torch.float32)
        launches = []
        for kc, vc in pools:
            if part is None:
                launches.append([launcher(os.path.dirname(paths[0]), metas[0],
                                          (q, kc, vc, table, lengths, o))])
            else:
                launches.append([
                    launcher(os.path.dirname(paths[0]), metas[0],
                             (q, kc, vc, table, lengths, part)),
                    launcher(os.path.dirname(paths[1]), metas[1], (part, o))])
        turn = [0]

        def ours():
            for launch in launches[turn[0] % len(launches)]:
                launch()
            turn[0] += 1
        for launch in launches[0]:
            launch()
        torch.cuda.synchronize()
        # Reference: each sequence's keys gathered in its table's order,
        # attention in float64 (GQA: query head h reads KV head h / 4).
        kc, vc = pools[0]
        keys = kc[table.long()].reshape(b, ctx, hkv, d).permute(0, 2, 1, 3)
        vals = vc[table.long()].reshape(b, ctx, hkv, d).permute(0, 2, 1, 3)
        rep = hq // hkv
        kd = keys.double().repeat_interleave(rep, dim=1)
        vd = vals.double().repeat_interleave(rep, dim=1)
        p = torch.softmax(q.double() @ kd.transpose(-1, -2) / d ** 0.5, dim=-1)
        ref = p @ vd
        err = float((o.double() - ref).abs().max())
        ok = bool(torch.isfinite(o).all()) and err <= 2e-2
        del kd, vd, p, ref
        t_ours = timed(ours, repeats)
        nbytes = 2 * b * ctx * hkv * d * 2
        line = (f"paged decode B={b} ctx={ctx} Hq={hq} Hkv={hkv} d={d} bf16: "
                f"ours {t_ours * 1e3:.1f} us ({nbytes / t_ours / 1e6:.0f} GB/s, "
                f"splits {metas[0].get('grid', ['?'])[0]}), max err {err:.2e} "
                f"{'PASS' if ok else 'FAIL'}")
        # SDPA on contiguous caches, as many copies.
        conts = [tuple(t.contiguous() for t in (keys, vals))]
        conts += [tuple(t.clone() for t in conts[0]) for _ in range(copies - 1)]
        try:
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                def theirs():
                    k_, v_ = conts[turn[0] % len(conts)]
                    F.scaled_dot_product_attention(q, k_, v_, enable_gqa=True)
                    turn[0] += 1
                t_ref = timed(theirs, repeats)
            line += (f"; SDPA (FA2, contiguous) {t_ref * 1e3:.1f} us "
                     f"({nbytes / t_ref / 1e6:.0f} GB/s), SDPA / ours "
                     f"{t_ref / t_ours:.2f}")
            rows.append(("paged decode", f"B={b} ctx={ctx} bf16 vs SDPA FA2",
                         f"{t_ref / t_ours:.3f}", ">= 1.0",
                         f"ours {t_ours * 1e3:.1f} us "
                         f"({nbytes / t_ours / 1e6:.0f} GB/s), SDPA "
                         f"{t_ref * 1e3:.1f} us, {'PASS' if ok else 'FAIL'} "
                         f"err {err:.1e}"))
        except Exception as e:  # a backend missing on this build
            line += f"; SDPA: {e}"
            rows.append(("paged decode", f"B={b} ctx={ctx} bf16", "", "",
                         f"ours {t_ours * 1e3:.1f} us "
                         f"({nbytes / t_ours / 1e6:.0f} GB/s), "
                         f"{'PASS' if ok else 'FAIL'} err {err:.1e}"))
        log(line)
        del q, table, lengths, o, pools, launches, keys, vals, conts, part
        torch.cuda.empty_cache()


def sdpa_max_error(o, q, k, v, causal):
    """max |o - softmax(q k^T / sqrt(d)) v| by PyTorch's math backend in f32,
    one batch at a time (the f32 scores of a whole benchmark shape take
    8 GiB)."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    err = 0.0
    with sdpa_kernel(SDPBackend.MATH):
        for i in range(q.shape[0]):
            ref = F.scaled_dot_product_attention(
                q[i:i + 1].float(), k[i:i + 1].float(), v[i:i + 1].float(),
                is_causal=causal)
            err = max(err, float((o[i:i + 1] - ref).abs().max()))
            del ref
    return err


def bench_attention(work, plan, rows, repeats):
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    for case in [c for c in plan["bench"] if c["kind"] == "attention"]:
        b, h, s, d, causal = case["shape"]
        meta_path = os.path.join(work, case["metadata"])
        meta = json.load(open(meta_path))
        torch.manual_seed(1)
        q, k, v = (torch.randn(b, h, s, d, device="cuda").to(torch.bfloat16)
                   for _ in range(3))
        o = torch.full((b, h, s, d), float("nan"), device="cuda")
        ours = launcher(os.path.dirname(meta_path), meta, (q, k, v, o))
        ours()
        torch.cuda.synchronize()
        # Reference: the math backend in f32 on the same bf16 inputs.
        err = sdpa_max_error(o, q, k, v, causal)
        ok = bool(torch.isfinite(o).all()) and err <= 2e-2
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        t_ours = timed(ours, repeats)
        line = (f"attention B={b} H={h} S={s} d={d} causal={causal} "
                f"[{case['options']}]: ours {flops / t_ours / 1e9:.1f} TFLOP/s, "
                f"max err {err:.2e} {'PASS' if ok else 'FAIL'}")
        for name, backend in (("FA2", SDPBackend.FLASH_ATTENTION),
                              ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    t_ref = timed(lambda: F.scaled_dot_product_attention(
                        q, k, v, is_causal=causal), repeats)
                ratio = t_ref / t_ours
                line += (f"; {name} {flops / t_ref / 1e9:.1f} TFLOP/s, "
                         f"ours/{name} {ratio:.2f}")
                rows.append(("attention", f"{b},{h},{s},{d},causal={causal} "
                             f"[{case['options']}] vs {name}", f"{ratio:.3f}",
                             ">= 1.5 (FA2)", f"ours {flops / t_ours / 1e9:.1f} TF/s, "
                             f"{name} {flops / t_ref / 1e9:.1f}, "
                             f"{'PASS' if ok else 'FAIL'} err {err:.1e}"))
            except Exception as e:  # a backend missing on this build
                line += f"; {name}: {e}"
        log(line)
        del q, k, v, o
        torch.cuda.empty_cache()


def round_tf32(x):
    """f32 rounded to the nearest TF32 value, ties to even (what compute =
    tf32's rounding kernels give the attention kernel)."""
    import torch
    bits = x.contiguous().view(torch.int32)
    bits = (bits + 0xFFF + ((bits >> 13) & 1)) & ~0x1FFF
    return bits.view(torch.float32)


def bench_attention_tf32(work, plan, rows, repeats):
    """The TF32 attention kernel on TF32 values against PyTorch's f32 SDPA
    (its memory-efficient backend, FA2 takes no f32; allow_tf32 set, which
    that kernel may not read: PyTorch has no TF32 attention to compare
    with) and, for scale, FA2 on the same values in bf16; checked against
    the f32 math backend within a TF32-sized bound."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    for case in [c for c in plan["bench"] if c["kind"] == "attention_tf32"]:
        b, h, s, d, causal = case["shape"]
        meta_path = os.path.join(work, case["metadata"])
        meta = json.load(open(meta_path))
        torch.manual_seed(3)
        q, k, v = (round_tf32(torch.randn(b, h, s, d, device="cuda"))
                   for _ in range(3))
        o = torch.full((b, h, s, d), float("nan"), device="cuda")
        ours = launcher(os.path.dirname(meta_path), meta, (q, k, v, o))
        ours()
        torch.cuda.synchronize()
        torch.backends.cuda.matmul.allow_tf32 = False
        err = sdpa_max_error(o, q, k, v, causal)
        # P rounded to TF32 (2^-11) over O's |values| (about 1 here), with
        # room for the f32 reference's own error.
        ok = bool(torch.isfinite(o).all()) and err <= 4e-3
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        t_ours = timed(ours, repeats)
        line = (f"attention TF32 B={b} H={h} S={s} d={d} causal={causal}: ours "
                f"{flops / t_ours / 1e9:.1f} TFLOP/s, max err {err:.2e} "
                f"{'PASS' if ok else 'FAIL'}")
        torch.backends.cuda.matmul.allow_tf32 = True
        qb, kb, vb = (x.to(torch.bfloat16) for x in (q, k, v))
        for name, backend, args in (
                ("SDPA f32 (mem-efficient)",
                 SDPBackend.EFFICIENT_ATTENTION, (q, k, v)),
                ("SDPA bf16 FA2", SDPBackend.FLASH_ATTENTION, (qb, kb, vb))):
            try:
                with sdpa_kernel(backend):
                    t_ref = timed(lambda: F.scaled_dot_product_attention(
                        *args, is_causal=causal), repeats)
                ratio = t_ref / t_ours
                line += (f"; {name} {flops / t_ref / 1e9:.1f} TFLOP/s, "
                         f"ours/theirs {ratio:.2f}")
                rows.append(("attention tf32", f"{b},{h},{s},{d},causal={causal} "
                             f"vs {name}", f"{ratio:.3f}", "",
                             f"ours {flops / t_ours / 1e9:.1f} TF/s, "
                             f"{'PASS' if ok else 'FAIL'} err {err:.1e}"))
            except Exception as e:  # a backend missing on this build
                line += f"; {name}: {e}"
        torch.backends.cuda.matmul.allow_tf32 = False
        log(line)
        del q, k, v, o, qb, kb, vb
        torch.cuda.empty_cache()


def bench_fp8(work, plan, rows, repeats):
    """e4m3 x e4m3 -> f32 with B as [N, K] (what the 8-bit kernels take),
    against torch._scaled_mm with unit scales."""
    import torch
    for case in [c for c in plan["bench"] if c["kind"] == "gemm_e4m3"]:
        m, n, k = case["shape"]
        meta_path = os.path.join(work, case["metadata"])
        meta = json.load(open(meta_path))
        torch.manual_seed(2)
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        c = torch.full((m, n), float("nan"), device="cuda")
        ours = launcher(os.path.dirname(meta_path), meta, (a, b, c))
        ours()
        torch.cuda.synchronize()
        ref = a.double() @ b.double().t()
        u = 2.0 ** -24
        bound = k * u / (1 - k * u) * (a.double().abs() @ b.double().abs().t()) + 1e-30
        worst = float(((c.double() - ref).abs() / bound).max())
        ok = bool(torch.isfinite(c).all()) and worst <= 1.0
        del ref, bound
        one = torch.tensor(1.0, device="cuda")

        def theirs():
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                             out_dtype=torch.float32)

        flops = 2.0 * m * n * k
        t_ours = timed(ours, repeats)
        try:
            t_ref = timed(theirs, repeats)
        except Exception as e:
            log(f"fp8: torch._scaled_mm failed: {e}")
            t_ref = float("nan")
        ratio = t_ref / t_ours
        log(f"fp8 e4m3 GEMM {m}x{n}x{k} [{case['options']}]: ours {flops / t_ours / 1e9:.1f} "
            f"TFLOP/s, torch._scaled_mm {flops / t_ref / 1e9:.1f} TFLOP/s, "
            f"ratio {ratio:.3f}; worst err/gate {worst:.3f} "
            f"{'PASS' if ok else 'FAIL'}")
        rows.append(("fp8", f"e4m3 {m}x{n}x{k} [{case['options']}]",
                     f"{ratio:.3f}", ">= 0.9",
                     f"ours {flops / t_ours / 1e9:.1f} TF/s, scaled_mm "
                     f"{flops / t_ref / 1e9:.1f}, {'PASS' if ok else 'FAIL'}"))
        del a, b, c
        torch.cuda.empty_cache()


def sass_summary(work, plan, rows):
    """What each benchmark cubin runs on: counts of the tensor-core, local
    memory and barrier instructions in its SASS (cuobjdump, when the
    machine has it). A wgmma kernel whose SASS shows no HGMMA/QGMMA, or
    any kernel with LDL/STL, is on a slower path than intended."""
    import shutil
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.path.exists(tool):
        log("sass: no cuobjdump on this machine")
        return
    for case in plan["bench"]:
        meta_path = os.path.join(work, case["metadata"])
        meta = json.load(open(meta_path))
        if not meta.get("cubin"):
            continue
        r = subprocess.run([tool, "--dump-sass", os.path.join(
            os.path.dirname(meta_path), meta["cubin"])], capture_output=True,
            text=True)
        counts = {op: len(re.findall(rf"\b{op}\b", r.stdout))
                  for op in ("HGMMA", "QGMMA", "IGMMA", "HMMA", "IMMA", "LDGSTS",
                             "LDSM", "LDL", "STL", "BAR")}
        note = " ".join(f"{op}={n}" for op, n in counts.items() if n)
        log(f"sass {case['name']} [{case['options']}]: {note or r.stderr.strip()}")
        rows.append(("sass", f"{case['name']} [{case['options']}]", "", "", note))


def device(args):
    work = os.path.abspath(args.dir)
    if args.archive and args.step == "device":
        with tarfile.open(args.archive) as tar:
            tar.extractall(work)
    plan = json.load(open(os.path.join(work, "plan.json")))
    # An archive part (prepare --max-part-mib) holds some of the records,
    # and the last part the benchmark kernels: run what is here.
    held = [r for r in plan["catalogue"]
            if os.path.exists(os.path.join(work, r["dir"], "manifest.json"))]
    if len(held) != len(plan["catalogue"]):
        log(f"device: this part holds {len(held)} of {len(plan['catalogue'])} "
            f"records ({', '.join(r['dir'] for r in held)})")
    plan["catalogue"] = held
    if not os.path.isdir(os.path.join(work, "bench")):
        log("device: no benchmark kernels in this part")
        plan["bench"] = []
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    rows = []
    t0 = time.time()
    try:
        import torch
        log(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
            f"CUDA {torch.version.cuda}, kernels for {plan['chip']}")
    except Exception as e:
        log(f"device: no PyTorch/GPU: {e}")
    repeats = 5 if args.quick else 30

    def save():
        # After every step, so that a run stopped at its time limit still
        # brings back what it measured.
        with open(os.path.join(out, "gpu-check.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["section", "case", "value", "goal", "note"])
            w.writerows(rows)
        open(os.path.join(out, "gpu-check.log"), "w").write("\n".join(LOG) + "\n")

    json.dump(device_environment(plan, work), open(os.path.join(out, "gpu-environment.json"), "w"),
              indent=1)
    steps = [lambda: run_catalogue(work, plan, rows),
             lambda: pack_results(work, plan, out)]
    if plan["bench"]:
        steps += [lambda: sass_summary(work, plan, rows),
                  lambda: time_with_launcher(work, plan, rows, repeats),
                  lambda: bench_gemm(work, plan, rows, repeats),
                  lambda: bench_dequant(work, plan, rows, repeats),
                  lambda: bench_paged(work, plan, rows, repeats),
                  lambda: bench_attention(work, plan, rows, repeats),
                  lambda: bench_attention_tf32(work, plan, rows, repeats),
                  lambda: bench_fp8(work, plan, rows, repeats)]
    for step in steps:
        try:
            step()
        except Exception:
            log("step failed:\n" + traceback.format_exc())
        log(f"  ({time.time() - t0:.0f} s)")
        save()
    log(f"wrote {out}/gpu-check.csv and gpu-results.tgz.* in {time.time() - t0:.0f} s")
    save()


def pack_results(work, plan, out):
    """The output buffers, gzip'd and cut into parts small enough to come
    back from a device machine (16 MiB a file); `verify` takes them all."""
    blob = io.BytesIO()
    with tarfile.open(fileobj=blob, mode="w:gz", compresslevel=6) as tar:
        for rec in plan["catalogue"]:
            folder = os.path.join(work, rec["dir"])
            for name in sorted(os.listdir(folder)):
                if name.endswith(".result.bin"):
                    tar.add(os.path.join(folder, name), f"{rec['dir']}/{name}")
    data, part = blob.getvalue(), 12 << 20
    for name in os.listdir(out):  # parts of an earlier run
        if name.startswith("gpu-results.tgz."):
            os.remove(os.path.join(out, name))
    for i in range(0, max(len(data), 1), part):
        open(os.path.join(out, f"gpu-results.tgz.{i // part}"), "wb").write(
            data[i:i + part])
    log(f"packed the catalogue's results: {len(data) >> 10} KiB")


def device_environment(plan, work):
    """The GPU, its driver and the CUDA and library versions of the run,
    with the compiler id the kernels were made by and the launcher's."""
    env = {"compiler": plan.get("compiler", ""), "chip": plan["chip"],
           "launcher_sha256": plan.get("launcher_sha256", ""),
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        r = subprocess.run([os.path.join(work, "accel-launch"), "--version"],
                           capture_output=True, text=True, timeout=20)
        env["launcher"] = r.stdout.strip() or r.stderr.strip()
    except Exception as e:
        env["launcher"] = f"cannot run ({e})"
    try:
        import torch
        env["gpu"] = torch.cuda.get_device_name(0)
        env["torch"] = torch.__version__
        env["torch_cuda"] = torch.version.cuda
    except Exception as e:
        env["gpu"] = f"unknown ({e})"
    try:
        import cupy
        env["cupy"] = cupy.__version__
        env["cuda_driver_api"] = cupy.cuda.runtime.driverGetVersion()
        env["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    except Exception as e:
        env["cupy"] = f"unknown ({e})"
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                            "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=20)
        env["nvidia_smi"] = r.stdout.strip()
    except Exception as e:
        env["nvidia_smi"] = f"unavailable ({e})"
    return env


# --------------------------------------------------------------------------
# verify (here again)
# --------------------------------------------------------------------------

def this_compiler():
    """The compiler id of the build: version and git commit."""
    r = subprocess.run([os.path.join(BIN, "accel-run"), "--version"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def write_evidence(args, plan, out_dirs, failed):
    """bench/gpu/results/<date>-<commit>/: what the device runs wrote
    (gpu-check.csv, gpu-check.log, gpu-environment.json; several runs, one
    per archive part, joined in order), the kernels with their hashes
    (gpu-kernels.csv) and this verification's log, to be committed as the
    record of the run."""
    compiler = plan.get("compiler", "")
    commit = compiler.rsplit("+", 1)[-1] if "+" in compiler else "unknown"
    date = time.strftime("%Y-%m-%d", time.gmtime())
    folder = args.evidence or os.path.join(ROOT, "bench", "gpu", "results",
                                           f"{date}-{commit}")
    os.makedirs(folder, exist_ok=True)
    rows, logs, envs = [], [], []
    for i, out_dir in enumerate(out_dirs):
        path = os.path.join(out_dir, "gpu-check.csv")
        if os.path.exists(path):
            rows += list(csv.reader(open(path)))[1:]
        path = os.path.join(out_dir, "gpu-check.log")
        if os.path.exists(path):
            logs.append(f"=== device run {i + 1} of {len(out_dirs)} ===\n" +
                        open(path).read())
        path = os.path.join(out_dir, "gpu-environment.json")
        if os.path.exists(path):
            envs.append(json.load(open(path)))
    with open(os.path.join(folder, "gpu-check.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "case", "value", "goal", "note"])
        w.writerows(rows)
    open(os.path.join(folder, "gpu-check.log"), "w").write("".join(logs))
    json.dump(envs[0] if len(envs) == 1 else envs,
              open(os.path.join(folder, "gpu-environment.json"), "w"), indent=1)
    with open(os.path.join(folder, "gpu-kernels.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "function", "kernel", "chip", "ptx_sha256",
                    "cubin_sha256"])
        w.writerows(plan.get("kernels", []))
    open(os.path.join(folder, "gpu-verify.log"), "w").write("\n".join(LOG) + "\n")
    log(f"evidence: {folder} ({'all passed' if not failed else f'{failed} failed'})")

def verify(args):
    work = os.path.abspath(args.dir)
    plan = json.load(open(os.path.join(work, "plan.json")))
    # Results of kernels another compiler made are not evidence for this
    # one (accel-run --replay refuses each record too; this says it once).
    mine = this_compiler()
    if plan.get("compiler") and mine and plan["compiler"] != mine:
        sys.exit(f"verify: {work} was prepared by '{plan['compiler']}'; this "
                 f"build is '{mine}': prepare and run it again")
    if args.results:
        # Only what these runs brought back is checked: results an earlier
        # verify unpacked here go first.
        for rec in plan["catalogue"]:
            folder = os.path.join(work, rec["dir"])
            for name in os.listdir(folder):
                if name.endswith(".result.bin"):
                    os.remove(os.path.join(folder, name))
    for results in args.results:
        # gpu-results.tgz.0, .1, ... as `device` wrote them, in order; one
        # --results per device run (archive part).
        stem = results.rsplit(".", 1)[0] if results[-1].isdigit() else results
        parts, i = [], 0
        while os.path.exists(f"{stem}.{i}"):
            parts.append(open(f"{stem}.{i}", "rb").read())
            i += 1
        data = b"".join(parts) if parts else open(results, "rb").read()
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile() or not re.fullmatch(
                        r"catalogue/\d+/[A-Za-z0-9_.-]+\.result\.bin", member.name):
                    sys.exit(f"verify: unexpected member '{member.name}'")
                tar.extract(member, work)
    failed = 0
    for rec in plan["catalogue"]:
        cmd = [os.path.join(BIN, "accel-run"), os.path.join(ROOT, rec["test"])] + \
            rec["args"] + [f"--replay={os.path.join(work, rec['dir'])}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        last = (r.stdout.strip().splitlines() or [""])[-1]
        verdict = "PASS" if r.returncode == 0 else "FAIL"
        log(f"{verdict}: {rec['test']} {' '.join(rec['args'])}: "
            f"{last}{r.stderr.strip()}")
        if r.returncode != 0:
            failed += 1
            log(r.stdout)
    log(f"verify: {len(plan['catalogue']) - failed} of {len(plan['catalogue'])} "
        "catalogue runs passed on the GPU")
    if args.results:
        write_evidence(args, plan, [os.path.dirname(os.path.abspath(r))
                                    for r in args.results] +
                       [os.path.abspath(d) for d in args.device_out], failed)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["prepare", "device", "verify", "all"])
    ap.add_argument("--dir", default=os.path.join(ROOT, ".gpu-check"))
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--out", default=".")
    ap.add_argument("--results", action="append", default=[],
                    help="verify: a device run's gpu-results.tgz.0 (once per "
                         "archive part)")
    ap.add_argument("--evidence", default="",
                    help="verify: the folder for the run's record (default "
                         "bench/gpu/results/<date>-<commit>)")
    ap.add_argument("--archive", default="",
                    help="prepare: also pack --dir into this .tar.gz; "
                         "device: unpack it into --dir first")
    ap.add_argument("--device-out", action="append", default=[],
                    help="verify: a device run's OUT folder whose results were "
                         "not brought back (its csv, log and environment join "
                         "the evidence)")
    ap.add_argument("--max-part-mib", type=int, default=0,
                    help="prepare: pack --archive in parts of at most this many "
                         "MiB of distinct inputs (ARCHIVE.partN.tar.gz)")
    ap.add_argument("--records", default="",
                    help="prepare: only the catalogue runs whose test file "
                         "matches this regular expression")
    ap.add_argument("--no-bench", action="store_true",
                    help="prepare: no benchmark kernels")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.step in ("prepare", "all"):
        prepare(args)
    if args.step in ("device", "all"):
        device(args)
    if args.step in ("verify", "all"):
        return verify(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
