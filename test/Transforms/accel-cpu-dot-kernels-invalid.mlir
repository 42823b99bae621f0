// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 nr=24}))' -verify-diagnostics
// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 kc=3}))' -verify-diagnostics

// expected-error @+1 {{accel-cpu-dot-kernels: mr must be positive, nr a positive multiple of 16 and kc even and >= 2}}
func.func @bad_options() {
  return
}
