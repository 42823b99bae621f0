// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 nr=24}))' -verify-diagnostics
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 kc=3}))' -verify-diagnostics
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 bf16-subnormals=daz}))' 2>&1 | FileCheck %s --check-prefix=SUBNORMALS
// SUBNORMALS: accel-cpu-dot-kernels-invalid.mlir:{{[0-9]+}}:1: error: accel-cpu-dot-kernels: bf16-subnormals must be 'flush' or 'keep' (got 'daz')

// expected-error @+1 {{accel-cpu-dot-kernels: mr must be positive, nr a positive multiple of 16 and kc even and >= 2}}
func.func @bad_options() {
  return
}
