// SCALE-Sim v2's GEMM regression layer (topologies/GEMM_mnk/test_mnk_input.csv:
// M = 256, N = 128, K = 256): ifmap 256x256, filter 256x128.
func.func @gemm(%a: tensor<256x256xi8>, %b: tensor<256x128xi8>) -> tensor<256x128xi32> {
  %c = tensor.empty() : tensor<256x128xi32>
  %0 = accel.matmul ins(%a, %b : tensor<256x256xi8>, tensor<256x128xi8>) outs(%c : tensor<256x128xi32>) -> tensor<256x128xi32>
  return %0 : tensor<256x128xi32>
}
