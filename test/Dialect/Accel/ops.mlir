// RUN: accel-opt %s | accel-opt | FileCheck %s
// RUN: accel-opt %s --mlir-print-op-generic | accel-opt | FileCheck %s
// RUN: accel-opt %s --emit-bytecode | accel-opt --allow-bytecode | FileCheck %s

// Every op form round-trips through the custom form, the generic form and
// bytecode, and prints back in the custom form.

// CHECK-LABEL: func @matmul_2d
// CHECK: accel.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                     %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func @matmul_batched_transpose_accumulate
// CHECK: accel.matmul transpose_b accumulate ins(%{{.*}}, %{{.*}} : tensor<2x3x4x8xbf16>, tensor<2x3x16x8xbf16>) outs(%{{.*}} : tensor<2x3x4x16xf32>)
func.func @matmul_batched_transpose_accumulate(
    %a: tensor<2x3x4x8xbf16>, %b: tensor<2x3x16x8xbf16>,
    %c: tensor<2x3x4x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = accel.matmul transpose_b accumulate
         ins(%a, %b : tensor<2x3x4x8xbf16>, tensor<2x3x16x8xbf16>)
         outs(%c : tensor<2x3x4x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// CHECK-LABEL: func @matmul_i8
// CHECK: accel.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xi8>, tensor<64x16xi8>) outs(%{{.*}} : tensor<32x16xi32>)
func.func @matmul_i8(%a: tensor<32x64xi8>, %b: tensor<64x16xi8>) -> tensor<32x16xi32> {
  %c = tensor.empty() : tensor<32x16xi32>
  %0 = accel.matmul ins(%a, %b : tensor<32x64xi8>, tensor<64x16xi8>)
                    outs(%c : tensor<32x16xi32>) -> tensor<32x16xi32>
  return %0 : tensor<32x16xi32>
}

// CHECK-LABEL: func @matmul_i8_scaled
// CHECK-SAME: (%[[A:.*]]: tensor<32x64xi8>, %[[B:.*]]: tensor<64x16xi8>, %[[SA:.*]]: f32, %[[SB:.*]]: f32
// CHECK: accel.matmul ins(%[[A]], %[[B]] : tensor<32x64xi8>, tensor<64x16xi8>) scales(%[[SA]], %[[SB]]) outs(%{{.*}} : tensor<32x16xf32>)
func.func @matmul_i8_scaled(%a: tensor<32x64xi8>, %b: tensor<64x16xi8>,
                            %sa: f32, %sb: f32) -> tensor<32x16xf32> {
  %c = tensor.empty() : tensor<32x16xf32>
  %0 = accel.matmul ins(%a, %b : tensor<32x64xi8>, tensor<64x16xi8>)
                    scales(%sa, %sb) outs(%c : tensor<32x16xf32>)
                    -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// CHECK-LABEL: func @matmul_f8_mixed
// CHECK: accel.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>) scales(%{{.*}}, %{{.*}}) outs(%{{.*}} : tensor<16x8xbf16>)
func.func @matmul_f8_mixed(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E5M2>,
                           %s: f32, %c: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>)
                    scales(%s, %s) outs(%c : tensor<16x8xbf16>)
                    -> tensor<16x8xbf16>
  return %0 : tensor<16x8xbf16>
}

// CHECK-LABEL: func @matmul_f16_dynamic
// CHECK: accel.matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf16>, tensor<?x?xf16>) outs(%{{.*}} : tensor<?x?xf16>) -> tensor<?x?xf16>
func.func @matmul_f16_dynamic(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>,
                              %c: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = accel.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                    outs(%c : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}

// CHECK-LABEL: func @softmax
// CHECK: accel.softmax dimension(2) ins(%{{.*}} : tensor<2x4x1024xf16>) outs(%{{.*}} : tensor<2x4x1024xf32>) -> tensor<2x4x1024xf32>
func.func @softmax(%x: tensor<2x4x1024xf16>, %y: tensor<2x4x1024xf32>)
    -> tensor<2x4x1024xf32> {
  %0 = accel.softmax dimension(2) ins(%x : tensor<2x4x1024xf16>)
                     outs(%y : tensor<2x4x1024xf32>) -> tensor<2x4x1024xf32>
  return %0 : tensor<2x4x1024xf32>
}

// CHECK-LABEL: func @attention_mha
// CHECK: accel.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>) outs(%{{.*}} : tensor<1x8x128x64xf32>) -> tensor<1x8x128x64xf32>
func.func @attention_mha(%q: tensor<1x8x128x64xf32>, %k: tensor<1x8x128x64xf32>,
                         %v: tensor<1x8x128x64xf32>, %o: tensor<1x8x128x64xf32>)
    -> tensor<1x8x128x64xf32> {
  %0 = accel.attention
         ins(%q, %k, %v : tensor<1x8x128x64xf32>, tensor<1x8x128x64xf32>,
                          tensor<1x8x128x64xf32>)
         outs(%o : tensor<1x8x128x64xf32>) -> tensor<1x8x128x64xf32>
  return %0 : tensor<1x8x128x64xf32>
}

// CHECK-LABEL: func @attention_gqa_causal_masked
// CHECK: accel.attention causal scale(1.250000e-01) ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x32x97x128xbf16>, tensor<2x8x1025x128xbf16>, tensor<2x8x1025x64xbf16>) mask(%{{.*}} : tensor<97x1025xi1>) outs(%{{.*}} : tensor<2x32x97x64xbf16>)
func.func @attention_gqa_causal_masked(
    %q: tensor<2x32x97x128xbf16>, %k: tensor<2x8x1025x128xbf16>,
    %v: tensor<2x8x1025x64xbf16>, %m: tensor<97x1025xi1>,
    %o: tensor<2x32x97x64xbf16>) -> tensor<2x32x97x64xbf16> {
  %0 = accel.attention causal scale(0.125)
         ins(%q, %k, %v : tensor<2x32x97x128xbf16>, tensor<2x8x1025x128xbf16>,
                          tensor<2x8x1025x64xbf16>)
         mask(%m : tensor<97x1025xi1>)
         outs(%o : tensor<2x32x97x64xbf16>) -> tensor<2x32x97x64xbf16>
  return %0 : tensor<2x32x97x64xbf16>
}

// CHECK-LABEL: func @attention_mqa_additive_mask_diagonal
// CHECK: accel.attention causal diagonal(%{{.*}}) ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x16x32xf16>, tensor<1x1x64x32xf16>, tensor<1x1x64x32xf16>) mask(%{{.*}} : tensor<1x4x1x64xf16>) outs(%{{.*}} : tensor<1x4x16x32xf32>)
func.func @attention_mqa_additive_mask_diagonal(
    %q: tensor<1x4x16x32xf16>, %k: tensor<1x1x64x32xf16>,
    %v: tensor<1x1x64x32xf16>, %m: tensor<1x4x1x64xf16>, %d: index,
    %o: tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32> {
  %0 = accel.attention causal diagonal(%d)
         ins(%q, %k, %v : tensor<1x4x16x32xf16>, tensor<1x1x64x32xf16>,
                          tensor<1x1x64x32xf16>)
         mask(%m : tensor<1x4x1x64xf16>)
         outs(%o : tensor<1x4x16x32xf32>) -> tensor<1x4x16x32xf32>
  return %0 : tensor<1x4x16x32xf32>
}

// CHECK-LABEL: func @attention_dynamic_zero_keys
// CHECK: accel.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x?x64xf32>, tensor<?x?x0x64xf32>, tensor<?x?x0x64xf32>) outs(%{{.*}} : tensor<?x?x?x64xf32>)
func.func @attention_dynamic_zero_keys(
    %q: tensor<?x?x?x64xf32>, %k: tensor<?x?x0x64xf32>,
    %v: tensor<?x?x0x64xf32>, %o: tensor<?x?x?x64xf32>)
    -> tensor<?x?x?x64xf32> {
  %0 = accel.attention
         ins(%q, %k, %v : tensor<?x?x?x64xf32>, tensor<?x?x0x64xf32>,
                          tensor<?x?x0x64xf32>)
         outs(%o : tensor<?x?x?x64xf32>) -> tensor<?x?x?x64xf32>
  return %0 : tensor<?x?x?x64xf32>
}

// CHECK-LABEL: func @attention_window_varlen
// CHECK: accel.attention causal window(256) ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x512x64xf16>, tensor<2x2x512x64xf16>, tensor<2x2x512x64xf16>) kv_lengths(%{{.*}} : tensor<2xi32>) q_lengths(%{{.*}} : tensor<2xi64>) outs(%{{.*}} : tensor<2x8x512x64xf32>)
func.func @attention_window_varlen(%q: tensor<2x8x512x64xf16>, %k: tensor<2x2x512x64xf16>,
                                   %kvl: tensor<2xi32>, %ql: tensor<2xi64>,
                                   %o: tensor<2x8x512x64xf32>) -> tensor<2x8x512x64xf32> {
  %0 = accel.attention causal window(256)
         ins(%q, %k, %k : tensor<2x8x512x64xf16>, tensor<2x2x512x64xf16>, tensor<2x2x512x64xf16>)
         kv_lengths(%kvl : tensor<2xi32>) q_lengths(%ql : tensor<2xi64>)
         outs(%o : tensor<2x8x512x64xf32>) -> tensor<2x8x512x64xf32>
  return %0 : tensor<2x8x512x64xf32>
}

// A precision policy (accel-lower-precision) with every parameter, and one
// with only the required one.
// CHECK-LABEL: func @precision_policy
// CHECK: {accel.precision = #accel.precision<compute = f8E5M2, accumulate = f32, output = bf16, scales = given, scale_values = [0.5, 0.002], overflow = nan>}
// CHECK: {accel.precision = #accel.precision<compute = bf16>}
func.func @precision_policy(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                            %c: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
         outs(%c : tensor<4x16xf32>)
         {accel.precision = #accel.precision<compute = f8E5M2, accumulate = f32, output = bf16, scales = given, scale_values = [0.5, 2.0e-3], overflow = nan>}
         -> tensor<4x16xf32>
  %1 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
         outs(%c : tensor<4x16xf32>)
         {accel.precision = #accel.precision<compute = bf16>} -> tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}
