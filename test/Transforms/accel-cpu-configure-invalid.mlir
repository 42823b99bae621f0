// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512vnni" -verify-diagnostics
// RUN: not accel-opt %s --accel-cpu-configure="bf16-subnormals=daz" 2>&1 | FileCheck %s --check-prefix=SUBNORMALS
// SUBNORMALS: error: accel-cpu-configure: bf16-subnormals must be 'flush' or 'keep' (got 'daz')
// RUN: not accel-opt %s --accel-cpu-configure="cache-tile=64,64" 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: error: accel-cpu-configure: cache-tile and register-tile take 3 sizes each
// RUN: not accel-opt %s --accel-cpu-configure="attention-tile-kv=-1" 2>&1 | FileCheck %s --check-prefix=ATT
// ATT: error: accel-cpu-configure: attention-tile-q and attention-tile-kv must not be negative (0: chosen)

// One case per located error of the CPU configuration stage: a
// hand-written config the op or the CPU cannot take.

func.func @gpu_kernel(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use wgmma on the CPU: a matmul takes cpu-fma, cpu-avx512bf16, cpu-avx512vnni, cpu-amx-bf16, cpu-amx-int8 or cpu-row-dot}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma">} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @no_feature(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-avx512bf16: the CPU has no avx512bf16}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512bf16">} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @wrong_types(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-avx512vnni: it takes i8 operands of static sizes without batch dimensions, summed in i32}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512vnni">} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @nr(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-fma: register tile nr must be a power of two (got 48)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", mma = [8, 48, 1]>} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @two_entry_tile(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op a CPU matmul config needs a 3-entry tile, got 2}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [64, 64]>} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @dot_group(%a: tensor<64x32xi8>, %b: tensor<32x48xi8>, %c: tensor<64x48xi32>) -> tensor<64x48xi32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-avx512vnni: mma k must be 4 (the k values one 32-bit lane of the dot instruction takes)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) outs(%c : tensor<64x48xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512vnni", mma = [6, 64, 2]>} -> tensor<64x48xi32>
  return %0 : tensor<64x48xi32>
}

// -----

func.func @dot_tiles(%a: tensor<64x32xi8>, %b: tensor<32x48xi8>, %c: tensor<64x48xi32>) -> tensor<64x48xi32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-avx512vnni: mr must be positive, nr a positive multiple of 16 and kc even and >= 2 (got mr=6 nr=24 kc=2048)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) outs(%c : tensor<64x48xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512vnni", mma = [6, 24, 4]>} -> tensor<64x48xi32>
  return %0 : tensor<64x48xi32>
}

// -----

func.func @attention_kernel(%q: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  // expected-error @+1 {{'accel.attention' op cannot use cpu-fma on the CPU: an attention takes cpu-flash or cpu-flash-amx}}
  %0 = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma">} -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}

// -----

func.func @attention_mma(%q: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  // expected-error @+1 {{'accel.attention' op a cpu-flash config takes a tile [query rows, keys per step] and no mma}}
  %0 = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", mma = [1, 1, 1]>} -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}

// -----

func.func @not_a_config(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op has an accel.lowering_config that is not an #accel.lowering_config attribute}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = 3 : i64} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// cpu-row-dot reads B's rows: B must be [N, K].
func.func @row_dot_not_transposed(%a: tensor<4x32xf32>, %b: tensor<32x48xf32>, %c: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: it takes f32 A, B and C of static sizes without batch dimensions or scales, B as [N, K] (transpose_b)}}
  %0 = accel.matmul ins(%a, %b : tensor<4x32xf32>, tensor<32x48xf32>) outs(%c : tensor<4x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot">} -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @row_dot_bf16(%a: tensor<4x32xbf16>, %b: tensor<48x32xbf16>, %c: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: it takes f32 A, B and C}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x32xbf16>, tensor<48x32xbf16>) outs(%c : tensor<4x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot">} -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @row_dot_mma_k(%a: tensor<4x32xf32>, %b: tensor<48x32xf32>, %c: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: its mma is [mr, nr, 16] (16 f32 a vector along K)}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x32xf32>, tensor<48x32xf32>) outs(%c : tensor<4x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [4, 4, 8]>} -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @row_dot_registers(%a: tensor<4x32xf32>, %b: tensor<48x32xf32>, %c: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: mr x nr = 8 x 3 needs 33 vectors of 16 f32; AVX-512 has 32}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x32xf32>, tensor<48x32xf32>) outs(%c : tensor<4x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [8, 3, 16]>} -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @row_dot_tile(%a: tensor<4x32xf32>, %b: tensor<48x32xf32>, %c: tensor<4x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: its tile is [0, 0, Kc] (rows of A and W whole, K in blocks of Kc)}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4x32xf32>, tensor<48x32xf32>) outs(%c : tensor<4x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", tile = [4, 48, 32]>} -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

func.func @row_dot_k_block(%a: tensor<8x32xf32>, %b: tensor<48x32xf32>, %c: tensor<8x48xf32>) -> tensor<8x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-row-dot: the K block must be a multiple of 16 (0: whole), got 20}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<8x32xf32>, tensor<48x32xf32>) outs(%c : tensor<8x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", tile = [0, 0, 20]>} -> tensor<8x48xf32>
  return %0 : tensor<8x48xf32>
}
