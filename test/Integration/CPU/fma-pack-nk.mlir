// f32 matmuls with B as [N, K] (a linear layer's weight) past cpu-row-dot's
// 24 rows: the cpu-fma kernel packs its panels of B from the [N, K] weight
// itself (16 x 16 squares transposed in registers), and the transposed copy
// of B goes. Against the fp64 oracle, NaN-prefilled outputs. Every shape
// leaves a partial last panel (columns past N: zero rows), a K that 16
// does not divide (masked squares) and a partial last M tile; with the
// cache tile given, several N and K blocks per call (the panels packed per
// block, the last blocks partial). Two threads: C's blocks are tasks that
// each pack their own block of B (one M block), or the threads share each
// packed block (M blocks enough for both: the panels packed in parallel).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=3 --cpu-pipeline-options=cache-tile=48,128,64 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=4 --num-threads=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=5 --num-threads=2 --cpu-pipeline-options=cache-tile=48,128,64 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=6 --dist=exact --cpu-pipeline-options=cache-tile=48,128,64 | FileCheck %s
// Without AVX-512 (the 6 x 16 register tile: one square a panel).
// RUN: accel-run %s --repeat=0 --seed=7 --cpu-pipeline-options="cpu-features=+avx2,+fma" | FileCheck %s
// No transpose and no copy of B is left (the IR after the kernels):
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-transpose-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// On two threads too (@linear_300: the threads share each packed block, the
// panels packed in parallel; @wide_n: each task packs its own blocks, views
// of the task's block of the copy):
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl threads=2" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-transpose-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @linear_300
// IR-NOT: linalg.transpose
// IR-NOT: memref<300x200xf32>
// IR: memref.prefetch %arg1
// IR-NOT: memref<300x200xf32>
// IR-LABEL: func.func @wide_n
// IR-NOT: linalg.transpose
// IR-NOT: memref<530x600xf32>
// IR-LABEL: func.func @narrow_k
// IR-NOT: linalg.transpose
// IR-LABEL: func.func @torch_linear_decode
// IR-NOT: linalg.transpose
// IR: vector.reduction <add>
// IR-LABEL: func.func @torch_linear
// IR-NOT: linalg.transpose
// IR: memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x256x64xf32>
// IR-NOT: memref<300x200xf32>

// CHECK-LABEL: @linear_300
// CHECK: PASS
// CHECK-LABEL: @wide_n
// CHECK: PASS
// CHECK-LABEL: @narrow_k
// CHECK: PASS
// CHECK-LABEL: @accumulate
// CHECK: PASS
// CHECK-LABEL: @c_is_w
// CHECK: PASS
// CHECK-LABEL: @torch_linear_decode
// CHECK: PASS
// CHECK-LABEL: @torch_linear
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

// M 310, K 300 (18 squares and 12), N 200 (3 panels and 8 columns).
func.func @linear_300(%x: tensor<310x300xf32>, %w: tensor<200x300xf32>) -> tensor<310x200xf32> {
  %c = tensor.empty() : tensor<310x200xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<310x300xf32>, tensor<200x300xf32>) outs(%c : tensor<310x200xf32>) -> tensor<310x200xf32>
  return %y : tensor<310x200xf32>
}

// M 97 (one past cpu-row-dot), N 600 (past a 512-column block), K 530.
func.func @wide_n(%x: tensor<97x530xf32>, %w: tensor<600x530xf32>) -> tensor<97x600xf32> {
  %c = tensor.empty() : tensor<97x600xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<97x530xf32>, tensor<600x530xf32>) outs(%c : tensor<97x600xf32>) -> tensor<97x600xf32>
  return %y : tensor<97x600xf32>
}

// K 9 (one masked square), N 40 (one panel, mostly padding).
func.func @narrow_k(%x: tensor<200x9xf32>, %w: tensor<40x9xf32>) -> tensor<200x40xf32> {
  %c = tensor.empty() : tensor<200x40xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<200x9xf32>, tensor<40x9xf32>) outs(%c : tensor<200x40xf32>) -> tensor<200x40xf32>
  return %y : tensor<200x40xf32>
}

// C += A W^T on a C that holds values (no fill to fold).
func.func @accumulate(%x: tensor<130x70xf32>, %w: tensor<90x70xf32>, %c: tensor<130x90xf32>) -> tensor<130x90xf32> {
  %y = accel.matmul transpose_b ins(%x, %w : tensor<130x70xf32>, tensor<90x70xf32>) outs(%c : tensor<130x90xf32>) -> tensor<130x90xf32>
  return %y : tensor<130x90xf32>
}

// C is W's own buffer (accumulate into the weight): panels packed from W
// per block would read columns that earlier blocks already wrote; the copy
// stays (made before the product) and the panels come from it.
func.func @c_is_w(%x: tensor<200x200xf32>, %w: tensor<200x200xf32>) -> tensor<200x200xf32> {
  %y = accel.matmul transpose_b accumulate ins(%x, %w : tensor<200x200xf32>, tensor<200x200xf32>) outs(%w : tensor<200x200xf32>) -> tensor<200x200xf32>
  return %y : tensor<200x200xf32>
}

// nn.Linear as torch-mlir writes it: matmul(x, t(W)), the transpose a
// linalg.transpose of W [N, K]. accel-raise makes it accel.matmul
// transpose_b on W: one row takes cpu-row-dot, 40 rows cpu-fma with panels
// packed from W; no transpose is left in either.
func.func @torch_linear_decode(%x: tensor<1x300xf32>, %w: tensor<200x300xf32>) -> tensor<1x200xf32> {
  %e = tensor.empty() : tensor<300x200xf32>
  %wt = linalg.transpose ins(%w : tensor<200x300xf32>) outs(%e : tensor<300x200xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %c = tensor.empty() : tensor<1x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<1x200xf32>) -> tensor<1x200xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<1x300xf32>, tensor<300x200xf32>) outs(%f : tensor<1x200xf32>) -> tensor<1x200xf32>
  return %y : tensor<1x200xf32>
}

func.func @torch_linear(%x: tensor<40x300xf32>, %w: tensor<200x300xf32>) -> tensor<40x200xf32> {
  %e = tensor.empty() : tensor<300x200xf32>
  %wt = linalg.transpose ins(%w : tensor<200x300xf32>) outs(%e : tensor<300x200xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %c = tensor.empty() : tensor<40x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<40x200xf32>) -> tensor<40x200xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<40x300xf32>, tensor<300x200xf32>) outs(%f : tensor<40x200xf32>) -> tensor<40x200xf32>
  return %y : tensor<40x200xf32>
}
