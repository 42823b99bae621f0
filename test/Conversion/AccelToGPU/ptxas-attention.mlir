// REQUIRES: ptxas
// NVIDIA's assembler accepts the attention kernels' PTX for sm_80 and
// sm_90a without spilling registers (D = Dv = 128 is the heaviest: 64 f32
// O accumulators and 32 registers of Q fragments per thread), and
// accel-compile writes the PTX, the cubin and the launch metadata.
// RUN: accel-opt %S/../../Integration/GPU/attention.mlir --accel-nvptx-pipeline="chip=sm_80" -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir causal_mqa_d128_kernels > %t.bf16.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir wide_queries_kernels > %t.f16.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir causal_gqa_kernels > %t.gqa.ptx
// RUN: %ptxas -v -arch=sm_80 %t.bf16.ptx -o %t.bf16.cubin 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: %ptxas -v -arch=sm_80 %t.f16.ptx -o %t.f16.cubin 2>&1 | FileCheck %s --check-prefix=F16
// RUN: %ptxas -v -arch=sm_80 %t.gqa.ptx -o %t.gqa.cubin 2>&1 | FileCheck %s --check-prefix=GQA
// RUN: accel-opt %S/../../Integration/GPU/attention.mlir --accel-nvptx-pipeline="chip=sm_90a stages=3" -o %t.sm90a.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90a.mlir causal_gqa_1024_kernels > %t.big.ptx
// RUN: FileCheck %s --check-prefix=TARGET < %t.big.ptx
// ptxas neither injects wgmma fences nor serializes the wgmmas (its
// C7510-C7520 performance notes).
// RUN: %ptxas -v -arch=sm_90a %t.big.ptx -o %t.big.cubin 2>&1 | FileCheck %s --check-prefix=BIG --implicit-check-not=C75
// RUN: rm -rf %t.out && accel-compile %S/../../Integration/GPU/attention.mlir --target=nvptx --chip=sm_80 -o %t.out
// RUN: ls %t.out | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=JSON < %t.out/causal_gqa_0.json

// BF16: Compiling entry function 'causal_mqa_d128_0' for 'sm_80'
// BF16: 0 bytes spill stores, 0 bytes spill loads
// BF16: Used {{[0-9]+}} registers, used 1 barriers
// F16: Compiling entry function 'wide_queries_0' for 'sm_80'
// F16: 0 bytes spill stores, 0 bytes spill loads
// GQA: Compiling entry function 'causal_gqa_0' for 'sm_80'
// GQA: 0 bytes spill stores, 0 bytes spill loads
// TARGET: .target sm_90a
// On sm_90a the warpgroup-MMA kernel: S = Q.K^T from shared-memory
// descriptors, O += P.V with P from registers and V transposed.
// TARGET: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 0,  0;
// TARGET: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// BIG: Compiling entry function 'causal_gqa_1024_0' for 'sm_90a'
// BIG: 0 bytes spill stores, 0 bytes spill loads

// FILES: causal_gqa_0.json
// FILES: causal_gqa_kernels.cubin
// FILES-NEXT: causal_gqa_kernels.ptx
// JSON: "access": "in",
// JSON: "name": "arg0",
// JSON: "access": "out",
// JSON-NEXT: "byte_size": 39424,
// JSON-NEXT: "dtype": "f16",
// JSON-NEXT: "kind": "buffer",
// JSON-NEXT: "name": "result0",
// JSON: "dynamic_shared_bytes": 46080,
// JSON: "grid": [
// JSON-NEXT: 2,
// JSON-NEXT: 4,
// JSON-NEXT: 1
// JSON: "spill_bytes": 0,
