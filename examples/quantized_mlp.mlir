// A Llama MLP at decode (one token; d_model 256, FFN 512), its weights
// quantised to int4 in groups of 128 with bf16 scales (GPTQ-style,
// symmetric; `accel.dequant_matmul`, docs/quantization.md), activations in
// bf16: RMSNorm (PyTorch's: x * rsqrt(mean(x^2) + eps) rounded to bf16,
// then times the weight), the gate and up projections, SwiGLU, the down
// projection and the residual. Runs on every target
// (test/Examples/quantized-mlp.test):
//   accel-run examples/quantized_mlp.mlir [--target=systolic]
//   accel-compile examples/quantized_mlp.mlir --target=cpu,nvptx,amdgpu,systolic -o out
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
#col2 = affine_map<(i, j) -> (j)>
func.func @qmlp(%x: tensor<1x256xbf16>, %wn: tensor<256xbf16>,
                %wg: tensor<512x128xi8>, %sg: tensor<512x2xbf16>,
                %wu: tensor<512x128xi8>, %su: tensor<512x2xbf16>,
                %wd: tensor<256x256xi8>, %sd: tensor<256x4xbf16>) -> tensor<1x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %ss_e = tensor.empty() : tensor<1xf32>
  %ss_z = linalg.fill ins(%zero : f32) outs(%ss_e : tensor<1xf32>) -> tensor<1xf32>
  %ss = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x256xbf16>) outs(%ss_z : tensor<1xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %h_e = tensor.empty() : tensor<1x256xbf16>
  %h = linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %ss, %wn : tensor<1x256xbf16>, tensor<1xf32>, tensor<256xbf16>) outs(%h_e : tensor<1x256xbf16>) {
  ^bb0(%a: bf16, %s: f32, %w: bf16, %o: bf16):
    %n = arith.constant 256.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %s, %n : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %af = arith.extf %a : bf16 to f32
    %t = arith.mulf %af, %r : f32
    %tb = arith.truncf %t : f32 to bf16
    %y = arith.mulf %tb, %w : bf16
    linalg.yield %y : bf16
  } -> tensor<1x256xbf16>
  %g_c = tensor.empty() : tensor<1x512xf32>
  %g = accel.dequant_matmul bits(4) group(128) ins(%h, %wg : tensor<1x256xbf16>, tensor<512x128xi8>) scales(%sg : tensor<512x2xbf16>) outs(%g_c : tensor<1x512xf32>) -> tensor<1x512xf32>
  %u_c = tensor.empty() : tensor<1x512xf32>
  %u = accel.dequant_matmul bits(4) group(128) ins(%h, %wu : tensor<1x256xbf16>, tensor<512x128xi8>) scales(%su : tensor<512x2xbf16>) outs(%u_c : tensor<1x512xf32>) -> tensor<1x512xf32>
  %sw_e = tensor.empty() : tensor<1x512xbf16>
  %sw = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<1x512xf32>, tensor<1x512xf32>) outs(%sw_e : tensor<1x512xbf16>) {
  ^bb0(%a: f32, %b: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %a, %d : f32
    %p = arith.mulf %s, %b : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x512xbf16>
  %d_c = tensor.empty() : tensor<1x256xf32>
  %dn = accel.dequant_matmul bits(4) group(128) ins(%sw, %wd : tensor<1x512xbf16>, tensor<256x256xi8>) scales(%sd : tensor<256x4xbf16>) outs(%d_c : tensor<1x256xf32>) -> tensor<1x256xf32>
  %y_e = tensor.empty() : tensor<1x256xbf16>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%dn, %x : tensor<1x256xf32>, tensor<1x256xbf16>) outs(%y_e : tensor<1x256xbf16>) {
  ^bb0(%a: f32, %b: bf16, %o: bf16):
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %a, %bf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x256xbf16>
  return %y : tensor<1x256xbf16>
}
