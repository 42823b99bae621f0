// RUN: accel-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{register-tile=8,32}))"
// RUN: accel-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{register-tile=8,0,1}))"
// RUN: not accel-opt %s --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,-1,64}))" 2>&1 | FileCheck %s --check-prefix=CHECK-CACHE
// A register tile row that is not a power of two wide (8 x 48) is refused:
// x86 assembled its <48 x float> values lane by lane, 20x slower.
// RUN: not accel-opt %s --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{register-tile=8,48,1}))" 2>&1 | FileCheck %s --check-prefix=CHECK-NR
// CHECK-NR: accel-cpu-vectorize-contractions-invalid.mlir:{{[0-9]+}}:1: error: accel-cpu-vectorize-contractions: register tile nr must be a power of two (got 48): other vector widths are assembled lane by lane by the x86 back end, about 20x slower
// CHECK-CACHE: error: accel-cpu-vectorize-contractions: cache-tile needs 3 sizes >= 0 [Mc, Nc, Kc]

// Tile sizes that cannot describe a register tile are refused up front.
// expected-error @+1 {{accel-cpu-vectorize-contractions: register-tile needs 3 positive sizes [mr, nr, kr]}}
func.func @f(%c: memref<8x8xf32>) {
  return
}
