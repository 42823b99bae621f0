// RUN: accel-opt %s -split-input-file --accel-decompose-attention | FileCheck %s

// cpu-flash-amx (bf16 attention on AMX tiles, chosen by accel-cpu-configure):
// the config's blocks, and P rounded to bf16 (V's type) before P·V, so both
// tile products are bf16 x bf16 -> f32 (what accel-cpu-amx-kernels takes);
// V is not widened.
// CHECK-LABEL: func @amx
// CHECK: scf.for %{{.+}} = %{{.+}} to %c256 step %c64
// CHECK: scf.for %{{.+}} = %{{.+}} to %c256{{(_[0-9]+)?}} step %c32
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<64x64xbf16>, tensor<64x32xbf16>) outs(%{{.+}} : tensor<64x32xf32>)
// The row max may ignore a NaN logit (the NaN reaches the row through P).
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<64x32xf32>) outs(%{{.+}} : tensor<64xf32>) attrs = {accel.unordered_max}
// CHECK: arith.maximumf
// P and its row sums in one pass, P written rounded to bf16: in [0, 2^8],
// it may be rounded with subnormals flushed (vcvtneps2bf16); the sums add
// the unrounded values. Its exp2 needs no upper clamp (s - m' <= 8) and may
// err by 2^-17 (1/256 of the rounding's 2^-9).
// CHECK: %[[PB:.+]]:2 = linalg.generic {{.+}} outs(%{{.+}}, %{{.+}} : tensor<64x32xbf16>, tensor<64xf32>)
// CHECK: %[[E:.+]] = math.exp2 %{{.+}} {accel.exp2_bounded, accel.exp2_tolerance = 7.62939453125E-6 : f64} : f32
// CHECK: arith.addf %{{.+}}, %[[E]] : f32
// CHECK: arith.truncf %[[E]] {accel.bf16_flush} : f32 to bf16
// CHECK-NOT: arith.extf %{{.+}} : bf16 to f32
// CHECK: accel.matmul accumulate ins(%[[PB]]#0, %{{.+}} : tensor<64x32xbf16>, tensor<32x64xbf16>) outs(%{{.+}} : tensor<64x64xf32>)
func.func @amx(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xf32> {
  %o = tensor.empty() : tensor<1x2x256x64xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) outs(%o : tensor<1x2x256x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash-amx", tile = [64, 32]>} -> tensor<1x2x256x64xf32>
  return %r : tensor<1x2x256x64xf32>
}

// -----

// cpu-flash keeps P in f32 (its exp2 unclamped above but as accurate as
// f32's) and widens the bf16 V tile instead.
// CHECK-LABEL: func @fma
// CHECK: math.exp2 %{{.+}} {accel.exp2_bounded} : f32
// CHECK: %[[VF:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<32x64xbf16>) outs(%{{.+}} : tensor<32x64xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: accel.matmul accumulate ins(%{{.+}}, %[[VF]] : tensor<64x32xf32>, tensor<32x64xf32>)
func.func @fma(%q: tensor<1x2x256x64xbf16>, %k: tensor<1x2x256x64xbf16>, %v: tensor<1x2x256x64xbf16>) -> tensor<1x2x256x64xf32> {
  %o = tensor.empty() : tensor<1x2x256x64xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>) outs(%o : tensor<1x2x256x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [64, 32]>} -> tensor<1x2x256x64xf32>
  return %r : tensor<1x2x256x64xf32>
}
