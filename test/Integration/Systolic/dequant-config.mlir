// accel.dequant_matmul with its blocks written by hand (a lowering_config
// tile [rows of A a block, rows of W a strip]): the conversion obeys it
// (blocks of 2 of C's columns, strips of 40 rows of W: 6 mvouts a strip
// set, the last strip 16 rows) and the result matches fp64.
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-systolic | FileCheck %s --check-prefix=PROG
// CHECK: accel-run: 1 of 1 functions passed
// PROG:      systolic.mvout acc[0] rows 40 cols 2 -> 3[0] stride 96 transpose
// PROG-NEXT: systolic.mvout acc[40] rows 40 cols 2 -> 3[192] stride 96 transpose
// PROG:      systolic.mvout acc[0] rows 16 cols 2 -> 3[80] stride 96 transpose

func.func @hand_blocks(%a: tensor<4x256xbf16>, %w: tensor<96x128xi8>, %s: tensor<96x2xbf16>) -> tensor<4x96xf32> {
  %c = tensor.empty() : tensor<4x96xf32>
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<4x256xbf16>, tensor<96x128xi8>) scales(%s : tensor<96x2xbf16>) outs(%c : tensor<4x96xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [2, 40]>} -> tensor<4x96xf32>
  return %0 : tensor<4x96xf32>
}
