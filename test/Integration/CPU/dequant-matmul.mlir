// accel.dequant_matmul on the CPU against the fp64 oracle (which
// dequantises each weight by the op's rule, bit-exactly, and gates the sum
// as an f32 matmul of A and those weights), with NaN-prefilled outputs:
// the table kernel (int4 on AVX-512) and the converting one (int8, and int4
// without AVX-512), the 1 x 8, 2 x 8 and 4 x 4 tiles with their remainder
// rows of A and of W, f32/f16/bf16 activations, scales and outputs, signed
// and unsigned weights with and without zero points, batch dimensions, one
// and two threads, and the reference loops where K or the group is not a
// multiple of 32. --dist=exact (integers in [-2, 2]): the results must be
// bit-exact. accel-run draws zero points as integers in the weights' range
// (as quantisers make them); @computed_zero_points_* compute theirs (not
// integers, or out of range with --dist=exact). On a CPU with AMX, bf16
// activations from 3 rows run on the tiles (test/Integration/CPU/dequant-amx.mlir):
// the AVX-512 run without AMX below keeps the table and converting tiles
// covered there (on a CPU with AVX-512: the JIT compiles for the host).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=5 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options="cpu-features=avx2,fma" --seed=7 | FileCheck %s
// RUN: %if cpu-avx512 %{ accel-run %s --repeat=0 --cpu-pipeline-options="cpu-features=avx512f,avx512bw,avx512vl" --seed=9 | FileCheck %s %}
// The kernels that ran: the table on AVX-512, the converting one without.
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=avx512f,avx512bw,avx512vl" | FileCheck %s --check-prefix=IR
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=avx2,fma" | FileCheck %s --check-prefix=IR-AVX2
// IR: llvm.x86.avx512.permvar.sf.512
// IR-AVX2-NOT: llvm.x86.avx512.permvar.sf.512

// CHECK-LABEL: @gemv_int4_zp
// CHECK: PASS
// CHECK-LABEL: @gemv_int4_signed
// CHECK: PASS
// CHECK-LABEL: @rows3_int4
// CHECK: PASS
// CHECK-LABEL: @rows5_int4_f16
// CHECK: PASS
// CHECK-LABEL: @batched_int4
// CHECK: PASS
// CHECK-LABEL: @gemv_int8
// CHECK: PASS
// CHECK-LABEL: @rows4_int8_zp
// CHECK: PASS
// CHECK-LABEL: @small_group
// CHECK: PASS
// CHECK-LABEL: @computed_zero_points_int4
// CHECK: PASS
// CHECK-LABEL: @computed_zero_points_int8
// CHECK: PASS
// CHECK: accel-run: 10 of 10 functions passed

// One row (1 x 8 tiles): 4 whole tiles of weight rows and 5 rows after them.
func.func @gemv_int4_zp(%x: tensor<1x512xbf16>, %w: tensor<37x256xi8>, %s: tensor<37x4xbf16>, %z: tensor<37x4xbf16>, %c: tensor<1x37xf32>) -> tensor<1x37xf32> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<1x512xbf16>, tensor<37x256xi8>)
         scales(%s : tensor<37x4xbf16>)
         zero_points(%z : tensor<37x4xbf16>)
         outs(%c : tensor<1x37xf32>) -> tensor<1x37xf32>
  return %y : tensor<1x37xf32>
}



// Signed int4, no zero points, f32 everything.
func.func @gemv_int4_signed(%x: tensor<1x256xf32>, %w: tensor<16x128xi8>, %s: tensor<16x4xf32>, %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %y = accel.dequant_matmul bits(4) group(64)
         ins(%x, %w : tensor<1x256xf32>, tensor<16x128xi8>)
         scales(%s : tensor<16x4xf32>)
         outs(%c : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}



// Three rows (2 x 8 and a remainder row), C rounded to bf16.
func.func @rows3_int4(%x: tensor<3x256xbf16>, %w: tensor<21x128xi8>, %s: tensor<21x8xbf16>, %c: tensor<3x21xbf16>) -> tensor<3x21xbf16> {
  %y = accel.dequant_matmul bits(4) group(32) unsigned
         ins(%x, %w : tensor<3x256xbf16>, tensor<21x128xi8>)
         scales(%s : tensor<21x8xbf16>)
         outs(%c : tensor<3x21xbf16>) -> tensor<3x21xbf16>
  return %y : tensor<3x21xbf16>
}



// Five rows (4 x 4 and a remainder row), f16, per-channel group = K.
func.func @rows5_int4_f16(%x: tensor<5x128xf16>, %w: tensor<19x64xi8>, %s: tensor<19x1xf16>, %z: tensor<19x1xf16>, %c: tensor<5x19xf16>) -> tensor<5x19xf16> {
  %y = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<5x128xf16>, tensor<19x64xi8>)
         scales(%s : tensor<19x1xf16>)
         zero_points(%z : tensor<19x1xf16>)
         outs(%c : tensor<5x19xf16>) -> tensor<5x19xf16>
  return %y : tensor<5x19xf16>
}



// Batch dimensions folded into M.
func.func @batched_int4(%x: tensor<2x3x64xbf16>, %w: tensor<12x32xi8>, %s: tensor<12x2xf32>, %z: tensor<12x2xf32>, %c: tensor<2x3x12xf32>) -> tensor<2x3x12xf32> {
  %y = accel.dequant_matmul bits(4) group(32) unsigned
         ins(%x, %w : tensor<2x3x64xbf16>, tensor<12x32xi8>)
         scales(%s : tensor<12x2xf32>)
         zero_points(%z : tensor<12x2xf32>)
         outs(%c : tensor<2x3x12xf32>) -> tensor<2x3x12xf32>
  return %y : tensor<2x3x12xf32>
}



// int8 (the converting kernel), signed.
func.func @gemv_int8(%x: tensor<1x256xbf16>, %w: tensor<13x256xi8>, %s: tensor<13x2xbf16>, %c: tensor<1x13xf32>) -> tensor<1x13xf32> {
  %y = accel.dequant_matmul bits(8) group(128)
         ins(%x, %w : tensor<1x256xbf16>, tensor<13x256xi8>)
         scales(%s : tensor<13x2xbf16>)
         outs(%c : tensor<1x13xf32>) -> tensor<1x13xf32>
  return %y : tensor<1x13xf32>
}



// int8 unsigned with zero points, f16 scales.
func.func @rows4_int8_zp(%x: tensor<4x128xf32>, %w: tensor<17x128xi8>, %s: tensor<17x2xf16>, %z: tensor<17x2xf16>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %y = accel.dequant_matmul bits(8) group(64) unsigned
         ins(%x, %w : tensor<4x128xf32>, tensor<17x128xi8>)
         scales(%s : tensor<17x2xf16>)
         zero_points(%z : tensor<17x2xf16>)
         outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %y : tensor<4x17xf32>
}



// A group of 6 and K = 60: not whole 32-chunks, the reference loops.
func.func @small_group(%x: tensor<2x60xf32>, %w: tensor<5x30xi8>, %s: tensor<5x10xf32>, %z: tensor<5x10xf32>) -> tensor<2x5xf32> {
  %c = tensor.empty() : tensor<2x5xf32>
  %y = accel.dequant_matmul bits(4) group(6) unsigned
         ins(%x, %w : tensor<2x60xf32>, tensor<5x30xi8>)
         scales(%s : tensor<5x10xf32>)
         zero_points(%z : tensor<5x10xf32>)
         outs(%c : tensor<2x5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}


// Zero points computed (z = 2 zi, zi drawn as other inputs): fractions, or
// with --dist=exact integers in [-4, 4], some past the weights' range.
func.func @computed_zero_points_int4(%x: tensor<4x256xbf16>, %w: tensor<24x128xi8>, %s: tensor<24x2xbf16>,
                                     %zi: tensor<24x2xbf16>, %c: tensor<4x24xf32>) -> tensor<4x24xf32> {
  %two = arith.constant dense<2.0> : tensor<24x2xbf16>
  %z = arith.mulf %zi, %two : tensor<24x2xbf16>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<4x256xbf16>, tensor<24x128xi8>)
         scales(%s : tensor<24x2xbf16>) zero_points(%z : tensor<24x2xbf16>)
         outs(%c : tensor<4x24xf32>) -> tensor<4x24xf32>
  return %y : tensor<4x24xf32>
}

func.func @computed_zero_points_int8(%x: tensor<2x128xf32>, %w: tensor<9x128xi8>, %s: tensor<9x4xf32>,
                                     %zi: tensor<9x4xf32>, %c: tensor<2x9xf32>) -> tensor<2x9xf32> {
  %two = arith.constant dense<2.0> : tensor<9x4xf32>
  %z = arith.mulf %zi, %two : tensor<9x4xf32>
  %y = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<2x128xf32>, tensor<9x128xi8>)
         scales(%s : tensor<9x4xf32>) zero_points(%z : tensor<9x4xf32>)
         outs(%c : tensor<2x9xf32>) -> tensor<2x9xf32>
  return %y : tensor<2x9xf32>
}
