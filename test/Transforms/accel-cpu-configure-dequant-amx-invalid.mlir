// A written cpu-dequant-amx the CPU or the op cannot follow is refused where
// it is written.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16" -verify-diagnostics
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16" 2>&1 | FileCheck %s --check-prefix=NOAMX
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16 bf16-subnormals=keep" 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,amx-tile,amx-bf16" 2>&1 | FileCheck %s --check-prefix=NOBW
// NOAMX: accel-cpu-configure-dequant-amx-invalid.mlir:[[#@LINE+7]]:8: error: 'accel.dequant_matmul' op cannot use cpu-dequant-amx: the CPU has no amx-tile
// KEEP: accel-cpu-configure-dequant-amx-invalid.mlir:[[#@LINE+6]]:8: error: 'accel.dequant_matmul' op cannot use cpu-dequant-amx: it takes bf16 activations (and bf16-subnormals=flush)
// NOBW: accel-cpu-configure-dequant-amx-invalid.mlir:[[#@LINE+5]]:8: error: 'accel.dequant_matmul' op cannot use cpu-dequant-amx: the CPU has no avx512bw (vpermw, 16-bit lanes)

// Accepted on a CPU with AMX (this split expects nothing there).
func.func @on_amx(%x: tensor<16x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                  %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @f32_activations(%x: tensor<16x64xf32>, %w: tensor<16x32xi8>, %s: tensor<16x2xf32>,
                           %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant-amx: it takes bf16 activations (and bf16-subnormals=flush)}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xf32>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xf32>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @f16_activations(%x: tensor<16x64xf16>, %w: tensor<16x64xi8>, %s: tensor<16x2xf16>,
                           %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant-amx: it takes bf16 activations (and bf16-subnormals=flush)}}
  %0 = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<16x64xf16>, tensor<16x64xi8>)
         scales(%s : tensor<16x2xf16>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @no_tile(%x: tensor<16x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                   %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{a cpu-dequant-amx config takes an mma [mr, nr, 32] and a tile [rows, 16]}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @tile_columns(%x: tensor<16x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                        %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant-amx: its tile is [rows from which the AMX kernel runs (at least 1), 16 weight rows a tile], got [4, 32]}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [4, 32], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
