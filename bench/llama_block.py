#!/usr/bin/env python3
"""A Llama decoder block on the CPU: accel's AOT library against the same
block in JAX/XLA:CPU (issue 27, "Measure": goal >= 1.3).

    python3 bench/llama_block.py [--threads=1|2] [--seqs=128,512,2048]
                                 [--preset=8b|1b|small] [--dtype=f32|bf16]
                                 [--samples=N] [--weights=nk|kn]
                                 [--options=OPTS] [--peers=jax,ort]

The block is examples/llama_block.py's (RMSNorm, Q/K/V projections,
half-split RoPE, GQA attention with an additive causal mask, output
projection + residual, RMSNorm, SwiGLU MLP + residual; one sequence of S
tokens; f32, or bf16 as torch-mlir lowers a bf16 model: --dtype=bf16), written in linalg as torch-mlir emits it and compiled whole by
`accel-compile --target=cpu --features=host` (raised, fused, one exported
function). accel's projection weights are [out, in] as nn.Linear stores
them, each transposed into its matmul as torch-mlir emits aten.linear
(`--weights=kn`: [in, out], multiplied directly); the peers get the [in,
out] arrays, which their matmuls read without a transpose. The JAX side is
the same block in jax.numpy under `jax.jit`
(XLA:CPU; oneDNN inside for its matmuls). ONNX Runtime, the issue's other
peer, runs the f32 block as an ONNX graph (block_ort: MatMul on MLAS with
the weights as initializers, prepacked once, com.microsoft
MultiHeadAttention, the RMSNorm pattern its optimiser fuses); its CPU
provider has no bf16 MatMul, so it is skipped for --dtype=bf16. Both peers
are optional (bench/requirements-peers.txt) and skipped with the reason
when absent.

Presets (d_model, query heads, KV heads, head dim, FFN): `8b` is Llama 3
8B's layer (4096, 32, 8, 128, 14336; 218 M parameters, 0.87 GB in f32);
`1b` Llama 3.2 1B's (2048, 32, 8, 64, 8192); `small` the test block's
(64, 4, 2, 16, 128).

Every output is checked against a float64 numpy evaluation of the block
first (on the inputs rounded to bf16 for --dtype=bf16): max |y - y64| /
max |y64| must be under 1e-3 in f32, 1.5e-2 in bf16 (FAIL otherwise; the
column `err` prints it). JAX's bf16 block rounds where the MLIR program
does (block_jax_bf16), except that its scores stay f32 as accel's fused
attention keeps them. Timing: the median of --samples calls after one
untimed call (JAX's first call compiles). The process is pinned to the
first --threads CPUs and XLA's Eigen pool is single-threaded for one thread
(bench/peers.py's pin_cpus and set_thread_env); the accel library is built
with threads=N and runs on N. Prints the CPU model and features, the commit
and the versions. The ratios are the peer's ms / accel ms (> 1: accel is
faster). Memory: `tmp MB` is the most the block's temporaries asked for
at once over its calls (the library's peak_temporary_bytes), `mem/tens`
(tensors + that peak) ÷ tensors, the tensors being the inputs, weights and
output (issue 27: peak memory ÷ the sum of its tensors).
"""

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE.parent / "examples"))

PRESETS = {
    "8b": (4096, 32, 8, 128, 14336),
    "1b": (2048, 32, 8, 64, 8192),
    "small": (64, 4, 2, 16, 128),
}


def make_inputs(S, Dm, Hq, Hkv, D, F, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    Dkv = Hkv * D
    f = np.float32

    def w(k, n):
        return (rng.standard_normal((k, n)) / math.sqrt(k)).astype(f)
    x = rng.standard_normal((S, Dm)).astype(f)
    wn1 = (1 + 0.1 * rng.standard_normal(Dm)).astype(f)
    wn2 = (1 + 0.1 * rng.standard_normal(Dm)).astype(f)
    h = D // 2
    inv = 500000.0 ** (-np.arange(h) / h)
    ang = np.arange(S)[:, None] * inv[None, :]
    cos, sin = np.cos(ang).astype(f), np.sin(ang).astype(f)
    mask = np.where(np.tril(np.ones((S, S), bool)), 0.0, -np.inf).astype(f)
    return [x, wn1, w(Dm, Dm), w(Dm, Dkv), w(Dm, Dkv), cos, sin, mask,
            w(Dm, Dm), wn2, w(Dm, F), w(Dm, F), w(F, Dm)]


# The projection weights among make_inputs' arrays (wq, wk, wv, wo, wg, wu,
# wd): [in, out] there, as the numpy and JAX blocks multiply them.
WEIGHTS = (2, 3, 4, 8, 10, 11, 12)


def accel_inputs(inputs, weights):
    """The arrays for examples/llama_block.py's function with `weights`
    'nk' (nn.Linear's [out, in]: each projection weight transposed, a
    contiguous copy of the same values) or 'kn' (as they are)."""
    import numpy as np
    if weights == "kn":
        return list(inputs)
    return [np.ascontiguousarray(a.T) if i in WEIGHTS else a
            for i, a in enumerate(inputs)]


def block_numpy(args, Hq, Hkv, D, xp, dtype):
    """The block in numpy (float64 reference) or jax.numpy (xp)."""
    x, wn1, wq, wk, wv, cos, sin, mask, wo, wn2, wg, wu, wd = args
    S = x.shape[0]
    R, h = Hq // Hkv, D // 2

    def rms(t, g):
        return t * (1 / xp.sqrt(xp.mean(t * t, axis=-1, keepdims=True) + 1e-5)) * g

    def rope(t):
        a, b = t[..., :h], t[..., h:]
        c, s = cos[:, None, :], sin[:, None, :]
        return xp.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    h1 = rms(x, wn1)
    q = rope((h1 @ wq).reshape(S, Hq, D)).transpose(1, 0, 2)
    k = rope((h1 @ wk).reshape(S, Hkv, D)).transpose(1, 0, 2)
    v = (h1 @ wv).reshape(S, Hkv, D).transpose(1, 0, 2)
    k, v = xp.repeat(k, R, axis=0), xp.repeat(v, R, axis=0)
    s = q @ k.transpose(0, 2, 1) * dtype(1 / math.sqrt(D)) + mask
    s = s - s.max(axis=-1, keepdims=True)
    p = xp.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    a = (p @ v).transpose(1, 0, 2).reshape(S, Hq * D)
    r1 = a @ wo + x
    h2 = rms(r1, wn2)
    g = h2 @ wg
    sw = g / (1 + xp.exp(-g)) * (h2 @ wu)
    return sw @ wd + r1


def block_jax_bf16(args, Hq, Hkv, D, jnp):
    """The bf16 block in jax.numpy as a bf16 model runs it (Hugging Face's
    Llama in bf16): matmuls accumulate in f32 and round to bf16, the norms
    and the softmax in f32, the rest in bf16 -- the roundings of the MLIR
    program, except that the scores stay f32 (as in accel's fused op)."""
    x, wn1, wq, wk, wv, cos, sin, mask, wo, wn2, wg, wu, wd = args
    f32, bf16 = jnp.float32, jnp.bfloat16
    S = x.shape[0]
    R, h = Hq // Hkv, D // 2

    def mm(a, b):
        return jnp.matmul(a, b, preferred_element_type=f32).astype(bf16)

    def rms(t, g):
        t = t.astype(f32)
        r = 1 / jnp.sqrt(jnp.mean(t * t, axis=-1, keepdims=True) + 1e-5)
        return (t * r).astype(bf16) * g

    def rope(t):
        a, b = t[..., :h], t[..., h:]
        c, s = cos[:, None, :], sin[:, None, :]
        return jnp.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    h1 = rms(x, wn1)
    q = rope(mm(h1, wq).reshape(S, Hq, D)).transpose(1, 0, 2)
    k = rope(mm(h1, wk).reshape(S, Hkv, D)).transpose(1, 0, 2)
    v = mm(h1, wv).reshape(S, Hkv, D).transpose(1, 0, 2)
    k, v = jnp.repeat(k, R, axis=0), jnp.repeat(v, R, axis=0)
    s = (jnp.matmul(q, k.transpose(0, 2, 1), preferred_element_type=f32)
         * f32(1 / math.sqrt(D)) + mask.astype(f32))
    s = s - s.max(axis=-1, keepdims=True)
    p = jnp.exp(s)
    p = (p / p.sum(axis=-1, keepdims=True)).astype(bf16)
    a = mm(p, v).transpose(1, 0, 2).reshape(S, Hq * D)
    r1 = mm(a, wo) + x
    h2 = rms(r1, wn2)
    g = jnp.matmul(h2, wg, preferred_element_type=f32).astype(bf16).astype(f32)
    sw = (g / (1 + jnp.exp(-g))).astype(bf16) * mm(h2, wu)
    return mm(sw, wd) + r1


def block_ort(args, Hq, Hkv, D, threads):
    """The f32 block as an ONNX graph in ONNX Runtime (CPU provider, all
    graph optimisations; opset 17 and com.microsoft): the weights are
    initializers, as in an exported model (MLAS prepacks them once, at
    session creation: an advantage accel's block, which takes them as
    arguments, does not have); x, cos, sin are inputs; the attention is
    com.microsoft MultiHeadAttention with unidirectional=1 (the causal mask
    bench passes) on K and V repeated to the query heads. Returns
    run() -> y."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto as TP, helper, numpy_helper
    x, wn1, wq, wk, wv, cos, sin, mask, wo, wn2, wg, wu, wd = args
    S, Dm = x.shape
    R, h = Hq // Hkv, D // 2
    nodes, inits = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out
    for name, w in (("wn1", wn1), ("wq", wq), ("wk", wk), ("wv", wv), ("wo", wo),
                    ("wn2", wn2), ("wg", wg), ("wu", wu), ("wd", wd)):
        const(name, w)
    const("eps", np.float32(1e-5))

    def rms(t, g, out):
        sq = node("Mul", [t, t], out + "_sq")
        ms = node("ReduceMean", [sq], out + "_ms", axes=[-1], keepdims=1)
        r = node("Reciprocal", [node("Sqrt", [node("Add", [ms, "eps"], out + "_v")],
                                     out + "_s")], out + "_r")
        return node("Mul", [node("Mul", [t, r], out + "_n"), g], out)
    cs = node("Unsqueeze", ["cos", const("ax1", np.array([1], np.int64))], "cs")
    sn = node("Unsqueeze", ["sin", "ax1"], "sn")

    def rope(t, H, out):
        t3 = node("Reshape", [t, const(out + "_shape", np.array([S, H, D], np.int64))],
                  out + "_3")
        a = node("Slice", [t3, const(out + "_a0", np.array([0], np.int64)),
                           const(out + "_a1", np.array([h], np.int64)),
                           const(out + "_ax", np.array([2], np.int64))], out + "_a")
        b = node("Slice", [t3, out + "_a1", const(out + "_b1", np.array([D], np.int64)),
                           out + "_ax"], out + "_b")
        ra = node("Sub", [node("Mul", [a, cs], out + "_ac"),
                          node("Mul", [b, sn], out + "_bs")], out + "_ra")
        rb = node("Add", [node("Mul", [b, cs], out + "_bc"),
                          node("Mul", [a, sn], out + "_as")], out + "_rb")
        return node("Concat", [ra, rb], out + "_r3", axis=2)

    def repeat(t3, out):
        # [S, Hkv, D] -> [S, Hkv, R, D] -> [S, Hq * D] (repeat_kv's order).
        e = node("Expand", [node("Unsqueeze", [t3, const(out + "_u", np.array([2], np.int64))],
                                 out + "_4"),
                            const(out + "_e", np.array([S, Hkv, R, D], np.int64))],
                 out + "_x")
        return node("Reshape", [e, const(out + "_s", np.array([1, S, Hq * D], np.int64))],
                    out)
    h1 = rms("x", "wn1", "h1")
    q = rope(node("MatMul", [h1, "wq"], "qp"), Hq, "q")
    k = rope(node("MatMul", [h1, "wk"], "kp"), Hkv, "k")
    v3 = node("Reshape", [node("MatMul", [h1, "wv"], "vp"),
                          const("v_shape", np.array([S, Hkv, D], np.int64))], "v3")
    q1 = node("Reshape", [q, const("q_s", np.array([1, S, Hq * D], np.int64))], "q1")
    kx, vx = repeat(k, "kx"), repeat(v3, "vx")
    nodes.append(helper.make_node("MultiHeadAttention", [q1, kx, vx], ["att"],
                                  domain="com.microsoft", num_heads=Hq,
                                  scale=1.0 / math.sqrt(D), unidirectional=1))
    a2 = node("Reshape", ["att", const("a_s", np.array([S, Dm], np.int64))], "a2")
    r1 = node("Add", [node("MatMul", [a2, "wo"], "op"), "x"], "r1")
    h2 = rms(r1, "wn2", "h2")
    g = node("MatMul", [h2, "wg"], "gate")
    sw = node("Mul", [node("Mul", [g, node("Sigmoid", [g], "sg")], "silu"),
                      node("MatMul", [h2, "wu"], "up")], "sw")
    node("Add", [node("MatMul", [sw, "wd"], "dn"), r1], "y")
    f = TP.FLOAT
    graph = helper.make_graph(
        nodes, "llama_block",
        [helper.make_tensor_value_info("x", f, [S, Dm]),
         helper.make_tensor_value_info("cos", f, [S, h]),
         helper.make_tensor_value_info("sin", f, [S, h])],
        [helper.make_tensor_value_info("y", f, [S, Dm])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    feeds = {"x": x, "cos": cos, "sin": sin}
    return lambda: sess.run(["y"], feeds)[0]


def median_ms(fn, samples):
    fn()
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, choices=(1, 2), default=1)
    ap.add_argument("--seqs", default="128,512,2048",
                    help="sequence lengths S, comma separated")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="8b")
    ap.add_argument("--dtype", choices=("f32", "bf16"), default="f32",
                    help="activations and weights (bf16: AMX/AVX512-BF16 "
                         "GEMMs and attention)")
    ap.add_argument("--weights", choices=("nk", "kn"), default="nk",
                    help="accel's projection weights: as nn.Linear stores "
                         "them, [out, in], transposed into each matmul as "
                         "torch-mlir emits it (nk), or [in, out] (kn); the "
                         "peers always get [in, out]")
    ap.add_argument("--options", default="",
                    help="more accel-compile --options for accel's library "
                         "(e.g. prefetch-b=0 to compare a code-generation "
                         "choice)")
    ap.add_argument("--peers", default="jax,ort",
                    help="peers to run, comma separated (jax, ort; empty: "
                         "none)")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.samples < 1:
        ap.error("--samples must be at least 1")
    from peers import commit, machine, pin_cpus, set_thread_env, versions
    set_thread_env(args.threads)
    cpus = pin_cpus(args.threads)
    import numpy as np
    from accel import aot
    import llama_block
    peers = {p for p in args.peers.split(",") if p}
    if peers - {"jax", "ort"}:
        ap.error("--peers takes jax and ort")
    jax = None
    if "jax" not in peers:
        print("# jax: skipped (--peers)")
    else:
        try:
            import jax
            import jax.numpy as jnp
        except ImportError as e:
            print(f"# jax: skipped ({e}); pip install -r "
                  "bench/requirements-peers.txt")
    ort = None
    if "ort" not in peers:
        print("# onnxruntime: skipped (--peers)")
    elif args.dtype == "bf16":
        print("# onnxruntime: skipped (its CPU provider has no bf16 MatMul)")
    else:
        try:
            import onnx  # noqa: F401
            import onnxruntime as ort
        except ImportError as e:
            print(f"# onnxruntime: skipped ({e}); pip install -r "
                  "bench/requirements-peers.txt")
    Dm, Hq, Hkv, D, F = PRESETS[args.preset]
    print(f"# {machine()}; commit {commit()}")
    print(f"# {versions()}; pinned to CPUs {cpus}; {args.threads} thread(s)")
    print(f"# Llama block {args.preset}: d_model {Dm}, {Hq} query / {Hkv} KV heads "
          f"of {D}, FFN {F}, {args.dtype}; median of {args.samples} calls")
    print(f"{'S':>6} {'GFLOP':>8} {'accel ms':>10} {'GFLOP/s':>8} {'err':>8} "
          f"{'jax ms':>10} {'err':>8} {'ort ms':>10} {'err':>8} {'jax/accel':>9} "
          f"{'ort/accel':>9} {'tmp MB':>8} {'mem/tens':>8}")
    failed = False
    bf = args.dtype == "bf16"
    if bf:
        import ml_dtypes
    # max |y - y64| / max |y64|: f32 is within 1e-5 of it here, bf16 within
    # 6.7e-3 (both accel and JAX, S 16-2048): gates at 100x the f32 error
    # and 2.2x the bf16.
    gate = 1.5e-2 if bf else 1e-3
    for S in (int(s) for s in args.seqs.split(",")):
        name = f"llama_block_{args.preset}_{S}"
        text = llama_block.block(S, Dm, Hq, Hkv, D, F, name, args.dtype,
                                 args.weights)
        inputs = make_inputs(S, Dm, Hq, Hkv, D, F, args.seed)
        if bf:
            inputs = [a.astype(ml_dtypes.bfloat16) for a in inputs]
        ref = block_numpy([a.astype(np.float64) for a in inputs], Hq, Hkv, D,
                          np, np.float64)
        scale = float(np.abs(ref).max())
        Dkv = Hkv * D
        flop = 2 * S * (Dm * (Dm + 2 * Dkv) + Dm * Dm + 3 * Dm * F) + 4 * Hq * S * S * D

        def err(y):
            return float(np.abs(np.asarray(y, np.float64) - ref).max()) / scale
        ours = accel_inputs(inputs, args.weights)
        with tempfile.TemporaryDirectory() as tmp:
            art = aot.compile(text, out_dir=Path(tmp) / "aot", name=name,
                              features="host",
                              options=f"threads={args.threads} {args.options}".strip())
            lib = aot.load(art)
            lib.num_threads = args.threads
            kernel = lib[name]
            out = np.empty((S, Dm), ml_dtypes.bfloat16 if bf else np.float32)
            kernel(*ours, out=[out])
            e_accel = err(out)
            ms_accel = median_ms(lambda: kernel(*ours, out=[out]), args.samples)
            # Peak memory: the tensors (inputs, weights, output) and the most
            # the block's temporaries held at once, over the calls above.
            tmp_bytes = lib.peak_temporary_bytes()
            tensor_bytes = sum(a.nbytes for a in ours) + out.nbytes
        del ours
        ms_jax = e_jax = None
        if jax is not None:
            fn = jax.jit((lambda *a: block_jax_bf16(a, Hq, Hkv, D, jnp)) if bf else
                         (lambda *a: block_numpy(a, Hq, Hkv, D, jnp, np.float32)))
            dev = [jax.device_put(a) for a in inputs]
            y = fn(*dev).block_until_ready()
            e_jax = err(y)
            ms_jax = median_ms(lambda: fn(*dev).block_until_ready(), args.samples)
            del dev, y
        ms_ort = e_ort = None
        if ort is not None:
            run = block_ort(inputs, Hq, Hkv, D, args.threads)
            e_ort = err(run())
            ms_ort = median_ms(run, args.samples)
            del run
        ok = all(e is None or e < gate for e in (e_accel, e_jax, e_ort))
        failed |= not ok

        def col(v, f):
            return "-" if v is None else format(v, f)
        print(f"{S:>6} {flop / 1e9:>8.1f} {ms_accel:>10.1f} {flop / ms_accel / 1e6:>8.1f} "
              f"{e_accel:>8.1e} {col(ms_jax, '.1f'):>10} {col(e_jax, '.1e'):>8} "
              f"{col(ms_ort, '.1f'):>10} {col(e_ort, '.1e'):>8} "
              f"{col(ms_jax and ms_jax / ms_accel, '.2f'):>9} "
              f"{col(ms_ort and ms_ort / ms_accel, '.2f'):>9} "
              f"{tmp_bytes / 1e6:>8.1f} {(tensor_bytes + tmp_bytes) / tensor_bytes:>8.2f}"
              f"{'' if ok else '  FAIL'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
