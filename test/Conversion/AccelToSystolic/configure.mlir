// accel-systolic-configure: the dataflow and blocks the schedule model
// predicts fastest for the machine of the options, attached to each matmul
// and attention without emitting a program; options override the model, a
// config written by hand is kept, empty matmuls need none, and configuring
// configured IR changes nothing.
//
// RUN: accel-opt %s --accel-systolic-configure | FileCheck %s
// RUN: accel-opt %s --accel-systolic-configure="rows=8 cols=8 dataflow=os attention-tile-q=16" | FileCheck %s --check-prefix=OPTS
// RUN: accel-opt %s --accel-systolic-configure -o %t.once.mlir
// RUN: accel-opt %t.once.mlir --accel-systolic-configure -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
//
// The conversion obeys the configs: the pipeline (configure, then convert)
// and the conversion alone (which configures what has no config) emit the
// same program.
// RUN: accel-opt %s --accel-systolic-configure --convert-accel-to-systolic -o %t.staged.mlir
// RUN: accel-opt %s --convert-accel-to-systolic -o %t.alone.mlir
// RUN: diff %t.staged.mlir %t.alone.mlir

// CHECK-LABEL: func.func @mm_i8
// CHECK: accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [70, 32, 64], dataflow = "is">
// OPTS-LABEL: func.func @mm_i8
// OPTS: accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [8, 16, 304], dataflow = "os">
func.func @mm_i8(%a: tensor<100x300xi8>, %b: tensor<300x70xi8>) -> tensor<100x70xi32> {
  %c = tensor.empty() : tensor<100x70xi32>
  %0 = accel.matmul ins(%a, %b : tensor<100x300xi8>, tensor<300x70xi8>) outs(%c : tensor<100x70xi32>) -> tensor<100x70xi32>
  return %0 : tensor<100x70xi32>
}

// Kept as written (the options do not apply to it).
// CHECK-LABEL: func.func @hand_written
// CHECK: #accel.lowering_config<kernel = "systolic", tile = [64, 64, 48], dataflow = "ws">
// OPTS-LABEL: func.func @hand_written
// OPTS: #accel.lowering_config<kernel = "systolic", tile = [64, 64, 48], dataflow = "ws">
func.func @hand_written(%a: tensor<128x96xbf16>, %b: tensor<96x128xbf16>) -> tensor<128x128xf32> {
  %c = tensor.empty() : tensor<128x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x96xbf16>, tensor<96x128xbf16>) outs(%c : tensor<128x128xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [64, 64, 48], dataflow = "ws">} -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// A dataflow only: the model's best tile for it.
// CHECK-LABEL: func.func @dataflow_only
// CHECK: #accel.lowering_config<kernel = "systolic", tile = [64, 16, 96], dataflow = "os">
func.func @dataflow_only(%a: tensor<128x96xbf16>, %b: tensor<96x128xbf16>) -> tensor<128x128xf32> {
  %c = tensor.empty() : tensor<128x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x96xbf16>, tensor<96x128xbf16>) outs(%c : tensor<128x128xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "systolic", dataflow = "os">} -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

// An empty C: no schedule to choose.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: lowering_config
// CHECK: return
func.func @empty(%a: tensor<0x16xi8>, %b: tensor<16x16xi8>) -> tensor<0x16xi32> {
  %c = tensor.empty() : tensor<0x16xi32>
  %0 = accel.matmul ins(%a, %b : tensor<0x16xi8>, tensor<16x16xi8>) outs(%c : tensor<0x16xi32>) -> tensor<0x16xi32>
  return %0 : tensor<0x16xi32>
}

// Attention: 4 array widths of keys, as many query rows as fit.
// CHECK-LABEL: func.func @att
// CHECK: #accel.lowering_config<kernel = "systolic", tile = [48, 64]>
// OPTS-LABEL: func.func @att
// OPTS: #accel.lowering_config<kernel = "systolic", tile = [16, 32]>
func.func @att(%q: tensor<1x2x97x64xf32>, %k: tensor<1x2x200x64xf32>, %v: tensor<1x2x200x64xf32>) -> tensor<1x2x97x64xf32> {
  %o = tensor.empty() : tensor<1x2x97x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x97x64xf32>, tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32>) outs(%o : tensor<1x2x97x64xf32>) -> tensor<1x2x97x64xf32>
  return %0 : tensor<1x2x97x64xf32>
}

// A weight-only quantised matmul: [rows of A a block (the array's
// columns), rows of W a strip (as tall as the accumulator allows, up to
// 512)]; a hand-written one is kept and the conversion obeys it (the
// staged/alone diff above; Integration/Systolic/dequant-config.mlir runs one).
// CHECK-LABEL: func.func @dequant
// CHECK: accel.dequant_matmul {{.*}} {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 96]>}
// CHECK: accel.dequant_matmul {{.*}} {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [4, 32]>}
// OPTS-LABEL: func.func @dequant
// OPTS: accel.dequant_matmul {{.*}} {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [8, 144]>}
// OPTS: accel.dequant_matmul {{.*}} {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [4, 32]>}
func.func @dequant(%a: tensor<20x256xbf16>, %w: tensor<1024x128xi8>, %s: tensor<1024x2xbf16>) -> (tensor<20x1024xf32>, tensor<20x1024xf32>) {
  %c = tensor.empty() : tensor<20x1024xf32>
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<20x256xbf16>, tensor<1024x128xi8>) scales(%s : tensor<1024x2xbf16>) outs(%c : tensor<20x1024xf32>) -> tensor<20x1024xf32>
  %1 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<20x256xbf16>, tensor<1024x128xi8>) scales(%s : tensor<1024x2xbf16>) outs(%c : tensor<20x1024xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [4, 32]>} -> tensor<20x1024xf32>
  return %0, %1 : tensor<20x1024xf32>, tensor<20x1024xf32>
}
