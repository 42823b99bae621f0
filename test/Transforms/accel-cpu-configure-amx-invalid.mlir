// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,amx-tile,amx-bf16" -verify-diagnostics

func.func @no_tile_registers(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-bf16: mr x nr = 64 x 64 needs 24 tile registers (C, A and B tiles); AMX has 8}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [256, 0, 2048], mma = [64, 64, 32]>} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @mma_k(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-bf16: mma k must be 32 (the k values one tile multiply takes)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", mma = [32, 32, 2]>} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @kc(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-bf16: mr and nr must be positive multiples of 16 (one tile's rows and columns), mc >= 0 and kc a positive multiple of 32 (got mr=24 nr=32 mc=256 kc=100)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [256, 0, 100], mma = [24, 32, 32]>} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @no_amx_int8(%a: tensor<64x32xi8>, %b: tensor<32x48xi8>, %c: tensor<64x48xi32>) -> tensor<64x48xi32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-int8: the CPU has no amx-int8}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xi8>, tensor<32x48xi8>) outs(%c : tensor<64x48xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-int8">} -> tensor<64x48xi32>
  return %0 : tensor<64x48xi32>
}

// -----

func.func @wrong_types(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-error @+1 {{'accel.matmul' op cannot use cpu-amx-bf16: it takes bf16 operands of static sizes without batch dimensions, summed in f32 (and bf16-subnormals=flush)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16">} -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

func.func @flash_amx_f32(%q: tensor<1x2x64x32xf32>, %o: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  // expected-error @+1 {{'accel.attention' op cannot use cpu-flash-amx: it takes bf16 query, key and value (and bf16-subnormals=flush)}}
  %r = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash-amx">} -> tensor<1x2x64x32xf32>
  return %r : tensor<1x2x64x32xf32>
}

// -----

func.func @flash_amx_mma(%q: tensor<1x2x64x32xbf16>, %o: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  // expected-error @+1 {{'accel.attention' op a cpu-flash-amx config takes a tile [query rows, keys per step] and no mma}}
  %r = accel.attention ins(%q, %q, %q : tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16>) outs(%o : tensor<1x2x64x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash-amx", mma = [16, 16, 32]>} -> tensor<1x2x64x32xf32>
  return %r : tensor<1x2x64x32xf32>
}
