#!/usr/bin/env python3
"""NVIDIA device check: run on a machine with an NVIDIA GPU (written for an
H200 with CUDA 13, PyTorch and CuPy; no network needed) from the repository
root, with the build tree present (build/bin/accel-compile, accel-run):

    python3 bench/gpu/check.py [--chip sm_90a] [--csv out.csv] [--quick]

It prints, in one run:
  1. the numerics: the GPU lit tests (test/Integration/GPU, `REQUIRES: cuda`)
     through accel-run --target=nvptx against the fp64 oracle;
  2. our bf16 GEMM (compiled with accel-compile --target=nvptx, launched with
     CuPy from the launch metadata, outputs NaN-prefilled and checked against
     a float64 torch.matmul) in TFLOP/s, and the ratio to torch.matmul
     (cuBLAS) on the same inputs, at 4096^3 and 8192^3;
  3. flash attention (bf16, B*S = 16k, H*d = 2048, d 64/128, causal or not)
     against PyTorch SDPA's FlashAttention-2 and cuDNN backends, checked
     against the math backend in f32;
  4. our fp8 (e4m3, B as [N, K]) GEMM against torch._scaled_mm.
It writes a CSV and finishes within a few minutes. Standard library plus
CuPy and PyTorch (both optional: without them the step says why it skipped).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ACCEL_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")


def log(*a):
    print(*a, flush=True)


def timed(fn, repeats):
    """Median milliseconds of `repeats` runs of `fn`, with CUDA events."""
    import torch
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


def load_kernel(out, meta):
    """The kernel of `meta` from its cubin (or PTX) in `out`, with the
    dynamic shared memory it needs; and that size."""
    import cupy
    image = os.path.join(out, meta["cubin"] or meta["ptx"])
    module = cupy.RawModule(path=image) if meta["cubin"] else \
        cupy.RawModule(code=open(image).read())
    kernel = module.get_function(meta["kernel"])
    smem = meta["dynamic_shared_bytes"]
    if smem > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = smem
    return kernel, smem


def gemm_source(m, n, k, dtype="bf16", out="f32"):
    return (f"func.func @gemm(%a: tensor<{m}x{k}x{dtype}>, %b: tensor<{k}x{n}x{dtype}>)"
            f" -> tensor<{m}x{n}x{out}> {{\n"
            f"  %c = tensor.empty() : tensor<{m}x{n}x{out}>\n"
            f"  %0 = accel.matmul ins(%a, %b : tensor<{m}x{k}x{dtype}>, tensor<{k}x{n}x{dtype}>)"
            f" outs(%c : tensor<{m}x{n}x{out}>) -> tensor<{m}x{n}x{out}>\n"
            f"  return %0 : tensor<{m}x{n}x{out}>\n}}\n")


def compile_gemm(workdir, m, n, k, chip, options=""):
    src = os.path.join(workdir, f"gemm_{m}x{n}x{k}.mlir")
    with open(src, "w") as f:
        f.write(gemm_source(m, n, k))
    out = os.path.join(workdir, f"out_{m}x{n}x{k}")
    t0 = time.time()
    r = subprocess.run([os.path.join(BIN, "accel-compile"), src, "--target=nvptx",
                        f"--chip={chip}", f"--options={options}", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("accel-compile failed:\n" + r.stderr)
    meta_path = os.path.join(out, "gemm_0.json")
    with open(meta_path) as f:
        meta = json.load(f)
    return out, meta, time.time() - t0


def run_lit(rows):
    lit = shutil.which("lit") or "/usr/lib/llvm-22/bin/lit"
    if not os.path.exists(lit):
        log("numerics: lit not found, skipped")
        rows.append(("numerics", "lit", "skipped", "", "no lit"))
        return
    r = subprocess.run([lit, "-v", os.path.join(BUILD, "test"), "--filter",
                        "Integration/GPU|accel-run/nvptx"],
                       capture_output=True, text=True)
    tail = "\n".join(r.stdout.strip().splitlines()[-12:])
    log("numerics (lit, accel-run --target=nvptx vs the fp64 oracle):\n" + tail)
    ran = sum(1 for l in r.stdout.splitlines()
              if l.startswith(("PASS: ACCEL :: Integration/GPU",
                               "FAIL: ACCEL :: Integration/GPU")))
    if r.returncode != 0:
        status = "FAIL"
    elif ran == 0:
        status = "unsupported (no GPU seen by lit)"
    else:
        status = f"pass ({ran} GPU test files)"
    log(f"numerics: {status}")
    rows.append(("numerics", "test/Integration/GPU", status, "", ""))


def bench_gemm(rows, chip, sizes, repeats):
    try:
        import cupy
        import torch
    except ImportError as e:
        log(f"gemm: {e}; skipped")
        rows.append(("gemm", "bf16", "skipped", "", str(e)))
        return
    dev = torch.cuda.get_device_name(0)
    log(f"device: {dev}")
    with tempfile.TemporaryDirectory() as work:
        for (m, n, k) in sizes:
            out, meta, ctime = compile_gemm(work, m, n, k, chip)
            kernel, smem = load_kernel(out, meta)
            torch.manual_seed(0)
            a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
            b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            args = (a.data_ptr(), b.data_ptr(), c.data_ptr())
            ptrs = tuple(cupy.uint64(p) for p in args)
            grid, block = tuple(meta["grid"]), tuple(meta["block"])

            def ours():
                kernel(grid, block, ptrs, shared_mem=smem)

            ours()
            torch.cuda.synchronize()
            ref = a.double() @ b.double()
            err = (c.double() - ref).abs()
            # The matmul gate of docs/numerics.md: gamma_K(2^-24) |A||B|.
            u = 2.0 ** -24
            gamma = k * u / (1 - k * u)
            bound = gamma * (a.double().abs() @ b.double().abs()) + 1e-30
            worst = float((err / bound).max())
            ok = bool(torch.isfinite(c).all()) and worst <= 1.0

            t_ours = timed(ours, repeats)
            t_ref = timed(lambda: torch.matmul(a, b, out=None), repeats)
            flops = 2.0 * m * n * k
            tf_ours = flops / t_ours / 1e9
            tf_ref = flops / t_ref / 1e9
            ratio = tf_ours / tf_ref
            log(f"bf16 GEMM {m}x{n}x{k}: ours {tf_ours:.1f} TFLOP/s, "
                f"torch.matmul {tf_ref:.1f} TFLOP/s, ratio {ratio:.3f} "
                f"(goal >= 0.9); worst err/gate {worst:.3f} -> "
                f"{'PASS' if ok else 'FAIL'}; compile {ctime:.2f} s; "
                f"{meta['resources']['registers'] if meta.get('resources') else '?'} registers")
            rows.append(("gemm", f"bf16 {m}x{n}x{k}", f"{ratio:.3f}",
                         ">= 0.9", f"ours {tf_ours:.1f} TF/s, cuBLAS {tf_ref:.1f}, "
                         f"{'PASS' if ok else 'FAIL'}"))


def attention_source(b, h, s, d, causal):
    t = f"tensor<{b}x{h}x{s}x{d}xbf16>"
    o = f"tensor<{b}x{h}x{s}x{d}xf32>"
    c = "causal " if causal else ""
    return (f"func.func @attn(%q: {t}, %k: {t}, %v: {t}) -> {o} {{\n"
            f"  %o = tensor.empty() : {o}\n"
            f"  %0 = accel.attention {c}ins(%q, %k, %v : {t}, {t}, {t}) "
            f"outs(%o : {o}) -> {o}\n  return %0 : {o}\n}}\n")


def bench_attention(rows, chip, cases, repeats):
    try:
        import cupy
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        log(f"attention: {e}; skipped")
        rows.append(("attention", "bf16", "skipped", "", str(e)))
        return
    F = torch.nn.functional
    with tempfile.TemporaryDirectory() as work:
        for (b, h, s, d, causal) in cases:
            src = os.path.join(work, f"attn_{b}_{h}_{s}_{d}_{causal}.mlir")
            with open(src, "w") as f:
                f.write(attention_source(b, h, s, d, causal))
            out = src + ".out"
            r = subprocess.run([os.path.join(BIN, "accel-compile"), src,
                                "--target=nvptx", f"--chip={chip}", "-o", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                log("attention: accel-compile failed:\n" + r.stderr)
                rows.append(("attention", f"{b},{h},{s},{d},{causal}", "FAIL", "",
                             "compile"))
                continue
            meta = json.load(open(os.path.join(out, "attn_0.json")))
            kernel, smem = load_kernel(out, meta)
            torch.manual_seed(1)
            q, k, v = (torch.randn(b, h, s, d, device="cuda").to(torch.bfloat16)
                       for _ in range(3))
            o = torch.full((b, h, s, d), float("nan"), device="cuda")
            ptrs = tuple(cupy.uint64(t.data_ptr()) for t in (q, k, v, o))
            grid, block = tuple(meta["grid"]), tuple(meta["block"])

            def ours():
                kernel(grid, block, ptrs, shared_mem=smem)

            ours()
            torch.cuda.synchronize()
            # Reference: the math backend in f32 on the same bf16 inputs.
            with sdpa_kernel(SDPBackend.MATH):
                ref = F.scaled_dot_product_attention(q.float(), k.float(),
                                                     v.float(), is_causal=causal)
            err = float((o - ref).abs().max())
            ok = bool(torch.isfinite(o).all()) and err <= 2e-2

            flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
            t_ours = timed(ours, repeats)
            line = (f"attention B={b} H={h} S={s} d={d} causal={causal}: ours "
                    f"{flops / t_ours / 1e9:.1f} TFLOP/s, max err {err:.2e} "
                    f"{'PASS' if ok else 'FAIL'}")
            for name, backend in (("FA2", SDPBackend.FLASH_ATTENTION),
                                  ("cuDNN", SDPBackend.CUDNN_ATTENTION)):
                try:
                    with sdpa_kernel(backend):
                        t_ref = timed(lambda: F.scaled_dot_product_attention(
                            q, k, v, is_causal=causal), repeats)
                    ratio = t_ref / t_ours
                    line += f"; {name} {flops / t_ref / 1e9:.1f} TFLOP/s, ours/{name} {ratio:.2f}"
                    rows.append(("attention", f"{b},{h},{s},{d},{causal} vs {name}",
                                 f"{ratio:.3f}", ">= 1.5 (FA2)",
                                 f"{'PASS' if ok else 'FAIL'} err {err:.1e}"))
                except Exception as e:  # a backend missing on this build
                    line += f"; {name}: {e}"
            log(line)


def bench_fp8(rows, chip, sizes, repeats):
    """e4m3 x e4m3 -> f32 with B as [N, K] (what the fp8 kernels take),
    against torch._scaled_mm with unit scales."""
    try:
        import cupy
        import torch
    except ImportError as e:
        log(f"fp8: {e}; skipped")
        rows.append(("fp8", "e4m3", "skipped", "", str(e)))
        return
    with tempfile.TemporaryDirectory() as work:
        for (m, n, k) in sizes:
            src = os.path.join(work, f"fp8_{m}.mlir")
            a_t, b_t, c_t = (f"tensor<{m}x{k}xf8E4M3FN>", f"tensor<{n}x{k}xf8E4M3FN>",
                             f"tensor<{m}x{n}xf32>")
            with open(src, "w") as f:
                f.write(f"func.func @gemm(%a: {a_t}, %b: {b_t}) -> {c_t} {{\n"
                        f"  %c = tensor.empty() : {c_t}\n"
                        f"  %0 = accel.matmul transpose_b ins(%a, %b : {a_t}, {b_t}) "
                        f"outs(%c : {c_t}) -> {c_t}\n  return %0 : {c_t}\n}}\n")
            out = src + ".out"
            r = subprocess.run([os.path.join(BIN, "accel-compile"), src,
                                "--target=nvptx", f"--chip={chip}", "-o", out],
                               capture_output=True, text=True)
            if r.returncode != 0:
                log("fp8: accel-compile failed:\n" + r.stderr)
                rows.append(("fp8", f"{m}x{n}x{k}", "FAIL", "", "compile"))
                continue
            meta = json.load(open(os.path.join(out, "gemm_0.json")))
            kernel, smem = load_kernel(out, meta)
            torch.manual_seed(2)
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
            c = torch.full((m, n), float("nan"), device="cuda")
            ptrs = tuple(cupy.uint64(t.data_ptr()) for t in (a, b, c))
            grid, block = tuple(meta["grid"]), tuple(meta["block"])

            def ours():
                kernel(grid, block, ptrs, shared_mem=smem)

            ours()
            torch.cuda.synchronize()
            ref = a.double() @ b.double().t()
            u = 2.0 ** -24
            bound = k * u / (1 - k * u) * (a.double().abs() @ b.double().abs().t()) + 1e-30
            worst = float(((c.double() - ref).abs() / bound).max())
            ok = bool(torch.isfinite(c).all()) and worst <= 1.0
            one = torch.tensor(1.0, device="cuda")

            def theirs():
                torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                 out_dtype=torch.float32)

            flops = 2.0 * m * n * k
            t_ours, t_ref = timed(ours, repeats), timed(theirs, repeats)
            ratio = t_ref / t_ours
            log(f"fp8 e4m3 GEMM {m}x{n}x{k}: ours {flops / t_ours / 1e9:.1f} "
                f"TFLOP/s, torch._scaled_mm {flops / t_ref / 1e9:.1f} TFLOP/s, "
                f"ratio {ratio:.3f}; worst err/gate {worst:.3f} "
                f"{'PASS' if ok else 'FAIL'}")
            rows.append(("fp8", f"e4m3 {m}x{n}x{k}", f"{ratio:.3f}", ">= 0.9",
                         "PASS" if ok else "FAIL"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--csv", default="gpu-check.csv")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows = []
    t0 = time.time()
    run_lit(rows)
    sizes = [(4096, 4096, 4096)] if args.quick else [(4096, 4096, 4096),
                                                     (8192, 8192, 8192)]
    bench_gemm(rows, args.chip, sizes, repeats=5 if args.quick else 20)
    # B*S = 16k, H*d = 2048.
    att = [(4, 32, 4096, 64, False), (4, 32, 4096, 64, True),
           (4, 16, 4096, 128, False), (4, 16, 4096, 128, True)]
    bench_attention(rows, args.chip, att[:1] if args.quick else att,
                    repeats=5 if args.quick else 20)
    bench_fp8(rows, args.chip, [(4096, 4096, 4096)] if args.quick else
              [(4096, 4096, 4096), (8192, 8192, 8192)],
              repeats=5 if args.quick else 20)
    with open(args.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["section", "case", "value", "goal", "note"])
        w.writerows(rows)
    log(f"wrote {args.csv} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
