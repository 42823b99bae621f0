// Attention with a boolean (i1, true keeps) mask on the systolic array,
// against the fp64 oracle. The DMA reads the mask's bytes as the additive
// mask they mean (`unpack mask`: 0 where true, -inf where false) into the
// accumulator, and the softmax adds it as it adds a float mask: per-head
// masks, masks broadcast over heads (GQA stacks a KV head's query heads:
// one move per head's run of rows) and over keys (one column, added per
// row), with a causal band, with sequence lengths, bf16 and f32. The
// second and third RUN lines clear each mask's first two query rows (rows
// that keep no key give 0, as the oracle says) and draw sparse and dense
// masks; the last one shows the lowering reads the mask with `unpack mask`.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=3 --i1-zero-rows=2 --i1-density=0.2 --systolic-pipeline-options="attention-tile-q=8 attention-tile-kv=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=7 --i1-zero-rows=2 --i1-density=0.9 --dist=normal --systolic-pipeline-options="rows=8 cols=16 attention-tile-q=5 attention-tile-kv=8" | FileCheck %s
// RUN: accel-opt %s --accel-systolic-pipeline | FileCheck %s --check-prefix=IR
// CHECK: accel-run: 7 of 7 functions passed

// IR-LABEL: systolic.program @full
// IR-SAME: #systolic.buffer<"arg3", arg 3, tensor<1x2x20x37xi8>>
// IR: systolic.mvin 3[{{[0-9]+}}] stride 37 -> acc[{{[0-9]+}}] rows {{[0-9]+}} cols {{[0-9]+}} unpack mask
// IR: systolic.vector add
// IR-LABEL: systolic.program @key_broadcast_bf16
// IR: systolic.mvin 3[{{[0-9]+}}] stride 1 -> acc[{{[0-9]+}}] rows {{[0-9]+}} cols 1 unpack mask
// IR: systolic.vector add {{.*}} bcast row

func.func @full(%q: tensor<1x2x20x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x16xf32>, %m: tensor<1x2x20x37xi1>) -> tensor<1x2x20x16xf32> {
  %o = tensor.empty() : tensor<1x2x20x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x20x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x16xf32>) mask(%m : tensor<1x2x20x37xi1>) outs(%o : tensor<1x2x20x16xf32>) -> tensor<1x2x20x16xf32>
  return %0 : tensor<1x2x20x16xf32>
}

func.func @heads_broadcast_causal(%q: tensor<2x2x19x16xf32>, %k: tensor<2x2x19x16xf32>, %v: tensor<2x2x19x16xf32>, %m: tensor<2x1x19x19xi1>) -> tensor<2x2x19x16xf32> {
  %o = tensor.empty() : tensor<2x2x19x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x2x19x16xf32>, tensor<2x2x19x16xf32>, tensor<2x2x19x16xf32>) mask(%m : tensor<2x1x19x19xi1>) outs(%o : tensor<2x2x19x16xf32>) -> tensor<2x2x19x16xf32>
  return %0 : tensor<2x2x19x16xf32>
}

func.func @key_broadcast_bf16(%q: tensor<1x1x24x32xbf16>, %k: tensor<1x1x40x32xbf16>, %v: tensor<1x1x40x32xbf16>, %m: tensor<24x1xi1>) -> tensor<1x1x24x32xf32> {
  %o = tensor.empty() : tensor<1x1x24x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x24x32xbf16>, tensor<1x1x40x32xbf16>, tensor<1x1x40x32xbf16>) mask(%m : tensor<24x1xi1>) outs(%o : tensor<1x1x24x32xf32>) -> tensor<1x1x24x32xf32>
  return %0 : tensor<1x1x24x32xf32>
}

// GQA: 4 query heads on 2 KV heads, stacked into one block of rows; the
// mask per head (one move) and broadcast over the heads (one per run).
func.func @gqa_per_head(%q: tensor<1x4x10x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x16xf32>, %m: tensor<1x4x10x37xi1>) -> tensor<1x4x10x16xf32> {
  %o = tensor.empty() : tensor<1x4x10x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x10x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x16xf32>) mask(%m : tensor<1x4x10x37xi1>) outs(%o : tensor<1x4x10x16xf32>) -> tensor<1x4x10x16xf32>
  return %0 : tensor<1x4x10x16xf32>
}

func.func @gqa_heads_broadcast_causal_bf16(%q: tensor<2x4x7x16xbf16>, %k: tensor<2x2x19x16xbf16>, %v: tensor<2x2x19x16xbf16>, %m: tensor<2x1x7x19xi1>) -> tensor<2x4x7x16xbf16> {
  %o = tensor.empty() : tensor<2x4x7x16xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x7x16xbf16>, tensor<2x2x19x16xbf16>, tensor<2x2x19x16xbf16>) mask(%m : tensor<2x1x7x19xi1>) outs(%o : tensor<2x4x7x16xbf16>) -> tensor<2x4x7x16xbf16>
  return %0 : tensor<2x4x7x16xbf16>
}

// A decode step with a padding mask over the keys ([B, 1, 1, Skv]).
func.func @decode_padding_bf16(%q: tensor<2x4x1x32xbf16>, %k: tensor<2x1x40x32xbf16>, %v: tensor<2x1x40x32xbf16>, %m: tensor<2x1x1x40xi1>) -> tensor<2x4x1x32xf32> {
  %o = tensor.empty() : tensor<2x4x1x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x1x32xbf16>, tensor<2x1x40x32xbf16>, tensor<2x1x40x32xbf16>) mask(%m : tensor<2x1x1x40xi1>) outs(%o : tensor<2x4x1x32xf32>) -> tensor<2x4x1x32xf32>
  return %0 : tensor<2x4x1x32xf32>
}

// With run-time key lengths: the keys past a sequence's length are dropped
// whatever the mask says.
func.func @lengths(%q: tensor<3x2x5x16xf32>, %k: tensor<3x2x40x16xf32>, %v: tensor<3x2x40x24xf32>, %m: tensor<3x1x5x40xi1>, %len: tensor<3xi32>) -> tensor<3x2x5x24xf32> {
  %o = tensor.empty() : tensor<3x2x5x24xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<3x2x5x16xf32>, tensor<3x2x40x16xf32>, tensor<3x2x40x24xf32>) mask(%m : tensor<3x1x5x40xi1>) kv_lengths(%len : tensor<3xi32>) outs(%o : tensor<3x2x5x24xf32>) -> tensor<3x2x5x24xf32>
  return %0 : tensor<3x2x5x24xf32>
}
