// Found by accel-fuzz-structured (docs/reliability.md, "Fuzzing") on the
// day Kᵀ became one block per key tile (49cdc2d): an attention with an
// empty batch, B = 0, did not compile for the CPU. FlashAttention-2's
// decomposition sliced K's whole key tiles ([0, 0, 0, 0] of a [0, 1, 15,
// 31] K), and a static slice at offset 0 of an empty dimension does not
// verify ("offset 0 is out-of-bounds: 0 >= 0"). Empty batches are now left
// to the reference lowering, as empty heads were. The result is empty;
// accel-run checks that it compiles and runs. The fuzzer's input is
// test/Fuzz/Inputs/structured-attention-empty-batch.bin (replayed by CI).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options="attention-tile-kv=4" | FileCheck %s

// CHECK-LABEL: @empty_batch
// CHECK: PASS
// CHECK-LABEL: @empty_batch_whole_tiles
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

// The fuzzer's program: Skv = 15 (a remainder key tile), an i1 mask,
// q_lengths.
func.func @empty_batch(%q: tensor<0x2x3x31xf32>, %k: tensor<0x1x15x31xf32>, %v: tensor<0x1x15x31xf32>, %mask: tensor<3x15xi1>, %q_lengths: tensor<0xi64>, %o: tensor<0x2x3x31xf32>) -> tensor<0x2x3x31xf32> {
  %r = accel.attention ins(%q, %k, %v : tensor<0x2x3x31xf32>, tensor<0x1x15x31xf32>, tensor<0x1x15x31xf32>) mask(%mask : tensor<3x15xi1>) q_lengths(%q_lengths : tensor<0xi64>) outs(%o : tensor<0x2x3x31xf32>) -> tensor<0x2x3x31xf32>
  return %r : tensor<0x2x3x31xf32>
}

// Skv = 16: whole key tiles only (no remainder slice of K), causal.
func.func @empty_batch_whole_tiles(%q: tensor<0x1x4x8xf32>, %k: tensor<0x1x16x8xf32>, %v: tensor<0x1x16x8xf32>) -> tensor<0x1x4x8xf32> {
  %o = tensor.empty() : tensor<0x1x4x8xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<0x1x4x8xf32>, tensor<0x1x16x8xf32>, tensor<0x1x16x8xf32>) outs(%o : tensor<0x1x4x8xf32>) -> tensor<0x1x4x8xf32>
  return %r : tensor<0x1x4x8xf32>
}
