// Kernels for accel-compile --target=cpu --options=threads=2
// (cpu-threads.test): a matmul (its B panels packed and its row blocks
// computed in parallel, inside the sequential loop over two column blocks
// of 1024 and 76), a causal FlashAttention (batch x heads in parallel),
// neither sized a multiple of a tile, and a loop whose iterations each
// allocate a temporary sized at run time (row i holds n + i ones and sums
// them), so that an allocation fails inside a task on a worker thread.
module @thr {
  func.func @mm(%a: tensor<456x600xf32>, %b: tensor<600x1100xf32>) -> tensor<456x1100xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<456x1100xf32>
    %c = linalg.fill ins(%z : f32) outs(%e : tensor<456x1100xf32>) -> tensor<456x1100xf32>
    %r = accel.matmul ins(%a, %b : tensor<456x600xf32>, tensor<600x1100xf32>) outs(%c : tensor<456x1100xf32>) -> tensor<456x1100xf32>
    return %r : tensor<456x1100xf32>
  }
  func.func @attn(%q: tensor<2x4x200x64xf32>, %k: tensor<2x4x200x64xf32>, %v: tensor<2x4x200x64xf32>) -> tensor<2x4x200x64xf32> {
    %e = tensor.empty() : tensor<2x4x200x64xf32>
    %r = accel.attention causal ins(%q, %k, %v : tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>, tensor<2x4x200x64xf32>) outs(%e : tensor<2x4x200x64xf32>) -> tensor<2x4x200x64xf32>
    return %r : tensor<2x4x200x64xf32>
  }
  func.func @sums(%x: tensor<?xf32>) -> tensor<8xf32> {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %out = tensor.empty() : tensor<8xf32>
    %r = scf.forall (%i) in (8) shared_outs(%o = %out) -> tensor<8xf32> {
      %size = arith.addi %n, %i : index
      %t = tensor.empty(%size) : tensor<?xf32>
      %ones = linalg.fill ins(%one : f32) outs(%t : tensor<?xf32>) -> tensor<?xf32>
      %e1 = tensor.empty() : tensor<1xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
      %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>], iterator_types = ["reduction"]} ins(%ones : tensor<?xf32>) outs(%init : tensor<1xf32>) {
      ^bb0(%a: f32, %acc: f32):
        %sum = arith.addf %a, %acc : f32
        linalg.yield %sum : f32
      } -> tensor<1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %s into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
      }
    }
    return %r : tensor<8xf32>
  }
}
