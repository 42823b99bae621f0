// Output-stationary schedules take a K, and a tile-k, that is not a
// multiple of the array's rows (issue 32): the last slice of each K block is
// short and streams only its real rows, which computes what the slice
// zero-padded to whole rows would (zeros add nothing to the sums). Run on
// the simulator against the fp64 oracle with the results prefilled with NaN
// (accel-run), so every element of every output tile, the partial last one
// in M and N included, must have been written and be right: int8
// bit-exact, bf16/f32 within the contract. K = 513 on 8x8 leaves a 1-deep
// last slice; K = 1000 on 32x16 a 8-deep one (1000 = 31 x 32 + 8); tile-k =
// 100 and 300 split K into several blocks whose last ones (13 and 100 deep)
// are short too, and `accumulate` adds to C through every block.
//
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=8 cols=8 dataflow=os tile-k=513" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=8 cols=8 dataflow=os tile-m=16 tile-n=8 tile-k=100" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=32 cols=16 spad-kib=1024 dataflow=os tile-k=1000" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=32 cols=16 spad-kib=1024 dataflow=os tile-m=32 tile-n=16 tile-k=300" | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=32 cols=16 spad-kib=1024 dataflow=os tile-k=1000" | FileCheck %s
//
// The schedule model's own choice for OS still pads the block (a multiple
// of rows covering K) and stays exact.
// RUN: accel-run %s --target=systolic --dist=exact --systolic-pipeline-options="rows=32 cols=16 spad-kib=1024 dataflow=os" | FileCheck %s
//
// The program keeps one output tile per fold streaming all of K: K = 513
// on 8x8 with tile-k = 513 is one stream of 64 slices 8 deep and one 1 deep per tile.
// RUN: accel-opt %s --convert-accel-to-systolic="rows=8 cols=8 dataflow=os tile-m=8 tile-n=8 tile-k=513" | FileCheck %s --check-prefix=PROG
//
// CHECK-NOT: FAIL
// CHECK: accel-run: 5 of 5 functions passed
//
// PROG-LABEL: systolic.program @k513
// PROG: systolic.preload to acc[0] m 8 k 0 n 8{{$}}
// PROG-NEXT: systolic.compute preloaded spad[0] times spad[{{[0-9]+}}] m 8 k 8 n 8
// PROG-COUNT-63: systolic.compute spad[{{[0-9]+}}] times spad[{{[0-9]+}}] m 8 k 8 n 8
// PROG-NEXT: systolic.compute spad[{{[0-9]+}}] times spad[{{[0-9]+}}] m 8 k 1 n 8
// PROG-NOT: systolic.compute
// PROG: systolic.preload to acc[8] m 8 k 0 n 8{{$}}

func.func @k513(%a: tensor<37x513xi8>, %b: tensor<513x29xi8>) -> tensor<37x29xi32> {
  %c = tensor.empty() : tensor<37x29xi32>
  %0 = accel.matmul ins(%a, %b : tensor<37x513xi8>, tensor<513x29xi8>) outs(%c : tensor<37x29xi32>) -> tensor<37x29xi32>
  return %0 : tensor<37x29xi32>
}

func.func @k513_accumulate(%a: tensor<37x513xi8>, %b: tensor<513x29xi8>, %c: tensor<37x29xi32>) -> tensor<37x29xi32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<37x513xi8>, tensor<513x29xi8>) outs(%c : tensor<37x29xi32>) -> tensor<37x29xi32>
  return %0 : tensor<37x29xi32>
}

func.func @k1000(%a: tensor<45x1000xi8>, %b: tensor<1000x35xi8>) -> tensor<45x35xi32> {
  %c = tensor.empty() : tensor<45x35xi32>
  %0 = accel.matmul ins(%a, %b : tensor<45x1000xi8>, tensor<1000x35xi8>) outs(%c : tensor<45x35xi32>) -> tensor<45x35xi32>
  return %0 : tensor<45x35xi32>
}

func.func @k1000_bf16(%a: tensor<45x1000xbf16>, %b: tensor<1000x35xbf16>) -> tensor<45x35xf32> {
  %c = tensor.empty() : tensor<45x35xf32>
  %0 = accel.matmul ins(%a, %b : tensor<45x1000xbf16>, tensor<1000x35xbf16>) outs(%c : tensor<45x35xf32>) -> tensor<45x35xf32>
  return %0 : tensor<45x35xf32>
}

func.func @k513_f32(%a: tensor<37x513xf32>, %b: tensor<513x29xf32>) -> tensor<37x29xf32> {
  %c = tensor.empty() : tensor<37x29xf32>
  %0 = accel.matmul ins(%a, %b : tensor<37x513xf32>, tensor<513x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}
