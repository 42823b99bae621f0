// RUN: accel-opt %s --accel-expand-f8-casts | FileCheck %s
// The numbers are checked bit for bit against APFloat in
// test/Integration/CPU/f8-casts.mlir; this is the shape of the expansion.

// f32 -> f8E4M3FN on vectors: the f32 bits, the sign moved to bit 7, the
// normal path (rebias, round to nearest even: + half ulp - 1 + the kept
// bit, >> 20), the subnormal path (an f32 addition of 2^14), NaN above 464.
// CHECK-LABEL: func.func @truncf_vector
// CHECK-SAME: (%[[X:.+]]: vector<16xf32>)
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[SIGNBIT:.+]] = arith.andi %[[BITS]], %{{.+}} : vector<16xi32>
// CHECK: %[[SIGN:.+]] = arith.shrui %[[SIGNBIT]], %{{.+}} : vector<16xi32>
// CHECK: %[[ABS:.+]] = arith.andi %[[BITS]], %{{.+}} : vector<16xi32>
// CHECK: %[[ODD:.+]] = arith.andi %{{.+}}, %{{.+}} : vector<16xi32>
// CHECK: %[[BIASED:.+]] = arith.addi %[[ABS]], %{{.+}} : vector<16xi32>
// CHECK: %[[ROUNDED:.+]] = arith.addi %[[BIASED]], %[[ODD]] : vector<16xi32>
// CHECK: %[[NORMAL:.+]] = arith.shrui %[[ROUNDED]], %{{.+}} : vector<16xi32>
// CHECK: %[[MAGIC:.+]] = arith.constant dense<1.638400e+04> : vector<16xf32>
// CHECK: %[[ALIGNED:.+]] = arith.addf %{{.+}}, %[[MAGIC]] : vector<16xf32>
// CHECK: %[[SUB:.+]] = arith.subi %{{.+}}, %{{.+}} : vector<16xi32>
// CHECK: %[[CODE:.+]] = arith.select %{{.+}}, %[[SUB]], %[[NORMAL]] : vector<16xi1>, vector<16xi32>
// CHECK: %[[PAST464:.+]] = arith.constant dense<1139277825> : vector<16xi32>
// CHECK: %[[OVER:.+]] = arith.cmpi uge, %[[ABS]], %[[PAST464]] : vector<16xi32>
// CHECK: %[[FINAL:.+]] = arith.select %[[OVER]], %{{.+}}, %[[CODE]]
// CHECK: %[[SIGNED:.+]] = arith.ori %[[FINAL]], %[[SIGN]] : vector<16xi32>
// CHECK: %[[I8:.+]] = arith.trunci %[[SIGNED]] : vector<16xi32> to vector<16xi8>
// CHECK: %[[F8:.+]] = arith.bitcast %[[I8]] : vector<16xi8> to vector<16xf8E4M3FN>
// CHECK: return %[[F8]]
func.func @truncf_vector(%x: vector<16xf32>) -> vector<16xf8E4M3FN> {
  %t = arith.truncf %x : vector<16xf32> to vector<16xf8E4M3FN>
  return %t : vector<16xf8E4M3FN>
}

// f8E5M2 overflows to inf (0x7C) and keeps NaN (0x7E) apart.
// CHECK-LABEL: func.func @truncf_e5m2
// CHECK: %[[NAN:.+]] = arith.constant 126 : i32
// CHECK: %[[INF:.+]] = arith.constant 124 : i32
// CHECK: arith.select %{{.+}}, %[[NAN]], %[[INF]] : i32
// CHECK: arith.bitcast %{{.+}} : i8 to f8E5M2
func.func @truncf_e5m2(%x: f32) -> f8E5M2 {
  %t = arith.truncf %x : f32 to f8E5M2
  return %t : f8E5M2
}

// From f16 the value widens to f32 first (exactly).
// CHECK-LABEL: func.func @truncf_from_f16
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.bitcast %[[W]] : f32 to i32
func.func @truncf_from_f16(%x: f16) -> f8E4M3FN {
  %t = arith.truncf %x : f16 to f8E4M3FN
  return %t : f8E4M3FN
}

// f8E5M2 -> f64: decoded to f32 (normal: exponent + 112, mantissa << 21;
// subnormal: mantissa * 2^-16; exponent 31: inf or NaN), then widened.
// CHECK-LABEL: func.func @extf_to_f64
// CHECK: %[[RAW:.+]] = arith.bitcast %{{.+}} : f8E5M2 to i8
// CHECK: arith.extui %[[RAW]] : i8 to i32
// CHECK: %[[SCALED:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[F32:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[F64:.+]] = arith.extf %[[F32]] : f32 to f64
// CHECK: return %[[F64]]
func.func @extf_to_f64(%x: f8E5M2) -> f64 {
  %t = arith.extf %x : f8E5M2 to f64
  return %t : f64
}

// f8E4M3FNUZ: bias 8 (rebias -119 << 23, less 2^19 + 1 for the rounding),
// subnormal spacing 2^-10 (an f32 addition of 2^13), normal from 2^-7; no
// infinity, so 248 and up (and inf, NaN) give the NaN, 0x80, whatever the
// sign; and no -0, so the sign is dropped where the code is 0.
// CHECK-LABEL: func.func @truncf_e4m3fnuz
// CHECK: %[[SIGN:.+]] = arith.shrui %{{.+}}, %{{.+}} : i32
// CHECK: %[[ABS:.+]] = arith.andi %{{.+}}, %{{.+}} : i32
// CHECK: arith.constant -997720065 : i32
// CHECK: %[[MAGIC:.+]] = arith.constant 8.192000e+03 : f32
// CHECK: arith.addf %{{.+}}, %[[MAGIC]] : f32
// CHECK: %[[MINNORMAL:.+]] = arith.constant 1006632960 : i32
// CHECK: arith.cmpi ult, %[[ABS]], %[[MINNORMAL]] : i32
// CHECK: %[[CODE:.+]] = arith.select
// CHECK: %[[NAN:.+]] = arith.constant 128 : i32
// CHECK: %[[FROM248:.+]] = arith.constant 1131937792 : i32
// CHECK: %[[OVER:.+]] = arith.cmpi uge, %[[ABS]], %[[FROM248]] : i32
// CHECK: %[[FINAL:.+]] = arith.select %[[OVER]], %[[NAN]], %[[CODE]] : i32
// CHECK: %[[ZERO:.+]] = arith.cmpi eq, %[[FINAL]], %{{.+}} : i32
// CHECK: %[[KEPT:.+]] = arith.select %[[ZERO]], %{{.+}}, %[[SIGN]] : i32
// CHECK: %[[SIGNED:.+]] = arith.ori %[[FINAL]], %[[KEPT]] : i32
// CHECK: %[[I8:.+]] = arith.trunci %[[SIGNED]] : i32 to i8
// CHECK: arith.bitcast %[[I8]] : i8 to f8E4M3FNUZ
func.func @truncf_e4m3fnuz(%x: f32) -> f8E4M3FNUZ {
  %t = arith.truncf %x : f32 to f8E4M3FNUZ
  return %t : f8E4M3FNUZ
}

// f8E5M2FNUZ: bias 16, subnormal spacing 2^-17 (2^6 added), NaN from
// 61440 on.
// CHECK-LABEL: func.func @truncf_e5m2fnuz
// CHECK: arith.constant dense<6.400000e+01> : vector<4xf32>
// CHECK: arith.constant dense<939524096> : vector<4xi32>
// CHECK: %[[NAN:.+]] = arith.constant dense<128> : vector<4xi32>
// CHECK: %[[FROM61440:.+]] = arith.constant dense<1198522368> : vector<4xi32>
// CHECK: arith.cmpi uge, %{{.+}}, %[[FROM61440]] : vector<4xi32>
// CHECK: arith.select %{{.+}}, %[[NAN]], %{{.+}} : vector<4xi1>, vector<4xi32>
// CHECK: arith.bitcast %{{.+}} : vector<4xi8> to vector<4xf8E5M2FNUZ>
func.func @truncf_e5m2fnuz(%x: vector<4xbf16>) -> vector<4xf8E5M2FNUZ> {
  %t = arith.truncf %x : vector<4xbf16> to vector<4xf8E5M2FNUZ>
  return %t : vector<4xf8E5M2FNUZ>
}

// f8E5M2FNUZ -> f32: exponent + 111, subnormals mantissa * 2^-17, the
// all-ones exponent finite; only the code 0x80 (the -0 pattern) is NaN.
// CHECK-LABEL: func.func @extf_e5m2fnuz
// CHECK: %[[RAW:.+]] = arith.bitcast %{{.+}} : vector<8xf8E5M2FNUZ> to vector<8xi8>
// CHECK: %[[U:.+]] = arith.extui %[[RAW]] : vector<8xi8> to vector<8xi32>
// CHECK: arith.constant dense<111> : vector<8xi32>
// CHECK: arith.constant dense<7.62939453E-6> : vector<8xf32>
// CHECK: %[[BITS:.+]] = arith.select
// CHECK: %[[CODE80:.+]] = arith.constant dense<128> : vector<8xi32>
// CHECK: %[[ISNAN:.+]] = arith.cmpi eq, %[[U]], %[[CODE80]] : vector<8xi32>
// CHECK: %[[QNAN:.+]] = arith.constant dense<2143289344> : vector<8xi32>
// CHECK: arith.select %[[ISNAN]], %[[QNAN]], %[[BITS]] : vector<8xi1>, vector<8xi32>
// CHECK-NOT: arith.cmpi
// CHECK: return
func.func @extf_e5m2fnuz(%x: vector<8xf8E5M2FNUZ>) -> vector<8xf32> {
  %t = arith.extf %x : vector<8xf8E5M2FNUZ> to vector<8xf32>
  return %t : vector<8xf32>
}

// f8E4M3FNUZ -> f16: exponent + 119, subnormals mantissa * 2^-10.
// CHECK-LABEL: func.func @extf_e4m3fnuz
// CHECK: arith.constant 119 : i32
// CHECK: arith.constant 9.765625E-4 : f32
// CHECK: arith.constant 128 : i32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @extf_e4m3fnuz(%x: f8E4M3FNUZ) -> f16 {
  %t = arith.extf %x : f8E4M3FNUZ to f16
  return %t : f16
}

// Left alone: from f64 (it would round twice), other rounding modes, and
// casts that do not involve fp8.
// CHECK-LABEL: func.func @kept
// CHECK: arith.truncf %{{.+}} : f64 to f8E4M3FN
// CHECK: arith.truncf %{{.+}} toward_zero : f32 to f8E4M3FN
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @kept(%x: f64, %y: f32) -> (f8E4M3FN, f8E4M3FN, f16) {
  %a = arith.truncf %x : f64 to f8E4M3FN
  %b = arith.truncf %y toward_zero : f32 to f8E4M3FN
  %c = arith.truncf %y : f32 to f16
  return %a, %b, %c : f8E4M3FN, f8E4M3FN, f16
}
