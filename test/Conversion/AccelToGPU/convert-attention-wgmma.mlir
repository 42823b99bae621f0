// The warpgroup-MMA attention kernel of convert-accel-to-gpu on sm_90a
// (the default there for f16/bf16 with D and Dv multiples of 64): launch
// shape, Q and the K/V ring in the 128-byte swizzle aligned at run time,
// the per-block protocol (copies landed, proxy fence, barrier, refill,
// wgmma fence, S = Q.K^T as one wgmma group starting from zero, wait, the
// softmax, P packed into registers before the second fence, O += P.V as
// register-A wgmmas with V transposed, wait) and the choice of kernel.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a" | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=auto" | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a stages=3" | FileCheck %s --check-prefix=S3
// mma.sync where asked for, on other chips, and where D is not a multiple
// of 64.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=mma.sync" | FileCheck %s --check-prefix=SYNC
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_80" | FileCheck %s --check-prefix=SYNC

// 2 warpgroups, 128 query rows and 128 keys a block; Q [128][64] and 2
// stages of K and V [128][64] bf16, plus 1 KiB to align them.
// CHECK-LABEL: gpu.func @causal_0
// CHECK-SAME:    block = array<i64: 256, 1, 1>
// CHECK-SAME:    dynamic_shared_memory = 82944 : i64, grid = array<i64: 2, 2, 1>
// CHECK-SAME:    mma = "wgmma"
// CHECK-SAME:    stages = 2 : i64, tile = array<i64: 128, 128>
// CHECK:         %[[START:.*]] = memref.extract_aligned_pointer_as_index
// CHECK:         arith.subi %c1024
// CHECK:         %[[RING:.*]] = memref.view {{.*}} to memref<40960xbf16, #gpu.address_space<workgroup>>
// Q (rows past Sq = 200 zero-filled), then key block 0.
// CHECK-COUNT-4: nvgpu.device_async_copy {{.*}}, %[[RING]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:         nvgpu.device_async_create_group
// CHECK:         nvgpu.device_async_create_group
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.device_async_create_group
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// The key blocks no row removes a key of come first, without the band's
// compares (unmaskedKeyBlocks); the diagonal ones follow (below).
// CHECK-NOT:       arith.cmpi
// CHECK:           llvm.nvvm.ex2.approx.ftz.f32
// CHECK:           vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-NOT:       vector.bitcast
// CHECK:           llvm.inline_asm has_side_effects {{.*}}"{\0A.reg .pred p;\0Asetp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}"
// CHECK-COUNT-7:   llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           scf.yield
// CHECK:         scf.for
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           arith.cmpi slt
// CHECK:           arith.cmpi sle
// CHECK:           llvm.nvvm.ex2.approx.ftz.f32
// CHECK:           scf.yield
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @d128_f16_0
// CHECK-SAME:    dynamic_shared_memory = 164864 : i64
// CHECK-SAME:    mma = "wgmma"
// CHECK:           nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-COUNT-7:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK:           wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-LABEL: gpu.func @d32_0
// CHECK-SAME:    mma = "mma.sync"

// S3: gpu.func @causal_0
// S3-SAME: dynamic_shared_memory = 115712 : i64
// S3: scf.for
// S3:   nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}

// SYNC: gpu.func @causal_0
// SYNC-SAME: block = array<i64: 128, 1, 1>
// SYNC-SAME: mma = "mma.sync"
// SYNC-NOT: wgmma
// SYNC: gpu.func @d32_0
func.func @causal(%q: tensor<1x2x200x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>) -> tensor<1x2x200x64xf32> {
  %o = tensor.empty() : tensor<1x2x200x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x200x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16>) outs(%o : tensor<1x2x200x64xf32>) -> tensor<1x2x200x64xf32>
  return %0 : tensor<1x2x200x64xf32>
}

func.func @d128_f16(%q: tensor<2x4x130x128xf16>, %k: tensor<2x2x64x128xf16>, %v: tensor<2x2x64x128xf16>) -> tensor<2x4x130x128xf16> {
  %o = tensor.empty() : tensor<2x4x130x128xf16>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x130x128xf16>, tensor<2x2x64x128xf16>, tensor<2x2x64x128xf16>) outs(%o : tensor<2x4x130x128xf16>) -> tensor<2x4x130x128xf16>
  return %0 : tensor<2x4x130x128xf16>
}

func.func @d32(%q: tensor<1x1x64x32xbf16>, %k: tensor<1x1x64x32xbf16>, %v: tensor<1x1x64x32xbf16>) -> tensor<1x1x64x32xf32> {
  %o = tensor.empty() : tensor<1x1x64x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>, tensor<1x1x64x32xbf16>) outs(%o : tensor<1x1x64x32xf32>) -> tensor<1x1x64x32xf32>
  return %0 : tensor<1x1x64x32xf32>
}
