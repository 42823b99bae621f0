// The kernels through the NVVM lowering to PTX (gpu-module-to-binary, all
// in accel-opt): f16 and bf16 with remainders along M, N and K.
// RUN: accel-opt %s --convert-accel-to-gpu | accel-opt %gpu_to_ptx_sm_80 -o %t.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.mlir | FileCheck %s

// 100x72x64 f16: tile 64x64x32, 2 K-slices.
// CHECK-LABEL: // gpu.binary @f16_kernels
// CHECK:       .target sm_80
// CHECK:       .address_size 64
// Bare pointers: one 64-bit parameter per buffer.
// CHECK:       .visible .entry f16_0(
// CHECK-NEXT:    .param .u64 .ptr .align 1 f16_0_param_0,
// CHECK-NEXT:    .param .u64 .ptr .align 1 f16_0_param_1,
// CHECK-NEXT:    .param .u64 .ptr .align 1 f16_0_param_2
// CHECK-NEXT:  )
// CHECK-NEXT:  .maxntid 128, 1, 1
// 64-bit offsets: block index x tile as a wide multiply, 64-bit adds.
// CHECK:       mul.wide.u32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 64;
// CHECK:       add.s64 %rd
// 16-byte cp.async that bypass L1; the source size is a register where the
// copy may fall outside A (rows >= 100) and 0 for the slices past K.
// CHECK:       cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK:       cp.async.commit_group;
// CHECK:       cp.async.commit_group;
// CHECK:       cp.async.wait_group 1;
// CHECK-NEXT:  bar.sync 0;
// CHECK:       cp.async.cg.shared.global [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}], 16, 0;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:       cp.async.wait_group 0;
// Epilogue: pairs of f32 behind the bounds checks.
// CHECK:       @%p{{[0-9]+}} bra
// CHECK:       st.global.v2.b32
// CHECK:       ret;

// 257x136x40 bf16: tile 64x64x32; M, N and K all have remainders.
// CHECK-LABEL: // gpu.binary @bf16_kernels
// CHECK:       .visible .entry bf16_0(
// CHECK:       cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK:       st.global.v2.b32

func.func @f16(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @bf16(%a: tensor<257x40xbf16>, %b: tensor<40x136xbf16>) -> tensor<257x136xf32> {
  %c = tensor.empty() : tensor<257x136xf32>
  %0 = accel.matmul ins(%a, %b : tensor<257x40xbf16>, tensor<40x136xbf16>) outs(%c : tensor<257x136xf32>) -> tensor<257x136xf32>
  return %0 : tensor<257x136xf32>
}
