// NaN and Inf propagate to exactly the outputs that depend on them: accel-run
// plants the value (--poison=ARG:INDEX:VALUE), the fp64 oracle propagates it,
// and the check demands NaN (or the same infinity) exactly where the oracle
// has one and finite values everywhere else.

// A[0, 5] = NaN: row 0 of C is NaN, the other rows are finite.
// RUN: accel-run %s --entry=mm --poison=0:5:nan --repeat=0 | FileCheck %s --check-prefix=CHECK-MM
// CHECK-MM: @mm
// CHECK-MM: PASS

// B[3, 2] = +inf: column 2 of C is ±inf (the sign follows A[:, 3]).
// RUN: accel-run %s --entry=mm --poison=1:26:inf --repeat=0 | FileCheck %s --check-prefix=CHECK-MM

// One NaN in a softmax row makes that row NaN, and only that row.
// RUN: accel-run %s --entry=softmax_rows --poison=0:13:nan --repeat=0 | FileCheck %s --check-prefix=CHECK-SM
// CHECK-SM: @softmax_rows
// CHECK-SM: PASS

// K[0, 0, 3, 1] = NaN: every query row that keeps key 3 is NaN; with the
// causal band, rows that cannot see key 3 stay finite.
// RUN: accel-run %s --entry=attention_causal --poison=1:25:nan --repeat=0 | FileCheck %s --check-prefix=CHECK-AT
// CHECK-AT: @attention_causal
// CHECK-AT: PASS

// V[0, 0, 5, 2] = NaN: key 5 is kept by rows 5-7, whose column 2 must be
// NaN. Rows 0-4 mask key 5: it takes no part in their values, but NaN is
// correct there too (docs/numerics.md), since a kernel multiplies it by the
// zero probability unless it skipped the key's whole tile. With 2x2 tiles,
// query rows 0-3 skip the tile of keys 4-5 (finite), row 4 shares it
// (0 * NaN); with the default tiles, every row multiplies it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: accel-run %s --entry=attention_causal --poison=2:42:nan --repeat=0 --cpu-pipeline-options="attention-tile-q=2 attention-tile-kv=2" --save-outputs=%t | FileCheck %s --check-prefix=CHECK-AT
// RUN: %python %S/print_npy.py %t/attention_causal.0.npy | FileCheck %s --check-prefix=CHECK-VNAN
// RUN: accel-run %s --entry=attention_causal --poison=2:42:nan --repeat=0 | FileCheck %s --check-prefix=CHECK-AT
// CHECK-VNAN: npy[2] = {{-?[0-9]}}
// CHECK-VNAN: npy[10] = {{-?[0-9]}}
// CHECK-VNAN: npy[18] = {{-?[0-9]}}
// CHECK-VNAN: npy[26] = {{-?[0-9]}}
// CHECK-VNAN: npy[42] = nan
// CHECK-VNAN: npy[50] = nan
// CHECK-VNAN: npy[58] = nan

// C is NaN-prefilled and never read without `accumulate`: a NaN planted
// there must not reach the result.
// RUN: accel-run %s --entry=mm --poison=2:0:nan --repeat=0 | FileCheck %s --check-prefix=CHECK-MM

func.func @mm(%a: tensor<6x8xf32>, %b: tensor<8x12xf32>, %c: tensor<6x12xf32>) -> tensor<6x12xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<6x8xf32>, tensor<8x12xf32>) outs(%c : tensor<6x12xf32>) -> tensor<6x12xf32>
  return %0 : tensor<6x12xf32>
}

func.func @softmax_rows(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %y = tensor.empty() : tensor<4x10xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x10xf32>) outs(%y : tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

func.func @attention_causal(%q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  %o = tensor.empty() : tensor<1x1x8x8xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) outs(%o : tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}
