// RUN: accel-opt %s | accel-opt | FileCheck %s
// RUN: accel-opt %s --mlir-print-op-generic | accel-opt | FileCheck %s

// #accel.target round-trips; defaulted parameters are omitted when printed
// and floats print in their shortest form.

// CHECK: module attributes {accel.target = #accel.target<name = "my-gpu", kind = nvptx, chip = "sm_80", features = ["mma.sync", "cp.async"], compute_units = 108, clock_ghz = 1.41, peak_f32 = 19.5, peak_f16 = 312.0, memory_gbps = 2039.0, local_memory_kib = 164, matrix_unit = [16, 8, 16], warp_size = 32>}
module attributes {accel.target = #accel.target<name = "my-gpu", kind = nvptx,
    chip = "sm_80", features = ["mma.sync", "cp.async"], compute_units = 108,
    clock_ghz = 1.41, peak_f32 = 19.5, peak_f16 = 312.0, memory_gbps = 2039.0,
    local_memory_kib = 164, matrix_unit = [16, 8, 16], warp_size = 32>} {
  // CHECK: func.func private @cpu() attributes {target = #accel.target<name = "cpu", kind = cpu, chip = "znver5", peak_f32 = 0.222, memory_gbps = 21000000.0>}
  func.func private @cpu() attributes {target = #accel.target<name = "cpu",
      kind = cpu, chip = "znver5", peak_f32 = 0.222, memory_gbps = 2.1e7>}
  // CHECK: func.func private @array() attributes {target = #accel.target<name = "array", kind = systolic, chip = "gemmini", peak_i8 = 0.512, local_memory_kib = 256, l2_kib = 64, matrix_unit = [16, 16, 1]>}
  func.func private @array() attributes {target = #accel.target<name = "array",
      kind = systolic, chip = "gemmini", peak_i8 = 0.512,
      local_memory_kib = 256, l2_kib = 64, matrix_unit = [16, 16, 1]>}
  // Values that 15 digits cannot hold print with 17, so they parse back
  // bit for bit.
  // CHECK: func.func private @exact() attributes {target = #accel.target<name = "exact", kind = cpu, chip = "x", clock_ghz = 0.30000000000000004, peak_f32 = 12345678901234568.0>}
  func.func private @exact() attributes {target = #accel.target<name = "exact",
      kind = cpu, chip = "x", clock_ghz = 0.30000000000000004,
      peak_f32 = 12345678901234567.0>}
}
