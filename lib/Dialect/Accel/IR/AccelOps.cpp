//===- AccelOps.cpp - accel operations ------------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of the accel compute ops. Each message names the operands and the
// dimensions involved; test/Dialect/Accel/invalid.mlir has a case for each.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::accel;

#define GET_OP_CLASSES
#include "accel/Dialect/Accel/IR/AccelOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Prints a dimension, with `?` for a dynamic one.
static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

static bool isOcpF8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }
/// The FNUZ variants (no negative zero, one NaN, no infinities): the fp8 of
/// AMD's gfx942 MFMA.
static bool isFnuzF8(Type t) {
  return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t);
}
static bool isF8(Type t) { return isOcpF8(t) || isFnuzF8(t); }
/// f8 operands may mix e4m3 and e5m2 within one family (OCP or FNUZ).
static bool sameF8Family(Type a, Type b) {
  return (isOcpF8(a) && isOcpF8(b)) || (isFnuzF8(a) && isFnuzF8(b));
}

/// Rejects operands whose static element count (or byte size) does not fit
/// in int64: shape arithmetic in every later pass assumes it does.
static LogicalResult verifyElementCounts(Operation *op) {
  for (auto [idx, type] : llvm::enumerate(op->getOperandTypes())) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank())
      continue;
    int64_t count = 1;
    for (int64_t d : shaped.getShape()) {
      if (ShapedType::isDynamic(d))
        continue;
      int64_t next;
      if (llvm::MulOverflow(count, d, next))
        return op->emitOpError()
               << "operand #" << idx << " of type " << type
               << " has an element count that overflows int64";
      count = next;
    }
    int64_t bits = std::max<int64_t>(8, shaped.getElementTypeBitWidth());
    int64_t totalBits;
    if (llvm::MulOverflow(count, bits, totalBits))
      return op->emitOpError() << "operand #" << idx << " of type " << type
                               << " has a size in bits that overflows int64";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// The accumulator types allowed for an input element type, for the
/// diagnostic and the check. Scaled i8 dequantises into a float C.
static SmallVector<Type> allowedAccumulators(Type input, bool scaled) {
  MLIRContext *ctx = input.getContext();
  Type f32 = Float32Type::get(ctx), f16 = Float16Type::get(ctx),
       bf16 = BFloat16Type::get(ctx), i32 = IntegerType::get(ctx, 32);
  if (input.isF32())
    return {f32};
  if (input.isF16())
    return {f32, f16};
  if (input.isBF16())
    return {f32, bf16};
  if (isF8(input))
    return {f32, f16, bf16};
  if (input.isInteger(8))
    return scaled ? SmallVector<Type>{f32, f16, bf16} : SmallVector<Type>{i32};
  return {};
}

bool MatmulOp::isSupportedElementTypes(Type lhs, Type rhs, Type acc,
                                       bool scaled) {
  bool sameKind = lhs == rhs || sameF8Family(lhs, rhs);
  if (!sameKind || (scaled && !isF8(lhs) && !lhs.isInteger(8)))
    return false;
  return llvm::is_contained(allowedAccumulators(lhs, scaled), acc);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyElementCounts(*this)))
    return failure();
  auto aT = getLhs().getType(), bT = getRhs().getType(),
       cT = getInit().getType();
  int64_t rank = cT.getRank();
  if (aT.getRank() != rank || bT.getRank() != rank)
    return emitOpError() << "expected A, B and C to have the same rank, got A "
                            "of rank "
                         << aT.getRank() << ", B of rank " << bT.getRank()
                         << " and C of rank " << rank;
  if (rank < 2)
    return emitOpError() << "expected operands of rank at least 2 "
                            "([batch..., M, K]), got rank "
                         << rank;
  ArrayRef<int64_t> a = aT.getShape(), b = bT.getShape(), c = cT.getShape();
  for (int64_t i = 0; i < rank - 2; ++i) {
    if (sizesConflict(a[i], b[i]) || sizesConflict(a[i], c[i]) ||
        sizesConflict(b[i], c[i]))
      return emitOpError() << "batch dimension #" << i << " mismatch: A has "
                           << dimStr(a[i]) << ", B has " << dimStr(b[i])
                           << ", C has " << dimStr(c[i]);
  }
  bool tb = getTransposeB();
  int64_t aM = a[rank - 2], aK = a[rank - 1];
  int64_t bK = tb ? b[rank - 1] : b[rank - 2];
  int64_t bN = tb ? b[rank - 2] : b[rank - 1];
  int64_t cM = c[rank - 2], cN = c[rank - 1];
  if (sizesConflict(aK, bK))
    return emitOpError() << "contraction dimension mismatch: A has K = "
                         << dimStr(aK) << ", B has K = " << dimStr(bK)
                         << (tb ? " (B is [N, K] with transpose_b)"
                                : " (B is [K, N])");
  if (sizesConflict(aM, cM))
    return emitOpError() << "M mismatch: A has M = " << dimStr(aM)
                         << ", C has M = " << dimStr(cM);
  if (sizesConflict(bN, cN))
    return emitOpError() << "N mismatch: B has N = " << dimStr(bN)
                         << ", C has N = " << dimStr(cN)
                         << (tb ? " (B is [N, K] with transpose_b)" : "");

  Type ea = aT.getElementType(), eb = bT.getElementType(),
       ec = cT.getElementType();
  bool sameKind = ea == eb || sameF8Family(ea, eb);
  if (!sameKind)
    return emitOpError() << "A and B element types must match (or both be "
                            "f8 of one family), got "
                         << ea << " and " << eb
                         << "; supported: f32, f16, bf16, i8, any mix of "
                            "f8E4M3FN and f8E5M2, or any mix of f8E4M3FNUZ "
                            "and f8E5M2FNUZ";
  if (static_cast<bool>(getLhsScale()) != static_cast<bool>(getRhsScale()))
    return emitOpError() << "per-tensor scales come in pairs: give both A's "
                            "and B's scale (use 1.0 for an unscaled operand)";
  bool scaled = static_cast<bool>(getLhsScale());
  if (scaled && !isF8(ea) && !ea.isInteger(8))
    return emitOpError() << "per-tensor scales are only allowed with f8 or i8 "
                            "inputs, got "
                         << ea;
  SmallVector<Type> accs = allowedAccumulators(ea, scaled);
  if (!llvm::is_contained(accs, ec)) {
    InFlightDiagnostic diag = emitOpError();
    diag << "C element type " << ec << " is not allowed for " << ea
         << " inputs";
    if (isa<FloatType>(ec) && isa<FloatType>(ea) &&
        ec.getIntOrFloatBitWidth() < ea.getIntOrFloatBitWidth())
      diag << " (the accumulator is narrower than the inputs)";
    if (ea.isInteger(8))
      diag << (scaled ? " with scales (the dequantised result is a float)"
                      : " without scales");
    diag << "; expected ";
    llvm::interleave(accs, diag, " or ");
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DequantMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult DequantMatmulOp::verify() {
  if (failed(verifyElementCounts(*this)))
    return failure();
  auto aT = getLhs().getType(), wT = getWeights().getType(),
       sT = getScales().getType(), cT = getInit().getType();
  int64_t bits = getBits(), group = getGroup();
  if (bits != 4 && bits != 8)
    return emitOpError() << "expected bits 4 or 8, got " << bits;
  int64_t rank = aT.getRank();
  if (rank < 2)
    return emitOpError() << "expected A of rank at least 2 ([batch..., M, "
                            "K]), got rank "
                         << rank;
  if (cT.getRank() != rank)
    return emitOpError() << "expected C of A's rank " << rank << ", got rank "
                         << cT.getRank();
  if (wT.getRank() != 2)
    return emitOpError() << "expected weights of rank 2 ([N, K * bits / 8]), "
                            "got rank "
                         << wT.getRank();
  int64_t k = aT.getShape().back(), n = wT.getDimSize(0);
  if (ShapedType::isDynamic(k) || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(wT.getDimSize(1)))
    return emitOpError() << "expected static K (A's last dimension, "
                         << dimStr(k) << ") and weights shape, got "
                         << wT;
  if (k == 0 || n == 0)
    return emitOpError() << "expected K and N of at least 1, got K = " << k
                         << " and N = " << n;
  if (bits == 4 && k % 2 != 0)
    return emitOpError() << "expected an even K for bits(4) (two weights a "
                            "byte), got K = "
                         << k;
  int64_t bytes = k * bits / 8;
  if (wT.getDimSize(1) != bytes)
    return emitOpError() << "expected weights [N, K * bits / 8] = [" << n
                         << ", " << bytes << "] for K = " << k << " and bits("
                         << bits << "), got " << wT;
  if (group < 1 || k % group != 0)
    return emitOpError() << "expected a group that divides K = " << k
                         << ", got " << group;
  if (bits == 4 && group % 2 != 0)
    return emitOpError() << "expected an even group for bits(4) (a byte "
                            "holds two weights of one group), got "
                         << group;
  SmallVector<int64_t> sShape = {n, k / group};
  if (sT.getShape() != ArrayRef<int64_t>(sShape))
    return emitOpError() << "expected scales [N, K / group] = [" << n << ", "
                         << k / group << "], got " << sT;
  if (Value z = getZeroPoints()) {
    auto zT = cast<RankedTensorType>(z.getType());
    if (zT != sT)
      return emitOpError() << "expected zero points of the scales' type "
                           << sT << ", got " << zT;
  }
  for (int64_t d = 0; d < rank - 1; ++d) {
    int64_t a = aT.getDimSize(d), c = cT.getDimSize(d);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(c) && a != c)
      return emitOpError() << "expected C dimension " << d << " (" << c
                           << ") to match A's (" << a << ")";
  }
  int64_t cn = cT.getShape().back();
  if (!ShapedType::isDynamic(cn) && cn != n)
    return emitOpError() << "expected C's last dimension to be N = " << n
                         << " (the weights' rows), got " << cn;
  Type cElt = cT.getElementType();
  if (!cElt.isF32() && cElt != aT.getElementType())
    return emitOpError() << "expected C of f32 or of A's element type "
                         << aT.getElementType() << ", got " << cElt;
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyElementCounts(*this)))
    return failure();
  auto inT = getInput().getType(), outT = getInit().getType();
  int64_t rank = inT.getRank();
  if (rank < 1)
    return emitOpError() << "expected an input of rank at least 1";
  if (outT.getRank() != rank)
    return emitOpError() << "expected input and output of the same rank, got "
                         << rank << " and " << outT.getRank();
  for (int64_t i = 0; i < rank; ++i)
    if (sizesConflict(inT.getDimSize(i), outT.getDimSize(i)))
      return emitOpError() << "input and output differ in dimension #" << i
                           << ": " << inT.getDimSize(i) << " vs "
                           << outT.getDimSize(i);
  int64_t dim = getDimension();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dimension " << dim
                         << " is out of range for an input of rank " << rank
                         << " (expected 0 <= dimension < " << rank << ")";
  return success();
}

/// The attention ops' scale: finite, and |scale| * log2(e) within f32 (the
/// kernels fold log2(e) into it and take exp2).
static LogicalResult verifyAttentionScale(Operation *op,
                                          std::optional<APFloat> scale) {
  if (!scale)
    return success();
  if (!scale->isFinite())
    return op->emitOpError()
           << "scale must be finite, got " << scale->convertToDouble();
  if (std::fabs(scale->convertToDouble()) * 1.4426950408889634 >
      double(std::numeric_limits<float>::max()))
    return op->emitOpError() << "scale " << scale->convertToDouble()
                             << " times log2(e) overflows f32 (the kernels "
                                "take exp2 of scale * log2(e) * Q·Kᵀ)";
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

std::optional<double> AttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  int64_t d = getQuery().getType().getDimSize(3);
  if (ShapedType::isDynamic(d))
    d = getKey().getType().getDimSize(3);
  if (ShapedType::isDynamic(d))
    return std::nullopt;
  // D = 0 has no logits to normalise; 1 keeps the scale finite.
  return d == 0 ? 1.0 : 1.0 / std::sqrt(static_cast<double>(d));
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyElementCounts(*this)))
    return failure();
  auto qT = getQuery().getType(), kT = getKey().getType(),
       vT = getValue().getType(), oT = getInit().getType();
  if (qT.getRank() != 4 || kT.getRank() != 4 || vT.getRank() != 4 ||
      oT.getRank() != 4)
    return emitOpError() << "expected Q, K, V and O of rank 4 ([B, H, S, D]), "
                            "got ranks "
                         << qT.getRank() << ", " << kT.getRank() << ", "
                         << vT.getRank() << " and " << oT.getRank();
  ArrayRef<int64_t> q = qT.getShape(), k = kT.getShape(), v = vT.getShape(),
                    o = oT.getShape();
  // Each size is carried by several operands: every pair is compared, and
  // the first static one stands for the size in the checks that follow.
  auto known = [](std::initializer_list<int64_t> carriers) {
    for (int64_t d : carriers)
      if (!ShapedType::isDynamic(d))
        return d;
    return ShapedType::kDynamic;
  };
  if (anySizesConflict({q[0], k[0], v[0], o[0]}))
    return emitOpError() << "batch mismatch: Q has B = " << dimStr(q[0])
                         << ", K has " << dimStr(k[0]) << ", V has "
                         << dimStr(v[0]) << ", O has " << dimStr(o[0]);
  if (sizesConflict(k[1], v[1]))
    return emitOpError() << "key/value head count mismatch: K has Hkv = "
                         << dimStr(k[1]) << ", V has Hkv = " << dimStr(v[1]);
  if (sizesConflict(q[3], k[3]))
    return emitOpError() << "head dimension mismatch: Q has D = "
                         << dimStr(q[3]) << ", K has D = " << dimStr(k[3]);
  if (sizesConflict(k[2], v[2]))
    return emitOpError() << "key/value sequence length mismatch: K has Skv = "
                         << dimStr(k[2]) << ", V has Skv = " << dimStr(v[2]);
  if (sizesConflict(o[1], q[1]) || sizesConflict(o[2], q[2]) ||
      sizesConflict(o[3], v[3]))
    return emitOpError() << "expected O of shape [B, Hq, Sq, Dv] = ["
                         << dimStr(known({q[0], k[0], v[0], o[0]})) << ", "
                         << dimStr(q[1]) << ", " << dimStr(q[2]) << ", "
                         << dimStr(v[3]) << "], got " << oT;
  int64_t batch = known({q[0], k[0], v[0], o[0]}), hq = known({q[1], o[1]}),
          hkv = known({k[1], v[1]}), sq = known({q[2], o[2]}),
          skv = known({k[2], v[2]});
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv)) {
    if (hkv == 0 ? hq != 0 : hq % hkv != 0)
      return emitOpError() << "query heads (Hq = " << hq
                           << ") must be a multiple of key/value heads (Hkv = "
                           << hkv << ")";
  }
  if (qT.getElementType() != kT.getElementType() ||
      qT.getElementType() != vT.getElementType())
    return emitOpError() << "Q, K and V must share one element type, got "
                         << qT.getElementType() << ", " << kT.getElementType()
                         << " and " << vT.getElementType();
  if (Value mask = getMask()) {
    auto mT = cast<RankedTensorType>(mask.getType());
    int64_t full[4] = {batch, hq, sq, skv};
    int64_t mr = mT.getRank();
    if (mr > 4)
      return emitOpError() << "mask of rank " << mr
                           << " does not broadcast to [B, Hq, Sq, Skv]";
    for (int64_t i = 0; i < mr; ++i) {
      int64_t md = mT.getDimSize(i), td = full[i + 4 - mr];
      if (md != 1 && sizesConflict(md, td))
        return emitOpError()
               << "mask " << mT << " does not broadcast to [B, Hq, Sq, Skv] = ["
               << dimStr(full[0]) << ", " << dimStr(full[1]) << ", "
               << dimStr(full[2]) << ", " << dimStr(full[3])
               << "]: mask dimension #" << i << " has size " << md
               << ", expected 1 or " << td;
    }
  }
  if (failed(verifyAttentionScale(*this, getScale())))
    return failure();
  if (getDiagonal() && !getCausal())
    return emitOpError() << "'diagonal' is only meaningful with 'causal'";
  if (std::optional<int64_t> w = getWindow()) {
    if (!getCausal())
      return emitOpError() << "'window' needs 'causal' (a window is the last "
                              "W keys of the causal band)";
    if (*w < 1 || *w > (int64_t(1) << 31))
      return emitOpError() << "window must be in [1, 2^31], got " << *w;
  }
  for (auto [name, lengths] :
       {std::pair<StringRef, Value>{"kv_lengths", getKvLengths()},
        {"q_lengths", getQLengths()}}) {
    if (!lengths)
      continue;
    int64_t n = cast<RankedTensorType>(lengths.getType()).getDimSize(0);
    if (sizesConflict(n, batch))
      return emitOpError() << name << " has " << n
                           << " entries, expected one per batch (B = " << batch
                           << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PagedAttentionOp
//===----------------------------------------------------------------------===//

double PagedAttentionOp::getEffectiveScale() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  int64_t d = getQuery().getType().getDimSize(3);
  return 1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(d, 1)));
}

LogicalResult PagedAttentionOp::verify() {
  if (failed(verifyElementCounts(*this)))
    return failure();
  auto qT = getQuery().getType(), kT = getKeyCache().getType(),
       vT = getValueCache().getType(), oT = getInit().getType();
  auto tT = getBlockTable().getType();
  auto lT = cast<RankedTensorType>(getKvLengths().getType());
  if (qT.getRank() != 4 || kT.getRank() != 4 || vT.getRank() != 4 ||
      oT.getRank() != 4)
    return emitOpError() << "expected Q [B, Hq, Sq, D], key and value pools "
                            "[P, T, Hkv, D] and O of rank 4, got ranks "
                         << qT.getRank() << ", " << kT.getRank() << ", "
                         << vT.getRank() << " and " << oT.getRank();
  ArrayRef<int64_t> q = qT.getShape(), k = kT.getShape(), v = vT.getShape(),
                    o = oT.getShape();
  // Everything but the batch B and the pool's page count P is laid out at
  // compile time (the kernels' tiles and the packing of query heads).
  struct Static {
    StringRef what;
    int64_t size;
  };
  for (Static s :
       {Static{"Hq (Q dimension #1)", q[1]},
        Static{"Sq (Q dimension #2)", q[2]}, Static{"D (Q dimension #3)", q[3]},
        Static{"the page size T (key pool dimension #1)", k[1]},
        Static{"Hkv (key pool dimension #2)", k[2]},
        Static{"D (key pool dimension #3)", k[3]},
        Static{"the page size T (value pool dimension #1)", v[1]},
        Static{"Hkv (value pool dimension #2)", v[2]},
        Static{"Dv (value pool dimension #3)", v[3]},
        Static{"N (block table dimension #1)", tT.getDimSize(1)}})
    if (ShapedType::isDynamic(s.size))
      return emitOpError() << s.what
                           << " must be static (only B and the pool's page "
                              "count P may be dynamic)";
  if (anySizesConflict({q[0], o[0], tT.getDimSize(0), lT.getDimSize(0)}))
    return emitOpError() << "batch mismatch: Q has B = " << dimStr(q[0])
                         << ", O has " << dimStr(o[0])
                         << ", the block table has " << dimStr(tT.getDimSize(0))
                         << " rows and kv_lengths " << dimStr(lT.getDimSize(0))
                         << " entries";
  // The same P, both static or both dynamic: a value pool of another size
  // would be read with the key pool's page numbers.
  if (k[0] != v[0] || k[1] != v[1] || k[2] != v[2])
    return emitOpError() << "the key pool [P, T, Hkv] = [" << dimStr(k[0])
                         << ", " << k[1] << ", " << k[2]
                         << "] and the value pool's [" << dimStr(v[0]) << ", "
                         << v[1] << ", " << v[2] << "] differ";
  if (q[3] != k[3])
    return emitOpError() << "head dimension mismatch: Q has D = " << q[3]
                         << ", the key pool has " << k[3];
  if (o[1] != q[1] || o[2] != q[2] || o[3] != v[3])
    return emitOpError() << "expected O of shape [B, Hq, Sq, Dv] = ["
                         << dimStr(q[0]) << ", " << q[1] << ", " << q[2] << ", "
                         << v[3] << "], got " << oT;
  if (k[1] < 1 || k[2] < 1 || k[3] < 1 || v[3] < 1)
    return emitOpError() << "the page size T, Hkv, D and Dv must be at least "
                            "1, got T = "
                         << k[1] << ", Hkv = " << k[2] << ", D = " << k[3]
                         << ", Dv = " << v[3];
  if (q[1] % k[2] != 0)
    return emitOpError() << "query heads (Hq = " << q[1]
                         << ") must be a multiple of key/value heads (Hkv = "
                         << k[2] << ")";
  if (qT.getElementType() != kT.getElementType() ||
      qT.getElementType() != vT.getElementType())
    return emitOpError() << "Q and the key and value pools must share one "
                            "element type, got "
                         << qT.getElementType() << ", " << kT.getElementType()
                         << " and " << vT.getElementType();
  if (failed(verifyAttentionScale(*this, getScale())))
    return failure();
  // Constant run-time data is checked now: a length the table cannot hold,
  // a page outside a pool of static size.
  int64_t pageSize = k[1], maxPages = tT.getDimSize(1);
  int64_t capacity;
  // Sequence lengths are at most 2^31, as accel.attention's.
  if (llvm::MulOverflow(pageSize, maxPages, capacity) ||
      capacity > (int64_t(1) << 31))
    return emitOpError() << "a sequence may hold N * T = " << maxPages << " * "
                         << pageSize << " tokens, more than 2^31";
  DenseIntElementsAttr lengths, table;
  SmallVector<APInt> lens;
  if (matchPattern(getKvLengths(), m_Constant(&lengths))) {
    for (auto [b, len] : llvm::enumerate(lengths.getValues<APInt>())) {
      int64_t n = len.getSExtValue();
      if (n < 0 || n > capacity)
        return emitOpError()
               << "kv_lengths[" << b << "] = " << n
               << " is outside [0, N * T] = [0, " << capacity << "] ("
               << maxPages << " pages of " << pageSize << " tokens)";
      lens.push_back(len);
    }
  }
  if (!ShapedType::isDynamic(k[0]) &&
      matchPattern(getBlockTable(), m_Constant(&table))) {
    int64_t cols = maxPages;
    for (auto [i, page] : llvm::enumerate(table.getValues<APInt>())) {
      int64_t b = cols ? int64_t(i) / cols : 0,
              n = cols ? int64_t(i) % cols : 0;
      // Without constant lengths every entry may be read.
      if (!lens.empty() && n * pageSize >= lens[b].getSExtValue())
        continue;
      int64_t p = page.getSExtValue();
      if (p < 0 || p >= k[0])
        return emitOpError() << "block_table[" << b << ", " << n << "] = " << p
                             << " is outside the pool's " << k[0] << " pages";
    }
  }
  return success();
}
