// RUN: accel-opt %s --accel-attach-target=name=h100 | FileCheck %s --check-prefix=H100
// RUN: accel-opt %s --accel-attach-target=name=mi300x | FileCheck %s --check-prefix=MI300X
// RUN: accel-opt %s --accel-attach-target=name=systolic-16x16 | FileCheck %s --check-prefix=SYSTOLIC
// RUN: accel-opt %s --accel-attach-target | FileCheck %s --check-prefix=DEFAULT
// RUN: accel-opt %s --accel-attach-target=name=h100 --accel-attach-target=name=a100 | FileCheck %s --check-prefix=REPLACE

// The pass puts the catalogue entry on the module; the figures are the
// ones docs/targets.md cites.

// H100: module attributes {accel.target = #accel.target<name = "h100", kind = nvptx, chip = "sm_90a"
// H100-SAME: peak_bf16 = 989.4, peak_f8 = 1978.9
// H100-SAME: local_memory_kib = 228
// H100-SAME: warp_size = 32>

// MI300X: #accel.target<name = "mi300x", kind = amdgpu, chip = "gfx942"
// MI300X-SAME: "fp8-fnuz"
// MI300X-SAME: warp_size = 64>

// SYSTOLIC: #accel.target<name = "systolic-16x16", kind = systolic
// SYSTOLIC-SAME: matrix_unit = [16, 16, 1]

// DEFAULT: #accel.target<name = "x86-64-avx512", kind = cpu, chip = "znver5"
// DEFAULT-SAME: "avx512bf16", "avx512vnni"

// REPLACE: #accel.target<name = "a100"
// REPLACE-NOT: h100

func.func @f() {
  return
}
