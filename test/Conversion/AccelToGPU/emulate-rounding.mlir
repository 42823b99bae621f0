// Rounding to integers in GPU kernels without a library: accel-gpu-
// approximate-math makes roundeven, round, ceil, trunc and floor exact
// arithmetic (the magnitude truncated through i32, raised where the
// fraction says, the sign kept; x itself from 2^23 on). The kernels after
// that pass run on the emulator over the values where roundings differ:
// ties, the floats beside 1/2, -0, tiny and huge values, 2^23 - 1/2,
// infinities and NaN; the replay holds every element to the fp64 oracle,
// which is exact here (gate 0). The CPU runs the same inputs.
// RUN: rm -rf %t.rec && mkdir -p %t.in
// RUN: %numpy_python -c "import numpy as np, sys; v = [0.5, 1.5, 2.5, 3.5, 4.5, 0.49999997, 0.50000006, 1.4999999, 2.5000002, 0.0, 1e-30, 0.7, 1.2, 8388607.5, 8388606.5, 8388608.0, 8388609.0, 1e10, 123456.5, 3.0, np.inf, 0.25, 0.75, 9.999999, 1e-45, 5.5, 6.5, 7.5, 0.3, 99.5, 100.5, 2.0**22 + 0.5]; v = v + [-x for x in v]; v[-1] = np.nan; np.save(sys.argv[1], np.array(v, np.float32))" %t.in/x.npy
// RUN: accel-run %s --input %t.in/x.npy | FileCheck %s
// RUN: accel-run %s --target=nvptx --record=%t.rec --input %t.in/x.npy > /dev/null
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" | accel-opt --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math{nvvm=1}))" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=EXPANDED < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec --input %t.in/x.npy | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" | accel-opt --pass-pipeline="builtin.module(gpu.module(accel-gpu-approximate-math))" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec --input %t.in/x.npy | FileCheck %s
// A roundeven that rounds ties up (its first compare, fraction > 1/2,
// made >= 1/2) fails; the other roundings still pass.
// RUN: sed -e '0,/predicate = 2 : i64/s//predicate = 3 : i64/' %t.sm_80.mlir > %t.ties.mlir
// RUN: not cmp -s %t.sm_80.mlir %t.ties.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.ties.mlir --launch-record %t.rec > /dev/null
// RUN: not accel-run %s --target=nvptx --replay=%t.rec --input %t.in/x.npy | FileCheck %s --check-prefix=TIES
// EXPANDED-NOT: "math.
// LAUNCH-COUNT-5: launched
// TIES: result #0 tensor<64xf32>: {{.*}} -> FAIL
// TIES-NEXT: elements out of gate
// TIES-NEXT: result #1 tensor<64xf32>: {{.*}} -> PASS

// CHECK-LABEL: @rounding
// CHECK: result #0 tensor<64xf32>: {{.*}} -> PASS
// CHECK: result #1 tensor<64xf32>: {{.*}} -> PASS
// CHECK: result #2 tensor<64xf32>: {{.*}} -> PASS
// CHECK: result #3 tensor<64xf32>: {{.*}} -> PASS
// CHECK: result #4 tensor<64xf32>: {{.*}} -> PASS
// CHECK: accel-run: 1 of 1 functions passed
#id = affine_map<(i) -> (i)>
func.func @rounding(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.roundeven %a : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.round %a : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.ceil %a : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.trunc %a : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.floor %a : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
