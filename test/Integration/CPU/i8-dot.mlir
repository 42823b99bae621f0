// i8 x i8 -> i32 matmuls through accel-cpu-dot-kernels (AVX512-VNNI
// vpdpbusd on A offset to unsigned, the offset's 128 x column sums of B taken
// off C first) when the host has avx512vnni, else the generic path; inputs
// span all of [-128, 127]; results must be bit-exact: M not a multiple of 6,
// N not a multiple of 64 or 16, K % 4 = 1, 2 and 3 (a partial last group),
// K across 512-value blocks, K = 1, batched (generic path), accumulating.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=8 --num-threads=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=cpu-features=none | FileCheck %s
// On AVX-512 hosts, AVX-512's dot kernels even where the CPU has AMX
// (which the host's features would pick):
// RUN: %if cpu-avx512bf16 %{ accel-run %s --repeat=0 --seed=6 --cpu-pipeline-options=cpu-features=+avx2,+fma,+f16c,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vnni | FileCheck %s %}

// CHECK-LABEL: @square
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @k_mod_1
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @k_mod_2
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @k_mod_3_blocks
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @k1
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @batched
// CHECK: max abs err 0.00e+00
// CHECK-LABEL: @accumulate
// CHECK: max abs err 0.00e+00
// CHECK: accel-run: 7 of 7 functions passed

func.func @square(%a: tensor<128x128xi8>, %b: tensor<128x128xi8>) -> tensor<128x128xi32> {
  %o = tensor.empty() : tensor<128x128xi32>
  %r = accel.matmul ins(%a, %b : tensor<128x128xi8>, tensor<128x128xi8>) outs(%o : tensor<128x128xi32>) -> tensor<128x128xi32>
  return %r : tensor<128x128xi32>
}

func.func @k_mod_1(%a: tensor<61x37xi8>, %b: tensor<37x135xi8>) -> tensor<61x135xi32> {
  %o = tensor.empty() : tensor<61x135xi32>
  %r = accel.matmul ins(%a, %b : tensor<61x37xi8>, tensor<37x135xi8>) outs(%o : tensor<61x135xi32>) -> tensor<61x135xi32>
  return %r : tensor<61x135xi32>
}

func.func @k_mod_2(%a: tensor<7x66xi8>, %b: tensor<66x70xi8>) -> tensor<7x70xi32> {
  %o = tensor.empty() : tensor<7x70xi32>
  %r = accel.matmul ins(%a, %b : tensor<7x66xi8>, tensor<66x70xi8>) outs(%o : tensor<7x70xi32>) -> tensor<7x70xi32>
  return %r : tensor<7x70xi32>
}

func.func @k_mod_3_blocks(%a: tensor<20x1103xi8>, %b: tensor<1103x80xi8>) -> tensor<20x80xi32> {
  %o = tensor.empty() : tensor<20x80xi32>
  %r = accel.matmul ins(%a, %b : tensor<20x1103xi8>, tensor<1103x80xi8>) outs(%o : tensor<20x80xi32>) -> tensor<20x80xi32>
  return %r : tensor<20x80xi32>
}

func.func @k1(%a: tensor<7x1xi8>, %b: tensor<1x19xi8>) -> tensor<7x19xi32> {
  %o = tensor.empty() : tensor<7x19xi32>
  %r = accel.matmul ins(%a, %b : tensor<7x1xi8>, tensor<1x19xi8>) outs(%o : tensor<7x19xi32>) -> tensor<7x19xi32>
  return %r : tensor<7x19xi32>
}

func.func @batched(%a: tensor<3x17x33xi8>, %b: tensor<3x33x40xi8>) -> tensor<3x17x40xi32> {
  %o = tensor.empty() : tensor<3x17x40xi32>
  %r = accel.matmul ins(%a, %b : tensor<3x17x33xi8>, tensor<3x33x40xi8>) outs(%o : tensor<3x17x40xi32>) -> tensor<3x17x40xi32>
  return %r : tensor<3x17x40xi32>
}

func.func @accumulate(%a: tensor<30x70xi8>, %b: tensor<70x50xi8>, %c: tensor<30x50xi32>) -> tensor<30x50xi32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<30x70xi8>, tensor<70x50xi8>) outs(%c : tensor<30x50xi32>) -> tensor<30x50xi32>
  return %r : tensor<30x50xi32>
}
