// Attention on the systolic array: QKᵀ and PV on the array, the online
// softmax on the vector unit, against the fp64 oracle. Causal (bottom-right
// aligned, and with an explicit diagonal that leaves rows with no key),
// GQA, non-multiple lengths, several key blocks, bf16 and f32, additive
// masks broadcast every way.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="attention-tile-q=8 attention-tile-kv=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=16 attention-tile-q=5 attention-tile-kv=8" | FileCheck %s
// CHECK: accel-run: 13 of 13 functions passed

func.func @plain(%q: tensor<1x2x40x32xf32>, %k: tensor<1x2x50x32xf32>, %v: tensor<1x2x50x24xf32>) -> tensor<1x2x40x24xf32> {
  %o = tensor.empty() : tensor<1x2x40x24xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x40x32xf32>, tensor<1x2x50x32xf32>, tensor<1x2x50x24xf32>) outs(%o : tensor<1x2x40x24xf32>) -> tensor<1x2x40x24xf32>
  return %0 : tensor<1x2x40x24xf32>
}

func.func @causal_gqa(%q: tensor<2x4x37x16xf32>, %k: tensor<2x2x70x16xf32>, %v: tensor<2x2x70x16xf32>) -> tensor<2x4x37x16xf32> {
  %o = tensor.empty() : tensor<2x4x37x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x37x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32>) outs(%o : tensor<2x4x37x16xf32>) -> tensor<2x4x37x16xf32>
  return %0 : tensor<2x4x37x16xf32>
}

func.func @causal_square(%q: tensor<1x1x100x40xf32>, %k: tensor<1x1x100x40xf32>, %v: tensor<1x1x100x40xf32>) -> tensor<1x1x100x40xf32> {
  %o = tensor.empty() : tensor<1x1x100x40xf32>
  %0 = accel.attention causal scale(0.3) ins(%q, %k, %v : tensor<1x1x100x40xf32>, tensor<1x1x100x40xf32>, tensor<1x1x100x40xf32>) outs(%o : tensor<1x1x100x40xf32>) -> tensor<1x1x100x40xf32>
  return %0 : tensor<1x1x100x40xf32>
}

func.func @empty_rows(%q: tensor<1x1x30x16xf32>, %k: tensor<1x1x20x16xf32>, %v: tensor<1x1x20x16xf32>) -> tensor<1x1x30x16xf32> {
  %d = arith.constant -12 : index
  %o = tensor.empty() : tensor<1x1x30x16xf32>
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x30x16xf32>, tensor<1x1x20x16xf32>, tensor<1x1x20x16xf32>) outs(%o : tensor<1x1x30x16xf32>) -> tensor<1x1x30x16xf32>
  return %0 : tensor<1x1x30x16xf32>
}

func.func @bf16(%q: tensor<1x2x33x64xbf16>, %k: tensor<1x1x47x64xbf16>, %v: tensor<1x1x47x64xbf16>) -> tensor<1x2x33x64xf32> {
  %o = tensor.empty() : tensor<1x2x33x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x33x64xbf16>, tensor<1x1x47x64xbf16>, tensor<1x1x47x64xbf16>) outs(%o : tensor<1x2x33x64xf32>) -> tensor<1x2x33x64xf32>
  return %0 : tensor<1x2x33x64xf32>
}

func.func @bf16_causal_out(%q: tensor<1x1x64x32xbf16>, %k: tensor<1x1x64x32xbf16>, %v: tensor<1x1x64x32xbf16>) -> tensor<1x1x64x32xbf16> {
  %o = tensor.empty() : tensor<1x1x64x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>) outs(%o : tensor<1x1x64x32xbf16>) -> tensor<1x1x64x32xbf16>
  return %0 : tensor<1x1x64x32xbf16>
}

// Additive masks, broadcast every way the op allows: full, per batch with
// broadcast heads, one column per query row (broadcast keys), bf16.
func.func @mask_full(%q: tensor<1x2x20x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x16xf32>, %m: tensor<1x2x20x37xf32>) -> tensor<1x2x20x16xf32> {
  %o = tensor.empty() : tensor<1x2x20x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x20x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x16xf32>) mask(%m : tensor<1x2x20x37xf32>) outs(%o : tensor<1x2x20x16xf32>) -> tensor<1x2x20x16xf32>
  return %0 : tensor<1x2x20x16xf32>
}

func.func @mask_heads_broadcast_causal(%q: tensor<2x2x19x16xf32>, %k: tensor<2x2x19x16xf32>, %v: tensor<2x2x19x16xf32>, %m: tensor<2x1x19x19xf32>) -> tensor<2x2x19x16xf32> {
  %o = tensor.empty() : tensor<2x2x19x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x2x19x16xf32>, tensor<2x2x19x16xf32>, tensor<2x2x19x16xf32>) mask(%m : tensor<2x1x19x19xf32>) outs(%o : tensor<2x2x19x16xf32>) -> tensor<2x2x19x16xf32>
  return %0 : tensor<2x2x19x16xf32>
}

func.func @mask_key_broadcast_bf16(%q: tensor<1x1x24x32xbf16>, %k: tensor<1x1x40x32xbf16>, %v: tensor<1x1x40x32xbf16>, %m: tensor<24x1xbf16>) -> tensor<1x1x24x32xf32> {
  %o = tensor.empty() : tensor<1x1x24x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x24x32xbf16>, tensor<1x1x40x32xbf16>, tensor<1x1x40x32xbf16>) mask(%m : tensor<24x1xbf16>) outs(%o : tensor<1x1x24x32xf32>) -> tensor<1x1x24x32xf32>
  return %0 : tensor<1x1x24x32xf32>
}

// GQA with a mask: a KV head's query heads stacked in the rows (K and V
// read once for the group) and the mask read per head's run of rows: one
// move where the heads' rows follow each other (a per-head mask), one per
// run where it broadcasts over the heads or the queries; Sq 7 and 10 put
// head boundaries inside the query blocks.
func.func @mask_gqa_full(%q: tensor<1x4x10x16xf32>, %k: tensor<1x2x37x16xf32>, %v: tensor<1x2x37x16xf32>, %m: tensor<1x4x10x37xf32>) -> tensor<1x4x10x16xf32> {
  %o = tensor.empty() : tensor<1x4x10x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x10x16xf32>, tensor<1x2x37x16xf32>, tensor<1x2x37x16xf32>) mask(%m : tensor<1x4x10x37xf32>) outs(%o : tensor<1x4x10x16xf32>) -> tensor<1x4x10x16xf32>
  return %0 : tensor<1x4x10x16xf32>
}

func.func @mask_gqa_heads_broadcast_causal(%q: tensor<2x4x7x16xf32>, %k: tensor<2x2x19x16xf32>, %v: tensor<2x2x19x16xf32>, %m: tensor<2x1x7x19xf32>) -> tensor<2x4x7x16xf32> {
  %o = tensor.empty() : tensor<2x4x7x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x7x16xf32>, tensor<2x2x19x16xf32>, tensor<2x2x19x16xf32>) mask(%m : tensor<2x1x7x19xf32>) outs(%o : tensor<2x4x7x16xf32>) -> tensor<2x4x7x16xf32>
  return %0 : tensor<2x4x7x16xf32>
}

func.func @mask_mqa_decode_bf16(%q: tensor<1x4x1x32xbf16>, %k: tensor<1x1x40x32xbf16>, %v: tensor<1x1x40x32xbf16>, %m: tensor<1x4x1x40xbf16>) -> tensor<1x4x1x32xf32> {
  %o = tensor.empty() : tensor<1x4x1x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x1x32xbf16>, tensor<1x1x40x32xbf16>, tensor<1x1x40x32xbf16>) mask(%m : tensor<1x4x1x40xbf16>) outs(%o : tensor<1x4x1x32xf32>) -> tensor<1x4x1x32xf32>
  return %0 : tensor<1x4x1x32xf32>
}

func.func @mask_gqa_one_key(%q: tensor<1x4x6x32xbf16>, %k: tensor<1x2x40x32xbf16>, %v: tensor<1x2x40x32xbf16>, %m: tensor<6x1xf32>) -> tensor<1x4x6x32xf32> {
  %o = tensor.empty() : tensor<1x4x6x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x6x32xbf16>, tensor<1x2x40x32xbf16>, tensor<1x2x40x32xbf16>) mask(%m : tensor<6x1xf32>) outs(%o : tensor<1x4x6x32xf32>) -> tensor<1x4x6x32xf32>
  return %0 : tensor<1x4x6x32xf32>
}
