// A module's #accel.target that describes a GPU must be the chip compiled
// for and give the figures the kernels are sized by; both GPU passes
// resolve it the same way.
//
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure="chip=sm_80"
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=sm_80"

// expected-error @+1 {{: the module's target 'small-hopper' is sm_90a, not sm_80, the chip compiled for}}
module attributes {accel.target = #accel.target<name = "small-hopper", kind = nvptx, chip = "sm_90a", compute_units = 16, peak_bf16 = 100.0, local_memory_kib = 228, warp_size = 32>} {
}

// -----

// expected-error @+1 {{: the module's target 'no-smem' gives no local_memory_kib (the shared memory of a multiprocessor), which the kernels are sized by}}
module attributes {accel.target = #accel.target<name = "no-smem", kind = nvptx, chip = "sm_80", compute_units = 108, peak_bf16 = 100.0, warp_size = 32>} {
}

// -----

// A CPU target says nothing about the GPU: the catalogue's figures apply.
module attributes {accel.target = #accel.target<name = "host", kind = cpu, chip = "znver4", peak_f32 = 1.0>} {
}

