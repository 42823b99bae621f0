// Matmuls with B as [N, K] (a linear layer's weight in PyTorch's layout)
// and a bare transpose, on the CPU against the fp64 oracle, NaN-prefilled
// outputs: accel-cpu-transpose-rhs transposes B for the kernels and
// accel-cpu-transpose-kernels does it in 64-byte-square blocks in
// registers (f32 16 x 16, bf16 32 x 32, i8 64 x 64), with element-by-element
// loops past the last whole block: every size below leaves rows and
// columns past the blocks. The largest transpose (4 MiB) takes the
// non-temporal stores; one and two threads (the blocks of destination
// rows shared). --dist=exact: bit-exact results.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact --seed=5 | FileCheck %s
// Without AMX: the AVX512-BF16 and VNNI dot kernels (B packed from
// [N, K] too; int8's column sums from the packed panels), on a CPU that has
// them (the JIT compiles for the host).
// RUN: %if cpu-avx512 && cpu-avx512bf16 && cpu-avx512vnni %{ accel-run %s --repeat=0 --cpu-pipeline-options="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512bf16,+avx512vnni" | FileCheck %s %}
// On AMX (this host when it has it) bf16 and i8 GEMMs pack B from the
// [N, K] weight itself (accel-cpu-amx-kernels, no transpose): as a whole
// (@bf16_linear, @i8_linear: groups and columns past the blocks of 16),
// piece by piece in the loops (@bf16_linear_decode: one M block), and per
// task on two threads (@bf16_linear_tasks: column panels covering N).
// The transposes are the block kernels, not loops over elements:
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512bf16" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-transpose-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-NOT: linalg.transpose
// IR: vector<16xf32>
// IR-NOT: linalg.transpose

// CHECK-LABEL: @f32_linear
// CHECK: PASS
// CHECK-LABEL: @bf16_linear
// CHECK: PASS
// CHECK-LABEL: @i8_linear
// CHECK: PASS
// CHECK-LABEL: @bf16_batched
// CHECK: PASS
// CHECK-LABEL: @bf16_transpose_4mib
// CHECK: PASS
// CHECK-LABEL: @bf16_linear_decode
// CHECK: PASS
// CHECK-LABEL: @bf16_linear_tasks
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

// K 100 (6 blocks of 16 and 4), N 72 (4 blocks and 8). Batched: cpu-fma
// on the transposed copy (without a batch, up to 24 rows take cpu-row-dot,
// row-dot.mlir, and more rows cpu-fma's panels packed from [N, K],
// fma-pack-nk.mlir: no copy).
func.func @f32_linear(%x: tensor<2x30x100xf32>, %w: tensor<2x72x100xf32>) -> tensor<2x30x72xf32> {
  %c = tensor.empty() : tensor<2x30x72xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<2x30x100xf32>, tensor<2x72x100xf32>) outs(%c : tensor<2x30x72xf32>) -> tensor<2x30x72xf32>
  return %y : tensor<2x30x72xf32>
}

// K 200 (6 blocks of 32 and 8), N 100 (3 blocks and 4).
func.func @bf16_linear(%x: tensor<20x200xbf16>, %w: tensor<100x200xbf16>) -> tensor<20x100xf32> {
  %c = tensor.empty() : tensor<20x100xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<20x200xbf16>, tensor<100x200xbf16>) outs(%c : tensor<20x100xf32>) -> tensor<20x100xf32>
  return %y : tensor<20x100xf32>
}

// K 160 (2 blocks of 64 and 32), N 70 (one block and 6).
func.func @i8_linear(%x: tensor<9x160xi8>, %w: tensor<70x160xi8>) -> tensor<9x70xi32> {
  %c = tensor.empty() : tensor<9x70xi32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<9x160xi8>, tensor<70x160xi8>) outs(%c : tensor<9x70xi32>) -> tensor<9x70xi32>
  return %y : tensor<9x70xi32>
}

func.func @bf16_batched(%x: tensor<2x16x96xbf16>, %w: tensor<2x40x96xbf16>) -> tensor<2x16x40xf32> {
  %c = tensor.empty() : tensor<2x16x40xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<2x16x96xbf16>, tensor<2x40x96xbf16>) outs(%c : tensor<2x16x40xf32>) -> tensor<2x16x40xf32>
  return %y : tensor<2x16x40xf32>
}

// 2050 x 1030: 64 x 32 blocks of 32 and 2 and 6 past them; 4 MiB.
func.func @bf16_transpose_4mib(%a: tensor<2050x1030xbf16>) -> tensor<1030x2050xbf16> {
  %e = tensor.empty() : tensor<1030x2050xbf16>
  %t = linalg.transpose ins(%a : tensor<2050x1030xbf16>) outs(%e : tensor<1030x2050xbf16>) permutation = [1, 0]
  return %t : tensor<1030x2050xbf16>
}

// A decode step's shape: one M block, K a multiple of 32, N of 16.
func.func @bf16_linear_decode(%x: tensor<4x512xbf16>, %w: tensor<96x512xbf16>) -> tensor<4x96xf32> {
  %c = tensor.empty() : tensor<4x96xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<4x512xbf16>, tensor<96x512xbf16>) outs(%c : tensor<4x96xf32>) -> tensor<4x96xf32>
  return %y : tensor<4x96xf32>
}

// Two M blocks and 2^26 multiply-adds or more: on two threads each task
// packs its own column panels.
func.func @bf16_linear_tasks(%x: tensor<300x512xbf16>, %w: tensor<512x512xbf16>) -> tensor<300x512xf32> {
  %c = tensor.empty() : tensor<300x512xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<300x512xbf16>, tensor<512x512xbf16>) outs(%c : tensor<300x512xf32>) -> tensor<300x512xf32>
  return %y : tensor<300x512xf32>
}
