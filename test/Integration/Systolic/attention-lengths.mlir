// accel.attention with kv_lengths (a right-padded batch) on the systolic
// array against the fp64 oracle: each sequence's key length is read into
// a scalar register; its keys past the length are neither read (the DMA's
// bound) nor kept (mask_keys), the key blocks past it are skipped, and
// the causal band follows the sequence's own end (diagonal + length -
// Skv). accel-run draws lengths in [0, Skv]; the last RUN also gives
// sequence 0 a negative length (keeps nothing: zeros) and sequence 1 one
// past Skv (keeps every key, moves the band).
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=5 --systolic-pipeline-options="attention-tile-q=4 attention-tile-kv=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=16 vector-lanes=4 attention-tile-kv=8" | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=9 --poison=3:0:-5 --poison=3:1:1000 | FileCheck %s
// CHECK: accel-run: 5 of 5 functions passed

func.func @padded(%q: tensor<3x2x5x16xf32>, %k: tensor<3x2x40x16xf32>, %v: tensor<3x2x40x24xf32>, %len: tensor<3xi32>) -> tensor<3x2x5x24xf32> {
  %o = tensor.empty() : tensor<3x2x5x24xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<3x2x5x16xf32>, tensor<3x2x40x16xf32>, tensor<3x2x40x24xf32>) kv_lengths(%len : tensor<3xi32>) outs(%o : tensor<3x2x5x24xf32>) -> tensor<3x2x5x24xf32>
  return %0 : tensor<3x2x5x24xf32>
}

func.func @causal_gqa(%q: tensor<2x4x6x32xbf16>, %k: tensor<2x2x50x32xbf16>, %v: tensor<2x2x50x32xbf16>, %len: tensor<2xi32>) -> tensor<2x4x6x32xf32> {
  %o = tensor.empty() : tensor<2x4x6x32xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x6x32xbf16>, tensor<2x2x50x32xbf16>, tensor<2x2x50x32xbf16>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x6x32xf32>) -> tensor<2x4x6x32xf32>
  return %0 : tensor<2x4x6x32xf32>
}

func.func @causal_diagonal(%q: tensor<2x1x8x16xf32>, %k: tensor<2x1x20x16xf32>, %v: tensor<2x1x20x16xf32>, %len: tensor<2xi32>) -> tensor<2x1x8x16xf32> {
  %d = arith.constant 3 : index
  %o = tensor.empty() : tensor<2x1x8x16xf32>
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<2x1x8x16xf32>, tensor<2x1x20x16xf32>, tensor<2x1x20x16xf32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x1x8x16xf32>) -> tensor<2x1x8x16xf32>
  return %0 : tensor<2x1x8x16xf32>
}

func.func @masked(%q: tensor<2x2x4x16xf32>, %k: tensor<2x2x30x16xf32>, %v: tensor<2x2x30x16xf32>, %len: tensor<2xi32>, %m: tensor<2x1x4x30xf32>) -> tensor<2x2x4x16xf32> {
  %o = tensor.empty() : tensor<2x2x4x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x2x4x16xf32>, tensor<2x2x30x16xf32>, tensor<2x2x30x16xf32>) mask(%m : tensor<2x1x4x30xf32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x4x16xf32>) -> tensor<2x2x4x16xf32>
  return %0 : tensor<2x2x4x16xf32>
}

// Decode against a padded cache of 200 keys (many blocks to skip).
func.func @decode(%q: tensor<2x2x1x64xbf16>, %k: tensor<2x2x200x64xbf16>, %v: tensor<2x2x200x64xbf16>, %len: tensor<2xi32>) -> tensor<2x2x1x64xbf16> {
  %o = tensor.empty() : tensor<2x2x1x64xbf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x2x1x64xbf16>, tensor<2x2x200x64xbf16>, tensor<2x2x200x64xbf16>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x1x64xbf16>) -> tensor<2x2x1x64xbf16>
  return %0 : tensor<2x2x1x64xbf16>
}
