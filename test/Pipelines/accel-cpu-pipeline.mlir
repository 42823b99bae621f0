// RUN: accel-opt %s --accel-cpu-pipeline | FileCheck %s
// RUN: accel-opt %s --accel-cpu-pipeline="threads=2" | FileCheck %s --check-prefix=CHECK-OMP
// RUN: accel-opt %s --accel-cpu-pipeline="vectorize=false" | FileCheck %s --check-prefix=CHECK-SCALAR
// RUN: accel-opt %s --accel-cpu-pipeline="threads=2 parallel-for-calls=true" | FileCheck %s --check-prefix=CHECK-CALLS

// The whole CPU pipeline: accel on tensors in, LLVM dialect out, with the
// matmul's register tile as vector FMAs (scalar code without vectorize) and
// OpenMP regions when threads > 1 (M = 512 gives two cache blocks of C, one
// per thread). accel-run runs what it makes.

// CHECK-LABEL: llvm.func @mm
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// CHECK-NOT: accel.
// CHECK-NOT: linalg.

// With parallel-for-calls (accel-compile's libraries): no OpenMP; the
// cache blocks run in an outlined body the library's parallel-for calls.
// CHECK-CALLS-NOT: omp.
// CHECK-CALLS: llvm.func @accel_parallel_for(!llvm.ptr, !llvm.ptr, i64)
// CHECK-CALLS-LABEL: llvm.func @mm
// CHECK-CALLS: %[[FN:.*]] = llvm.mlir.addressof @mm_parallel : !llvm.ptr
// CHECK-CALLS: llvm.call @accel_parallel_for(%[[FN]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-CALLS-LABEL: llvm.func internal @mm_parallel(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-CALLS: llvm.intr.fmuladd
// CHECK-CALLS-NOT: omp.

// CHECK-OMP-LABEL: llvm.func @mm
// CHECK-OMP: omp.parallel
// CHECK-OMP: omp.wsloop

// CHECK-SCALAR-LABEL: llvm.func @mm
// CHECK-SCALAR-NOT: vector<
// CHECK-SCALAR: llvm.fmul {{.*}} : f32
func.func @mm(%a: tensor<512x96xf32>, %b: tensor<96x256xf32>, %c: tensor<512x256xf32>) -> tensor<512x256xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<512x96xf32>, tensor<96x256xf32>) outs(%c : tensor<512x256xf32>) -> tensor<512x256xf32>
  return %0 : tensor<512x256xf32>
}

// Temporaries are freed (FlashAttention's per-tile scratch would otherwise
// leak on every call) and the out-argument is returned without a copy.
// CHECK-LABEL: llvm.func @attn
// CHECK-NOT: llvm.intr.memcpy
// CHECK: %[[P:.+]] = llvm.call @malloc
// CHECK-NOT: llvm.intr.memcpy
// CHECK: llvm.call @free(%[[P]])
// CHECK-NOT: llvm.intr.memcpy
// CHECK: llvm.return
func.func @attn(%q: tensor<1x2x256x64xf32>, %k: tensor<1x2x256x64xf32>, %v: tensor<1x2x256x64xf32>, %o: tensor<1x2x256x64xf32>) -> tensor<1x2x256x64xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>) outs(%o : tensor<1x2x256x64xf32>) -> tensor<1x2x256x64xf32>
  return %0 : tensor<1x2x256x64xf32>
}
