// A tensor encoding holding "*/" and C code (untrusted-names.test).
func.func @k(%a: tensor<4xf32, "*/ __attribute__((constructor)) static void injected(void) { __builtin_trap(); } /*">) -> tensor<4xf32> {
  %c = tensor.cast %a : tensor<4xf32, "*/ __attribute__((constructor)) static void injected(void) { __builtin_trap(); } /*"> to tensor<4xf32>
  return %c : tensor<4xf32>
}
