//===- ReferenceAccelOpsTest.cpp - the fp64 oracle of accel ops -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// ref::evaluateAccelOp, which accel-run and the structured fuzzer share:
// each op's attributes reach the reference (transpose_b, accumulate, the
// causal band with its diagonal operand), and the ops it cannot model fail
// with a located error instead of a wrong reference.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Reference/AccelOps.h"
#include "accel/Reference/Reference.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::accel;

namespace {

class ReferenceAccelOpsTest : public ::testing::Test {
protected:
  ReferenceAccelOpsTest() {
    ctx.loadDialect<AccelDialect, func::FuncDialect, tensor::TensorDialect,
                    arith::ArithDialect>();
  }

  /// The first op of `source` that `pred` accepts.
  template <typename Pred> Operation *parse(StringRef source, Pred pred) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    Operation *found = nullptr;
    if (module)
      module->walk([&](Operation *op) {
        if (!found && pred(op))
          found = op;
      });
    return found;
  }

  /// Operand values: the function's arguments from `args`, integer
  /// constants as scalars.
  FailureOr<ref::Result> evaluate(Operation *op, ArrayRef<ref::Tensor> args,
                                  const ref::AccelOpOptions &options = {}) {
    auto get = [&](Value v) -> const ref::Tensor & {
      if (auto arg = dyn_cast<BlockArgument>(v))
        return args[arg.getArgNumber()];
      auto [it, inserted] = constants.try_emplace(v);
      if (inserted)
        if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
          it->second = ref::Tensor({}, static_cast<double>(c.value()));
      return it->second;
    };
    return ref::evaluateAccelOp(op, get, options);
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  llvm::DenseMap<Value, ref::Tensor> constants;
};

ref::Tensor tensor(ArrayRef<int64_t> shape, ArrayRef<double> values) {
  ref::Tensor t(shape);
  t.data.assign(values.begin(), values.end());
  return t;
}

// transpose_b and accumulate reach the reference: C + A Bᵀ.
TEST_F(ReferenceAccelOpsTest, MatmulAttributes) {
  Operation *op = parse(R"mlir(
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
)mlir",
                        [](Operation *op) { return isa<MatmulOp>(op); });
  ASSERT_TRUE(op);
  ASSERT_TRUE(ref::isAccelOracleOp(op));
  ref::Tensor a = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  ref::Tensor b = tensor({2, 3}, {1, 0, 1, 0, 1, 0});
  ref::Tensor c = tensor({2, 2}, {10, 20, 30, 40});
  FailureOr<ref::Result> r = evaluate(op, {a, b, c});
  ASSERT_TRUE(succeeded(r));
  // Row i of A times row j of B, plus C.
  EXPECT_EQ(r->value.data, (std::vector<double>{14, 22, 40, 45}));
}

// The causal band follows the diagonal operand: with diagonal -1 the first
// query sees no key, and its row is exactly zero; the second sees key 0.
TEST_F(ReferenceAccelOpsTest, AttentionDiagonalOperand) {
  Operation *op = parse(R"mlir(
func.func @f(%q: tensor<1x1x2x1xf32>, %k: tensor<1x1x2x1xf32>, %v: tensor<1x1x2x1xf32>, %o: tensor<1x1x2x1xf32>) -> tensor<1x1x2x1xf32> {
  %d = arith.constant -1 : index
  %r = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) outs(%o : tensor<1x1x2x1xf32>) -> tensor<1x1x2x1xf32>
  return %r : tensor<1x1x2x1xf32>
}
)mlir",
                        [](Operation *op) { return isa<AttentionOp>(op); });
  ASSERT_TRUE(op);
  ref::Tensor q = tensor({1, 1, 2, 1}, {1, 1});
  ref::Tensor k = tensor({1, 1, 2, 1}, {1, 2});
  ref::Tensor v = tensor({1, 1, 2, 1}, {3, 5});
  FailureOr<ref::Result> r = evaluate(op, {q, k, v, ref::Tensor()});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->value.data, (std::vector<double>{0, 3}));
}

// A non-finite V at a masked key takes no part in the value, but NaN is
// accepted there as well (a kernel multiplies it by the zero probability
// unless it skipped the key's tile); nowhere else, and not in a row that
// keeps no key (exactly 0). Causal, Sq = Skv = 3, diagonal -1: row 0 keeps
// no key, row 1 keeps key 0, row 2 keeps keys 0 and 1.
TEST(ReferenceAttention, MaskedNonFiniteValue) {
  MLIRContext ctx;
  ref::AttentionSpec spec;
  spec.causal = true;
  spec.diagonal = -1;
  spec.outType = Float32Type::get(&ctx);
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  ref::Tensor q = tensor({1, 1, 3, 1}, {0, 0, 0});
  ref::Tensor k = tensor({1, 1, 3, 1}, {0, 0, 0});
  // V[key][e], Dv 2: key 1 has NaN in column 0, key 2 has +inf in column 1.
  ref::Tensor v = tensor({1, 1, 3, 2}, {1, 2, nan, 4, 5, inf});
  ref::Result r = ref::attention(q, k, v, nullptr, spec);
  // Row 0: no key, exactly 0. Row 1: key 0 only. Row 2: mean of keys 0, 1.
  EXPECT_EQ(r.value.data[0], 0.0);
  EXPECT_EQ(r.value.data[1], 0.0);
  EXPECT_EQ(r.value.data[2], 1.0);
  EXPECT_EQ(r.value.data[3], 2.0);
  EXPECT_TRUE(std::isnan(r.value.data[4])); // key 1 is kept: NaN, strictly
  EXPECT_EQ(r.value.data[5], 3.0);
  std::vector<bool> mayBeNaN;
  for (int64_t i = 0; i < 6; ++i)
    mayBeNaN.push_back(r.mayBeNaN(i));
  // Row 1 masks key 1 (NaN, column 0) and key 2 (inf, column 1); row 2
  // masks key 2 only (column 1); row 0 is empty.
  EXPECT_EQ(mayBeNaN,
            (std::vector<bool>{false, false, true, true, false, true}));

  // compare(): NaN or the value where allowed, the value elsewhere.
  ref::Tensor finite = tensor({1, 1, 3, 2}, {0, 0, 1, 2, nan, 3});
  EXPECT_TRUE(ref::compare(finite, r).passed());
  ref::Tensor nans = tensor({1, 1, 3, 2}, {0, 0, nan, nan, nan, nan});
  EXPECT_TRUE(ref::compare(nans, r).passed());
  ref::Tensor wrong = tensor({1, 1, 3, 2}, {0, 0, 1.5, 2, nan, 3});
  EXPECT_FALSE(ref::compare(wrong, r).passed());
  ref::Tensor emptyRowNaN = tensor({1, 1, 3, 2}, {nan, 0, 1, 2, nan, 3});
  EXPECT_FALSE(ref::compare(emptyRowNaN, r).passed());
  ref::Tensor keptFinite = tensor({1, 1, 3, 2}, {0, 0, 1, 2, 1, 3});
  EXPECT_FALSE(ref::compare(keptFinite, r).passed());
}

// vdpbf16ps treats bf16 subnormals as zero (MatmulSpec::flushBf16Subnormals):
// the gate then allows a product with a subnormal factor to vanish, and
// only for bf16 inputs; everywhere else it moves by (K + 2) · 2^-126 at most.
TEST(ReferenceMatmul, FlushBf16Subnormals) {
  MLIRContext ctx;
  ref::MatmulSpec spec;
  spec.inputType = BFloat16Type::get(&ctx);
  spec.accType = Float32Type::get(&ctx);
  // A subnormal bf16 (below 2^-126) times 2^40: the product, 1.1e-27, is
  // far above what the per-step flush term allows, so only the dropped
  // product's own term lets 0 pass.
  double sub = 1e-39, big = 0x1p40;
  ref::Tensor a = tensor({1, 2}, {sub, 0}), b = tensor({2, 1}, {big, 1});
  ref::Tensor c({1, 1});
  ref::Tensor flushed = tensor({1, 1}, {0});
  // IEEE (the default): the subnormal must survive.
  ref::Result strict = ref::matmul(a, b, c, spec);
  EXPECT_EQ(strict.value.data[0], sub * big);
  EXPECT_FALSE(ref::compare(flushed, strict).passed());
  // Flush allowed: 0 passes, and so does the exact value.
  spec.flushBf16Subnormals = true;
  ref::Result daz = ref::matmul(a, b, c, spec);
  EXPECT_TRUE(ref::compare(flushed, daz).passed());
  EXPECT_TRUE(ref::compare(tensor({1, 1}, {sub * big}), daz).passed());
  // Not for other input types (f32 goes through FMAs that keep subnormals).
  spec.inputType = Float32Type::get(&ctx);
  EXPECT_FALSE(ref::compare(flushed, ref::matmul(a, b, c, spec)).passed());
  // Normal values: the gate hardly moves.
  spec.inputType = BFloat16Type::get(&ctx);
  ref::Tensor an = tensor({1, 2}, {1.5, 2}), bn = tensor({2, 1}, {3, 4});
  spec.flushBf16Subnormals = false;
  double before = ref::matmul(an, bn, c, spec).bound.data[0];
  spec.flushBf16Subnormals = true;
  double after = ref::matmul(an, bn, c, spec).bound.data[0];
  EXPECT_LE(after - before, 4 * 0x1p-126);
  EXPECT_FALSE(
      ref::compare(tensor({1, 1}, {12.5 + 1e-5}), ref::matmul(an, bn, c, spec))
          .passed());
}

/// A x B (M x K, K x N) as Hopper's fp8 tensor cores sum it, written out
/// apart from the reference: per MMA instruction of 32 products, the
/// running sum and the products aligned to the largest of their magnitudes
/// and cut toward zero to 14 significant bits there, then added; each chunk
/// of `chunk` products then added into an f32 accumulator (`chunk` = K: no
/// promotion). `dropChunk` leaves chunk 0 out.
ref::Tensor tensorCoreProduct(const ref::Tensor &a, const ref::Tensor &b,
                              int64_t chunk, bool dropChunk = false) {
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  ref::Tensor out({m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p0 = 0; p0 < k; p0 += chunk) {
        double part = 0;
        for (int64_t s0 = p0; s0 < std::min(k, p0 + chunk); s0 += 32) {
          int64_t s1 = std::min({k, p0 + chunk, s0 + 32});
          double largest = std::fabs(part);
          for (int64_t p = s0; p < s1; ++p)
            largest = std::max(
                largest, std::fabs(a.data[i * k + p] * b.data[p * n + j]));
          if (largest == 0)
            continue;
          int e;
          std::frexp(largest, &e);
          double ulp = std::ldexp(1.0, e - 14);
          double next = std::trunc(part / ulp) * ulp;
          for (int64_t p = s0; p < s1; ++p)
            next +=
                std::trunc(a.data[i * k + p] * b.data[p * n + j] / ulp) * ulp;
          part = next;
        }
        if (!(dropChunk && p0 == 0))
          sum += static_cast<float>(part);
      }
      out.data[i * n + j] = sum;
    }
  return out;
}

/// An M x N tensor of uniform values in [-1, 1] rounded to `type`.
ref::Tensor randomTensor(int64_t m, int64_t n, Type type,
                         std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  ref::Tensor t({m, n});
  for (double &v : t.data)
    v = ref::roundTo(dist(rng), type);
  return t;
}

// The gate of the sm_90a wgmma kernel for 8-bit floats
// (MatmulSpec::tensorCoreChunk, 128 K elements a chunk, u_tc = 2^-13):
// the hull of Hopper's fp8 MMA sums and of exact f32 sums. It accepts the
// tensor cores' chunks promoted into f32 (which the f32 gate rejects at
// K = 256, as it did the H200's results), exact sums and a kernel that
// promotes after every instruction; it rejects a result that lost one
// chunk's sum, and one not promoted at all at K = 256 (at K = 4096 the
// worst-case f32 gate, γ_K(2^-24) = 2 u_tc, is wider than the tensor
// cores' error and admits it).
TEST(ReferenceMatmul, TensorCoreChunks) {
  MLIRContext ctx;
  Type e4m3 = Float8E4M3FNType::get(&ctx), e5m2 = Float8E5M2Type::get(&ctx);
  std::mt19937_64 rng(7);
  for (int64_t k : {96, 256, 4096}) {
    ref::Tensor a = randomTensor(16, k, e4m3, rng);
    ref::Tensor b = randomTensor(k, 16, e5m2, rng);
    ref::Tensor c({16, 16});
    ref::MatmulSpec spec;
    spec.inputType = e4m3;
    spec.accType = Float32Type::get(&ctx);
    ref::Result f32 = ref::matmul(a, b, c, spec);
    spec.tensorCoreChunk = 128;
    spec.tensorCoreUnit = ref::kHopperFp8TensorCoreUnit;
    ref::Result tc = ref::matmul(a, b, c, spec);
    ref::Tensor promoted = tensorCoreProduct(a, b, 128);
    if (k == 256)
      EXPECT_FALSE(ref::compare(promoted, f32).passed());
    ref::Comparison ok = ref::compare(promoted, tc);
    EXPECT_TRUE(ok.passed()) << "K = " << k;
    // The model is the reference's: only the f32 promotion differs.
    EXPECT_LT(ok.worstRatio, 0.1) << "K = " << k;
    ref::Tensor exact({16, 16});
    for (auto [e, v] : llvm::zip(exact.data, f32.value.data))
      e = static_cast<float>(v);
    EXPECT_TRUE(ref::compare(exact, tc).passed()) << "K = " << k;
    EXPECT_TRUE(ref::compare(tensorCoreProduct(a, b, 32), tc).passed())
        << "K = " << k;
    ref::Comparison dropped =
        ref::compare(tensorCoreProduct(a, b, 128, /*dropChunk=*/true), tc);
    EXPECT_FALSE(dropped.passed()) << "K = " << k;
  }
  // Without the promotion, products far below the running sum are cut
  // away: 128 products of 1, then 128 of 2^-8, which a sum of 128 aligns
  // to its grid of 2^-6 (0.5 lost of 128.5: 64 times the gate). Promoted,
  // the second chunk is summed on its own, exactly.
  ref::Tensor a({1, 256}), b({256, 1}), c({1, 1});
  for (int64_t p = 0; p < 256; ++p) {
    a.data[p] = 1.0;
    b.data[p] = p < 128 ? 1.0 : 0x1p-8;
  }
  ref::MatmulSpec spec;
  spec.inputType = e4m3;
  spec.accType = Float32Type::get(&ctx);
  spec.tensorCoreChunk = 128;
  spec.tensorCoreUnit = ref::kHopperFp8TensorCoreUnit;
  ref::Result tc = ref::matmul(a, b, c, spec);
  EXPECT_EQ(tensorCoreProduct(a, b, 128).data[0], 128.5);
  EXPECT_TRUE(ref::compare(tensorCoreProduct(a, b, 128), tc).passed());
  EXPECT_EQ(tensorCoreProduct(a, b, 256).data[0], 128.0);
  EXPECT_FALSE(ref::compare(tensorCoreProduct(a, b, 256), tc).passed());
}

// The program gate's draws (MatmulSpec::drawRounding): each draw is a
// value the a-priori gate admits, with a zero bound of its own, and the
// draws spread as roundings do: far inside the worst case (γ_K·Σ|ab| grows
// as K, random roundings as √K), not collapsed onto the exact sum.
TEST(ReferenceMatmul, DrawnRoundings) {
  MLIRContext ctx;
  const int64_t m = 4, k = 256, n = 4;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  ref::Tensor a({m, k}), b({k, n}), c({m, n});
  for (double &x : a.data)
    x = static_cast<float>(uniform(rng));
  for (double &x : b.data)
    x = static_cast<float>(uniform(rng));
  for (Type acc :
       {Type(Float32Type::get(&ctx)), Type(BFloat16Type::get(&ctx))}) {
    ref::MatmulSpec spec;
    spec.inputType = Float32Type::get(&ctx);
    spec.accType = acc;
    ref::Result bounded = ref::matmul(a, b, c, spec);
    spec.drawRounding = [&] { return uniform(rng); };
    double worstShare = 0, sumSquares = 0;
    int64_t moved = 0, count = 0;
    for (int draw = 0; draw < 20; ++draw) {
      ref::Result drawn = ref::matmul(a, b, c, spec);
      for (int64_t i = 0; i < m * n; ++i) {
        double err = drawn.value.data[i] - bounded.value.data[i];
        EXPECT_EQ(drawn.bound.data[i], 0.0);
        EXPECT_LE(std::fabs(err), bounded.bound.data[i]);
        worstShare =
            std::max(worstShare, std::fabs(err) / bounded.bound.data[i]);
        sumSquares +=
            err * err / (bounded.bound.data[i] * bounded.bound.data[i]);
        moved += err != 0.0;
        ++count;
      }
    }
    EXPECT_EQ(moved, count);
    // Far inside the worst case at K = 256 (about 1/√K of it, typically).
    EXPECT_LT(worstShare, 0.25);
    EXPECT_GT(std::sqrt(sumSquares / double(count)), 1e-3);
  }
  // Integer sums are exact: nothing to draw.
  ref::MatmulSpec exact;
  exact.inputType = IntegerType::get(&ctx, 8);
  exact.accType = IntegerType::get(&ctx, 32);
  exact.drawRounding = [&] { return uniform(rng); };
  ref::Tensor ai = tensor({1, 2}, {3, -2}), bi = tensor({2, 1}, {5, 7});
  EXPECT_EQ(ref::matmul(ai, bi, ref::Tensor({1, 1}), exact).value.data[0], 1.0);
}

// Softmax's draws: an f32 kernel's roundings and one rounding to the
// output type, inside PyTorch's tolerance (the a-priori gate), rows still
// summing to one within their roundings; a row of -inf stays exactly 0,
// and so do the masked (-inf) entries of a row that keeps some (a draw
// times an infinite value would be NaN).
TEST(ReferenceSoftmax, DrawnRoundings) {
  MLIRContext ctx;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  ref::Tensor x = tensor(
      {3, 4}, {0.5, -3, 2, 1, -inf, -inf, -inf, -inf, -inf, 1.5, -inf, -0.25});
  for (Type out :
       {Type(Float32Type::get(&ctx)), Type(BFloat16Type::get(&ctx))}) {
    ref::Result bounded = ref::softmax(x, 1, out);
    auto draw = [&] { return uniform(rng); };
    ref::Result drawn = ref::softmax(x, 1, out, draw);
    double rowSum = 0;
    for (int64_t i = 0; i < 4; ++i) {
      EXPECT_EQ(drawn.bound.data[i], 0.0);
      EXPECT_NE(drawn.value.data[i], bounded.value.data[i]);
      EXPECT_LE(std::fabs(drawn.value.data[i] - bounded.value.data[i]),
                bounded.bound.data[i]);
      rowSum += drawn.value.data[i];
    }
    EXPECT_NEAR(rowSum, 1.0, 8 * ref::unitRoundoff(out));
    for (int64_t i = 4; i < 8; ++i)
      EXPECT_EQ(drawn.value.data[i], 0.0);
    for (int64_t i : {8, 10})
      EXPECT_EQ(drawn.value.data[i], 0.0);
    for (int64_t i : {9, 11}) {
      EXPECT_TRUE(std::isfinite(drawn.value.data[i]));
      EXPECT_LE(std::fabs(drawn.value.data[i] - bounded.value.data[i]),
                bounded.bound.data[i]);
    }
  }
}

// The exact tier with tensor-core chunks: integer-valued products are
// exact only while every chunk's Σ|a·b| fits the 14-bit sum (2^13 here),
// not the f32 significand.
TEST(ReferenceMatmul, TensorCoreChunksExactTier) {
  MLIRContext ctx;
  ref::MatmulSpec spec;
  spec.inputType = Float8E4M3FNType::get(&ctx);
  spec.accType = Float32Type::get(&ctx);
  spec.transposeB = true;
  auto gateOf = [&](double x) {
    ref::Tensor a({1, 128}, x), b({1, 128}, x), c({1, 1});
    return ref::matmul(a, b, c, spec).bound.data[0];
  };
  EXPECT_EQ(gateOf(8), 0.0);  // 128 · 64 = 2^13
  EXPECT_EQ(gateOf(16), 0.0); // 128 · 256 = 2^15 < 2^24
  spec.tensorCoreChunk = 128;
  spec.tensorCoreUnit = ref::kHopperFp8TensorCoreUnit;
  EXPECT_EQ(gateOf(8), 0.0);
  EXPECT_GT(gateOf(16), 0.0);
}

// accel.matmul's reference takes the tensor-core chunks from the options
// (accel-run sets them for the f8 wgmma kernels only).
TEST_F(ReferenceAccelOpsTest, MatmulTensorCoreOptions) {
  Operation *op = parse(R"mlir(
func.func @f(%a: tensor<1x256xf8E4M3FN>, %b: tensor<1x256xf8E4M3FN>, %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %r = accel.matmul transpose_b ins(%a, %b : tensor<1x256xf8E4M3FN>, tensor<1x256xf8E4M3FN>) outs(%c : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
)mlir",
                        [](Operation *op) { return isa<MatmulOp>(op); });
  ASSERT_TRUE(op);
  ref::Tensor a({1, 256}, 0.375), b({1, 256}, -0.3125), c({1, 1});
  FailureOr<ref::Result> plain = evaluate(op, {a, b, c});
  ref::AccelOpOptions options;
  options.tensorCoreChunk = 128;
  options.tensorCoreUnit = ref::kHopperFp8TensorCoreUnit;
  FailureOr<ref::Result> tc = evaluate(op, {a, b, c}, options);
  ASSERT_TRUE(succeeded(plain) && succeeded(tc));
  // |A||B| = 30, every product on the tensor cores' grid: the model's sum is
  // exact, and its gate, γ_2 and 2^-14·|A||B|, is wider than the f32 one.
  double mag = 256 * 0.375 * 0.3125;
  EXPECT_EQ(tc->value.data[0], plain->value.data[0]);
  EXPECT_NEAR(tc->bound.data[0],
              0x1p-24 * mag + ref::gamma(2, 0x1p-24) * mag + 0x1p-14 * mag,
              1e-12);
  EXPECT_LT(plain->bound.data[0], 1e-3);
}

// Ops the oracle does not model fail with a located error.
TEST_F(ReferenceAccelOpsTest, Unmodelled) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  Operation *constant =
      parse(R"mlir(
func.func @f() -> i64 {
  %c = arith.constant 3 : i64
  return %c : i64
}
)mlir",
            [](Operation *op) { return isa<arith::ConstantOp>(op); });
  ASSERT_TRUE(constant);
  EXPECT_FALSE(ref::isAccelOracleOp(constant));
  EXPECT_TRUE(failed(evaluate(constant, {})));
  EXPECT_NE(message.find("has no fp64 oracle"), std::string::npos);

  // A dynamic head dimension and no explicit scale: 1/sqrt(D) is unknown.
  Operation *attention =
      parse(R"mlir(
func.func @f(%q: tensor<1x1x2x?xf32>, %k: tensor<1x1x2x?xf32>, %v: tensor<1x1x2x?xf32>, %o: tensor<1x1x2x?xf32>) -> tensor<1x1x2x?xf32> {
  %r = accel.attention ins(%q, %k, %v : tensor<1x1x2x?xf32>, tensor<1x1x2x?xf32>, tensor<1x1x2x?xf32>) outs(%o : tensor<1x1x2x?xf32>) -> tensor<1x1x2x?xf32>
  return %r : tensor<1x1x2x?xf32>
}
)mlir",
            [](Operation *op) { return isa<AttentionOp>(op); });
  ASSERT_TRUE(attention);
  EXPECT_TRUE(failed(evaluate(attention, {})));
  EXPECT_NE(message.find("needs a static head dimension"), std::string::npos);
}

} // namespace
