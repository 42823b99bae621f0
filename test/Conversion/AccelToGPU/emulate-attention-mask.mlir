// REQUIRES: numpy
// Masked FlashAttention kernels of convert-accel-to-gpu run in the numpy
// emulator (Inputs/emulate_kernels.py) against a float64 attention: a
// boolean mask (30 % of keys dropped, and the first mask row dropping every
// key: rows that keep no key must be exactly 0) and additive f32/bf16 masks
// (biases and -inf), each in a broadcast shape of rank 2 to 4, with and
// without the causal band, MHA and GQA/MQA, remainders along Sq and Skv.
// RUN: accel-opt %s --convert-accel-to-gpu --mlir-print-op-generic -o %t.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="stages=3" --mlir-print-op-generic -o %t.s3.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.s3.mlir --seed 3 | FileCheck %s
// sm_90a: the warpgroup-MMA kernel (256 threads) where D and Dv are
// multiples of 64, the mma.sync one elsewhere.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.wg.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.wg.mlir --seed 4 > %t.wg.out
// RUN: FileCheck %s < %t.wg.out
// RUN: FileCheck %s --check-prefix=WG < %t.wg.out
// CHECK: @bool_full_0: OK (B=1 Hq=2 Hkv=2 Sq=77 Skv=130 D=64 Dv=64 bool mask 1x2x77x130,
// CHECK: @add_bcast_causal_0: OK (B=2 Hq=4 Hkv=2 Sq=70 Skv=90 D=32 Dv=32 causal(20) additive mask 70x1,
// CHECK: @add_bf16_keys_0: OK (B=1 Hq=2 Hkv=2 Sq=16 Skv=200 D=64 Dv=64 additive mask 1x1x1x200,
// CHECK: @bool_heads_causal_0: OK (B=1 Hq=3 Hkv=1 Sq=65 Skv=65 D=16 Dv=16 causal(0) bool mask 3x65x65,

func.func @bool_full(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>, %m: tensor<1x2x77x130xi1>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) mask(%m : tensor<1x2x77x130xi1>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}
func.func @add_bcast_causal(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x2x90x32xbf16>, %v: tensor<2x2x90x32xbf16>, %m: tensor<70x1xf32>) -> tensor<2x4x70x32xbf16> {
  %o = tensor.empty() : tensor<2x4x70x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x70x32xbf16>, tensor<2x2x90x32xbf16>, tensor<2x2x90x32xbf16>) mask(%m : tensor<70x1xf32>) outs(%o : tensor<2x4x70x32xbf16>) -> tensor<2x4x70x32xbf16>
  return %0 : tensor<2x4x70x32xbf16>
}
func.func @add_bf16_keys(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
func.func @bool_heads_causal(%q: tensor<1x3x65x16xf16>, %k: tensor<1x1x65x16xf16>, %v: tensor<1x1x65x16xf16>, %m: tensor<3x65x65xi1>) -> tensor<1x3x65x16xf16> {
  %o = tensor.empty() : tensor<1x3x65x16xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x3x65x16xf16>, tensor<1x1x65x16xf16>, tensor<1x1x65x16xf16>) mask(%m : tensor<3x65x65xi1>) outs(%o : tensor<1x3x65x16xf16>) -> tensor<1x3x65x16xf16>
  return %0 : tensor<1x3x65x16xf16>
}

// WG: @bool_full_0: OK {{.*}} 256 threads)
// WG: @add_bcast_causal_0: OK {{.*}} 128 threads)
// WG: @add_bf16_keys_0: OK {{.*}} 256 threads)
