// More of the AMD matmul catalogue for the code-object tests (hsaco.test):
// i8 with i32 sums (B as [K, N] and as [N, K]), f16 and bf16 C, accumulate,
// batches, odd sizes and K = 0. Not run, only compiled and inspected.

func.func @i8_kn_100x136x72(%a: tensor<100x72xi8>, %b: tensor<72x136xi8>) -> tensor<100x136xi32> {
  %c = tensor.empty() : tensor<100x136xi32>
  %0 = accel.matmul ins(%a, %b : tensor<100x72xi8>, tensor<72x136xi8>) outs(%c : tensor<100x136xi32>) -> tensor<100x136xi32>
  return %0 : tensor<100x136xi32>
}

func.func @i8_nk_128x128x128(%a: tensor<128x128xi8>, %b: tensor<128x128xi8>) -> tensor<128x128xi32> {
  %c = tensor.empty() : tensor<128x128xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<128x128xi8>, tensor<128x128xi8>) outs(%c : tensor<128x128xi32>) -> tensor<128x128xi32>
  return %0 : tensor<128x128xi32>
}

func.func @i8_acc_batched_50x37x36(%a: tensor<2x50x36xi8>, %b: tensor<2x37x36xi8>, %c: tensor<2x50x37xi32>) -> tensor<2x50x37xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x50x36xi8>, tensor<2x37x36xi8>) outs(%c : tensor<2x50x37xi32>) -> tensor<2x50x37xi32>
  return %0 : tensor<2x50x37xi32>
}

func.func @f16_acc_f16_out(%a: tensor<64x96xf16>, %b: tensor<96x80xf16>, %c: tensor<64x80xf16>) -> tensor<64x80xf16> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<64x96xf16>, tensor<96x80xf16>) outs(%c : tensor<64x80xf16>) -> tensor<64x80xf16>
  return %0 : tensor<64x80xf16>
}

func.func @bf16_batched_nk_bf16_out(%a: tensor<3x50x36xbf16>, %b: tensor<3x37x36xbf16>) -> tensor<3x50x37xbf16> {
  %c = tensor.empty() : tensor<3x50x37xbf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<3x50x36xbf16>, tensor<3x37x36xbf16>) outs(%c : tensor<3x50x37xbf16>) -> tensor<3x50x37xbf16>
  return %0 : tensor<3x50x37xbf16>
}

func.func @f16_odd_50x37x36(%a: tensor<50x36xf16>, %b: tensor<36x37xf16>) -> tensor<50x37xf32> {
  %c = tensor.empty() : tensor<50x37xf32>
  %0 = accel.matmul ins(%a, %b : tensor<50x36xf16>, tensor<36x37xf16>) outs(%c : tensor<50x37xf32>) -> tensor<50x37xf32>
  return %0 : tensor<50x37xf32>
}

func.func @f16_k0(%a: tensor<32x0xf16>, %b: tensor<0x48xf16>) -> tensor<32x48xf32> {
  %c = tensor.empty() : tensor<32x48xf32>
  %0 = accel.matmul ins(%a, %b : tensor<32x0xf16>, tensor<0x48xf16>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}
