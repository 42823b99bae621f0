#!/usr/bin/env python3
"""How far each numerical gate is from the error it gates (issue 32).

Runs accel-run over shipped inputs for the cpu and systolic targets and
prints one row per gate: the target, the file, the function, the result, the
precision, the measured error, the gate and gate / measured. Two kinds of
gate:

  - the contract gates (docs/numerics.md), per element: the row is the
    element where error / gate is largest (accel-run --gate-details), so
    gate / measured is 1 / accel-run's "worst err/gate";
  - the precision report's normwise gates (`--precision-report`, cpu only):
    the normwise error of the lowered function against the f32 one, and its
    gate;
  - the program gates of functions of several ops (normwise and max abs
    rows; docs/numerics.md, "The program gate"), e.g. the Llama block's.

A gate more than 3 times the error it gates (--flag, default 3) is marked
`>`: it would let an error of that size through unnoticed. The contract
gates are worst-case bounds (γ_K·|A||B|), so most of them are marked; the
precision gates are statistical (about 1.5-2.5 times the error). An exact
gate (0, met with error 0) is marked `=`. Exits 1 when a gate fails (FAIL
rows) or accel-run cannot run a file.

The runs are the default set below (about 30 s on 2 cores), or those given
with --run "TARGET FILE [accel-run options]" (repeatable). The header names
the command, the commit (`git rev-parse --short HEAD`, "+ local changes"
when tracked files other than Markdown differ) and the machine (lscpu), as
bench/readme_figures.py does. Standard library only.

  scripts/gate-report.py [--build DIR] [--jobs N] [--flag 3]
                         [--run "cpu FILE --precision-report=compute=i8"]...
"""
import argparse
import concurrent.futures
import math
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import readme_figures  # noqa: E402  (commit() and machine())

CPU = "test/Integration/CPU"
SYSTOLIC = "test/Integration/Systolic"
PRECISIONS = ["compute=bf16", "compute=f16",
              "compute=f8E4M3FN on-unsupported=emulate",
              "compute=f8E5M2 on-unsupported=emulate",
              "compute=i8 on-unsupported=emulate"]
DEFAULT_RUNS = [
    f"cpu {CPU}/matmul.mlir",
    f"cpu {CPU}/attention.mlir",
    f"cpu {CPU}/softmax.mlir",
    f"cpu {CPU}/matmul-precision.mlir",
    f"cpu {CPU}/lower-precision.mlir --i1-zero-rows=2 "
    + " ".join(shlex.quote("--precision-report=" + p) for p in PRECISIONS),
    f"systolic {SYSTOLIC}/matmul.mlir",
    f"systolic {SYSTOLIC}/matmul-float.mlir",
    f"systolic {SYSTOLIC}/attention.mlir",
    "cpu examples/llama_block_small.mlir",
    "systolic examples/llama_block_small.mlir",
]

FUNCTION = re.compile(r"^@(\S+)$")
CONTRACT = re.compile(r"^  result #(\d+) tensor<(?:[^>]*x)?(\w+)>: max abs err "
                      r"\S+, max rel err \S+, worst err/gate (\S+) -> (PASS|FAIL)")
TIGHTEST = re.compile(r"^    tightest element \d+: err (\S+), gate (\S+)")
PRECISION = re.compile(r"^precision (.*) \(normwise error")
PROGRAM = re.compile(r"^    program gate: normwise err (\S+), gate (\S+); max abs err "
                     r"(\S+), gate (\S+); err/gate \S+ -> (PASS|FAIL)")
REPORTED = re.compile(r"^  @(\S+) result #(\d+): .*normwise rel err (\S+), "
                      r"gate (\S+), err/gate \S+ -> (PASS|FAIL)")


def parse(output):
    """The rows of one accel-run output: dicts with function, result,
    precision, measured, gate, verdict."""
    rows, function, spec, pending = [], None, None, None
    for line in output.splitlines():
        if m := FUNCTION.match(line):
            function = m.group(1)
        elif m := CONTRACT.match(line):
            pending = dict(function=function, result=int(m.group(1)),
                           precision=f"contract ({m.group(2)} result)",
                           verdict=m.group(4))
        elif (m := TIGHTEST.match(line)) and pending:
            pending.update(measured=float(m.group(1)), gate=float(m.group(2)))
            rows.append(pending)
            pending = None
        elif (m := PROGRAM.match(line)) and rows:
            # After the contract row of the same result (its tightest line).
            last = rows[-1]
            for kind, err, gate in (("normwise", m.group(1), m.group(2)),
                                    ("max abs", m.group(3), m.group(4))):
                rows.append(dict(function=last["function"],
                                 result=last["result"],
                                 precision=f"program gate ({kind})",
                                 measured=float(err), gate=float(gate),
                                 verdict=m.group(5)))
        elif m := PRECISION.match(line):
            spec = m.group(1)
        elif (m := REPORTED.match(line)) and spec:
            rows.append(dict(function=m.group(1), result=int(m.group(2)),
                             precision=f"{spec} (normwise)",
                             measured=float(m.group(3)),
                             gate=float(m.group(4)), verdict=m.group(5)))
    return rows


def run(accel_run, spec):
    """Runs one --run spec; (target, file, rows, error message or None)."""
    words = shlex.split(spec)
    target, path, extra = words[0], words[1], words[2:]
    full = path if os.path.isabs(path) else os.path.join(ROOT, path)
    cmd = [accel_run, full, f"--target={target}", "--repeat=0",
           "--gate-details"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    rows = parse(p.stdout)
    error = None
    if p.returncode != 0 and not any(r["verdict"] == "FAIL" for r in rows):
        error = (f"accel-run exited {p.returncode} on {path}: "
                 + (p.stderr.strip().splitlines() or ["(no message)"])[-1])
    return target, os.path.basename(path), rows, error


def ratio(row):
    if row["measured"] > 0:
        return row["gate"] / row["measured"]
    return math.nan if row["gate"] == 0 else math.inf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get(
        "ACCEL_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--run", action="append",
                    help='"TARGET FILE [accel-run options]" (repeatable; '
                         "default: the shipped set)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--flag", type=float, default=3.0,
                    help="mark gates more than this times the error")
    args = ap.parse_args()
    accel_run = os.path.join(args.build, "bin", "accel-run")
    runs = args.run or DEFAULT_RUNS

    shown = "scripts/gate-report.py" + "".join(
        f" --run {shlex.quote(r)}" for r in (args.run or []))
    print(f"gate report: `{shown}` at {readme_figures.commit()}, "
          f"on {readme_figures.machine()[0]}")
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda r: run(accel_run, r), runs))

    header = ["target", "file", "function", "result", "precision",
              "measured", "gate", "gate/measured", "flag"]
    table, errors = [], []
    counts = dict(total=0, flagged=0, exact=0, failed=0)
    for target, name, rows, error in results:
        if error:
            errors.append(error)
        for row in rows:
            r = ratio(row)
            mark = ("FAIL" if row["verdict"] == "FAIL"
                    else "=" if math.isnan(r)
                    else ">" if r > args.flag else "")
            counts["total"] += 1
            counts["failed"] += mark == "FAIL"
            counts["exact"] += mark == "="
            counts["flagged"] += mark == ">"
            table.append([target, name, "@" + row["function"],
                          f"#{row['result']}", row["precision"],
                          f"{row['measured']:.2e}", f"{row['gate']:.2e}",
                          "exact" if math.isnan(r) else f"{r:.2f}", mark])
    widths = [max(len(str(x)) for x in col) for col in zip(header, *table)]
    for line in [header] + table:
        print(" | ".join(str(x).ljust(w) for x, w in zip(line, widths))
              .rstrip())
    for e in errors:
        print(f"gate-report: error: {e}")
    print(f"gate-report: {counts['total']} gates: {counts['flagged']} more "
          f"than {args.flag:g}x the measured error (>), {counts['exact']} "
          f"exact (=), {counts['failed']} failed")
    return 1 if errors or counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
