// accel-roofline with a tuning cache's calibrated time models
// (docs/configure.md, "Calibrated time model"): an op whose
// lowering_config names a kernel with a calibration on the target and
// thread count also gets time = FLOPs / rate + softmax elements x their
// cost + bytes x their cost (those above the calibration's cache_bytes) +
// a call's cost, bounded below by the bytes at
// the bandwidth when they exceed the cores' L2 (2 MiB here). The
// calibrations here are written by hand, so every figure is exact.
//
// RUN: rm -rf %t && mkdir -p %t && split-file %s %t
// RUN: accel-opt %t/ops.mlir --accel-roofline="target=x86-64-sapphirerapids tuning-cache=%t/cache.json report=%t/table.txt" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=TABLE < %t/table.txt
//
// 256^3: 33554432 FLOP at 100 GFLOP/s = 335.54 us, + 10 us a call; its
// 786432 bytes are under the calibration's cache_bytes: no byte term.
// CHECK: remark: roofline on x86-64-sapphirerapids: 33.55 MFLOP, {{.*}}; calibrated 345.54 us (cpu-fma on 1 thread(s): 100.0 GFLOP/s, 0.000 ns a score, 1.0000 ns a byte, 10.0 us a call; 2 samples)
// A causal attention on cpu-flash with [64, 64] tiles: the first query
// tile visits one key tile, the second two, so 64 x 64 + 64 x 128 = 12288
// pairs a head (not the 8256 the band keeps), 24576 for the two heads:
// 24576 x (2 x 64 + 2 x 64 + 5) = 6414336 FLOP at 100 GFLOP/s = 64.14 us,
// + 24576 x 1 ns = 24.58 us, + 262144 bytes x 0.1 ns = 26.21 us: 114.93 us.
// CHECK: remark: roofline on x86-64-sapphirerapids: 4.31 MFLOP, {{.*}}; calibrated 114.93 us (cpu-flash on 1 thread(s): 100.0 GFLOP/s, 1.000 ns a score, 0.1000 ns a byte, 0.0 us a call; 1 samples)
// With [128, 128] tiles one key tile covers all: 16384 pairs a head.
// 32768 x 261 = 8552448 FLOP = 85.52 us, + 32.77 us + 26.21 us = 144.51 us.
// CHECK: remark: roofline on x86-64-sapphirerapids: 4.31 MFLOP, {{.*}}; calibrated 144.51 us
// An 8 x 4096 x 4096 call at 1000 GFLOP/s would take 268 us; its 33.75 MB
// (more than the 2 MiB L2) at 15 GB/s take 2.25 ms: the bytes bound it.
// CHECK: remark: roofline on x86-64-sapphirerapids: 268.44 MFLOP, 33.75 MB, {{.*}}; calibrated 2.25 ms (cpu-amx-bf16
// 256^3 in bf16 at 1000 GFLOP/s: 33.55 us; its 524 KB would take 34.95 us
// at 15 GB/s, but they fit the L2: no bound.
// CHECK: remark: roofline on x86-64-sapphirerapids: 33.55 MFLOP, 524.29 KB, {{.*}}; calibrated 33.55 us (cpu-amx-bf16
// A kernel the cache has no calibration of, and an op without a config:
// CHECK: remark: roofline on x86-64-sapphirerapids: {{.*}}; no calibration of cpu-amx-int8 on x86-64-sapphirerapids with 1 thread(s) in the tuning cache
// CHECK: remark: roofline on x86-64-sapphirerapids: {{.*}}; no calibrated time (no lowering_config: run accel-cpu-configure first)
//
// TABLE: roofline on x86-64-sapphirerapids
// TABLE: predicted calibrated  tiles
// TABLE: accel.matmul {{.*}} 345.54 us
// TABLE: accel.attention {{.*}} 114.93 us
// TABLE: accel.attention {{.*}} 144.51 us
// TABLE: accel.matmul {{.*}} 2.25 ms
// TABLE: accel.matmul {{.*}} 33.55 us
// TABLE: accel.matmul {{.*}} -
// TABLE: accel.matmul {{.*}} -
//
// Two threads: the calibrations are for one.
// RUN: accel-opt %t/ops.mlir --accel-roofline="target=x86-64-sapphirerapids tuning-cache=%t/cache.json threads=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=T2
// T2: no calibration of cpu-fma on x86-64-sapphirerapids with 2 thread(s) in the tuning cache
//
// Refused: a cache that does not parse, one for a GPU target, no threads.
// RUN: not accel-opt %t/ops.mlir --accel-roofline="target=x86-64-sapphirerapids tuning-cache=%t/bad.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: accel-roofline: tuning cache '{{.*}}bad.json': calibration 0: no "gflops" rate (> 0)
// RUN: not accel-opt %t/ops.mlir --accel-roofline="target=h100 tuning-cache=%t/cache.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: accel-roofline: tuning-cache holds CPU calibrations; h100 is not a CPU
// RUN: not accel-opt %t/ops.mlir --accel-roofline="target=x86-64-sapphirerapids threads=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: accel-roofline: threads=0 is not a thread count (1 or more)

//--- cache.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [],
 "calibrations": [
  {"cpu": "x86-64-sapphirerapids", "kernel": "cpu-fma", "threads": 1,
   "gflops": 100, "us_per_call": 10, "ns_per_byte": 1, "cache_bytes": 1e6,
   "samples": [{"case": "a", "flops": 1e9, "ms": 10.01},
               {"case": "b", "flops": 2e9, "ms": 20.01}]},
  {"cpu": "x86-64-sapphirerapids", "kernel": "cpu-flash", "threads": 1,
   "gflops": 100, "ns_per_score": 1, "ns_per_byte": 0.1,
   "samples": [{"case": "c", "flops": 1e9, "scores": 1e6, "ms": 11}]},
  {"cpu": "x86-64-sapphirerapids", "kernel": "cpu-amx-bf16", "threads": 1,
   "gflops": 1000},
  {"cpu": "x86-64-avx512", "kernel": "cpu-amx-int8", "threads": 1,
   "gflops": 1000}]}

//--- bad.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [],
 "calibrations": [{"cpu": "x86-64-sapphirerapids", "kernel": "cpu-fma",
                   "threads": 1, "gflops": 0}]}

//--- ops.mlir
func.func @gemm(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
func.func @attn(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %o: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [64, 64]>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}
func.func @attn128(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %o: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [128, 128]>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}
func.func @skinny(%a: tensor<8x4096xbf16>, %b: tensor<4096x4096xbf16>, %c: tensor<8x4096xf32>) -> tensor<8x4096xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<8x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<8x4096xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [16, 0, 2048], mma = [16, 16, 32]>} -> tensor<8x4096xf32>
  return %0 : tensor<8x4096xf32>
}
func.func @bf16(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [256, 0, 256], mma = [32, 32, 32]>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
func.func @int8(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-int8", tile = [64, 0, 64], mma = [16, 16, 64]>} -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}
func.func @plain(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
