// RUN: accel-opt %s --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math))" | FileCheck %s
// RUN: accel-opt %s --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math),gpu.module(convert-gpu-to-rocdl{chipset=gfx942 use-bare-ptr-memref-call-conv=1}))" | FileCheck %s --check-prefix=ROCDL
// RUN: accel-opt %s --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math{nvvm=1}))" | FileCheck %s --check-prefix=NVVM
// RUN: accel-opt %s --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math{nvvm=1}),gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}))" | FileCheck %s --check-prefix=NVLIB

// exp, tanh, erf and rsqrt become arith (upstream's polynomials, 1 /
// sqrt), and so does the floor of the exp polynomial; f16 goes through
// f32; sqrt, absf and fma stay, since the ROCDL lowering makes them LLVM
// intrinsics: after it no OCML function is called.
// CHECK-LABEL: gpu.func @epilogue_math
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK-NOT: math.rsqrt
// CHECK-NOT: math.floor
// CHECK: arith.fptosi
// CHECK: math.fma
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: math.absf
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.return

// With nvvm, what the polynomials leave becomes NVVM intrinsics and
// llvm.fma, so that convert-gpu-to-nvvm calls no libdevice function.
// NVVM-LABEL: gpu.func @epilogue_math
// NVVM-NOT: math.
// NVVM: llvm.intr.fma
// NVVM: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
// NVVM: arith.andi %{{.*}}, %{{.*}} : i32
// maxnumf / minnumf (libdevice's fmaxf / fminf otherwise) on any float.
// NVVM: llvm.intr.maxnum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// NVVM: llvm.intr.minnum(%{{.*}}, %{{.*}}) : (f16, f16) -> f16
// NVVM: gpu.return
// NVLIB-NOT: __nv_

// ROCDL-NOT: __ocml
// ROCDL: llvm.func @epilogue_math
// ROCDL-NOT: __ocml

// Rounding to integers (quantised outputs) is exact arithmetic on both
// vendors: the magnitude truncated through i32, raised where the fraction
// says, the sign put back; f16 through f32.
// CHECK-LABEL: gpu.func @rounding
// CHECK-NOT: math.round
// CHECK-NOT: math.ceil
// CHECK-NOT: math.trunc
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i32
// CHECK: gpu.return
// NVVM-LABEL: gpu.func @rounding
// NVVM-NOT: math.
// NVVM: gpu.return

module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @epilogue_math(%a: memref<8xf32>, %h: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<8xf32>
    %t = math.tanh %x : f32
    %e = math.erf %t : f32
    %p = math.exp %e : f32
    %r = math.rsqrt %p : f32
    %q = math.absf %r : f32
    %m = arith.maxnumf %q, %x : f32
    memref.store %m, %a[%c0] : memref<8xf32>
    %y = memref.load %h[%c0] : memref<8xf16>
    %z = math.tanh %y : f16
    %n = arith.minnumf %z, %y : f16
    memref.store %n, %h[%c0] : memref<8xf16>
    gpu.return
  }
  gpu.func @rounding(%a: memref<8xf32>, %h: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<8xf32>
    %r = math.round %x : f32
    %e = math.roundeven %r : f32
    %c = math.ceil %e : f32
    %t = math.trunc %c : f32
    memref.store %t, %a[%c0] : memref<8xf32>
    %y = memref.load %h[%c0] : memref<8xf16>
    %z = math.roundeven %y : f16
    memref.store %z, %h[%c0] : memref<8xf16>
    gpu.return
  }
}
}
