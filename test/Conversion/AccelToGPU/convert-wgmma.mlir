// The warpgroup-MMA GEMM kernel of convert-accel-to-gpu (chip=sm_90a
// mma=wgmma): launch shape, the swizzled ring aligned at run time, the
// per-slice protocol (copies landed, proxy fence, barrier, refill two
// slices back, wgmma fence, the slice's wgmmas, commit, one group left in
// flight), the descriptors and the epilogue.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma" | FileCheck %s
// Two stages: nothing stays in flight.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma stages=2" | FileCheck %s --check-prefix=S2
// 8-bit float inputs promote: each K slice summed apart, then added into
// the f32 accumulator.
// RUN: accel-opt %S/Inputs/f8-promote-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma" | FileCheck %s --check-prefix=PROMOTE
// auto picks wgmma on sm_90a, mma.sync where wgmma does not apply (sm_90
// without "a", or K = 20, whose rows 16-byte copies cannot fill).
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=auto" | FileCheck %s --check-prefix=AUTO
// RUN: accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=auto" | FileCheck %s --check-prefix=AUTO-K20
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90 mma=auto" | FileCheck %s --check-prefix=AUTO-90
// The default is auto (wgmma on sm_90a, mma.sync on sm_80), f8 included.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=AUTO
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_80" | FileCheck %s --check-prefix=AUTO-90
// RUN: accel-opt %S/Inputs/f8-tb-matmul.mlir --convert-accel-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=AUTO-F8
// RUN: accel-opt %S/Inputs/f8-tb-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=mma.sync" | FileCheck %s --check-prefix=SYNC-F8

// 2 warpgroups (256 threads), a 128x128x64 tile, 4 stages of (128 + 128)
// rows of 128 bytes, plus 1 KiB to align the ring.
// CHECK-LABEL: gpu.module @tb_kernels
// CHECK:       gpu.func @tb_0(%{{.*}}: memref<128x128xbf16>, %{{.*}}: memref<256x128xbf16>, %{{.*}}: memref<128x256xf32>) kernel
// CHECK-SAME:    block = array<i64: 256, 1, 1>, chip = "sm_90a", dynamic_shared_memory = 132096 : i64, grid = array<i64: 2, 1, 1>, mma = "wgmma", stages = 4 : i64, tile = array<i64: 128, 128, 64>, warps = array<i64: 8, 1>
// CHECK:       %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK:       %[[START:.*]] = memref.extract_aligned_pointer_as_index %[[DYN]]
// CHECK:       %[[MOD:.*]] = arith.remui %[[START]], %c1024
// CHECK:       %[[GAP:.*]] = arith.subi %c1024{{.*}}, %[[MOD]]
// CHECK:       %[[PAD:.*]] = arith.remui %[[GAP]], %c1024
// CHECK:       memref.view %[[DYN]][%[[PAD]]][] : {{.*}} to memref<32768xbf16, #gpu.address_space<workgroup>>
// The accumulators: 64 f32 a thread, zero.
// CHECK:       %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// The swizzle: chunk c of row r at c ^ (r % 8).
// CHECK:       arith.xori
// CHECK:       nvgpu.device_async_copy {{.*}} {bypassL1} : memref<128x128xbf16> to memref<32768xbf16, #gpu.address_space<workgroup>>
// CHECK:       nvgpu.device_async_copy {{.*}} {bypassL1} : memref<256x128xbf16> to memref<32768xbf16, #gpu.address_space<workgroup>>
// CHECK:       %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// 4 stages, 1 wgmma group in flight: 2 slices' copies may stay pending.
// CHECK-NEXT:    nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT:    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    gpu.barrier
// Slice kt + 2 goes to the buffer of slice kt - 2.
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %{{.*}}, %c2
// CHECK:         nvvm.wgmma.fence.aligned
// Descriptors: address / 16, leading 16 / 16, stride 1024 / 16, the
// 128-byte swizzle (1 << 62).
// CHECK:         arith.constant 4611686293305360384 : i64
// CHECK:         %[[W0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:         %[[W1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W0]], <m = 64, n = 128, k = 16>
// CHECK:         %[[W2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W1]], <m = 64, n = 128, k = 16>
// CHECK:         %[[W3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W2]], <m = 64, n = 128, k = 16>
// CHECK-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:    scf.yield %[[W3]]
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:  nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:       llvm.extractvalue %[[LOOP]][0]
// CHECK:       vector.store {{.*}} : memref<128x256xf32>, vector<2xf32>
// CHECK-NOT:   nvvm.wgmma.mma_async
// CHECK:       gpu.return

// S2-LABEL: gpu.module @tb_kernels
// S2:       stages = 2 : i64
// S2:       scf.for
// S2-NEXT:    nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// S2:         nvvm.wgmma.wait.group.sync.aligned 0
// S2-NEXT:    scf.yield

// bf16 (above) keeps one accumulator: scale-d one on every wgmma, one
// group left in flight, no additions. 8-bit floats promote (Hopper's fp8
// tensor cores keep about 14 bits of the sum): the loop carries the f32
// sum (here C) and the slice's accumulator, whose first wgmma starts it
// (scale-d zero); the slice's group is waited for (wait_group 0), then
// added in f32. With no group in flight, the refill goes 3 slices ahead
// (into the buffer of slice kt - 1) and 2 of 4 stages' copies may stay
// pending.
// PROMOTE-LABEL: gpu.module @e4m3_e5m2_kernels
// PROMOTE:       tile = array<i64: 64, 64, 128>
// PROMOTE:       nvgpu.device_async_copy
// PROMOTE:       %[[SZERO:.*]] = llvm.mlir.zero : !llvm.struct<(f32, {{.*}})>
// PROMOTE-NEXT:  scf.for {{.*}} iter_args(%[[MAIN:.*]] = %{{.*}}, %[[SLICE:.*]] = %[[SZERO]])
// PROMOTE-NEXT:    nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// PROMOTE-NEXT:    nvvm.fence.proxy
// PROMOTE-NEXT:    gpu.barrier
// PROMOTE-NEXT:    arith.addi %{{.*}}, %c3
// PROMOTE:         nvvm.wgmma.fence.aligned
// PROMOTE:         %[[W0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[SLICE]], <m = 64, n = 64, k = 32>, D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// PROMOTE:         %[[W1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W0]], <m = 64, n = 64, k = 32>, D[<f32>, <one>]
// PROMOTE:         %[[W2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W1]], <m = 64, n = 64, k = 32>, D[<f32>, <one>]
// PROMOTE:         %[[W3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W2]], <m = 64, n = 64, k = 32>, D[<f32>, <one>]
// PROMOTE-NEXT:    nvvm.wgmma.commit.group.sync.aligned
// PROMOTE-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// PROMOTE-NEXT:    %[[M0:.*]] = llvm.extractvalue %[[MAIN]][0]
// PROMOTE-NEXT:    %[[S0:.*]] = llvm.extractvalue %[[W3]][0]
// PROMOTE-NEXT:    %[[A0:.*]] = arith.addf %[[M0]], %[[S0]] : f32
// PROMOTE-NEXT:    %[[I0:.*]] = llvm.insertvalue %[[A0]], %[[MAIN]][0]
// PROMOTE-NEXT:    %[[M1:.*]] = llvm.extractvalue %[[I0]][1]
// PROMOTE-NEXT:    %[[S1:.*]] = llvm.extractvalue %[[W3]][1]
// PROMOTE-NEXT:    arith.addf %[[M1]], %[[S1]] : f32
// PROMOTE:         %[[S31:.*]] = llvm.extractvalue %[[W3]][31]
// PROMOTE-NEXT:    %[[A31:.*]] = arith.addf %{{.*}}, %[[S31]] : f32
// PROMOTE-NEXT:    %[[I31:.*]] = llvm.insertvalue %[[A31]], %{{.*}}[31]
// PROMOTE-NEXT:    scf.yield %[[I31]], %[[W3]]
// PROMOTE:       nvvm.wgmma.wait.group.sync.aligned 0
// PROMOTE-NEXT:  nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// A grid that takes 256-wide tiles for 16-bit inputs: 128 wide here, as
// two accumulators of tileN / 2 registers must fit a thread's 255.
// PROMOTE-LABEL: gpu.module @wide_kernels
// PROMOTE:       tile = array<i64: 128, 128, 128>
// PROMOTE:       D[<f32>, <zero>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
func.func @tb(%a: tensor<128x128xbf16>, %b: tensor<256x128xbf16>) -> tensor<128x256xf32> {
  %c = tensor.empty() : tensor<128x256xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<128x128xbf16>, tensor<256x128xbf16>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// B as [K, N]: read N-major (wgmma's transposed B, layout "row"), its
// 64-column blocks 64 x 128 bytes apart (leading offset 8192 / 16).
// CHECK-LABEL: gpu.module @kn_kernels
// CHECK:       mma = "wgmma"
// CHECK:       nvgpu.device_async_copy {{.*}} : memref<192x128xf16> to memref<32768xf16, #gpu.address_space<workgroup>>
// CHECK:       arith.constant 4611686293338849280 : i64
// CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
func.func @kn(%a: tensor<64x192xf16>, %b: tensor<192x128xf16>) -> tensor<64x128xf32> {
  %c = tensor.empty() : tensor<64x128xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x192xf16>, tensor<192x128xf16>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// i8: 128 elements of K a slice, k = 32, s32 sums that wrap.
// CHECK-LABEL: gpu.module @i8_kernels
// CHECK:       tile = array<i64: 64, 64, 128>
// CHECK:       llvm.mlir.zero : !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<s32>, <one>, <wrapped>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
func.func @i8(%a: tensor<64x256xi8>, %b: tensor<64x256xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x256xi8>, tensor<64x256xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// AUTO: gpu.module @tb_kernels
// AUTO: mma = "wgmma"
// AUTO: gpu.module @kn_kernels
// AUTO: mma = "wgmma"
// AUTO: gpu.module @i8_kernels
// AUTO: mma = "wgmma"
// AUTO-K20: gpu.module @k20_kernels
// AUTO-K20: mma = "mma.sync"
// AUTO-90-NOT: mma = "wgmma"
// SYNC-F8: gpu.module @f8tb_kernels
// SYNC-F8: mma = "mma.sync"
// AUTO-F8: gpu.module @f8tb_kernels
// AUTO-F8: mma = "wgmma"
