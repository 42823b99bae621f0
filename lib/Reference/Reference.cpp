//===- Reference.cpp - the fp64 oracle ------------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Straight loops in double precision, following the op descriptions in
// AccelOps.td word for word; the tolerances follow anchors-reliability.md §D.
//
//===----------------------------------------------------------------------===//

#include "accel/Reference/Reference.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::ref;

static constexpr double kInf = std::numeric_limits<double>::infinity();
static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor::Tensor(ArrayRef<int64_t> shape, double fill) : shape(shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  data.assign(n, fill);
}

double ref::unitRoundoff(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return std::ldexp(1.0, -static_cast<int>(f.getFPMantissaWidth()));
  return 0.0;
}

double ref::underflowError(Type type) {
  auto f = dyn_cast<FloatType>(type);
  if (!f || f.isF64())
    return 0.0;
  APFloat smallest = APFloat::getSmallest(f.getFloatSemantics());
  bool lost;
  smallest.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return 0.5 * smallest.convertToDouble();
}

double ref::roundTo(double v, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    if (f.isF64())
      return v;
    APFloat x(v);
    bool lost;
    // Out-of-range values saturate or become inf/NaN as the format says.
    x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return x.convertToDouble();
  }
  if (auto i = dyn_cast<IntegerType>(type)) {
    if (std::isnan(v))
      return 0.0;
    // Out of int64's range (inf included): saturate, then wrap below.
    v = std::clamp(v, -9.2233720368547758e18, 9.2233720368547748e18);
    unsigned w = i.getWidth();
    if (w == 1)
      return v != 0.0 ? 1.0 : 0.0;
    // Wrap like two's complement.
    auto bits = static_cast<uint64_t>(static_cast<int64_t>(std::trunc(v)));
    if (w < 64) {
      uint64_t mask = (uint64_t(1) << w) - 1;
      bits &= mask;
      if (bits >> (w - 1))
        return static_cast<double>(static_cast<int64_t>(bits) -
                                   (int64_t(1) << w));
    }
    return static_cast<double>(static_cast<int64_t>(bits));
  }
  return v;
}

double ref::gamma(int64_t k, double u) {
  double ku = static_cast<double>(k) * u;
  // Past K·u = 1/2 the worst-case bound says nothing (it reaches infinity at
  // K·u = 1); use the probabilistic λ·√K·u with λ = 8 (anchors-reliability
  // §D.3, the quality gate) so the gate stays finite and meaningful.
  if (ku >= 0.5)
    return 8.0 * std::sqrt(static_cast<double>(k)) * u;
  return ku / (1.0 - ku);
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

Tensor ref::dequantizeWeights(const Tensor &w, const Tensor &s,
                              const Tensor *z, int64_t k, int64_t bits,
                              int64_t group, bool isUnsigned) {
  int64_t n = w.shape[0], bytes = w.shape[1], groups = k / group;
  Tensor out({n, k});
  auto f32 = [](double v) { return static_cast<double>(static_cast<float>(v)); };
  for (int64_t r = 0; r < n; ++r)
    for (int64_t p = 0; p < k; ++p) {
      int64_t byte = static_cast<int64_t>(
                         w.data[r * bytes + (bits == 4 ? p / 2 : p)]) &
                     0xff;
      int64_t q;
      if (bits == 4) {
        q = p % 2 ? byte >> 4 : byte & 0xf;
        if (!isUnsigned && q >= 8)
          q -= 16;
      } else {
        q = !isUnsigned && byte >= 128 ? byte - 256 : byte;
      }
      int64_t g = r * groups + p / group;
      // q - z and (q - z) * s are exact in double (8-bit integers, f32
      // operands); each is then rounded to f32 as the kernels do.
      double diff = z ? f32(static_cast<double>(q) - z->data[g])
                      : static_cast<double>(q);
      out.data[r * k + p] = f32(diff * s.data[g]);
    }
  return out;
}

/// Whether `v` is an integer (±inf too, NaN not): v == trunc(v), without
/// the libm call the generic x86-64 build makes of std::trunc (the fp64
/// matmul asks it three times a product).
static bool isIntegral(double v) {
  if (std::isnan(v))
    return false;
  return !(std::fabs(v) < 0x1p52) || v == double(int64_t(v));
}

Result ref::matmul(const Tensor &a, const Tensor &b, const Tensor &c,
                   const MatmulSpec &spec) {
  int64_t rank = a.rank();
  assert(rank >= 2 && b.rank() == rank && "verified shapes");
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1];
  int64_t n = spec.transposeB ? b.shape[rank - 2] : b.shape[rank - 1];
  SmallVector<int64_t> outShape(a.shape.begin(), a.shape.end() - 2);
  outShape.push_back(m);
  outShape.push_back(n);
  Result r{Tensor(outShape), Tensor(outShape)};
  int64_t batches = r.value.numElements() / std::max<int64_t>(1, m * n);
  if (m * n == 0)
    batches = 0;

  bool integer = isa<IntegerType>(spec.inputType);
  bool scaled = spec.lhsScale.has_value();
  double s = scaled ? *spec.lhsScale * *spec.rhsScale : 1.0;
  double uOut = unitRoundoff(spec.accType);
  double u32 = std::ldexp(1.0, -24);
  // The smallest subnormal of C's type (2^-149 for f32), and its inverse.
  // Below the smallest normal number a rounding error is not relative:
  // the model is fl(x op y) = (x op y)(1 + δ) + η with |η| ≤ tiny/2
  // (Higham, Accuracy and Stability, §2.1), and the u·|r| + γ_K terms
  // cover only δ. Where η can arise is known exactly: every value of the
  // type is a multiple of `tiny`, so sums of such values are exact when they
  // are subnormal, and an FMA or a product rounds by η only when the exact
  // product x·y is not a multiple of `tiny` (in double, x·y is exact for
  // every input type). Each such product adds at most tiny/2, whatever the
  // order of the sum; one more tiny/2 is for a kernel that accumulates
  // wider than C (f16/bf16 C are summed in f32, docs/numerics.md) and
  // rounds into C's subnormals once. A constant of a few `tiny` would fail
  // correct kernels: 8 products tiny·0.5 (ties to even: 0 each) sum to 0
  // against the exact 4·tiny. And K·tiny for every K would let a kernel
  // that flushes subnormals to zero pass (F3): a bf16 result below 2^-126
  // is at most 128 of its `tiny`.
  double tiny = 0, invTiny = 0;
  // vdpbf16ps's DAZ/FTZ (MatmulSpec::flushBf16Subnormals): 2^-126 is the
  // smallest normal number of bf16 and f32 alike.
  constexpr double kMinNormalF32 = 0x1p-126;
  bool flushBf16 =
      spec.flushBf16Subnormals && spec.inputType && spec.inputType.isBF16();
  auto isSubnormal = [&](double v) {
    return v != 0.0 && std::fabs(v) < kMinNormalF32;
  };
  if (auto f = dyn_cast<FloatType>(spec.accType)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    int exp = APFloat::semanticsMinExponent(sem) -
              static_cast<int>(APFloat::semanticsPrecision(sem)) + 1;
    tiny = std::ldexp(1.0, exp);
    invTiny = std::ldexp(1.0, -exp);
  }
  // A tensor core summing chunks of K in reduced precision, each chunk
  // then added in f32 (MatmulSpec::tensorCoreChunk): the model of Hopper's
  // fp8 MMA gives the chunk sums; ⌈K / chunk⌉ f32 additions follow.
  const bool tensorCore = spec.tensorCoreChunk > 0 && spec.tensorCoreUnit > 0;
  const int64_t sums =
      tensorCore ? (k + spec.tensorCoreChunk - 1) / spec.tensorCoreChunk : k;
  SmallVector<double, 64> stepProducts;
  // One MMA instruction of the model: `sum` and the products aligned to the
  // largest magnitude among them, each cut toward zero to that grid of
  // tensorCoreUnit (14 significant bits), then added (exactly, in double:
  // at most 33 values on one 14-bit grid).
  auto mmaStep = [&](double sum) {
    double largest = std::fabs(sum);
    for (double q : stepProducts)
      largest = std::max(largest, std::fabs(q));
    if (largest == 0.0) {
      stepProducts.clear();
      return sum;
    }
    int exponent;
    std::frexp(largest, &exponent);
    // largest in [2^(e-1), 2^e): the grid is 2^(e-1)·unit.
    double grid = std::ldexp(spec.tensorCoreUnit, exponent - 1);
    double out = std::trunc(sum / grid) * grid;
    for (double q : stepProducts)
      out += std::trunc(q / grid) * grid;
    stepProducts.clear();
    return out;
  };
  for (int64_t bt = 0; bt < batches; ++bt) {
    const double *ab = a.data.data() + bt * m * k;
    const double *bb = b.data.data() + bt * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0, mag = 0;
        bool integral = true;
        // Products that are not a multiple of `tiny` (see above).
        int64_t offGrid = 0;
        // With flushBf16Subnormals: the products a dot instruction drops
        // for a subnormal factor.
        double flushed = 0;
        // With tensorCore: the largest Σ|a·b| of a chunk (the exact tier),
        // and the model's sum (chunks added in double; their f32 additions
        // are in the gate).
        double chunkMag = 0, chunkMagMax = 0;
        double modelDot = 0, chunkSum = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = ab[i * k + p];
          double y = spec.transposeB ? bb[j * k + p] : bb[p * n + j];
          dot += x * y;
          mag += std::fabs(x * y);
          if (tensorCore) {
            if (p % spec.tensorCoreChunk == 0) {
              chunkMag = 0;
              if (p > 0) {
                modelDot += mmaStep(chunkSum);
                chunkSum = 0;
              }
            } else if ((p % spec.tensorCoreChunk) % kHopperFp8MmaK == 0) {
              chunkSum = mmaStep(chunkSum);
            }
            stepProducts.push_back(x * y);
            chunkMag += std::fabs(x * y);
            chunkMagMax = std::max(chunkMagMax, chunkMag);
          }
          if (integral)
            integral = isIntegral(x) && isIntegral(y);
          offGrid += !isIntegral(x * y * invTiny);
          if (flushBf16 && (isSubnormal(x) || isSubnormal(y)))
            flushed += std::fabs(x * y);
        }
        if (tensorCore && k > 0)
          modelDot += mmaStep(chunkSum);
        int64_t idx = bt * m * n + i * n + j;
        double prev = spec.accumulate ? c.data[idx] : 0.0;
        double value, bound;
        // The hull of [model ± modelGate] and [exact ± exactGate]: a kernel
        // may sum as the tensor core does or exactly, nothing else.
        auto hull = [&](double model, double modelGate, double exact,
                        double exactGate) {
          double lo = std::min(model - modelGate, exact - exactGate);
          double hi = std::max(model + modelGate, exact + exactGate);
          value = 0.5 * (lo + hi);
          bound = 0.5 * (hi - lo);
        };
        if (integer && !scaled && isa<IntegerType>(spec.accType)) {
          // Exact in i32, wrapping; the kernel must match bit for bit.
          value = roundTo(prev + dot, spec.accType);
          bound = 0.0;
        } else if (scaled) {
          // The dot product is exact (i8) or accumulated in f32 (f8), then
          // converted, scaled, added to C and rounded to the output type.
          // The products of 8-bit inputs are exact in f32, far above its
          // subnormals; the conversion, the scaling and the addition of C
          // may each round in f32's subnormal range (≤ 2^-150 each), and
          // the rounding to C's type by tiny/2: at most 2·tiny in all.
          auto gateOf = [&](double v, double sum, double dotErr) {
            return uOut * std::fabs(v) + std::fabs(s) * dotErr +
                   3 * u32 * (std::fabs(s * sum) + std::fabs(prev)) + 2 * tiny;
          };
          value = prev + s * dot;
          bound = gateOf(value, dot, integer ? 0.0 : gamma(k, u32) * mag);
          if (tensorCore && !integer) {
            double model = prev + s * modelDot;
            hull(model,
                 gateOf(model, modelDot,
                        gamma(sums, u32) * mag +
                            0.5 * spec.tensorCoreUnit * mag),
                 value, bound);
          }
        } else {
          value = prev + dot;
          const int64_t extra = spec.accumulate ? 1 : 0;
          auto gateOf = [&](double v, int64_t terms, double tensorCoreTerm) {
            return uOut * std::fabs(v) +
                   gamma(terms, uOut) * (mag + std::fabs(prev)) +
                   tensorCoreTerm +
                   0.5 * tiny * static_cast<double>(offGrid + 1);
          };
          bound = gateOf(value, k + extra, 0.0);
          if (tensorCore) {
            double model = prev + modelDot;
            hull(model,
                 gateOf(model, sums + extra, 0.5 * spec.tensorCoreUnit * mag),
                 value, bound);
          }
          // DAZ/FTZ: the dropped products, and each of the K steps (and
          // C, and the result) may flush a subnormal f32 partial sum.
          if (flushBf16)
            bound += flushed + static_cast<double>(k + 2) * kMinNormalF32;
          // The exact tier: integer-valued inputs whose every partial sum
          // fits the accumulator's significand leave nothing to round.
          double limit = std::ldexp(
              1.0, cast<FloatType>(spec.accType).getFPMantissaWidth());
          if (integer)
            integral = true;
          if (integral && prev == std::trunc(prev) &&
              mag + std::fabs(prev) <= limit &&
              (!tensorCore || chunkMagMax * spec.tensorCoreUnit <= 1.0)) {
            value = prev + dot;
            bound = 0.0;
          } else if (spec.drawRounding && !tensorCore && flushed == 0.0) {
            // One draw of the roundings (MatmulSpec::drawRounding), in K's
            // order: C first, then each product's addition.
            // (An infinite or NaN sum is what it is: no draw.)
            double sum = prev, drawn = 0;
            auto roundSum = [&] {
              if (std::isfinite(sum))
                drawn += spec.drawRounding() * uOut * std::fabs(sum);
            };
            if (spec.accumulate)
              roundSum();
            for (int64_t p = 0; p < k; ++p) {
              double x = ab[i * k + p];
              double y = spec.transposeB ? bb[j * k + p] : bb[p * n + j];
              sum += x * y;
              roundSum();
            }
            value = std::isfinite(sum) ? sum + drawn : sum;
            bound = 0.0;
          }
        }
        // A result beyond the output format's range is, correctly, ±inf.
        if (!isa<IntegerType>(spec.accType) && std::isfinite(value) &&
            std::isinf(roundTo(value, spec.accType))) {
          value = roundTo(value, spec.accType);
          bound = 0.0;
        }
        r.value.data[idx] = value;
        r.bound.data[idx] = bound;
      }
    }
  }
  return r;
}

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

/// PyTorch's default (atol, rtol) per output type (anchors-reliability §A.5).
static std::pair<double, double> elementwiseTolerance(Type type) {
  if (type.isF16())
    return {1e-5, 1e-3};
  if (type.isBF16())
    return {1e-5, 1.6e-2};
  return {1e-5, 1.3e-6};
}

/// The draws of an f32 kernel's roundings (softmax, attention; accel-run's
/// program gate): f32's unit roundoff, and exp's error in such units (the
/// CPU kernels' polynomial measured 1.13, plus the result's rounding).
static constexpr double kDrawU32 = 0x1p-24, kDrawExpRoundoffs = 2.5;

Result ref::softmax(const Tensor &x, int64_t dim, Type outType,
                    const std::function<double()> &drawRounding) {
  Result r{Tensor(x.shape), Tensor(x.shape)};
  int64_t len = x.shape[dim], inner = 1, outer = 1;
  for (int64_t i = dim + 1; i < x.rank(); ++i)
    inner *= x.shape[i];
  for (int64_t i = 0; i < dim; ++i)
    outer *= x.shape[i];
  auto [atol, rtol] = elementwiseTolerance(outType);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t i) { return (o * len + i) * inner + in; };
      double mx = -kInf;
      bool nan = false;
      for (int64_t i = 0; i < len; ++i) {
        double v = x.data[at(i)];
        nan |= std::isnan(v);
        mx = std::max(mx, v);
      }
      double shift = mx == -kInf ? 0.0 : mx;
      if (drawRounding && !nan && std::isfinite(mx)) {
        // One draw of an f32 kernel's roundings (the declaration).
        constexpr double u32 = kDrawU32, kExpRoundoffs = kDrawExpRoundoffs;
        double uOut = unitRoundoff(outType);
        std::vector<double> e(len);
        double drawnSum = 0;
        for (int64_t i = 0; i < len; ++i) {
          // A -inf input (a masked entry) is exactly 0 after exp.
          double t = x.data[at(i)] - shift;
          if (!std::isfinite(t)) {
            e[i] = std::exp(t);
            continue;
          }
          t += drawRounding() * u32 * std::fabs(t);
          e[i] = std::exp(t) * (1 + drawRounding() * kExpRoundoffs * u32);
          drawnSum += e[i];
          drawnSum += drawRounding() * u32 * drawnSum;
        }
        for (int64_t i = 0; i < len; ++i) {
          double y = e[i] / drawnSum;
          y *= 1 + drawRounding() * u32;
          y *= 1 + drawRounding() * uOut;
          r.value.data[at(i)] = y;
          r.bound.data[at(i)] = 0.0;
        }
        continue;
      }
      double sum = 0;
      for (int64_t i = 0; i < len; ++i)
        sum += std::exp(x.data[at(i)] - shift);
      for (int64_t i = 0; i < len; ++i) {
        double e = std::exp(x.data[at(i)] - shift);
        double y = nan ? kNaN : sum == 0.0 ? 0.0 : e / sum;
        r.value.data[at(i)] = y;
        r.bound.data[at(i)] = sum == 0.0 ? 0.0 : atol + rtol * std::fabs(y);
      }
    }
  }
  return r;
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

/// The absolute gate of anchors-reliability §D.4 per output type.
static double attentionTolerance(Type type) {
  if (type.isF16())
    return 1e-2;
  if (type.isBF16())
    return 2e-2;
  return 1e-5;
}

Result ref::attention(const Tensor &q, const Tensor &k, const Tensor &v,
                      const Tensor *mask, const AttentionSpec &spec) {
  int64_t bN = q.shape[0], hq = q.shape[1], sq = q.shape[2], d = q.shape[3];
  int64_t hkv = k.shape[1], skv = k.shape[2], dv = v.shape[3];
  int64_t group = hkv == 0 ? 1 : hq / hkv;
  SmallVector<int64_t> outShape = {bN, hq, sq, dv};
  Result r{Tensor(outShape), Tensor(outShape)};
  double atol = attentionTolerance(spec.outType);
  // The band of batch b (the op's description): off = diagonal + (kvlen -
  // Skv) - (qlen - Sq), the diagonal defaulting to Skv - Sq.
  // Lengths are clamped to [-2^31, 2^31], as the op defines them.
  auto lengthOf = [](const std::vector<int64_t> &lengths, int64_t b,
                     int64_t whole) {
    return lengths.empty()
               ? whole
               : std::clamp<int64_t>(lengths[b], -(int64_t(1) << 31),
                                     int64_t(1) << 31);
  };

  // Index of mask element [b, h, i, j] under right-aligned broadcasting.
  auto maskAt = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
    int64_t full[4] = {b, h, i, j};
    int64_t idx = 0, mr = mask->rank();
    for (int64_t a = 0; a < mr; ++a) {
      int64_t size = mask->shape[a];
      idx = idx * size + (size == 1 ? 0 : full[a + 4 - mr]);
    }
    return mask->data[idx];
  };
  std::vector<double> logits(skv);
  std::vector<char> kept(skv);
  const std::function<double()> &draw = spec.drawRounding;
  const double u32 = kDrawU32, uOut = unitRoundoff(spec.outType);
  constexpr double kExpRoundoffs = kDrawExpRoundoffs;
  for (int64_t b = 0; b < bN; ++b) {
    int64_t kvLen = lengthOf(spec.kvLengths, b, skv),
            qLen = lengthOf(spec.qLengths, b, sq);
    int64_t off =
        spec.diagonal.value_or(skv - sq) + (kvLen - skv) - (qLen - sq);
    for (int64_t h = 0; h < hq; ++h) {
      int64_t hk = h / group;
      for (int64_t i = 0; i < sq; ++i) {
        // Pointer arithmetic rather than &data[n]: with D = 0, Q and K hold
        // no element, and indexing an empty vector is undefined.
        const double *qi = q.data.data() + ((b * hq + h) * sq + i) * d;
        double mx = -kInf;
        bool nan = false;
        // Largest |logit| and |v| over the kept keys: rounding the logits
        // to f32 moves the output by up to 2·max|v|·max|δlogit|
        // (δp_j = p_j(δ_j − Σ p δ)).
        double maxLogit = 0, maxV = 0;
        for (int64_t j = 0; j < skv; ++j) {
          const double *kj = k.data.data() + ((b * hkv + hk) * skv + j) * d;
          double dot = 0;
          for (int64_t p = 0; p < d; ++p) {
            dot += qi[p] * kj[p];
            if (draw && std::isfinite(dot))
              dot += draw() * u32 * std::fabs(dot);
          }
          double s = spec.scale * dot;
          if (draw && std::isfinite(s))
            s += draw() * u32 * std::fabs(s);
          bool keep = j < kvLen && i < qLen;
          if (spec.causal)
            keep &=
                j <= i + off && (!spec.window || j > i + off - *spec.window);
          if (mask) {
            double mv = maskAt(b, h, i, j);
            if (spec.boolMask) {
              keep &= mv != 0.0;
            } else {
              s += mv;
              if (draw && std::isfinite(s))
                s += draw() * u32 * std::fabs(s);
            }
          }
          kept[j] = keep;
          logits[j] = keep ? s : -kInf;
          nan |= std::isnan(logits[j]);
          mx = std::max(mx, logits[j]);
          if (keep && std::isfinite(s)) {
            maxLogit = std::max(maxLogit, std::fabs(s));
            for (int64_t e = 0; e < dv; ++e)
              maxV = std::max(
                  maxV, std::fabs(v.data[((b * hkv + hk) * skv + j) * dv + e]));
          }
        }
        // The dot products' own rounding is what atol covers at ordinary
        // magnitudes; large logits add their representation error, and the
        // output's own rounding and the f32 sum over the keys scale with |v|
        // (probabilistic √Skv growth, λ = 2).
        double logitErr = 2 * u32 * maxLogit;
        double sumErr = ref::unitRoundoff(spec.outType) +
                        2.0 * std::sqrt(double(skv)) * u32;
        double rowBound = atol + 2 * maxV * logitErr +
                          (sumErr + spec.probabilityRoundoff) * maxV;
        double shift = mx == -kInf ? 0.0 : mx;
        double sum = 0;
        for (int64_t j = 0; j < skv; ++j) {
          if (draw && kept[j] && std::isfinite(logits[j] - shift)) {
            double t = logits[j] - shift;
            t += draw() * u32 * std::fabs(t);
            logits[j] = std::exp(t) * (1 + draw() * kExpRoundoffs * u32);
            sum += logits[j];
            sum += draw() * u32 * sum;
            // P as the kernel multiplies it (rounded to the input type).
            logits[j] *= 1 + draw() * spec.probabilityRoundoff;
            continue;
          }
          logits[j] = std::exp(logits[j] - shift);
          sum += logits[j];
        }
        for (int64_t e = 0; e < dv; ++e) {
          // Masked keys take no part, their V included. A non-finite V at
          // a masked key of a row that keeps some key may still reach the
          // output as NaN: a kernel multiplies it by the zero probability
          // unless it skipped the key's whole tile (FlashAttention does
          // the same), so NaN is correct there too.
          double acc = 0;
          bool maskedNonFinite = false;
          for (int64_t j = 0; j < skv; ++j) {
            double vj = v.data[((b * hkv + hk) * skv + j) * dv + e];
            if (kept[j]) {
              acc += logits[j] * vj;
              if (draw && std::isfinite(acc))
                acc += draw() * u32 * std::fabs(acc);
            } else {
              maskedNonFinite |= !std::isfinite(vj);
            }
          }
          int64_t idx = ((b * hq + h) * sq + i) * dv + e;
          double out = nan ? kNaN : sum == 0.0 ? 0.0 : acc / sum;
          if (draw && std::isfinite(out) && sum != 0.0)
            out *= (1 + draw() * u32) * (1 + draw() * uOut);
          r.value.data[idx] = out;
          r.bound.data[idx] = sum == 0.0 || draw ? 0.0 : rowBound;
          if (maskedNonFinite && sum != 0.0)
            r.allowNaN(idx);
        }
      }
    }
  }
  return r;
}

//===----------------------------------------------------------------------===//
// compare
//===----------------------------------------------------------------------===//

double ref::elementRatio(double y, const Result &expected, int64_t i) {
  double r = expected.value.data[i], bound = expected.bound.data[i];
  if (std::isnan(y) && expected.mayBeNaN(i))
    return 0.0;
  if (std::isnan(r) || std::isinf(r)) {
    bool same = std::isnan(r) ? std::isnan(y) : y == r;
    return same ? 0.0 : kInf;
  }
  if (!std::isfinite(y))
    return kInf;
  double err = std::fabs(y - r);
  return bound > 0.0 ? err / bound : (err == 0.0 ? 0.0 : kInf);
}

Comparison ref::compare(const Tensor &actual, const Result &expected) {
  Comparison c;
  for (int64_t i = 0, e = actual.numElements(); i < e; ++i) {
    double y = actual.data[i], r = expected.value.data[i];
    double ratio = elementRatio(y, expected, i);
    if (std::isfinite(r) && std::isfinite(y)) {
      double err = std::fabs(y - r);
      c.maxAbsError = std::max(c.maxAbsError, err);
      if (r != 0.0)
        c.maxRelError = std::max(c.maxRelError, err / std::fabs(r));
    }
    if (ratio > 1.0) {
      if (c.failures == 0)
        c.firstFailure = i;
      ++c.failures;
    }
    c.worstRatio = std::max(c.worstRatio, ratio);
  }
  return c;
}

size_t ref::storageBytes(Type type) {
  return std::max<size_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

void ref::encodeElement(double v, Type type, uint8_t *out) {
  uint64_t raw;
  if (auto f = dyn_cast<FloatType>(type)) {
    APFloat x(v);
    bool lost;
    x.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    raw = x.bitcastToAPInt().getZExtValue();
  } else {
    raw = static_cast<uint64_t>(static_cast<int64_t>(roundTo(v, type)));
  }
  std::memcpy(out, &raw, storageBytes(type));
}

double ref::decodeElement(const uint8_t *in, Type type) {
  uint64_t raw = 0;
  std::memcpy(&raw, in, storageBytes(type));
  if (auto f = dyn_cast<FloatType>(type))
    return APFloat(f.getFloatSemantics(), APInt(f.getWidth(), raw))
        .convertToDouble();
  unsigned w = type.getIntOrFloatBitWidth();
  if (w == 1)
    return double(raw & 1);
  int shift = 64 - int(w);
  return double((int64_t(raw) << shift) >> shift);
}
