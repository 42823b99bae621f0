// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per #accel.target verifier message. The cost model divides by
// these figures and sizes tiles from them, so nonsense is rejected at parse
// time rather than producing a wrong schedule later.

// expected-error @+1 {{target 'name' must not be empty}}
func.func private @f() attributes {t = #accel.target<name = "", kind = cpu, chip = "x", peak_f32 = 1.0>}

// -----

// expected-error @+1 {{target parameter 'compute_units' must be positive, got 0}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", compute_units = 0, peak_f32 = 1.0>}

// -----

// expected-error @+1 {{target parameter 'clock_ghz' must be positive, got -1}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", clock_ghz = -1.0, peak_f32 = 1.0>}

// -----

// expected-error @+1 {{target parameter 'peak_bf16' must be finite and non-negative, got -2}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, peak_bf16 = -2.0>}

// -----

// expected-error @+1 {{target parameter 'memory_gbps' must be finite and non-negative, got INF}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, memory_gbps = 0x7FF0000000000000>}

// -----

// expected-error @+1 {{target 't' must give at least one positive peak throughput}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x">}

// -----

// expected-error @+1 {{target parameter 'l2_kib' must be non-negative, got -4}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, l2_kib = -4>}

// -----

// expected-error @+1 {{target parameter 'matrix_unit' must have 3 entries [m, n, k], got 2}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, matrix_unit = [16, 16]>}

// -----

// expected-error @+1 {{target parameter 'matrix_unit' entries must be positive, got 0}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, matrix_unit = [16, 0, 1]>}

// -----

// expected-error @+1 {{GPU target 't' needs 'warp_size' 32 or 64, got 16}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = amdgpu, chip = "gfx942", peak_f32 = 1.0, warp_size = 16>}

// -----

// expected-error @+1 {{'warp_size' is only meaningful for GPU targets}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", peak_f32 = 1.0, warp_size = 32>}

// -----

// expected-error @+1 {{nvptx target 't' needs a chip of the form sm_XX, got 'gfx942'}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = nvptx, chip = "gfx942", peak_f32 = 1.0, warp_size = 32>}

// -----

// expected-error @+1 {{amdgpu target 't' needs a chip of the form gfxXXX, got 'sm_90a'}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = amdgpu, chip = "sm_90a", peak_f32 = 1.0, warp_size = 64>}

// -----

// expected-error @+1 {{systolic target 't' needs 'matrix_unit' = [rows, cols, 1]}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = systolic, chip = "gemmini", peak_i8 = 1.0>}

// -----

// expected-error @+1 {{target features must be non-empty strings}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, chip = "x", features = ["avx2", ""], peak_f32 = 1.0>}

// -----

// expected-error @+2 {{expected one of [cpu, nvptx, amdgpu, systolic, model] for kind of hardware, got: tpu}}
// expected-error @+1 {{failed to parse Accel_TargetAttr parameter 'kind'}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = tpu, chip = "x", peak_f32 = 1.0>}

// -----

// expected-error @+1 {{struct is missing required parameter: chip}}
func.func private @f() attributes {t = #accel.target<name = "t", kind = cpu, peak_f32 = 1.0>}
