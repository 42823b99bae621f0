// The configuration stage on CPUs with AMX: bf16 and int8 matmuls get the
// AMX kernels (before AVX-512's dot kernels), f32 stays on FMAs.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni,amx-tile,amx-bf16,amx-int8" | FileCheck %s
// AMX's dot products need the tile registers: without amx-tile, AVX-512's.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni,amx-bf16,amx-int8" | FileCheck %s --check-prefix=NOTILE
// Only amx-int8: bf16 takes vdpbf16ps.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni,amx-tile,amx-int8" | FileCheck %s --check-prefix=INT8ONLY
// bf16-subnormals=keep: bf16 on FMAs (tdpbf16ps flushes), int8 on AMX.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni,amx-tile,amx-bf16,amx-int8 bf16-subnormals=keep" | FileCheck %s --check-prefix=KEEP
// The module's target names the features too.
// RUN: accel-opt %s -split-input-file --accel-attach-target=name=x86-64-sapphirerapids --accel-cpu-configure | FileCheck %s --check-prefix=TARGET

// CHECK-LABEL: func @bf16
// CHECK: kernel = "cpu-amx-bf16", tile = [256, 0, 2048], mma = [32, 32, 32]
// NOTILE-LABEL: func @bf16
// NOTILE: kernel = "cpu-avx512bf16"
// INT8ONLY-LABEL: func @bf16
// INT8ONLY: kernel = "cpu-avx512bf16"
// KEEP-LABEL: func @bf16
// KEEP: kernel = "cpu-fma"
// TARGET-LABEL: func @bf16
// TARGET: kernel = "cpu-amx-bf16"
func.func @bf16(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// CHECK-LABEL: func @i8
// CHECK: kernel = "cpu-amx-int8", tile = [256, 0, 4096], mma = [32, 32, 64]
// NOTILE-LABEL: func @i8
// NOTILE: kernel = "cpu-avx512vnni"
// INT8ONLY-LABEL: func @i8
// INT8ONLY: kernel = "cpu-amx-int8"
// KEEP-LABEL: func @i8
// KEEP: kernel = "cpu-amx-int8"
// TARGET-LABEL: func @i8
// TARGET: kernel = "cpu-amx-int8"
func.func @i8(%a: tensor<64x32xi8>, %b: tensor<32x48xi8>, %c: tensor<64x48xi32>) -> tensor<64x48xi32> {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) outs(%c : tensor<64x48xi32>) -> tensor<64x48xi32>
  return %0 : tensor<64x48xi32>
}


// -----

// bf16 attention on AMX: cpu-flash-amx (P rounded to bf16, both tile
// products on tiles); f32 attention and bf16-subnormals=keep stay on
// cpu-flash, as does bf16 attention without AMX's bf16 tiles.
// CHECK-LABEL: func @attention
// CHECK: kernel = "cpu-flash-amx", tile = [128, 128]
// CHECK: kernel = "cpu-flash", tile = [128, 128]
// NOTILE-LABEL: func @attention
// NOTILE: kernel = "cpu-flash"
// NOTILE-NOT: cpu-flash-amx
// INT8ONLY-LABEL: func @attention
// INT8ONLY-NOT: cpu-flash-amx
// KEEP-LABEL: func @attention
// KEEP-NOT: cpu-flash-amx
// TARGET-LABEL: func @attention
// TARGET: kernel = "cpu-flash-amx"
func.func @attention(%q: tensor<1x2x64x32xbf16>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>, %qf: tensor<1x2x64x32xf32>) -> (tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  %r2 = accel.attention ins(%qf, %qf, %qf : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  return %r, %r2 : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
}
