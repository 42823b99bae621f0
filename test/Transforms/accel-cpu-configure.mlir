// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni" | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-cpu-configure | FileCheck %s --check-prefix=NOFEAT
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni bf16-subnormals=keep cache-tile=64,256,512 register-tile=4,32,2 attention-tile-q=64" | FileCheck %s --check-prefix=OPTS
// Without AVX-512 (16 vector registers): the 6 x 16 register tile.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx2,fma" | FileCheck %s --check-prefix=AVX2
// On two threads (the few-rows cache tile's N blocks):
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f threads=2" | FileCheck %s --check-prefix=THREADS
// The stage is deterministic: configuring its own output changes nothing.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni" > %t.1
// RUN: accel-opt %t.1 -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni" > %t.2
// RUN: diff %t.1 %t.2

// f32: the FMA kernel with the default cache and register tiles (200
// rows: past the few-rows cache tile).
// CHECK-LABEL: func @f32
// CHECK: accel.matmul {{.*}}accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>
// NOFEAT-LABEL: func @f32
// NOFEAT: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]
// OPTS-LABEL: func @f32
// AVX2-LABEL: func @f32
// AVX2: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 16, 1]
// OPTS: kernel = "cpu-fma", tile = [64, 256, 512], mma = [4, 32, 2]
func.func @f32(%a: tensor<200x32xf32>, %b: tensor<32x48xf32>, %c: tensor<200x48xf32>) -> tensor<200x48xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<200x32xf32>, tensor<32x48xf32>) outs(%c : tensor<200x48xf32>) -> tensor<200x48xf32>
  return %0 : tensor<200x48xf32>
}

// -----

// f32 with up to 128 rows (6 x 64 register tile): one M block, N whole, K
// blocks of 32 (on two threads N blocks of N / 4, 64-aligned), from 65 rows
// N blocks of 512 (on two threads at most N / 4) and K blocks of 256; 129 rows,
// dynamic rows, a given tile or the AVX2 register tile: the default.
// CHECK-LABEL: func @few_rows
// CHECK: kernel = "cpu-fma", tile = [8, 0, 32], mma = [6, 64, 1]>
// CHECK: kernel = "cpu-fma", tile = [128, 512, 256], mma = [6, 64, 1]>
// CHECK: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>
// CHECK: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>
// CHECK: kernel = "cpu-fma", tile = [64, 64, 64], mma = [6, 64, 1]>
// THREADS-LABEL: func @few_rows
// THREADS: kernel = "cpu-fma", tile = [8, 256, 32], mma = [6, 64, 1]>
// THREADS: kernel = "cpu-fma", tile = [128, 256, 256], mma = [6, 64, 1]>
// AVX2-LABEL: func @few_rows
// AVX2: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 16, 1]>
func.func @few_rows(%a8: tensor<8x256xf32>, %a128: tensor<128x256xf32>, %a129: tensor<129x256xf32>, %ad: tensor<?x256xf32>, %b: tensor<256x1000xf32>) -> (tensor<8x1000xf32>, tensor<128x1000xf32>, tensor<129x1000xf32>, tensor<?x1000xf32>, tensor<8x1000xf32>) {
  %c8 = tensor.empty() : tensor<8x1000xf32>
  %0 = accel.matmul ins(%a8, %b : tensor<8x256xf32>, tensor<256x1000xf32>) outs(%c8 : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %c128 = tensor.empty() : tensor<128x1000xf32>
  %1 = accel.matmul ins(%a128, %b : tensor<128x256xf32>, tensor<256x1000xf32>) outs(%c128 : tensor<128x1000xf32>) -> tensor<128x1000xf32>
  %c129 = tensor.empty() : tensor<129x1000xf32>
  %2 = accel.matmul ins(%a129, %b : tensor<129x256xf32>, tensor<256x1000xf32>) outs(%c129 : tensor<129x1000xf32>) -> tensor<129x1000xf32>
  %i0 = arith.constant 0 : index
  %m = tensor.dim %ad, %i0 : tensor<?x256xf32>
  %cd = tensor.empty(%m) : tensor<?x1000xf32>
  %3 = accel.matmul ins(%ad, %b : tensor<?x256xf32>, tensor<256x1000xf32>) outs(%cd : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %4 = accel.matmul ins(%a8, %b : tensor<8x256xf32>, tensor<256x1000xf32>) outs(%c8 : tensor<8x1000xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [64, 64, 64]>} -> tensor<8x1000xf32>
  return %0, %1, %2, %3, %4 : tensor<8x1000xf32>, tensor<128x1000xf32>, tensor<129x1000xf32>, tensor<?x1000xf32>, tensor<8x1000xf32>
}

// -----

// bf16: vdpbf16ps where the CPU has it (k pairs per lane), unless bf16
// subnormals must be kept; the tile options are the FMA kernel's.
// CHECK-LABEL: func @bf16
// CHECK: kernel = "cpu-avx512bf16", tile = [132, 0, 2048], mma = [6, 64, 2]
// NOFEAT-LABEL: func @bf16
// NOFEAT: kernel = "cpu-fma"
// OPTS-LABEL: func @bf16
// OPTS: kernel = "cpu-fma", tile = [64, 256, 512], mma = [4, 32, 2]
func.func @bf16(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// int8 summed in i32 (into an i32 C, or scaled into an f32 one): vpdpbusd,
// 4 k values per lane.
// CHECK-LABEL: func @i8
// CHECK: kernel = "cpu-avx512vnni", tile = [132, 0, 2048], mma = [6, 64, 4]
// CHECK: kernel = "cpu-avx512vnni"
// NOFEAT-LABEL: func @i8
// NOFEAT: kernel = "cpu-fma"
// NOFEAT: kernel = "cpu-fma"
func.func @i8(%a: tensor<64x32xi8>, %b: tensor<32x48xi8>, %c: tensor<64x48xi32>, %d: tensor<64x48xf32>, %s: f32) -> (tensor<64x48xi32>, tensor<64x48xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) outs(%c : tensor<64x48xi32>) -> tensor<64x48xi32>
  %1 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) scales(%s, %s) outs(%d : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0, %1 : tensor<64x48xi32>, tensor<64x48xf32>
}

// -----

// What the dot kernels do not take: batch dimensions, dynamic sizes, an
// empty operand.
// CHECK-LABEL: func @fma_only
// CHECK-COUNT-3: kernel = "cpu-fma"
func.func @fma_only(%a: tensor<2x8x32xbf16>, %b: tensor<2x32x16xbf16>, %c: tensor<2x8x16xf32>,
                    %d: tensor<?x32xbf16>, %e: tensor<32x16xbf16>, %f: tensor<?x16xf32>,
                    %g: tensor<8x0xbf16>, %h: tensor<0x16xbf16>, %i: tensor<8x16xf32>) -> (tensor<2x8x16xf32>, tensor<?x16xf32>, tensor<8x16xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<2x8x32xbf16>, tensor<2x32x16xbf16>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %1 = accel.matmul ins(%d, %e : tensor<?x32xbf16>, tensor<32x16xbf16>) outs(%f : tensor<?x16xf32>) -> tensor<?x16xf32>
  %2 = accel.matmul ins(%g, %h : tensor<8x0xbf16>, tensor<0x16xbf16>) outs(%i : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0, %1, %2 : tensor<2x8x16xf32>, tensor<?x16xf32>, tensor<8x16xf32>
}

// -----

// Attention: FlashAttention-2 blocks.
// CHECK-LABEL: func @att
// CHECK: accel.attention {{.*}}kernel = "cpu-flash", tile = [128, 128]
// OPTS-LABEL: func @att
// OPTS: kernel = "cpu-flash", tile = [64, 128]
func.func @att(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}

// -----

// A hand-written config wins over the options and is completed.
// CHECK-LABEL: func @written
// CHECK: kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [4, 32, 1]
// CHECK: kernel = "cpu-flash", tile = [32, 16]
// OPTS-LABEL: func @written
// OPTS: kernel = "cpu-fma", tile = [64, 256, 512], mma = [4, 32, 1]
func.func @written(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>, %q: tensor<1x2x64x32xf32>) -> (tensor<64x48xf32>, tensor<1x2x64x32xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", mma = [4, 32, 1]>} -> tensor<64x48xf32>
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %1 = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [32, 16]>} -> tensor<1x2x64x32xf32>
  return %0, %1 : tensor<64x48xf32>, tensor<1x2x64x32xf32>
}

// -----

// Without a features option, the module's CPU target decides.
// NOFEAT-LABEL: func @target
// NOFEAT: kernel = "cpu-avx512bf16"
module attributes {accel.target = #accel.target<name = "zen", kind = cpu, chip = "znver4", features = ["avx512f", "avx512bf16"], peak_f32 = 0.1>} {
  func.func @target(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
    %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
    return %0 : tensor<64x48xf32>
  }
}

// -----

// cpu-row-dot asked for where the model would not pick it (24 rows are
// past AVX2's 16): the tiles of the most rows it takes there.
// CHECK-LABEL: func @row_dot_asked
// CHECK: kernel = "cpu-row-dot", tile = [0, 0, 256], mma = [4, 6, 16]>
// AVX2-LABEL: func @row_dot_asked
// AVX2: kernel = "cpu-row-dot", mma = [2, 2, 16]>
func.func @row_dot_asked(%a: tensor<24x64xf32>, %w: tensor<32x64xf32>) -> tensor<24x32xf32> {
  %c = tensor.empty() : tensor<24x32xf32>
  %0 = accel.matmul transpose_b ins(%a, %w : tensor<24x64xf32>, tensor<32x64xf32>) outs(%c : tensor<24x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot">} -> tensor<24x32xf32>
  return %0 : tensor<24x32xf32>
}

// -----

// f32 with B as [N, K] (transpose_b) and up to 24 rows of A: cpu-row-dot,
// its register tile by the rows (1 x 8, 2 x 8, 4 x 4, 4 x 6; AVX2 1 x 4 and
// 2 x 2, up to 16 rows) and, past one tile of rows, K blocks of 256; 25 rows
// and more: cpu-fma with blocks of 256 x 256 (its panels packed from [N, K],
// 16 rows of W at a time along K; the [K, N] rule's K blocks of 32 made that
// slow); a batch dimension: cpu-fma on the transposed copy, the [K, N]
// rule's tile; cpu-fma tiles in the options: cpu-fma.
// CHECK-LABEL: func @linear_f32
// CHECK: kernel = "cpu-row-dot", mma = [1, 8, 16]>
// CHECK: kernel = "cpu-row-dot", mma = [2, 8, 16]>
// CHECK: kernel = "cpu-row-dot", tile = [0, 0, 256], mma = [4, 4, 16]>
// CHECK: kernel = "cpu-row-dot", tile = [0, 0, 256], mma = [4, 6, 16]>
// CHECK: kernel = "cpu-fma", tile = [25, 256, 256], mma = [6, 64, 1]>
// CHECK: kernel = "cpu-fma", tile = [4, 0, 32], mma = [6, 64, 1]>
// THREADS-LABEL: func @linear_f32
// THREADS: kernel = "cpu-row-dot", mma = [1, 8, 16]>
// THREADS: kernel = "cpu-row-dot", mma = [2, 8, 16]>
// THREADS: kernel = "cpu-row-dot", tile = [0, 0, 256], mma = [4, 4, 16]>
// THREADS: kernel = "cpu-row-dot", tile = [0, 0, 256], mma = [4, 6, 16]>
// THREADS: kernel = "cpu-fma", tile = [25, 64, 256], mma = [6, 64, 1]>
// NOFEAT-LABEL: func @linear_f32
// NOFEAT: kernel = "cpu-row-dot", mma = [1, 8, 16]>
// OPTS-LABEL: func @linear_f32
// OPTS-NOT: cpu-row-dot
// OPTS: kernel = "cpu-fma", tile = [64, 256, 512], mma = [4, 32, 2]
// AVX2-LABEL: func @linear_f32
// AVX2: kernel = "cpu-row-dot", mma = [1, 4, 16]>
// AVX2: kernel = "cpu-row-dot", mma = [2, 2, 16]>
// AVX2: kernel = "cpu-row-dot", mma = [2, 2, 16]>
// AVX2: kernel = "cpu-fma"
func.func @linear_f32(%a1: tensor<1x64xf32>, %a3: tensor<3x64xf32>, %a15: tensor<15x64xf32>, %a24: tensor<24x64xf32>, %a25: tensor<25x64xf32>, %ab: tensor<2x4x64xf32>, %w: tensor<32x64xf32>, %wb: tensor<2x32x64xf32>) -> (tensor<1x32xf32>, tensor<3x32xf32>, tensor<15x32xf32>, tensor<24x32xf32>, tensor<25x32xf32>, tensor<2x4x32xf32>) {
  %c1 = tensor.empty() : tensor<1x32xf32>
  %0 = accel.matmul transpose_b ins(%a1, %w : tensor<1x64xf32>, tensor<32x64xf32>) outs(%c1 : tensor<1x32xf32>) -> tensor<1x32xf32>
  %c3 = tensor.empty() : tensor<3x32xf32>
  %1 = accel.matmul transpose_b ins(%a3, %w : tensor<3x64xf32>, tensor<32x64xf32>) outs(%c3 : tensor<3x32xf32>) -> tensor<3x32xf32>
  %c15 = tensor.empty() : tensor<15x32xf32>
  %2 = accel.matmul transpose_b ins(%a15, %w : tensor<15x64xf32>, tensor<32x64xf32>) outs(%c15 : tensor<15x32xf32>) -> tensor<15x32xf32>
  %c24 = tensor.empty() : tensor<24x32xf32>
  %3 = accel.matmul transpose_b ins(%a24, %w : tensor<24x64xf32>, tensor<32x64xf32>) outs(%c24 : tensor<24x32xf32>) -> tensor<24x32xf32>
  %c25 = tensor.empty() : tensor<25x32xf32>
  %4 = accel.matmul transpose_b ins(%a25, %w : tensor<25x64xf32>, tensor<32x64xf32>) outs(%c25 : tensor<25x32xf32>) -> tensor<25x32xf32>
  %cb = tensor.empty() : tensor<2x4x32xf32>
  %5 = accel.matmul transpose_b ins(%ab, %wb : tensor<2x4x64xf32>, tensor<2x32x64xf32>) outs(%cb : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<1x32xf32>, tensor<3x32xf32>, tensor<15x32xf32>, tensor<24x32xf32>, tensor<25x32xf32>, tensor<2x4x32xf32>
}
