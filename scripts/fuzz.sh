#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with ASan and UBSan in ./build-fuzz
# and runs each for a while (docs/reliability.md, "Fuzzing").
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--seed S] [--runs R]
#                   [--keep-going] [--no-build] [TARGET...]
#
#   --seconds N   run each target for N seconds (-max_total_time; default 60)
#   --jobs J      run up to J targets at the same time (default 1)
#   --seed S      libFuzzer's -seed (default: random): the same mutations
#                 from the same corpus, as CI uses it
#   --runs R      stop each target after R inputs (libFuzzer's -runs), or
#                 at --seconds, whichever comes first
#   --keep-going  libFuzzer's fork mode: a crash does not stop the target,
#                 every reproducer is kept (the exit status is still 1)
#   --no-build    use the targets already in build-fuzz (no configure/build)
#   TARGET        accel-fuzz-parse, accel-fuzz-cpu-pipeline,
#                 accel-fuzz-metadata, accel-fuzz-structured (default: all)
#
# The corpora live in build-fuzz/corpus/<target>/ and grow from run to run;
# each run first adds seeds from the repository's tests (MLIR test files,
# split at `// -----`; kernel metadata JSON and systolic binaries for the
# metadata target; a few byte strings for the structured generator). A
# crash (a sanitizer report, an assertion, a signal, `LLVM ERROR`, a result
# out of the fp64 oracle's gate for the structured generator, more than 10 s
# or 2 GB for one input) stops that target
# (unless --keep-going), leaves its reproducer in build-fuzz/crashes/<target>/
# and makes the script exit with 1. Reproduce one with
# `build-fuzz/bin/<target> FILE`, minimise it with
# `build-fuzz/bin/<target> -minimize_crash=1 -runs=100000 FILE`.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-fuzz
all_targets=(accel-fuzz-parse accel-fuzz-cpu-pipeline accel-fuzz-metadata
  accel-fuzz-structured)
seconds=60
jobs=1
do_build=1
keep_going=0
seed=""
runs=""
targets=()

# The header comment above, without its '#'s.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=${2:-}; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    --jobs) jobs=${2:-}; shift 2 ;;
    --jobs=*) jobs=${1#*=}; shift ;;
    --runs) runs=${2:-}; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --seed) seed=${2:-}; shift 2 ;;
    --seed=*) seed=${1#*=}; shift ;;
    --no-build) do_build=0; shift ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --seconds needs a positive integer, got '$seconds'" >&2; exit 2
fi
if [ -n "$runs" ] && ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --runs needs a positive integer, got '$runs'" >&2; exit 2
fi
if [ -n "$seed" ] && ! [[ "$seed" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --seed needs a positive integer, got '$seed'" >&2; exit 2
fi
if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --jobs needs a positive integer, got '$jobs'" >&2; exit 2
fi
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  case " ${all_targets[*]} " in
    *" $t "*) ;;
    *) echo "fuzz.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2 ;;
  esac
done

# == Build ================================================================
# scripts/lib/sanitizer-build.sh says how build-fuzz is instrumented.
if [ "$do_build" = 1 ]; then
  # shellcheck source=scripts/lib/sanitizer-build.sh
  . "$root/scripts/lib/sanitizer-build.sh"
  accel_configure_sanitizer_build "$root" "$build" fuzz.sh || exit 2
  cmake --build "$build" --target "${targets[@]}" ||
    { echo "fuzz.sh: building the fuzz targets failed" >&2; exit 2; }
fi
for t in "${targets[@]}"; do
  if [ ! -x "$build/bin/$t" ]; then
    echo "fuzz.sh: $build/bin/$t is missing (run without --no-build)" >&2; exit 2
  fi
done

# == Seeds ================================================================
mkdir -p "$build/corpus" "$build/crashes" "$build/logs" "$build/seeds"
needs_metadata=0
for t in "${targets[@]}"; do [ "$t" = accel-fuzz-metadata ] && needs_metadata=1; done

# Systolic binaries for the metadata target, from the round-trip test's
# programs: the normal build's accel-systolic-translate when there is one.
if [ "$needs_metadata" = 1 ]; then
  translate=${ACCEL_BUILD_DIR:-$root/build}/bin/accel-systolic-translate
  if [ ! -x "$translate" ]; then
    translate=$build/bin/accel-systolic-translate
    [ -x "$translate" ] || [ "$do_build" = 0 ] ||
      cmake --build "$build" --target accel-systolic-translate >/dev/null ||
      echo "fuzz.sh: no accel-systolic-translate; no binary seeds" >&2
  fi
  every=$root/test/Tools/accel-systolic-translate/Inputs/every.mlir
  rm -f "$build"/seeds/*.bin
  if [ -x "$translate" ]; then
    for p in every int8; do
      "$translate" --to-binary "$every" --program="$p" \
        -o "$build/seeds/$p.bin" >/dev/null 2>&1 ||
        echo "fuzz.sh: cannot encode @$p of $every" >&2
    done
  fi
fi

python3 - "$root" "$build" "${targets[@]}" <<'PY' || exit 2
import hashlib, os, re, sys, glob

root, build, targets = sys.argv[1], sys.argv[2], sys.argv[3:]

def add(target, data):
    d = os.path.join(build, "corpus", target)
    os.makedirs(d, exist_ok=True)
    # Named by content: seeding again adds nothing twice.
    path = os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)

# MLIR: every test and example file, split as -split-input-file splits it,
# without comment lines (RUN and CHECK lines are noise to the parser).
chunks = []
files = sorted(glob.glob(os.path.join(root, "test", "**", "*.mlir"), recursive=True)
               + glob.glob(os.path.join(root, "examples", "*.mlir")))
for name in files:
    with open(name, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for chunk in re.split(r"^// -----.*$", text, flags=re.M):
        body = "\n".join(l for l in chunk.splitlines()
                         if not l.lstrip().startswith("//") and l.strip())
        if body.strip():
            chunks.append(body.encode() + b"\n")

# A dictionary of the tokens those files use: op and dialect names, types,
# keywords. Debian's MLIR parser is not instrumented, so libFuzzer cannot
# discover its keywords from comparisons.
counts = {}
for c in chunks:
    for tok in re.findall(rb"[A-Za-z_][A-Za-z0-9_.$]*|[-=]>|<\?|::", c):
        if 2 <= len(tok) <= 40:
            counts[tok] = counts.get(tok, 0) + 1
tokens = sorted(counts, key=lambda t: (-counts[t], t))[:1000]
with open(os.path.join(build, "mlir.dict"), "w") as f:
    for tok in tokens:
        f.write('"%s"\n' % tok.decode().replace("\\", "\\\\").replace('"', '\\"'))

# No bytecode seeds: the tools (and so the targets) refuse MLIR bytecode
# unless --allow-bytecode is given, since MLIR 22's bytecode reader crashes
# on malformed input (test/Fuzz/bytecode-reader-segv.test).

for t in targets:
    if t == "accel-fuzz-parse":
        for c in chunks:
            add(t, c)
    elif t == "accel-fuzz-cpu-pipeline":
        # The target skips inputs over 4 KiB.
        for c in chunks:
            if len(c) <= 4096:
                add(t, c)
    elif t == "accel-fuzz-metadata":
        # Byte 0 picks the reader: '0' (even) JSON, '1' (odd) binary.
        docs = [
            # docs/gpu-runtime.md's example.
            b'{"arguments": [{"access": "in", "byte_size": 16384, "dtype": "f16",'
            b' "kind": "buffer", "name": "A", "shape": [128, 64]},'
            b' {"byte_size": 4, "kind": "i32", "name": "n"}],'
            b' "block": [128, 1, 1], "chip": "sm_90a", "compiler": "accel 0.1.0",'
            b' "dynamic_shared_bytes": 98304, "features": "+ptx80",'
            b' "format_version": 1, "grid": [16, 8, 1], "kernel": "matmul_kernel",'
            b' "resources": {"registers": 168, "spill_bytes": 0,'
            b' "static_shared_bytes": 0}, "target": "nvptx"}',
            # Every dtype and access, scalars, artifacts, null cubin.
            b'{"arguments": [{"access": "inout", "byte_size": 6, "dtype": "bf16",'
            b' "kind": "buffer", "name": "c", "shape": [1, 3]},'
            b' {"access": "out", "byte_size": 0, "dtype": "f8E4M3FN",'
            b' "kind": "buffer", "name": "z", "shape": [0, 7]},'
            b' {"access": "in", "byte_size": 8, "dtype": "f8E5M2", "kind": "buffer",'
            b' "name": "e", "shape": [8]},'
            b' {"access": "in", "byte_size": 8, "dtype": "i64", "kind": "buffer",'
            b' "name": "s", "shape": []},'
            b' {"byte_size": 8, "kind": "i64", "name": "n"},'
            b' {"byte_size": 4, "kind": "f32", "name": "alpha"}],'
            b' "block": [32, 4, 2], "chip": "sm_80", "compiler": "accel 0.1.0",'
            b' "cubin": null, "dynamic_shared_bytes": 0, "features": "",'
            b' "format_version": 1, "grid": [2147483647, 65535, 65535],'
            b' "kernel": "k_0", "ptx": "k_kernels.ptx", "target": "nvptx"}',
            # AMD.
            b'{"arguments": [], "block": [256, 1, 1], "chip": "gfx942",'
            b' "compiler": "accel 0.1.0", "dynamic_shared_bytes": 65536,'
            b' "features": "", "format_version": 1, "grid": [4, 4, 1],'
            b' "kernel": "amd", "target": "amdgpu"}',
        ]
        # Kernel metadata the lit tests wrote (accel-compile --target=nvptx,
        # where ptxas is there), from the normal build.
        normal = os.environ.get("ACCEL_BUILD_DIR", os.path.join(root, "build"))
        for name in glob.glob(os.path.join(normal, "test", "**", "*.json"),
                              recursive=True)[:200]:
            with open(name, "rb") as f:
                data = f.read()
            if b'"grid"' in data and b'"format_version"' in data and len(data) < 65536:
                docs.append(data)
        for d in docs:
            add(t, b"0" + d)
        for name in glob.glob(os.path.join(build, "seeds", "*.bin")):
            with open(name, "rb") as f:
                add(t, b"1" + f.read())
    elif t == "accel-fuzz-structured":
        # The bytes choose a program, its pipeline options and its values
        # (fuzz/StructuredFuzzer.cpp); FuzzedDataProvider reads the choices
        # from the end, the last byte modulo 10 picking matmul (0-3),
        # attention (4-7) or softmax (8-9). One byte each: the plain program
        # of each op (bytes that run out choose the defaults); then strings
        # of arbitrary bytes, which choose everything.
        for i in range(10):
            add(t, bytes([i]))
        for i in range(30):
            add(t, hashlib.sha256(b"accel-fuzz-structured %d" % i).digest() * 2)
PY

# == Run ==================================================================
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -x /usr/lib/llvm-22/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
fi

count_crashes() {
  find "$build/crashes/$1" -maxdepth 1 -type f \
    \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) \
    2>/dev/null | wc -l
}

run_target() {
  local t=$1 log=$build/logs/$1.log
  local -a extra=()
  case "$t" in
    accel-fuzz-parse) extra=(-max_len=16384 -dict="$build/mlir.dict") ;;
    accel-fuzz-cpu-pipeline) extra=(-max_len=4096 -dict="$build/mlir.dict") ;;
    accel-fuzz-metadata) extra=(-max_len=8192) ;;
    # About 40 bytes make a program; the rest only feed later choices.
    accel-fuzz-structured) extra=(-max_len=256) ;;
  esac
  [ -n "$seed" ] && extra+=(-seed="$seed")
  [ -n "$runs" ] && extra+=(-runs="$runs")
  if [ "$keep_going" = 1 ]; then
    extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  fi
  mkdir -p "$build/crashes/$t"
  local before
  before=$(count_crashes "$t")
  echo "$before" >"$build/logs/$t.crashes-before"
  "$build/bin/$t" -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$build/crashes/$t/" "${extra[@]}" \
    "$build/corpus/$t" >"$log" 2>&1
  echo $? >"$build/logs/$t.rc"
}

echo "fuzz.sh: ${targets[*]}, ${seconds} s each, ${jobs} at a time; logs in $build/logs"
running=0
for t in "${targets[@]}"; do
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-26s %8s %12s %9s %8s %8s\n' target seconds executions execs/s corpus crashes
for t in "${targets[@]}"; do
  log=$build/logs/$t.log
  rc=$(cat "$build/logs/$t.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -z "$execs" ]; then
    # Fork mode prints no final stats: its last "#N: cov: ... time: Ts" line
    # has the executions and the time since the start.
    last=$(grep -E '^#[0-9]+: cov: .* time: [0-9]+s' "$log" | tail -1)
    execs=$(echo "$last" | sed -E 's/^#([0-9]+):.*/\1/')
    time_s=$(echo "$last" | sed -E 's/.* time: ([0-9]+)s.*/\1/')
    if [ -n "$execs" ] && [ "${time_s:-0}" -gt 0 ]; then rate=$((execs / time_s)); fi
  fi
  corpus=$(find "$build/corpus/$t" -maxdepth 1 -type f | wc -l)
  crashes=$(( $(count_crashes "$t") - $(cat "$build/logs/$t.crashes-before") ))
  # A failing exit without a reproducer is a crash too (e.g. during start-up),
  # except libFuzzer's 72: interrupted by a signal (SIGINT, SIGTERM).
  interrupted=
  if [ "$rc" -eq 72 ] && [ "$crashes" -eq 0 ]; then
    interrupted=" (interrupted)"
  elif [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
    crashes=1
  fi
  printf '%-26s %8s %12s %9s %8s %8s%s\n' "$t" "$seconds" "${execs:-?}" "${rate:-?}" \
    "$corpus" "$crashes" "$interrupted"
  [ -z "$interrupted" ] || status=1
  if [ "$crashes" -gt 0 ]; then
    status=1
    echo "  $t: see $log; reproducers in $build/crashes/$t/:"
    find "$build/crashes/$t" -maxdepth 1 -type f -newer "$build/logs/$t.crashes-before" \
      | sed 's/^/    /'
    grep -m 5 -E 'ERROR: |LLVM ERROR|Assertion|runtime error|SUMMARY' "$log" | sed 's/^/    /'
  fi
done
exit "$status"
