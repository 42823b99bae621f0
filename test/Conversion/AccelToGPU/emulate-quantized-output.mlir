// Quantised outputs as a matmul's epilogue, on the CPU and in the GPU
// kernels: scale, round to an integer, clamp, convert to i8; or, for fp8,
// clamp to the format's largest finite value and round (saturation). The fp64 oracle models the
// rounding steps (math.roundeven, math.round, math.floor; arith.fptosi):
// exact, but a kernel whose input lies within its error of a step may land
// on the other side, which the gate allows and nothing more.
// REQUIRES: ptxas
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=7 --dist=normal | FileCheck %s
// RUN: rm -rf %t.rec %t.nv %t.amd
// RUN: accel-run %s --target=nvptx --record=%t.rec > /dev/null
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
//
// Kernels that round down instead of to nearest fail the replay.
// RUN: sed -e 's/"math.roundeven"/"math.floor"/' %t.sm_80.mlir > %t.floor.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.floor.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=FLOOR
//
// The PTX assembles and the code objects link (no libdevice, no OCML).
// RUN: accel-compile %s --target=nvptx --chip=sm_90a -o %t.nv > /dev/null
// RUN: accel-compile %s --target=amdgpu --chip=gfx942 -o %t.amd > /dev/null
//
// LAUNCH-COUNT-5: launched
// FLOOR-LABEL: @quantize_f32
// FLOOR: FAIL
// FLOOR-LABEL: @requantize_i8
// FLOOR: FAIL

// CHECK-LABEL: @quantize_f32
// CHECK: result #0 tensor<32x48xi8>: {{.*}} -> PASS
// CHECK: PASS
func.func @quantize_f32(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xi8> {
  %e = tensor.empty() : tensor<32x48xf32>
  %c = accel.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %o = tensor.empty() : tensor<32x48xi8>
  %s = arith.constant 12.5 : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<32x48xf32>) outs(%o : tensor<32x48xi8>) {
  ^bb0(%x: f32, %y: i8):
    %m = arith.mulf %x, %s : f32
    %r = math.roundeven %m : f32
    %c1 = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<32x48xi8>
  return %q : tensor<32x48xi8>
}

// W8A8 requantisation: the i8 matmul's i32 sums times a per-channel scale,
// rounded (ties away from zero), clamped and stored as i8.
// CHECK-LABEL: @requantize_i8
// CHECK: result #0 tensor<32x64xi8>: {{.*}} -> PASS
// CHECK: PASS
func.func @requantize_i8(%a: tensor<32x64xi8>, %b: tensor<64x64xi8>, %scale: tensor<64xf32>) -> tensor<32x64xi8> {
  %e = tensor.empty() : tensor<32x64xi32>
  %c = accel.matmul transpose_b ins(%a, %b : tensor<32x64xi8>, tensor<64x64xi8>) outs(%e : tensor<32x64xi32>) -> tensor<32x64xi32>
  %o = tensor.empty() : tensor<32x64xi8>
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c, %scale : tensor<32x64xi32>, tensor<64xf32>) outs(%o : tensor<32x64xi8>) {
  ^bb0(%x: i32, %s: f32, %y: i8):
    %f = arith.sitofp %x : i32 to f32
    %m = arith.mulf %f, %s : f32
    %r = math.roundeven %m : f32
    %c1 = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<32x64xi8>
  return %q : tensor<32x64xi8>
}

// An unsigned 4-bit-style output: floor of a scaled value, clamped to
// [0, 15], stored as i8 through fptoui.
// CHECK-LABEL: @floor_u4
// CHECK: result #0 tensor<16x32xi8>: {{.*}} -> PASS
// CHECK: PASS
func.func @floor_u4(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xi8> {
  %e = tensor.empty() : tensor<16x32xf32>
  %c = accel.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x32xf16>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o = tensor.empty() : tensor<16x32xi8>
  %s = arith.constant 3.0 : f32
  %off = arith.constant 8.0 : f32
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 15.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<16x32xf32>) outs(%o : tensor<16x32xi8>) {
  ^bb0(%x: f32, %y: i8):
    %m = arith.mulf %x, %s : f32
    %m2 = arith.addf %m, %off : f32
    %r = math.floor %m2 : f32
    %c1 = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptoui %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<16x32xi8>
  return %q : tensor<16x32xi8>
}

// fp8 with saturation: clamped to E4M3FN's largest finite value (448),
// then rounded to it; the conversion alone would make NaN of what
// overflows. On the GPUs the cast is integer arithmetic
// (accel-expand-f8-casts), stored as bytes.
// CHECK-LABEL: @saturate_e4m3
// CHECK: result #0 tensor<32x48xf8E4M3FN>: {{.*}} -> PASS
// CHECK: PASS
func.func @saturate_e4m3(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xf8E4M3FN> {
  %e = tensor.empty() : tensor<32x48xf32>
  %c = accel.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %o = tensor.empty() : tensor<32x48xf8E4M3FN>
  %s = arith.constant 200.0 : f32
  %lo = arith.constant -448.0 : f32
  %hi = arith.constant 448.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<32x48xf32>) outs(%o : tensor<32x48xf8E4M3FN>) {
  ^bb0(%x: f32, %y: f8E4M3FN):
    %m = arith.mulf %x, %s : f32
    %c1 = arith.maximumf %m, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %t = arith.truncf %c2 : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<32x48xf8E4M3FN>
  return %q : tensor<32x48xf8E4M3FN>
}

// An f16 matmul to E5M2 with a per-channel scale, clamped to E5M2's
// largest finite value (57344).
// CHECK-LABEL: @saturate_e5m2
// CHECK: result #0 tensor<16x32xf8E5M2>: {{.*}} -> PASS
// CHECK: PASS
func.func @saturate_e5m2(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>, %scale: tensor<32xf32>) -> tensor<16x32xf8E5M2> {
  %e = tensor.empty() : tensor<16x32xf32>
  %c = accel.matmul ins(%a, %b : tensor<16x64xf16>, tensor<64x32xf16>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %o = tensor.empty() : tensor<16x32xf8E5M2>
  %lo = arith.constant -57344.0 : f32
  %hi = arith.constant 57344.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c, %scale : tensor<16x32xf32>, tensor<32xf32>) outs(%o : tensor<16x32xf8E5M2>) {
  ^bb0(%x: f32, %s: f32, %y: f8E5M2):
    %m = arith.mulf %x, %s : f32
    %c1 = arith.maximumf %m, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %t = arith.truncf %c2 : f32 to f8E5M2
    linalg.yield %t : f8E5M2
  } -> tensor<16x32xf8E5M2>
  return %q : tensor<16x32xf8E5M2>
}
