// RUN: accel-opt %s --accel-attach-target=name=h100 | FileCheck %s --check-prefix=CHECK-H100
// RUN: accel-opt %s --accel-attach-target=name=mi300x | FileCheck %s --check-prefix=CHECK-MI300X
// RUN: accel-opt %s --accel-attach-target=name=systolic-16x16 | FileCheck %s --check-prefix=CHECK-SYSTOLIC
// RUN: accel-opt %s --accel-attach-target | FileCheck %s --check-prefix=CHECK-DEFAULT
// RUN: accel-opt %s --accel-attach-target=name=h100 --accel-attach-target=name=a100 | FileCheck %s --check-prefix=CHECK-REPLACE

// The pass puts the catalogue entry on the module; the figures are the
// ones docs/targets.md cites.

// CHECK-H100: module attributes {accel.target = #accel.target<name = "h100", kind = nvptx, chip = "sm_90a"
// CHECK-H100-SAME: peak_bf16 = 989.4, peak_f8 = 1978.9
// CHECK-H100-SAME: local_memory_kib = 228
// CHECK-H100-SAME: warp_size = 32>

// CHECK-MI300X: #accel.target<name = "mi300x", kind = amdgpu, chip = "gfx942"
// CHECK-MI300X-SAME: "fp8-fnuz"
// CHECK-MI300X-SAME: warp_size = 64>

// CHECK-SYSTOLIC: #accel.target<name = "systolic-16x16", kind = systolic
// CHECK-SYSTOLIC-SAME: matrix_unit = [16, 16, 1]

// CHECK-DEFAULT: #accel.target<name = "x86-64-avx512", kind = cpu, chip = "znver5"
// CHECK-DEFAULT-SAME: "avx512bf16", "avx512vnni"

// CHECK-REPLACE: #accel.target<name = "a100"
// CHECK-REPLACE-NOT: h100

func.func @f() {
  return
}
