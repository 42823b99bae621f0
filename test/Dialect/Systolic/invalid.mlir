// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the systolic dialect (machine, buffers,
// program, and each instruction against the machine, the buffers and the
// dataflow state). The machine of most cases: a 4x8 array (spad width 8,
// acc width 8), 64 spad rows, 32 acc rows; f32 (#f) or i8 (#i) inputs.
// Buffer 0 'a' is 64x8 (512 elements).

// -----

// The array shape bounds every tile.
// expected-error @+1 {{systolic config: rows must be in [1, 1024], got 0}}
#bad = #systolic.config<rows = 0, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: cols must be in [1, 1024], got 2000}}
#bad = #systolic.config<rows = 4, cols = 2000, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// The PEs multiply i8, bf16 or f32.
// expected-error @+1 {{systolic config: input type must be i8, bf16 or f32, got 'f16'}}
#bad = #systolic.config<rows = 4, cols = 8, input = f16, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// i8 products accumulate in i32, floating-point ones in f32.
// expected-error @+1 {{systolic config: the accumulator type must be i32 for 'i8' inputs, got 'f32'}}
#bad = #systolic.config<rows = 4, cols = 8, input = i8, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: the accumulator type must be f32 for 'bf16' inputs, got 'i32'}}
#bad = #systolic.config<rows = 4, cols = 8, input = bf16, acc = i32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// Banks are equal runs of rows.
// expected-error @+1 {{systolic config: spad_banks must be >= 1, got 0}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 0, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: spad_rows must be a positive multiple of spad_banks (4), got 10}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 10, spad_banks = 4, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: acc_rows must be a positive multiple of acc_banks (2), got 0}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 0, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: acc_banks must be >= 1, got 0}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 0, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// The DMA model divides by the bandwidth.
// expected-error @+1 {{systolic config: dram_bytes_per_cycle must be finite and > 0, got 0}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 0.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: dram_bytes_per_cycle must be finite and > 0, got inf}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 0x7FF0000000000000, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #bad buffers [] {
}

// -----

// 
// expected-error @+1 {{systolic config: vector_lanes must be >= 1, got 0}}
#bad = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 0>
systolic.program @p config #bad buffers [] {
}

// -----

// Names travel through the binary format: plain identifiers.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer: the name must not be empty}}
systolic.program @p config #f buffers [#systolic.buffer<"", arg 0, tensor<4xf32>>] {
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer 'a b': the name may only use [A-Za-z0-9_.-], found ' ' at position 1}}
systolic.program @p config #f buffers [#systolic.buffer<"a b", arg 0, tensor<4xf32>>] {
}

// -----

// Arguments and results have a position, scratch does not.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer 't': a scratch buffer has position 0, got 3}}
systolic.program @p config #f buffers [#systolic.buffer<"t", scratch 3, tensor<4xf32>>] {
}

// -----

// DRAM buffers have a fixed size.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer 'a': the shape must be static, got 'tensor<?x4xf32>'}}
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<?x4xf32>>] {
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer 'a': the element type must be i8, i32, bf16 or f32, got 'f16'}}
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<4xf16>>] {
}

// -----

// Bounds are computed exactly for buffers up to 2^48 bytes.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{systolic buffer 'a': 'tensor<65536x65536x32768xf32>' is larger than the 2^48 bytes a buffer may hold}}
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<65536x65536x32768xf32>>] {
}

// -----

// The program name is a plain identifier too.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{the program name must not be empty}}
systolic.program @"" config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{the program name 'a b' may only use [A-Za-z0-9_.-], found ' ' at position 1}}
systolic.program @"a b" config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
}

// -----

// Callers bind buffers by name and by position.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{buffer 1 repeats the name 'a' of buffer 0}}
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<4xf32>>, #systolic.buffer<"a", arg 1, tensor<4xf32>>] {
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
// expected-error @+1 {{buffers 0 and 2 are both result 1}}
systolic.program @p config #f buffers [#systolic.buffer<"a", result 1, tensor<4xf32>>, #systolic.buffer<"b", result 0, tensor<4xf32>>, #systolic.buffer<"c", result 1, tensor<4xf32>>] {
}

// -----

// Only instructions belong in a program.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{is not a systolic instruction}}
  %c = arith.constant 0 : i32
}

// -----

// Every integer field is unsigned in the ISA.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{offset must be non-negative, got -8}}
  systolic.mvin 0[-8] stride 8 -> spad[0] rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{rows must be >= 1, got 0}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 0 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cols must be >= 1, got 0}}
  systolic.mvout acc[0] rows 1 cols 0 -> 1[0] stride 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{buffer index 2 is out of range (the program has 2 buffers)}}
  systolic.mvin 2[0] stride 8 -> spad[0] rows 1 cols 8
}

// -----

// SRAM rows.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes spad rows [60, 68), past the 64 rows of the scratchpad}}
  systolic.mvin 0[0] stride 8 -> spad[60] rows 8 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads acc rows [30, 34), past the 32 rows of the accumulator}}
  systolic.mvout acc[30] rows 4 cols 8 -> 1[0] stride 8
}

// -----

// SRAM widths: max(rows, cols) for the scratchpad, cols for the accumulator.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cols 9 exceeds the scratchpad width 8 (max(rows, cols))}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 1 cols 9
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cols 16 exceeds the accumulator width 8 (cols)}}
  systolic.mvin 0[0] stride 8 -> acc[0] rows 1 cols 16
}

// -----

// The stride is a 32-bit field.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{stride 4294967296 does not fit in 32 bits}}
  systolic.mvin 0[0] stride 4294967296 -> spad[0] rows 1 cols 8
}

// -----

// Every DRAM element a move touches lies in its buffer.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads elements [8, 520) of buffer 0 ('a', 512 elements)}}
  systolic.mvin 0[8] stride 8 -> spad[0] rows 64 cols 8
}

// -----

// Transposed: the DRAM block is cols x rows.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads elements [0, 517) of buffer 0 ('a', 512 elements)}}
  systolic.mvin 0[0] stride 103 -> spad[0] rows 2 cols 6 transpose
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes elements [1, 65) of buffer 1 ('o', 64 elements)}}
  systolic.mvout acc[0] rows 8 cols 8 -> 1[1] stride 8
}

// -----

// The end is computed exactly, without overflow.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads elements [9223372036854775807, 9223372066919546880) of buffer 0 ('a', 512 elements)}}
  systolic.mvin 0[9223372036854775807] stride 4294967295 -> spad[0] rows 8 cols 8
}

// -----

// Overlapping DRAM rows would make an mvout depend on the write order.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes overlapping DRAM rows: stride 4 is less than the 8 elements of a row}}
  systolic.mvout acc[0] rows 2 cols 8 -> 1[0] stride 4
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes overlapping DRAM rows: stride 0 is less than the 8 elements of a transposed row}}
  systolic.mvout acc[0] rows 8 cols 2 -> 1[0] stride 0 transpose
}

// -----

// Element types: the scratchpad holds the input type.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cannot move 'bf16' buffer 1 ('o') into the 'f32' scratchpad}}
  systolic.mvin 1[0] stride 8 -> spad[0] rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cannot move 'bf16' buffer 1 ('o') out of the 'f32' scratchpad}}
  systolic.mvout spad[0] rows 1 cols 8 -> 1[0] stride 8
}

// -----

// An i32 accumulator takes i32 only.
#i = #systolic.config<rows = 4, cols = 8, input = i8, acc = i32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #i buffers [#systolic.buffer<"a", arg 0, tensor<64x8xi8>>, #systolic.buffer<"o", result 0, tensor<8x8xi8>>, #systolic.buffer<"c32", result 1, tensor<8x8xi32>>] {
  // expected-error @+1 {{cannot move 'i8' buffer 0 ('a') into the 'i32' accumulator}}
  systolic.mvin 0[0] stride 8 -> acc[0] rows 1 cols 8
}

// -----

// An f32 accumulator takes and gives f32 or bf16, not i8.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xi8>>] {
  // expected-error @+1 {{cannot move 'i8' buffer 0 ('a') out of the 'f32' accumulator}}
  systolic.mvout acc[0] rows 1 cols 8 -> 0[0] stride 8
}

// -----

// Unpacking reads i8 buffers into bf16 or f32 SRAMs only.
#i = #systolic.config<rows = 4, cols = 8, input = i8, acc = i32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #i buffers [#systolic.buffer<"w", arg 0, tensor<8x8xi8>>] {
  // expected-error @+1 {{cannot unpack (s4) 'i8' buffer 0 ('w') into the 'i8' scratchpad: unpacking reads i8 buffers into bf16 or f32 SRAMs}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 1 cols 8 unpack s4
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"w", arg 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cannot unpack (u8) 'bf16' buffer 0 ('w') into the 'f32' accumulator}}
  systolic.mvin 0[0] stride 8 -> acc[0] rows 1 cols 8 unpack u8
}

// -----

// 4-bit elements count in nibbles: 8 bytes hold 16 of them.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"w", arg 0, tensor<8xi8>>] {
  systolic.mvin 0[8] stride 8 -> spad[0] rows 1 cols 8 unpack u4
  // expected-error @+1 {{reads elements [9, 17) of buffer 0 ('w', 16 elements)}}
  systolic.mvin 0[9] stride 8 -> spad[0] rows 1 cols 8 unpack u4
}

// -----

// Scalar registers: r0..r15.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{destination register 16 does not exist (0..15)}}
  systolic.sload 1[0] range 0 to 64 -> reg 16
}

// -----

// sload reads i32 buffers.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{loads i32 elements; buffer 0 ('pool') holds 'f32'}}
  systolic.sload 0[0] range 0 to 64 -> reg 0
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{reads element 2 of buffer 1 ('len', 2 elements)}}
  systolic.sload 1[2] range 0 to 64 -> reg 0
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{range [5, 4] is empty}}
  systolic.sload 1[0] range 5 to 4 -> reg 0
}

// -----

// A paged block lies within its page (the machine checks the page).
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{reads elements [120, 136) of a page of 128 elements (buffer 0, 'pool')}}
  systolic.mvin 0[120] stride 8 -> spad[0] rows 2 cols 8 page reg 1 stride 128
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{page register 16 does not exist (0..15)}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 page reg 16 stride 128
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{bound register -1 does not exist (0..15)}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 bound reg -1 base 0
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{page stride must be in [1, 2^32), got 0}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 page reg 1 stride 0
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{bound base 2147483648 does not fit in 32 bits}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 bound reg 1 base 2147483648
}

// -----

// The register form's narrower fields (binary opcode 9).
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{with registers takes buffer < 2^16, offset < 2^32, rows and cols < 2^16}}
  systolic.mvin 0[4294967296] stride 8 -> spad[0] rows 2 cols 8 page reg 1 stride 4294967295
}

// -----

// The generic form can name one without the other.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{takes a page register and a page stride together}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 {page_reg = 1 : i64}
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{takes a bound register and a bound base together}}
  systolic.mvin 0[0] stride 8 -> spad[0] rows 2 cols 8 {bound_base = 1 : i64}
}

// -----

// Masks take a register; other vector ops do not.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{copy takes no register (only the masks)}}
  systolic.vector copy 0, 0 rows 1 cols 8 {reg = 0 : i64}
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{offset register 16 does not exist (0..15)}}
  systolic.vector mask_keys 0, 0 rows 1 cols 8 offset 0 plus reg 16
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"pool", arg 0, tensor<4x16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{mask_keys needs an offset}}
  systolic.vector mask_keys 0, 0 rows 1 cols 8
}

// -----

// A skip passes over instructions that exist.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{skips 3 instructions; 2 follow it}}
  systolic.skip 3 if reg 0 le 4
  systolic.fence
  systolic.fence
}

// -----

#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  // expected-error @+1 {{condition register 16 does not exist (0..15)}}
  systolic.skip 1 if reg 16 le 4
  systolic.fence
}

// -----

// The dataflow after a skipped run must not depend on run-time data.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  systolic.config ws
  systolic.skip 1 if reg 0 le 4
  // expected-error @+1 {{inside a skipped run: the dataflow after it would depend on run-time data}}
  systolic.config os
}

// -----

// After a skipped run the preload is unknown: a compute needs its own.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<16x8xf32>>, #systolic.buffer<"len", arg 1, tensor<2xi32>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  systolic.skip 1 if reg 0 le 4
  systolic.mvin 0[0] stride 8 -> spad[8] rows 4 cols 4
  // expected-error @+1 {{needs a preload before it}}
  systolic.compute preloaded spad[8] m 4 k 4 n 8
}

// -----

// The dataflow must be set before the array is used.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{comes before any systolic.config: the dataflow is not set}}
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{n 9 exceeds the array's 8 columns}}
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 9
}

// -----

// Weight-stationary: the k x n weights fit the array.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{k must be >= 1 in the weight-stationary dataflow, got 0}}
  systolic.preload weights spad[0] to acc[0] m 4 k 0 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{k 5 exceeds the array's 4 rows (weight-stationary)}}
  systolic.preload weights spad[0] to acc[0] m 4 k 5 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{loads weights from spad rows [62, 66), past the 64 rows of the scratchpad}}
  systolic.preload weights spad[62] to acc[0] m 4 k 4 n 8
}

// -----

// A preload without weights keeps the array's: there must be some.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{keeps the array's weights, but no preload since the last config loaded any}}
  systolic.preload to acc[0] m 4 k 4 n 8
}

// -----

// A config resets the array, weights included.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  systolic.compute preloaded spad[8] m 4 k 4 n 8
  systolic.config ws
  // expected-error @+1 {{keeps the array's weights, but no preload since the last config loaded any}}
  systolic.preload to acc[0] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  systolic.compute preloaded spad[8] m 4 k 4 n 8
  // expected-error @+1 {{keeps the array's 4x8 weights, but says k 2 n 8}}
  systolic.preload to acc[4] m 4 k 2 n 8
}

// -----

// Output-stationary: the preload resets partial sums, it loads nothing.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  // expected-error @+1 {{cannot load weights in the output-stationary dataflow}}
  systolic.preload weights spad[0] to acc[0] m 4 k 0 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  // expected-error @+1 {{k must be 0 in the output-stationary dataflow (the computes give it), got 4}}
  systolic.preload to acc[0] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  // expected-error @+1 {{m 5 exceeds the array's 4 rows (output-stationary)}}
  systolic.preload to acc[0] m 5 k 0 n 8
}

// -----

// The results go to m accumulator rows.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{targets acc rows [30, 34), past the 32 rows of the accumulator}}
  systolic.preload weights spad[0] to acc[30] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{weights row must be non-negative, got -1}}
  systolic.preload weights spad[-1] to acc[0] m 4 k 4 n 8
}

// -----

// A compute pairs with a preload.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  // expected-error @+1 {{needs a preload before it}}
  systolic.compute spad[0] m 4 k 4 n 8
}

// -----

// Only DMA may come between a preload and its computes.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  // expected-note @+1 {{this instruction ended the last preload's computes}}
  systolic.fence
  // expected-error @+1 {{needs a preload before it; only mvin and mvout may come between a preload and its computes}}
  systolic.compute preloaded spad[8] m 4 k 4 n 8
}

// -----

// The vector unit shares the execute pipeline.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  systolic.compute preloaded spad[0] times spad[8] m 4 k 8 n 8
  // expected-note @+1 {{this instruction ended the last preload's computes}}
  systolic.vector exp 16, 16 rows 1 cols 8
  // expected-error @+1 {{needs a preload before it; only mvin and mvout may come between a preload and its computes}}
  systolic.compute spad[0] times spad[8] m 4 k 8 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  // expected-error @+1 {{a_row must be non-negative, got -4}}
  systolic.compute preloaded spad[-4] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  // expected-error @+1 {{k 9 exceeds the scratchpad width 8}}
  systolic.compute spad[0] times spad[8] m 4 k 9 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 8 k 4 n 8
  // expected-error @+1 {{reads A from spad rows [60, 68), past the 64 rows of the scratchpad}}
  systolic.compute preloaded spad[60] m 8 k 4 n 8
}

// -----

// Weight-stationary: one compute per preload.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  systolic.compute preloaded spad[8] m 4 k 4 n 8
  // expected-error @+1 {{follows another compute: each weight-stationary compute needs its own preload}}
  systolic.compute spad[8] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  // expected-error @+1 {{takes no B operand (`times`) in the weight-stationary dataflow: the weights are in the array}}
  systolic.compute preloaded spad[8] times spad[0] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  // expected-error @+1 {{m 4 k 4 n 4 disagree with the preload's m 4 k 4 n 8}}
  systolic.compute preloaded spad[8] m 4 k 4 n 4
}

// -----

// `preloaded` says which weights the compute uses.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  systolic.compute preloaded spad[8] m 4 k 4 n 8
  systolic.preload to acc[4] m 4 k 4 n 8
  // expected-error @+1 {{is `preloaded`, but the preload before it loaded no weights}}
  systolic.compute preloaded spad[8] m 4 k 4 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config ws
  systolic.preload weights spad[0] to acc[0] m 4 k 4 n 8
  // expected-error @+1 {{must be `preloaded`: the preload before it loaded weights}}
  systolic.compute spad[8] m 4 k 4 n 8
}

// -----

// Output-stationary: A times B into the partial sums.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  // expected-error @+1 {{needs a B operand (`times spad[...]`) in the output-stationary dataflow}}
  systolic.compute preloaded spad[0] m 4 k 8 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  // expected-error @+1 {{reads B from spad rows [60, 68), past the 64 rows of the scratchpad}}
  systolic.compute preloaded spad[0] times spad[60] m 4 k 8 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  // expected-error @+1 {{m 2 n 8 disagree with the preload's m 4 n 8}}
  systolic.compute preloaded spad[0] times spad[8] m 2 k 8 n 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  systolic.config os
  systolic.preload to acc[0] m 4 k 0 n 8
  systolic.mvin 0[0] stride 8 -> spad[16] rows 4 cols 8
  systolic.compute preloaded spad[0] times spad[8] m 4 k 8 n 8
  // expected-error @+1 {{is `preloaded`, but only the first compute after a preload may be (output-stationary)}}
  systolic.compute preloaded spad[16] times spad[8] m 4 k 8 n 8
}

// -----

// The vector unit works on f32 accumulator rows.
#i = #systolic.config<rows = 4, cols = 8, input = i8, acc = i32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #i buffers [#systolic.buffer<"a", arg 0, tensor<64x8xi8>>, #systolic.buffer<"o", result 0, tensor<8x8xi8>>, #systolic.buffer<"c32", result 1, tensor<8x8xi32>>] {
  // expected-error @+1 {{needs an f32 accumulator, the config's is 'i32'}}
  systolic.vector exp 0, 0 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{dst must be non-negative, got -1}}
  systolic.vector exp -1, 0 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{rows must be >= 1, got 0}}
  systolic.vector exp 0, 0 rows 0 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{cols 9 exceeds the accumulator width 8 (cols)}}
  systolic.vector exp 0, 0 rows 1 cols 9
}

// -----

// Operands: src_b for binary ops with bcast none/row, imm for fill and bcast scalar, offset for mask_causal.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{bcast applies to the binary ops (add, sub, mul, div, max), not exp}}
  systolic.vector exp 0, 0 rows 1 cols 8 bcast row
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{add with bcast none needs src_b}}
  systolic.vector add 0, 0 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{mul with bcast row needs src_b}}
  systolic.vector mul 0, 0 rows 1 cols 8 bcast row
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{sub with bcast scalar reads imm, not src_b}}
  systolic.vector sub 0, 0, 1 rows 1 cols 8 bcast scalar imm 1.0
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{exp takes no src_b}}
  systolic.vector exp 0, 0, 1 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{fill needs an imm}}
  systolic.vector fill 0, 0 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{max with bcast scalar needs an imm}}
  systolic.vector max 0, 0 rows 1 cols 8 bcast scalar
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{add takes no imm (only fill and bcast scalar)}}
  systolic.vector add 0, 0, 1 rows 1 cols 8 imm 2.0
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{mask_causal needs an offset}}
  systolic.vector mask_causal 0, 0 rows 1 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{copy takes no offset (only the masks)}}
  systolic.vector copy 0, 0 rows 1 cols 8 offset 1
}

// -----

// Flags.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{exp cannot accumulate (only rowmax and rowsum)}}
  systolic.vector exp 0, 0 rows 1 cols 8 accumulate
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{add takes no inf_is_zero (only sub and div)}}
  systolic.vector add 0, 0, 1 rows 1 cols 8 inf_is_zero
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{exp cannot write to_spad (only copy)}}
  systolic.vector exp to_spad 0, 0 rows 1 cols 8
}

// -----

// Rows.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{fill reads no source: src_a must be 0, got 5}}
  systolic.vector fill 0, 5 rows 1 cols 8 imm 0.0
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads A from acc rows [30, 34), past the 32 rows of the accumulator}}
  systolic.vector exp 0, 30 rows 4 cols 8
}

// -----

// A row broadcast reads column 0 of each src_b row.
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{reads B from acc rows [31, 33), past the 32 rows of the accumulator}}
  systolic.vector add 0, 0, 31 rows 2 cols 8 bcast row
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes spad rows [62, 66), past the 64 rows of the scratchpad}}
  systolic.vector copy to_spad 62, 0 rows 4 cols 8
}

// -----

// 
#f = #systolic.config<rows = 4, cols = 8, input = f32, acc = f32, spad_rows = 64, spad_banks = 2, acc_rows = 32, acc_banks = 2, dram_bytes_per_cycle = 8.0, dram_latency = 10, vector_lanes = 4>
systolic.program @p config #f buffers [#systolic.buffer<"a", arg 0, tensor<64x8xf32>>, #systolic.buffer<"o", result 0, tensor<8x8xbf16>>] {
  // expected-error @+1 {{writes acc rows [31, 33), past the 32 rows of the accumulator}}
  systolic.vector rowsum 31, 0 rows 2 cols 8
}
