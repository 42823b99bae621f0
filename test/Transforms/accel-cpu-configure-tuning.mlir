// The tuning cache (docs/configure.md, "Tuning cache"): measured tiles
// replace the model's for ops of a shape class and CPU kind it has, when
// the model picks the entry's kernel.
// RUN: rm -rf %t && split-file %s %t
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cache.json" | FileCheck %s
// Without the cache: the model's tiles everywhere.
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f" | FileCheck %s --check-prefix=MODEL
// Another CPU kind (AVX2 only): its entry applies, the AVX-512 ones do not.
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx2,fma tuning-cache=%t/cache.json" | FileCheck %s --check-prefix=AVX2
// Entries are per thread count (the pipeline's `threads`, 1 by default):
// the one measured on as many threads, else one that names none; never one
// measured on another count. On 2 threads the causal class has its own
// entry; on 4 the non-causal one does, and the causal one falls back to
// the entry that names no thread count.
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cache.json threads=2" | FileCheck %s --check-prefix=TWO
// RUN: accel-opt %t/ops.mlir --accel-cpu-configure="features=avx512f tuning-cache=%t/cache.json threads=4" | FileCheck %s --check-prefix=FOUR
// The kind from the module's accel.target when no features are given.
// RUN: accel-opt %t/target.mlir --accel-attach-target=name=x86-64-avx512 --accel-cpu-configure="tuning-cache=%t/cache.json" | FileCheck %s --check-prefix=TARGET

//--- cache.json
{"format": "accel-cpu-tuning", "version": 1, "entries": [
 {"cpu": "x86-64-avx512", "key": "matmul f32xf32->f32 m512 n512 k512", "kernel": "cpu-fma", "tile": [66, 512, 256], "mma": [6, 32, 1], "untuned_ms": 2.0, "tuned_ms": 1.8},
 {"cpu": "x86-64-avx2", "key": "matmul f32xf32->f32 m512 n512 k512", "kernel": "cpu-fma", "tile": [72, 256, 512], "mma": [6, 16, 1]},
 {"cpu": "x86-64-avx512", "key": "matmul f32xf32->f32 m2048 n2048 k2048", "kernel": "cpu-avx512bf16", "tile": [12, 0, 64], "mma": [6, 64, 2]},
 {"cpu": "x86-64-avx512", "key": "attention f32 b1 h8 q1024 kv1024 d64 causal", "kernel": "cpu-flash", "tile": [64, 256]},
 {"cpu": "x86-64-avx512", "key": "attention f32 b1 h8 q1024 kv1024 d64 causal", "kernel": "cpu-flash", "tile": [128, 64], "threads": 2},
 {"cpu": "x86-64-avx512", "key": "attention f32 b1 h8 q1024 kv1024 d64", "kernel": "cpu-flash", "tile": [64, 64], "threads": 4}
]}

//--- ops.mlir
// CHECK-LABEL: func.func @f
// 512^3 and 300x500x400 share the class m512 n512 k512.
// CHECK: accel.matmul {{.*}}tensor<512x512xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [66, 512, 256], mma = [6, 32, 1]>}
// CHECK: accel.matmul {{.*}}tensor<300x500xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [66, 512, 256], mma = [6, 32, 1]>}
// An entry for another kernel than the model's (cpu-avx512bf16 for an f32
// matmul) is ignored.
// CHECK: accel.matmul {{.*}}tensor<2048x2048xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>}
// A given config is kept.
// CHECK: accel.matmul {{.*}}tensor<512x512xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [12, 64, 64], mma = [6, 64, 1]>}
// CHECK: accel.attention causal {{.*}}{accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [64, 256]>}
// Not causal: another class, the model's tiles.
// CHECK: accel.attention ins{{.*}}{accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [128, 128]>}
// MODEL-COUNT-2: tile = [132, 1024, 1024], mma = [6, 64, 1]
// MODEL: tile = [132, 1024, 1024], mma = [6, 64, 1]
// MODEL: tile = [12, 64, 64]
// MODEL-COUNT-2: kernel = "cpu-flash", tile = [128, 128]
// AVX2-COUNT-2: tile = [72, 256, 512], mma = [6, 16, 1]
// AVX2: tile = [132, 1024, 1024], mma = [6, 16, 1]
// AVX2: tile = [12, 64, 64]
// AVX2-COUNT-2: kernel = "cpu-flash", tile = [128, 128]
// TWO: accel.attention causal {{.*}}tile = [128, 64]>}
// TWO: accel.attention ins{{.*}}tile = [128, 128]>}
// FOUR: accel.attention causal {{.*}}tile = [64, 256]>}
// FOUR: accel.attention ins{{.*}}tile = [64, 64]>}
func.func @f(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>,
             %a2: tensor<300x400xf32>, %b2: tensor<400x500xf32>, %c2: tensor<300x500xf32>,
             %a3: tensor<2048x2048xf32>, %c3: tensor<2048x2048xf32>,
             %q: tensor<1x8x1000x64xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = accel.matmul ins(%a2, %b2 : tensor<300x400xf32>, tensor<400x500xf32>) outs(%c2 : tensor<300x500xf32>) -> tensor<300x500xf32>
  %2 = accel.matmul ins(%a3, %a3 : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%c3 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %3 = accel.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [12, 64, 64]>} -> tensor<512x512xf32>
  %4 = accel.attention causal ins(%q, %q, %q : tensor<1x8x1000x64xf32>, tensor<1x8x1000x64xf32>, tensor<1x8x1000x64xf32>) outs(%q : tensor<1x8x1000x64xf32>) -> tensor<1x8x1000x64xf32>
  %5 = accel.attention ins(%q, %q, %q : tensor<1x8x1000x64xf32>, tensor<1x8x1000x64xf32>, tensor<1x8x1000x64xf32>) outs(%q : tensor<1x8x1000x64xf32>) -> tensor<1x8x1000x64xf32>
  return
}

//--- target.mlir
// TARGET: tile = [66, 512, 256], mma = [6, 32, 1]
func.func @g(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}
