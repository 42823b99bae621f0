// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,amx-bf16" -verify-diagnostics

// AMX's dot products without its tile registers.
func.func @no_amx_tile(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-bf16: the CPU has no amx-tile}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16">} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @flash_no_amx_tile(%q: tensor<1x2x64x32xbf16>, %o: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  // expected-error @+1 {{'accel.attention' op cannot use cpu-flash-amx: the CPU has no amx-tile}}
  %r = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash-amx">} -> tensor<1x2x64x32xf32>
  return %r : tensor<1x2x64x32xf32>
}
