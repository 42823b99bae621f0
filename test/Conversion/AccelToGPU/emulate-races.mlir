// REQUIRES: numpy
// The shared-memory race detector of Inputs/emulate_kernels.py (on by
// default in every emulate*.mlir test). The emulator steps the threads in
// lockstep, so the values alone cannot show a missing barrier: the detector
// keeps barrier epochs and cp.async landing per byte instead. These runs
// check that it reports each kind of race and that the kernels' own
// synchronization passes.
//
// Each rule on hand-made access sequences, racy and synchronized:
// RUN: %numpy_python %S/Inputs/emulate_kernels.py --self-test | FileCheck %s --check-prefix=SELF
// SELF: raw: shared-memory race (RAW): load by thread 32 (warp 1) reads byte 1, stored by thread 0 (warp 0) with no gpu.barrier in between
// SELF-NEXT: raw (synchronized): ok
// SELF-NEXT: raw-other-lane: shared-memory race (RAW): load by thread 1 (warp 0)
// SELF-NEXT: raw-other-lane (synchronized): ok
// SELF-NEXT: raw-same-thread: ok
// SELF-NEXT: raw-same-thread (synchronized): ok
// SELF-NEXT: war: shared-memory race (WAR across warps): cp.async by thread 0 (warp 0) writes byte 0, which warp 1 read
// SELF-NEXT: war (synchronized): ok
// SELF-NEXT: inflight: shared-memory race (read of an in-flight cp.async)
// SELF-NEXT: inflight (synchronized): ok
// SELF-NEXT: landed-other-thread: shared-memory race (cp.async data read before a barrier): load by thread 6 (warp 0) reads byte 9, whose cp.async by thread 5 (warp 0) landed at its wait
// SELF-NEXT: landed-other-thread (synchronized): ok
// SELF-NEXT: landed-ldmatrix-own-warp: shared-memory race (cp.async data read before a barrier): ldmatrix by warp 0
// SELF-NEXT: landed-ldmatrix-own-warp (synchronized): ok
// SELF-NEXT: barrier-before-wait: shared-memory race (cp.async data read before a barrier): load by thread 40 (warp 1)
// SELF-NEXT: barrier-before-wait (synchronized): ok
// SELF-NEXT: waw: shared-memory race (WAW across warps): store by thread 33 (warp 1) writes byte 4, which thread 0 (warp 0) wrote with another value
// SELF-NEXT: waw (synchronized): ok
// SELF-NEXT: waw-same-value: ok
// SELF-NEXT: waw-same-value (synchronized): ok
// SELF-NEXT: waw-one-op: shared-memory race (WAW across warps): store: warps 0 and 1 write byte 4 with different values
// SELF-NEXT: waw-one-op (synchronized): ok
// SELF-NEXT: copy-over-inflight: shared-memory race (write over an in-flight cp.async): cp.async by thread 1 writes byte 4
// SELF-NEXT: copy-over-inflight (synchronized): ok
// SELF-NEXT: divergent-barrier: gpu.barrier reached by 32 of 64 threads (divergent barrier)
// SELF-NEXT: divergent-barrier (synchronized): ok
//
// The real kernels pass; without the ring's barrier (--drop-barrier 0) the
// ldmatrix reads other threads' copies before any barrier, with the barrier
// moved below the next slice's copies (--sink-barrier 0) those copies
// overwrite the stage other warps read in the previous iteration. The
// lockstep values alone do not notice (--no-race-check).
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_89 stages=3" --mlir-print-op-generic -o %t.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.mlir | FileCheck %s --check-prefix=OK
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --drop-barrier 0 --no-race-check | FileCheck %s --check-prefix=OK
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --drop-barrier 0 | FileCheck %s --check-prefix=DROP
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --sink-barrier 0 | FileCheck %s --check-prefix=SINK
// Attention: barrier 0 follows Q's copy, barriers 1 and 2 are the K/V
// ring's in the loop over the key blocks without masked keys (one block
// here: the band starts at key 110) and in the loop over the diagonal ones.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --drop-barrier 1 | FileCheck %s --check-prefix=DROP1
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --sink-barrier 2 | FileCheck %s --check-prefix=SINK1

// OK: @gemm_0: OK (M=40 N=36 K=96 transpose_b,
// OK: @i8_0: OK (M=33 N=20 K=160 transpose_b,
// OK: @f8_0: OK (M=24 N=40 K=128 transpose_b,
// OK: @attention_0: OK (B=1 Hq=2 Hkv=1 Sq=40 Skv=150 D=32 Dv=32 causal(110),
// OK-NOT: FAILED

// DROP: @gemm_0: FAILED: shared-memory race (cp.async data read before a barrier) in block (0, 0, 0): ldmatrix by warp 0 reads byte 0, whose cp.async by thread 0 (warp 0) landed at its wait with no gpu.barrier since
// DROP: @i8_0: FAILED: shared-memory race (cp.async data read before a barrier)
// DROP: @f8_0: FAILED: shared-memory race (cp.async data read before a barrier)
// DROP: @attention_0: FAILED: shared-memory race (cp.async data read before a barrier) in block (0, 0, 0): ldmatrix by warp 0 reads byte 0, whose cp.async by thread 0 (warp 0) landed
// SINK: @gemm_0: FAILED: shared-memory race (WAR across warps) in block (0, 0, 0): cp.async by thread {{[0-9]+}} (warp {{[0-9]}}) writes byte {{[0-9]+}}, which warp {{[0-9]}} read with no gpu.barrier in between
// SINK: @i8_0: FAILED: shared-memory race (WAR across warps)
// SINK: @f8_0: FAILED: shared-memory race (WAR across warps)
// SINK: @attention_0: OK
// DROP1: @gemm_0: no barrier 1 to mutate
// DROP1-NEXT: @gemm_0: OK
// DROP1: @attention_0: FAILED: shared-memory race (cp.async data read before a barrier) in block (0, 0, 0): ldmatrix by warp 0 reads byte {{[1-9][0-9]*}}
// SINK1: @attention_0: FAILED: shared-memory race (WAR across warps)

func.func @gemm(%a: tensor<40x96xbf16>, %b: tensor<36x96xbf16>, %c: tensor<40x36xf32>) -> tensor<40x36xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<40x96xbf16>, tensor<36x96xbf16>) outs(%c : tensor<40x36xf32>) -> tensor<40x36xf32>
  return %0 : tensor<40x36xf32>
}

func.func @i8(%a: tensor<33x160xi8>, %b: tensor<20x160xi8>) -> tensor<33x20xi32> {
  %c = tensor.empty() : tensor<33x20xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<33x160xi8>, tensor<20x160xi8>) outs(%c : tensor<33x20xi32>) -> tensor<33x20xi32>
  return %0 : tensor<33x20xi32>
}

func.func @f8(%a: tensor<24x128xf8E4M3FN>, %b: tensor<40x128xf8E5M2>) -> tensor<24x40xf16> {
  %c = tensor.empty() : tensor<24x40xf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<24x128xf8E4M3FN>, tensor<40x128xf8E5M2>) outs(%c : tensor<24x40xf16>) -> tensor<24x40xf16>
  return %0 : tensor<24x40xf16>
}

func.func @attention(%q: tensor<1x2x40x32xf16>, %k: tensor<1x1x150x32xf16>, %v: tensor<1x1x150x32xf16>) -> tensor<1x2x40x32xf32> {
  %o = tensor.empty() : tensor<1x2x40x32xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x40x32xf16>, tensor<1x1x150x32xf16>, tensor<1x1x150x32xf16>) outs(%o : tensor<1x2x40x32xf32>) -> tensor<1x2x40x32xf32>
  return %0 : tensor<1x2x40x32xf32>
}
