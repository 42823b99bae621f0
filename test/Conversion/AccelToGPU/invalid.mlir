// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu

func.func @dynamic(%a: tensor<?x64xf16>, %b: tensor<64x64xf16>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  // expected-error @below {{needs static shapes on the GPU target}}
  %0 = accel.matmul ins(%a, %b : tensor<?x64xf16>, tensor<64x64xf16>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

func.func @f8(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @below {{of 'f8E4M3FN' inputs has no GPU lowering: sm_80 has no matrix instruction for f8E4M3FN inputs (f8E4M3FN needs sm_89 or newer)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// 8-bit B as [K, N]: ldmatrix cannot transpose 8-bit elements.
func.func @i8(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  // expected-error @below {{of 'i8' inputs has no GPU lowering yet for B stored [K, N]: 8-bit kernels read B as [N, K] (transpose_b), as ldmatrix cannot transpose 8-bit elements (transposing B into shared memory is not done)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

func.func @i8_scaled(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %sa: f32, %sb: f32, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @below {{with scales has no GPU lowering yet: the kernels of convert-accel-to-gpu take no scalar parameters (scaled 'i8' kernels are not done)}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) scales(%sa, %sb) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @i8_k(%a: tensor<64x30xi8>, %b: tensor<64x30xi8>, %c: tensor<64x64xi32>) -> tensor<64x64xi32> {
  // expected-error @below {{K = 30 is not a multiple of 4: the rows of A and B are copied to shared memory by cp.async in aligned pieces of at least 4 bytes (4 elements of 'i8'); pad it to a multiple of 4}}
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x30xi8>, tensor<64x30xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

func.func @odd_k(%a: tensor<64x37xf16>, %b: tensor<37x64xf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @below {{K = 37 is odd: the rows of A are copied to shared memory by cp.async in aligned pieces of at least 4 bytes (2 elements); pad it to an even size}}
  %0 = accel.matmul ins(%a, %b : tensor<64x37xf16>, tensor<37x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @odd_n(%a: tensor<64x64xbf16>, %b: tensor<64x37xbf16>, %c: tensor<64x37xf32>) -> tensor<64x37xf32> {
  // expected-error @below {{N = 37 is odd: the rows of B are copied to shared memory by cp.async in aligned pieces of at least 4 bytes (2 elements); pad it to an even size}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x37xbf16>) outs(%c : tensor<64x37xf32>) -> tensor<64x37xf32>
  return %0 : tensor<64x37xf32>
}

// -----

// A slice no generic reads has no GPU kernel (accel-fuse-slices folds the
// slices generics read into their maps: RoPE, emulate-rope.mlir).
func.func @slice(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @below {{has no GPU lowering (convert-accel-to-gpu compiles functions of accel.matmul ops, each with an optional elementwise epilogue on its result, accel.dequant_matmul, accel.attention and accel.paged_attention ops, elementwise linalg.generic ops, and row reductions with the ops around them; accel-decompose-softmax makes accel.softmax those)}}
  %0 = tensor.extract_slice %x[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// expected-error @below {{has no accel.matmul to compile for the GPU}}
func.func @nothing(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

func.func @passthrough(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf16>) {
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @below {{result #1 is not computed by an accel.matmul, accel.dequant_matmul, accel.attention, accel.paged_attention, accel.softmax or linalg.generic; the GPU kernels only return what they compute}}
  return %0, %a : tensor<64x64xf32>, tensor<64x64xf16>
}

// -----

func.func @twice(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %c: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-error @below {{returns the value of result #1 twice; each result is its own buffer}}
  return %0, %0 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

func.func @constant(%b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = arith.constant dense<1.0> : tensor<16x16xf16>
  // expected-error @below {{reads a value that is not a kernel buffer (a function argument or an accel.matmul result)}}
  %0 = accel.matmul ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @accumulate_empty(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>) -> tensor<16x16xf32> {
  %c = tensor.empty() : tensor<16x16xf32>
  // expected-error @below {{accumulates into a value that is not a kernel buffer (a function argument or an accel.matmul result)}}
  %0 = accel.matmul accumulate ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func private @mm_kernels()

// expected-error @below {{cannot place its kernels: the symbol @mm_kernels already exists}}
func.func @mm(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @grid(%a: tensor<65536x16x16xf16>, %b: tensor<65536x16x16xf16>, %c: tensor<65536x16x16xf32>) -> tensor<65536x16x16xf32> {
  // expected-error @below {{needs a grid of 1 x 1 x 65536 blocks; sm_80 allows at most 2147483647 x 65535 x 65535}}
  %0 = accel.matmul ins(%a, %b : tensor<65536x16x16xf16>, tensor<65536x16x16xf16>) outs(%c : tensor<65536x16x16xf32>) -> tensor<65536x16x16xf32>
  return %0 : tensor<65536x16x16xf32>
}
