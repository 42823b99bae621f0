//===- Reference.h - the fp64 oracle ----------------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The ops' semantics computed in double precision, written once and shared by
// every target's checks (accel-run today; the simulator and GPU launchers
// later), together with the per-element tolerance of the numerics contract
// (DESIGN.md, shared/reference/anchors-reliability.md §D).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_REFERENCE_REFERENCE_H
#define ACCEL_REFERENCE_REFERENCE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::accel::ref {

/// A dense row-major tensor of doubles; rank 0 holds one scalar.
struct Tensor {
  llvm::SmallVector<int64_t> shape;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(llvm::ArrayRef<int64_t> shape, double fill = 0.0);
  int64_t numElements() const { return static_cast<int64_t>(data.size()); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

/// A reference result: the exact (fp64) values, and for each element the
/// largest error a correct kernel may make. A bound of 0 means bit-exact.
struct Result {
  Tensor value;
  Tensor bound;
  /// Elements where NaN is correct too, besides `value` within `bound`:
  /// attention outputs whose row has a non-finite V at a masked key, which
  /// a kernel that skips masked tiles drops and one that multiplies by the
  /// zero probability turns into NaN (docs/numerics.md). Empty: none.
  std::vector<bool> nanAllowed;

  Result() = default;
  Result(Tensor value, Tensor bound, std::vector<bool> nanAllowed = {})
      : value(std::move(value)), bound(std::move(bound)),
        nanAllowed(std::move(nanAllowed)) {}

  bool mayBeNaN(int64_t i) const {
    return !nanAllowed.empty() && nanAllowed[i];
  }
  /// Marks element `i` (sizing the mask on first use).
  void allowNaN(int64_t i) {
    if (nanAllowed.empty())
      nanAllowed.assign(value.data.size(), false);
    nanAllowed[i] = true;
  }
};

/// Unit roundoff of a float type (2^-24 for f32), 0 for integers.
double unitRoundoff(Type type);

/// Half the spacing of `type`'s subnormals (0 for integers and f64): a
/// rounding to `type` is within unitRoundoff·|r| + this, the second term
/// for |r| below the smallest normal (an f16 of 4.6e-5 is within 3e-8 of
/// its real value, not 2^-11·4.6e-5 = 2.2e-8).
double underflowError(Type type);

/// `v` rounded to the nearest value of `type` (ties to even; integers wrap
/// like two's complement; i1 is v != 0).
double roundTo(double v, Type type);

/// Bytes per element of `type` in memory (i1 takes a byte).
size_t storageBytes(Type type);

/// Writes `v` rounded to `type` (roundTo's rule) as `type`'s bit pattern,
/// storageBytes(type) bytes little-endian, at `out`.
void encodeElement(double v, Type type, uint8_t *out);

/// The value of the `type` element stored at `in` (integers sign-extended,
/// i1 its low bit).
double decodeElement(const uint8_t *in, Type type);

/// γ_K(u) = K·u / (1 − K·u), infinite when K·u ≥ 1.
double gamma(int64_t k, double u);

/// Options of a matmul that are not tensors.
struct MatmulSpec {
  bool transposeB = false;
  bool accumulate = false;
  std::optional<double> lhsScale, rhsScale;
  Type inputType, accType;
  /// bf16 inputs may be multiplied by a dot instruction that treats
  /// subnormals as zero (x86's vdpbf16ps: bf16 inputs and f32 results below
  /// 2^-126, whatever MXCSR says; `bf16-subnormals=flush`, the CPU
  /// default). The gate then also allows dropping each product with a
  /// subnormal factor and 2^-126 per accumulation step.
  bool flushBf16Subnormals = false;
  /// A matrix instruction that sums its products in reduced precision, in
  /// chunks of `tensorCoreChunk` consecutive K (from K = 0 on), each chunk's
  /// sum then added into an f32 accumulator (the promotion of the sm_90a
  /// wgmma kernel for 8-bit floats). Inside a chunk the sum follows the
  /// model of Hopper's fp8 MMA (kHopperFp8MmaK, kHopperFp8TensorCoreUnit):
  /// for each instruction's kHopperFp8MmaK products, the products and the
  /// running sum are aligned to the largest of their magnitudes and cut
  /// toward zero to its grid of `tensorCoreUnit` (14 significant bits),
  /// then added. On the H200 this model reproduces the kernel's results
  /// (bench/gpu/fp8_model.py; bench/gpu/results/2026-12-04-95b0f73e77fd/
  /// fp8-model.txt: the same worst errors,
  /// 61-78 % of the elements bit for bit at K ≤ 256, the rest within
  /// 0.35·tensorCoreUnit·|A||B|). The gate then admits both that result and
  /// the exactly summed one: the hull of ±(γ_{⌈K/chunk⌉}(u_acc)(|A||B|
  /// (+|C|)) + tensorCoreUnit/2·|A||B|) around the model's value and of the
  /// f32 gate around the exact one. 0: not used (f32 accumulation).
  int64_t tensorCoreChunk = 0;
  double tensorCoreUnit = 0;
  /// A draw of the sum's roundings instead of their bound (accel-run's
  /// program gate, docs/numerics.md): each of the K additions (and C's)
  /// rounds its partial sum s by drawRounding()·u_acc·|s|, drawRounding
  /// uniform in [-1, 1]; the result is the drawn value with a zero bound.
  /// Float sums of f32 accumulation or of C's type only: with tensorCore,
  /// flushed subnormal products, a scale or the exact tier the bound stays.
  std::function<double()> drawRounding;
};
/// The unit roundoff of the sum inside Hopper's fp8 tensor cores: 14 bits
/// kept (DeepSeek-V3 technical report, arXiv 2412.19437, §3.3.2; the
/// H200's results match a 14-bit truncating model, MatmulSpec).
constexpr double kHopperFp8TensorCoreUnit = 0x1p-13;
/// The K of one Hopper fp8 MMA instruction (wgmma m64nNk32): the products
/// the tensor core aligns and sums together.
constexpr int64_t kHopperFp8MmaK = 32;
/// C' = (accumulate ? C : 0) + sa·sb·A·B with the gate
/// u_out·|r| + γ_K(u_acc)·(|A||B| (+|C|)) + η/2·(n + 1), η the smallest
/// subnormal of C's type and n the number of products not a multiple of it
/// (rounding below the smallest normal is absolute; docs/numerics.md);
/// bit-exact for integers and for integer-valued float inputs whose partial
/// sums all fit the accumulator's significand (the exact tier). With
/// MatmulSpec::tensorCoreChunk: the hull of the tensor-core model's gate and
/// the f32 one (MatmulSpec), and the exact tier also needs every chunk's
/// Σ|a·b| within 1 / tensorCoreUnit.
Result matmul(const Tensor &a, const Tensor &b, const Tensor &c,
              const MatmulSpec &spec);

/// The f32 weights of accel.dequant_matmul, [N, K]: w = f32(f32(q - z) * s)
/// of each `bits`-bit integer q of `w` ([N, K * bits / 8] bytes, held as
/// their signed values; int4 low nibble first), `s` and `z` ([N, K /
/// group]; `z` may be null). Bit-exact: the rule the op's kernels follow.
Tensor dequantizeWeights(const Tensor &w, const Tensor &s, const Tensor *z,
                         int64_t k, int64_t bits, int64_t group,
                         bool isUnsigned);

/// Max-subtracted softmax along `dim`; a row of -inf gives exact zeros.
/// Gate: atol + rtol·|r| of the output type (PyTorch's table). With
/// `drawRounding` (uniform in [-1, 1]; accel-run's program gate): one draw
/// of the roundings of a kernel that computes in f32 and rounds once to
/// `outType`, as PyTorch's tolerance assumes (x - max and the division
/// rounded in f32, exp within 2.5 f32 roundoffs, each addition of the sum
/// rounding its partial sum, the output rounding), with a zero bound.
Result softmax(const Tensor &x, int64_t dim, Type outType,
               const std::function<double()> &drawRounding = {});

/// Options of an attention that are not tensors.
struct AttentionSpec {
  double scale = 1.0;
  bool causal = false;
  std::optional<int64_t> diagonal;
  /// Sliding window (with causal): keep j > i + off - window.
  std::optional<int64_t> window;
  /// Per-batch sequence lengths (empty: the padded size).
  std::vector<int64_t> kvLengths, qLengths;
  /// The mask is i1 (keep) rather than additive.
  bool boolMask = false;
  Type outType;
  /// Unit roundoff of the type the kernel rounds the probabilities P to
  /// before P·V (0: kept in f32). The systolic array's scratchpad holds
  /// the input type, so bf16 attention there multiplies bf16 P (as
  /// FlashAttention does on GPUs); that moves the output by up to
  /// u_P·max|v| (Σ P = 1, each P rounded relatively).
  double probabilityRoundoff = 0;
  /// A draw of an f32 kernel's roundings instead of the bound (accel-run's
  /// program gate; uniform in [-1, 1]): each partial sum of the logits'
  /// dot products, of the probabilities' sum and of P·V rounded by a draw
  /// within u32·|s|, the scale, the additive mask, x - max and the
  /// division by a draw within u32 of their result, exp within 2.5 u32,
  /// P within probabilityRoundoff, the output within its type's roundoff.
  /// The result's bound is then zero (NaN and empty rows as without).
  std::function<double()> drawRounding;
};
/// Scaled dot-product attention with GQA, causal band, sliding window,
/// per-batch sequence lengths and broadcast masks;
/// rows with no key left give exact zeros. Gate: the absolute tolerance of
/// the output type (f32 1e-5, f16 1e-2, bf16 2e-2) plus what the f32 rounding
/// of the row's logits can move the output by (large logits, e.g. a +1000
/// additive mask, are only known to u·|logit| in f32); 0 on empty rows.
Result attention(const Tensor &q, const Tensor &k, const Tensor &v,
                 const Tensor *mask, const AttentionSpec &spec);

/// How one output compares with its reference.
struct Comparison {
  double maxAbsError = 0, maxRelError = 0;
  /// The largest error / bound over all elements (∞ for a broken exact
  /// element, NaN rules or a violated zero bound).
  double worstRatio = 0;
  int64_t failures = 0;
  int64_t firstFailure = -1;
  bool passed() const { return failures == 0; }
};
/// Compares `actual` with `expected` element by element: NaN must meet NaN,
/// infinities must match exactly, finite values must be within the bound;
/// a NaN is also accepted where `expected.mayBeNaN`.
Comparison compare(const Tensor &actual, const Result &expected);

/// Element `i`'s error / bound under compare()'s rules: 0 for a match of
/// special values or an exact element, ∞ for a broken one.
double elementRatio(double actual, const Result &expected, int64_t i);

} // namespace mlir::accel::ref

#endif // ACCEL_REFERENCE_REFERENCE_H
