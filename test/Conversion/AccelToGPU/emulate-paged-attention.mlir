// REQUIRES: numpy
// accel.paged_attention on the GPU (PagedAttentionKernel.h: flash-decoding
// on the CUDA cores, the G * Sq query rows of a KV head packed in one
// block, K and V rows read where they lie through the block table, keys
// split over blocks and a combine kernel), checked against the fp64 oracle
// of the whole function without a GPU: accel-run records the inputs for
// each chip (tables drawn from the whole pool, lengths from [0, N * T]:
// empty sequences, partial last pages, full tables), the kernel emulator
// runs that chip's kernels on them (NVIDIA warps of 32, AMD waves of 64 on
// gfx942 and 32 on gfx1100) and accel-run --replay checks what they wrote.
// The cases: MHA f32; GQA bf16 into f32; MQA with f16 out, Sq = 2 and
// Dv != D, i64 table and lengths; causal f16 with Sq = 3; causal GQA bf16
// with 16 packed rows (two row tiles); D = 17 and Dv = 5 (one element a
// run); one-token pages; a 1024-key context in four splits and the combine
// kernel (bf16 out); a causal speculative step in two splits (f16, i64).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
//
// The check fails wrong kernels: the butterfly's xor 4 made xor 0 (a lane
// adds its own partial dot product instead of its neighbour's: the groups
// of 8 lanes and more), and the combine kernel without its weights
// 2^(m_s - M) (one split's states summed as they are).
// RUN: sed -e 's/<{value = 4 : i32}>/<{value = 0 : i32}>/' %t.sm_80.mlir > %t.bad1.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad1.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD-BUTTERFLY
// RUN: sed -e '/function_type = (memref<1x1x4x4x66xf32>, memref<1x4x1x64xbf16>)/,/"gpu.return"/s/"arith.subf"(\(%[0-9]*\), %[0-9]*)/"arith.subf"(\1, \1)/' %t.sm_80.mlir > %t.bad2.mlir
// RUN: not diff %t.sm_80.mlir %t.bad2.mlir > /dev/null
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad2.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD-COMBINE
// And the emulator refuses to judge a paged kernel on its own inputs.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir | FileCheck %s --check-prefix=DIRECT
// BAD-BUTTERFLY-LABEL: @mha_f32
// BAD-BUTTERFLY: FAIL
// BAD-BUTTERFLY-LABEL: @gqa_bf16
// BAD-BUTTERFLY: FAIL
// BAD-BUTTERFLY-LABEL: @odd_head_dims
// BAD-BUTTERFLY: FAIL
// BAD-BUTTERFLY-LABEL: @long_context
// BAD-BUTTERFLY: FAIL
// BAD-COMBINE-LABEL: @long_context
// BAD-COMBINE: FAIL
// DIRECT: is a paged_attention kernel, whose result this script cannot compute
//
// Every chip splits these contexts alike (the splits are bounded by 256
// keys each, not by the chip's multiprocessors), so the four chips'
// kernels run on one record's buffers (the splits' temporary included).
// RUN: FileCheck %s --check-prefix=SPLITS < %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=SPLITS < %t.gfx942.mlir
// SPLITS: grid = array<i64: 4, 1, 1>, kind = "paged", splits = 4 : i64{{.*}}sym_name = "long_context_paged0"
// SPLITS: kind = "paged_combine", splits = 4 : i64{{.*}}sym_name = "long_context_paged0_combine"
// SPLITS: kind = "paged", splits = 2 : i64{{.*}}sym_name = "speculative_splits_paged0"
// SPLITS: kind = "paged_combine", splits = 2 : i64{{.*}}sym_name = "speculative_splits_paged0_combine"

// REC: recorded
// LAUNCH-NOT: FAILED
// LAUNCH: @long_context: program of 2 kernels ran
// LAUNCH-NOT: FAILED
// LAUNCH: @speculative_splits: program of 2 kernels ran
// LAUNCH-NOT: FAILED
// CHECK-LABEL: @mha_f32
// CHECK: PASS
// CHECK-LABEL: @gqa_bf16
// CHECK: PASS
// CHECK-LABEL: @mqa_f16_out
// CHECK: PASS
// CHECK-LABEL: @causal_f16
// CHECK: PASS
// CHECK-LABEL: @causal_gqa_bf16
// CHECK: PASS
// CHECK-LABEL: @odd_head_dims
// CHECK: PASS
// CHECK-LABEL: @one_token_pages
// CHECK: PASS
// CHECK-LABEL: @long_context
// CHECK: PASS
// CHECK-LABEL: @speculative_splits
// CHECK: PASS
// CHECK: 9 of 9 functions passed

func.func @mha_f32(%q: tensor<3x4x1x32xf32>, %kc: tensor<12x4x4x32xf32>, %vc: tensor<12x4x4x32xf32>, %bt: tensor<3x6xi32>, %len: tensor<3xi32>) -> tensor<3x4x1x32xf32> {
  %o = tensor.empty() : tensor<3x4x1x32xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<3x4x1x32xf32>, tensor<12x4x4x32xf32>, tensor<12x4x4x32xf32>) block_table(%bt : tensor<3x6xi32>) kv_lengths(%len : tensor<3xi32>) outs(%o : tensor<3x4x1x32xf32>) -> tensor<3x4x1x32xf32>
  return %r : tensor<3x4x1x32xf32>
}

func.func @gqa_bf16(%q: tensor<2x8x1x64xbf16>, %kc: tensor<9x16x2x64xbf16>, %vc: tensor<9x16x2x64xbf16>, %bt: tensor<2x5xi32>, %len: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  %o = tensor.empty() : tensor<2x8x1x64xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x8x1x64xbf16>, tensor<9x16x2x64xbf16>, tensor<9x16x2x64xbf16>) block_table(%bt : tensor<2x5xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x8x1x64xf32>) -> tensor<2x8x1x64xf32>
  return %r : tensor<2x8x1x64xf32>
}

func.func @mqa_f16_out(%q: tensor<2x6x2x16xf16>, %kc: tensor<5x8x1x16xf16>, %vc: tensor<5x8x1x8xf16>, %bt: tensor<2x7xi64>, %len: tensor<2xi64>) -> tensor<2x6x2x8xf16> {
  %o = tensor.empty() : tensor<2x6x2x8xf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x6x2x16xf16>, tensor<5x8x1x16xf16>, tensor<5x8x1x8xf16>) block_table(%bt : tensor<2x7xi64>) kv_lengths(%len : tensor<2xi64>) outs(%o : tensor<2x6x2x8xf16>) -> tensor<2x6x2x8xf16>
  return %r : tensor<2x6x2x8xf16>
}

func.func @causal_f16(%q: tensor<2x4x3x16xf16>, %kc: tensor<6x8x2x16xf16>, %vc: tensor<6x8x2x24xf16>, %bt: tensor<2x4xi64>, %len: tensor<2xi64>) -> tensor<2x4x3x24xf16> {
  %o = tensor.empty() : tensor<2x4x3x24xf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x3x16xf16>, tensor<6x8x2x16xf16>, tensor<6x8x2x24xf16>) block_table(%bt : tensor<2x4xi64>) kv_lengths(%len : tensor<2xi64>) outs(%o : tensor<2x4x3x24xf16>) -> tensor<2x4x3x24xf16>
  return %r : tensor<2x4x3x24xf16>
}

func.func @causal_gqa_bf16(%q: tensor<1x8x4x32xbf16>, %kc: tensor<10x16x2x32xbf16>, %vc: tensor<10x16x2x32xbf16>, %bt: tensor<1x10xi32>, %len: tensor<1xi32>) -> tensor<1x8x4x32xbf16> {
  %o = tensor.empty() : tensor<1x8x4x32xbf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<1x8x4x32xbf16>, tensor<10x16x2x32xbf16>, tensor<10x16x2x32xbf16>) block_table(%bt : tensor<1x10xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x8x4x32xbf16>) -> tensor<1x8x4x32xbf16>
  return %r : tensor<1x8x4x32xbf16>
}

// D = 17, Dv = 5, causal, 3-token pages.
func.func @odd_head_dims(%q: tensor<2x4x2x17xf32>, %kc: tensor<7x3x2x17xf32>, %vc: tensor<7x3x2x5xf32>, %bt: tensor<2x4xi32>, %len: tensor<2xi32>) -> tensor<2x4x2x5xf32> {
  %o = tensor.empty() : tensor<2x4x2x5xf32>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x2x17xf32>, tensor<7x3x2x17xf32>, tensor<7x3x2x5xf32>) block_table(%bt : tensor<2x4xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x2x5xf32>) -> tensor<2x4x2x5xf32>
  return %r : tensor<2x4x2x5xf32>
}

func.func @one_token_pages(%q: tensor<1x2x1x8xbf16>, %kc: tensor<40x1x1x8xbf16>, %vc: tensor<40x1x1x8xbf16>, %bt: tensor<1x33xi64>, %len: tensor<1xi64>) -> tensor<1x2x1x8xbf16> {
  %o = tensor.empty() : tensor<1x2x1x8xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xbf16>, tensor<40x1x1x8xbf16>, tensor<40x1x1x8xbf16>) block_table(%bt : tensor<1x33xi64>) kv_lengths(%len : tensor<1xi64>) outs(%o : tensor<1x2x1x8xbf16>) -> tensor<1x2x1x8xbf16>
  return %r : tensor<1x2x1x8xbf16>
}

// 64 pages of 16 keys: four splits of 256 keys and the combine.
func.func @long_context(%q: tensor<1x4x1x64xbf16>, %kc: tensor<70x16x1x64xbf16>, %vc: tensor<70x16x1x64xbf16>, %bt: tensor<1x64xi32>, %len: tensor<1xi32>) -> tensor<1x4x1x64xbf16> {
  %o = tensor.empty() : tensor<1x4x1x64xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x4x1x64xbf16>, tensor<70x16x1x64xbf16>, tensor<70x16x1x64xbf16>) block_table(%bt : tensor<1x64xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x4x1x64xbf16>) -> tensor<1x4x1x64xbf16>
  return %r : tensor<1x4x1x64xbf16>
}

// Two sequences of up to 512 keys, two queries each: two splits.
func.func @speculative_splits(%q: tensor<2x4x2x32xf16>, %kc: tensor<40x16x2x32xf16>, %vc: tensor<40x16x2x32xf16>, %bt: tensor<2x32xi64>, %len: tensor<2xi64>) -> tensor<2x4x2x32xf16> {
  %o = tensor.empty() : tensor<2x4x2x32xf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<2x4x2x32xf16>, tensor<40x16x2x32xf16>, tensor<40x16x2x32xf16>) block_table(%bt : tensor<2x32xi64>) kv_lengths(%len : tensor<2xi64>) outs(%o : tensor<2x4x2x32xf16>) -> tensor<2x4x2x32xf16>
  return %r : tensor<2x4x2x32xf16>
}
