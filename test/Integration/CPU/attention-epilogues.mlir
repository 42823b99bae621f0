// Epilogues after accel.attention (accel-decompose-attention with
// fuse-epilogues): the elementwise generic that reads the attention's
// result alone is applied to each output tile as the decomposition writes
// it; checked against the fp64 oracle evaluating the unfused program,
// NaN-prefilled outputs. A cast to bf16; a residual and a per-column bias
// (map to d3); a per-row scale through constant indices ([1, 1, S, 1] with
// 0s for the broadcast dimensions) and tanh-GELU, causal with GQA and a
// query remainder tile (S 200, tiles of 64); a body that reads its output
// (the residual passed as the generic's init); bf16 Q, K, V (cpu-flash-amx
// on an AMX host) with a residual and a bf16 cast; two threads.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=3 --num-threads=2 | FileCheck %s
// The same without the fusion (the epilogue a second pass), as a control:
// RUN: accel-run %s --repeat=0 --seed=5 --cpu-pipeline-options=fuse-epilogues=false | FileCheck %s
// Every epilogue is fused: after the decomposition no generic runs over a
// whole [1, H, S, D] result (without the fusion, the five do).
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl" --mlir-disable-threading --mlir-print-ir-after=accel-decompose-attention -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl fuse-epilogues=false" --mlir-disable-threading --mlir-print-ir-after=accel-decompose-attention -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// IR-NOT: accel.attention
// IR-NOT: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// UNFUSED-COUNT-5: iterator_types = ["parallel", "parallel", "parallel", "parallel"]

// CHECK-LABEL: @cast_bf16
// CHECK: PASS
// CHECK-LABEL: @residual_bias
// CHECK: PASS
// CHECK-LABEL: @gqa_causal_gelu
// CHECK: PASS
// CHECK-LABEL: @reads_output
// CHECK: PASS
// CHECK-LABEL: @bf16_residual_cast
// CHECK: PASS
// CHECK: accel-run: 5 of 5 functions passed

#id4 = affine_map<(b, h, q, d) -> (b, h, q, d)>
#col = affine_map<(b, h, q, d) -> (d)>
#rowc = affine_map<(b, h, q, d) -> (0, 0, q, 0)>

func.func @cast_bf16(%q: tensor<1x4x256x64xf32>, %k: tensor<1x4x256x64xf32>, %v: tensor<1x4x256x64xf32>) -> tensor<1x4x256x64xbf16> {
  %o = tensor.empty() : tensor<1x4x256x64xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32>, tensor<1x4x256x64xf32>) outs(%o : tensor<1x4x256x64xf32>) -> tensor<1x4x256x64xf32>
  %e = tensor.empty() : tensor<1x4x256x64xbf16>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x4x256x64xf32>) outs(%e : tensor<1x4x256x64xbf16>) {
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x4x256x64xbf16>
  return %r : tensor<1x4x256x64xbf16>
}

func.func @residual_bias(%q: tensor<1x2x192x128xf32>, %k: tensor<1x2x320x128xf32>, %v: tensor<1x2x320x128xf32>, %res: tensor<1x2x192x128xf32>, %bias: tensor<128xf32>) -> tensor<1x2x192x128xf32> {
  %o = tensor.empty() : tensor<1x2x192x128xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x2x192x128xf32>, tensor<1x2x320x128xf32>, tensor<1x2x320x128xf32>) outs(%o : tensor<1x2x192x128xf32>) -> tensor<1x2x192x128xf32>
  %e = tensor.empty() : tensor<1x2x192x128xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #col, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %res, %bias : tensor<1x2x192x128xf32>, tensor<1x2x192x128xf32>, tensor<128xf32>) outs(%e : tensor<1x2x192x128xf32>) {
  ^bb0(%x: f32, %r0: f32, %b0: f32, %y: f32):
    %s = arith.addf %x, %r0 : f32
    %t = arith.addf %s, %b0 : f32
    linalg.yield %t : f32
  } -> tensor<1x2x192x128xf32>
  return %r : tensor<1x2x192x128xf32>
}

func.func @gqa_causal_gelu(%q: tensor<1x8x200x64xf32>, %k: tensor<1x2x200x64xf32>, %v: tensor<1x2x200x64xf32>, %scale: tensor<1x1x200x1xf32>) -> tensor<1x8x200x64xf32> {
  %o = tensor.empty() : tensor<1x8x200x64xf32>
  %a = accel.attention causal ins(%q, %k, %v : tensor<1x8x200x64xf32>, tensor<1x2x200x64xf32>, tensor<1x2x200x64xf32>) outs(%o : tensor<1x8x200x64xf32>) -> tensor<1x8x200x64xf32>
  %e = tensor.empty() : tensor<1x8x200x64xf32>
  %c05 = arith.constant 0.5 : f32
  %c1 = arith.constant 1.0 : f32
  %cg = arith.constant 0.7978845608 : f32
  %cc = arith.constant 0.044715 : f32
  %r = linalg.generic {indexing_maps = [#id4, #rowc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %scale : tensor<1x8x200x64xf32>, tensor<1x1x200x1xf32>) outs(%e : tensor<1x8x200x64xf32>) {
  ^bb0(%x0: f32, %s0: f32, %y: f32):
    %x = arith.mulf %x0, %s0 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %in = arith.mulf %x3, %cc : f32
    %sum = arith.addf %x, %in : f32
    %arg = arith.mulf %sum, %cg : f32
    %th = math.tanh %arg : f32
    %one = arith.addf %th, %c1 : f32
    %half = arith.mulf %x, %c05 : f32
    %g = arith.mulf %half, %one : f32
    linalg.yield %g : f32
  } -> tensor<1x8x200x64xf32>
  return %r : tensor<1x8x200x64xf32>
}

func.func @reads_output(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %res: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x2x128x64xf32>) outs(%res : tensor<1x2x128x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.subf %y, %x : f32
    linalg.yield %s : f32
  } -> tensor<1x2x128x64xf32>
  return %r : tensor<1x2x128x64xf32>
}

func.func @bf16_residual_cast(%q: tensor<1x4x256x64xbf16>, %k: tensor<1x4x384x64xbf16>, %v: tensor<1x4x384x64xbf16>, %res: tensor<1x4x256x64xbf16>) -> tensor<1x4x256x64xbf16> {
  %o = tensor.empty() : tensor<1x4x256x64xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x4x256x64xbf16>, tensor<1x4x384x64xbf16>, tensor<1x4x384x64xbf16>) outs(%o : tensor<1x4x256x64xf32>) -> tensor<1x4x256x64xf32>
  %e = tensor.empty() : tensor<1x4x256x64xbf16>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %res : tensor<1x4x256x64xf32>, tensor<1x4x256x64xbf16>) outs(%e : tensor<1x4x256x64xbf16>) {
  ^bb0(%x: f32, %r0: bf16, %y: bf16):
    %rf = arith.extf %r0 : bf16 to f32
    %s = arith.addf %x, %rf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x4x256x64xbf16>
  return %r : tensor<1x4x256x64xbf16>
}
