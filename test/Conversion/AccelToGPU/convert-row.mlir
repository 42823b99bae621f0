// RUN: accel-opt %s --accel-decompose-softmax --convert-accel-to-gpu="chip=sm_80" | FileCheck %s
// RUN: accel-opt %s --accel-decompose-softmax --convert-accel-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=AMD

// Row reductions and the generics that read them become one row kernel (a
// block a row): the reduction is a strided loop over the row's columns, a
// butterfly of xor shuffles across each warp, the warps' values through
// shared memory after one barrier; the elementwise consumer is evaluated in
// a second loop and stored.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: gpu.module @rmsnorm_kernels
// CHECK: gpu.func @rmsnorm_row0(%{{.*}}: memref<77x512xf32>, %{{.*}}: memref<512xf32>, %{{.*}}: memref<77x512xf32>) kernel
// CHECK-SAME: args = ["arg0", "arg1", "result0"], block = array<i64: 128, 1, 1>
// CHECK-SAME: dynamic_shared_memory = 16 : i64, grid = array<i64: 77, 1, 1>, kind = "row"
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: memref.load
// CHECK: arith.mulf
// CHECK: arith.addf {{.*}}%[[ACC]]
// CHECK-COUNT-5: gpu.shuffle  xor {{.*}}, %c32_i32 : f32
// CHECK: memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %view
// CHECK: scf.for
// CHECK: math.rsqrt
// CHECK: memref.store {{.*}} : memref<77x512xf32>
// CHECK-NOT: gpu.func
// CHECK: gpu.return

// On gfx942 the waves are 64 wide: six shuffles, 2 waves of 128 threads.
// AMD-LABEL: gpu.func @rmsnorm_row0
// AMD-SAME: block = array<i64: 128, 1, 1>
// AMD-SAME: dynamic_shared_memory = 8 : i64
// AMD-COUNT-6: gpu.shuffle  xor {{.*}}, %c64_i32 : f32
// AMD: memref.view {{.*}} to memref<2xf32, #gpu.address_space<workgroup>>
func.func @rmsnorm(%x: tensor<77x512xf32>, %w: tensor<512xf32>) -> tensor<77x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<77xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<77xf32>) -> tensor<77xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<77x512xf32>) outs(%z : tensor<77xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<77xf32>
  %e1 = tensor.empty() : tensor<77x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<77x512xf32>, tensor<77xf32>, tensor<512xf32>) outs(%e1 : tensor<77x512xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %n = arith.constant 512.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xr = arith.mulf %a, %r : f32
    %out = arith.mulf %xr, %g : f32
    linalg.yield %out : f32
  } -> tensor<77x512xf32>
  return %y : tensor<77x512xf32>
}

// accel.softmax: its max, its sum of exp(x - max) and the quotient, one
// kernel with two reductions (two slots of shared memory: 2 x 8 warps x 4
// bytes).
// CHECK-LABEL: gpu.module @softmax_kernels
// CHECK: gpu.func @softmax_row0
// CHECK-SAME: block = array<i64: 256, 1, 1>
// CHECK-SAME: dynamic_shared_memory = 64 : i64, grid = array<i64: 6, 1, 1>, kind = "row"
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: gpu.barrier
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: gpu.func
// CHECK: gpu.return
func.func @softmax(%x: tensor<6x1000xf32>) -> tensor<6x1000xf32> {
  %e = tensor.empty() : tensor<6x1000xf32>
  %y = accel.softmax dimension(1) ins(%x : tensor<6x1000xf32>) outs(%e : tensor<6x1000xf32>) -> tensor<6x1000xf32>
  return %y : tensor<6x1000xf32>
}

// An RMSNorm of a matmul's product: the matmul stores C (no epilogue: a
// reduction reads it) and the row kernel reads it.
// CHECK-LABEL: gpu.module @norm_of_product_kernels
// CHECK: gpu.func @norm_of_product_0
// CHECK-SAME: args = ["arg0", "arg1", "tmp0"]
// CHECK: gpu.func @norm_of_product_row0
// CHECK-SAME: args = ["tmp0", "result0"]
func.func @norm_of_product(%a: tensor<64x64xf16>, %b: tensor<64x256xf16>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %c = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x256xf16>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<64x256xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %ss : tensor<64x256xf32>, tensor<64xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = math.rsqrt %s : f32
    %out = arith.mulf %v, %r : f32
    linalg.yield %out : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

// The kernels run in the order of what they read, not of where their ops
// start: the row group begins with %sq (absorbed: only the reduction reads
// it), before the matmul whose product the reduction also reads, so the
// matmul's kernel comes first.
// CHECK-LABEL: gpu.module @ordered_kernels
// CHECK: gpu.func @ordered_0
// CHECK-SAME: args = ["arg1", "arg2", "tmp0"]
// CHECK: gpu.func @ordered_row0
// CHECK-SAME: args = ["arg0", "tmp0", "result0"]
func.func @ordered(%x: tensor<64x256xf32>, %a: tensor<64x64xf16>, %b: tensor<64x256xf16>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %c = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x256xf16>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %dot = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sq, %c : tensor<64x256xf32>, tensor<64x256xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %dot : tensor<64xf32>
}
