// A tuning cache that cannot be used is an error, located at the module
// (the file) or at the op (its tiles), never ignored.
// RUN: rm -rf %t && split-file %s %t
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/nowhere.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: accel-cpu-configure: tuning cache '{{.*}}nowhere.json': cannot read it: {{[Nn]}}o such file or directory
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/text.json" 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: error: accel-cpu-configure: tuning cache '{{.*}}text.json': not JSON: [1:2, byte=2]: Invalid JSON value
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/other.json" 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: accel-cpu-configure: tuning cache '{{.*}}other.json': not a tuning cache (no "format": "accel-cpu-tuning")
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/version.json" 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: error: accel-cpu-configure: tuning cache '{{.*}}version.json': version 2, this compiler reads version 1
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/entries.json" 2>&1 | FileCheck %s --check-prefix=ENTRIES
// ENTRIES: error: accel-cpu-configure: tuning cache '{{.*}}entries.json': no "entries" array
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/entry.json" 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: accel-cpu-configure: tuning cache '{{.*}}entry.json': entry 1: no "kernel" string
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/notobj.json" 2>&1 | FileCheck %s --check-prefix=NOTOBJ
// NOTOBJ: error: accel-cpu-configure: tuning cache '{{.*}}notobj.json': entry 0: not an object
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/sizes.json" 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: error: accel-cpu-configure: tuning cache '{{.*}}sizes.json': entry 0: "tile" holds something other than sizes
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/notile.json" 2>&1 | FileCheck %s --check-prefix=NOTILE
// NOTILE: error: accel-cpu-configure: tuning cache '{{.*}}notile.json': entry 0: no "tile" array
// Sizes no config may have (the attribute's verifier), then tiles the
// kernel cannot take (the stage's check): the op's error, then which entry.
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/tiles.json" 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: ops.mlir:2:8: error: lowering_config 'mma' entries must be positive, got 0
// TILES: ops.mlir:2:8: error: accel-cpu-configure: the tuning cache '{{.*}}tiles.json' entry for 'matmul f32xf32->f32 m64 n64 k64' on x86-64-avx512 does not fit this op (above)
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/width.json" 2>&1 | FileCheck %s --check-prefix=WIDTH
// WIDTH: ops.mlir:2:8: error: 'accel.matmul' op cannot use cpu-fma: register tile nr must be a power of two (got 48)
// WIDTH: ops.mlir:2:8: error: accel-cpu-configure: the tuning cache '{{.*}}width.json' entry for 'matmul f32xf32->f32 m64 n64 k64' on x86-64-avx512 does not fit this op (above)
// An attention block of 0 rows (would divide by zero in the decomposition).
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/zero.json" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: ops.mlir:6:8: error: lowering_config 'tile' entries must be positive, got 0
// ZERO: ops.mlir:6:8: error: accel-cpu-configure: the tuning cache '{{.*}}zero.json' entry for 'attention f32 b1 h2 q64 kv64 d32' on x86-64-avx512 does not fit this op (above)
// Two entries for one CPU and class.
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/twice.json" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: accel-cpu-configure: tuning cache '{{.*}}twice.json': entry 1: a second entry for "k" on x86-64-avx512
// Two for one CPU, class and thread count; a thread count that is none.
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/twice-threads.json" 2>&1 | FileCheck %s --check-prefix=TWICE-THREADS
// TWICE-THREADS: error: accel-cpu-configure: tuning cache '{{.*}}twice-threads.json': entry 2: a second entry for "k" on x86-64-avx512 with 2 thread(s)
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/threads.json" 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: accel-cpu-configure: tuning cache '{{.*}}threads.json': entry 0: "threads" is not a thread count (1 or more)
// Calibrated time models (docs/configure.md, "Calibrated time model"):
// the cache is refused whole when one of them is malformed.
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-list.json" 2>&1 | FileCheck %s --check-prefix=CAL-LIST
// CAL-LIST: error: accel-cpu-configure: tuning cache '{{.*}}cal-list.json': "calibrations" is not an array
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-kernel.json" 2>&1 | FileCheck %s --check-prefix=CAL-KERNEL
// CAL-KERNEL: error: accel-cpu-configure: tuning cache '{{.*}}cal-kernel.json': calibration 0: no "kernel" string
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-threads.json" 2>&1 | FileCheck %s --check-prefix=CAL-THREADS
// CAL-THREADS: error: accel-cpu-configure: tuning cache '{{.*}}cal-threads.json': calibration 0: no "threads" count (1 or more)
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-rate.json" 2>&1 | FileCheck %s --check-prefix=CAL-RATE
// CAL-RATE: error: accel-cpu-configure: tuning cache '{{.*}}cal-rate.json': calibration 0: no "gflops" rate (> 0)
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-time.json" 2>&1 | FileCheck %s --check-prefix=CAL-TIME
// CAL-TIME: error: accel-cpu-configure: tuning cache '{{.*}}cal-time.json': calibration 0: "us_per_call" is not a time (>= 0)
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-sample.json" 2>&1 | FileCheck %s --check-prefix=CAL-SAMPLE
// CAL-SAMPLE: error: accel-cpu-configure: tuning cache '{{.*}}cal-sample.json': calibration 0: a sample without "case", "flops" >= 0 and "ms" > 0
// RUN: not accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cal-twice.json" 2>&1 | FileCheck %s --check-prefix=CAL-TWICE
// CAL-TWICE: error: accel-cpu-configure: tuning cache '{{.*}}cal-twice.json': calibration 1: a second calibration of cpu-fma on x86-64-avx512 with 2 thread(s)
// Options the user gave outrank the cache: the same bad entry is not read.
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/width.json register-tile=6,64,1 attention-tile-q=32" | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: mma = [6, 64, 1]

//--- ops.mlir
func.func @f(%a: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = accel.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
func.func @g(%q: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %0 = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%q : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}
//--- cal-list.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": {}}
//--- cal-kernel.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "threads": 1, "gflops": 100}]}
//--- cal-threads.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "kernel": "cpu-fma", "gflops": 100}]}
//--- cal-rate.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "kernel": "cpu-fma", "threads": 1, "gflops": -5}]}
//--- cal-time.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "kernel": "cpu-fma", "threads": 1, "gflops": 100, "us_per_call": -1}]}
//--- cal-sample.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "kernel": "cpu-fma", "threads": 1, "gflops": 100, "samples": [{"case": "a", "flops": 1e9, "ms": 0}]}]}
//--- cal-twice.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [], "calibrations": [{"cpu": "x86-64-avx512", "kernel": "cpu-fma", "threads": 2, "gflops": 100}, {"cpu": "x86-64-avx512", "kernel": "cpu-fma", "threads": 2, "gflops": 90}]}
//--- text.json
tiles: fast
//--- other.json
{"format": "something", "version": 1, "entries": []}
//--- version.json
{"format": "accel-cpu-tuning", "version": 2, "entries": []}
//--- entries.json
{"format": "accel-cpu-tuning", "version": 1}
//--- entry.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, 1, 1]},
 {"cpu": "x86-64-avx512", "key": "k", "tile": [1, 1, 1]}]}
//--- notobj.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [3]}
//--- sizes.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, -1, 1]}]}
//--- notile.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma"}]}
//--- tiles.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "matmul f32xf32->f32 m64 n64 k64", "kernel": "cpu-fma", "tile": [64, 64, 64], "mma": [0, 64, 1]}]}
//--- width.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "matmul f32xf32->f32 m64 n64 k64", "kernel": "cpu-fma", "tile": [64, 64, 64], "mma": [6, 48, 1]},
 {"cpu": "x86-64-avx512", "key": "attention f32 b1 h2 q64 kv64 d32", "kernel": "cpu-flash", "tile": [0, 64]}]}
//--- zero.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "attention f32 b1 h2 q64 kv64 d32", "kernel": "cpu-flash", "tile": [0, 64]}]}
//--- twice.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, 1, 1]},
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [2, 2, 2]}]}

//--- twice-threads.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, 1, 1], "threads": 1},
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, 1, 1], "threads": 2},
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [2, 2, 2], "threads": 2}]}

//--- threads.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "k", "kernel": "cpu-fma", "tile": [1, 1, 1], "threads": 0}]}
