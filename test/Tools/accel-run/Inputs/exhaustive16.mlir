// softmax([x, 0]) over every finite f16 and bf16 value x (Inputs/exhaustive16.py
// makes the rows): exp on the whole 16-bit input range.
func.func @sigmoid_f16(%x: tensor<63488x2xf16>) -> tensor<63488x2xf16> {
  %y = tensor.empty() : tensor<63488x2xf16>
  %0 = accel.softmax dimension(1) ins(%x : tensor<63488x2xf16>) outs(%y : tensor<63488x2xf16>) -> tensor<63488x2xf16>
  return %0 : tensor<63488x2xf16>
}
func.func @sigmoid_bf16(%x: tensor<65280x2xbf16>) -> tensor<65280x2xbf16> {
  %y = tensor.empty() : tensor<65280x2xbf16>
  %0 = accel.softmax dimension(1) ins(%x : tensor<65280x2xbf16>) outs(%y : tensor<65280x2xbf16>) -> tensor<65280x2xbf16>
  return %0 : tensor<65280x2xbf16>
}
