// RUN: accel-opt %s --accel-expand-bf16-casts | FileCheck %s
// RUN: accel-opt %s --accel-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// f32 -> bf16 on scalars and vectors becomes integer rounding on the f32
// bit pattern (round to nearest even: the bias 0x7FFF plus the kept lsb,
// then the top 16 bits), with NaN selected apart; bf16 -> f32 a shift. No
// float cast is left for LLVM to turn into vcvtneps2bf16, which flushes
// subnormal results on AVX512-BF16 hosts (docs/bad-input-catalogue.md, F3;
// test/Tools/accel-run/subnormal-values.test runs it).
// CHECK-LABEL: func @round
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.+}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.trunci %{{.+}} : i32 to i16
// CHECK: arith.bitcast %{{.+}} : i16 to bf16
// CHECK: arith.bitcast %{{.+}} : vector<16xf32> to vector<16xi32>
// CHECK: arith.trunci %{{.+}} : vector<16xi32> to vector<16xi16>
// CHECK: arith.bitcast %{{.+}} : vector<16xi16> to vector<16xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return
// LLVM-LABEL: llvm.func @round
// LLVM-NOT: llvm.fptrunc
// LLVM: llvm.return
func.func @round(%x: f32, %v: vector<16xf32>) -> (bf16, vector<16xbf16>) {
  %a = arith.truncf %x : f32 to bf16
  %b = arith.truncf %v : vector<16xf32> to vector<16xbf16>
  return %a, %b : bf16, vector<16xbf16>
}

// A truncation marked accel.bf16_flush (cpu-flash-amx's P, compiled with
// bf16-subnormals=flush) stays a float cast, for vcvtneps2bf16.
// CHECK-LABEL: func @flush_allowed
// CHECK: arith.truncf %{{.+}} {accel.bf16_flush} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT: arith.trunci
// CHECK: return
// LLVM-LABEL: llvm.func @flush_allowed
// LLVM: llvm.fptrunc %{{.+}} : vector<16xf32> to vector<16xbf16>
func.func @flush_allowed(%v: vector<16xf32>) -> vector<16xbf16> {
  %b = arith.truncf %v {accel.bf16_flush} : vector<16xf32> to vector<16xbf16>
  return %b : vector<16xbf16>
}

// CHECK-LABEL: func @widen
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast %{{.+}} : vector<16xbf16> to vector<16xi16>
// CHECK: arith.extui
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.+}} : vector<16xi32> to vector<16xf32>
// LLVM-LABEL: llvm.func @widen
// LLVM-NOT: llvm.fpext
// LLVM: llvm.return
func.func @widen(%v: vector<16xbf16>) -> vector<16xf32> {
  %w = arith.extf %v : vector<16xbf16> to vector<16xf32>
  return %w : vector<16xf32>
}

// Other casts are left alone, for LLVM (f16 has no such flush).
// CHECK-LABEL: func @half
// CHECK: arith.truncf %{{.+}} : vector<16xf32> to vector<16xf16>
func.func @half(%v: vector<16xf32>) -> vector<16xf16> {
  %h = arith.truncf %v : vector<16xf32> to vector<16xf16>
  return %h : vector<16xf16>
}
