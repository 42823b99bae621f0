#!/usr/bin/env python3
"""Generates linalg-reference.mlir: accel ops with fixed inputs, lowered by
convert-accel-to-linalg and run with mlir-runner, compared inside the test
with fp64 (numpy) results rounded to f32. Each case prints its max abs error
and a 1/0 verdict against its gate; outputs are NaN-prefilled.

    python3 test/Integration/CPU/gen_linalg_reference.py > test/Integration/CPU/linalg-reference.mlir
"""
import numpy as np

rng = np.random.default_rng(7)
NEG_INF = -np.inf


def ty(shape, elt="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + elt + ">"


def dense(a, elt="f32"):
    flat = a.reshape(-1)
    if elt == "i1":
        vals = ", ".join("true" if v else "false" for v in flat)
    elif elt.startswith("i"):
        vals = ", ".join(str(int(v)) for v in flat)
    else:
        vals = ", ".join("0xFF800000" if v == NEG_INF else repr(float(np.float32(v))) for v in flat)
    return f"dense<[{vals}]> : {ty(a.shape, elt)}" if a.ndim == 1 else \
        f"dense<{np.array2string(a, separator=', ', threshold=10**9, formatter={'all': lambda v: ('0xFF800000' if (elt.startswith('f') and v == NEG_INF) else ('true' if v is True or (elt == 'i1' and v) else ('false' if elt == 'i1' else (str(int(v)) if elt.startswith('i') else repr(float(np.float32(v)))))))})}> : {ty(a.shape, elt)}".replace("\n", "")


def softmax_ref(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(m == NEG_INF, 0.0, m)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return np.where(s == 0, 0.0, e / np.where(s == 0, 1, s))


def attention_ref(q, k, v, scale, mask=None, additive=None, causal=False):
    b, hq, sq, d = q.shape
    hkv, skv = k.shape[1], k.shape[2]
    g = hq // hkv
    kk = np.repeat(k, g, axis=1)
    vv = np.repeat(v, g, axis=1)
    s = scale * np.einsum("bhid,bhjd->bhij", q, kk)
    if additive is not None:
        s = s + additive
    keep = np.ones(s.shape, dtype=bool)
    if mask is not None:
        keep &= np.broadcast_to(mask, s.shape)
    if causal:
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        keep &= (j <= i + skv - sq)
    s = np.where(keep, s, NEG_INF)
    p = softmax_ref(s, -1)
    return np.einsum("bhij,bhjd->bhid", p, vv)


cases = []  # (name, func_text, call_text, expected, out_type, gate)


def add(name, body, args, expected, gate):
    cases.append((name, body, args, expected, gate))


# matmul f32 with remainder-friendly odd sizes, and transpose_b + batch.
a = rng.uniform(-1, 1, (5, 7)); b_ = rng.uniform(-1, 1, (7, 3))
add("matmul_f32", f"""
  %c = arith.constant dense<0x7FC00000> : {ty((5, 3))}
  %r = accel.matmul ins(%a, %b : {ty(a.shape)}, {ty(b_.shape)}) outs(%c : {ty((5, 3))}) -> {ty((5, 3))}""",
    [("a", a, "f32"), ("b", b_, "f32")], a.astype(np.float32).astype(np.float64) @ b_.astype(np.float32).astype(np.float64), 1e-5)

a = rng.uniform(-1, 1, (2, 3, 4)); bt = rng.uniform(-1, 1, (2, 5, 4)); c0 = rng.uniform(-1, 1, (2, 3, 5))
add("matmul_batched_transpose_accumulate", f"""
  %r = accel.matmul transpose_b accumulate ins(%a, %b : {ty(a.shape)}, {ty(bt.shape)}) outs(%c : {ty(c0.shape)}) -> {ty(c0.shape)}""",
    [("a", a, "f32"), ("b", bt, "f32"), ("c", c0, "f32")], np.einsum("bmk,bnk->bmn", a, bt) + c0, 1e-5)

# i8 with scales: exact integer dot product, then dequantised.
ai = rng.integers(-128, 128, (4, 9)); bi = rng.integers(-128, 128, (9, 6))
add("matmul_i8_scaled", f"""
  %c = arith.constant dense<0x7FC00000> : {ty((4, 6))}
  %sa = arith.constant 0.5 : f32
  %sb = arith.constant 0.25 : f32
  %r = accel.matmul ins(%a, %b : {ty(ai.shape, 'i8')}, {ty(bi.shape, 'i8')}) scales(%sa, %sb) outs(%c : {ty((4, 6))}) -> {ty((4, 6))}""",
    [("a", ai, "i8"), ("b", bi, "i8")], 0.125 * (ai @ bi), 0.0)

# softmax: an ordinary row, a row shifted by +1000 (same result), an all -inf row (zeros).
x = rng.uniform(-3, 3, (3, 6)); x[1] = x[0] + 1000.0; x[2] = NEG_INF
add("softmax_rows", f"""
  %y = arith.constant dense<0x7FC00000> : {ty(x.shape)}
  %r = accel.softmax dimension(1) ins(%x : {ty(x.shape)}) outs(%y : {ty(x.shape)}) -> {ty(x.shape)}""",
    [("x", x, "f32")], softmax_ref(x.astype(np.float32).astype(np.float64), 1), 1e-6)

# attention: GQA (4 query heads, 2 KV heads), causal with Sq < Skv, an i1
# [Sq, Skv] mask that removes every key of query row 0 (a fully masked row).
q = rng.uniform(-1, 1, (1, 4, 3, 5)); k = rng.uniform(-1, 1, (1, 2, 4, 5)); v = rng.uniform(-1, 1, (1, 2, 4, 2))
m = rng.uniform(0, 1, (3, 4)) > 0.3; m[0] = False; m[1, 0] = True
add("attention_gqa_causal_mask", f"""
  %o = arith.constant dense<0x7FC00000> : {ty((1, 4, 3, 2))}
  %r = accel.attention causal ins(%q, %k, %v : {ty(q.shape)}, {ty(k.shape)}, {ty(v.shape)}) mask(%m : {ty(m.shape, 'i1')}) outs(%o : {ty((1, 4, 3, 2))}) -> {ty((1, 4, 3, 2))}""",
    [("q", q, "f32"), ("k", k, "f32"), ("v", v, "f32"), ("m", m, "i1")],
    attention_ref(*(t.astype(np.float32).astype(np.float64) for t in (q, k, v)), 1 / np.sqrt(5), mask=m, causal=True), 1e-5)

# attention: MQA with an additive [B, 1, 1, Skv] bias and an explicit scale.
q = rng.uniform(-1, 1, (2, 2, 3, 4)); k = rng.uniform(-1, 1, (2, 1, 5, 4)); v = rng.uniform(-1, 1, (2, 1, 5, 3))
bias = rng.uniform(-2, 0, (2, 1, 1, 5))
add("attention_mqa_additive", f"""
  %o = arith.constant dense<0x7FC00000> : {ty((2, 2, 3, 3))}
  %r = accel.attention scale(0.75) ins(%q, %k, %v : {ty(q.shape)}, {ty(k.shape)}, {ty(v.shape)}) mask(%m : {ty(bias.shape)}) outs(%o : {ty((2, 2, 3, 3))}) -> {ty((2, 2, 3, 3))}""",
    [("q", q, "f32"), ("k", k, "f32"), ("v", v, "f32"), ("m", bias, "f32")],
    attention_ref(*(t.astype(np.float32).astype(np.float64) for t in (q, k, v)), 0.75, additive=bias.astype(np.float32)), 1e-5)

print("""// GENERATED by gen_linalg_reference.py; edit that, not this.
// convert-accel-to-linalg run end to end on the CPU (upstream lowering and
// mlir-runner), each result compared in-test with an fp64 reference rounded
// to f32: the case prints its max abs error and 1 when within its gate.
// Outputs are NaN-prefilled: an op that read them would fail its gate.
// RUN: accel-opt %s --convert-accel-to-linalg | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
""")
for name, body, args, expected, gate in cases:
    params = ", ".join(f"%{n}: {ty(arr.shape, elt)}" for n, arr, elt in args)
    out_ty = ty(expected.shape)
    print(f"func.func @{name}({params}) -> {out_ty} {{{body}\n  return %r : {out_ty}\n}}\n")

main = ["func.func @main() {"]
for idx, (name, body, args, expected, gate) in enumerate(cases):
    call_args = []
    for n, arr, elt in args:
        main.append(f"  %{name}_{n} = arith.constant {dense(arr, elt)}")
        call_args.append(f"%{name}_{n}")
    out_ty = ty(expected.shape)
    arg_tys = ", ".join(ty(arr.shape, elt) for _, arr, elt in args)
    main.append(f"  %{name}_r = call @{name}({', '.join(call_args)}) : ({arg_tys}) -> {out_ty}")
    main.append(f"  %{name}_e = arith.constant {dense(expected.astype(np.float32), 'f32')}")
    # max |r - e| over all elements; NaN anywhere makes it NaN and fails.
    rank = expected.ndim
    ids = ", ".join(f"d{i}" for i in range(rank))
    main.append(f"  %{name}_z = tensor.empty() : tensor<f32>")
    main.append(f"  %{name}_zc = arith.constant 0.0 : f32")
    main.append(f"  %{name}_zf = linalg.fill ins(%{name}_zc : f32) outs(%{name}_z : tensor<f32>) -> tensor<f32>")
    main.append(f"""  %{name}_err = linalg.generic {{indexing_maps = [affine_map<({ids}) -> ({ids})>, affine_map<({ids}) -> ({ids})>, affine_map<({ids}) -> ()>], iterator_types = [{", ".join(['"reduction"'] * rank)}]}} ins(%{name}_r, %{name}_e : {out_ty}, {out_ty}) outs(%{name}_zf : tensor<f32>) {{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %d = arith.subf %x, %y : f32
    %a = math.absf %d : f32
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }} -> tensor<f32>""")
    main.append(f"  %{name}_ev = tensor.extract %{name}_err[] : tensor<f32>")
    main.append(f"  %{name}_gate = arith.constant {max(gate, 1e-30):.6e} : f32")
    main.append(f"  %{name}_ok = arith.cmpf ole, %{name}_ev, %{name}_gate : f32")
    main.append(f"  vector.print str \"{name} \"")
    main.append(f"  vector.print %{name}_ok : i1")
main.append("  return")
main.append("}")
print("\n".join(main))
print()
for name, *_ in cases:
    print(f"// CHECK: {name} 1")
