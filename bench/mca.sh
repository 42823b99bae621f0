#!/usr/bin/env bash
# Static analysis of accel's f32 GEMM micro-kernel (no timing, so it means
# the same on a busy machine): compiles an accel.matmul the way the JIT does
# (accel-cpu-pipeline, LLVM -O3 for the CPU), takes the innermost loop with
# the most FMAs out of the assembly, and runs llvm-mca on it. Per shape and
# CPU model it prints the loop's FMAs, loads and cycles per iteration, its
# fraction of the model's FMA peak and llvm-mca's bottleneck analysis; then
# what the loop does not show: the C tile around it, the stride of its B
# loads against the cache and TLB geometry, and C's memory traffic.
#
#   bench/mca.sh [--mcpu=znver4[,znver5...]] [--options="cache-tile=..."]
#                [--keep=DIR] [--callgrind] [SHAPE...]
#
# --callgrind also runs each shape once under valgrind's callgrind with a
# cache simulation of the first --mcpu's L1d and L2 (as valgrind's "LL")
# and prints the kernel's instructions and misses against the compulsory
# ones. Valgrind runs no AVX-512, so that build uses AVX2 (the same loop
# nest and addresses, other registers); take shapes with a small M (e.g.
# 96x2048x256 against 96x2112x256): it is about 100 times slower than the
# kernel.
#
# SHAPE is MxNxK, or MxNxKt with B transposed (A·Bᵀ, as Q·Kᵀ); the default
# is the shapes docs/cpu-performance.md discusses: 4096x4096x64t
# 4096x4096x128t 1024x1024x1024 2048x2048x2048. --options are passed to
# accel-cpu-pipeline (e.g. "register-tile=6,64,1 cache-tile=132,1024,1024").
# --mcpu defaults to znver4 (LLVM 22's znver5 has no scheduling model of
# its own: it reuses Zen 4's, which the output says).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
valgrind=${VALGRIND:-valgrind}
mcpus=znver4
options=""
keep=""
callgrind=""
shapes=()
die() {
  echo "bench/mca.sh: error: $*" >&2
  exit 1
}
# Runs a step of shape $s; a failure names the step's program and the shape.
step() {
  "$@" || die "$(basename "$1") failed on $s"
}
for a in "$@"; do
  case "$a" in
  --mcpu=*) mcpus=${a#*=} ;;
  --options=*) options=${a#*=} ;;
  --keep=*) keep=${a#*=} ;;
  --callgrind) callgrind=1 ;;
  -h | --help)
    sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  -*) die "unknown option '$a' (--mcpu=, --options=, --keep=, --callgrind)" ;;
  *) shapes+=("$a") ;;
  esac
done
[ ${#shapes[@]} -gt 0 ] ||
  shapes=(4096x4096x64t 4096x4096x128t 1024x1024x1024 2048x2048x2048)
for tool in "$build/bin/accel-opt" "$llvm/mlir-translate" "$llvm/opt" \
  "$llvm/llc" "$llvm/llvm-mca"; do
  [ -x "$tool" ] || die "'$tool' not found (ACCEL_BUILD_DIR, LLVM_BIN)"
done
if [ -n "$callgrind" ]; then
  for tool in "$valgrind" clang-22; do
    command -v "$tool" >/dev/null || die "--callgrind needs '$tool'"
  done
  [ -x "$build/bin/accel-compile" ] || die "'$build/bin/accel-compile' not found"
fi
known=$("$llvm/llc" -mtriple=x86_64 -mcpu=help 2>&1 || true)
IFS=, read -r -a cpus <<<"$mcpus"
for cpu in "${cpus[@]}"; do
  grep -qE "^  $cpu +- " <<<"$known" ||
    die "LLVM does not know -mcpu=$cpu (see llc -mtriple=x86_64 -mcpu=help)"
done
for s in "${shapes[@]}"; do
  [[ "$s" =~ ^[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*t?$ ]] ||
    die "bad shape '$s' (expected MxNxK, or MxNxKt for B transposed)"
done
# The cache tile [Mc, Nc, Kc]: Kc bounds the loop's trip count, Nc the B
# block (the pass's defaults unless --options sets them).
kc=1024 nc=1024
if [[ "$options" =~ cache-tile=([0-9]+),([0-9]+),([0-9]+) ]]; then
  nc=${BASH_REMATCH[2]} kc=${BASH_REMATCH[3]}
fi
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$keep
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

for s in "${shapes[@]}"; do
  [[ "$s" =~ ^([0-9]+)x([0-9]+)x([0-9]+)(t?)$ ]]
  m=${BASH_REMATCH[1]} n=${BASH_REMATCH[2]} k=${BASH_REMATCH[3]}
  t=${BASH_REMATCH[4]}
  ta="tensor<${m}x${k}xf32>" tc="tensor<${m}x${n}xf32>"
  if [ -n "$t" ]; then tb="tensor<${n}x${k}xf32>" tr="transpose_b "; else
    tb="tensor<${k}x${n}xf32>" tr=""
  fi
  cat >"$work/$s.mlir" <<EOF
func.func @mm(%a: $ta, %b: $tb, %c: $tc) -> $tc {
  %0 = accel.matmul ${tr}ins(%a, %b : $ta, $tb) outs(%c : $tc) -> $tc
  return %0 : $tc
}
EOF
  # The JIT's path: the pipeline (features as on an AVX-512 BF16/VNNI
  # host), LLVM's -O3 module passes, then code generation at -O3.
  step "$build/bin/accel-opt" "$work/$s.mlir" \
    --accel-cpu-pipeline="cpu-features=avx512f,avx512bw,avx512vl,avx512bf16,avx512vnni,fma $options" \
    -o "$work/$s.llvm.mlir"
  step "$llvm/mlir-translate" --mlir-to-llvmir "$work/$s.llvm.mlir" \
    -o "$work/$s.ll"
  for cpu in "${cpus[@]}"; do
    step "$llvm/opt" -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu="$cpu" \
      "$work/$s.ll" -o "$work/$s.$cpu.bc"
    step "$llvm/llc" -O3 -mcpu="$cpu" "$work/$s.$cpu.bc" -o "$work/$s.$cpu.s"
    python3 - "$work/$s.$cpu.s" "$cpu" "$m" "$n" "$k" "${t:-n}" "$kc" "$nc" \
      "$llvm/llvm-mca" "$work" <<'PY' || exit 1
import math, re, subprocess, sys

asm, cpu, m, n, k, trans, kc, nc, mca, work = sys.argv[1:]
m, n, k, kc, nc = int(m), int(n), int(k), int(kc), int(nc)
lines = open(asm).read().splitlines()

def fail(message):
    raise SystemExit("bench/mca.sh: error: " + message)

# Cache and TLB geometry per core (AMD's optimization guides for family
# 19h and 1Ah): L1d bytes, ways; L2 bytes, ways; L1 DTLB entries; L3 bytes.
GEOMETRY = {
    "znver4": (32 << 10, 8, 1 << 20, 8, 72, 32 << 20),
    "znver5": (48 << 10, 12, 1 << 20, 16, 96, 32 << 20),
}

def instructions(body):
    out = []
    for l in body:
        s = l.split("#")[0].strip()
        if not s or s.startswith(".") or s.endswith(":"):
            continue
        out.append(s)
    return out

def loop_span(label):
    """Lines from `label:` to the branch back to it; None when the loop's
    blocks are laid out around its header (a masked remainder tile's loop:
    the branch back comes before the header, from a block llc placed
    above it), which is not the micro-kernel."""
    start = next(i for i, l in enumerate(lines) if l.startswith(label + ":"))
    for j in range(start + 1, len(lines)):
        if re.match(r"\s+j\w+\s+" + re.escape(label) + r"\s*(#.*)?$", lines[j]):
            return start, j
    return None

FMA = re.compile(r"^v?f(n?m(add|sub)|madd|msub)\w*(ps|pd)\b")
def width(ins):
    return 16 if "zmm" in ins else 8 if "ymm" in ins else 4

# Innermost loops (llc marks their headers); the micro-kernel is the one
# with the most FMAs.
best = None
for i, l in enumerate(lines):
    mt = re.match(r"^(\.LBB\d+_\d+):", l)
    if not mt:
        continue
    j = i + 1
    while j < len(lines) and lines[j].lstrip().startswith("#"):
        if "This Inner Loop Header" in lines[j]:
            span = loop_span(mt.group(1))
            if span is None:
                break
            a, b = span
            body = instructions(lines[a:b + 1])
            fmas = [x for x in body if FMA.match(x)]
            if best is None or len(fmas) > best[3]:
                best = (mt.group(1), a, b, len(fmas))
        j += 1
if best is None or best[3] == 0:
    fail(f"no innermost loop with FMAs in the {m}x{n}x{k} kernel for {cpu} "
         "(a dimension smaller than the register tile stays scalar)")
label, a, b, nfma = best
body = instructions(lines[a:b + 1])
fmas = [x for x in body if FMA.match(x)]
lanes = width(fmas[0])
loads = [x for x in body if re.search(r"\(%", x.split(",")[0]) and
         not FMA.match(x)]
stores = [x for x in body if re.match(r"^v?mov\w+\s+%\w+,\s*-?\w*\(", x)]
bcasts = [x for x in loads if "broadcast" in x]
depth = next((re.search(r"Depth=(\d+)", l).group(1) for l in lines[a:a + 8]
              if "Inner Loop Header" in l), "?")

def run_mca(path, extra=()):
    r = subprocess.run([mca, "-mcpu=" + cpu, "-iterations=200", *extra, path],
                       capture_output=True, text=True)
    if r.returncode:
        fail("llvm-mca failed: " + r.stderr.strip())
    return r.stdout

def cycles_per_iter(text):
    it = int(re.search(r"Iterations:\s+(\d+)", text).group(1))
    cyc = int(re.search(r"Total Cycles:\s+(\d+)", text).group(1))
    return cyc / it, float(re.search(r"Block RThroughput:\s+([\d.]+)",
                                      text).group(1))

open(f"{work}/loop.s", "w").write("\n".join(body) + "\n")
report = run_mca(f"{work}/loop.s", ["-bottleneck-analysis"])
cyc, rthr = cycles_per_iter(report)

# The model's FMA peak: 16 independent FMAs of the loop's width.
reg = {16: "zmm", 8: "ymm", 4: "xmm"}[lanes]
open(f"{work}/peak.s", "w").write("".join(
    f"vfmadd231ps %{reg}31, %{reg}30, %{reg}{i}\n" for i in range(16)))
peak_cyc, _ = cycles_per_iter(run_mca(f"{work}/peak.s"))
fma_per_cycle = 16 / peak_cyc
model = "Zen 4's (Zn4) model" if "Zn4" in report else "its own model"

trip = min(k, kc)
shape = f"{m}x{n}x{k}" + (" Bt" if trans == "t" else "")
print(f"== {shape}, f32, -mcpu={cpu} ({model}) ==")
print(f"innermost loop {label} (depth {depth}): {len(body)} instructions, "
      f"{nfma} FMAs x {lanes} lanes, {len(loads)} loads "
      f"({len(bcasts)} broadcasts), {len(stores)} stores per iteration")
print(f"llvm-mca: {cyc:.2f} cycles/iteration (Block RThroughput {rthr:.1f}); "
      f"model FMA peak {fma_per_cycle:.2f}/cycle -> FMA-bound "
      f"{nfma / fma_per_cycle:.1f} cycles; loop at "
      f"{100 * nfma / fma_per_cycle / cyc:.0f} % of peak "
      f"({2 * lanes * nfma / cyc:.1f} of {2 * lanes * fma_per_cycle:.0f} "
      f"FLOP/cycle)")
sect = re.search(r"(Cycles with backend pressure.*?)\n\n", report, re.S)
if sect:
    for l in sect.group(1).splitlines():
        print("  mca: " + l.rstrip())

# The rest of the micro-kernel: the enclosing loop minus the inner one (the
# C tile's loads and stores, address arithmetic), once per register tile.
parent = None
for l in lines[a:a + 12]:
    pm = re.search(r"Parent Loop (BB\d+_\d+)", l)
    if pm:
        parent = "." + "L" + pm.group(1)
span = loop_span(parent) if parent else None
if span:
    pa, pb = span
    outer = instructions(lines[pa:a] + lines[b + 1:pb + 1])
    open(f"{work}/outer.s", "w").write("\n".join(outer) + "\n")
    ocyc, _ = cycles_per_iter(run_mca(f"{work}/outer.s"))
    vload = [x for x in outer if re.match(r"^vmov\w+\s+-?\w*\(", x)]
    vstore = [x for x in outer if re.match(r"^vmov\w+\s+%[xyz]mm\d+,", x)]
    tile = trip * cyc + ocyc
    print(f"register tile: {trip} iterations (K per cache tile = min(K, "
          f"Kc={kc})) + {len(outer)} instructions around the loop "
          f"({len(vload)} vector loads, {len(vstore)} vector stores of the C "
          f"tile) = {ocyc:.0f} cycles in cache; the tile runs at "
          f"{100 * trip * nfma / fma_per_cycle / tile:.0f} % of the FMA peak "
          f"when C is in L1")

# B's stride: the increment of the register the loop's full-width loads
# use as their base, against the set and page geometry.
l1, l1w, l2, l2w, tlb, l3 = GEOMETRY.get(cpu, GEOMETRY["znver4"])
incs = {}
for x in body:
    im = re.match(r"^(?:addq|subq|leaq)\s+\$?(-?\d+)(?:\(%(\w+)\))?,\s*%(\w+)",
                  x)
    if im and x.startswith(("addq", "subq")):
        incs[im.group(3)] = int(im.group(1)) * (-1 if x.startswith("subq")
                                                else 1)
bases = {re.search(r"\(%(\w+)\)", x).group(1) for x in loads
         if "broadcast" not in x and re.search(r"\(%(\w+)\)", x)}
for base in sorted(bases):
    stride = incs.get(base)
    if not stride:
        continue
    stride = abs(stride)
    line = 64
    rows_bytes = lanes * 4 * len([x for x in loads if f"(%{base})" in x])
    span = max(1, rows_bytes // line)
    # The panel's lines by set (the base taken as set 0: a shift does not
    # change how many lines share a set).
    def lines_per_set(size, ways):
        sets = size // (ways * line)
        count = {}
        for r in range(trip):
            for j in range(span):
                x = (r * stride // line + j) % sets
                count[x] = count.get(x, 0) + 1
        worst = max(count.values())
        if worst <= ways:
            return f"{len(count)} sets, {worst} lines each ({ways} ways: fits)"
        why = ("larger than the cache" if trip * rows_bytes > size
               else "conflict misses")
        return f"{len(count)} sets, {worst} lines each ({ways} ways: {why})"
    pages = trip if stride >= 4096 else math.ceil(trip * stride / 4096)
    # The whole Kc x Nc block the M loop sweeps again for every Mc rows:
    # it should stay in L2.
    block_span = max(1, min(n, nc) * 4 // line)
    panel_span, span = span, block_span
    block = lines_per_set(l2, l2w)
    span = panel_span
    print(f"B loads (%{base}): {rows_bytes} B per iteration at a stride of "
          f"{stride} B; the {trip}-row panel ({trip * rows_bytes // 1024} "
          f"KiB) takes L1 {lines_per_set(l1, l1w)}; L2 "
          f"{lines_per_set(l2, l2w)}; {pages} 4 KiB pages ({tlb}-entry L1 "
          f"DTLB{': misses' if pages > tlb else ''}); the {trip} x "
          f"{min(n, nc)} block takes L2 {block}")

# C's memory traffic: the first K block's register tiles start from zero
# and write C (no fill, no read); every later K block reads and writes it.
c_bytes = 4 * m * n
passes = 2 * math.ceil(k / kc) - 1
flop = 2 * m * n * k
where = "DRAM" if c_bytes > l3 else "L3" if c_bytes > l2 else "L2"
def size(b):
    return f"{b / 2**20:.0f} MiB" if b >= 2**20 else f"{b / 1024:.0f} KiB"
print(f"C: {size(c_bytes)} ({where}), {passes} passes (written by the "
      f"first K block, then read + write per later K block of {kc}) = "
      f"{size(passes * c_bytes)} moved for "
      f"{flop / 1e9:.2f} GFLOP ({flop / (passes * c_bytes):.0f} FLOP/B)")
PY
  done
  [ -n "$callgrind" ] || continue
  # The same kernel ahead of time for AVX2, called once from C under
  # callgrind; the counts cover accel_mm and what it calls.
  mkdir -p "$work/$s.aot"
  { echo "module @k {"; cat "$work/$s.mlir"; echo "}"; } >"$work/$s.aot/k.mlir"
  step "$build/bin/accel-compile" "$work/$s.aot/k.mlir" --target=cpu \
    --features=avx2,fma --options="$options" -o "$work/$s.aot/out"
  if [ -n "$t" ]; then bshape="$n, $k"; else bshape="$k, $n"; fi
  cat >"$work/$s.aot/drv.c" <<EOF
#include <stdlib.h>
#include "k.h"
static accel_tensor t(int64_t r, int64_t c) {
  accel_tensor x = {0};
  x.data = calloc((size_t)(r * c), 4);
  x.rank = 2;
  x.sizes[0] = r; x.sizes[1] = c; x.strides[0] = c; x.strides[1] = 1;
  return x;
}
int main(void) {
  if (accel_k_load_check() != ACCEL_OK) return 2;
  accel_tensor a = t($m, $k), b = t($bshape), c = t($m, $n), r = c;
  /* Evict the operands from the simulated caches (calloc may have just
     zeroed them), so every shape starts cold. */
  volatile char *evict = calloc(1, 16 << 20);
  for (int i = 0; i < (16 << 20); i += 64)
    evict[i] = 1;
  return accel_mm(&a, &b, &c, &r) != ACCEL_OK;
}
EOF
  step clang-22 -O1 -I"$work/$s.aot/out" "$work/$s.aot/drv.c" \
    "$work/$s.aot/out/libk.so" -Wl,-rpath,"$work/$s.aot/out" \
    -o "$work/$s.aot/drv"
  case "${cpus[0]}" in
  znver5) d1=49152,12,64 l2=1048576,16,64 ;;
  *) d1=32768,8,64 l2=1048576,8,64 ;;
  esac
  "$valgrind" --tool=callgrind --cache-sim=yes --D1=$d1 --LL=$l2 \
    --toggle-collect=accel_mm --callgrind-out-file="$work/$s.aot/cg.out" \
    "$work/$s.aot/drv" >/dev/null 2>"$work/$s.aot/valgrind.log" ||
    die "valgrind failed on $s: $(tail -3 "$work/$s.aot/valgrind.log")"
  python3 - "$work/$s.aot/cg.out" "$m" "$n" "$k" "$d1" "$l2" <<'PY'
import sys
out, m, n, k, d1, l2 = sys.argv[1:]
m, n, k = int(m), int(n), int(k)
c = {}
for line in open(out):
    if line.startswith("events:"):
        ev = line.split()[1:]
    elif line.startswith("summary:"):
        c = dict(zip(ev, (int(x) for x in line.split()[1:])))
# callgrind leaves out trailing zero counts.
c = {e: c.get(e, 0) for e in ("Ir", "D1mr", "D1mw", "DLmr", "DLmw")}
# Every line of A and B once, of C twice (read, written back).
compulsory = (4 * (m * k + k * n) + 2 * 4 * m * n) // 64
l2miss = c["DLmr"] + c["DLmw"]
print(f"callgrind (AVX2 build): {c['Ir']} instructions; L1d {d1}: "
      f"{c['D1mr'] + c['D1mw']} misses; L2 {l2}: {l2miss} misses = "
      f"{l2miss / compulsory:.1f} x the {compulsory} compulsory lines")
PY
done
