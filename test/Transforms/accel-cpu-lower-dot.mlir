// RUN: accel-opt %s --accel-cpu-lower-dot | FileCheck %s

// CHECK-LABEL: func @dot
// CHECK-SAME: (%[[ACC:.+]]: vector<16xi32>, %[[A:.+]]: vector<64xi8>, %[[B:.+]]: vector<64xi8>)
// CHECK: %[[R:.+]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[A]], %[[B]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
func.func @dot(%acc: vector<16xi32>, %a: vector<64xi8>, %b: vector<64xi8>) -> vector<16xi32> {
  %0 = accel.x86_dot_u8s8 %acc, %a, %b : vector<64xi8> -> vector<16xi32>
  return %0 : vector<16xi32>
}

// CHECK-LABEL: func @permute_f32
// CHECK-SAME: (%[[T:.+]]: vector<16xf32>, %[[I:.+]]: vector<16xi32>)
// CHECK: %[[R:.+]] = llvm.call_intrinsic "llvm.x86.avx512.permvar.sf.512"(%[[T]], %[[I]]) : (vector<16xf32>, vector<16xi32>) -> vector<16xf32>
// CHECK: return %[[R]]
func.func @permute_f32(%t: vector<16xf32>, %i: vector<16xi32>) -> vector<16xf32> {
  %0 = accel.x86_permute_f32 %t, %i : vector<16xf32>, vector<16xi32>
  return %0 : vector<16xf32>
}

// vpermw: the table first, then the indices (as the intrinsic takes them).
// CHECK-LABEL: func @permute_i16
// CHECK-SAME: (%[[T:.+]]: vector<32xi16>, %[[I:.+]]: vector<32xi16>)
// CHECK: %[[R:.+]] = llvm.call_intrinsic "llvm.x86.avx512.permvar.hi.512"(%[[T]], %[[I]]) : (vector<32xi16>, vector<32xi16>) -> vector<32xi16>
// CHECK: return %[[R]]
func.func @permute_i16(%t: vector<32xi16>, %i: vector<32xi16>) -> vector<32xi16> {
  %0 = accel.x86_permute_i16 %t, %i : vector<32xi16>, vector<32xi16>
  return %0 : vector<32xi16>
}
