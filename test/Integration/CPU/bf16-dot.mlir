// bf16 x bf16 -> f32 matmuls through accel-cpu-dot-kernels (vdpbf16ps) when
// the host has AVX512-BF16 (the JIT passes the host's features), else the
// generic path; both against the fp64 oracle, NaN-prefilled outputs: M not a
// multiple of the 6-row tile, N not a multiple of 64 or 16 (masked last
// columns), odd K (a half pair), K across 512-value blocks, K = 1, a
// batched matmul (left to the generic path), an accumulating one, and the
// exact tier (integer-valued inputs: every product and sum exact in f32).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=4 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s --check-prefix=EXACT
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=5 | FileCheck %s
// The generic path on the same functions (no features):
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=cpu-features=none | FileCheck %s
// On AVX-512 hosts, AVX-512's dot kernels even where the CPU has AMX
// (which the host's features would pick):
// RUN: %if cpu-avx512bf16 %{ accel-run %s --repeat=0 --seed=6 --cpu-pipeline-options=cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512bf16 | FileCheck %s %}

// CHECK-LABEL: @square
// CHECK: PASS
// CHECK-LABEL: @ragged
// CHECK: PASS
// CHECK-LABEL: @odd_k_blocks
// CHECK: PASS
// CHECK-LABEL: @k1
// CHECK: PASS
// CHECK-LABEL: @narrow
// CHECK: PASS
// CHECK-LABEL: @batched
// CHECK: PASS
// CHECK-LABEL: @accumulate
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed
// EXACT-COUNT-7: max abs err 0.00e+00
// EXACT: accel-run: 7 of 7 functions passed

func.func @square(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>) -> tensor<128x128xf32> {
  %o = tensor.empty() : tensor<128x128xf32>
  %r = accel.matmul ins(%a, %b : tensor<128x128xbf16>, tensor<128x128xbf16>) outs(%o : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

func.func @ragged(%a: tensor<61x37xbf16>, %b: tensor<37x135xbf16>) -> tensor<61x135xf32> {
  %o = tensor.empty() : tensor<61x135xf32>
  %r = accel.matmul ins(%a, %b : tensor<61x37xbf16>, tensor<37x135xbf16>) outs(%o : tensor<61x135xf32>) -> tensor<61x135xf32>
  return %r : tensor<61x135xf32>
}

func.func @odd_k_blocks(%a: tensor<20x1101xbf16>, %b: tensor<1101x80xbf16>) -> tensor<20x80xf32> {
  %o = tensor.empty() : tensor<20x80xf32>
  %r = accel.matmul ins(%a, %b : tensor<20x1101xbf16>, tensor<1101x80xbf16>) outs(%o : tensor<20x80xf32>) -> tensor<20x80xf32>
  return %r : tensor<20x80xf32>
}

func.func @k1(%a: tensor<7x1xbf16>, %b: tensor<1x19xbf16>) -> tensor<7x19xf32> {
  %o = tensor.empty() : tensor<7x19xf32>
  %r = accel.matmul ins(%a, %b : tensor<7x1xbf16>, tensor<1x19xbf16>) outs(%o : tensor<7x19xf32>) -> tensor<7x19xf32>
  return %r : tensor<7x19xf32>
}

func.func @narrow(%a: tensor<1x64xbf16>, %b: tensor<64x3xbf16>) -> tensor<1x3xf32> {
  %o = tensor.empty() : tensor<1x3xf32>
  %r = accel.matmul ins(%a, %b : tensor<1x64xbf16>, tensor<64x3xbf16>) outs(%o : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

func.func @batched(%a: tensor<3x17x33xbf16>, %b: tensor<3x33x40xbf16>) -> tensor<3x17x40xf32> {
  %o = tensor.empty() : tensor<3x17x40xf32>
  %r = accel.matmul ins(%a, %b : tensor<3x17x33xbf16>, tensor<3x33x40xbf16>) outs(%o : tensor<3x17x40xf32>) -> tensor<3x17x40xf32>
  return %r : tensor<3x17x40xf32>
}

func.func @accumulate(%a: tensor<30x70xbf16>, %b: tensor<70x50xbf16>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<30x70xbf16>, tensor<70x50xbf16>) outs(%c : tensor<30x50xf32>) -> tensor<30x50xf32>
  return %r : tensor<30x50xf32>
}
