// What convert-accel-to-systolic emits: the dataflow, the block layout in the
// SRAMs (double-buffered), remainders as smaller instructions, accumulation
// flags, OS's mvouts after the flush, IS's transposing DMA, and the attention
// sequence (online softmax on the vector unit, causal mask on the diagonal
// block only, key blocks past the band skipped).
//
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=ws tile-m=20 tile-n=16 tile-k=32 attention-tile-q=10 attention-tile-kv=16" | FileCheck %s --check-prefixes=WS,ATT
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=os tile-m=20 tile-n=32 tile-k=32" | FileCheck %s --check-prefix=OS
// RUN: accel-opt %s --convert-accel-to-systolic="dataflow=is tile-m=20 tile-n=32 tile-k=48" | FileCheck %s --check-prefix=IS
// RUN: accel-opt %s --accel-systolic-pipeline | FileCheck %s --check-prefix=AUTO

// AUTO: systolic.program @mm config <rows = 16, cols = 16, input = i8, acc = i32, spad_rows = 16384, spad_banks = 4, acc_rows = 1024, acc_banks = 2, dram_bytes_per_cycle = 16.0, dram_latency = 100, vector_lanes = 16> buffers [#systolic.buffer<"arg0", arg 0, tensor<20x40xi8>>, #systolic.buffer<"arg1", arg 1, tensor<40x20xi8>>, #systolic.buffer<"result0", result 0, tensor<20x20xi32>>]
// AUTO-SAME: predicted_cycles =
// AUTO-NOT: func.func

// WS-LABEL: systolic.program @mm
// WS: systolic.config ws
// A: two 16-wide strips of the 20-row block; B after both A slots.
// WS-NEXT: systolic.mvin 0[0] stride 40 -> spad[0] rows 20 cols 16
// WS-NEXT: systolic.mvin 0[16] stride 40 -> spad[20] rows 20 cols 16
// WS-NEXT: systolic.mvin 1[0] stride 20 -> spad[80] rows 32 cols 16
// WS-NEXT: systolic.preload weights spad[80] to acc[0] m 20 k 16 n 16{{$}}
// WS-NEXT: systolic.compute preloaded spad[0] m 20 k 16 n 16
// WS-NEXT: systolic.preload weights spad[96] to acc[0] m 20 k 16 n 16 accumulate
// WS-NEXT: systolic.compute preloaded spad[20] m 20 k 16 n 16
// The K remainder (8 deep) goes to the other A and B halves.
// WS-NEXT: systolic.mvin 0[32] stride 40 -> spad[40] rows 20 cols 8
// WS-NEXT: systolic.mvin 1[640] stride 20 -> spad[112] rows 8 cols 16
// WS-NEXT: systolic.preload weights spad[112] to acc[0] m 20 k 8 n 16 accumulate
// WS-NEXT: systolic.compute preloaded spad[40] m 20 k 8 n 16
// WS-NEXT: systolic.mvout acc[0] rows 20 cols 16 -> 2[0] stride 20
// The N remainder (4 wide) in the other accumulator half.
// WS: systolic.mvin 1[16] stride 20 -> spad[80] rows 32 cols 4
// WS-NEXT: systolic.preload weights spad[80] to acc[20] m 20 k 16 n 4{{$}}
// WS: systolic.mvout acc[20] rows 20 cols 4 -> 2[16] stride 20
// WS-NEXT: systolic.fence
// WS-NEXT: }

// OS-LABEL: systolic.program @mm
// OS: systolic.config os
// B in the upper half of the scratchpad (other banks than A).
// OS: systolic.mvin 1[0] stride 20 -> spad[8192] rows 32 cols 16
// OS: systolic.preload to acc[0] m 16 k 0 n 16{{$}}
// OS-NEXT: systolic.compute preloaded spad[0] times spad[8192] m 16 k 16 n 16
// OS-NEXT: systolic.compute spad[20] times spad[8208] m 16 k 16 n 16
// OS-NEXT: systolic.preload to acc[16] m 4 k 0 n 16{{$}}
// OS: systolic.preload to acc[0] m 16 k 0 n 16 accumulate
// The last tile is flushed by the fence before its block leaves.
// OS: systolic.fence
// OS-NEXT: systolic.mvout acc[0] rows 20 cols 16 -> 2[0] stride 20
// OS-NEXT: systolic.mvout acc[20] rows 20 cols 4 -> 2[16] stride 20

// IS-LABEL: systolic.program @mm
// IS: systolic.config ws
// Bᵀ streams, Aᵀ is stationary, Cᵀ leaves transposed.
// IS-NEXT: systolic.mvin 1[0] stride 20 -> spad[0] rows 20 cols 16 transpose
// IS: systolic.mvin 0[0] stride 40 -> spad[120] rows 40 cols 16 transpose
// IS: systolic.mvout acc[0] rows 20 cols 16 -> 2[0] stride 20 transpose
func.func @mm(%a: tensor<20x40xi8>, %b: tensor<40x20xi8>) -> tensor<20x20xi32> {
  %c = tensor.empty() : tensor<20x20xi32>
  %0 = accel.matmul ins(%a, %b : tensor<20x40xi8>, tensor<40x20xi8>) outs(%c : tensor<20x20xi32>) -> tensor<20x20xi32>
  return %0 : tensor<20x20xi32>
}

// ATT-LABEL: systolic.program @att
// Accumulator: S blocks at 0 and 10 (two: pipelined), O at 20, the running
// max at 30, the sum at 40, the rescale factor at 50.
// ATT: systolic.config ws
// ATT-NEXT: systolic.mvin 0[0] stride 16 -> spad[0] rows 10 cols 16
// ATT-NEXT: systolic.vector fill 30, 0 rows 10 cols 1 imm 0xFF800000
// ATT-NEXT: systolic.vector fill 40, 0 rows 10 cols 1 imm 0.000000e+00
// ATT-NEXT: systolic.vector fill 20, 0 rows 10 cols 16 imm 0.000000e+00
// ATT-NEXT: systolic.mvin 1[0] stride 16 -> spad[20] rows 16 cols 16 transpose
// ATT-NEXT: systolic.mvin 2[0] stride 16 -> spad[52] rows 16 cols 16
// ATT-NEXT: systolic.preload weights spad[20] to acc[0] m 10 k 16 n 16{{$}}
// ATT-NEXT: systolic.compute preloaded spad[0] m 10 k 16 n 16
// Software pipelining: block 1's loads and S come before block 0's softmax.
// Block 1 (keys 16..29 of 40: query rows 0..9 see up to key 29) is the
// diagonal one.
// ATT-NEXT: systolic.mvin 1[256] stride 16 -> spad[36] rows 16 cols 14 transpose
// ATT-NEXT: systolic.mvin 2[256] stride 16 -> spad[68] rows 14 cols 16
// ATT-NEXT: systolic.preload weights spad[36] to acc[10] m 10 k 16 n 14{{$}}
// ATT-NEXT: systolic.compute preloaded spad[0] m 10 k 16 n 14
// ATT-NEXT: systolic.vector mul 0, 0 rows 10 cols 16 bcast scalar imm 2.500000e-01
// ATT-NEXT: systolic.vector copy 50, 30 rows 10 cols 1
// ATT-NEXT: systolic.vector rowmax 30, 0 rows 10 cols 16 accumulate
// ATT-NEXT: systolic.vector sub 50, 50, 30 rows 10 cols 1 inf_is_zero
// ATT-NEXT: systolic.vector exp 50, 50 rows 10 cols 1
// ATT-NEXT: systolic.vector sub 0, 0, 30 rows 10 cols 16 bcast row inf_is_zero
// ATT-NEXT: systolic.vector exp 0, 0 rows 10 cols 16
// ATT-NEXT: systolic.vector mul 40, 40, 50 rows 10 cols 1
// ATT-NEXT: systolic.vector rowsum 40, 0 rows 10 cols 16 accumulate
// ATT-NEXT: systolic.vector mul 20, 20, 50 rows 10 cols 16 bcast row
// ATT-NEXT: systolic.vector copy to_spad 84, 0 rows 10 cols 16
// ATT-NEXT: systolic.preload weights spad[52] to acc[20] m 10 k 16 n 16 accumulate
// ATT-NEXT: systolic.compute preloaded spad[84] m 10 k 16 n 16
// Block 1: masked with offset 20 - 16, no mask on block 0.
// ATT-NEXT: systolic.vector mul 10, 10 rows 10 cols 14 bcast scalar imm 2.500000e-01
// ATT-NEXT: systolic.vector mask_causal 10, 10 rows 10 cols 14 offset 4
// ATT: systolic.vector copy to_spad 84, 10 rows 10 cols 14
// ATT-NEXT: systolic.preload weights spad[68] to acc[20] m 10 k 14 n 16 accumulate
// ATT-NEXT: systolic.compute preloaded spad[84] m 10 k 14 n 16
// ATT-NEXT: systolic.vector div 20, 20, 40 rows 10 cols 16 bcast row inf_is_zero
// ATT-NEXT: systolic.mvout acc[20] rows 10 cols 16 -> 3[0] stride 16
// The second query block (rows 10..19) sees keys up to 39: three blocks;
// keys 16..31 and 32..39 cross the band (offsets 30 - 16 and 30 - 32).
// ATT-NEXT: systolic.mvin 0[160] stride 16 -> spad[10] rows 10 cols 16
// ATT: systolic.mvin 1[512] stride 16 -> spad[20] rows 16 cols 8 transpose
// ATT: systolic.vector mask_causal 10, 10 rows 10 cols 16 offset 14
// ATT: systolic.vector mask_causal 0, 0 rows 10 cols 8 offset -2
// ATT: systolic.mvout acc[20] rows 10 cols 16 -> 3[160] stride 16
func.func @att(%q: tensor<1x1x20x16xf32>, %k: tensor<1x1x40x16xf32>, %v: tensor<1x1x40x16xf32>) -> tensor<1x1x20x16xf32> {
  %o = tensor.empty() : tensor<1x1x20x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x1x20x16xf32>, tensor<1x1x40x16xf32>, tensor<1x1x40x16xf32>) outs(%o : tensor<1x1x20x16xf32>) -> tensor<1x1x20x16xf32>
  return %0 : tensor<1x1x20x16xf32>
}
