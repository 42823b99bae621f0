// f32 GEMMs of one M block whose B is packed (rows over 2 KiB apart), on
// two threads: the threads cannot share B's panels across M blocks, so each
// task packs its own column blocks of B (inside its K loop) and owns those
// columns of C (accel-cpu-vectorize-contractions; before, B was read in
// place, and two threads ran slower than one). Against the fp64 oracle,
// NaN-prefilled: a partial last N block, three K blocks at the small cache
// tile, and a prefill-like 128 x 512 x 2048.
// RUN: accel-run %s --repeat=0 --num-threads=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 --dist=normal --cpu-pipeline-options=cache-tile=132,512,128 | FileCheck %s
// RUN: accel-run %s --repeat=0 | FileCheck %s
// Each task's own packed copy of B, inside the parallel loop (70 rows: the
// few-rows cache tile [70, 320, 256] on two threads, 5 panels of 256 x 64;
// the M block whole):
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512dq,+fma threads=2" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-vectorize-contractions -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @one_block_70x300x1100
// IR: scf.forall
// IR-NOT: scf.forall {{.*}} step (320, 36)
// IR: memref.alloc() {{.*}} : memref<5x256x64xf32>
// CHECK-LABEL: @one_block_70x300x1100
// CHECK: PASS
// CHECK-LABEL: @prefill_128x512x2048
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

func.func @one_block_70x300x1100(%a: tensor<70x300xf32>, %b: tensor<300x1100xf32>) -> tensor<70x1100xf32> {
  %c = tensor.empty() : tensor<70x1100xf32>
  %0 = accel.matmul ins(%a, %b : tensor<70x300xf32>, tensor<300x1100xf32>) outs(%c : tensor<70x1100xf32>) -> tensor<70x1100xf32>
  return %0 : tensor<70x1100xf32>
}

func.func @prefill_128x512x2048(%a: tensor<128x512xf32>, %b: tensor<512x2048xf32>) -> tensor<128x2048xf32> {
  %c = tensor.empty() : tensor<128x2048xf32>
  %0 = accel.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x2048xf32>) outs(%c : tensor<128x2048xf32>) -> tensor<128x2048xf32>
  return %0 : tensor<128x2048xf32>
}
