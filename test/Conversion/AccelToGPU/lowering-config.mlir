// convert-accel-to-gpu obeys an op's #accel.lowering_config: a config
// written by hand (or by accel-gpu-configure) decides the kernel, the tile,
// the warps and the stages, over the model and over the pass options; the
// stage completes what a config leaves out. The launch attribute of each
// kernel shows what was compiled.
//
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a" | FileCheck %s --check-prefix=CONFIG
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a tile-m=128" | FileCheck %s
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" | FileCheck %s

// mma.sync on sm_90a, where the model would take wgmma; the tile as given,
// warps and stages filled in (the tile-m option does not apply to an op
// whose config names a tile).
// CONFIG-LABEL: func.func @hand_written
// CONFIG: #accel.lowering_config<kernel = "mma.sync", tile = [64, 128, 32], warps = [1, 4], mma = [16, 8, 16], stages = 3>
// CHECK-LABEL: gpu.func @hand_written_0
// CHECK-SAME: mma = "mma.sync"
// CHECK-SAME: stages = 3
// CHECK-SAME: tile = array<i64: 64, 128, 32>
// CHECK-SAME: warps = array<i64: 1, 4>
func.func @hand_written(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
  %c = tensor.empty() : tensor<256x256xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%c : tensor<256x256xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 128, 32], warps = [1, 4]>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// A full config: every field as written.
// CONFIG-LABEL: func.func @full
// CONFIG: #accel.lowering_config<kernel = "wgmma", tile = [64, 64, 64], warps = [4, 1], mma = [64, 64, 16], stages = 3>
// CHECK-LABEL: gpu.func @full_0
// CHECK-SAME: mma = "wgmma"
// CHECK-SAME: stages = 3
// CHECK-SAME: tile = array<i64: 64, 64, 64>
// CHECK-SAME: warps = array<i64: 4, 1>
func.func @full(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %c = tensor.empty() : tensor<256x256xf32>
  %0 = accel.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "wgmma", tile = [64, 64, 64], warps = [4, 1], mma = [64, 64, 16], stages = 3>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// Attention: the mma.sync kernel on sm_90a, 3 stages.
// CONFIG-LABEL: func.func @attention
// CONFIG: #accel.lowering_config<kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 16], stages = 3>
// CHECK-LABEL: gpu.func @attention_0
// CHECK-SAME: block = array<i64: 128, 1, 1>
// CHECK-SAME: grid = array<i64: 2, 2, 1>
// CHECK-SAME: stages = 3
func.func @attention(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>)
         {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", stages = 3>} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}
