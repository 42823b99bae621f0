//===- AccelOps.cpp - the fp64 oracle of accel ops ------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Reference/AccelOps.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::accel;

bool ref::isAccelOracleOp(Operation *op) {
  return isa<MatmulOp, DequantMatmulOp, SoftmaxOp, AttentionOp,
             PagedAttentionOp>(op);
}

/// accel.paged_attention is accel.attention over each sequence's keys
/// gathered from the pool through its block table (the op's definition):
/// the oracle gathers them into [B, Hkv, N * T, D] and runs the attention
/// with the lengths. A sequence whose length or pages are outside their
/// range (the op's "valid run-time data") gets NaN outputs, as the kernels
/// give it.
static FailureOr<ref::Result>
pagedAttention(PagedAttentionOp op,
               function_ref<const ref::Tensor &(Value)> get,
               const ref::AccelOpOptions &options) {
  using ref::Tensor;
  const Tensor &q = get(op.getQuery()), &kc = get(op.getKeyCache()),
               &vc = get(op.getValueCache()), &table = get(op.getBlockTable()),
               &lengths = get(op.getKvLengths());
  int64_t nB = q.shape[0], hq = q.shape[1], sq = q.shape[2];
  int64_t pool = kc.shape[0], page = kc.shape[1], hkv = kc.shape[2],
          d = kc.shape[3], dv = vc.shape[3], pages = table.shape[1];
  int64_t skv = pages * page;
  Tensor k({nB, hkv, skv, d}), v({nB, hkv, skv, dv});
  ref::AttentionSpec spec;
  spec.scale = op.getEffectiveScale();
  spec.causal = op.getCausal();
  spec.outType = op.getInit().getType().getElementType();
  spec.drawRounding = options.drawRounding;
  if (options.roundProbabilities)
    spec.probabilityRoundoff =
        ref::unitRoundoff(op.getQuery().getType().getElementType());
  std::vector<bool> valid(nB, true);
  for (int64_t b = 0; b < nB; ++b) {
    double len = lengths.data[b];
    valid[b] = len >= 0 && len <= double(skv);
    int64_t n = valid[b] ? int64_t(len) : 0;
    for (int64_t j = 0; j < n && valid[b]; ++j) {
      double p = table.data[b * pages + j / page];
      if (p < 0 || p >= double(pool)) {
        valid[b] = false;
        break;
      }
      int64_t src = (int64_t(p) * page + j % page) * hkv;
      for (int64_t h = 0; h < hkv; ++h) {
        std::copy_n(kc.data.begin() + (src + h) * d, d,
                    k.data.begin() + ((b * hkv + h) * skv + j) * d);
        std::copy_n(vc.data.begin() + (src + h) * dv, dv,
                    v.data.begin() + ((b * hkv + h) * skv + j) * dv);
      }
    }
    spec.kvLengths.push_back(valid[b] ? n : 0);
  }
  ref::Result r = ref::attention(q, k, v, nullptr, spec);
  int64_t perBatch = hq * sq * dv;
  for (int64_t b = 0; b < nB; ++b)
    if (!valid[b])
      for (int64_t i = b * perBatch; i < (b + 1) * perBatch; ++i) {
        r.value.data[i] = std::nan("");
        r.bound.data[i] = 0;
      }
  return r;
}

FailureOr<ref::Result>
ref::evaluateAccelOp(Operation *op, function_ref<const Tensor &(Value)> get,
                     const AccelOpOptions &options) {
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    MatmulSpec spec;
    spec.transposeB = mm.getTransposeB();
    spec.accumulate = mm.getAccumulate();
    spec.inputType = mm.getLhs().getType().getElementType();
    spec.accType = mm.getInit().getType().getElementType();
    spec.flushBf16Subnormals = options.flushBf16Subnormals;
    spec.tensorCoreChunk = options.tensorCoreChunk;
    spec.tensorCoreUnit = options.tensorCoreUnit;
    spec.drawRounding = options.drawRounding;
    if (mm.getLhsScale()) {
      spec.lhsScale = get(mm.getLhsScale()).data[0];
      spec.rhsScale = get(mm.getRhsScale()).data[0];
    }
    return matmul(get(mm.getLhs()), get(mm.getRhs()), get(mm.getInit()), spec);
  }
  if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
    // C = A·wᵀ summed in f32 (an f32 matmul of A and the dequantised
    // weights), then rounded to C's type.
    int64_t k = dq.getK(), n = dq.getN();
    const Tensor *z = dq.getZeroPoints() ? &get(dq.getZeroPoints()) : nullptr;
    Tensor w = dequantizeWeights(get(dq.getWeights()), get(dq.getScales()), z,
                                 k, dq.getBits(), dq.getGroup(),
                                 dq.getIsUnsigned());
    Tensor a = get(dq.getLhs());
    SmallVector<int64_t> shape(a.shape.begin(), a.shape.end());
    int64_t rows = k ? a.numElements() / k : 0;
    a.shape = {rows, k};
    MatmulSpec spec;
    spec.transposeB = true;
    Type f32 = Float32Type::get(op->getContext());
    spec.inputType = f32;
    spec.accType = f32;
    // The program gate's draw: the f32 sum's roundings, and C's own
    // rounding to its type (the weights' dequantisation is exact here).
    spec.drawRounding = options.drawRounding;
    Result r = matmul(a, w, Tensor({rows, n}), spec);
    Type cElt = dq.getInit().getType().getElementType();
    if (cElt != f32)
      for (int64_t i = 0; i < r.value.numElements(); ++i) {
        if (options.drawRounding && std::isfinite(r.value.data[i])) {
          r.value.data[i] *= 1 + options.drawRounding() * unitRoundoff(cElt);
          continue;
        }
        r.bound.data[i] += unitRoundoff(cElt) * std::fabs(r.value.data[i]) +
                           underflowError(cElt);
      }
    shape.back() = n;
    r.value.shape = shape;
    r.bound.shape = shape;
    return r;
  }
  if (auto sm = dyn_cast<SoftmaxOp>(op))
    return softmax(get(sm.getInput()), sm.getDimension(),
                   sm.getInit().getType().getElementType(),
                   options.drawRounding);
  if (auto pa = dyn_cast<PagedAttentionOp>(op))
    return pagedAttention(pa, get, options);
  auto at = dyn_cast<AttentionOp>(op);
  if (!at)
    return op->emitOpError("has no fp64 oracle");
  AttentionSpec spec;
  std::optional<double> scale = at.getEffectiveScale();
  if (!scale)
    return op->emitOpError("the fp64 oracle needs a static head dimension "
                           "or an explicit scale");
  spec.scale = *scale;
  if (options.roundProbabilities)
    spec.probabilityRoundoff = unitRoundoff(
        options.tf32Probabilities && at->hasAttr(kTf32InputsAttrName)
            ? FloatTF32Type::get(op->getContext())
            : at.getQuery().getType().getElementType());
  spec.causal = at.getCausal();
  if (at.getDiagonal())
    spec.diagonal = static_cast<int64_t>(get(at.getDiagonal()).data[0]);
  spec.window = at.getWindow();
  // The oracle holds integers as doubles: the ends of i64 are clamped before
  // the conversion (the op clamps lengths to +-2^31 anyway).
  auto length = [](double x) {
    return static_cast<int64_t>(std::clamp(x, -0x1p62, 0x1p62));
  };
  if (at.getKvLengths())
    for (double x : get(at.getKvLengths()).data)
      spec.kvLengths.push_back(length(x));
  if (at.getQLengths())
    for (double x : get(at.getQLengths()).data)
      spec.qLengths.push_back(length(x));
  spec.outType = at.getInit().getType().getElementType();
  spec.drawRounding = options.drawRounding;
  const Tensor *mask = nullptr;
  if (at.getMask()) {
    mask = &get(at.getMask());
    spec.boolMask = cast<RankedTensorType>(at.getMask().getType())
                        .getElementType()
                        .isInteger(1);
  }
  return attention(get(at.getQuery()), get(at.getKey()), get(at.getValue()),
                   mask, spec);
}
