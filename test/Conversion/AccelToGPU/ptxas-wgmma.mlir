// REQUIRES: ptxas
// The wgmma kernels' PTX (chip=sm_90a mma=wgmma) and NVIDIA's assembler
// accepting it for sm_90a without spills: bf16 with B as [K, N] (N-major)
// and a 128x256 tile, f16 with B as [N, K], i8 and e4m3 x e5m2 (the f8
// kernels promote their sums, 128 wide by default); 64-bit
// global addresses, the proxy fence, the wgmma protocol.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma" | accel-opt %gpu_to_ptx_sm_90a -o %t.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir | FileCheck %s
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir kn_kernels > %t.kn.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir tb_kernels > %t.tb.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir i8_kernels > %t.i8.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir f8_kernels > %t.f8.ptx
// RUN: %ptxas -v -arch=sm_90a %t.kn.ptx -o %t.kn.cubin 2>&1 | FileCheck %s --check-prefix=KN
// RUN: %ptxas -v -arch=sm_90a %t.tb.ptx -o %t.tb.cubin 2>&1 | FileCheck %s --check-prefix=TB
// RUN: %ptxas -v -arch=sm_90a %t.i8.ptx -o %t.i8.cubin 2>&1 | FileCheck %s --check-prefix=I8
// RUN: %ptxas -v -arch=sm_90a %t.f8.ptx -o %t.f8.cubin 2>&1 | FileCheck %s --check-prefix=F8
// 8-bit floats promote each K slice into a second accumulator: no spills
// at the default 128-wide tile, also where 16-bit inputs would take 256.
// RUN: accel-opt %S/Inputs/f8-promote-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma" | accel-opt %gpu_to_ptx_sm_90a -o %t.promote.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.promote.mlir wide_kernels > %t.wide.ptx
// RUN: FileCheck %s --input-file=%t.wide.ptx --check-prefix=WIDE-PTX
// RUN: %ptxas -v -arch=sm_90a %t.wide.ptx -o %t.wide.cubin 2>&1 | FileCheck %s --check-prefix=F8
// The PTX says .target sm_90a (wgmma is arch-specific): ptxas refuses it
// for plain sm_90.
// RUN: not %ptxas -arch=sm_90 %t.kn.ptx -o %t.kn90.cubin 2>&1 | FileCheck %s --check-prefix=SM90

// CHECK-LABEL: // gpu.binary @kn_kernels
// CHECK:       .target sm_90a
// CHECK:       .address_size 64
// CHECK:       .visible .entry kn_0(
// CHECK-NEXT:    .param .u64 .ptr .align 1 kn_0_param_0,
// CHECK:       mul.wide.u32 %rd
// CHECK:       mov.b64 %rd{{[0-9]+}}, __dynamic_shmem__0;
// CHECK:       cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, {{[0-9]+|%r[0-9]+}};
// CHECK:       cp.async.wait_group 1;
// CHECK-NEXT:  fence.proxy.async.shared::cta;
// CHECK-NEXT:  bar.sync 0;
// CHECK:       wgmma.fence.sync.aligned;
// CHECK:       wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK:       wgmma.wait_group.sync.aligned 1;
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK:       st.global.v2.b32
// CHECK-LABEL: // gpu.binary @tb_kernels
// CHECK:       wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-LABEL: // gpu.binary @i8_kernels
// CHECK:       wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// CHECK-LABEL: // gpu.binary @f8_kernels
// The promotion: the slice's first wgmma with scale-d false (p = 0 != 0),
// the group waited for, then f32 additions.
// CHECK:       setp.ne.b32 p, 0, 0;
// CHECK-NEXT:  wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// CHECK:       setp.ne.b32 p, 1, 0;
// CHECK-NEXT:  wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK-NEXT:  wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT:  add.rn.f32
// WIDE-PTX:    .visible .entry wide_0(
// WIDE-PTX:    wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WIDE-PTX:    wgmma.wait_group.sync.aligned 0;
// WIDE-PTX-NEXT: add.rn.f32

// KN: Compiling entry function 'kn_0' for 'sm_90a'
// KN: 0 bytes spill stores, 0 bytes spill loads
// TB: 0 bytes spill stores, 0 bytes spill loads
// I8: 0 bytes spill stores, 0 bytes spill loads
// F8: 0 bytes spill stores, 0 bytes spill loads
// SM90: PTX with .target 'sm_90a' cannot be compiled for architecture 'sm_90'

// 4096 x 4096 blocks of 128 x 256: 512 blocks, a 128x256x64 tile in 4
// stages (197632 bytes).
func.func @kn(%a: tensor<4096x512xbf16>, %b: tensor<512x4096xbf16>) -> tensor<4096x4096xf32> {
  %c = tensor.empty() : tensor<4096x4096xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4096x512xbf16>, tensor<512x4096xbf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

func.func @tb(%a: tensor<3x257x40xf16>, %b: tensor<3x136x40xf16>, %c: tensor<3x257x136xf16>) -> tensor<3x257x136xf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x257x40xf16>, tensor<3x136x40xf16>) outs(%c : tensor<3x257x136xf16>) -> tensor<3x257x136xf16>
  return %0 : tensor<3x257x136xf16>
}

func.func @i8(%a: tensor<100x144xi8>, %b: tensor<48x144xi8>) -> tensor<100x48xi32> {
  %c = tensor.empty() : tensor<100x48xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x144xi8>, tensor<48x144xi8>) outs(%c : tensor<100x48xi32>) -> tensor<100x48xi32>
  return %0 : tensor<100x48xi32>
}

func.func @f8(%a: tensor<200x256xf8E4M3FN>, %b: tensor<136x256xf8E5M2>) -> tensor<200x136xbf16> {
  %c = tensor.empty() : tensor<200x136xbf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<200x256xf8E4M3FN>, tensor<136x256xf8E5M2>) outs(%c : tensor<200x136xbf16>) -> tensor<200x136xbf16>
  return %0 : tensor<200x136xbf16>
}
