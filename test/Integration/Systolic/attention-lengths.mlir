// accel.attention with kv_lengths and q_lengths (a right-padded batch) on
// the systolic array against the fp64 oracle: each sequence's lengths are
// read into scalar registers; its keys past the key length are neither
// read (the DMA's bound) nor kept (mask_keys), its rows past the query
// length keep nothing (mask_rows: zeros), the key blocks past the key
// length and the query blocks past the query length are skipped, and the
// causal band (and a sliding window) follows the sequence's own end
// (diagonal + (kvlen - Skv) - (qlen - Sq), an ssub of the two registers).
// accel-run draws lengths in [0, Skv] and [0, Sq]; the last RUN also gives
// sequence 0 a negative length (keeps nothing: zeros) and sequence 1 one
// past the padded size (keeps everything, moves the band).
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=5 --systolic-pipeline-options="attention-tile-q=4 attention-tile-kv=16" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=16 vector-lanes=4 attention-tile-kv=8" | FileCheck %s
// RUN: accel-run %s --target=systolic --seed=9 --poison=3:0:-5 --poison=3:1:1000 | FileCheck %s
// CHECK: accel-run: 9 of 9 functions passed

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

// Both lengths, causal: off = kvlen - qlen.
func.func @both_lengths(%q: tensor<2x2x9x16xf32>, %k: tensor<2x2x30x16xf32>, %v: tensor<2x2x30x16xf32>, %len: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x2x9x16xf32> {
  %o = tensor.empty() : tensor<2x2x9x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x2x9x16xf32>, tensor<2x2x30x16xf32>, tensor<2x2x30x16xf32>) kv_lengths(%len : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) outs(%o : tensor<2x2x9x16xf32>) -> tensor<2x2x9x16xf32>
  return %0 : tensor<2x2x9x16xf32>
}

// Query lengths only (arg 3), causal, GQA, bf16 out.
func.func @query_lengths(%q: tensor<2x4x6x32xbf16>, %k: tensor<2x2x20x32xbf16>, %v: tensor<2x2x20x32xbf16>, %ql: tensor<2xi32>) -> tensor<2x4x6x32xbf16> {
  %o = tensor.empty() : tensor<2x4x6x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x6x32xbf16>, tensor<2x2x20x32xbf16>, tensor<2x2x20x32xbf16>) q_lengths(%ql : tensor<2xi32>) outs(%o : tensor<2x4x6x32xbf16>) -> tensor<2x4x6x32xbf16>
  return %0 : tensor<2x4x6x32xbf16>
}

// A sliding window over a padded cache (Mistral-style), a few queries.
func.func @window_lengths(%q: tensor<2x2x4x32xbf16>, %k: tensor<2x2x60x32xbf16>, %v: tensor<2x2x60x32xbf16>, %len: tensor<2xi32>) -> tensor<2x2x4x32xf32> {
  %o = tensor.empty() : tensor<2x2x4x32xf32>
  %0 = accel.attention causal window(7) ins(%q, %k, %v : tensor<2x2x4x32xbf16>, tensor<2x2x60x32xbf16>, tensor<2x2x60x32xbf16>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x4x32xf32>) -> tensor<2x2x4x32xf32>
  return %0 : tensor<2x2x4x32xf32>
}

// Both lengths, a window and an explicit diagonal.
func.func @window_both(%q: tensor<2x1x12x16xf32>, %k: tensor<2x1x25x16xf32>, %v: tensor<2x1x25x16xf32>, %len: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x1x12x16xf32> {
  %d = arith.constant 10 : index
  %o = tensor.empty() : tensor<2x1x12x16xf32>
  %0 = accel.attention causal window(5) diagonal(%d) ins(%q, %k, %v : tensor<2x1x12x16xf32>, tensor<2x1x25x16xf32>, tensor<2x1x25x16xf32>) kv_lengths(%len : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) outs(%o : tensor<2x1x12x16xf32>) -> tensor<2x1x12x16xf32>
  return %0 : tensor<2x1x12x16xf32>
}
