// The CPU pipeline's LLVM dialect is target-neutral: it translates to LLVM IR
// and compiles for x86-64 with AVX-512 (zmm FMAs) and, compile-only, for
// AArch64 with NEON (fmla), checked with llc.
// RUN: accel-opt %s --accel-cpu-pipeline | mlir-translate --mlir-to-llvmir | llc -O3 -mtriple=x86_64-linux-gnu -mcpu=znver4 -o - | FileCheck %s --check-prefix=CHECK-X86
// RUN: accel-opt %s --accel-cpu-pipeline | mlir-translate --mlir-to-llvmir | llc -O3 -mtriple=aarch64-linux-gnu -mattr=+neon -o - | FileCheck %s --check-prefix=CHECK-ARM
// RUN: accel-opt %s --accel-cpu-pipeline="threads=2" | mlir-translate --mlir-to-llvmir | llc -O3 -mtriple=aarch64-linux-gnu -mattr=+neon -o - | FileCheck %s --check-prefix=CHECK-ARM-OMP

// CHECK-X86-LABEL: mm:
// CHECK-X86: vfmadd{{[0-9]+}}ps {{.*}}%zmm

// CHECK-ARM-LABEL: mm:
// CHECK-ARM: fmla v{{[0-9]+}}.4s

// CHECK-ARM-OMP: __kmpc_fork_call
func.func @mm(%a: tensor<512x96xf32>, %b: tensor<96x256xf32>, %c: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<512x96xf32>, tensor<96x256xf32>) outs(%c : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}
