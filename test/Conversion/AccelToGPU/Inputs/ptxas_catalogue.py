#!/usr/bin/env python3
"""Assembles the PTX of every kernel of the NVIDIA numerics catalogue with
ptxas for its chip.

    ptxas_catalogue.py ACCEL_RUN PTXAS CATALOGUE_DIR WORK_DIR

For every `accel-run %s --target=nvptx ...` RUN line of the .mlir files in
CATALOGUE_DIR (test/Integration/GPU, what bench/gpu/check.py launches on a
GPU), records the kernels with `accel-run --record` (the PTX a launch would
load), then runs `ptxas -v -arch=<chip>` once on each function's PTX module.
Prints a line per kernel (its matrix instruction, registers and spills,
read from its own entry) and a summary; exits 1 if any kernel does not
assemble or spills.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys


def main():
    accel_run, ptxas, catalogue, work = sys.argv[1:5]
    # The catalogue as bench/gpu/check.py reads it (what a GPU run launches).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), '..', '..', '..', '..', 'bench', 'gpu'))
    from check import catalogue_runs
    runs = [(os.path.basename(test), args)
            for test, args in catalogue_runs(catalogue)]
    def record(i):
        name, args = runs[i]
        rec = os.path.join(work, '%02d' % i)
        return subprocess.run([accel_run, os.path.join(catalogue, name)] +
                              args + ['--record=' + rec],
                              capture_output=True, text=True), rec

    jobs = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        recorded = list(pool.map(record, range(len(runs))))
    for (name, args), (r, rec) in zip(runs, recorded):
        if r.returncode != 0:
            print('%s %s: accel-run --record failed:\n%s' % (
                name, ' '.join(args), r.stderr))
            return 1
        for f in sorted(os.listdir(rec)):
            if f.endswith('.json') and f != 'manifest.json':
                meta = json.load(open(os.path.join(rec, f)))
                jobs.append((name, ' '.join(args), rec, meta))

    # A function's kernels share one PTX module: each module is assembled
    # once, and each kernel is judged by its own entry's part of the PTX
    # and of ptxas's report.
    modules = sorted({(os.path.join(rec, meta['ptx']), meta['chip'])
                      for _, _, rec, meta in jobs})

    def assemble(module):
        ptx, chip = module
        r = subprocess.run([ptxas, '-v', '-arch=' + chip, ptx, '-o',
                            os.path.splitext(ptx)[0] + '.cubin'],
                           capture_output=True, text=True)
        # Per entry: ptxas's lines from "Compiling entry function 'X'" to
        # the next one, and the PTX from ".entry X(" to the next entry.
        report = {}
        for part in re.split(r"(?=ptxas info\s*: Compiling entry function)",
                             r.stderr):
            m = re.search(r"Compiling entry function '([^']+)'", part)
            if m:
                report[m.group(1)] = part
        text = open(ptx).read()
        bodies = {}
        for part in re.split(r'(?=\.entry\s)', text):
            m = re.match(r'\.entry\s+([\w$]+)', part)
            if m:
                bodies[m.group(1)] = part
        return r, report, bodies

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assembled = dict(zip(modules, pool.map(assemble, modules)))

    results = []
    for name, args, rec, meta in jobs:
        r, report, bodies = assembled[(os.path.join(rec, meta['ptx']),
                                       meta['chip'])]
        part = report.get(meta['kernel'], '')
        body = bodies.get(meta['kernel'], '')
        spills = re.findall(r'(\d+) bytes spill stores', part)
        regs = re.findall(r'Used (\d+) registers', part)
        ok = (r.returncode == 0 and body and spills and regs and
              all(x == '0' for x in spills))
        line = '%s %s @%s (%s, %s): %s' % (
            name, args, meta['kernel'], meta['chip'],
            'wgmma' if 'wgmma.mma_async' in body else
            'mma.sync' if 'mma.sync' in body else 'fma',
            ('ok, %s registers, no spills' % regs[-1]) if ok else
            'FAILED\n' + (r.stderr if r.returncode or not part else part))
        results.append((ok, line))
    for _, line in results:
        print(line)
    bad = sum(1 for ok, _ in results if not ok)
    wgmma = sum(1 for _, line in results if '(sm_90a, wgmma)' in line)
    fma = sum(1 for _, line in results if ', fma)' in line)
    print('%d kernels of %d RUN lines assembled by ptxas, %d of them wgmma, '
          '%d fma; %d failed or spilled' % (len(results), len(runs), wgmma,
                                            fma, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
