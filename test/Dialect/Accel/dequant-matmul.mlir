// RUN: accel-opt %s | accel-opt | FileCheck %s
// RUN: accel-opt %s --mlir-print-op-generic | accel-opt | FileCheck %s
// RUN: accel-opt %s --emit-bytecode | accel-opt --allow-bytecode | FileCheck %s

// accel.dequant_matmul round-trips through the custom form, the generic form
// and bytecode: int4 unsigned with zero points, int8 signed per channel,
// batch dimensions and a dynamic M, a C of A's type.

// CHECK-LABEL: func @int4_zero_points
// CHECK: accel.dequant_matmul bits(4) group(128) unsigned ins(%{{.*}}, %{{.*}} : tensor<1x4096xbf16>, tensor<64x2048xi8>) scales(%{{.*}} : tensor<64x32xbf16>) zero_points(%{{.*}} : tensor<64x32xbf16>) outs(%{{.*}} : tensor<1x64xf32>) -> tensor<1x64xf32>
func.func @int4_zero_points(%x: tensor<1x4096xbf16>, %w: tensor<64x2048xi8>,
                            %s: tensor<64x32xbf16>, %z: tensor<64x32xbf16>,
                            %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<1x4096xbf16>, tensor<64x2048xi8>)
         scales(%s : tensor<64x32xbf16>) zero_points(%z : tensor<64x32xbf16>)
         outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// CHECK-LABEL: func @int8_per_channel
// CHECK: accel.dequant_matmul bits(8) group(256) ins(%{{.*}}, %{{.*}} : tensor<2x?x256xf16>, tensor<32x256xi8>) scales(%{{.*}} : tensor<32x1xf32>) outs(%{{.*}} : tensor<2x?x32xf16>) -> tensor<2x?x32xf16>
// CHECK-NOT: zero_points
func.func @int8_per_channel(%x: tensor<2x?x256xf16>, %w: tensor<32x256xi8>,
                            %s: tensor<32x1xf32>,
                            %c: tensor<2x?x32xf16>) -> tensor<2x?x32xf16> {
  %0 = accel.dequant_matmul bits(8) group(256)
         ins(%x, %w : tensor<2x?x256xf16>, tensor<32x256xi8>)
         scales(%s : tensor<32x1xf32>)
         outs(%c : tensor<2x?x32xf16>) -> tensor<2x?x32xf16>
  return %0 : tensor<2x?x32xf16>
}

// CHECK-LABEL: func @permute
// CHECK: accel.x86_permute_f32 %{{.*}}, %{{.*}} : vector<16xf32>, vector<16xi32>
func.func @permute(%t: vector<16xf32>, %i: vector<16xi32>) -> vector<16xf32> {
  %0 = accel.x86_permute_f32 %t, %i : vector<16xf32>, vector<16xi32>
  return %0 : vector<16xf32>
}

// CHECK-LABEL: func @permute_i16
// CHECK: accel.x86_permute_i16 %{{.*}}, %{{.*}} : vector<32xi16>, vector<32xi16>
func.func @permute_i16(%t: vector<32xi16>, %i: vector<32xi16>) -> vector<32xi16> {
  %0 = accel.x86_permute_i16 %t, %i : vector<32xi16>, vector<32xi16>
  return %0 : vector<32xi16>
}
