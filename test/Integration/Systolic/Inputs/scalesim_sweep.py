"""Runs SCALE-Sim v3 and our simulator's SCALE-Sim mode on random GEMM
layers and compares compute cycles (SCALE-Sim's total minus its memory
stalls), mapping efficiency and compute utilisation.

Each case draws, from --seed: a dataflow (ws, os, is in turn), an array of
8..64 rows by 8..64 columns (square about one case in four) and odd M, N, K
in 1..599, redrawn until SCALE-Sim's run fits --budget demand rows (its
memory model walks them one by one in Python, a few thousand a second; half
the budget with a starved memory, which is slower). SCALE-Sim
runs the layer (one GEMM topology row) end to end from a config file:
most cases with its bandwidth-estimating memory (no stalls), every fourth
with a starved user bandwidth and small SRAMs so that its stall count is not
zero and the subtraction is exercised. We compile the same GEMM (i8) with
accel-opt --accel-systolic-pipeline and options under which each of our
folds is one SCALE-Sim fold:

  ws  SCALE-Sim holds an R x C tile of B and streams all M rows of A through
      it: tile-m = M (every row of A in one block), tile-n a multiple of C,
      tile-k a multiple of R (blocks cut into whole R x C weight tiles).
  os  SCALE-Sim holds an R x C tile of C and streams all of K into it:
      tile-k = K (any K: the last slice is short), tile-m a multiple of R,
      tile-n a multiple of C.
  is  SCALE-Sim holds an R x C tile of A^T and streams all N columns of B:
      tile-m = N (our IS is WS on C^T = B^T A^T, whose streamed rows are
      N), tile-n a multiple of C (over M), tile-k a multiple of R.

The multiples are drawn from {1, 2} per case: the folds, hence the figures,
do not depend on them. accel-sim --mode=scalesim --json gives our figures
at full precision.

Tolerances: cycles must be equal (--cycle-tolerance 0: both count whole
folds of the same closed form, so any difference is a modelling
difference); the two percentages are averages over the same folds of the
same per-fold fractions and may differ only by the order of floating-point
sums, so --ratio-tolerance is 1e-9, far below what one cycle more in one
fold does to the utilisation (about 1/(T + R + C) > 1e-3 in that fold, more
than 1e-6 averaged over hundreds of folds).

--results FILE keeps every case's figures; --from-results FILE compares
them again without running anything, and --perturb FIELD=DELTA adds DELTA to
one of our figures (cycles, mapping, util) first, to show that the
comparison fails. --self-test checks the comparison on made-up figures.
Only the SCALE-Sim runs need SCALE-Sim (and its numpy); the rest is the
standard library.
"""
import argparse
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import time

FIELDS = ("cycles", "mapping", "util")


def compare(ours, theirs, cycle_tol, ratio_tol):
    """ours: {cycles, mapping, util}; theirs: {total, stall, mapping, util}.
    Returns (ok, [(field, ours, theirs, ratio, ok)])."""
    want = {"cycles": theirs["total"] - theirs["stall"],
            "mapping": theirs["mapping"], "util": theirs["util"]}
    rows, ok = [], True
    for f in FIELDS:
        got, exp = ours[f], want[f]
        ratio = got / exp if exp else (1.0 if got == exp else float("inf"))
        if f == "cycles":
            good = abs(got - exp) <= cycle_tol
        else:
            good = abs(ratio - 1) <= ratio_tol
        ok &= good
        rows.append((f, got, exp, ratio, good))
    return ok, rows


def draw_cases(n, seed, budget):
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        df = ("ws", "os", "is")[i % 3]
        # A starved memory makes SCALE-Sim ~2x slower a row: smaller layers.
        starved = i % 4 == 3
        # The array first, then sizes until the layer fits the budget (so
        # that the budget does not favour large or square arrays).
        r = rng.randint(8, 64)
        c = r if rng.random() < 0.25 else rng.randint(8, 64)
        while True:
            m, nn, k = (2 * rng.randint(0, 299) + 1 for _ in range(3))
            lines = scalesim_lines(df, r, c, m, nn, k)
            if lines <= (budget // 2 if starved else budget):
                break
        cases.append(dict(index=i, df=df, rows=r, cols=c, m=m, n=nn, k=k,
                          starved=starved, mult=(rng.randint(1, 2),
                                                 rng.randint(1, 2))))
    return cases


def cdiv(a, b):
    return -(-a // b)


def scalesim_lines(df, r, c, m, n, k):
    """SCALE-Sim's demand rows for the layer (= its compute cycles + 1)."""
    if df == "ws":
        return cdiv(k, r) * cdiv(n, c) * (2 * r + c + m - 2)
    if df == "os":
        return cdiv(m, r) * cdiv(n, c) * (k + r + c - 2)
    return cdiv(k, r) * cdiv(m, c) * (2 * r + c + n - 2)


def our_options(cs):
    r, c, a, b = cs["rows"], cs["cols"], *cs["mult"]
    tiles = {"ws": (cs["m"], a * c, b * r),
             "os": (a * r, b * c, cs["k"]),
             "is": (cs["n"], a * c, b * r)}[cs["df"]]
    return (f"rows={r} cols={c} spad-kib=2048 acc-kib=2048 "
            f"dataflow={cs['df']} tile-m={tiles[0]} tile-n={tiles[1]} "
            f"tile-k={tiles[2]}")


SCALESIM_CONFIG = """[general]
run_name = layer

[architecture_presets]
ArrayHeight: {rows}
ArrayWidth: {cols}
IfmapSramSzkB: {sram}
FilterSramSzkB: {sram}
OfmapSramSzkB: {sram}
IfmapOffset: 0
FilterOffset: 10000000
OfmapOffset: 20000000
Bandwidth : {bw}
Dataflow : {df}
MemoryBanks: 1
ReadRequestBuffer: 32
WriteRequestBuffer: 32

[layout]
IfmapCustomLayout: False
IfmapSRAMBankBandwidth: {bw}
IfmapSRAMBankNum: 1
IfmapSRAMBankPort: 2
FilterCustomLayout: False
FilterSRAMBankBandwidth: {bw}
FilterSRAMBankNum: 1
FilterSRAMBankPort: 2

[sparsity]
SparsitySupport : false
SparseRep : ellpack_block
OptimizedMapping : false
BlockSize : 8
RandomNumberGeneratorSeed : 40

[run_presets]
InterfaceBandwidth: {mode}
UseRamulatorTrace: False
"""


def run_scalesim(cs, work):
    from scalesim.scale_sim import scalesim  # only where SCALE-Sim is
    cfg = os.path.join(work, "scale.cfg")
    topo = os.path.join(work, "gemm.csv")
    layout = os.path.join(work, "layout.csv")
    with open(cfg, "w") as f:
        f.write(SCALESIM_CONFIG.format(
            rows=cs["rows"], cols=cs["cols"], df=cs["df"],
            sram=8 if cs["starved"] else 1024, bw=4 if cs["starved"] else 64,
            mode="USER" if cs["starved"] else "CALC"))
    with open(topo, "w") as f:  # SCALE-Sim's GEMM rows: name, M, N, K
        f.write("Layer, M, N, K,\n")
        f.write(f"gemm, {cs['m']}, {cs['n']}, {cs['k']},\n")
    with open(layout, "w") as f:  # required, unused without custom layouts
        f.write("Layer name,\n")
    with contextlib.redirect_stdout(io.StringIO()):
        sim = scalesim(save_disk_space=True, verbose=False, config=cfg,
                       topology=topo, layout=layout, input_type_gemm=True)
        sim.run_scale(top_path=os.path.join(work, "scalesim"))
    with open(os.path.join(work, "scalesim", "layer",
                           "COMPUTE_REPORT.csv")) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    # LayerID, Total Cycles (incl. prefetch), Total Cycles, Stall Cycles,
    # Overall Util %, Mapping Efficiency %, Compute Util %,
    v = [x.strip() for x in lines[1].split(",")]
    return {"total": int(v[2]), "stall": int(v[3]), "mapping": float(v[5]),
            "util": float(v[6])}


def tool(bindir, name):
    return os.path.join(bindir, name) if bindir else name


def run_ours(cs, work, bindir):
    m, n, k = cs["m"], cs["n"], cs["k"]
    src = os.path.join(work, "gemm.mlir")
    with open(src, "w") as f:
        f.write(
            f"func.func @gemm(%a: tensor<{m}x{k}xi8>, %b: tensor<{k}x{n}xi8>)"
            f" -> tensor<{m}x{n}xi32> {{\n"
            f"  %c = tensor.empty() : tensor<{m}x{n}xi32>\n"
            f"  %0 = accel.matmul ins(%a, %b : tensor<{m}x{k}xi8>, "
            f"tensor<{k}x{n}xi8>) outs(%c : tensor<{m}x{n}xi32>) -> "
            f"tensor<{m}x{n}xi32>\n"
            f"  return %0 : tensor<{m}x{n}xi32>\n}}\n")
    prog = os.path.join(work, "gemm.sys.mlir")
    js = os.path.join(work, "gemm.json")
    subprocess.run([tool(bindir, "accel-opt"), src,
                    f"--accel-systolic-pipeline={our_options(cs)}", "-o",
                    prog], check=True)
    subprocess.run([tool(bindir, "accel-sim"), prog, "--mode=scalesim",
                    "--json", js], check=True, stdout=subprocess.DEVNULL)
    with open(js) as f:
        s = json.load(f)["stats"]
    return {"cycles": s["computeCycles"], "stall": s["stallCycles"],
            "folds": s["folds"], "mapping": 100 * s["mappingEfficiency"],
            "util": 100 * s["computeUtilization"]}


def run_case(job):
    cs, args = job
    work = os.path.join(args.work, f"case{cs['index']:02d}")
    os.makedirs(work, exist_ok=True)
    t = time.time()
    theirs = run_scalesim(cs, work)
    t_scalesim = time.time() - t
    ours = run_ours(cs, work, args.bin)
    return cs, theirs, ours, t_scalesim


def describe(cs):
    return (f"case {cs['index']:2d} {cs['df']} {cs['rows']}x{cs['cols']} "
            f"M={cs['m']} N={cs['n']} K={cs['k']}")


def self_test(args):
    """The comparison on made-up figures: what must pass and what must not."""
    base = {"total": 1000, "stall": 0, "mapping": 83.828125,
            "util": 59.23854166666666}
    mine = {"cycles": 1000, "mapping": 83.828125, "util": 59.23854166666666}
    checks = [
        ("exact", mine, base, True),
        ("stalls subtracted", mine, dict(base, total=1400, stall=400), True),
        ("stalls not subtracted", dict(mine, cycles=1400),
         dict(base, total=1400, stall=400), False),
        ("one cycle more", dict(mine, cycles=1001), base, False),
        ("one cycle fewer", dict(mine, cycles=999), base, False),
        ("summation order", dict(mine, util=59.23854166666666 * (1 + 1e-14)),
         base, True),
        ("util 1e-6 off", dict(mine, util=59.23854166666666 * (1 + 1e-6)),
         base, False),
        ("mapping 1e-6 off", dict(mine, mapping=83.828125 * (1 - 1e-6)), base,
         False),
    ]
    bad = 0
    for name, ours, theirs, expect in checks:
        ok, _ = compare(ours, theirs, args.cycle_tolerance,
                        args.ratio_tolerance)
        good = ok == expect
        bad += not good
        print(f"self-test {name}: {'accepted' if ok else 'rejected'} "
              f"{'(as it must)' if good else '(WRONG)'}")
    print(f"self-test: {len(checks) - bad} of {len(checks)} as expected")
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", help="folder with accel-opt and accel-sim "
                   "(default: PATH's)")
    p.add_argument("--work", help="scratch folder")
    p.add_argument("--cases", type=int, default=24)
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--budget", type=int, default=8000,
                   help="most SCALE-Sim demand rows per case (half that "
                        "with a starved memory)")
    p.add_argument("--cycle-tolerance", type=int, default=0)
    p.add_argument("--ratio-tolerance", type=float, default=1e-9)
    p.add_argument("--perturb", default=None,
                   help="FIELD=DELTA added to our figure (cycles, mapping, "
                        "util) in every case")
    p.add_argument("--results", help="write the figures of every case here")
    p.add_argument("--from-results",
                   help="compare the figures of an earlier --results file")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        return self_test(args)
    perturb = None
    if args.perturb:
        field, delta = args.perturb.split("=")
        if field not in FIELDS:
            p.error(f"--perturb: FIELD is one of {', '.join(FIELDS)}")
        perturb = (field, float(delta))
    start = time.time()
    if args.from_results:
        with open(args.from_results) as f:
            results = json.load(f)
    else:
        if not args.work:
            p.error("--work is needed to run the cases")
        os.makedirs(args.work, exist_ok=True)
        jobs = [(cs, args)
                for cs in draw_cases(args.cases, args.seed, args.budget)]
        if args.jobs > 1:
            import multiprocessing
            with multiprocessing.Pool(args.jobs) as pool:
                results = pool.map(run_case, jobs, chunksize=1)
        else:
            results = [run_case(j) for j in jobs]
        if args.results:
            with open(args.results, "w") as f:
                json.dump(results, f, indent=1)
    cases = [r[0] for r in results]
    failed = 0
    worst = {f: 0.0 for f in FIELDS}
    stalled = padded = 0
    for cs, theirs, ours, _ in results:
        if perturb:
            ours[perturb[0]] += perturb[1]
        ok, rows = compare(ours, theirs, args.cycle_tolerance,
                           args.ratio_tolerance)
        failed += not ok
        stalled += theirs["stall"] > 0
        padded += cs["k"] % cs["rows"] != 0
        parts = []
        for f, got, exp, ratio, good in rows:
            worst[f] = max(worst[f], abs(ratio - 1))
            fmt = "{:.0f}" if f == "cycles" else "{:.6f}"
            parts.append(f"{f} {fmt.format(got)}/{fmt.format(exp)} "
                         f"ratio {ratio:.6f}{'' if good else ' MISMATCH'}")
        stall = (f" (SCALE-Sim {theirs['total']} - {theirs['stall']} stall)"
                 if theirs["stall"] else "")
        print(f"{describe(cs)} folds {ours['folds']}: " + ", ".join(parts)
              + stall + (" OK" if ok else " FAILED"))
    n = len(results)
    print(f"scalesim-sweep: {n - failed} of {n} cases agree "
          f"({sum(c['df'] == 'ws' for c in cases)} ws, "
          f"{sum(c['df'] == 'os' for c in cases)} os, "
          f"{sum(c['df'] == 'is' for c in cases)} is; K not a multiple of "
          f"the rows in {padded}; SCALE-Sim stalled in {stalled}); largest "
          f"|ratio - 1|: cycles {worst['cycles']:.2e}, mapping "
          f"{worst['mapping']:.2e}, util {worst['util']:.2e}"
          + ("" if args.from_results else
             f"; {time.time() - start:.1f} s (SCALE-Sim's runs "
             f"{sum(r[3] for r in results):.1f} s, added over the workers)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
