//===- AccelOps.td - accel operations ----------------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELOPS_TD
#define ACCEL_DIALECT_ACCEL_IR_ACCELOPS_TD

include "accel/Dialect/Accel/IR/AccelBase.td"
include "accel/Dialect/Accel/IR/AccelAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"

// The element types accepted by the ops. The verifiers check combinations.
def Accel_MatmulInputElement : AnyTypeOf<[F32, F16, BF16, F8E4M3FN, F8E5M2,
                                          F8E4M3FNUZ, F8E5M2FNUZ, I8]>;
def Accel_MatmulAccElement : AnyTypeOf<[F32, F16, BF16, I32]>;

// The FNUZ fp8 variants (AMD gfx942) are matmul inputs only.
def Accel_MatmulInput : RankedTensorOf<[F32, F16, BF16, F8E4M3FN, F8E5M2,
                                        F8E4M3FNUZ, F8E5M2FNUZ, I8]>;
def Accel_MatmulAcc : RankedTensorOf<[F32, F16, BF16, I32]>;
def Accel_FloatTensor : RankedTensorOf<[F32, F16, BF16, F8E4M3FN, F8E5M2]>;
def Accel_MaskTensor : RankedTensorOf<[I1, F32, F16, BF16]>;
def Accel_LengthsTensor : 1DTensorOf<[I32, I64]>;

class Accel_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Accel_Op<mnemonic, !listconcat([
        Pure,
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<TilingInterface, [
          "getLoopIteratorTypes", "getIterationDomain",
          "getTiledImplementation", "getResultTilePosition",
          "generateResultTileValue"]>,
        AllTypesMatch<["init", "result"]>
      ], traits)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

def Accel_MatmulOp : Accel_ComputeOp<"matmul", [AttrSizedOperandSegments]> {
  let summary = "(Batched) matrix multiplication C = A·B, or A·B + C";
  let description = [{
    Multiplies `A` `[batch..., M, K]` by `B` `[batch..., K, N]` (or
    `[batch..., N, K]` with `transpose_b`) into `C` `[batch..., M, N]`. The
    three operands have the same rank (at least 2) and the same leading batch
    dimensions.

    Semantics, for every batch index `b`, `0 <= i < M`, `0 <= j < N`:

    ```
    C'[b, i, j] = (accumulate ? C[b, i, j] : 0)
                + sa * sb * sum_k A[b, i, k] * B[b, k, j]
    ```

    The products and the sum are computed in the element type of `C` (or a
    wider type): the accumulator type is the contract. Without `accumulate`
    the previous contents of `C` are never read, so `outs` may be an
    uninitialised `tensor.empty` and the result is still defined. `K = 0`
    gives zeros (or `C` unchanged when accumulating).

    Element types:

    | A, B | C |
    |---|---|
    | f32, f32 | f32 |
    | f16, f16 | f32 or f16 |
    | bf16, bf16 | f32 or bf16 |
    | f8E4M3FN or f8E5M2 (any mix) | f32, f16 or bf16 |
    | i8, i8 | i32 |
    | i8, i8 with scales | f32, f16 or bf16 |

    `C` is never narrower than the inputs. The optional per-tensor f32
    scales `sa` and `sb` (`scales(%sa, %sb)`, both or neither) are only
    allowed with f8 or i8 inputs, where they dequantise the operands; their
    product multiplies the exact integer or f8 dot product before it is added
    to `C`, so scaled i8 produces a float `C`. An i32 `C` wraps on overflow
    like `arith.addi` (possible once `K > 2^17`).

    Iteration space for `TilingInterface`: `[batch..., M, N, K]`, with `K` a
    reduction. A tile along `K` that does not start at 0 accumulates into
    the partial result of the previous tiles, so tiling `K` is exact.

    Example:

    ```mlir
    %0 = accel.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
                      outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
    %1 = accel.matmul transpose_b accumulate
           ins(%qa, %qb : tensor<4x32x16xi8>, tensor<4x8x16xi8>)
           scales(%sa, %sb) outs(%acc : tensor<4x32x8xf32>) -> tensor<4x32x8xf32>
    ```
  }];
  let arguments = (ins
    Accel_MatmulInput:$lhs,
    Accel_MatmulInput:$rhs,
    Optional<F32>:$lhs_scale,
    Optional<F32>:$rhs_scale,
    Accel_MatmulAcc:$init,
    UnitAttr:$transpose_b,
    UnitAttr:$accumulate
  );
  let results = (outs Accel_MatmulAcc:$result);
  let assemblyFormat = [{
    (`transpose_b` $transpose_b^)? (`accumulate` $accumulate^)?
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    (`scales` `(` $lhs_scale^ `,` $rhs_scale `)`)?
    `outs` `(` $init `:` type($init) `)`
    attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether A/B of `lhs` and `rhs` with a C of `acc` (and per-tensor scales
    /// when `scaled`) is a combination the op supports.
    static bool isSupportedElementTypes(::mlir::Type lhs, ::mlir::Type rhs,
                                        ::mlir::Type acc, bool scaled);
    /// Number of leading batch dimensions.
    int64_t getNumBatchDims() {
      return ::llvm::cast<::mlir::RankedTensorType>(getInit().getType())
                 .getRank() - 2;
    }
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

//===----------------------------------------------------------------------===//
// DequantMatmulOp
//===----------------------------------------------------------------------===//

def Accel_DequantMatmulOp : Accel_Op<"dequant_matmul", [
    Pure, DestinationStyleOpInterface, AllTypesMatch<["init", "result"]>]> {
  let summary = "Weight-only quantised matmul: C = A·dequant(W)ᵀ, W in int4 "
                "or int8 with group-wise scales";
  let description = [{
    The matmul of LLM inference at batch 1-16 (GPTQ/AWQ-style weight-only
    quantisation): activations `A` `[batch..., M, K]` in f32, f16 or bf16
    times weights stored as `bits`-bit integers, `W` `[N, K]` (one row per
    output channel, as a linear layer's weight), with one scale (and
    optionally one zero point) per group of `group` consecutive K in a row.
    The weights are dequantised inside the kernel, never into a copy in
    memory.

    Storage of `W` (operand `weights`, i8 bytes):
    - `bits(8)`: `[N, K]`, one weight a byte;
    - `bits(4)`: `[N, K / 2]`, two weights a byte: weight `k` of a row is
      the low nibble of byte `k / 2` for even `k`, the high nibble for odd
      `k` (the order of GGML's and ONNX Runtime's MatMulNBits packing).
    Weights are two's complement (int4: -8..7, int8: -128..127), or with
    `unsigned`, 0..15 / 0..255.

    `scales` and the optional `zero_points` are `[N, K / group]` of one float
    type (f32, f16 or bf16); `group` divides K (and is even for int4);
    `group = K` is per-channel. The dequantised weight, computed in f32, is

    ```
    w[n, k] = f32(f32(q[n, k] - z[n, k / group]) * s[n, k / group])
    ```

    (`z` = 0 without zero points: then `w = f32(q * s)`), and for every
    batch index, `0 <= i < M`, `0 <= j < N`:

    ```
    C[..., i, j] = sum_k f32(A[..., i, k]) * w[j, k]
    ```

    summed in f32 (the contract of an f32 matmul with the weights `w`),
    then rounded to `C`'s type: f32, or `A`'s type. The fp64 oracle
    dequantises the same way (bit-exact: with integer zero points and f16
    or bf16 scales both roundings are exact) and gates the sum as an f32
    matmul of `A` and `w`.

    K and N are static; M and the batch dimensions may be dynamic.

    Example (Llama 3 8B's up projection at one token, int4 with zero points
    in groups of 128):

    ```mlir
    %y = accel.dequant_matmul bits(4) group(128) unsigned
           ins(%x, %w : tensor<1x4096xbf16>, tensor<14336x2048xi8>)
           scales(%s : tensor<14336x32xbf16>)
           zero_points(%z : tensor<14336x32xbf16>)
           outs(%c : tensor<1x14336xf32>) -> tensor<1x14336xf32>
    ```
  }];
  let arguments = (ins
    RankedTensorOf<[F32, F16, BF16]>:$lhs,
    RankedTensorOf<[I8]>:$weights,
    RankedTensorOf<[F32, F16, BF16]>:$scales,
    Optional<RankedTensorOf<[F32, F16, BF16]>>:$zero_points,
    RankedTensorOf<[F32, F16, BF16]>:$init,
    I64Attr:$bits,
    I64Attr:$group,
    UnitAttr:$is_unsigned
  );
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    `bits` `(` $bits `)` `group` `(` $group `)`
    (`unsigned` $is_unsigned^)?
    `ins` `(` $lhs `,` $weights `:` type($lhs) `,` type($weights) `)`
    `scales` `(` $scales `:` type($scales) `)`
    (`zero_points` `(` $zero_points^ `:` type($zero_points) `)`)?
    `outs` `(` $init `:` type($init) `)`
    attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// K, the reduction length (the last dimension of A).
    int64_t getK() {
      return ::llvm::cast<::mlir::RankedTensorType>(getLhs().getType())
          .getShape().back();
    }
    /// N, the number of output channels (rows of W).
    int64_t getN() {
      return ::llvm::cast<::mlir::RankedTensorType>(getWeights().getType())
          .getDimSize(0);
    }
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

def Accel_SoftmaxOp : Accel_ComputeOp<"softmax"> {
  let summary = "Numerically safe softmax over one dimension";
  let description = [{
    Computes, along `dimension` `d` of the input `X`:

    ```
    Y[..., i, ...] = exp(X[..., i, ...] - m) / sum_j exp(X[..., j, ...] - m)
    m = max_j X[..., j, ...]
    ```

    The maximum is subtracted before exponentiation, so adding a constant to
    a whole row (say +1000) does not change the result. A row whose elements
    are all `-inf` produces zeros (a fully masked row, the convention of
    `accel.attention`), never NaN; a NaN anywhere in a row makes the whole
    row NaN. `X` and `Y` have the same shape; their element types are floats
    and may differ (the statistics are kept in f32 or wider).

    Iteration space for `TilingInterface`: every dimension of `X`; `d` is a
    reduction that cannot be split, so a tile must cover it whole (tile size
    0 for that loop). The other dimensions tile freely.

    Example:

    ```mlir
    %y = accel.softmax dimension(1) ins(%x : tensor<8x1024xf32>)
                       outs(%init : tensor<8x1024xf32>) -> tensor<8x1024xf32>
    ```
  }];
  let arguments = (ins
    Accel_FloatTensor:$input,
    Accel_FloatTensor:$init,
    I64Attr:$dimension
  );
  let results = (outs Accel_FloatTensor:$result);
  let assemblyFormat = [{
    `dimension` `(` $dimension `)`
    `ins` `(` $input `:` type($input) `)`
    `outs` `(` $init `:` type($init) `)`
    attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

def Accel_AttentionOp : Accel_ComputeOp<"attention",
                                          [AttrSizedOperandSegments]> {
  let summary = "Scaled dot-product attention (MHA, GQA, MQA), optionally "
                "causal and masked";
  let description = [{
    Shapes: `Q` `[B, Hq, Sq, D]`, `K` `[B, Hkv, Skv, D]`, `V`
    `[B, Hkv, Skv, Dv]`, `O` `[B, Hq, Sq, Dv]`, with `Hq % Hkv == 0`. Query
    head `h` reads key/value head `h floordiv (Hq / Hkv)`: `Hkv = Hq` is
    multi-head, `Hkv = 1` multi-query, anything between grouped-query
    attention.

    For every `b`, `h`, query row `i` and key `j`:

    ```
    s[i, j] = scale * sum_d Q[b, h, i, d] * K[b, h', j, d]  (+ mask[b, h, i, j] if additive)
    keep(i, j) = mask[b, h, i, j]           (if i1)
             and j <= i + off[b]             (if causal)
             and j >  i + off[b] - W         (if window(W))
             and j <  kv_lengths[b]          (if kv_lengths)
             and i <  q_lengths[b]           (if q_lengths)
    P[i, :]  = softmax over the kept j of s[i, :]
    O[b, h, i, :] = sum_j P[i, j] * V[b, h', j, :]

    kvlen[b] = kv_lengths[b] or Skv,  qlen[b] = q_lengths[b] or Sq
    off[b]   = diagonal + (kvlen[b] - Skv) - (qlen[b] - Sq)   (= kvlen[b] - qlen[b] by default)
    ```

    - `scale` defaults to `1/sqrt(D)` (1 when `D = 0`); it must be finite,
      and `|scale| * log2(e)` must fit in f32 (the kernels fold log2(e) in).
    - `causal` keeps key `j` for query `i` when `j <= i + diagonal`. The
      diagonal defaults to `Skv - Sq`: the causal band is aligned to the
      bottom-right corner, the FlashAttention convention that KV-cache
      decoding needs (the last query sees every key). An explicit
      `diagonal(%d)` (an index) is what tiling along `Sq` produces: a tile
      that starts at query `m0` has diagonal `Skv - Sq + m0`.
    - `window(W)` (1 <= W <= 2^31, needs `causal`) is a sliding window: query `i`
      keeps only the last `W` keys of its causal band, `off - W < j - i <=
      off` (Mistral's and Gemma's local attention). Kernels skip the key
      tiles wholly outside the window, so the cost is O(Sq·W), not
      O(Sq·Skv).
    - `kv_lengths` and `q_lengths` (i32 or i64, one entry per batch) are
      variable sequence lengths of a right-padded batch: sequence `b` has
      `kv_lengths[b]` keys and `q_lengths[b]` queries; padded keys are
      never attended and padded query rows produce 0. The causal band
      aligns to each sequence's own bottom-right corner (`off[b]` above,
      FlashAttention's varlen convention). Lengths are run-time data,
      taken as clamped to [-2^31, 2^31] (so the band arithmetic cannot
      overflow): a value above the padded size keeps the whole dimension,
      one at or below 0 keeps nothing; kernels skip the tiles past a
      sequence's end.
    - `mask` is either i1 (true keeps the key) or additive (a float added to
      the scaled logits; `-inf` removes the key). It has rank at most 4 and
      broadcasts to `[B, Hq, Sq, Skv]` with numpy rules (aligned right, each
      dimension 1 or equal). A dynamic mask dimension is taken to be equal
      (broadcasting needs a static 1).
    - A query row whose keys are all removed (by the mask, by `causal`, by
      the window or the lengths, or because `Skv = 0`) produces exactly 0,
      never NaN.

    `Q`, `K` and `V` share one float element type; `O` is f32, f16 or bf16.

    Iteration space for `TilingInterface`: `[B, Hq, Sq, Dv]`, all parallel.
    The key sequence and the head dimension are reductions that stay whole
    in a tile; the FlashAttention decomposition tiles them. A tile of
    queries starting at `m0` keeps the band of the whole op through
    `diagonal` (and, with `q_lengths`, lengths shifted by `m0`). With GQA, a tile
    of query heads must be static and either divide the group size
    `Hq / Hkv` or be a multiple of it, so each tile reads whole KV heads.

    Example:

    ```mlir
    %o = accel.attention causal
           ins(%q, %k, %v : tensor<2x32x128x64xf16>, tensor<2x8x128x64xf16>,
                            tensor<2x8x128x64xf16>)
           outs(%init : tensor<2x32x128x64xf32>) -> tensor<2x32x128x64xf32>

    // A right-padded batch of two sequences with a 4096-key sliding window.
    %o2 = accel.attention causal window(4096)
           ins(%q, %k, %v : tensor<2x32x8192x64xf16>, tensor<2x8x8192x64xf16>,
                            tensor<2x8x8192x64xf16>)
           kv_lengths(%lens : tensor<2xi32>) q_lengths(%lens : tensor<2xi32>)
           outs(%init2 : tensor<2x32x8192x64xf32>) -> tensor<2x32x8192x64xf32>
    ```
  }];
  let arguments = (ins
    Accel_FloatTensor:$query,
    Accel_FloatTensor:$key,
    Accel_FloatTensor:$value,
    Optional<Accel_MaskTensor>:$mask,
    Optional<Accel_LengthsTensor>:$kv_lengths,
    Optional<Accel_LengthsTensor>:$q_lengths,
    Optional<Index>:$diagonal,
    RankedTensorOf<[F32, F16, BF16]>:$init,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<I64Attr>:$window
  );
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    (`causal` $causal^)? (`window` `(` $window^ `)`)?
    (`diagonal` `(` $diagonal^ `)`)?
    (`scale` `(` $scale^ `)`)?
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
              type($value) `)`
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`kv_lengths` `(` $kv_lengths^ `:` type($kv_lengths) `)`)?
    (`q_lengths` `(` $q_lengths^ `:` type($q_lengths) `)`)?
    `outs` `(` $init `:` type($init) `)`
    attr-dict `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// The scale applied to Q·Kᵀ: the attribute, or 1/sqrt(D) (1 for D = 0)
    /// when absent; nullopt when absent and D is dynamic in both Q and K.
    std::optional<double> getEffectiveScale();
    /// Whether some (query, key) pair may be removed by the causal band, the
    /// window or the sequence lengths (not by the mask).
    bool hasBand() { return getCausal() || getKvLengths() || getQLengths(); }
  }];
}

//===----------------------------------------------------------------------===//
// PagedAttentionOp
//===----------------------------------------------------------------------===//

def Accel_PagedAttentionOp : Accel_Op<"paged_attention", [
    Pure, DestinationStyleOpInterface, AllTypesMatch<["init", "result"]>]> {
  let summary = "Decode attention over a paged KV cache (vLLM / "
                "FlashAttention block tables), MHA, GQA or MQA";
  let description = [{
    The attention of an LLM's decode step: a few new queries of each
    sequence attend to that sequence's whole KV cache, which lives in
    fixed-size pages of a shared pool, found through a block table (vLLM's
    PagedAttention; the layout of FlashAttention's `flash_attn_with_kvcache`
    and of vLLM's v1 FlashAttention backend).

    Shapes: `Q` `[B, Hq, Sq, D]`, the key pool `[P, T, Hkv, D]`, the value
    pool `[P, T, Hkv, Dv]` (P pages of T tokens), `block_table` `[B, N]`
    (i32 or i64: page `n` of sequence `b` is pool page
    `block_table[b, n]`), `kv_lengths` `[B]` (i32 or i64: sequence `b`
    holds `kv_lengths[b]` tokens), `O` `[B, Hq, Sq, Dv]`, with
    `Hq % Hkv == 0`; query head `h` reads key/value head
    `h floordiv (Hq / Hkv)`.

    Key `j` of sequence `b` (`0 <= j < kv_lengths[b]`) is
    `K[block_table[b, j floordiv T], j mod T, h', :]` (and likewise V); the
    `Sq` queries are the sequence's last `Sq` positions. The result is
    exactly `accel.attention` over the gathered keys: for every `b`, `h`,
    query `i`,

    ```
    s[i, j]  = scale * sum_d Q[b, h, i, d] * K_b[j, d]        (j < kv_lengths[b])
    keep     = j <= kv_lengths[b] - Sq + i                    (if causal)
    O[b, h, i, :] = sum_j softmax_j(s[i, :]) * V_b[j, :]      (0 if nothing is kept)
    ```

    - `scale` defaults to `1/sqrt(D)`; it must be finite, and
      `|scale| * log2(e)` must fit in f32 (the kernels fold log2(e) in).
    - `causal` matters only for `Sq > 1` (speculative decoding, chunked
      prefill): query `i` sees the keys up to its own position.
    - Valid run-time data: `0 <= kv_lengths[b] <= N * T`, and every page
      that holds some key of sequence `b` (`n < ceil(kv_lengths[b] / T)`)
      in `[0, P)`. Entries past a sequence's last page are never read, so
      they may hold anything (vLLM pads with 0 or -1); the rows of its last
      page past its length are ignored (they may hold NaN). Pages may be shared
      between sequences (prefix caching). Kernels never read outside the
      pool: a sequence whose data is not valid gets NaN outputs, and an
      `accel-compile`d library returns `ACCEL_ERR_INDEX` instead of
      running. Constant lengths or tables that break these rules are
      compile-time errors.

    Shapes are static except `B` and `P` (the pool may be sized at run
    time; both pools have the same `P`, both static or both dynamic);
    `T`, `D`, `Dv` and `Hkv` are at least 1, and `N * T` (the most tokens
    a sequence may hold) at most 2^31. `Q`, `K` and `V` share one float element type (f32, f16 or
    bf16); `O` is f32, f16 or bf16.

    Example (Llama 3 8B decode: 32 query heads over 8 KV heads, 16-token
    pages, up to 32k tokens a sequence):

    ```mlir
    %o = accel.paged_attention
           ins(%q, %kc, %vc : tensor<4x32x1x128xbf16>,
                              tensor<?x16x8x128xbf16>, tensor<?x16x8x128xbf16>)
           block_table(%bt : tensor<4x2048xi32>)
           kv_lengths(%len : tensor<4xi32>)
           outs(%init : tensor<4x32x1x128xf32>) -> tensor<4x32x1x128xf32>
    ```
  }];
  let arguments = (ins
    RankedTensorOf<[F32, F16, BF16]>:$query,
    RankedTensorOf<[F32, F16, BF16]>:$key_cache,
    RankedTensorOf<[F32, F16, BF16]>:$value_cache,
    2DTensorOf<[I32, I64]>:$block_table,
    Accel_LengthsTensor:$kv_lengths,
    RankedTensorOf<[F32, F16, BF16]>:$init,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal
  );
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    (`causal` $causal^)? (`scale` `(` $scale^ `)`)?
    `ins` `(` $query `,` $key_cache `,` $value_cache `:` type($query) `,`
              type($key_cache) `,` type($value_cache) `)`
    `block_table` `(` $block_table `:` type($block_table) `)`
    `kv_lengths` `(` $kv_lengths `:` type($kv_lengths) `)`
    `outs` `(` $init `:` type($init) `)`
    attr-dict `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// The scale applied to Q·Kᵀ: the attribute, or 1/sqrt(D).
    double getEffectiveScale();
    /// T, the tokens a page holds.
    int64_t getPageSize() {
      return ::llvm::cast<::mlir::RankedTensorType>(getKeyCache().getType())
          .getDimSize(1);
    }
    /// N, the pages a sequence may hold (columns of the block table).
    int64_t getMaxPages() {
      return ::llvm::cast<::mlir::RankedTensorType>(getBlockTable().getType())
          .getDimSize(1);
    }
  }];
}

//===----------------------------------------------------------------------===//
// X86DotU8S8Op (internal)
//===----------------------------------------------------------------------===//

def Accel_X86DotU8S8Op : Accel_Op<"x86_dot_u8s8",
                                  [Pure, AllTypesMatch<["acc", "result"]>,
                                   AllTypesMatch<["a", "b"]>]> {
  let summary = "AVX512-VNNI vpdpbusd (internal to accel-cpu-dot-kernels)";
  let description = [{
    `result[i] = acc[i] + sum_{t < 4} u8(a[4i + t]) * s8(b[4i + t])`,
    wrapping in i32: the `vpdpbusd` instruction. `accel-cpu-dot-kernels`
    emits it and `accel-cpu-lower-dot` turns it into the LLVM intrinsic at
    the end of the CPU pipeline (the op is pure, so the passes in between,
    e.g. buffer deallocation, know it touches no memory; the intrinsic
    call does not say so).

    ```mlir
    %r = accel.x86_dot_u8s8 %acc, %a, %b : vector<64xi8> -> vector<16xi32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[16], [I32]>:$acc,
                       VectorOfLengthAndType<[64], [I8]>:$a,
                       VectorOfLengthAndType<[64], [I8]>:$b);
  let results = (outs VectorOfLengthAndType<[16], [I32]>:$result);
  let assemblyFormat =
      "$acc `,` $a `,` $b attr-dict `:` type($a) `->` type($result)";
}

def Accel_X86PermuteF32Op : Accel_Op<"x86_permute_f32",
                                    [Pure, AllTypesMatch<["table", "result"]>]> {
  let summary = "AVX-512 vpermps: a 16-entry f32 table lookup (internal to "
                "accel-cpu-dequant-kernels)";
  let description = [{
    `result[i] = table[index[i] & 15]`: the `vpermps` instruction (a lane
    of `index` selects by its low 4 bits; the others are ignored).
    `accel-cpu-dequant-kernels` emits it to unpack, convert and dequantise
    16 int4 weights in one instruction from a table of the 16 dequantised
    values of their group; `accel-cpu-lower-dot` turns it into the LLVM
    intrinsic at the end of the CPU pipeline.

    ```mlir
    %w = accel.x86_permute_f32 %table, %index : vector<16xf32>, vector<16xi32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[16], [F32]>:$table,
                       VectorOfLengthAndType<[16], [I32]>:$index);
  let results = (outs VectorOfLengthAndType<[16], [F32]>:$result);
  let assemblyFormat =
      "$table `,` $index attr-dict `:` type($table) `,` type($index)";
}

def Accel_X86PermuteI16Op : Accel_Op<"x86_permute_i16",
                                    [Pure, AllTypesMatch<["table", "result"]>]> {
  let summary = "AVX-512 vpermw: a 32-entry 16-bit table lookup (internal to "
                "accel-cpu-dequant-kernels)";
  let description = [{
    `result[i] = table[index[i] & 31]`: the `vpermw` instruction (AVX512-BW;
    a lane of `index` selects by its low 5 bits; the others are ignored).
    `accel-cpu-dequant-kernels` emits it for `cpu-dequant-amx`: two int4
    weights of a byte, spread over the two 16-bit halves of a 32-bit lane,
    become their two bf16 values `q - z` in one instruction: without zero
    points from a table of the 16 nibbles' values repeated in entries
    16-31 (so the bits above a nibble do not matter), with them from the
    32 values `i - 16` indexed by `q - z + 16`. `accel-cpu-lower-dot` turns
    it into the LLVM intrinsic at the end of the CPU pipeline.

    ```mlir
    %w = accel.x86_permute_i16 %table, %index : vector<32xi16>, vector<32xi16>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[32], [I16]>:$table,
                       VectorOfLengthAndType<[32], [I16]>:$index);
  let results = (outs VectorOfLengthAndType<[32], [I16]>:$result);
  let assemblyFormat =
      "$table `,` $index attr-dict `:` type($table) `,` type($index)";
}

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELOPS_TD
