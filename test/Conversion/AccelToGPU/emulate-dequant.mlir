// REQUIRES: numpy
// accel.dequant_matmul on the GPU (DequantKernel.h: int4/int8 weights
// dequantised in registers, f32 FMAs, the lanes' sums by xor shuffles),
// checked against the fp64 oracle of the whole function without a GPU:
// accel-run records the inputs (zero points drawn as integers in the
// weights' range, as GPTQ/AWQ store them), the kernel emulator runs each
// chip's kernels on them (NVIDIA warps of 32, AMD waves of 64 on gfx942 and
// 32 on gfx1100) and accel-run --replay checks what they wrote. The cases:
// unsigned int4 with zero points and bf16 activations; signed int4 with f32
// activations and two batch dimensions flattened into rows, K shorter than
// a warp's step (the guarded last step); int8 with f16 in and out and more
// rows than a block takes (a partial block of A) and an odd N; unsigned
// int8 in groups of 8 (a chunk of 8 bytes) into bf16; int4 in groups of 2
// (a byte a lane); a decode step at K = 4096 (four full steps); and a
// dequant_matmul followed by SiLU (a program of two kernels).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
//
// The kernel's structure (sm_80): 16-byte loads of W, the integers made
// f32 by the exponent trick (no int-to-float conversion), the op's
// (q - z) * s, f32 FMAs, the butterfly, and the launch.
// RUN: accel-opt %s --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" | FileCheck %s --check-prefix=IR
//
// The check fails wrong kernels: unsigned weights read one too large (the
// 2^23 of the exponent trick off by one), the low nibble's mask made the
// high nibble's, and signed int4 weights read as offset binary (2^23 + 8
// made 2^23: q + 8).
// RUN: sed -e 's/value = 0x4B000000 : f32/value = 0x4AFFFFFE : f32/' %t.sm_80.mlir > %t.bad1.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad1.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD-UNSIGNED
// RUN: sed -e 's/"arith.constant"() <{value = 15 : i32}>/"arith.constant"() <{value = 240 : i32}>/' %t.sm_80.mlir > %t.bad2.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad2.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD-NIBBLE
// RUN: sed -e 's/value = 0x4B000008 : f32/value = 0x4B000000 : f32/' %t.sm_80.mlir > %t.bad3.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad3.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD-SIGNED
// And the emulator refuses to judge a dequant kernel on its own inputs.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir | FileCheck %s --check-prefix=DIRECT

// REC: accel-run: recorded 7 functions

// LAUNCH-COUNT-7: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @int4_zero_points
// CHECK: PASS
// CHECK-LABEL: @int4_signed_batched
// CHECK: PASS
// CHECK-LABEL: @int8_to_f16
// CHECK: PASS
// CHECK-LABEL: @int8_unsigned_group8
// CHECK: PASS
// CHECK-LABEL: @int4_group2
// CHECK: PASS
// CHECK-LABEL: @decode_k4096
// CHECK: PASS
// CHECK-LABEL: @dequant_silu
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

// BAD-UNSIGNED-LABEL: @int4_zero_points
// BAD-UNSIGNED: FAIL
// BAD-UNSIGNED-LABEL: @decode_k4096
// BAD-UNSIGNED: FAIL

// BAD-NIBBLE-LABEL: @int4_zero_points
// BAD-NIBBLE: FAIL

// BAD-SIGNED-LABEL: @int4_signed_batched
// BAD-SIGNED: FAIL
// BAD-SIGNED-LABEL: @int4_group2
// BAD-SIGNED: FAIL

// DIRECT: @int4_zero_points_dequant0: FAILED: is a dequant_matmul kernel

// IR: #loop_unroll = #llvm.loop_unroll<disable = true>
// IR: #loop_annotation = #llvm.loop_annotation<unroll = #loop_unroll>
// IR-LABEL: gpu.func @int4_zero_points_dequant0(
// IR-SAME: memref<3x256xbf16>, %{{.*}}: memref<40x128xi8>, %{{.*}}: memref<40x4xbf16>, %{{.*}}: memref<40x4xbf16>, %{{.*}}: memref<3x40xf32>)
// IR-SAME: block = array<i64: 128, 1, 1>
// IR-SAME: grid = array<i64: 3, 1, 1>, kind = "dequant", tile = array<i64: 3, 16, 8>
// IR: scf.for
// IR: vector.load %{{.*}} {alignment = 4 : i64} : memref<40x128xi8>, vector<4xi8>
// IR: vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
// IR: arith.andi %{{.*}}, %c15_i32 : i32
// IR: arith.ori %{{.*}}, %c1258291200_i32 : i32
// IR: arith.bitcast %{{.*}} : i32 to f32
// IR: arith.subf %{{.*}}, %cst{{.*}} : f32
// IR: arith.subf
// IR: arith.mulf
// IR: arith.shrui %{{.*}}, %c4_i32 : i32
// IR: vector.load %{{.*}} {alignment = 16 : i64} : memref<3x256xbf16>, vector<8xbf16>
// IR: math.fma
// IR: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// IR: memref.store %{{.*}} : memref<3x40xf32>
// IR-NOT: sitofp
// IR-NOT: uitofp
// IR-LABEL: gpu.func @int4_signed_batched_dequant0(
// IR-SAME: memref<6x96xf32>
// IR-SAME: memref<6x24xf32>
// IR: scf.if
// IR: arith.xori %{{.*}}, %c8_i32 : i32
// IR-LABEL: gpu.func @int8_to_f16_dequant0(
// IR-SAME: grid = array<i64: 9, 1, 1>, kind = "dequant", tile = array<i64: 12, 4, 8>
// IR: vector.load %{{.*}} {alignment = 8 : i64} : memref<33x128xi8>, vector<8xi8>
// IR: vector.bitcast %{{.*}} : vector<8xi8> to vector<2xi32>
// IR: arith.xori %{{.*}}, %c128_i32 : i32
// IR: arith.truncf %{{.*}} : f32 to f16
// The decode step: 16-byte chunks of 32 weights, whose four sub-blocks of
// 8 run as a loop kept rolled, each row's words rotated through it.
// IR-LABEL: gpu.func @decode_k4096_dequant0(
// IR-SAME: tile = array<i64: 1, 16, 32>
// IR-NOT: scf.if
// IR: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x2048xi8>, vector<16xi8>
// IR: vector.bitcast %{{.*}} : vector<16xi8> to vector<4xi32>
// IR: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[W0:arg[0-9]+]] = %{{[0-9]+}}, %[[W1:arg[0-9]+]] = %{{[0-9]+}}, %[[W2:arg[0-9]+]] = %{{[0-9]+}}, %[[W3:arg[0-9]+]] = %{{[0-9]+}},
// IR: arith.shrui %[[W0]], %c28_i32 : i32
// IR: scf.yield %[[W1]], %[[W2]], %[[W3]], %[[W0]],
// IR: } {loop_annotation = #loop_annotation}
// IR-LABEL: gpu.func @dequant_silu_elementwise0(

func.func @int4_zero_points(%a: tensor<3x256xbf16>, %w: tensor<40x128xi8>, %s: tensor<40x4xbf16>, %z: tensor<40x4xbf16>) -> tensor<3x40xf32> {
  %c = tensor.empty() : tensor<3x40xf32>
  %0 = accel.dequant_matmul bits(4) group(64) unsigned ins(%a, %w : tensor<3x256xbf16>, tensor<40x128xi8>) scales(%s : tensor<40x4xbf16>) zero_points(%z : tensor<40x4xbf16>) outs(%c : tensor<3x40xf32>) -> tensor<3x40xf32>
  return %0 : tensor<3x40xf32>
}

func.func @int4_signed_batched(%a: tensor<2x3x96xf32>, %w: tensor<24x48xi8>, %s: tensor<24x3xf32>) -> tensor<2x3x24xf32> {
  %c = tensor.empty() : tensor<2x3x24xf32>
  %0 = accel.dequant_matmul bits(4) group(32) ins(%a, %w : tensor<2x3x96xf32>, tensor<24x48xi8>) scales(%s : tensor<24x3xf32>) outs(%c : tensor<2x3x24xf32>) -> tensor<2x3x24xf32>
  return %0 : tensor<2x3x24xf32>
}

func.func @int8_to_f16(%a: tensor<12x128xf16>, %w: tensor<33x128xi8>, %s: tensor<33x1xf16>, %z: tensor<33x1xf16>) -> tensor<12x33xf16> {
  %c = tensor.empty() : tensor<12x33xf16>
  %0 = accel.dequant_matmul bits(8) group(128) ins(%a, %w : tensor<12x128xf16>, tensor<33x128xi8>) scales(%s : tensor<33x1xf16>) zero_points(%z : tensor<33x1xf16>) outs(%c : tensor<12x33xf16>) -> tensor<12x33xf16>
  return %0 : tensor<12x33xf16>
}

func.func @int8_unsigned_group8(%a: tensor<5x64xbf16>, %w: tensor<20x64xi8>, %s: tensor<20x8xbf16>, %z: tensor<20x8xbf16>) -> tensor<5x20xbf16> {
  %c = tensor.empty() : tensor<5x20xbf16>
  %0 = accel.dequant_matmul bits(8) group(8) unsigned ins(%a, %w : tensor<5x64xbf16>, tensor<20x64xi8>) scales(%s : tensor<20x8xbf16>) zero_points(%z : tensor<20x8xbf16>) outs(%c : tensor<5x20xbf16>) -> tensor<5x20xbf16>
  return %0 : tensor<5x20xbf16>
}

func.func @int4_group2(%a: tensor<1x20xf32>, %w: tensor<7x10xi8>, %s: tensor<7x10xf32>, %z: tensor<7x10xf32>) -> tensor<1x7xf32> {
  %c = tensor.empty() : tensor<1x7xf32>
  %0 = accel.dequant_matmul bits(4) group(2) ins(%a, %w : tensor<1x20xf32>, tensor<7x10xi8>) scales(%s : tensor<7x10xf32>) zero_points(%z : tensor<7x10xf32>) outs(%c : tensor<1x7xf32>) -> tensor<1x7xf32>
  return %0 : tensor<1x7xf32>
}

func.func @decode_k4096(%a: tensor<1x4096xbf16>, %w: tensor<64x2048xi8>, %s: tensor<64x32xbf16>, %z: tensor<64x32xbf16>) -> tensor<1x64xf32> {
  %c = tensor.empty() : tensor<1x64xf32>
  %0 = accel.dequant_matmul bits(4) group(128) unsigned ins(%a, %w : tensor<1x4096xbf16>, tensor<64x2048xi8>) scales(%s : tensor<64x32xbf16>) zero_points(%z : tensor<64x32xbf16>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @dequant_silu(%a: tensor<4x128xbf16>, %w: tensor<48x64xi8>, %s: tensor<48x2xbf16>, %z: tensor<48x2xbf16>) -> tensor<4x48xf32> {
  %c = tensor.empty() : tensor<4x48xf32>
  %0 = accel.dequant_matmul bits(4) group(64) unsigned ins(%a, %w : tensor<4x128xbf16>, tensor<48x64xi8>) scales(%s : tensor<48x2xbf16>) zero_points(%z : tensor<48x2xbf16>) outs(%c : tensor<4x48xf32>) -> tensor<4x48xf32>
  %e = tensor.empty() : tensor<4x48xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x48xf32>) outs(%e : tensor<4x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %ex : f32
    %y = arith.divf %x, %d : f32
    linalg.yield %y : f32
  } -> tensor<4x48xf32>
  return %1 : tensor<4x48xf32>
}
