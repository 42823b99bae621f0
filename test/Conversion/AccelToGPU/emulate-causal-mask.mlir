// A frontend's causal mask, built in the graph (Hugging Face's: the lowest
// f32 above the diagonal; an i1 tril with another diagonal), becomes the
// causal band in both pipelines (accel-fuse-attention): the kernels read no
// mask and skip the blocks above the band. Checked against the fp64 oracle
// of the function as written (mask and all) on the CPU and, through the
// emulator, in the sm_80 and gfx942 kernels.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec > /dev/null
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=BAND < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// The kernels take Q, K, V and O only (no mask buffer), and are causal.
// BAND-COUNT-2: args = ["arg0", "arg1", "arg2", "result0"]
// BAND-NOT: mask
// LAUNCH-COUNT-2: launched

// CHECK-LABEL: @hf_mask
// CHECK: result #0 tensor<1x2x40x32xf32>: {{.*}} -> PASS
// CHECK: PASS
func.func @hf_mask(%q: tensor<1x2x40x32xf16>, %k: tensor<1x2x56x32xf16>, %v: tensor<1x2x56x32xf16>) -> tensor<1x2x40x32xf32> {
  %e0 = tensor.empty() : tensor<40x56xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<40x56xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c16 = arith.constant 16 : index
    %lim = arith.addi %i, %c16 : index
    %masked = arith.cmpi ugt, %j, %lim : index
    %zero = arith.constant 0.0 : f32
    %low = arith.constant -3.40282347E+38 : f32
    %x = arith.select %masked, %low, %zero : f32
    linalg.yield %x : f32
  } -> tensor<40x56xf32>
  %e = tensor.empty() : tensor<1x2x40x32xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x40x32xf16>, tensor<1x2x56x32xf16>, tensor<1x2x56x32xf16>) mask(%m : tensor<40x56xf32>) outs(%e : tensor<1x2x40x32xf32>) -> tensor<1x2x40x32xf32>
  return %r : tensor<1x2x40x32xf32>
}

// Each query sees the keys up to its own index of a longer cache
// (diagonal 0, not Skv - Sq): an i1 tril.
// CHECK-LABEL: @tril_i1
// CHECK: result #0 tensor<1x1x24x16xf32>: {{.*}} -> PASS
// CHECK: PASS
func.func @tril_i1(%q: tensor<1x1x24x16xf16>, %k: tensor<1x1x40x16xf16>, %v: tensor<1x1x40x16xf16>) -> tensor<1x1x24x16xf32> {
  %e0 = tensor.empty() : tensor<24x40xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<24x40xi1>) {
  ^bb0(%o: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi sle, %j, %i : index
    linalg.yield %keep : i1
  } -> tensor<24x40xi1>
  %e = tensor.empty() : tensor<1x1x24x16xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x1x24x16xf16>, tensor<1x1x40x16xf16>, tensor<1x1x40x16xf16>) mask(%m : tensor<24x40xi1>) outs(%e : tensor<1x1x24x16xf32>) -> tensor<1x1x24x16xf32>
  return %r : tensor<1x1x24x16xf32>
}
