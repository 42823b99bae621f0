// RUN: accel-opt %s --accel-cpu-lower-dot | FileCheck %s

// CHECK-LABEL: func @dot
// CHECK-SAME: (%[[ACC:.+]]: vector<16xi32>, %[[A:.+]]: vector<64xi8>, %[[B:.+]]: vector<64xi8>)
// CHECK: %[[R:.+]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%[[ACC]], %[[A]], %[[B]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK: return %[[R]]
func.func @dot(%acc: vector<16xi32>, %a: vector<64xi8>, %b: vector<64xi8>) -> vector<16xi32> {
  %0 = accel.x86_dot_u8s8 %acc, %a, %b : vector<64xi8> -> vector<16xi32>
  return %0 : vector<16xi32>
}
