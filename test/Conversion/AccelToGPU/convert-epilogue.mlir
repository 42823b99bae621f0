// RUN: accel-opt %s --convert-accel-to-gpu="tile-m=16 tile-n=16 warps=1" | FileCheck %s

// A matmul's elementwise generic becomes the kernel's epilogue: its other
// operand (a [1, N] bias read through (0, d1)) is a kernel parameter
// between A, B and the written buffer, which has the generic's element
// type; each element of C is rounded to C's type, then the body runs on it
// with the bias loaded at the element's column, and the results are stored
// as a pair.
// CHECK-LABEL: gpu.module @bias_relu_bf16_kernels
// CHECK: gpu.func @bias_relu_bf16_0(%[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<32x64xf16>, %[[BIAS:.*]]: memref<1x64xf32>, %[[OUT:.*]]: memref<64x64xbf16>) kernel
// CHECK-SAME: args = ["arg0", "arg1", "arg2", "result0"]
// CHECK-SAME: epilogue = 1 : i64
// CHECK: nvgpu.mma.sync
// CHECK: %[[PAIR:.*]] = vector.extract %{{.*}}[0] : vector<2xf32> from vector<2x2xf32>
// CHECK: %[[X0:.*]] = vector.extract %[[PAIR]][0] : f32 from vector<2xf32>
// CHECK: %[[B0:.*]] = memref.load %[[BIAS]][%{{.*}}, %[[COL:.*]]] : memref<1x64xf32>
// CHECK: %[[S0:.*]] = arith.addf %[[X0]], %[[B0]] : f32
// CHECK: %[[R0:.*]] = arith.maximumf %[[S0]], %{{.*}} : f32
// CHECK: %[[T0:.*]] = arith.truncf %[[R0]] : f32 to bf16
// CHECK: %[[X1:.*]] = vector.extract %[[PAIR]][1] : f32 from vector<2xf32>
// CHECK: %[[COL1:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK: %[[B1:.*]] = memref.load %[[BIAS]][%{{.*}}, %[[COL1]]] : memref<1x64xf32>
// CHECK: %[[S1:.*]] = arith.addf %[[X1]], %[[B1]] : f32
// CHECK: %[[T1:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[V:.*]] = vector.from_elements %[[T0]], %[[T1]] : vector<2xbf16>
// CHECK: vector.store %[[V]], %[[OUT]][%{{.*}}, %[[COL]]] {alignment = 4 : i64} : memref<64x64xbf16>, vector<2xbf16>
// The matmul's own f32 C is never stored.
// CHECK-NOT: memref<64x64xf32>
// CHECK: gpu.return

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias_relu_bf16(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %bias: tensor<1x64xf32>) -> tensor<64x64xbf16> {
  %e = tensor.empty() : tensor<64x64xf32>
  %mm = accel.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x64xf16>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xbf16>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x64xf32>, tensor<1x64xf32>) outs(%e1 : tensor<64x64xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x64xbf16>
  return %r : tensor<64x64xbf16>
}

// With a remainder along M the residual is read inside the store's guard
// (never past the end of the buffer); an in-place epilogue (outs the
// matmul's C) of a bf16 C sees C rounded to bf16 and extended by its body;
// linalg.index gives the element's row, a captured scalar constant is
// rebuilt in the kernel.
// CHECK-LABEL: gpu.module @residual_index_kernels
// CHECK: gpu.func @residual_index_0(%{{.*}}: memref<40x32xbf16>, %{{.*}}: memref<32x48xbf16>, %[[RES:.*]]: memref<40x48xbf16>, %[[OUT2:.*]]: memref<40x48xbf16>) kernel
// CHECK-NOT: memref.load %[[RES]]
// CHECK: scf.if
// CHECK-NEXT: %[[X:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK-NEXT: %[[C:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT: memref.load %[[RES]][%[[ROW:.*]], %{{.*}}] : memref<40x48xbf16>
// CHECK-NEXT: arith.extf %[[C]] : bf16 to f32
// CHECK: arith.index_cast %[[ROW]]
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: vector.store %{{.*}}, %[[OUT2]]

func.func @residual_index(%a: tensor<40x32xbf16>, %b: tensor<32x48xbf16>, %res: tensor<40x48xbf16>) -> tensor<40x48xbf16> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<40x48xbf16>
  %mm = accel.matmul ins(%a, %b : tensor<40x32xbf16>, tensor<32x48xbf16>) outs(%e : tensor<40x48xbf16>) -> tensor<40x48xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%res : tensor<40x48xbf16>) outs(%mm : tensor<40x48xbf16>) {
  ^bb0(%y: bf16, %x: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %if = arith.sitofp %ii : i32 to f32
    %w = arith.mulf %if, %three : f32
    %s = arith.addf %xf, %yf : f32
    %t = arith.addf %s, %w : f32
    %o = arith.truncf %t : f32 to bf16
    linalg.yield %o : bf16
  } -> tensor<40x48xbf16>
  return %r : tensor<40x48xbf16>
}

// Kernels run in the order of what they write: the first matmul's epilogue
// reads the second one's result, so the second matmul's kernel comes
// first; a constant yielded from outside the body is rebuilt in the kernel.
// CHECK-LABEL: gpu.module @ordered_kernels
// CHECK: gpu.func @ordered_1(
// CHECK-SAME: args = ["arg2", "arg3", "tmp0"]
// CHECK: gpu.func @ordered_0(
// CHECK-SAME: args = ["arg0", "arg1", "tmp0", "result0"]
// CHECK: gpu.module @yield_constant_kernels
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: vector.store

func.func @ordered(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf16>, %d: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm1 = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %mm2 = accel.matmul ins(%c, %d : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %g2 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%mm2 : tensor<32x32xf32>) {
  ^bb0(%x: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g2 : tensor<32x32xf32>) outs(%mm1 : tensor<32x32xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %g1 : tensor<32x32xf32>
}

func.func @yield_constant(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%mm : tensor<32x32xf32>) {
  ^bb0(%x: f32):
    linalg.yield %one : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// An elementwise generic with no matmul under it is a kernel of its own,
// placed where its result is written: here before the matmul that reads
// it. One thread per element (256 a block: 3 blocks for 32 x 24, no guard
// needed), the indices from the linear index.
// CHECK-LABEL: gpu.module @scaled_input_kernels
// CHECK: gpu.func @scaled_input_elementwise0(%[[X:.*]]: memref<32x24xf16>, %[[Y:.*]]: memref<32x24xf16>) kernel
// CHECK-SAME: args = ["arg0", "tmp0"]
// CHECK-SAME: grid = array<i64: 3, 1, 1>
// CHECK-SAME: kind = "elementwise"
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK: %[[L:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK: %[[COL:.*]] = arith.remui %[[L]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.divui %[[L]], %{{.*}} : index
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %[[COL]]]
// CHECK: arith.mulf %[[V]], %{{.*}} : f16
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %[[COL]]]
// CHECK: gpu.func @scaled_input_0(
// CHECK-SAME: args = ["tmp0", "arg1", "result0"]

func.func @scaled_input(%x: tensor<32x24xf16>, %b: tensor<24x16xf16>) -> tensor<32x16xf32> {
  %half = arith.constant dense<0.5> : tensor<32x24xf16>
  %e0 = tensor.empty() : tensor<32x24xf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %half : tensor<32x24xf16>, tensor<32x24xf16>) outs(%e0 : tensor<32x24xf16>) {
  ^bb0(%a: f16, %h: f16, %o: f16):
    %m = arith.mulf %a, %h : f16
    linalg.yield %m : f16
  } -> tensor<32x24xf16>
  %e = tensor.empty() : tensor<32x16xf32>
  %mm = accel.matmul ins(%s, %b : tensor<32x24xf16>, tensor<24x16xf16>) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %mm : tensor<32x16xf32>
}
