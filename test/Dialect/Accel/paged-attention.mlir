// RUN: accel-opt %s | accel-opt | FileCheck %s

// accel.paged_attention round-trips with and without its optional parts;
// B and the pool's page count P may be dynamic.

// CHECK-LABEL: func.func @decode
// CHECK: accel.paged_attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x32x1x128xbf16>, tensor<?x16x8x128xbf16>, tensor<?x16x8x128xbf16>) block_table(%{{.*}} : tensor<4x64xi32>) kv_lengths(%{{.*}} : tensor<4xi32>) outs(%{{.*}} : tensor<4x32x1x128xf32>) -> tensor<4x32x1x128xf32>
func.func @decode(%q: tensor<4x32x1x128xbf16>, %kc: tensor<?x16x8x128xbf16>,
                  %vc: tensor<?x16x8x128xbf16>, %bt: tensor<4x64xi32>,
                  %len: tensor<4xi32>, %o: tensor<4x32x1x128xf32>)
    -> tensor<4x32x1x128xf32> {
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<4x32x1x128xbf16>, tensor<?x16x8x128xbf16>,
                            tensor<?x16x8x128xbf16>)
         block_table(%bt : tensor<4x64xi32>) kv_lengths(%len : tensor<4xi32>)
         outs(%o : tensor<4x32x1x128xf32>) -> tensor<4x32x1x128xf32>
  return %0 : tensor<4x32x1x128xf32>
}

// CHECK-LABEL: func.func @speculative
// CHECK: accel.paged_attention causal scale(1.250000e-01) ins(
// CHECK-SAME: block_table(%{{.*}} : tensor<?x8xi64>) kv_lengths(%{{.*}} : tensor<?xi64>)
func.func @speculative(%q: tensor<?x4x4x64xf16>, %kc: tensor<32x32x4x64xf16>,
                       %vc: tensor<32x32x4x32xf16>, %bt: tensor<?x8xi64>,
                       %len: tensor<?xi64>, %o: tensor<?x4x4x32xf16>)
    -> tensor<?x4x4x32xf16> {
  %0 = accel.paged_attention causal scale(0.125)
         ins(%q, %kc, %vc : tensor<?x4x4x64xf16>, tensor<32x32x4x64xf16>,
                            tensor<32x32x4x32xf16>)
         block_table(%bt : tensor<?x8xi64>) kv_lengths(%len : tensor<?xi64>)
         outs(%o : tensor<?x4x4x32xf16>) -> tensor<?x4x4x32xf16>
  return %0 : tensor<?x4x4x32xf16>
}

// Entries past a sequence's last page are never read: -1 padding is valid.
// CHECK-LABEL: func.func @padded_table
func.func @padded_table(%q: tensor<2x2x1x8xf32>, %kc: tensor<3x4x1x8xf32>,
                        %vc: tensor<3x4x1x8xf32>, %o: tensor<2x2x1x8xf32>)
    -> tensor<2x2x1x8xf32> {
  %bt = arith.constant dense<[[2, -1, -1], [0, 1, -1]]> : tensor<2x3xi32>
  %len = arith.constant dense<[4, 5]> : tensor<2xi32>
  %0 = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x2x1x8xf32>, tensor<3x4x1x8xf32>,
                            tensor<3x4x1x8xf32>)
         block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x2x1x8xf32>) -> tensor<2x2x1x8xf32>
  return %0 : tensor<2x2x1x8xf32>
}
