#!/usr/bin/env python3
"""Systolic-array benchmark: compiles accel functions for the simulated array
(accel-systolic-pipeline), runs them on the cycle-level simulator through
accel-run (every run is also checked against the fp64 oracle) and prints:

  1. GEMM utilisation of the compiler's schedules on large GEMMs
     (M, N >= 4x the array): ideal MAC-cycles / simulated cycles; goal >= 0.85.
  2. The SCALE-Sim v2 golden layer (256x128x256 on 32x32): our schedule's
     cycles / the best of SCALE-Sim's WS, OS and IS; goal <= 1.05.
  3. Attention cycles / the two-GEMM lower bound (the ideal MAC-cycles of
     Q.K^T and P.V; causal counts the kept half).
  4. GEMM + epilogue (bias + ReLU; SiLU into bf16): the GEMM alone's
     cycles / the GEMM with its epilogue applied to C's blocks in the
     accumulator (the configuration stage's choice), and / the epilogue as
     a kernel of its own (fuse-epilogues=false); goal >= 0.95 (issue 27).
  5. Softmax over the last dimension on the vector unit: elements per
     cycle against the unit's bound (lanes / 8 issue slots an element:
     rowmax, sub, 4 for exp, rowsum, div); RMSNorm as frontends write it
     (a row reduction, then an elementwise kernel): elements per cycle
     against the load queue's bound (x read twice).
  6. The Llama decoder block of examples/llama_block.py as one program
     (heads split and merged through DRAM layouts): cycles against the
     array's bound (MACs / PEs) and against the DRAM bound (every argument
     read once and the result written once, at the machine's bandwidth);
     the small preset checked against fp64 through accel-run, Llama 3 8B's
     layer (128 tokens) compiled by accel-compile and run by accel-sim, and
     its scratch buffers' bytes / its scratch values' (shared buffers).
  7. Weight-only quantised GEMV / skinny GEMM (decode: M = 1, 8, 16 rows
     of bf16 activations times 4096x4096 weights; 16 and 4 DRAM bytes a
     cycle): accel.dequant_matmul
     with int4 (groups of 128) and int8 (per channel) weights against the
     same product with bf16 weights (accel.matmul, B as [N, K]); cycles,
     the speedup over bf16 weights, the DRAM bytes read a cycle against
     the machine's bandwidth, and weights a cycle against the array's
     bound (a row of W, `rows` weights, a cycle), int4 with zero points
     (three bf16 parts of q - z a tile) too; and the whole MLP of
     examples/quantized_mlp.mlir at d_model x FFN 256 x 512 and Llama 3
     8B's 4096 x 14336, int4 against bf16 weights.
  8. The schedule model's predicted cycles / the simulator's (goal +-5%).

Every number is printed with its bandwidth assumption. Standard library only.

  python3 bench/systolic.py [--quick] [--csv FILE]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("ACCEL_BUILD_DIR", os.path.join(ROOT, "build"))
RUN = os.path.join(BUILD, "bin", "accel-run")

# SCALE-Sim v2 golden COMPUTE_REPORT.csv (test/Integration/Systolic/Inputs/
# scalesim-golden.csv): total cycles, stall cycles.
SCALESIM = {"ws": (52447, 41248), "os": (52447, 42272), "is": (19984, 5777)}


def matmul_src(m, k, n, dt):
    ot = "i32" if dt == "i8" else "f32"
    return (f"func.func @g(%a: tensor<{m}x{k}x{dt}>, %b: tensor<{k}x{n}x{dt}>)"
            f" -> tensor<{m}x{n}x{ot}> {{\n"
            f"  %c = tensor.empty() : tensor<{m}x{n}x{ot}>\n"
            f"  %0 = accel.matmul ins(%a, %b : tensor<{m}x{k}x{dt}>, "
            f"tensor<{k}x{n}x{dt}>) outs(%c : tensor<{m}x{n}x{ot}>) -> "
            f"tensor<{m}x{n}x{ot}>\n  return %0 : tensor<{m}x{n}x{ot}>\n}}\n")


def attention_src(b, h, s, d, dt, causal):
    t = f"tensor<{b}x{h}x{s}x{d}x{dt}>"
    o = f"tensor<{b}x{h}x{s}x{d}xf32>"
    c = "causal " if causal else ""
    return (f"func.func @g(%q: {t}, %k: {t}, %v: {t}) -> {o} {{\n"
            f"  %o = tensor.empty() : {o}\n"
            f"  %0 = accel.attention {c}ins(%q, %k, %v : {t}, {t}, {t}) "
            f"outs(%o : {o}) -> {o}\n  return %0 : {o}\n}}\n")


def epilogue_src(m, k, n, dt, kind):
    """A GEMM and its epilogue as torch-mlir writes it (a separate generic)."""
    a, b = f"tensor<{m}x{k}x{dt}>", f"tensor<{k}x{n}x{dt}>"
    c = f"tensor<{m}x{n}xf32>"
    head = (f"  %c = tensor.empty() : {c}\n"
            f"  %0 = accel.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n")
    if kind == "alone":
        return (f"func.func @g(%a: {a}, %b: {b}) -> {c} {{\n{head}"
                f"  return %0 : {c}\n}}\n")
    if kind == "bias_relu":
        return (f"func.func @g(%a: {a}, %b: {b}, %bias: tensor<{n}xf32>) -> {c} {{\n"
                f"{head}  %e = tensor.empty() : {c}\n"
                f"  %1 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                f"affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], "
                f"iterator_types = [\"parallel\", \"parallel\"]}} "
                f"ins(%0, %bias : {c}, tensor<{n}xf32>) outs(%e : {c}) {{\n"
                f"  ^bb0(%x: f32, %y: f32, %o: f32):\n"
                f"    %s = arith.addf %x, %y : f32\n"
                f"    %z = arith.constant 0.0 : f32\n"
                f"    %r = arith.maximumf %s, %z : f32\n"
                f"    linalg.yield %r : f32\n  }} -> {c}\n"
                f"  return %1 : {c}\n}}\n")
    o = f"tensor<{m}x{n}xbf16>"
    return (f"func.func @g(%a: {a}, %b: {b}) -> {o} {{\n"
            f"{head}  %e = tensor.empty() : {o}\n"
            f"  %1 = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
            f"affine_map<(i, j) -> (i, j)>], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins(%0 : {c}) outs(%e : {o}) {{\n"
            f"  ^bb0(%x: f32, %o: bf16):\n"
            f"    %one = arith.constant 1.0 : f32\n"
            f"    %n = arith.negf %x : f32\n"
            f"    %ex = math.exp %n : f32\n"
            f"    %d = arith.addf %ex, %one : f32\n"
            f"    %s = arith.divf %x, %d : f32\n"
            f"    %t = arith.truncf %s : f32 to bf16\n"
            f"    linalg.yield %t : bf16\n  }} -> {o}\n"
            f"  return %1 : {o}\n}}\n")


def softmax_src(rows, n, dt):
    t = f"tensor<{rows}x{n}x{dt}>"
    return (f"func.func @g(%x: {t}) -> {t} {{\n"
            f"  %e = tensor.empty() : {t}\n"
            f"  %0 = accel.softmax dimension(1) ins(%x : {t}) outs(%e : {t}) "
            f"-> {t}\n  return %0 : {t}\n}}\n")


def rmsnorm_src(rows, n):
    """RMSNorm as torch-mlir writes it: a sum of squares, then x * rsqrt(mean
    + eps) * w (the per-row factor fused into the last generic)."""
    x, r = f"tensor<{rows}x{n}xf32>", f"tensor<{rows}xf32>"
    return (f"func.func @g(%x: {x}, %w: tensor<{n}xf32>) -> {x} {{\n"
            f"  %z = arith.constant 0.0 : f32\n"
            f"  %e0 = tensor.empty() : {r}\n"
            f"  %f = linalg.fill ins(%z : f32) outs(%e0 : {r}) -> {r}\n"
            f"  %ss = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
            f"affine_map<(i, j) -> (i)>], iterator_types = [\"parallel\", "
            f"\"reduction\"]}} ins(%x : {x}) outs(%f : {r}) {{\n"
            f"  ^bb0(%a: f32, %acc: f32):\n    %m = arith.mulf %a, %a : f32\n"
            f"    %s = arith.addf %m, %acc : f32\n    linalg.yield %s : f32\n"
            f"  }} -> {r}\n"
            f"  %e = tensor.empty() : {x}\n"
            f"  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
            f"affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, "
            f"affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", "
            f"\"parallel\"]}} ins(%x, %ss, %w : {x}, {r}, tensor<{n}xf32>) "
            f"outs(%e : {x}) {{\n"
            f"  ^bb0(%a: f32, %v: f32, %ww: f32, %o: f32):\n"
            f"    %d = arith.constant {float(n)} : f32\n"
            f"    %eps = arith.constant 1.0e-5 : f32\n"
            f"    %mean = arith.divf %v, %d : f32\n"
            f"    %ve = arith.addf %mean, %eps : f32\n"
            f"    %rs = math.rsqrt %ve : f32\n"
            f"    %t = arith.mulf %a, %rs : f32\n"
            f"    %u = arith.mulf %t, %ww : f32\n    linalg.yield %u : f32\n"
            f"  }} -> {x}\n  return %y : {x}\n}}\n")


def run(src, options, mode="default", dist="exact", path=None, extra=()):
    if path is None:
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as f:
            f.write(src)
            tmp = f.name
    try:
        out = subprocess.run(
            [RUN, path or tmp, "--target=systolic", f"--dist={dist}",
             f"--sim-mode={mode}", f"--systolic-pipeline-options={options}",
             *extra],
            capture_output=True, text=True)
    finally:
        if path is None:
            os.unlink(tmp)
    text = out.stdout + out.stderr
    cycles = re.search(r": (\d+) cycles \(", text)
    if out.returncode != 0 or not cycles:
        sys.exit(f"accel-run failed ({options}):\n{text}")
    pred = re.search(r"(\d+) cycles predicted", text)
    dma = re.search(r"the DMA (\d+) cycles", text)
    vec = re.search(r"vector unit is busy (\d+) cycles", text)
    if "FAIL" in text:
        sys.exit(f"accel-run: a result failed its check ({options}):\n{text}")
    return parse_stats(text, pred)


def parse_stats(text, pred=None):
    cycles = re.search(r": (\d+) cycles \(", text)
    dma = re.search(r"the DMA (\d+) cycles", text)
    vec = re.search(r"vector unit is busy (\d+) cycles", text)
    macs = re.search(r"(\d+) MACs on the", text)
    read = re.search(r"DRAM ([0-9.]+) (KiB|MiB) read", text)
    return {"cycles": int(cycles.group(1)),
            "predicted": int(pred.group(1)) if pred else None,
            "dma": int(dma.group(1)) if dma else None,
            "vector": int(vec.group(1)) if vec else None,
            "macs": int(macs.group(1)) if macs else None,
            "read": float(read.group(1)) * (1024 if read.group(2) == "KiB"
                                             else 1 << 20) if read else None}


def block_bytes(path):
    """Bytes of the function's arguments and results (f32 or bf16)."""
    sig = open(path).read().split("func.func", 1)[1].split("{", 1)[0]
    total = 0
    for dims, ty in re.findall(r"tensor<((?:\d+x)+)(f32|bf16)>", sig):
        n = 1
        for d in dims.strip("x").split("x"):
            n *= int(d)
        total += n * (4 if ty == "f32" else 2)
    return total


def dequant_src(m, k, n, kind):
    """C[m, n] = A[m, k] . W^T for W [n, k]: int4 (groups of 128), int8
    (per channel) or bf16 weights."""
    a = f"tensor<{m}x{k}xbf16>"
    c = f"tensor<{m}x{n}xf32>"
    if kind == "bf16":
        w = f"tensor<{n}x{k}xbf16>"
        return (f"func.func @{kind}(%x: {a}, %w: {w}) -> {c} {{\n"
                f"  %c = tensor.empty() : {c}\n"
                f"  %y = accel.matmul transpose_b ins(%x, %w : {a}, {w}) "
                f"outs(%c : {c}) -> {c}\n  return %y : {c}\n}}\n")
    bits, group = (8, k) if kind == "int8" else (4, 128)
    w = f"tensor<{n}x{k * bits // 8}xi8>"
    sc = f"tensor<{n}x{k // group}xbf16>"
    # int4-zp: unsigned with zero points (AWQ-style).
    zp = kind == "int4-zp"
    name = kind.replace("-", "_")
    return (f"func.func @{name}(%x: {a}, %w: {w}, %s: {sc}"
            + (f", %z: {sc}" if zp else "") + f") -> {c} {{\n"
            f"  %c = tensor.empty() : {c}\n"
            f"  %y = accel.dequant_matmul bits({bits}) group({group}) "
            + ("unsigned " if zp else "") +
            f"ins(%x, %w : {a}, {w}) scales(%s : {sc}) "
            + (f"zero_points(%z : {sc}) " if zp else "") +
            f"outs(%c : {c}) -> {c}\n  return %y : {c}\n}}\n")


def mlp_src(d, f, kind):
    """examples/quantized_mlp.mlir's program at d_model `d`, FFN `f`: int4
    weights in groups of 128 (accel.dequant_matmul) or bf16 weights
    (accel.matmul, B as [N, K])."""
    src = open(os.path.join(ROOT, "examples", "quantized_mlp.mlir")).read()
    src = src.replace("256", "DMODEL").replace("512", "FFN")
    # The packed int4 weights' and scales' shapes: [N, K / 2], [N, K / 128].
    src = (src.replace("tensor<FFNx128xi8>", f"tensor<{f}x{d // 2}xi8>")
               .replace("tensor<FFNx2xbf16>", f"tensor<{f}x{d // 128}xbf16>")
               .replace("tensor<DMODELxDMODELxi8>", f"tensor<{d}x{f // 2}xi8>")
               .replace("tensor<DMODELx4xbf16>", f"tensor<{d}x{f // 128}xbf16>")
               .replace("DMODEL", str(d)).replace("FFN", str(f)))
    if kind == "int4":
        return src
    # bf16 weights: each dequant_matmul a plain matmul of [N, K] weights.
    out = []
    for line in src.splitlines():
        m = re.match(r"(\s*%\w+) = accel.dequant_matmul .* ins\((%\w+), "
                     r"(%\w+) : (tensor<\S+>), tensor<\S+>\) scales\(\S+ : "
                     r"\S+\) outs\((%\w+) : (tensor<\S+>)\)", line)
        if m:
            res, a, w, at, c, ct = m.groups()
            n, k = ct.split("x")[1], at.split("x")[1]
            wt = f"tensor<{n}x{k}xbf16>"
            line = (f"{res} = accel.matmul transpose_b ins({a}, {w} : {at}, "
                    f"{wt}) outs({c} : {ct}) -> {ct}")
        out.append(line)
    src = "\n".join(out) + "\n"
    for w, s_ in (("wg", "sg"), ("wu", "su"), ("wd", "sd")):
        src = re.sub(rf"%{w}: tensor<(\d+)x\d+xi8>, %{s_}: tensor<\S+>",
                     lambda m_: f"%{w}: tensor<{m_.group(1)}xKxbf16>", src)
    return (src.replace(f"%wg: tensor<{f}xKxbf16>", f"%wg: tensor<{f}x{d}xbf16>")
               .replace(f"%wu: tensor<{f}xKxbf16>", f"%wu: tensor<{f}x{d}xbf16>")
               .replace(f"%wd: tensor<{d}xKxbf16>", f"%wd: tensor<{d}x{f}xbf16>"))


def decode_section(args, emit, model_ratios):
    print("# 7. Weight-only quantised GEMV / skinny GEMM (bf16 activations, "
          "16x16 machine at 16 and 4 DRAM B/cycle)")
    print(f"{'M x K x N':>16} {'B/c':>3} {'weights':7} {'cycles':>9} "
          f"{'vs bf16':>7} "
          f"{'B/cycle':>7} {'of DRAM':>7} {'w/cycle':>7} {'of array':>8} "
          f"{'model/sim':>9}")
    # The default machine, and one with a quarter of its DRAM bandwidth
    # (where the weights' bytes, not the array, set the pace).
    shapes = [(1, 4096, 4096, 16), (8, 4096, 4096, 16), (16, 4096, 4096, 16),
              (1, 4096, 4096, 4)]
    if args.quick:
        shapes = [(1, 1024, 1024, 16), (1, 1024, 1024, 4)]
    for m, k, n, bw in shapes:
        base = None
        for kind in ("bf16", "int8", "int4", "int4-zp"):
            res = run(dequant_src(m, k, n, kind), machine(16, 16, bw),
                      dist="uniform")
            if kind == "bf16":
                base = res["cycles"]
            rate = res["read"] / res["cycles"]
            weights = n * k / res["cycles"]
            mr = res["predicted"] / res["cycles"]
            model_ratios.append(mr)
            print(f"{m:>5}x{k}x{n:<6} {bw:>3} {kind:7} {res['cycles']:>9} "
                  f"{base / res['cycles']:7.2f} {rate:7.2f} {rate / bw:7.3f} "
                  f"{weights:7.2f} {weights / 16:8.3f} {mr:9.3f}")
            emit("decode", f"{m}x{k}x{n} {bw}B/cyc {kind}",
                 f"{base / res['cycles']:.2f}", "(report: x bf16 weights)",
                 f"cycles {res['cycles']}; DRAM {rate / bw:.3f} of {bw} "
                 f"B/cycle; {weights:.2f} weights/cycle")
    # A whole Llama MLP at decode (examples/quantized_mlp.mlir's program:
    # RMSNorm, gate/up/down projections, SwiGLU, residual) with int4 or
    # bf16 weights, checked against fp64 like every row.
    print(f"{'Llama MLP, d x FFN':>18} {'weights':7} {'cycles':>9} "
          f"{'vs bf16':>7} {'model/sim':>9}")
    for d, f in ([(256, 512)] if args.quick else [(256, 512), (4096, 14336)]):
        base = None
        for kind in ("bf16", "int4"):
            res = run(mlp_src(d, f, kind), machine(16, 16, 16),
                      dist="uniform")
            if kind == "bf16":
                base = res["cycles"]
            mr = res["predicted"] / res["cycles"]
            model_ratios.append(mr)
            print(f"{d:>8}x{f:<9} {kind:7} {res['cycles']:>9} "
                  f"{base / res['cycles']:7.2f} {mr:9.3f}")
            emit("decode", f"MLP {d}x{f} {kind}", f"{base / res['cycles']:.2f}",
                 "(report: x bf16 weights)", f"cycles {res['cycles']}")


def paged_src(ctx, hq=32, hkv=8, d=128, page=16):
    """One decode step of a Llama-3-8B-like layer: 1 sequence, `hq` query
    heads over `hkv` KV heads, bf16 pools of `page`-token pages, as many
    pages as the context needs."""
    pages = ctx // page
    q = f"tensor<1x{hq}x1x{d}xbf16>"
    pool = f"tensor<{pages}x{page}x{hkv}x{d}xbf16>"
    bt = f"tensor<1x{pages}xi32>"
    o = f"tensor<1x{hq}x1x{d}xf32>"
    return (f"func.func @paged(%q: {q}, %kc: {pool}, %vc: {pool}, "
            f"%bt: {bt}, %len: tensor<1xi32>) -> {o} {{\n"
            f"  %o = tensor.empty() : {o}\n"
            f"  %r = accel.paged_attention ins(%q, %kc, %vc : {q}, {pool}, "
            f"{pool}) block_table(%bt : {bt}) kv_lengths(%len : "
            f"tensor<1xi32>) outs(%o : {o}) -> {o}\n"
            f"  return %r : {o}\n}}\n")


def kv_bytes(ctx, hkv=8, d=128):
    """Bytes of one of K or V (bf16) for `ctx` keys."""
    return ctx * hkv * d * 2


def paged_section(args, emit, model_ratios):
    print("# 9. Paged decode attention (accel.paged_attention: 32 query "
          "heads / 8 KV heads, d 128, bf16, 16-token pages, the whole "
          "context kept), 16x16 machine at 16 DRAM B/cycle")
    print(f"{'context':>8} {'cycles':>10} {'KV MiB':>7} {'B/cycle':>7} "
          f"{'of DRAM':>7} {'model/sim':>9}")
    for ctx in ([1024] if args.quick else [4096, 8192, 16384, 32768]):
        # The sequence holds the whole table (accel-run's --poison sets
        # its length; the pages are drawn from the pool).
        res = run(paged_src(ctx), machine(16, 16, 16), dist="uniform",
                  extra=(f"--poison=4:0:{ctx}",))
        kv = 2 * kv_bytes(ctx)
        rate = kv / res["cycles"]
        mr = res["predicted"] / res["cycles"]
        model_ratios.append(mr)
        print(f"{ctx:>8} {res['cycles']:>10} {kv / 2**20:7.1f} {rate:7.2f} "
              f"{rate / 16:7.3f} {mr:9.3f}")
        emit("paged", f"context {ctx}", f"{rate / 16:.3f}",
             ">= 0.8 of DRAM", f"cycles {res['cycles']}; {rate:.2f} B/cycle")
    # A table twice as long as the sequence: the pages past its length are
    # not read and their key blocks are skipped (systolic `skip`), so it
    # takes about half the full table's time. (Not a model row: the model
    # cannot know a run-time length.)
    ctx = 1024 if args.quick else 4096
    full = run(paged_src(ctx), machine(16, 16, 16), dist="uniform",
               extra=(f"--poison=4:0:{ctx}",))
    half = run(paged_src(ctx), machine(16, 16, 16), dist="uniform",
               extra=(f"--poison=4:0:{ctx // 2}",))
    kv = kv_bytes(ctx)
    rate = kv / half["cycles"]
    print(f"{ctx // 2:>8} of {ctx}-token table: {half['cycles']} cycles, "
          f"{rate / 16:.3f} of DRAM ({half['cycles'] / full['cycles']:.3f} "
          f"of the full table's time)")
    emit("paged", f"length {ctx // 2} of a {ctx}-token table",
         f"{rate / 16:.3f}", "(report)",
         f"cycles {half['cycles']} vs {full['cycles']} for the full table")
    # The same step with a contiguous cache (accel.attention, no paging):
    # GQA heads stacked as well, so the same bytes and about the same time.
    q = "tensor<1x32x1x128xbf16>"
    kv = f"tensor<1x8x{ctx}x128xbf16>"
    o = "tensor<1x32x1x128xf32>"
    plain = run(f"func.func @plain(%q: {q}, %k: {kv}, %v: {kv}) -> {o} {{\n"
                f"  %o = tensor.empty() : {o}\n"
                f"  %r = accel.attention ins(%q, %k, %v : {q}, {kv}, {kv}) "
                f"outs(%o : {o}) -> {o}\n  return %r : {o}\n}}\n",
                machine(16, 16, 16), dist="uniform")
    rate = 2 * kv_bytes(ctx) / plain["cycles"]
    mr = plain["predicted"] / plain["cycles"]
    model_ratios.append(mr)
    print(f"{ctx:>8} contiguous (accel.attention): {plain['cycles']} cycles, "
          f"{rate / 16:.3f} of DRAM, model/sim {mr:.3f}")
    emit("paged", f"context {ctx}, contiguous accel.attention",
         f"{rate / 16:.3f}", "(report)", f"cycles {plain['cycles']}")
    # With a padding mask over the keys ([1, 1, 1, ctx], broadcast over the
    # heads): the heads stay stacked, the mask row is moved into every
    # stacked row (a 0 stride; its bytes count in the DRAM bound) with the
    # key block, ahead of the softmax. bf16 (additive), then i1 (true keeps:
    # a byte a key, widened by the DMA into the additive mask it means,
    # `unpack mask`: the same program with half the mask's bytes).
    for dtype, mask_bytes, what in (("bf16", 2, "padding mask"),
                                    ("i1", 1, "boolean padding mask")):
        m = f"tensor<1x1x1x{ctx}x{dtype}>"
        masked = run(f"func.func @masked(%q: {q}, %k: {kv}, %v: {kv}, "
                     f"%m: {m}) -> {o} {{\n  %o = tensor.empty() : {o}\n"
                     f"  %r = accel.attention ins(%q, %k, %v : {q}, {kv}, "
                     f"{kv}) mask(%m : {m}) outs(%o : {o}) -> {o}\n"
                     f"  return %r : {o}\n}}\n",
                     machine(16, 16, 16), dist="uniform")
        nbytes = 2 * kv_bytes(ctx) + 32 * ctx * mask_bytes
        rate = nbytes / masked["cycles"]
        mr = masked["predicted"] / masked["cycles"]
        model_ratios.append(mr)
        of_plain = masked["cycles"] / plain["cycles"]
        print(f"{ctx:>8} contiguous, {what}: {masked['cycles']} cycles "
              f"({of_plain:.3f} of unmasked), {rate / 16:.3f} of DRAM, "
              f"model/sim {mr:.3f}")
        emit("paged", f"context {ctx}, contiguous accel.attention, {what}",
             f"{rate / 16:.3f}", "(report)",
             f"cycles {masked['cycles']} ({of_plain:.3f} of unmasked)")


def llama_section(args, emit, model_ratios):
    print("# 6. The Llama decoder block (examples/llama_block.py), one "
          "program, f32 and bf16")
    print(f"{'preset':6} {'dtype':5} {'array':8} {'cycles':>10} "
          f"{'of PEs':>7} {'of DRAM':>7} {'read/min':>8} {'model/sim':>9}")
    cases = [("small", 16, 16, "", 16), ("small", 8, 8, "vector-lanes=4", 16)]
    with tempfile.TemporaryDirectory() as gen:
        def block(preset, dtype):
            """The block's .mlir: the shipped f32 one, or generated."""
            if dtype == "f32":
                return os.path.join(ROOT, "examples",
                                    f"llama_block_{preset}.mlir")
            out = os.path.join(gen, f"llama_block_{preset}_{dtype}.mlir")
            if not os.path.exists(out):
                subprocess.run([sys.executable,
                                os.path.join(ROOT, "examples",
                                             "llama_block.py"), preset,
                                "--dtype", dtype, "-o", out], check=True)
            return out

        for dtype in ("f32", "bf16"):
            for preset, r, c, extra, bw in cases:
                path = block(preset, dtype)
                res = run(None, machine(r, c, bw, extra), dist="uniform",
                          path=path)
                report_block(preset, dtype, r, c, bw, res, block_bytes(path),
                             emit, model_ratios)
        if args.quick:
            return
        # Llama 3 8B's layer: accel-compile, then accel-sim on random
        # arguments (an fp64 oracle of 28 G MACs is left to the small
        # preset's checks).
        for dtype in ("f32", "bf16"):
            path = block("8b", dtype)
            name = os.path.splitext(os.path.basename(path))[0]
            with tempfile.TemporaryDirectory() as d:
                out = subprocess.run(
                    [os.path.join(BUILD, "bin", "accel-compile"), path,
                     "--target=systolic", "-o", d], capture_output=True,
                    text=True)
                if out.returncode != 0:
                    sys.exit(f"accel-compile failed:\n{out.stdout}"
                             f"{out.stderr}")
                import json
                meta = json.load(open(os.path.join(d, f"{name}.json")))
                sim = subprocess.run(
                    [os.path.join(BUILD, "bin", "accel-sim"),
                     os.path.join(d, meta["artifact"])], capture_output=True,
                    text=True)
                if sim.returncode != 0:
                    sys.exit(f"accel-sim failed:\n{sim.stdout}{sim.stderr}")
                res = parse_stats(sim.stdout + sim.stderr)
                res["predicted"] = meta["predicted_cycles"]
            report_block("8b", dtype, 16, 16, 16, res, block_bytes(path),
                         emit, model_ratios)
            # Scratch values sharing DRAM buffers where their lives do not
            # meet.
            planned = sum(b["bytes"] for b in meta["buffers"]
                          if b["role"] == "scratch")
            values = meta["scratch_tensor_bytes"]
            print(f"8b {dtype} scratch: {planned / 1e6:.1f} MB of buffers "
                  f"for {values / 1e6:.1f} MB of values "
                  f"({planned / values:.3f})")
            emit("llama-block", f"8b {dtype} scratch buffers / scratch values",
                 f"{planned / values:.3f}", "(report)",
                 f"{planned} of {values} bytes")


def report_block(preset, dtype, r, c, bw, res, nbytes, emit, model_ratios):
    pe = res["macs"] / (r * c) / res["cycles"]
    dram = nbytes / bw / res["cycles"]
    mr = res["predicted"] / res["cycles"]
    model_ratios.append(mr)
    print(f"{preset:6} {dtype:5} {r:>3}x{c:<4} {res['cycles']:>10} "
          f"{pe:7.3f} {dram:7.3f} {res['read'] / nbytes:8.2f} {mr:9.3f}")
    emit("llama-block", f"{preset} {dtype} {r}x{c} {bw}B/cyc",
         f"{max(pe, dram):.3f}", "(report)",
         f"cycles {res['cycles']}; PE bound {pe:.3f}; DRAM bound {dram:.3f}")


def machine(rows, cols, bw, extra=""):
    return f"rows={rows} cols={cols} dram-bytes-per-cycle={bw} {extra}".strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows_out = []

    def emit(section, name, value, goal, note):
        rows_out.append((section, name, value, goal, note))

    print("# 1. GEMM utilisation (ideal MAC-cycles / simulated cycles)")
    print(f"{'array':8} {'bw B/cyc':>8} {'dtype':5} {'M x K x N':>16} "
          f"{'cycles':>9} {'util':>6} {'model/sim':>9}")
    gemms = [(256, 256, 256), (512, 512, 512), (1024, 256, 512),
             (256, 1024, 256)]
    if args.quick:
        gemms = gemms[:2]
    arrays = [(16, 16, 16, "Gemmini default: 256 KiB spad, 64 KiB acc"),
              (32, 32, 64, "32x32, 64 B/cycle (SCALE-Sim scale.cfg's 64 words/cycle)")]
    utils, model_ratios = [], []
    for r, c, bw, what in arrays:
        for dt in ("i8", "bf16"):
            for m, k, n in gemms:
                res = run(matmul_src(m, k, n, dt), machine(r, c, bw))
                ideal = m * k * n / (r * c)
                util = ideal / res["cycles"]
                ratio = res["predicted"] / res["cycles"]
                utils.append(util)
                model_ratios.append(ratio)
                print(f"{r}x{c:<5} {bw:>8} {dt:5} {m:>5}x{k}x{n:<6} "
                      f"{res['cycles']:>9} {util:6.3f} {ratio:9.3f}")
                emit("gemm", f"{r}x{c} bw{bw} {dt} {m}x{k}x{n}",
                     f"{util:.3f}", ">= 0.85", f"cycles {res['cycles']}")
    print(f"utilisation: min {min(utils):.3f}, max {max(utils):.3f} "
          f"(goal >= 0.85)\n")

    print("# 2. SCALE-Sim v2 golden layer: M=256 K=256 N=128, 32x32, i8")
    best_total = min(t for t, _ in SCALESIM.values())
    best_compute = min(t - s for t, s in SCALESIM.values())
    ours = run(matmul_src(256, 256, 128, "i8"),
               machine(32, 32, 64, "spad-kib=128 acc-kib=64"))
    ideal_bw = run(matmul_src(256, 256, 128, "i8"),
                   machine(32, 32, 1000000, "spad-kib=128 acc-kib=64 "
                           "dram-latency=0"))
    print(f"ours (auto dataflow, 64 B/cycle, 100-cycle latency): "
          f"{ours['cycles']} cycles; SCALE-Sim best total (IS, USER "
          f"bandwidth 64 words/cycle): {best_total} -> ratio "
          f"{ours['cycles'] / best_total:.3f} (goal <= 1.05)")
    print(f"ours with ideal DRAM: {ideal_bw['cycles']} cycles; SCALE-Sim best "
          f"compute-only (OS): {best_compute} -> ratio "
          f"{ideal_bw['cycles'] / best_compute:.3f}\n")
    emit("scalesim", "ours / best SCALE-Sim total",
         f"{ours['cycles'] / best_total:.3f}", "<= 1.05", "64 B/cycle")
    emit("scalesim", "ours ideal DRAM / best SCALE-Sim compute",
         f"{ideal_bw['cycles'] / best_compute:.3f}", "<= 1.05", "ideal DRAM")
    model_ratios.append(ours["predicted"] / ours["cycles"])

    print("# 3. Attention (f32 accumulation, bf16 inputs): cycles / the "
          "two-GEMM lower bound")
    print(f"{'array':8} {'B,H,S,d':>14} {'causal':6} {'cycles':>9} "
          f"{'bound':>8} {'ratio':>6} {'vector':>8} {'model/sim':>9}")
    atts = [(1, 2, 256, 64), (1, 1, 512, 128), (1, 2, 256, 32)]
    if args.quick:
        atts = atts[:1]
    for r, c, bw, _ in arrays[:1]:
        for b, h, s, d in atts:
            for causal in (False, True):
                res = run(attention_src(b, h, s, d, "bf16", causal),
                          machine(r, c, bw))
                pairs = s * (s + 1) / 2 if causal else s * s
                bound = 2 * b * h * pairs * d / (r * c)
                ratio = res["cycles"] / bound
                mr = res["predicted"] / res["cycles"]
                model_ratios.append(mr)
                print(f"{r}x{c:<5} {b},{h},{s},{d:<5} {str(causal):6} "
                      f"{res['cycles']:>9} {bound:>8.0f} {ratio:6.2f} "
                      f"{res['vector']:>8} {mr:9.3f}")
                emit("attention", f"{r}x{c} {b},{h},{s},{d} causal={causal}",
                     f"{ratio:.2f}", "(report)",
                     f"vector busy {res['vector']} of {res['cycles']}")
    print()

    print("# 4. GEMM + epilogue: the GEMM alone's cycles / the GEMM with its "
          "epilogue (default 16x16 machine, 16 B/cycle)")
    print(f"{'dtype':5} {'M x K x N':>16} {'epilogue':10} {'alone':>8} "
          f"{'fused':>8} {'ratio':>6} {'separate':>8} {'ratio':>6} "
          f"{'model/sim':>9}")
    epi_gemms = [(256, 128, 1024), (256, 1024, 128), (512, 512, 512)]
    if args.quick:
        epi_gemms = epi_gemms[:1]
    default = machine(16, 16, 16)
    for dt in ("f32", "bf16"):
        for m, k, n in epi_gemms:
            alone = run(epilogue_src(m, k, n, dt, "alone"), default)
            for kind in ("bias_relu", "silu_bf16"):
                src = epilogue_src(m, k, n, dt, kind)
                fused = run(src, default)
                separate = run(src, default + " fuse-epilogues=false")
                rf = alone["cycles"] / fused["cycles"]
                rs = alone["cycles"] / separate["cycles"]
                mr = fused["predicted"] / fused["cycles"]
                model_ratios.append(mr)
                print(f"{dt:5} {m:>5}x{k}x{n:<6} {kind:10} "
                      f"{alone['cycles']:>8} {fused['cycles']:>8} {rf:6.3f} "
                      f"{separate['cycles']:>8} {rs:6.3f} {mr:9.3f}")
                emit("epilogue", f"{dt} {m}x{k}x{n} {kind}", f"{rf:.3f}",
                     ">= 0.95", f"separate {rs:.3f}; cycles alone "
                     f"{alone['cycles']} fused {fused['cycles']} separate "
                     f"{separate['cycles']}")
    print()

    print("# 5. Softmax on the vector unit (default 16x16 machine, 16 lanes, "
          "16 B/cycle)")
    print(f"{'dtype':5} {'rows x n':>12} {'cycles':>8} {'elem/cyc':>8} "
          f"{'of bound':>8} {'model/sim':>9}")
    sms = [(256, 128), (64, 1024), (16, 4096)]
    if args.quick:
        sms = sms[:1]
    for dt in ("f32", "bf16"):
        for rows, n in sms:
            res = run(softmax_src(rows, n, dt), default)
            rate = rows * n / res["cycles"]
            bound = 16 / 8
            mr = res["predicted"] / res["cycles"]
            model_ratios.append(mr)
            print(f"{dt:5} {rows:>5}x{n:<6} {res['cycles']:>8} {rate:8.3f} "
                  f"{rate / bound:8.3f} {mr:9.3f}")
            emit("softmax", f"{dt} {rows}x{n}", f"{rate / bound:.3f}",
                 "(report)", f"cycles {res['cycles']}")
    print(f"{'RMSNorm':14} {'rows x n':>12} {'cycles':>8} {'elem/cyc':>8} "
          f"{'DMA bound':>9} {'model/sim':>9}")
    for rows, n in ([(256, 1024)] if args.quick else [(256, 1024), (64, 4096)]):
        res = run(rmsnorm_src(rows, n), default)
        rate = rows * n / res["cycles"]
        # x read twice (the sum, the scaling) and y written: 8 B an element
        # through the load queue at 16 B/cycle.
        bound = 16 / 8
        mr = res["predicted"] / res["cycles"]
        model_ratios.append(mr)
        print(f"{'f32':14} {rows:>5}x{n:<6} {res['cycles']:>8} {rate:8.3f} "
              f"{rate / bound:9.3f} {mr:9.3f}")
        emit("rmsnorm", f"f32 {rows}x{n}", f"{rate / bound:.3f}", "(report)",
             f"cycles {res['cycles']}")
    print()
    llama_section(args, emit, model_ratios)
    print()
    decode_section(args, emit, model_ratios)
    print()
    paged_section(args, emit, model_ratios)
    print()
    within = sum(1 for x in model_ratios if abs(x - 1) <= 0.05)
    print(f"# 10. Schedule model / simulator: {within} of {len(model_ratios)} "
          f"within +-5%; range {min(model_ratios):.3f} .. "
          f"{max(model_ratios):.3f}")
    emit("model", "predicted / simulated within 5%",
         f"{within}/{len(model_ratios)}", "all", "")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("section,case,value,goal,note\n")
            for row in rows_out:
                f.write(",".join(str(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
