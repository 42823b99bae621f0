// RUN: accel-opt %s | accel-opt | FileCheck %s --strict-whitespace
// RUN: accel-opt %s --mlir-print-op-generic | accel-opt | FileCheck %s
// RUN: accel-opt %s --emit-bytecode | accel-opt --allow-bytecode | FileCheck %s

// Every systolic op form, operand and flag parses, verifies and prints back
// in the custom form (through the generic form and bytecode too). The enum
// keywords print with one space before them.

// CHECK-LABEL: systolic.program @every
// CHECK-SAME: config <rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.5, dram_latency = 7, vector_lanes = 4> buffers [#systolic.buffer<"x", arg 0, tensor<8x8xf32>>, #systolic.buffer<"w-1", arg 1, tensor<4x8xf32>>, #systolic.buffer<"bias", arg 2, tensor<1x8xbf16>>, #systolic.buffer<"out", result 0, tensor<8x8xbf16>>, #systolic.buffer<"tmp_0.s", scratch 0, tensor<64xf32>>] {
// CHECK-NEXT: systolic.config ws
// CHECK-NEXT: systolic.mvin 0[0] stride 8 -> spad[0] rows 8 cols 4
// CHECK-NEXT: systolic.mvin 1[0] stride 8 -> spad[8] rows 4 cols 8
// CHECK-NEXT: systolic.mvin 2[0] stride 0 -> acc[0] rows 8 cols 8
// CHECK-NEXT: systolic.preload weights spad[8] to acc[0] m 8 k 4 n 8 accumulate
// CHECK-NEXT: systolic.compute preloaded spad[0] m 8 k 4 n 8
// CHECK-NEXT: systolic.preload to acc[8] m 8 k 4 n 8
// CHECK-NEXT: systolic.mvin 0[4] stride 8 -> spad[16] rows 8 cols 4
// CHECK-NEXT: systolic.compute spad[16] m 8 k 4 n 8
// CHECK-NEXT: systolic.config os
// CHECK-NEXT: systolic.mvin 0[0] stride 8 -> spad[24] rows 4 cols 8 transpose
// CHECK-NEXT: systolic.preload to acc[16] m 4 k 0 n 8
// CHECK-NEXT: systolic.mvout acc[8] rows 8 cols 8 -> 4[0] stride 8
// CHECK-NEXT: systolic.compute preloaded spad[24] times spad[8] m 4 k 4 n 8
// CHECK-NEXT: systolic.compute spad[28] times spad[8] m 4 k 8 n 8
// CHECK-NEXT: systolic.fence
// CHECK-NEXT: systolic.vector fill 24, 0 rows 4 cols 8 imm 0xFF800000
// CHECK-NEXT: systolic.vector copy 24, 0 rows 4 cols 8
// CHECK-NEXT: systolic.vector copy to_spad 40, 0 rows 4 cols 8
// CHECK-NEXT: systolic.vector add 0, 0, 8 rows 8 cols 8
// CHECK-NEXT: systolic.vector sub 0, 0, 24 rows 4 cols 8 bcast row inf_is_zero
// CHECK-NEXT: systolic.vector mul 0, 0 rows 8 cols 8 bcast scalar imm 1.250000e-01
// CHECK-NEXT: systolic.vector div 0, 0, 8 rows 8 cols 8 inf_is_zero
// CHECK-NEXT: systolic.vector max 0, 0, 8 rows 8 cols 3
// CHECK-NEXT: systolic.vector exp 0, 0 rows 8 cols 8
// CHECK-NEXT: systolic.vector rowmax 28, 0 rows 4 cols 8 accumulate
// CHECK-NEXT: systolic.vector rowsum 28, 0 rows 4 cols 8
// CHECK-NEXT: systolic.vector mask_causal 0, 0 rows 8 cols 8 offset -3
// CHECK-NEXT: systolic.vector fill 0, 0 rows 1 cols 1 imm -0.000000e+00
// CHECK-NEXT: systolic.mvout acc[0] rows 8 cols 8 -> 3[0] stride 8
// CHECK-NEXT: systolic.mvout acc[16] rows 4 cols 8 -> 4[0] stride 4 transpose
// CHECK-NEXT: systolic.mvout spad[40] rows 4 cols 8 -> 4[32] stride 8
// CHECK-NEXT: systolic.mvin 4[0] stride 8 -> acc[24] rows 1 cols 8
// CHECK-NEXT: }

// f32 inputs: the vector unit, both dataflows, bf16 <-> f32 accumulator
// moves, transposed mvin/mvout.
systolic.program @every config #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.5, dram_latency = 7, vector_lanes = 4>
    buffers [#systolic.buffer<"x", arg 0, tensor<8x8xf32>>,
             #systolic.buffer<"w-1", arg 1, tensor<4x8xf32>>,
             #systolic.buffer<"bias", arg 2, tensor<1x8xbf16>>,
             #systolic.buffer<"out", result 0, tensor<8x8xbf16>>,
             #systolic.buffer<"tmp_0.s", scratch 0, tensor<64xf32>>] {
  systolic.config ws
  systolic.mvin 0[0] stride 8 -> spad[0] rows 8 cols 4
  systolic.mvin 1[0] stride 8 -> spad[8] rows 4 cols 8
  systolic.mvin 2[0] stride 0 -> acc[0] rows 8 cols 8
  systolic.preload weights spad[8] to acc[0] m 8 k 4 n 8 accumulate
  systolic.compute preloaded spad[0] m 8 k 4 n 8
  systolic.preload to acc[8] m 8 k 4 n 8
  systolic.mvin 0[4] stride 8 -> spad[16] rows 8 cols 4
  systolic.compute spad[16] m 8 k 4 n 8
  systolic.config os
  systolic.mvin 0[0] stride 8 -> spad[24] rows 4 cols 8 transpose
  systolic.preload to acc[16] m 4 k 0 n 8
  systolic.mvout acc[8] rows 8 cols 8 -> 4[0] stride 8
  systolic.compute preloaded spad[24] times spad[8] m 4 k 4 n 8
  systolic.compute spad[28] times spad[8] m 4 k 8 n 8
  systolic.fence
  systolic.vector fill 24, 0 rows 4 cols 8 imm 0xFF800000
  systolic.vector copy 24, 0 rows 4 cols 8
  systolic.vector copy to_spad 40, 0 rows 4 cols 8
  systolic.vector add 0, 0, 8 rows 8 cols 8
  systolic.vector sub 0, 0, 24 rows 4 cols 8 bcast row inf_is_zero
  systolic.vector mul 0, 0 rows 8 cols 8 bcast scalar imm 1.250000e-01
  systolic.vector div 0, 0, 8 rows 8 cols 8 inf_is_zero
  systolic.vector max 0, 0, 8 rows 8 cols 3
  systolic.vector exp 0, 0 rows 8 cols 8
  systolic.vector rowmax 28, 0 rows 4 cols 8 accumulate
  systolic.vector rowsum 28, 0 rows 4 cols 8
  systolic.vector mask_causal 0, 0 rows 8 cols 8 offset -3
  systolic.vector fill 0, 0 rows 1 cols 1 imm -0.000000e+00
  systolic.mvout acc[0] rows 8 cols 8 -> 3[0] stride 8
  systolic.mvout acc[16] rows 4 cols 8 -> 4[0] stride 4 transpose
  systolic.mvout spad[40] rows 4 cols 8 -> 4[32] stride 8
  systolic.mvin 4[0] stride 8 -> acc[24] rows 1 cols 8
}

// CHECK-LABEL: systolic.program @int8
// CHECK-SAME: config <rows = 16, cols = 16, input = i8, acc = i32, spad_rows = 256, spad_banks = 1, acc_rows = 64, acc_banks = 1, dram_bytes_per_cycle = 0.1, dram_latency = 0, vector_lanes = 1> buffers [#systolic.buffer<"a", arg 0, tensor<16x32xi8>>, #systolic.buffer<"b", arg 1, tensor<32x16xi8>>, #systolic.buffer<"bias", arg 2, tensor<16x16xi32>>, #systolic.buffer<"c", result 0, tensor<16x16xi8>>, #systolic.buffer<"c32", result 1, tensor<16x16xi32>>] {
// CHECK-NEXT: systolic.config ws
// CHECK-NEXT: systolic.mvin 2[0] stride 16 -> acc[0] rows 16 cols 16
// CHECK-NEXT: systolic.mvin 0[0] stride 32 -> spad[0] rows 16 cols 16
// CHECK-NEXT: systolic.mvin 0[16] stride 32 -> spad[16] rows 16 cols 16
// CHECK-NEXT: systolic.mvin 1[0] stride 16 -> spad[32] rows 16 cols 16
// CHECK-NEXT: systolic.mvin 1[256] stride 16 -> spad[48] rows 16 cols 16
// CHECK-NEXT: systolic.preload weights spad[32] to acc[0] m 16 k 16 n 16 accumulate
// CHECK-NEXT: systolic.compute preloaded spad[0] m 16 k 16 n 16
// CHECK-NEXT: systolic.preload weights spad[48] to acc[0] m 16 k 16 n 16 accumulate
// CHECK-NEXT: systolic.compute preloaded spad[16] m 16 k 16 n 16
// CHECK-NEXT: systolic.mvout acc[0] rows 16 cols 16 -> 3[0] stride 16
// CHECK-NEXT: systolic.mvout acc[0] rows 16 cols 16 -> 4[0] stride 16
// CHECK-NEXT: systolic.mvout spad[0] rows 16 cols 16 -> 0[0] stride 32
// CHECK-NEXT: }
// i8 inputs: i8 -> i32 accumulation, an i32 bias, i32 -> i8 (saturating)
// and i32 results, a dram bandwidth that is not a short decimal.
systolic.program @int8 config #systolic.config<rows = 16, cols = 16, input = i8, acc = i32, spad_rows = 256, spad_banks = 1, acc_rows = 64, acc_banks = 1, dram_bytes_per_cycle = 0.1, dram_latency = 0, vector_lanes = 1>
    buffers [#systolic.buffer<"a", arg 0, tensor<16x32xi8>>,
             #systolic.buffer<"b", arg 1, tensor<32x16xi8>>,
             #systolic.buffer<"bias", arg 2, tensor<16x16xi32>>,
             #systolic.buffer<"c", result 0, tensor<16x16xi8>>,
             #systolic.buffer<"c32", result 1, tensor<16x16xi32>>] {
  systolic.config ws
  systolic.mvin 2[0] stride 16 -> acc[0] rows 16 cols 16
  systolic.mvin 0[0] stride 32 -> spad[0] rows 16 cols 16
  systolic.mvin 0[16] stride 32 -> spad[16] rows 16 cols 16
  systolic.mvin 1[0] stride 16 -> spad[32] rows 16 cols 16
  systolic.mvin 1[256] stride 16 -> spad[48] rows 16 cols 16
  systolic.preload weights spad[32] to acc[0] m 16 k 16 n 16 accumulate
  systolic.compute preloaded spad[0] m 16 k 16 n 16
  systolic.preload weights spad[48] to acc[0] m 16 k 16 n 16 accumulate
  systolic.compute preloaded spad[16] m 16 k 16 n 16
  systolic.mvout acc[0] rows 16 cols 16 -> 3[0] stride 16
  systolic.mvout acc[0] rows 16 cols 16 -> 4[0] stride 16
  systolic.mvout spad[0] rows 16 cols 16 -> 0[0] stride 32
}

// Unpacking an i8 buffer's bytes as integers (weight-only quantised
// weights) into a bf16 scratchpad and the f32 accumulator, and as booleans
// (an attention's keep-mask: 0 or -inf); 4-bit offsets
// and strides count nibbles (the 4x16 block of nibbles from nibble 191
// ends at 255 of the 256 the 128 bytes hold).
// CHECK-LABEL: systolic.program @unpack
// CHECK-NEXT: systolic.mvin 0[0] stride 32 -> spad[0] rows 4 cols 16 unpack s8
// CHECK-NEXT: systolic.mvin 0[0] stride 8 -> spad[4] rows 4 cols 16 transpose unpack u8
// CHECK-NEXT: systolic.mvin 0[191] stride 16 -> acc[0] rows 4 cols 16 unpack s4
// CHECK-NEXT: systolic.mvin 0[1] stride 64 -> acc[4] rows 4 cols 4 transpose unpack u4
// CHECK-NEXT: systolic.mvin 0[32] stride 32 -> acc[8] rows 2 cols 16 unpack mask
// CHECK-NEXT: }
// CHECK-NEXT: }
systolic.program @unpack config #systolic.config<rows = 16, cols = 16, input = bf16, acc = f32, spad_rows = 64, spad_banks = 1, acc_rows = 64, acc_banks = 1, dram_bytes_per_cycle = 16.0, dram_latency = 10, vector_lanes = 16>
    buffers [#systolic.buffer<"w", arg 0, tensor<4x32xi8>>] {
  systolic.mvin 0[0] stride 32 -> spad[0] rows 4 cols 16 unpack s8
  systolic.mvin 0[0] stride 8 -> spad[4] rows 4 cols 16 transpose unpack u8
  systolic.mvin 0[191] stride 16 -> acc[0] rows 4 cols 16 unpack s4
  systolic.mvin 0[1] stride 64 -> acc[4] rows 4 cols 4 transpose unpack u4
  systolic.mvin 0[32] stride 32 -> acc[8] rows 2 cols 16 unpack mask
}
