// RUN: accel-opt %s --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math))"

// An f64 tanh has no polynomial here; it would become an OCML call the
// code object cannot resolve without a device library.
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @f64_tanh(%a: memref<8xf64>) kernel {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<8xf64>
    // expected-error @below {{has no library-free lowering on this type (f16, bf16 and f32 have one)}}
    %t = math.tanh %x : f64
    memref.store %t, %a[%c0] : memref<8xf64>
    gpu.return
  }
}
}
