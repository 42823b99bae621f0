// accel-expand-f8-casts against APFloat, bit for bit: every fp8 value, every
// tie between neighbours and the f32 values an ulp either side, the overflow
// boundary (464 rounds to 448 in f8E4M3FN, above it is NaN; 61440 rounds to
// inf in f8E5M2; the FNUZ formats, without infinities, turn 248 and up
// (f8E4M3FNUZ) or 61440 and up (f8E5M2FNUZ) into their NaN), subnormals,
// infinities and NaN, both signs. Each value is
// cast to fp8 and back; the oracle replays the casts with APFloat (exact
// inputs, so the gate is 0: bit-exact, NaN where NaN).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/f8_cast_values.py e4m3fn %t/e4m3fn.npy
// RUN: %python %S/f8_cast_values.py e5m2 %t/e5m2.npy
// RUN: accel-run %s --repeat=0 --entry=round_trip_e4m3fn --input=%t/e4m3fn.npy | FileCheck %s --check-prefix=E4M3FN
// RUN: accel-run %s --repeat=0 --entry=round_trip_e5m2 --input=%t/e5m2.npy | FileCheck %s --check-prefix=E5M2
// E4M3FN: @round_trip_e4m3fn
// E4M3FN: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// E5M2: @round_trip_e5m2
// E5M2: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// RUN: %python %S/f8_cast_values.py e4m3fnuz %t/e4m3fnuz.npy
// RUN: %python %S/f8_cast_values.py e5m2fnuz %t/e5m2fnuz.npy
// RUN: accel-run %s --repeat=0 --entry=round_trip_e4m3fnuz --input=%t/e4m3fnuz.npy | FileCheck %s --check-prefix=E4M3FNUZ
// RUN: accel-run %s --repeat=0 --entry=round_trip_e5m2fnuz --input=%t/e5m2fnuz.npy | FileCheck %s --check-prefix=E5M2FNUZ
// E4M3FNUZ: @round_trip_e4m3fnuz
// E4M3FNUZ: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// E5M2FNUZ: @round_trip_e5m2fnuz
// E5M2FNUZ: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS

// extf from each of the 256 codes of an FNUZ format: 255 values and the NaN
// (0x80), the argument given as those values (accel-run encodes them with
// APFloat, which gives every code once).
// RUN: %python %S/f8_cast_values.py --codes e4m3fnuz %t/e4m3fnuz.codes.npy
// RUN: %python %S/f8_cast_values.py --codes e5m2fnuz %t/e5m2fnuz.codes.npy
// RUN: accel-run %s --repeat=0 --entry=codes_e4m3fnuz --input=%t/e4m3fnuz.codes.npy | FileCheck %s --check-prefix=CODES-E4M3FNUZ
// RUN: accel-run %s --repeat=0 --entry=codes_e5m2fnuz --input=%t/e5m2fnuz.codes.npy | FileCheck %s --check-prefix=CODES-E5M2FNUZ
// CODES-E4M3FNUZ: @codes_e4m3fnuz
// CODES-E4M3FNUZ: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// CODES-E5M2FNUZ: @codes_e5m2fnuz
// CODES-E5M2FNUZ: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS

// Casts from f16 and bf16 widen to f32 first (exactly).
// RUN: accel-run %s --repeat=0 --entry=from_f16,from_bf16,from_f16_fnuz,from_bf16_fnuz --dist=normal | FileCheck %s --check-prefix=NARROW
// NARROW: @from_f16
// NARROW: worst err/gate 0.000 -> PASS
// NARROW: @from_bf16
// NARROW: worst err/gate 0.000 -> PASS
// NARROW: @from_f16_fnuz
// NARROW: worst err/gate 0.000 -> PASS
// NARROW: @from_bf16_fnuz
// NARROW: worst err/gate 0.000 -> PASS

func.func @round_trip_e4m3fn(%x: tensor<1038xf32>) -> tensor<1038xf32> {
  %e = tensor.empty() : tensor<1038xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1038xf32>) outs(%e : tensor<1038xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to f8E4M3FN
    %w = arith.extf %t : f8E4M3FN to f32
    linalg.yield %w : f32
  } -> tensor<1038xf32>
  return %r : tensor<1038xf32>
}

func.func @round_trip_e5m2(%x: tensor<1014xf32>) -> tensor<1014xf32> {
  %e = tensor.empty() : tensor<1014xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1014xf32>) outs(%e : tensor<1014xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to f8E5M2
    %w = arith.extf %t : f8E5M2 to f32
    linalg.yield %w : f32
  } -> tensor<1014xf32>
  return %r : tensor<1014xf32>
}

func.func @from_f16(%x: tensor<67xf16>) -> tensor<67xf32> {
  %e = tensor.empty() : tensor<67xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<67xf16>) outs(%e : tensor<67xf32>) {
  ^bb0(%a: f16, %o: f32):
    %t = arith.truncf %a : f16 to f8E4M3FN
    %w = arith.extf %t : f8E4M3FN to f32
    linalg.yield %w : f32
  } -> tensor<67xf32>
  return %r : tensor<67xf32>
}

func.func @from_bf16(%x: tensor<67xbf16>) -> tensor<67xf32> {
  %e = tensor.empty() : tensor<67xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<67xbf16>) outs(%e : tensor<67xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %t = arith.truncf %a : bf16 to f8E5M2
    %w = arith.extf %t : f8E5M2 to f32
    linalg.yield %w : f32
  } -> tensor<67xf32>
  return %r : tensor<67xf32>
}

func.func @round_trip_e4m3fnuz(%x: tensor<1046xf32>) -> tensor<1046xf32> {
  %e = tensor.empty() : tensor<1046xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1046xf32>) outs(%e : tensor<1046xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to f8E4M3FNUZ
    %w = arith.extf %t : f8E4M3FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<1046xf32>
  return %r : tensor<1046xf32>
}

func.func @round_trip_e5m2fnuz(%x: tensor<1046xf32>) -> tensor<1046xf32> {
  %e = tensor.empty() : tensor<1046xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<1046xf32>) outs(%e : tensor<1046xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %a : f32 to f8E5M2FNUZ
    %w = arith.extf %t : f8E5M2FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<1046xf32>
  return %r : tensor<1046xf32>
}

func.func @codes_e4m3fnuz(%x: tensor<256xf8E4M3FNUZ>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf8E4M3FNUZ>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f8E4M3FNUZ, %o: f32):
    %w = arith.extf %a : f8E4M3FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

func.func @codes_e5m2fnuz(%x: tensor<256xf8E5M2FNUZ>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf8E5M2FNUZ>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f8E5M2FNUZ, %o: f32):
    %w = arith.extf %a : f8E5M2FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}

func.func @from_f16_fnuz(%x: tensor<67xf16>) -> tensor<67xf32> {
  %e = tensor.empty() : tensor<67xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<67xf16>) outs(%e : tensor<67xf32>) {
  ^bb0(%a: f16, %o: f32):
    %t = arith.truncf %a : f16 to f8E4M3FNUZ
    %w = arith.extf %t : f8E4M3FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<67xf32>
  return %r : tensor<67xf32>
}

func.func @from_bf16_fnuz(%x: tensor<67xbf16>) -> tensor<67xf32> {
  %e = tensor.empty() : tensor<67xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<67xbf16>) outs(%e : tensor<67xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %t = arith.truncf %a : bf16 to f8E5M2FNUZ
    %w = arith.extf %t : f8E5M2FNUZ to f32
    linalg.yield %w : f32
  } -> tensor<67xf32>
  return %r : tensor<67xf32>
}
