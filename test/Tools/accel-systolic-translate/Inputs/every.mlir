// Three systolic programs that between them use every instruction, every
// operand form and every flag (input of the accel-systolic-translate tests).

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

// Run-time addressing: scalar loads, an mvin through a page register, a
// bounded (transposed, unpacking) mvin, masks that add a register, skips.
systolic.program @paged config #systolic.config<rows = 4, cols = 4, input = bf16, acc = f32, spad_rows = 64, spad_banks = 1, acc_rows = 32, acc_banks = 1, dram_bytes_per_cycle = 4.0, dram_latency = 9, vector_lanes = 4>
    buffers [#systolic.buffer<"pool", arg 0, tensor<3x4x8xbf16>>,
             #systolic.buffer<"table", arg 1, tensor<2x3xi32>>,
             #systolic.buffer<"lens", arg 2, tensor<2xi32>>,
             #systolic.buffer<"w", arg 3, tensor<4x8xi8>>] {
  systolic.sload 2[1] range 0 to 12 -> reg 0
  systolic.sload 1[4] range -2147483648 to 2147483647 -> reg 15
  systolic.mvin 0[4] stride 8 -> spad[0] rows 4 cols 4 page reg 15 stride 32
  systolic.mvin 0[0] stride 8 -> spad[4] rows 4 cols 4 transpose page reg 15 stride 32 bound reg 0 base -4
  systolic.mvin 3[0] stride 16 -> spad[8] rows 4 cols 4 unpack s4 bound reg 0 base 2147483647
  systolic.mvin 3[8] stride 8 -> acc[8] rows 3 cols 4 unpack mask
  systolic.vector mask_keys 0, 0 rows 4 cols 4 offset -5 plus reg 0
  systolic.vector mask_causal 0, 0 rows 4 cols 4 offset 0 plus reg 15
  systolic.skip 2 if reg 0 le 16
  systolic.vector mask_keys 4, 4 rows 1 cols 4 offset 9223372036854775807
  systolic.skip 1 if reg 15 le -9223372036854775808
  systolic.fence
  systolic.ssub reg 0 - reg 15 -> reg 3
  systolic.ssub - reg 3 -> reg 4
  systolic.vector mask_rows 0, 0 rows 4 cols 4 offset -1 plus reg 4
  systolic.vector mask_lower 0, 0 rows 4 cols 4 offset 2
}
