#!/usr/bin/env python3
"""accel's CPU kernels next to the peers a kernel engineer would pick
(issue 28 item 4), in one run, with ratios.

    python3 bench/peers.py [--threads=1|2] [--quick] [--samples=N]
                           [--only=gemm|attention] [--seed=S]
                           [--max-peer-seconds=T] [--peers=a,b,...]

Peers (each optional: install with
`python3 -m pip install -r bench/requirements-peers.txt`; a peer whose package
is absent, or that fails on a case, prints `peer X skipped: <reason>` and the
run goes on):

- onnxruntime: MatMul (f32; B a graph input like accel's, not a prepacked
  initializer), com.microsoft MatMulNBits for the weight-only int4 cases
  (its weights are initializers, as the op requires; `accuracy_level` 1,
  f32 arithmetic like accel's, as `onnxruntime`, and 4, activations
  quantised to int8 for VNNI, as `onnxruntime-int8a`, which the f32 gate
  is expected to fail), MatMulInteger (int8 x int8 -> int32 as its fast u8 x s8
  path: A + 128 in uint8 with a_zero_point 128, converted before timing),
  com.microsoft MultiHeadAttention (f32, `unidirectional` for causal); one
  session per case, inputs and the output bound once (IOBinding), the CPU
  provider with `intra_op_num_threads` = --threads.
- jax (XLA:CPU): `jnp.matmul` (bf16 and int8 with `preferred_element_type`
  f32 / int32) and `jax.nn.dot_product_attention` (`is_causal`) under
  `jax.jit`; XLA_FLAGS `--xla_cpu_multi_thread_eigen=false` for one thread.
- iree: iree-base-compiler/-runtime, linalg text compiled for llvm-cpu with
  IREE_FLAGS below, run on the local-task driver with
  `--task_topology_group_count` = --threads. GEMM: `linalg.matmul`;
  attention twice: `iree` is the fused `iree_linalg_ext.attention` (what
  torch's SDPA becomes in IREE, an i1 mask for causal), `iree-unfused` the
  explicit batch_matmul, scale (+ causal select), `linalg.softmax`,
  batch_matmul.
- accel: each case is written as a small MLIR file (`accel.matmul` /
  `accel.attention`) and run by `build/bin/accel-run FILE --repeat=N
  --num-threads=T`, which prints the median of N timed calls and checks the
  result against its own fp64 oracle (PASS/FAIL, max abs err, err/gate).

Every peer's result is checked against a float64 numpy reference on the
same (seeded) inputs: GEMM f32 and bf16 (bf16 inputs, f32 accumulation)
elementwise within 2·K·2⁻²⁴·(|A|·|B|) (a worst-case f32 bound: a peer that
computes in bf16 or TF32 internally fails it; MatMulNBits with int8
activations, whose errors average out over K, passes it at K = 4096, so its
max abs error is printed beside it), int8 exactly, attention f32
within 2·(L + d)·2⁻²⁴·max|V|. A peer out of tolerance is marked FAIL and not
counted as a best peer. Each peer takes its own layout (attention: accel and
IREE [B,H,L,d], ORT [B,L,H·d], JAX [B,L,H,d]); layout changes happen outside
the timed calls.

Timing: every side reports the median of N single calls (after untimed
warm-up calls: JAX's first call compiles). Peers run one after another in
this process; accel-run in a child process (its time excludes its JIT
compile and oracle). A peer sample loop stops early (at least 3 samples) when
it has spent --max-peer-seconds on a case. The ratio is best peer ms ÷ accel
ms (> 1: accel is faster), over the peers that passed. `cpu/wall` is the
process CPU time over wall time during a peer's timed calls: about the
threads it really used. The process (and so accel-run) is pinned to the
first --threads CPUs it may use (sched_setaffinity), since XLA:CPU has no
setting for its thread pool's size.

Cases: GEMM M = N = K in {256, 512, 1024, 2048} in f32, bf16 x bf16 -> f32
and int8 x int8 -> int32; attention f32 B = 1, H = 8, L in {512, 1024,
2048}, d in {64, 128}, causal and not; weight-only int4 (`--only=dequant`,
issue 31): f32 A [M, 4096] times W [N, 4096] in int4 with zero points and
f32 scales in groups of 128 (accel.dequant_matmul; MatMulNBits), M in {1,
8, 16}, N in {4096, 14336}, warm (the weights stay in cache between calls
on every side; bench/run.sh --mode=dequant has the cold-weight table).
--quick: GEMM 256, attention L = 512, d = 64 and int4 M = 1, N = 4096
only.
"""
import os

# OpenBLAS (numpy's, and any the peers load) is slower with these set.
for _var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_var, None)

import argparse  # noqa: E402
import importlib.metadata  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("ACCEL_BUILD_DIR", os.path.join(ROOT, "build"))
BIN = os.path.join(BUILD, "bin")

IREE_FLAGS = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-opt-data-tiling",
    "--iree-llvmcpu-enable-ukernels=all",
    "--iree-llvmcpu-target-cpu=host",
]
PACKAGES = ["numpy", "ml_dtypes", "onnx", "onnxruntime", "jax", "jaxlib",
            "iree-base-compiler", "iree-base-runtime"]
F32_EPS = 2.0 ** -24
DEQUANT_GROUP = 128

np = None  # numpy, imported in main() after the environment is set


class Skip(Exception):
    """A peer that does not run a case (not a failure of its result)."""


# --------------------------------------------------------------------------
# Cases, inputs and the float64 reference.

class Case:
    def __init__(self, kind, dtype, shape, causal=False):
        self.kind, self.dtype, self.shape, self.causal = kind, dtype, shape, causal

    @property
    def name(self):
        if self.kind == "gemm":
            m, n, k = self.shape
            return f"gemm {self.dtype} {m}x{n}x{k}"
        if self.kind == "dequant":
            m, n, k = self.shape
            return f"int4 weights g{DEQUANT_GROUP} M{m} {n}x{k}"
        b, h, l, d = self.shape
        return (f"attention {self.dtype} B{b} H{h} L{l} d{d}"
                f"{' causal' if self.causal else ''}")


def cases(args):
    out = []
    if args.only in (None, "gemm"):
        sizes = [256] if args.quick else [256, 512, 1024, 2048]
        for dtype in ("f32", "bf16", "i8"):
            out += [Case("gemm", dtype, (n, n, n)) for n in sizes]
    if args.only in (None, "attention"):
        lengths = [512] if args.quick else [512, 1024, 2048]
        dims = [64] if args.quick else [64, 128]
        for l in lengths:
            for d in dims:
                for causal in (False, True):
                    out.append(Case("attention", "f32", (1, 8, l, d), causal))
    if args.only in (None, "dequant"):
        rows = [1] if args.quick else [1, 8, 16]
        widths = [4096] if args.quick else [4096, 14336]
        for n in widths:
            out += [Case("dequant", "int4", (m, n, 4096)) for m in rows]
    return out


def make_inputs(case, seed):
    import ml_dtypes
    rng = np.random.default_rng(seed)
    if case.kind == "dequant":
        # A, the packed int4 weights (low nibble first), f32 scales and
        # integer zero points (0..15, as f32: accel's operand type).
        m, n, k = case.shape
        groups = k // DEQUANT_GROUP
        return [rng.uniform(-1, 1, (m, k)).astype(np.float32),
                rng.integers(-128, 128, (n, k // 2), dtype=np.int8),
                rng.uniform(0.005, 0.02, (n, groups)).astype(np.float32),
                rng.integers(0, 16, (n, groups)).astype(np.float32)]
    if case.kind == "gemm":
        m, n, k = case.shape
        if case.dtype == "i8":
            return [rng.integers(-128, 128, s, dtype=np.int8)
                    for s in ((m, k), (k, n))]
        a, b = [rng.uniform(-1, 1, s).astype(np.float32)
                for s in ((m, k), (k, n))]
        if case.dtype == "bf16":
            a, b = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
        return [a, b]
    return [rng.uniform(-1, 1, case.shape).astype(np.float32)
            for _ in range(3)]


def reference(case, inputs):
    """(float64 result, elementwise or scalar tolerance; 0: exact)."""
    if case.kind == "dequant":
        a, packed, s, z = inputs
        u = packed.view(np.uint8).astype(np.int64)
        q = np.empty((u.shape[0], 2 * u.shape[1]))
        q[:, 0::2], q[:, 1::2] = u & 15, u >> 4
        g = np.arange(q.shape[1]) // DEQUANT_GROUP
        w = (q - z[:, g]) * s[:, g]  # exact in f32 for these operands
        a = a.astype(np.float64)
        return a @ w.T, 2.0 * a.shape[1] * F32_EPS * (np.abs(a) @ np.abs(w).T)
    if case.kind == "gemm":
        a, b = [x.astype(np.float64) for x in inputs]
        ref = a @ b
        if case.dtype == "i8":
            return ref, 0.0
        k = a.shape[1]
        return ref, 2.0 * k * F32_EPS * (np.abs(a) @ np.abs(b))
    q, k, v = [x.astype(np.float64) for x in inputs]
    b, h, l, d = case.shape
    ref = np.empty_like(q)
    keep = np.tril(np.ones((l, l), dtype=bool)) if case.causal else None
    for i in range(b):
        for j in range(h):
            s = (q[i, j] @ k[i, j].T) / math.sqrt(d)
            if keep is not None:
                s = np.where(keep, s, -np.inf)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            ref[i, j] = p @ v[i, j]
    return ref, 2.0 * (l + d) * F32_EPS * float(np.abs(v).max())


def check(out, ref, tol):
    """(max abs error, passed)."""
    out = np.asarray(out)
    if out.shape != ref.shape:
        raise Skip(f"result shape {out.shape}, expected {ref.shape}")
    err = np.abs(out.astype(np.float64) - ref)
    if not np.all(np.isfinite(err)):
        return float("inf"), False
    return float(err.max()), bool(np.all(err <= tol))


def gate_text(tol):
    if np.isscalar(tol) or np.ndim(tol) == 0:
        return "exact" if tol == 0 else f"{float(tol):.1e}"
    return f"<= {float(np.max(tol)):.1e} (elementwise)"


def time_calls(run, samples, budget_s):
    """Median ms of single calls, the samples taken and CPU/wall."""
    times = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for i in range(samples):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        if i + 1 >= 3 and time.perf_counter() - wall0 > budget_s:
            break
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    return statistics.median(times) * 1e3, len(times), cpu / wall


# --------------------------------------------------------------------------
# accel, through accel-run.

MLIR_TYPES = {"f32": "f32", "bf16": "bf16", "i8": "i8"}
ACC_TYPES = {"f32": "f32", "bf16": "f32", "i8": "i32"}


def gemm_types(case):
    """The MLIR tensor types of a GEMM case's A, B and C, and C's element."""
    m, n, k = case.shape
    t, o = MLIR_TYPES[case.dtype], ACC_TYPES[case.dtype]
    return (f"tensor<{m}x{k}x{t}>", f"tensor<{k}x{n}x{t}>",
            f"tensor<{m}x{n}x{o}>", o)


def accel_module(case):
    if case.kind == "dequant":
        m, n, k = case.shape
        g = k // DEQUANT_GROUP
        ta, tw, ts = (f"tensor<{m}x{k}xf32>", f"tensor<{n}x{k // 2}xi8>",
                      f"tensor<{n}x{g}xf32>")
        tc = f"tensor<{m}x{n}xf32>"
        return (f"func.func @dequant(%a: {ta}, %w: {tw}, %s: {ts}, %z: {ts})"
                f" -> {tc} {{\n"
                f"  %o = tensor.empty() : {tc}\n"
                f"  %r = accel.dequant_matmul bits(4) group({DEQUANT_GROUP}) "
                f"unsigned ins(%a, %w : {ta}, {tw}) scales(%s : {ts}) "
                f"zero_points(%z : {ts}) outs(%o : {tc}) -> {tc}\n"
                f"  return %r : {tc}\n}}\n")
    if case.kind == "gemm":
        ta, tb, tc, _ = gemm_types(case)
        return (f"func.func @gemm(%a: {ta}, %b: {tb}) -> {tc} {{\n"
                f"  %o = tensor.empty() : {tc}\n"
                f"  %r = accel.matmul ins(%a, %b : {ta}, {tb}) "
                f"outs(%o : {tc}) -> {tc}\n"
                f"  return %r : {tc}\n}}\n")
    b, h, l, d = case.shape
    t = f"tensor<{b}x{h}x{l}x{d}x{MLIR_TYPES[case.dtype]}>"
    causal = " causal" if case.causal else ""
    return (f"func.func @attention(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = tensor.empty() : {t}\n"
            f"  %r = accel.attention{causal} ins(%q, %k, %v : {t}, {t}, {t}) "
            f"outs(%o : {t}) -> {t}\n"
            f"  return %r : {t}\n}}\n")


def run_accel(case, args, work):
    """dict(ms, err, gate, ok) or dict(error=...)."""
    path = os.path.join(work, re.sub(r"[^A-Za-z0-9]+", "_", case.name) + ".mlir")
    with open(path, "w") as f:
        f.write(accel_module(case))
    exe = os.path.join(BIN, "accel-run")
    cmd = [exe, path, f"--repeat={args.samples}",
           f"--num-threads={args.threads}", f"--seed={args.seed}"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        return dict(error=f"{exe}: {e}")
    out = p.stdout + p.stderr
    t = re.search(r"time: ([0-9.]+) ms", out)
    err = re.search(r"max abs err ([-+0-9.eEinfa]+)", out)
    gate = re.search(r"worst err/gate ([-+0-9.eEinfa]+)", out)
    ok = p.returncode == 0 and re.search(r"^\s*PASS\s*$", out, re.M) is not None
    if t is None:
        last = out.strip().splitlines()[-3:] or [f"exit {p.returncode}"]
        return dict(error=" | ".join(last))
    return dict(ms=float(t.group(1)), n=args.samples,
                err=float(err.group(1)) if err else None,
                gate=gate.group(1) if gate else None, ok=ok)


# --------------------------------------------------------------------------
# Peers: setup(case, inputs) -> (run, fetch): run() is one synchronous
# call, fetch() the last result in the reference's layout.

class OrtPeer:
    name = "onnxruntime"

    def __init__(self, threads):
        import onnx  # noqa: F401  (the model builder)
        import onnxruntime
        self.ort = onnxruntime
        self.threads = threads

    def _session(self, nodes, inputs, outputs, initializers=()):
        from onnx import helper
        graph = helper.make_graph(nodes, "peer", inputs, outputs,
                                  initializer=list(initializers))
        model = helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        so.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return self.ort.InferenceSession(model.SerializeToString(), so,
                                         providers=["CPUExecutionProvider"])

    def _bound(self, sess, feeds, out_name, out_array):
        io = sess.io_binding()
        keep = []
        for name, arr in feeds.items():
            v = self.ort.OrtValue.ortvalue_from_numpy(arr)
            keep.append((arr, v))
            io.bind_ortvalue_input(name, v)
        out = self.ort.OrtValue.ortvalue_from_numpy(out_array)
        io.bind_ortvalue_output(out_name, out)
        keep.append((out_array, out))

        def run():
            sess.run_with_iobinding(io)
        run.keep = keep  # the arrays the OrtValues point at
        return run, out

    accuracy_level = 1

    def setup(self, case, inputs):
        from onnx import TensorProto as TP, helper
        if case.kind == "dequant":
            return self._matmul_nbits(case, inputs)
        if case.kind == "gemm":
            m, n, k = case.shape
            if case.dtype == "bf16":
                raise Skip("gemm bf16: ONNX MatMul's result has its inputs' "
                           "type and the CPU provider has no bf16 MatMul "
                           "(NOT_IMPLEMENTED)")
            a, b = inputs
            if case.dtype == "f32":
                node = helper.make_node("MatMul", ["a", "b"], ["c"])
                ta, tc, od, inits = TP.FLOAT, TP.FLOAT, np.float32, []
            else:
                # MLAS's fast integer path is u8 x s8: A + 128 as uint8 with
                # zero point 128 is the same product (s8 x s8 is ~15x slower).
                node = helper.make_node("MatMulInteger", ["a", "b", "azp"], ["c"])
                inits = [helper.make_tensor("azp", TP.UINT8, [], [128])]
                ta, tc, od = TP.UINT8, TP.INT32, np.int32
                a = (a.astype(np.int16) + 128).astype(np.uint8)
            tb = TP.FLOAT if case.dtype == "f32" else TP.INT8
            sess = self._session(
                [node],
                [helper.make_tensor_value_info("a", ta, [m, k]),
                 helper.make_tensor_value_info("b", tb, [k, n])],
                [helper.make_tensor_value_info("c", tc, [m, n])], inits)
            run, out = self._bound(sess, {"a": a, "b": b}, "c",
                                   np.empty((m, n), od))
            return run, lambda: out.numpy()
        b, h, l, d = case.shape
        attrs = dict(num_heads=h, scale=1.0 / math.sqrt(d))
        if case.causal:
            attrs["unidirectional"] = 1
        sess = self._session(
            [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["o"],
                              domain="com.microsoft", **attrs)],
            [helper.make_tensor_value_info(x, TP.FLOAT, [b, l, h * d])
             for x in "qkv"],
            [helper.make_tensor_value_info("o", TP.FLOAT, [b, l, h * d])])

        def bsd(x):  # [B, H, L, d] -> [B, L, H*d]
            return np.ascontiguousarray(x.transpose(0, 2, 1, 3).reshape(b, l, h * d))
        run, out = self._bound(sess, dict(zip("qkv", map(bsd, inputs))), "o",
                               np.empty((b, l, h * d), np.float32))
        return run, lambda: out.numpy().reshape(b, l, h, d).transpose(0, 2, 1, 3)


    def _matmul_nbits(self, case, inputs):
        """com.microsoft MatMulNBits: B [N, K / block, block / 2] uint8 (low
        nibble first, accel's packing), scales [N * K / block] f32, zero
        points [N, ceil(K / block / 2)] uint8 two a byte; initializers."""
        from onnx import TensorProto as TP, helper
        m, n, k = case.shape
        a, packed, s, z = inputs
        groups = k // DEQUANT_GROUP
        zq = z.astype(np.uint8)
        if groups % 2:
            zq = np.concatenate([zq, np.zeros((n, 1), np.uint8)], axis=1)
        zp = (zq[:, 0::2] | (zq[:, 1::2] << 4)).astype(np.uint8)
        inits = [
            helper.make_tensor("b", TP.UINT8, [n, groups, DEQUANT_GROUP // 2],
                               packed.view(np.uint8).tobytes(), raw=True),
            helper.make_tensor("scales", TP.FLOAT, [n * groups],
                               s.astype(np.float32).tobytes(), raw=True),
            helper.make_tensor("zp", TP.UINT8, [zp.size], zp.tobytes(),
                               raw=True)]
        node = helper.make_node(
            "MatMulNBits", ["a", "b", "scales", "zp"], ["c"],
            domain="com.microsoft", K=k, N=n, bits=4,
            block_size=DEQUANT_GROUP, accuracy_level=self.accuracy_level)
        sess = self._session(
            [node], [helper.make_tensor_value_info("a", TP.FLOAT, [m, k])],
            [helper.make_tensor_value_info("c", TP.FLOAT, [m, n])], inits)
        run, out = self._bound(sess, {"a": a}, "c", np.empty((m, n), np.float32))
        return run, lambda: out.numpy()


class OrtInt8ActivationsPeer(OrtPeer):
    """MatMulNBits with accuracy_level 4: A quantised to int8 per block."""
    name = "onnxruntime-int8a"
    accuracy_level = 4
    kinds = ("dequant",)  # the other cases are OrtPeer's


class JaxPeer:
    name = "jax"

    def __init__(self, threads):
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp

    def setup(self, case, inputs):
        jax, jnp = self.jax, self.jnp
        if case.kind == "dequant":
            raise Skip("no weight-only int4 matmul in jax.numpy")
        if case.kind == "gemm":
            pref = {"f32": None, "bf16": jnp.float32, "i8": jnp.int32}[case.dtype]
            fn = jax.jit(lambda a, b: jnp.matmul(a, b, preferred_element_type=pref))
            args = [jax.device_put(x) for x in inputs]
            post = lambda r: r  # noqa: E731
        else:
            causal = case.causal
            if hasattr(jax.nn, "dot_product_attention"):
                fn = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(
                    q, k, v, is_causal=causal))
            else:  # older JAX: the explicit formula, [B, L, H, d]
                def attn(q, k, v):
                    s = jnp.einsum("blhd,bmhd->bhlm", q, k) / math.sqrt(q.shape[-1])
                    if causal:
                        l = q.shape[1]
                        s = jnp.where(jnp.tril(jnp.ones((l, l), bool)), s, -jnp.inf)
                    return jnp.einsum("bhlm,bmhd->blhd", jax.nn.softmax(s, axis=-1), v)
                fn = jax.jit(attn)
            args = [jax.device_put(np.ascontiguousarray(x.transpose(0, 2, 1, 3)))
                    for x in inputs]
            post = lambda r: r.transpose(0, 2, 1, 3)  # noqa: E731
        last = []

        def run():
            r = fn(*args)
            r.block_until_ready()
            last[:] = [r]
        return run, lambda: post(np.asarray(last[0]))


class IreePeer:
    name = "iree"

    def __init__(self, threads, fused=True):
        import iree.compiler
        import iree.runtime as rt
        self.compiler, self.rt = iree.compiler, rt
        self.fused = fused
        if not fused:
            self.name = "iree-unfused"
        if not IreePeer._flags_set:  # process-wide, before the first device
            rt.flags.parse_flags(f"--task_topology_group_count={threads}")
            IreePeer._flags_set = True
        self.config = rt.Config("local-task")

    _flags_set = False

    def _function(self, text):
        try:
            vmfb = self.compiler.compile_str(text, extra_args=IREE_FLAGS)
        except Exception as e:
            lines = [x for x in str(e).splitlines() if "error" in x.lower()]
            raise Skip("iree-compile: " + (lines[0] if lines else str(e)[:200]).strip())
        ctx = self.rt.SystemContext(config=self.config)
        ctx.add_vm_module(self.rt.VmModule.copy_buffer(ctx.instance, vmfb))
        return ctx, ctx.modules.module["main"]

    def setup(self, case, inputs):
        if case.kind == "dequant":
            raise Skip("attention only" if not self.fused else
                       "no weight-only int4 matmul in the linalg it takes")
        if case.kind == "gemm":
            if not self.fused:
                raise Skip("attention only")
            text = iree_gemm(case)
            post = lambda r: r  # noqa: E731
            args = inputs
        else:
            b, h, l, d = case.shape
            text = (iree_attention if self.fused else iree_attention_unfused)(case)
            args = [x.reshape(b * h, l, d) for x in inputs]
            post = lambda r: r.reshape(b, h, l, d)  # noqa: E731
        ctx, fn = self._function(text)
        dev = [self.rt.asdevicearray(self.config.device, x) for x in args]
        last = []

        def run():  # synchronous: the default ABI waits for the result
            last[:] = [fn(*dev)]
        run.ctx = ctx
        return run, lambda: post(last[0].to_host())


def iree_gemm(case):
    ta, tb, tc, o = gemm_types(case)
    zero = "0.0" if o == "f32" else "0"
    return (f"func.func @main(%a: {ta}, %b: {tb}) -> {tc} {{\n"
            f"  %z = arith.constant {zero} : {o}\n"
            f"  %e = tensor.empty() : {tc}\n"
            f"  %f = linalg.fill ins(%z : {o}) outs(%e : {tc}) -> {tc}\n"
            f"  %r = linalg.matmul ins(%a, %b : {ta}, {tb}) outs(%f : {tc}) -> {tc}\n"
            f"  return %r : {tc}\n}}\n")


def iree_attention(case):
    """iree_linalg_ext.attention on [B*H, L, d]; causal: an i1 [L, L] mask
    built in the function (true: attend)."""
    b, h, l, d = case.shape
    t = f"tensor<{b * h}x{l}x{d}xf32>"
    mt = f"tensor<{l}x{l}xi1>"
    lines = [f"func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{",
             f"  %scale = arith.constant {1.0 / math.sqrt(d)!r} : f32"]
    maps = ["(b, m, k1, k2, n) -> (b, m, k1)", "(b, m, k1, k2, n) -> (b, k2, k1)",
            "(b, m, k1, k2, n) -> (b, k2, n)", "(b, m, k1, k2, n) -> ()"]
    ins, types = "%q, %k, %v, %scale", f"{t}, {t}, {t}, f32"
    if case.causal:
        lines += [
            f"  %me = tensor.empty() : {mt}",
            "  %mask = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],"
            ' iterator_types = ["parallel", "parallel"]}'
            f" outs(%me : {mt}) {{",
            "  ^bb0(%unused: i1):",
            "    %i = linalg.index 0 : index",
            "    %j = linalg.index 1 : index",
            "    %keep = arith.cmpi ule, %j, %i : index",
            "    linalg.yield %keep : i1",
            f"  }} -> {mt}"]
        maps.append("(b, m, k1, k2, n) -> (m, k2)")
        ins, types = ins + ", %mask", types + f", {mt}"
    maps.append("(b, m, k1, k2, n) -> (b, m, n)")
    lines += [
        f"  %e = tensor.empty() : {t}",
        "  %r = iree_linalg_ext.attention <{indexing_maps = ["
        + ", ".join(f"affine_map<{m}>" for m in maps) + "]}>",
        f"      ins({ins} : {types}) outs(%e : {t}) {{",
        "    ^bb0(%s: f32):",
        "      iree_linalg_ext.yield %s : f32",
        f"  }} -> {t}",
        f"  return %r : {t}", "}"]
    return "\n".join(lines) + "\n"


def iree_attention_unfused(case):
    """batch_matmul (Q·Kᵀ), scale and causal select, linalg.softmax,
    batch_matmul (P·V) on [B*H, L, d]."""
    b, h, l, d = case.shape
    bh = b * h
    t, st = f"tensor<{bh}x{l}x{d}xf32>", f"tensor<{bh}x{l}x{l}xf32>"
    body = ["  ^bb0(%x: f32):",
            "    %y = arith.mulf %x, %scale : f32"]
    if case.causal:
        body += ["    %i = linalg.index 1 : index",
                 "    %j = linalg.index 2 : index",
                 "    %keep = arith.cmpi ule, %j, %i : index",
                 "    %ym = arith.select %keep, %y, %ninf : f32",
                 "    linalg.yield %ym : f32"]
    else:
        body.append("    linalg.yield %y : f32")
    return "\n".join([
        f"func.func @main(%q: {t}, %k: {t}, %v: {t}) -> {t} {{",
        "  %z = arith.constant 0.0 : f32",
        f"  %scale = arith.constant {1.0 / math.sqrt(d)!r} : f32",
        "  %ninf = arith.constant 0xFF800000 : f32",
        f"  %se = tensor.empty() : {st}",
        f"  %sf = linalg.fill ins(%z : f32) outs(%se : {st}) -> {st}",
        "  %s = linalg.batch_matmul indexing_maps = ["
        "affine_map<(b, m, n, k) -> (b, m, k)>, "
        "affine_map<(b, m, n, k) -> (b, n, k)>, "
        "affine_map<(b, m, n, k) -> (b, m, n)>]",
        f"      ins(%q, %k : {t}, {t}) outs(%sf : {st}) -> {st}",
        "  %ss = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>],"
        ' iterator_types = ["parallel", "parallel", "parallel"]}'
        f" outs(%s : {st}) {{"] + body + [
        f"  }} -> {st}",
        f"  %pe = tensor.empty() : {st}",
        f"  %p = linalg.softmax dimension(2) ins(%ss : {st}) outs(%pe : {st}) -> {st}",
        f"  %oe = tensor.empty() : {t}",
        f"  %of = linalg.fill ins(%z : f32) outs(%oe : {t}) -> {t}",
        f"  %o = linalg.batch_matmul ins(%p, %v : {st}, {t}) outs(%of : {t}) -> {t}",
        f"  return %o : {t}", "}"]) + "\n"


PEERS = [("onnxruntime", OrtPeer),
         ("onnxruntime-int8a", OrtInt8ActivationsPeer), ("jax", JaxPeer),
         ("iree", lambda t: IreePeer(t, fused=True)),
         ("iree-unfused", lambda t: IreePeer(t, fused=False))]


# --------------------------------------------------------------------------
# The run.

def one_line(e):
    text = f"{type(e).__name__}: {e}" if not isinstance(e, Skip) else str(e)
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return (lines[0] if lines else type(e).__name__)[:300]


def machine():
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    feats = ", ".join(f"{f} {'yes' if f in flags else 'no'}"
                      for f in ("avx512f", "avx512_bf16", "amx_tile"))
    return f"{model} ({os.cpu_count()} CPUs; {feats})"


def commit():
    """The commit, "+ local changes" when tracked non-Markdown files differ
    (readme_figures.py's rule)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import readme_figures
    return readme_figures.commit()


def versions():
    out = []
    for p in PACKAGES:
        try:
            out.append(f"{p} {importlib.metadata.version(p)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{p} absent")
    return ", ".join(out)


def pin_cpus(threads):
    """Keeps this process (every thread created from now on: numpy's,
    the peers' pools, accel-run) on `threads` CPUs: XLA:CPU has no knob
    for its intra-op pool. Returns the CPUs, or None where it cannot."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
        if len(allowed) < threads:
            return None
        cpus = set(allowed[:threads])
        os.sched_setaffinity(0, cpus)
        return sorted(cpus)
    except (AttributeError, OSError):
        return None


def set_thread_env(threads):
    os.environ["OMP_NUM_THREADS"] = str(threads)
    flag = f"--xla_cpu_multi_thread_eigen={'false' if threads == 1 else 'true'}"
    xla = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = (xla + " " + flag).strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")


def fmt_ms(ms):
    return "-" if ms is None else (f"{ms:.3f}" if ms < 10 else f"{ms:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, choices=(1, 2), default=1)
    ap.add_argument("--quick", action="store_true",
                    help="smallest shapes only (GEMM 256, attention L 512 d 64)")
    ap.add_argument("--samples", type=int, default=11,
                    help="timed calls per side; the median is reported")
    ap.add_argument("--only", choices=("gemm", "attention", "dequant"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peers", default=",".join(n for n, _ in PEERS),
                    help="comma-separated subset of the peers to run")
    ap.add_argument("--max-peer-seconds", type=float, default=30.0,
                    help="a peer's timed calls on one case stop after this "
                         "long (at least 3)")
    args = ap.parse_args()
    if args.samples < 1:
        ap.error("--samples must be at least 1")
    wanted = [x for x in args.peers.split(",") if x]
    unknown = set(wanted) - {n for n, _ in PEERS}
    if unknown:
        ap.error(f"unknown peer(s) {', '.join(sorted(unknown))}; known: "
                 f"{', '.join(n for n, _ in PEERS)}")

    set_thread_env(args.threads)
    cpus = pin_cpus(args.threads)  # before any library starts a thread
    global np
    import numpy
    np = numpy
    start = time.time()
    print(f"peers.py: {machine()}")
    pinned = (f"pinned to CPU(s) {','.join(map(str, cpus))}" if cpus
              else "not pinned")
    print(f"commit {commit()}; {args.threads} thread(s), {pinned}; median of "
          f"{args.samples} call(s); seed {args.seed}; XLA_FLAGS="
          f"'{os.environ['XLA_FLAGS']}'")
    print(f"packages: {versions()}")
    print(f"iree flags: {' '.join(IREE_FLAGS)} "
          f"(runtime --task_topology_group_count={args.threads})")
    try:
        import ml_dtypes  # noqa: F401  (bf16 inputs)
    except ImportError as e:
        sys.exit(f"peers.py needs numpy and ml_dtypes: {e}")

    peers = []
    for name, make in PEERS:
        if name not in wanted:
            print(f"peer {name} skipped: not in --peers")
            continue
        try:
            peers.append(make(args.threads))
        except Exception as e:  # absent package, broken install
            print(f"peer {name} skipped: {one_line(e)}")
    with tempfile.TemporaryDirectory(prefix="accel-peers-") as work:
        summary = run_cases(args, peers, work)
    print_summary(args, peers, summary)
    print(f"\npeers.py took {time.time() - start:.0f} s")


def run_cases(args, peers, work):
    summary = []
    for index, case in enumerate(cases(args)):
        print(f"\n== {case.name}")
        inputs = make_inputs(case, args.seed + index)
        ref, tol = reference(case, inputs)
        rows = []
        a = run_accel(case, args, work)
        if "error" in a:
            print(f"accel failed: {a['error']}")
        for peer in peers:
            if case.kind not in getattr(peer, "kinds", (case.kind,)):
                continue
            try:
                run, fetch = peer.setup(case, inputs)
                run()  # warm-up (JAX compiles here)
                err, ok = check(fetch(), ref, tol)
                run()
                ms, n, cpu = time_calls(run, args.samples, args.max_peer_seconds)
                rows.append((peer.name, ms, n, err, ok, cpu))
            except Exception as e:
                if not (isinstance(e, Skip) and str(e) == "attention only"):
                    print(f"peer {peer.name} skipped: {case.name}: {one_line(e)}")
            finally:
                run = fetch = None
        print(f"  {'side':<13} {'ms':>9} {'n':>3} {'max abs err':>11} "
              f"{'check':>5} {'cpu/wall':>8}")
        if "ms" in a:
            gate = f"  (accel-run err/gate {a['gate']})" if a.get("gate") else ""
            err = f"{a['err']:.2e}" if a.get("err") is not None else "-"
            print(f"  {'accel':<13} {fmt_ms(a['ms']):>9} {a['n']:>3} {err:>11} "
                  f"{'PASS' if a['ok'] else 'FAIL':>5} {'-':>8}{gate}")
        for name, ms, n, err, ok, cpu in rows:
            print(f"  {name:<13} {fmt_ms(ms):>9} {n:>3} {err:>11.2e} "
                  f"{'PASS' if ok else 'FAIL':>5} {cpu:>8.2f}")
        print(f"  peers' gate: {gate_text(tol)}")
        passed = [(ms, name) for name, ms, _, _, ok, _ in rows if ok]
        ratio = best = None
        if passed and a.get("ms") and a.get("ok"):
            best = min(passed)
            ratio = best[0] / a["ms"]
            print(f"  best peer {best[1]} {fmt_ms(best[0])} ms / accel "
                  f"{fmt_ms(a['ms'])} ms = {ratio:.2f} (> 1: accel faster)")
        elif not a.get("ok"):
            print("  no ratio: accel did not pass")
        else:
            print("  no ratio: no peer passed")
        summary.append((case, a, {n: (ms, ok) for n, ms, _, _, ok, _ in rows},
                        best, ratio))
    return summary


def print_summary(args, peers, summary):
    names = [p.name for p in peers]
    print(f"\n== summary ({args.threads} thread(s), ms, median of "
          f"{args.samples}; ratio = best peer ms / accel ms, > 1: accel faster; "
          "FAIL: out of tolerance, not counted)")
    head = f"| case | accel | {' | '.join(names)} | best peer | ratio |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for case, a, cells, best, ratio in summary:
        acc = fmt_ms(a.get("ms")) + ("" if a.get("ok", False) else " FAIL")
        peer_cells = []
        for n in names:
            ms, ok = cells.get(n, (None, True))
            peer_cells.append(fmt_ms(ms) + ("" if ok else " FAIL"))
        print(f"| {case.name} | {acc} | {' | '.join(peer_cells)} | "
              f"{best[1] if best else '-'} | "
              f"{f'{ratio:.2f}' if ratio else '-'} |")


if __name__ == "__main__":
    main()
