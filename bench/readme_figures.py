#!/usr/bin/env python3
"""Regenerates the README's "Measured figures" table (`bench/run.sh
--mode=readme [--quick]`).

Runs the commands behind the rows that a CPU-only machine can run and prints
each row in the README's format (ratio | measured | command, commit,
machine):

  - the CPU GEMM rows: `bench/run.sh --mode=table` (issue 10's table; f32,
    bf16 and int8 GEMM against oneDNN, best of the interleaved samples). It
    needs AVX512-BF16 and VNNI; without them the f32 row comes from
    `bench/run.sh --mode=gemm` on the table's square shapes and the
    bf16/int8 row is printed as not regenerated;
  - the AMX row: `bench/run.sh --mode=precision --samples=5` (bf16 and int8
    GEMM on AMX against oneDNN's bf16 and s8 matmul primitives, 1 thread),
    where the CPU has amx_tile; else printed as not regenerated;
  - the attention row: `bench/run.sh --mode=attention --samples=3` (fused
    f32 attention against the unfused OpenBLAS baseline, causal and not; the
    row takes L >= 1024, as the README's does);
  - the systolic row: `python3 bench/systolic.py` (simulated cycles,
    deterministic: the same figures on every machine).

The GPU rows need an NVIDIA GPU (`bench/gpu/check.py`) and are printed as
not regenerated. `--quick` runs the same commands with `--quick` (smaller
shapes, fewer samples: a smoke test of a few minutes, not figures for the
README; each row then names the shapes it measured).

The commit is `git rev-parse --short HEAD` (with "+ local changes" when
tracked files other than Markdown differ from it) and the machine comes from
lscpu: the model name, family and model, the CPU count and which of avx2,
avx512f, avx512_bf16, avx512_vnni and amx_tile it has. Figures measured on a
machine without AVX-512 are not comparable with the README's, which were
measured on an AVX-512 (Zen 4 class) vCPU. The commands' whole outputs are
kept in --log-dir (default: a new temporary folder, printed at the end).

Standard library only.

  bench/run.sh --mode=readme [--quick] [--log-dir=DIR]
  python3 bench/readme_figures.py --labels   # the README's row labels
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_SH = os.path.join(ROOT, "bench", "run.sh")
SYSTOLIC = os.path.join(ROOT, "bench", "systolic.py")
LLAMA = os.path.join(ROOT, "bench", "llama_block.py")

# The README's rows, in its order (full shapes). test/Docs/readme-figures.test
# checks that the README's table has exactly these labels.
LABELS = [
    "f32 GEMM ÷ oneDNN `dnnl_sgemm`, 1 thread, 256³–2048³",
    "bf16 / int8 GEMM ÷ oneDNN bf16 / s8 matmul, 256³–2048³",
    "bf16 / int8 GEMM on AMX ÷ oneDNN bf16 / s8 matmul, 1 thread, 256³–2048³",
    "fused f32 attention ÷ unfused OpenBLAS, L 1k–8k, d 64/128",
    "Llama decoder block in bf16 ÷ the same block in JAX/XLA:CPU, Llama 3 8B "
    "layer, 1 and 2 threads, S 128–2048",
    "systolic GEMM utilisation (ideal MAC-cycles ÷ cycles), 256³, 512³, "
    "1024×256×512, 256×1024×256",
    "bf16 GEMM ÷ cuBLAS, 4096³ / 8192³ / 4096×14336×4096 / 16×4096×4096",
    "bf16 attention ÷ FlashAttention-2 / cuDNN, S 1k–16k, d 64/128, causal and not",
]
FLAGS = ["avx2", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile"]
NO_GPU = "not regenerated: needs an NVIDIA GPU (bench/gpu/check.py)"


def commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                               "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit (no git)"
    st = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                         "--untracked-files=no"], capture_output=True,
                        text=True).stdout.splitlines()
    code = [l[3:] for l in st if not l[3:].endswith(".md")]
    return head + (" + local changes" if code else "")


def machine():
    """'AMD EPYC (family 25, model 1), 2 CPUs; avx2, no avx512f, ...'."""
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True,
                             env=dict(os.environ, LC_ALL="C")).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    except OSError:
        pass
    flags = set(info.get("Flags", "").split())
    if not flags and os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    name = info.get("Model name", "unknown CPU")
    fam = info.get("CPU family")
    if fam:
        name += f" (family {fam}, model {info.get('Model', '?')})"
    if info.get("CPU(s)"):
        name += f", {info['CPU(s)']} CPUs"
    has = [f for f in FLAGS if f in flags]
    lacks = [f for f in FLAGS if f not in flags]
    parts = []
    if has:
        parts.append(" ".join(has))
    if lacks:
        parts.append("no " + "/".join(lacks))
    return f"{name}; {', '.join(parts)}", flags


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def run(cmd, log_dir, name):
    """Runs cmd (a list), keeps its output in log_dir/name.log, returns
    (exit code, output text, shell form of the command)."""
    shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                     for c in cmd)
    print(f"readme: running {shown} ...", file=sys.stderr, flush=True)
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    text = p.stdout + p.stderr
    with open(os.path.join(log_dir, name + ".log"), "w") as f:
        f.write(f"$ {shown}\n{text}")
    print(f"readme: {shown}: exit {p.returncode}, {time.time() - t0:.0f} s",
          file=sys.stderr, flush=True)
    return p.returncode, text, shown


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"


def shape_range(shapes):
    return shapes[0] if len(shapes) == 1 else f"{shapes[0]}–{shapes[-1]}"


TABLE_VALUE = re.compile(r"(\S+) (\d+\.\d+) \((\d+\.\d+)\)( MISMATCH)?")


def table_row(text, prefix):
    """The values of the issue-10 table's row starting with prefix:
    [(shape, best, valid)], and the row's verdict."""
    for line in text.splitlines():
        if line.startswith("| " + prefix):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            vals = [(m.group(1), float(m.group(2)), not m.group(4))
                    for m in TABLE_VALUE.finditer(cells[1])]
            return vals, cells[-1]
    return None, None


GEMM_LINE = re.compile(
    r"^(\d+)x(\d+)x(\d+)\s+[\d.]+ \(\s*[\d.]+\)\s+[\d.]+ \(\s*[\d.]+\)\s+"
    r"[\d.]+ \(\s*[\d.]+\)\s+([\d.]+)\s+[\d.]+\s+\d+%(\s+MISMATCH)?$")

# accel-bench --mode=precision's GEMM rows: size, six GFLOP/s columns, then
# bf16/f32, i8/f32, ÷ oneDNN bf16, ÷ oneDNN s8 and the mismatch flags.
PRECISION_LINE = re.compile(
    r"^(\d+)(?:\s+[\d.]+){8}\s+([\d.]+)\s+([\d.]+)"
    r"(\s+INT8 MISMATCH)?(\s+BF16 MISMATCH)?$")

# bench/llama_block.py's rows: S, GFLOP, accel ms, GFLOP/s, err, jax ms, err,
# ort ms, err, jax/accel, ort/accel, then FAIL when an output is off.
LLAMA_LINE = re.compile(
    r"^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+"
    r"\s+([\d.]+)\s+\S+(\s+FAIL)?\s*$", re.M)
ATTN_LINE = re.compile(
    r"^(\d+), (\d+)(, causal)?\s+([\d.]+) \(\s*[\d.]+\)\s+"
    r"(?:-|[\d.]+ \(\s*[\d.]+\))\s+[\d.]+ \(\s*[\d.]+\)\s+([\d.]+)\s.*?"
    r"(MISMATCH)?$")


def k_label(n):
    return f"{n // 1024}k" if n % 1024 == 0 else str(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="smaller shapes and fewer samples (a smoke test)")
    ap.add_argument("--log-dir", help="keep the commands' outputs here")
    ap.add_argument("--labels", action="store_true",
                    help="print the README's row labels and exit")
    ap.add_argument("--mode", help=argparse.SUPPRESS)  # run.sh passes it on
    args = ap.parse_args()
    if args.labels:
        print("\n".join(LABELS))
        return 0
    if args.mode not in (None, "readme"):
        ap.error(f"--mode={args.mode}: this script is --mode=readme")
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="accel-readme-")
    os.makedirs(log_dir, exist_ok=True)
    q = ["--quick"] if args.quick else []
    rev = commit()
    where, flags = machine()
    start = datetime.datetime.now(datetime.timezone.utc)
    load_start = loadavg()
    rows, notes, failed = [], [], False

    def cmd_cell(shown):
        return f"`{shown}`, {rev}, {where}"

    # CPU GEMM rows: issue 10's table, which needs AVX512-BF16 and VNNI (its
    # bf16 and int8 rows run oneDNN's bf16 and s8 matmuls and the
    # vdpbf16ps/vpdpbusd probes). Elsewhere the f32 row comes from
    # --mode=gemm on the same shapes (f32 only, accel next to dnnl_sgemm,
    # ratio of bests as in the table) and the bf16/int8 row is not
    # regenerated.
    def measured(vals):
        s = span([v for _, v, _ in vals])
        bad = [sh for sh, _, ok in vals if not ok]
        return s + (f" (wrong results at {', '.join(bad)})" if bad else "")

    if "avx512_bf16" in flags and "avx512_vnni" in flags:
        rc, text, shown = run([RUN_SH, "--mode=table"] + q, log_dir, "table")
        f32, _ = table_row(text, "fp32 GEMM ÷ oneDNN `dnnl_sgemm`")
        bf16, _ = table_row(text, "bf16 GEMM ÷ oneDNN bf16 matmul")
        i8, _ = table_row(text, "int8 GEMM ÷ oneDNN int8 matmul")
        if rc != 0 or not f32 or not bf16 or not i8:
            failed = True
            msg = f"failed: `{shown}` exited {rc} (log: {log_dir}/table.log)"
            rows.append((LABELS[0], msg, cmd_cell(shown)))
            rows.append((LABELS[1], msg, cmd_cell(shown)))
        else:
            shapes = shape_range([sh for sh, _, _ in f32])
            rows.append((f"f32 GEMM ÷ oneDNN `dnnl_sgemm`, 1 thread, {shapes}",
                         measured(f32), cmd_cell(shown)))
            shapes = shape_range([sh for sh, _, _ in bf16])
            rows.append((f"bf16 / int8 GEMM ÷ oneDNN bf16 / s8 matmul, "
                         f"{shapes}", f"{measured(bf16)} / {measured(i8)}",
                         cmd_cell(shown)))
            busy = re.search(r"\*\*Measured on a busy machine[^*]*\*\*", text)
            if busy:
                notes.append(busy.group(0).strip("*"))
            refs = re.search(r"^References: .*$", text, re.M)
            if refs:
                notes.append("CPU GEMM rows: " + refs.group(0))
    else:
        sizes = [256, 512] if args.quick else [256, 512, 1024, 2048]
        opts = (["--samples=3", "--min-sample-ms=20"] if args.quick
                else ["--samples=11"])
        rc, text, shown = run(
            [RUN_SH, "--mode=gemm", "--gemm-shapes=" +
             ",".join(f"{n}x{n}x{n}" for n in sizes)] + opts, log_dir, "gemm")
        f32 = []
        for line in text.splitlines():
            m = GEMM_LINE.match(line.strip())
            if m and m.group(1) == m.group(2) == m.group(3):
                f32.append((f"{m.group(1)}³", float(m.group(4)),
                            not m.group(5)))
        if rc != 0 or len(f32) != len(sizes):
            failed = True
            rows.append((LABELS[0], f"failed: `{shown}` exited {rc} (log: "
                         f"{log_dir}/gemm.log)", cmd_cell(shown)))
        else:
            shapes = shape_range([sh for sh, _, _ in f32])
            rows.append((f"f32 GEMM ÷ oneDNN `dnnl_sgemm`, 1 thread, {shapes}",
                         measured(f32), cmd_cell(shown)))
        rows.append((LABELS[1].replace("256³–2048³", shape_range(
            [f"{n}³" for n in sizes])), "not regenerated: needs AVX512-BF16 "
            "and AVX512-VNNI (`--mode=table` runs oneDNN's bf16 and s8 "
            "matmuls)", f"`bench/run.sh --mode=table{' --quick' * bool(q)}`, "
            f"not run on {where}"))
        notes.append("This CPU lacks avx512_bf16 or avx512_vnni, which "
                     "`bench/run.sh --mode=table` needs: the f32 row comes "
                     "from `--mode=gemm` on the table's square shapes "
                     "instead (accel ÷ dnnl_sgemm, ratio of bests), and the "
                     "bf16/int8 row is not regenerated.")
        roof = re.search(r"measured f32 FMA roof ([\d.]+) GFLOP/s", text)
        if roof:
            notes.append(f"Measured f32 FMA roof of one core here: "
                         f"{roof.group(1)} GFLOP/s.")

    # AMX row: bf16 and int8 GEMM on AMX tiles ÷ oneDNN's bf16 and s8
    # matmul primitives (`--mode=precision`, 1 thread), where the CPU has
    # AMX.
    amx_label = LABELS[2]
    if "amx_tile" in flags:
        rc, text, shown = run([RUN_SH, "--mode=precision", "--samples=5"] + q,
                              log_dir, "precision")
        bf, i8 = [], []
        for line in text.splitlines():
            m = PRECISION_LINE.match(line.strip())
            if m:
                bf.append((f"{m.group(1)}³", float(m.group(2)),
                           not m.group(5)))
                i8.append((f"{m.group(1)}³", float(m.group(3)),
                           not m.group(4)))
        if rc != 0 or not bf:
            failed = True
            rows.append((amx_label, f"failed: `{shown}` exited {rc} (log: "
                         f"{log_dir}/precision.log)", cmd_cell(shown)))
        else:
            label = amx_label.replace("256³–2048³", shape_range(
                [sh for sh, _, _ in bf]))
            rows.append((label, f"{measured(bf)} / {measured(i8)}",
                         cmd_cell(shown)))
    else:
        rows.append((amx_label, "not regenerated: needs AMX (amx_tile)",
                     f"`bench/run.sh --mode=precision --samples=5`, not run "
                     f"on {where}"))

    # Attention row: fused ÷ unfused OpenBLAS, L >= 1024 (L 256-512 with
    # --quick, whose lengths are those).
    rc, text, shown = run([RUN_SH, "--mode=attention", "--samples=3"] + q,
                          log_dir, "attention")
    cases = []
    for line in text.splitlines():
        m = ATTN_LINE.match(line.strip())
        if m:
            cases.append((int(m.group(1)), int(m.group(2)), bool(m.group(3)),
                          float(m.group(5)), not m.group(6)))
    keep = [c for c in cases if args.quick or c[0] >= 1024]
    if rc != 0 or not keep:
        failed = True
        rows.append((LABELS[3], f"failed: `{shown}` exited {rc} (log: "
                     f"{log_dir}/attention.log)", cmd_cell(shown)))
    else:
        lens = sorted({c[0] for c in keep})
        dims = sorted({c[1] for c in keep})
        value = span([c[3] for c in keep])
        if not all(c[4] for c in keep):
            value += " (wrong results in some cases)"
        label = (f"fused f32 attention ÷ unfused OpenBLAS, L "
                 f"{shape_range([k_label(l) for l in lens])}, d "
                 f"{'/'.join(str(d) for d in dims)}")
        rows.append((label, value, cmd_cell(shown)))

    # Llama block row: the bf16 block (bench/llama_block.py --dtype=bf16;
    # Llama 3 8B's layer, --quick: 3.2 1B's at S 128 and 512) on 1 and 2
    # threads, JAX's bf16 block ms / accel's.
    preset, seqs = ("1b", "128,512") if args.quick else ("8b", "128,512,2048")
    llama, shown_all, llama_failed, no_jax = [], [], False, False
    for t in (1, 2):
        rc, text, shown = run([sys.executable, LLAMA, "--dtype=bf16",
                               f"--preset={preset}", f"--seqs={seqs}",
                               f"--threads={t}"], log_dir, f"llama-{t}t")
        shown_all.append(shown.replace(sys.executable, "python3", 1))
        no_jax |= "# jax: skipped" in text
        got = [(f"S {m.group(1)}, {t}t", float(m.group(2)), not m.group(3))
               for m in LLAMA_LINE.finditer(text)]
        llama += got
        llama_failed |= rc != 0 or not got
    llama_label = LABELS[4].replace(
        "Llama 3 8B", "Llama 3.2 1B" if args.quick else "Llama 3 8B").replace(
        "S 128–2048", f"S {seqs.split(',')[0]}–{seqs.split(',')[-1]}")
    llama_cmd = ", ".join(f"`{c}`" for c in shown_all) + f", {rev}, {where}"
    if no_jax:
        rows.append((llama_label, "not regenerated: needs jax (pip install "
                     "-r bench/requirements-peers.txt)", llama_cmd))
    elif llama_failed:
        failed = True
        rows.append((llama_label, f"failed (logs: {log_dir}/llama-*.log)",
                     llama_cmd))
    else:
        rows.append((llama_label, measured(llama), llama_cmd))

    # Systolic row: simulated cycles (the machine running them does not
    # matter).
    rc, text, shown = run([sys.executable, SYSTOLIC] + q, log_dir,
                          "systolic")
    shown = shown.replace(sys.executable, "python3", 1)
    m = re.search(r"^utilisation: min ([\d.]+), max ([\d.]+)", text, re.M)
    gemms = re.findall(r"^\S+\s+\d+\s+(?:i8|bf16)\s+(\d+)x(\d+)x(\d+)\s", text,
                       re.M)
    if rc != 0 or not m or not gemms:
        failed = True
        rows.append((LABELS[5], f"failed: `{shown}` exited {rc} (log: "
                     f"{log_dir}/systolic.log)",
                     f"`{shown}`, {rev}, the cycle-level simulator"))
    else:
        sizes = []
        for g in gemms:
            if g not in sizes:
                sizes.append(g)
        # M×K×N, as bench/systolic.py and docs/systolic.md write them.
        label = ("systolic GEMM utilisation (ideal MAC-cycles ÷ cycles), " +
                 ", ".join(f"{a}³" if a == b == c else f"{a}×{b}×{c}"
                           for a, b, c in sizes))
        lo, hi = float(m.group(1)), float(m.group(2))
        value = f"{lo:.3f}-{hi:.3f}" if lo != hi else f"{lo:.3f}"
        rows.append((label, value, f"`{shown}`, {rev}, the cycle-level "
                     "simulator (deterministic cycles)"))

    # GPU rows.
    for label in LABELS[6:]:
        rows.append((label, NO_GPU, "`python3 bench/gpu/check.py device` on "
                     "a machine with an NVIDIA GPU, not run"))

    took = (datetime.datetime.now(datetime.timezone.utc) - start).seconds
    if load_start is not None:
        notes.append(f"1-minute load average {load_start:.2f} at the start, "
                     f"{loadavg():.2f} at the end (on {os.cpu_count()} CPUs; "
                     "timings from a busy machine are not figures to quote).")
    print(f"\n## Measured figures (`bench/run.sh --mode=readme"
          f"{' --quick' if args.quick else ''}`, {start:%Y-%m-%d %H:%M} UTC, "
          f"{took} s)\n")
    if args.quick:
        print("--quick: smaller shapes and fewer samples than the README's "
              "rows; a smoke test, not figures to quote.\n")
    print("| ratio | measured | command, commit, machine |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    if notes:
        print()
        for n in notes:
            print(f"- {n}")
    print(f"\nThe commands' outputs: {log_dir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
