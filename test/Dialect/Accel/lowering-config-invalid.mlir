// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per #accel.lowering_config verifier message: what needs no
// target is rejected when the attribute is parsed; the chip's rules are the
// conversion's (test/Conversion/AccelToGPU/invalid-lowering-config.mlir).

// expected-error @+1 {{lowering_config 'kernel' must be mma.sync, wgmma, mfma, wmma, fma, systolic, cpu-fma, cpu-avx512bf16, cpu-avx512vnni, cpu-amx-bf16, cpu-amx-int8, cpu-flash, cpu-flash-amx, cpu-paged-flash, cpu-dequant, cpu-dequant-lut, cpu-dequant-amx, cpu-row-dot or cpu-loops, got 'tpu'}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "tpu">}

// -----

// expected-error @+1 {{lowering_config 'tile' must have 2 or 3 entries, got 4}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64, 32, 1]>}

// -----

// expected-error @+1 {{lowering_config 'tile' entries must be positive, got 0}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "mma.sync", tile = [64, 0, 32]>}

// -----

// expected-error @+1 {{lowering_config 'warps' must have 1 or 2 entries, got 3}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "mma.sync", warps = [2, 2, 2]>}

// -----

// expected-error @+1 {{lowering_config 'mma' must have 3 entries, got 2}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "mma.sync", mma = [16, 8]>}

// -----

// expected-error @+1 {{lowering_config 'stages' must not be negative, got -1}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "mma.sync", stages = -1>}

// -----

// expected-error @+1 {{lowering_config 'dataflow' applies to the systolic kernel only, not wgmma}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "wgmma", dataflow = "ws">}

// -----

// expected-error @+1 {{lowering_config 'dataflow' must be ws, os or is, got 'rs'}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "systolic", dataflow = "rs">}

// -----

// expected-error @+1 {{lowering_config of the systolic kernel takes no warps or mma (the array has none)}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "systolic", warps = [2, 2]>}

// -----

// expected-error @+1 {{lowering_config of the systolic kernel takes stages 0 to 2 (buffers of a matmul's C blocks in the accumulator; 0: 2), got 3}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "systolic", stages = 3>}

// -----

// A CPU cache tile of 0 leaves its dimension whole; a negative one is refused.
// expected-error @+1 {{lowering_config 'tile' entries must not be negative, got -1}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 0, -1]>}

// -----

// expected-error @+1 {{lowering_config of a CPU kernel takes no warps or stages (its register tile is 'mma')}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 0, 1024], stages = 2>}

// -----

// A paged attention's mma is P · V's register tile [rows, columns].
// expected-error @+1 {{lowering_config 'mma' must have 2 entries, got 3}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "cpu-paged-flash", tile = [1, 1], mma = [4, 64, 1]>}

// -----

// Every other kernel's mma has 3 entries.
// expected-error @+1 {{lowering_config 'mma' must have 3 entries, got 2}}
func.func private @f() attributes {c = #accel.lowering_config<kernel = "cpu-fma", tile = [0, 0, 0], mma = [4, 64]>}
