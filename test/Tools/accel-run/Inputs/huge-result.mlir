// A signature whose element count overflows int64 (no accel op checks it).
func.func @f(%a: tensor<4611686018427387904x2xf16>) -> tensor<4611686018427387904x2xf16> {
  return %a : tensor<4611686018427387904x2xf16>
}
