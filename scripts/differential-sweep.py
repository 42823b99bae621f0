#!/usr/bin/env python3
"""The differential numerics sweep (issue 11): seeded random accel programs
(matmul, attention, softmax: shapes with zeros, ones, primes and sizes no
tile divides; every element type; boolean and additive masks with every
broadcast, fully masked rows, causal bands, windows, GQA) run through
`accel-run` on every target that executes here (cpu: the JIT; systolic: the
simulator; nvptx only with --targets and a GPU), each against the fp64
oracle and the gates of docs/numerics.md. About one matmul or attention in
twelve has a dimension (M, N, K or a sequence length) of 200 to 1024, the
others kept small enough that the case stays under LARGE_MACS
multiply-adds.

    python3 scripts/differential-sweep.py [--cases 1000] [--seed 0]
        [--targets cpu,systolic] [--jobs 2] [--csv sweep.csv]
        [--keep DIR] [--timeout 120] [--rejections FILE]

Each case ends as one of:
  pass      accel-run checked every result within its gate;
  FAIL      a result out of its gate (a wrong number: a bug);
  CRASH     a signal, an `LLVM ERROR`, an assertion, or an exit code other
            than 0 and 1 (a bug);
  TIMEOUT   longer than --timeout seconds (a bug or a hang);
  rejected  a located `error:` and exit code 1 before anything ran, whose
            message matches an entry of scripts/sweep-rejections.txt for
            that target: the target does not implement the program, and
            says so (the systolic target has no f16/f8 or f16 masks);
  REJECTED  the same, but the message matches no entry (a bug: a program
            the target should take, or a reason nobody expected). The cpu
            target, which takes every program the verifier accepts, has no
            entries: any rejection there is one.
The summary prints the counts per target and op and the pass rate over the
cases that ran (pass / (pass + FAIL + CRASH + TIMEOUT)); --keep DIR keeps
the program and the output of every case that is not a pass or an expected
rejection. Exits 1 when there is any FAIL, CRASH, TIMEOUT or REJECTED.
"""
import argparse
import collections
import concurrent.futures
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from accel import ir  # noqa: E402

BUILD = Path(os.environ.get("ACCEL_BUILD_DIR", ROOT / "build"))
# Sizes with zeros, ones, primes and sizes that no tile divides.
SIZES = [0, 1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33, 64, 97, 128, 130]
SMALL = [1, 2, 3, 5, 7, 16, 17, 33, 64, 100]
HEAD_DIMS = [8, 16, 32, 48, 64, 128]
# Large dimensions (up to 1024, on the simulator too), drawn for about one
# matmul or attention in LARGE_SHARE; the case's other dimensions shrink
# until it needs at most LARGE_MACS multiply-adds (a 1024^3 f32 matmul takes
# ~25 s in accel-run, checked against the fp64 oracle; 2^22 ~0.3 s), which
# keeps the sweep's time near what it was.
LARGE = [200, 255, 256, 257, 384, 511, 512, 513, 640, 777, 1000, 1023, 1024]
LARGE_SHARE = 12
LARGE_MACS = 1 << 22
REJECTIONS = ROOT / "scripts" / "sweep-rejections.txt"


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def enlarge(rl, dims, cost):
    """With chance 1/LARGE_SHARE (from `rl`, a stream of its own so that the
    other draws of a seed stay what they were), one of `dims` becomes a LARGE
    size; then the others, largest first, halve until cost(dims) is at most
    LARGE_MACS (and when they are all 1, the large one steps down LARGE).
    Returns the dimensions."""
    dims = list(dims)
    if rl.randrange(LARGE_SHARE):
        return dims
    big = rl.randrange(len(dims))
    dims[big] = rl.choice(LARGE)
    while cost(dims) > LARGE_MACS:
        others = [i for i in range(len(dims)) if i != big and dims[i] > 1]
        if others:
            i = max(others, key=lambda j: dims[j])
            dims[i] = (dims[i] + 1) // 2
        elif dims[big] > LARGE[0]:  # the others are 1: a smaller large size
            dims[big] = max(x for x in LARGE if x < dims[big])
        else:
            break
    return dims


def pick_matmul(r, rl):
    f = ir.Function("sweep")
    dtype = r.choice(["f32", "f32", "f16", "bf16", "bf16", "i8", "f8E4M3FN", "f8E5M2"])
    batch = [r.choice([1, 2, 3]) for _ in range(r.choice([0, 0, 1, 2]))]
    m, n, k = (r.choice(SIZES) for _ in range(3))
    m, n, k = enlarge(rl, [m, n, k], lambda d: prod(batch) * prod(d))
    tb = r.random() < 0.4
    a = f.arg(batch + [m, k], dtype)
    bt = "f8E5M2" if dtype == "f8E4M3FN" and r.random() < 0.3 else dtype
    b = f.arg(batch + ([n, k] if tb else [k, n]), bt)
    out_choices = {"f32": ["f32"], "f16": ["f32", "f16"], "bf16": ["f32", "bf16"],
                   "i8": ["i32"], "f8E4M3FN": ["f32", "f16", "bf16"],
                   "f8E5M2": ["f32", "f16", "bf16"]}[dtype]
    out_dtype = r.choice(out_choices)
    acc = r.random() < 0.3
    out = f.arg(batch + [m, n], out_dtype) if acc else None
    f.ret(f.matmul(a, b, transpose_b=tb, accumulate=acc, out=out, out_dtype=out_dtype))
    desc = (f"matmul {dtype}{'/' + bt if bt != dtype else ''}->{out_dtype} "
            f"{'x'.join(map(str, batch + [m, n, k])) or '-'}{' tb' if tb else ''}"
            f"{' acc' if acc else ''}")
    return f, desc, []


def pick_attention(r, rl):
    f = ir.Function("sweep")
    dtype = r.choice(["f32", "f32", "f16", "bf16"])
    b, hkv = r.choice([1, 2]), r.choice([1, 2])
    hq = hkv * r.choice([1, 2, 3])
    sq, skv = r.choice(SMALL), r.choice(SMALL)
    d = r.choice(HEAD_DIMS)
    dv = d if r.random() < 0.8 else r.choice(HEAD_DIMS)
    # The CPU's attention and the oracle's cost more per multiply-add than a
    # matmul's (exp, the online softmax): a quarter of the budget.
    sq, skv = enlarge(rl, [sq, skv],
                      lambda s: 4 * b * hq * s[0] * s[1] * (d + dv))
    q = f.arg([b, hq, sq, d], dtype)
    k = f.arg([b, hkv, skv, d], dtype)
    v = f.arg([b, hkv, skv, dv], dtype)
    causal = r.random() < 0.4
    window = r.choice([1, 4, 16]) if causal and r.random() < 0.25 else None
    mask, mdesc, flags = None, "", []
    kind = r.choice(["none", "none", "bool", "add"])
    if kind != "none":
        full = [b, hq, sq, skv]
        # Any numpy broadcast of [B, Hq, Sq, Skv], of rank 2 to 4.
        rank = r.choice([2, 3, 4])
        shape = [dim if r.random() < 0.6 else 1 for dim in full[4 - rank:]]
        mtype = "i1" if kind == "bool" else r.choice(["f32", dtype])
        mask = f.arg(shape, mtype)
        mdesc = f" mask {mtype} {'x'.join(map(str, shape))}"
        if kind == "bool":
            flags.append(f"--i1-density={r.choice([0.3, 0.6, 0.9])}")
            if len(shape) >= 2 and shape[-2] > 1 and r.random() < 0.4:
                flags.append("--i1-zero-rows=1")  # rows that keep no key
    out_dtype = r.choice(["f32", dtype])
    f.ret(f.attention(q, k, v, causal=causal, window=window, mask=mask,
                      out_dtype=out_dtype))
    desc = (f"attention {dtype}->{out_dtype} B{b} Hq{hq} Hkv{hkv} Sq{sq} Skv{skv} "
            f"D{d}{'' if dv == d else f' Dv{dv}'}{' causal' if causal else ''}"
            f"{f' window {window}' if window else ''}{mdesc}")
    return f, desc, flags


def pick_softmax(r, rl):
    f = ir.Function("sweep")
    dtype = r.choice(["f32", "f16", "bf16"])
    shape = [r.choice(SIZES[1:]) for _ in range(r.choice([1, 2, 3]))]
    dim = r.randrange(-len(shape), len(shape))
    x = f.arg(shape, dtype)
    out_dtype = r.choice(["f32", dtype])
    f.ret(f.softmax(x, dim, out_dtype=out_dtype))
    return f, f"softmax {dtype}->{out_dtype} {'x'.join(map(str, shape))} dim {dim}", []


def make_case(seed, i):
    r = random.Random(seed * 1_000_003 + i)
    rl = random.Random(f"large {seed} {i}")
    op = r.choices(["matmul", "attention", "softmax"], weights=[5, 4, 1])[0]
    picker = {"matmul": pick_matmul, "attention": pick_attention,
              "softmax": pick_softmax}[op]
    for _ in range(100):
        try:
            f, desc, flags = picker(r, rl)
            break
        except ValueError:  # a combination the verifier refuses: draw again
            continue
    dist = r.choice(["uniform", "normal", "exact"])
    return {"id": i, "op": op, "desc": desc, "text": f.to_mlir(),
            "flags": [f"--dist={dist}", f"--seed={r.randrange(1, 1 << 30)}"] + flags}


CRASH = re.compile(r"LLVM ERROR|Assertion .* failed|Stack dump|PLEASE submit|"
                   r"Segmentation fault|Aborted|AddressSanitizer|runtime error:")


def load_rejections(path=REJECTIONS):
    """The expected rejections: [(target, compiled regex, line number)] from
    lines `TARGET REGEX` (the `#` lines above an entry say why)."""
    rules = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        target, _, regex = line.partition(" ")
        if not regex.strip():
            raise SystemExit(f"{path}:{n}: expected `TARGET REGEX`, got {line!r}")
        rules.append((target, re.compile(regex.strip()), n))
    return rules


def rejection_message(err):
    """The message of the first `error:` line, whole."""
    for line in err.splitlines():
        if "error:" in line:
            return re.sub(r"^.*?error: ", "", line)
    return err.strip()


def classify_rejection(target, err, rules):
    """"rejected" when the first error matches an entry for `target`,
    "REJECTED" (a bug) when it matches none."""
    msg = rejection_message(err)
    ok = any(t == target and rx.search(msg) for t, rx, _ in rules)
    return "rejected" if ok else "REJECTED"


def classify(target, returncode, out, err, rules):
    """The verdict of one accel-run: see the module's docstring."""
    if returncode not in (0, 1) or CRASH.search(err) or CRASH.search(out):
        return "CRASH"
    if returncode == 0:
        return "pass"
    if "-> FAIL" in out:
        return "FAIL"
    if "error:" in err:
        return classify_rejection(target, err, rules)
    return "CRASH"


def run_case(case, target, tmp, timeout, rules):
    path = Path(tmp) / f"case{case['id']}_{target}.mlir"
    path.write_text(case["text"])
    cmd = [str(BUILD / "bin" / "accel-run"), str(path), f"--target={target}",
           "--repeat=0"] + case["flags"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TIMEOUT", "", f"more than {timeout} s", time.time() - t0
    out, err = p.stdout, p.stderr
    seconds = time.time() - t0
    return classify(target, p.returncode, out, err, rules), out, err, seconds


def first_error(err):
    for line in err.splitlines():
        if "error:" in line:
            return re.sub(r"^.*?error: ", "", line)[:160]
    return err.strip()[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--targets", default="cpu,systolic")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--csv", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--rejections", default=str(REJECTIONS),
                    help="the expected rejections (default: %(default)s)")
    args = ap.parse_args()
    targets = args.targets.split(",")
    rules = load_rejections(args.rejections)
    cases = [make_case(args.seed, i) for i in range(args.cases)]
    results = []
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="accel-sweep-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, c, t, tmp, args.timeout, rules): (c, t)
                   for c in cases for t in targets}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            case, target = futures[fut]
            verdict, out, err, seconds = fut.result()
            results.append((case, target, verdict, out, err, seconds))
            bad = verdict in ("FAIL", "CRASH", "TIMEOUT", "REJECTED")
            if bad:
                why = {"FAIL": "out of gate",
                       "REJECTED": "a rejection no entry of "
                                   f"{args.rejections} expects: "
                                   f"{rejection_message(err)}"}.get(
                                       verdict, first_error(err))
                print(f"{verdict}: case {case['id']} on {target}: {case['desc']}: {why}",
                      flush=True)
                if args.keep:
                    keep = Path(args.keep)
                    keep.mkdir(parents=True, exist_ok=True)
                    stem = keep / f"case{case['id']}_{target}"
                    stem.with_suffix(".mlir").write_text(
                        f"// accel-run --target={target} {' '.join(case['flags'])}\n"
                        + case["text"])
                    stem.with_suffix(".log").write_text(out + "\n--- stderr\n" + err)
            if n % 200 == 0:
                print(f"... {n} of {len(futures)} runs ({time.time() - t0:.0f} s)",
                      flush=True)
    counts = collections.Counter((t, c["op"], v) for c, t, v, *_ in results)
    verdicts = ["pass", "FAIL", "CRASH", "TIMEOUT", "REJECTED", "rejected"]
    print(f"\ndifferential sweep: {args.cases} cases (seed {args.seed}) on "
          f"{', '.join(targets)} in {time.time() - t0:.0f} s\n")
    print("| target | op | " + " | ".join(verdicts) + " | pass rate |")
    print("|---|---|" + "---|" * (len(verdicts) + 1))
    total_bad = 0
    for target in targets:
        for op in ["matmul", "attention", "softmax", "all"]:
            row = {v: sum(n for (t, o, vv), n in counts.items()
                          if t == target and (op == "all" or o == op) and vv == v)
                   for v in verdicts}
            ran = row["pass"] + row["FAIL"] + row["CRASH"] + row["TIMEOUT"]
            rate = f"{100.0 * row['pass'] / ran:.1f} %" if ran else "-"
            print(f"| {target} | {op} | " + " | ".join(str(row[v]) for v in verdicts) +
                  f" | {rate} |")
            if op == "all":
                total_bad += row["FAIL"] + row["CRASH"] + row["TIMEOUT"] + row["REJECTED"]
    rejections = collections.Counter(
        (t, v, first_error(e)) for c, t, v, o, e, s in results
        if v in ("rejected", "REJECTED"))
    if rejections:
        print("\nrejections (target: first error, count; the unexpected ones marked REJECTED):")
        for (t, v, msg), n in rejections.most_common(20):
            print(f"  {t}: {'REJECTED: ' if v == 'REJECTED' else ''}{msg}: {n}")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["case", "target", "op", "verdict", "seconds", "program", "flags",
                        "error"])
            for c, t, v, o, e, s in sorted(results, key=lambda x: (x[0]["id"], x[1])):
                w.writerow([c["id"], t, c["op"], v, f"{s:.2f}", c["desc"],
                            " ".join(c["flags"]), first_error(e) if v != "pass" else ""])
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
