#!/usr/bin/env python3
"""Hashes the artifact of every catalogue kernel, for every target.

A refactoring that should not change what the compiler emits (issue 26:
"behaviour stays the same; the shape changes") is checked by running this
at the commit before the change and after it and comparing the manifests:

    scripts/artifact-hashes.py -o before.tsv          # at the old commit
    scripts/artifact-hashes.py -o after.tsv           # at the new one
    scripts/artifact-hashes.py --compare before.tsv after.tsv

The catalogue is every function of the numerics catalogues that accel-run
executes (test/Integration/{CPU,GPU,AMDGPU,Systolic}), under every pipeline
option set their RUN lines give, plus the GPU benchmark kernels of
bench/gpu/check.py. Each function is compiled on its own with accel-compile
(one file per function, so that one a target refuses does not hide the
others); the manifest holds one row per (target, options, file, function):
the sha256 of each artifact (PTX, cubin, AMDGCN code object, systolic
binary, CPU object), of the launch metadata with the compiler version
removed, or of the first error line when the target refuses the function
(a refusal is behaviour too).
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("ACCEL_BIN", os.path.join(ROOT, "build", "bin"))
INTEGRATION = os.path.join(ROOT, "test", "Integration")

# accel-run's --X-pipeline-options flag for each target.
OPTION_FLAGS = {"cpu": "--cpu-pipeline-options",
                "nvptx": "--nvptx-pipeline-options",
                "amdgpu": "--amdgpu-pipeline-options",
                "systolic": "--systolic-pipeline-options"}
# Compiled CPU code must not depend on the machine the script runs on.
CPU_FEATURES = "avx512f,avx512bw,avx512vl,avx512bf16,avx512vnni,fma,avx2"


def functions(path):
    """(name, text) of every func.func of the file at `path`, each a module
    of its own with the file's attribute and type aliases (`#map = ...`)."""
    text = open(path).read()
    lines = text.splitlines()
    aliases = "".join(l + "\n" for l in lines if re.match(r"[#!][\w.$-]+ = ", l))
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"func\.func (?:public )?@([A-Za-z0-9_$.]+)", lines[i])
        if m:
            j = i
            while j < len(lines) and lines[j] != "}":
                j += 1
            out.append((m.group(1),
                        aliases + "\n".join(lines[i:j + 1]) + "\n"))
            i = j + 1
        else:
            i += 1
    return out


def run_lines(path):
    """(target, options) of every accel-run RUN line of `path`, with %S
    expanded; the CPU JIT's lines too (compiled with accel-compile)."""
    runs = []
    for line in open(path):
        m = re.match(r"//\s*RUN:\s*accel-run (%s|%S/\S+)(.*?)\s*(\||$)", line)
        if not m:
            continue
        args = shlex.split(m.group(2))
        target = "cpu"
        options = ""
        for a in args:
            if a.startswith("--target="):
                target = a.split("=", 1)[1]
        for a in args:
            if a.startswith(OPTION_FLAGS.get(target, "--none") + "="):
                options = a.split("=", 1)[1]
        if target == "cpu":
            # The JIT's threads; CPU libraries run on the calling thread
            # (accel-compile refuses threads=N).
            options = " ".join(o for o in options.split()
                               if not o.startswith("threads="))
        src = path if m.group(1) == "%s" else os.path.normpath(
            m.group(1).replace("%S", os.path.dirname(path)))
        runs.append((src, target, options))
    return runs


def catalogue():
    """(source file, target, options) of every catalogue run, deduplicated,
    in a fixed order."""
    seen, out = set(), []
    for sub in ("CPU", "GPU", "AMDGPU", "Systolic"):
        folder = os.path.join(INTEGRATION, sub)
        for name in sorted(os.listdir(folder)):
            if not (name.endswith(".mlir") or name.endswith(".test")):
                continue
            for run in run_lines(os.path.join(folder, name)):
                variants = [run]
                # The AMD catalogue runs on gfx942; its other chips too.
                if run[1] == "amdgpu" and "chip=" not in run[2]:
                    variants += [(run[0], run[1], f"chip={c} {run[2]}".strip())
                                 for c in ("gfx90a", "gfx1100")]
                for v in variants:
                    if v not in seen:
                        seen.add(v)
                        out.append(v)
    return out


def bench_gpu_cases():
    """(name, source, options) of bench/gpu/check.py's benchmark kernels."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
    import check  # noqa: E402 (the benchmark's own case list)
    return [(name, src, opt) for (name, _k, _s, opt, src)
            in check.bench_cases(quick=False)]


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def compile_one(job):
    """Compiles one function; its manifest rows."""
    target, options, label, fname, text = job
    with tempfile.TemporaryDirectory(prefix="accel-hash-") as tmp:
        src = os.path.join(tmp, "k.mlir")
        open(src, "w").write(text)
        opts = shlex.split(options) if options else []
        chip = [o for o in opts if o.startswith("chip=")]
        rest = " ".join(o for o in opts if not o.startswith("chip="))
        cmd = [os.path.join(BIN, "accel-compile"), src, f"--target={target}",
               "-o", os.path.join(tmp, "out")]
        if chip:
            cmd.append("--chip=" + chip[0].split("=", 1)[1])
        if rest:
            cmd.append("--options=" + rest)
        if target == "cpu":
            cmd.append("--features=" + CPU_FEATURES)
        if target == "nvptx":
            cmd.append("--cubin=no")
        r = subprocess.run(cmd, capture_output=True, text=True)
        key = f"{target}\t{options or '-'}\t{label}\t{fname}"
        if r.returncode != 0:
            errors = [l for l in r.stderr.splitlines() if "error:" in l]
            first = errors[0] if errors else r.stderr.strip()[-200:]
            # The temporary path is not behaviour.
            first = first.replace(src, "k.mlir")
            return [f"{key}\trefused\t{digest(first.encode())}\t{first}"]
        rows = []
        out = os.path.join(tmp, "out")
        for dirpath, _dirs, files in sorted(os.walk(out)):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, out)
                data = open(path, "rb").read()
                if f.endswith(".json"):
                    meta = json.loads(data)
                    meta.pop("compiler", None)
                    meta.pop("compiler_version", None)
                    data = json.dumps(meta, sort_keys=True).encode()
                rows.append(f"{key}\t{rel}\t{digest(data)}")
        return rows


def build_jobs(args):
    jobs = []
    for src, target, options in catalogue():
        if args.targets and target not in args.targets:
            continue
        label = os.path.relpath(src, ROOT)
        for fname, text in functions(src):
            jobs.append((target, options, label, fname, text))
    if not args.targets or "nvptx" in args.targets:
        for name, src, opt in bench_gpu_cases():
            for fname, text in functions_of_text(src):
                jobs.append(("nvptx", f"chip=sm_90a {opt}".strip(),
                             f"bench/gpu:{name}", fname, text))
    return jobs


def functions_of_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        return functions(f.name)
    finally:
        os.unlink(f.name)


def compare(a, b):
    def load(p):
        rows = {}
        for line in open(p):
            parts = line.rstrip("\n").split("\t")
            rows[tuple(parts[:5])] = parts[5:]
        return rows
    ra, rb = load(a), load(b)
    same = sum(1 for k in ra if rb.get(k) == ra[k])
    diff = [k for k in ra if k in rb and rb[k] != ra[k]]
    gone = [k for k in ra if k not in rb]
    new = [k for k in rb if k not in ra]
    for k in diff:
        print("changed:", " ".join(k), ra[k], "->", rb[k])
    for k in gone:
        print("only before:", " ".join(k), ra[k])
    for k in new:
        print("only after:", " ".join(k), rb[k])
    print(f"{same} identical, {len(diff)} changed, {len(gone)} only before, "
          f"{len(new)} only after")
    return 0 if not diff and not gone and not new else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-o", "--output", help="manifest to write (TSV)")
    p.add_argument("--targets", nargs="*",
                   help="only these targets (cpu nvptx amdgpu systolic)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = p.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.output:
        p.error("give -o FILE or --compare BEFORE AFTER")
    jobs = build_jobs(args)
    print(f"artifact-hashes: {len(jobs)} kernels", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(compile_one, jobs))
    with open(args.output, "w") as f:
        for rows in results:
            for row in rows:
                f.write(row + "\n")
    refused = sum(1 for rows in results if rows and "\trefused\t" in rows[0])
    print(f"artifact-hashes: {len(jobs)} kernels, {refused} refused, "
          f"manifest {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
