// The roofline of a weight-only quantised GEMV: 2·M·N·K FLOPs in f32 and
// the packed weights' bytes (4 bits a weight) with A, the scales, the zero
// points and C: 33.55 MFLOP, 8192 + 8388608 + 2 x 262144 + 16384 = 8.94 MB,
// memory-bound on a CPU core; its tiles come from the configuration stage.
// RUN: accel-opt %s --accel-roofline="target=x86-64-sapphirerapids report=-" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: roofline on x86-64-sapphirerapids: 33.55 MFLOP, 8.94 MB, 3.8 FLOP/B, memory-bound
// CHECK: note: no tiles on x86-64-sapphirerapids: an accel.dequant_matmul takes its register tile from the CPU configuration stage (accel-cpu-configure), not from accel-tile
// CHECK: 0    accel.dequant_matmul    33.55 MFLOP        8.94 MB         3.8 memory
func.func @gemv(%x: tensor<1x4096xbf16>, %w: tensor<4096x2048xi8>, %s: tensor<4096x32xbf16>,
                %z: tensor<4096x32xbf16>, %c: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<1x4096xbf16>, tensor<4096x2048xi8>)
         scales(%s : tensor<4096x32xbf16>) zero_points(%z : tensor<4096x32xbf16>)
         outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
