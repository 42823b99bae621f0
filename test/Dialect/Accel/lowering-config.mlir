// RUN: accel-opt %s | accel-opt | FileCheck %s
// RUN: accel-opt %s --mlir-print-op-generic | accel-opt | FileCheck %s

// #accel.lowering_config round-trips; fields left out stay out.

// CHECK-LABEL: func.func private @gpu
// CHECK-SAME: c = #accel.lowering_config<kernel = "wgmma", tile = [128, 256, 64], warps = [8, 1], mma = [64, 256, 16], stages = 4>
func.func private @gpu() attributes {c = #accel.lowering_config<kernel = "wgmma", tile = [128, 256, 64], warps = [8, 1], mma = [64, 256, 16], stages = 4>}

// CHECK-LABEL: func.func private @kernel_only
// CHECK-SAME: c = #accel.lowering_config<kernel = "mfma">
func.func private @kernel_only() attributes {c = #accel.lowering_config<kernel = "mfma">}

// CHECK-LABEL: func.func private @systolic
// CHECK-SAME: c = #accel.lowering_config<kernel = "systolic", tile = [64, 32, 48], dataflow = "os">
func.func private @systolic() attributes {c = #accel.lowering_config<kernel = "systolic", tile = [64, 32, 48], dataflow = "os">}
