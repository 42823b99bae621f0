//===- CpuDequantKernels.cpp - accel-cpu-dequant-kernels ------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel.dequant_matmul's CPU kernel. convert-accel-to-linalg leaves one
// linalg.generic marked kDequantMatmulAttrName; on buffers, this pass
// replaces it with a register-tiled loop nest in the vector dialect:
//
//   - A [M, K] is converted once to f32 (a copy [M, K]); for int4 each chunk
//     of 32 K is reordered to its 16 even then its 16 odd elements, the
//     order in which the low and high nibbles of 16 weight bytes come out,
//     so the weights are never interleaved;
//   - a tile of mr rows of A x nr rows of W keeps mr x nr accumulators of
//     16 f32; per group of `group` K the nr scales (and zero points) are
//     broadcast once; per chunk of 32 K each of the nr weight rows is loaded
//     (16 bytes for int4, 32 for int8), unpacked, converted and dequantised
//     in registers by the op's rule, w = f32(f32(q - z) * s), and used by the
//     mr rows: two FMAs per accumulator;
//   - cpu-dequant-lut (int4 on AVX-512): per group each weight row's 16
//     possible dequantised values form a table of 16 f32, and a chunk's
//     weights come out of it by vpermps indexed with the zero-extended
//     bytes (low nibbles) and the bytes shifted right by 4 (high nibbles):
//     one instruction unpacks, converts and dequantises 16 weights;
//   - at the end of K each accumulator is summed across its lanes into C.
//
// So the weights are read once per tile of mr rows, in their packed form:
// at M = 1 a decode step reads 4.0 / 8.0 bits a weight plus the scales.
// The remainders of M and N are 1-row tiles; with `threads`, the whole
// tiles of nr weight rows are the tasks of an scf.forall.
//
//===----------------------------------------------------------------------===//

#include "BufferAccess.h"
#include "DotGemm.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUDEQUANTKERNELSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

/// A 2-D buffer whose rows are contiguous.
bool contiguousRows(Type type) {
  auto t = dyn_cast<MemRefType>(type);
  return t && t.getRank() == 2 && accel::unitInnerStride(t);
}

/// The generic convert-accel-to-linalg made of an accel.dequant_matmul, on
/// buffers.
struct DequantGemm {
  linalg::GenericOp op;
  Value a, w, s, z, c;
  int64_t n, k, bits, group;
  bool isUnsigned;
};

std::optional<DequantGemm> matchDequant(linalg::GenericOp op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(
      accel::kDequantMatmulAttrName);
  if (!dict || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return std::nullopt;
  auto bits = dict.getAs<IntegerAttr>("bits");
  auto group = dict.getAs<IntegerAttr>("group");
  auto isUnsigned = dict.getAs<BoolAttr>("unsigned");
  auto zeroPoints = dict.getAs<BoolAttr>("zero_points");
  if (!bits || !group || !isUnsigned || !zeroPoints)
    return std::nullopt;
  unsigned inputs = zeroPoints.getValue() ? 4 : 3;
  if (op.getNumDpsInputs() != inputs)
    return std::nullopt;
  DequantGemm g;
  g.op = op;
  g.a = op.getDpsInputOperand(0)->get();
  g.w = op.getDpsInputOperand(1)->get();
  g.s = op.getDpsInputOperand(2)->get();
  if (zeroPoints.getValue())
    g.z = op.getDpsInputOperand(3)->get();
  g.c = op.getDpsInitOperand(0)->get();
  for (Value v : {g.a, g.w, g.s, g.z, g.c})
    if (v && !contiguousRows(v.getType()))
      return std::nullopt;
  auto aT = cast<MemRefType>(g.a.getType());
  auto wT = cast<MemRefType>(g.w.getType());
  auto cT = cast<MemRefType>(g.c.getType());
  if (!cT.getElementType().isF32() || aT.isDynamicDim(1) ||
      wT.isDynamicDim(0))
    return std::nullopt;
  g.k = aT.getDimSize(1);
  g.n = wT.getDimSize(0);
  g.bits = bits.getInt();
  g.group = group.getInt();
  g.isUnsigned = isUnsigned.getValue();
  if ((g.bits != 4 && g.bits != 8) || g.group <= 0 || g.k % 32 != 0 ||
      g.group % 32 != 0 || g.k % g.group != 0)
    return std::nullopt;
  return g;
}

/// `x` (a float or a vector of floats) extended to f32.
Value extendToF32(OpBuilder &b, Location loc, Value x) {
  if (getElementTypeOrSelf(x.getType()).isF32())
    return x;
  Type t = b.getF32Type();
  if (auto v = dyn_cast<VectorType>(x.getType()))
    t = VectorType::get(v.getShape(), t);
  return arith::ExtFOp::create(b, loc, t, x);
}

struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  const DequantGemm &g;
  accel::CpuDequantTiles tiles;
  Type f32 = b.getF32Type();
  VectorType v16 = VectorType::get({16}, b.getF32Type());

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, idx(y));
  }
  Value toF32(Value x) { return extendToF32(b, loc, x); }

  /// A' [M, K] in f32, each 32-chunk even-then-odd for int4.
  Value convertA(Value rows) {
    auto aT = cast<MemRefType>(g.a.getType());
    auto type = MemRefType::get({ShapedType::kDynamic, g.k}, f32);
    Value copy = memref::AllocOp::create(b, loc, type, ValueRange{rows},
                                         b.getI64IntegerAttr(64));
    auto mLoop = scf::ForOp::create(b, loc, idx(0), rows, idx(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(mLoop.getBody());
    auto cLoop = scf::ForOp::create(b, loc, idx(0), idx(g.k), idx(32));
    b.setInsertionPointToStart(cLoop.getBody());
    Value m = mLoop.getInductionVar(), k = cLoop.getInductionVar();
    Value v = vector::LoadOp::create(
        b, loc, VectorType::get({32}, aT.getElementType()), g.a,
        ValueRange{m, k});
    v = toF32(v);
    if (g.bits == 4) {
      SmallVector<int64_t> order;
      for (int64_t i = 0; i < 32; i += 2)
        order.push_back(i);
      for (int64_t i = 1; i < 32; i += 2)
        order.push_back(i);
      v = vector::ShuffleOp::create(b, loc, v, v, order);
    }
    vector::StoreOp::create(b, loc, v, copy, ValueRange{m, k});
    return copy;
  }

  /// An i8 vector of 16 bytes as f32 weights: two's complement, or
  /// unsigned.
  Value bytesToF32(Value q) {
    return g.isUnsigned ? Value(arith::UIToFPOp::create(b, loc, v16, q))
                        : Value(arith::SIToFPOp::create(b, loc, v16, q));
  }

  /// The f32 weights of row `n` at K offset `k` (a multiple of 32): the 16
  /// even and the 16 odd ones for int4, the first and last 16 for int8.
  std::pair<Value, Value> weights(Value n, Value k) {
    auto bytes = VectorType::get({16}, b.getI8Type());
    if (g.bits == 8) {
      Value lo = vector::LoadOp::create(b, loc, bytes, g.w, ValueRange{n, k});
      Value hi = vector::LoadOp::create(b, loc, bytes, g.w,
                                        ValueRange{n, add(k, idx(16))});
      return {bytesToF32(lo), bytesToF32(hi)};
    }
    Value half = arith::DivUIOp::create(b, loc, k, idx(2));
    Value packed =
        vector::LoadOp::create(b, loc, bytes, g.w, ValueRange{n, half});
    auto splat = [&](int64_t v) {
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(v)));
    };
    Value lo, hi;
    if (g.isUnsigned) {
      lo = arith::AndIOp::create(b, loc, packed, splat(0xf));
      hi = arith::ShRUIOp::create(b, loc, packed, splat(4));
    } else {
      lo = arith::ShRSIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, packed, splat(4)), splat(4));
      hi = arith::ShRSIOp::create(b, loc, packed, splat(4));
    }
    return {bytesToF32(lo), bytesToF32(hi)};
  }

  /// cpu-dequant-lut (int4): the dequantised weights of row `n` at K
  /// offset `k` looked up in the group's `table` by vpermps, which reads
  /// only the low 4 bits of each 32-bit index: the zero-extended bytes
  /// select by their low nibbles (the even K), the bytes shifted right by 4
  /// by their high ones (the odd K).
  std::pair<Value, Value> lookUp(Value table, Value n, Value k) {
    auto bytes = VectorType::get({16}, b.getI8Type());
    auto words = VectorType::get({16}, b.getI32Type());
    Value half = arith::DivUIOp::create(b, loc, k, idx(2));
    Value packed =
        vector::LoadOp::create(b, loc, bytes, g.w, ValueRange{n, half});
    Value index = arith::ExtUIOp::create(b, loc, words, packed);
    Value four = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(words, b.getI32IntegerAttr(4)));
    Value high = arith::ShRUIOp::create(b, loc, index, four);
    return {accel::X86PermuteF32Op::create(b, loc, v16, table, index),
            accel::X86PermuteF32Op::create(b, loc, v16, table, high)};
  }

  /// C[m0 .. m0 + mr, n0 .. n0 + nr] = A'[m0.., :] · w[n0.., :]ᵀ.
  void tile(Value aF32, Value m0, int64_t mr, Value n0, int64_t nr) {
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v16, b.getF32FloatAttr(0.0f)));
    SmallVector<Value> init(mr * nr, zero);
    int64_t groups = g.k / g.group;
    auto gLoop = scf::ForOp::create(b, loc, idx(0), idx(groups), idx(1), init);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(gLoop.getBody());
      Value gi = gLoop.getInductionVar();
      SmallVector<Value> scale(nr), point(nr), table(nr);
      for (int64_t j = 0; j < nr; ++j) {
        Value n = add(n0, idx(j));
        scale[j] = vector::BroadcastOp::create(
            b, loc, v16,
            toF32(memref::LoadOp::create(b, loc, g.s, ValueRange{n, gi})));
        if (g.z)
          point[j] = vector::BroadcastOp::create(
              b, loc, v16,
              toF32(memref::LoadOp::create(b, loc, g.z, ValueRange{n, gi})));
        if (tiles.lut) {
          // The 16 dequantised values of the group, lane i for the nibble
          // i: f32(f32(q - z) * s) with q = i (unsigned) or i - 16 for
          // i >= 8 (two's complement).
          SmallVector<float> q;
          for (int64_t i = 0; i < 16; ++i)
            q.push_back(float(g.isUnsigned || i < 8 ? i : i - 16));
          Value t = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(v16, ArrayRef<float>(q)));
          if (g.z)
            t = arith::SubFOp::create(b, loc, t, point[j]);
          table[j] = arith::MulFOp::create(b, loc, t, scale[j]);
        }
      }
      Value k0 = mul(gi, g.group);
      auto cLoop = scf::ForOp::create(b, loc, idx(0), idx(g.group), idx(32),
                                      gLoop.getRegionIterArgs());
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(cLoop.getBody());
        Value k = add(k0, cLoop.getInductionVar());
        SmallVector<Value> a0(mr), a1(mr);
        for (int64_t i = 0; i < mr; ++i) {
          Value m = add(m0, idx(i));
          a0[i] = vector::LoadOp::create(b, loc, v16, aF32, ValueRange{m, k});
          a1[i] = vector::LoadOp::create(b, loc, v16, aF32,
                                         ValueRange{m, add(k, idx(16))});
        }
        SmallVector<Value> acc(cLoop.getRegionIterArgs());
        // The weights stream from memory once: ask for the next tile's rows
        // (nr rows on, the same columns) while this tile works on its own,
        // so 2 nr rows' lines are in flight rather than the nr the loads
        // alone keep (cold int4 GEMV at M = 1: 0.48 -> see
        // docs/quantization.md). Rows past N ask for the last row.
        Value byteCol = g.bits == 4 ? Value(arith::DivUIOp::create(b, loc, k,
                                                                   idx(2)))
                                    : k;
        for (int64_t j = 0; j < nr; ++j) {
          Value ahead = arith::MinUIOp::create(
              b, loc, add(n0, idx(nr + j)), idx(g.n - 1));
          memref::PrefetchOp::create(b, loc, g.w, ValueRange{ahead, byteCol},
                                     /*isWrite=*/false, /*localityHint=*/3,
                                     /*isDataCache=*/true);
        }
        for (int64_t j = 0; j < nr; ++j) {
          Value w0, w1;
          if (tiles.lut) {
            std::tie(w0, w1) = lookUp(table[j], add(n0, idx(j)), k);
          } else {
            std::tie(w0, w1) = weights(add(n0, idx(j)), k);
            auto dequant = [&](Value q) {
              if (g.z)
                q = arith::SubFOp::create(b, loc, q, point[j]);
              return arith::MulFOp::create(b, loc, q, scale[j]);
            };
            w0 = dequant(w0);
            w1 = dequant(w1);
          }
          for (int64_t i = 0; i < mr; ++i) {
            Value &c = acc[i * nr + j];
            c = vector::FMAOp::create(b, loc, a0[i], w0, c);
            c = vector::FMAOp::create(b, loc, a1[i], w1, c);
          }
        }
        scf::YieldOp::create(b, loc, acc);
      }
      scf::YieldOp::create(b, loc, cLoop.getResults());
    }
    for (int64_t i = 0; i < mr; ++i)
      for (int64_t j = 0; j < nr; ++j) {
        Value sum = vector::ReductionOp::create(
            b, loc, f32, vector::CombiningKind::ADD,
            gLoop.getResult(i * nr + j), Value(),
            arith::FastMathFlags::reassoc);
        memref::StoreOp::create(b, loc, sum, g.c,
                                ValueRange{add(m0, idx(i)), add(n0, idx(j))});
      }
  }

  /// Every row of A against W rows n0 .. n0 + nr.
  void rowBlock(Value aF32, Value rows, Value n0, int64_t nr) {
    int64_t mr = tiles.mr;
    Value whole = mul(arith::DivUIOp::create(b, loc, rows, idx(mr)), mr);
    {
      auto loop = scf::ForOp::create(b, loc, idx(0), whole, idx(mr));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      tile(aF32, loop.getInductionVar(), mr, n0, nr);
    }
    if (mr > 1) {
      auto loop = scf::ForOp::create(b, loc, whole, rows, idx(1));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      tile(aF32, loop.getInductionVar(), 1, n0, nr);
    }
  }

  void build(bool parallel) {
    Value rows = memref::DimOp::create(b, loc, g.a, 0);
    Value aF32 = convertA(rows);
    int64_t nr = tiles.nr, blocks = g.n / nr, rest = g.n % nr;
    if (blocks > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value nb = accel::openLoop(b, loc, blocks, parallel && blocks > 1);
      rowBlock(aF32, rows, mul(nb, nr), nr);
    }
    if (rest > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value j = accel::openLoop(b, loc, rest, false);
      rowBlock(aF32, rows, add(idx(blocks * nr), j), 1);
    }
    // (The buffer-deallocation pipeline frees aF32 after its last use.)
  }
};

/// cpu-dequant-amx's kernel: int4 or int8 weights times bf16 A on AMX
/// tiles, W the left operand of each tdpbf16ps (16 weight rows of 32 K,
/// unpacked into memory as exact bf16 integers q - z), A the right one
/// (packed once into AMX's pairs: [K / 2, 16 rows] of bf16 pairs), a
/// 16 x 16 f32 tile of C-transposed sums per chunk of K, scaled into 16
/// accumulators of 16 f32 (one per weight row, a lane per row of A). See
/// the pass description.
struct AmxKernelBuilder {
  struct Buffers {
    Value wbuf, part, offsets, scales;
    /// Several blocks of A (tileBlocks): two chunks' tiles and the
    /// accumulators of each block.
    Value partM, accM;
  };
  OpBuilder &b;
  Location loc;
  const DequantGemm &g;
  int64_t threads;
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type(), i32 = b.getI32Type(),
       i16 = b.getI16Type();
  VectorType v16 = VectorType::get({16}, f32);
  VectorType w16 = VectorType::get({16}, i32);
  VectorType halves = VectorType::get({32}, i16);
  amx::TileType inTile = amx::TileType::get({16, 32}, bf16);
  amx::TileType accTile = amx::TileType::get({16, 16}, f32);
  int64_t groups = g.k / g.group;
  /// Tile products per chunk of K: 4 (a 64-byte line of each weight row)
  /// when they divide the group, else 2 or 1 (a chunk never spans two
  /// groups).
  int64_t steps = (g.group / 32) % 4 == 0 ? 4 : (g.group / 32) % 2 == 0 ? 2 : 1;
  /// The stored weights' range.
  int64_t levels = int64_t(1) << g.bits;
  int64_t qmin = g.isUnsigned ? 0 : -levels / 2;
  int64_t qmax = qmin + levels - 1;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, idx(y));
  }
  Value splatI32(int64_t v) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(w16, b.getI32IntegerAttr(v)));
  }
  Value toF32(Value x) { return extendToF32(b, loc, x); }

  /// Whether the kernel's rounding order is the op's: every zero point is
  /// an integer in the weights' own range [qmin, qmax] (as GPTQ and AWQ
  /// store them; then q - z is an integer in [-15, 15] (int4) or
  /// [-255, 255] (int8), which bf16 holds exactly: its 8-bit significand
  /// holds every integer up to 256), and every scale is finite and at most
  /// 2^120 in magnitude (then no product (q - z) * s overflows, and a
  /// chunk's sum times s is what the products sum to; an infinite scale
  /// would give inf where q = z makes the op's product NaN). Checked once a
  /// call.
  Value operandsExact() {
    auto i1 = b.getI1Type();
    Value all = arith::ConstantIntOp::create(b, loc, i1, 1);
    if (g.z)
      all = arith::AndIOp::create(
          b, loc, all, allOf(g.z, [&](Value z, Type t, auto cst) -> Value {
            // z clamped to the range, through an integer and back: z itself
            // only when it is an integer in the range (NaN clamps to a
            // bound).
            auto vt = dyn_cast<VectorType>(t);
            Type it = vt ? Type(VectorType::get(vt.getShape(), i32)) : i32;
            Value c = arith::MinNumFOp::create(
                b, loc, arith::MaxNumFOp::create(b, loc, z, cst(float(qmin))),
                cst(float(qmax)));
            Value back = arith::SIToFPOp::create(
                b, loc, t, arith::FPToSIOp::create(b, loc, it, c));
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         back, z);
          }));
    return arith::AndIOp::create(
        b, loc, all, allOf(g.s, [&](Value s, Type t, auto cst) -> Value {
          // |s| <= 2^120 (false for NaN and infinities).
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                       math::AbsFOp::create(b, loc, s),
                                       cst(std::ldexp(1.0f, 120)));
        }));
  }

  /// Whether `ok` holds for every element of the 2-D `values` (converted to
  /// f32): 16 at a time when its rows are contiguous, else one at a time.
  /// `ok(v, type, cst)` gets a value of `type` (f32 or vector<16xf32>) and
  /// `cst(x)` makes a constant of that type.
  template <typename Ok> Value allOf(Value values, Ok ok) {
    auto i1 = b.getI1Type();
    auto vT = cast<MemRefType>(values.getType());
    int64_t count = vT.getNumElements();
    auto cstOf = [&](Type t) {
      return [&, t](float v) -> Value {
        if (auto vt = dyn_cast<VectorType>(t))
          return arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(vt, b.getF32FloatAttr(v)));
        return arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                              APFloat(v));
      };
    };
    Value flat = values;
    SmallVector<ReassociationIndices> both{{0, 1}};
    bool collapsible =
        memref::CollapseShapeOp::isGuaranteedCollapsible(vT, both);
    Value result = arith::ConstantIntOp::create(b, loc, i1, 1);
    int64_t vectors = collapsible ? count / 16 : 0;
    if (collapsible)
      flat = memref::CollapseShapeOp::create(b, loc, values, both);
    if (vectors > 0) {
      auto mask = VectorType::get({16}, i1);
      Value init = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(mask, b.getBoolAttr(true)));
      auto loop = scf::ForOp::create(b, loc, idx(0), idx(vectors * 16), idx(16),
                                     ValueRange{init});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value v = toF32(vector::LoadOp::create(
            b, loc, VectorType::get({16}, vT.getElementType()), flat,
            ValueRange{loop.getInductionVar()}));
        Value each = arith::AndIOp::create(b, loc, loop.getRegionIterArgs()[0],
                                           ok(v, v16, cstOf(v16)));
        scf::YieldOp::create(b, loc, each);
      }
      result = vector::ReductionOp::create(b, loc, vector::CombiningKind::AND,
                                           loop.getResult(0));
    }
    // The rest one at a time (all of it when the rows are not contiguous).
    auto scalar = [&](ValueRange at) {
      return ok(toF32(memref::LoadOp::create(b, loc, flat, at)), f32,
                cstOf(f32));
    };
    auto loopAnd = [&](Value begin, Value end, auto body) {
      auto loop =
          scf::ForOp::create(b, loc, begin, end, idx(1), ValueRange{result});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value each = arith::AndIOp::create(b, loc, loop.getRegionIterArgs()[0],
                                         body(loop.getInductionVar()));
      scf::YieldOp::create(b, loc, each);
      return loop.getResult(0);
    };
    if (collapsible) {
      if (vectors * 16 < count)
        result = loopAnd(idx(vectors * 16), idx(count),
                         [&](Value i) { return scalar(ValueRange{i}); });
      return result;
    }
    int64_t cols = vT.getDimSize(1);
    return loopAnd(idx(0), idx(vT.getDimSize(0) * cols), [&](Value i) {
      Value r = arith::DivUIOp::create(b, loc, i, idx(cols));
      Value c = arith::RemUIOp::create(b, loc, i, idx(cols));
      return scalar(ValueRange{r, c});
    });
  }

  /// A's rows in AMX's pairs, per block of 16 rows:
  /// packed[mb, kp, 2 m + h] = A[16 mb + m, 2 kp + h], zeros past M. Per 32
  /// K, the 16 rows' pairs (a 16 x 16 block of 32-bit lanes) are
  /// transposed in registers (vector.transpose, lowered to shuffles by
  /// the pass: lowerWordTransposes); rows past M read the last row
  /// and are replaced by zeros.
  Value packA(Value rows, Value blocks) {
    auto type = MemRefType::get({ShapedType::kDynamic, g.k / 2, 32}, bf16);
    Value packed = memref::AllocOp::create(b, loc, type, ValueRange{blocks},
                                           b.getI64IntegerAttr(64));
    auto aType = cast<MemRefType>(g.a.getType());
    auto bLoop = scf::ForOp::create(b, loc, idx(0), blocks, idx(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(bLoop.getBody());
    Value mb = bLoop.getInductionVar();
    auto kLoop = scf::ForOp::create(b, loc, idx(0), idx(g.k), idx(32));
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    Value lastRow = arith::SubIOp::create(b, loc, rows, idx(1));
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(w16, b.getI32IntegerAttr(0)));
    SmallVector<Value> block;
    for (int64_t m = 0; m < 16; ++m) {
      Value row = add(mul(mb, 16), m);
      Value inA =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
      Value v = vector::BitCastOp::create(
          b, loc, w16,
          vector::LoadOp::create(
              b, loc, VectorType::get({32}, aType.getElementType()), g.a,
              ValueRange{arith::MinUIOp::create(b, loc, row, lastRow), k}));
      block.push_back(arith::SelectOp::create(b, loc, inA, v, zeros));
    }
    Value kp = arith::DivUIOp::create(b, loc, k, idx(2));
    for (auto [j, pairs] :
         llvm::enumerate(accel::transposeWords(b, loc, block))) {
      vector::StoreOp::create(
          b, loc,
          vector::BitCastOp::create(b, loc, VectorType::get({32}, bf16), pairs),
          packed, ValueRange{mb, add(kp, j), idx(0)});
    }
    return packed;
  }

  /// The lookup table: lane i holds bf16(i - 16) with zero points (the
  /// index is q - z + 16), else bf16(q) for the nibble i, repeated in lanes
  /// 16-31.
  Value table() {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < 32; ++i) {
      int64_t v =
          g.z ? i - 16 : (g.isUnsigned || i % 16 < 8 ? i % 16 : i % 16 - 16);
      APFloat f(static_cast<double>(v));
      bool lost;
      f.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(f);
    }
    Value t = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(VectorType::get({32}, bf16), values));
    return vector::BitCastOp::create(b, loc, halves, t);
  }

  /// A tile's zero points as 16 - z or, signed, 8 - z (int4: i16, the
  /// offset of the table's index) or z in f32 (int8), and its scales in f32,
  /// [16, groups] each, for `nValid` rows from n0.
  void tileOperands(Value n0, int64_t nValid, Value offsets, Value scales) {
    auto sT = cast<MemRefType>(g.s.getType());
    int64_t vec = groups % 16 == 0 ? 16 : 1;
    auto rLoop = scf::ForOp::create(b, loc, idx(0), idx(nValid), idx(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rLoop.getBody());
    Value r = rLoop.getInductionVar();
    Value n = add(n0, r);
    auto gLoop = scf::ForOp::create(b, loc, idx(0), idx(groups), idx(vec));
    b.setInsertionPointToStart(gLoop.getBody());
    Value gi = gLoop.getInductionVar();
    auto load = [&](Value from, Type elt) -> Value {
      if (vec == 1)
        return toF32(memref::LoadOp::create(b, loc, from, ValueRange{n, gi}));
      return toF32(vector::LoadOp::create(b, loc, VectorType::get({vec}, elt),
                                          from, ValueRange{n, gi}));
    };
    auto store = [&](Value v, Value to) {
      if (vec == 1)
        memref::StoreOp::create(b, loc, v, to, ValueRange{r, gi});
      else
        vector::StoreOp::create(b, loc, v, to, ValueRange{r, gi});
    };
    store(load(g.s, sT.getElementType()), scales);
    if (!g.z)
      return;
    auto zT = cast<MemRefType>(g.z.getType());
    Value z = load(g.z, zT.getElementType());
    if (g.bits == 8) {
      store(z, offsets);
      return;
    }
    Type it = vec == 1 ? Type(i32) : Type(VectorType::get({vec}, i32));
    Type ht = vec == 1 ? Type(i16) : Type(VectorType::get({vec}, i16));
    // The index is q - z + 16: the nibble plus 16 - z (unsigned), or, as
    // the nibble of a signed q is q + 16 below 0, the nibble xor 8 (q + 8)
    // plus 8 - z (unpackRow).
    int64_t base = g.isUnsigned ? 16 : 8;
    Value first = vec == 1
                      ? Value(arith::ConstantIntOp::create(b, loc, i32, base))
                      : Value(arith::ConstantOp::create(
                            b, loc,
                            DenseElementsAttr::get(cast<ShapedType>(it),
                                                   b.getI32IntegerAttr(base))));
    Value offset = arith::SubIOp::create(
        b, loc, first, arith::FPToSIOp::create(b, loc, it, z));
    store(arith::TruncIOp::create(b, loc, ht, offset), offsets);
  }

  /// The 32 bf16 values q - z of row `r` of `rowsOfW` (a view of W's
  /// rows) at K offset `k` into `wbuf` at `at`, looked up in `table` by one
  /// vpermw (which reads the low 5 bits of each 16-bit lane). Each byte,
  /// zero-extended to 32 bits and or-ed with itself shifted left by 12, holds
  /// its low nibble (weight k) in its low 16 bits and its high nibble (weight k
  /// + 1) in bits 16-19: the pair in AMX's order. Without zero points the table
  /// repeats after 16, so the bits above a nibble do not matter; with them the
  /// nibbles are masked (signed: and xor-ed with 8, giving q + 8) and
  /// `offset` (16 - z, signed 8 - z, in each lane) added: the index is
  /// q - z + 16, in [1, 31].
  void unpackRow(Value table, Value offset, Value rowsOfW, int64_t r, Value k,
                 Value wbuf, ValueRange at) {
    auto bytes = VectorType::get({16}, b.getI8Type());
    Value half = arith::DivUIOp::create(b, loc, k, idx(2));
    Value packed = vector::LoadOp::create(b, loc, bytes, rowsOfW,
                                          ValueRange{idx(r), half});
    Value word = arith::ExtUIOp::create(b, loc, w16, packed);
    Value spread = arith::OrIOp::create(
        b, loc, word, arith::ShLIOp::create(b, loc, word, splatI32(12)));
    if (offset)
      spread = arith::AndIOp::create(b, loc, spread, splatI32(0x000f000f));
    if (offset && !g.isUnsigned)
      spread = arith::XOrIOp::create(b, loc, spread, splatI32(0x00080008));
    Value index = vector::BitCastOp::create(b, loc, halves, spread);
    if (offset)
      index = arith::AddIOp::create(b, loc, index, offset);
    Value pairs = accel::X86PermuteI16Op::create(b, loc, halves, table, index);
    vector::StoreOp::create(
        b, loc,
        vector::BitCastOp::create(b, loc, VectorType::get({32}, bf16), pairs),
        wbuf, at);
  }

  /// int8: the 32 bf16 values q - z of row `r` of `rowsOfW` at K offset
  /// `k` into `wbuf` at `at`: 32 bytes sign- or zero-extended, converted
  /// to f32, less `z` (16 lanes of the row's zero point, or null), rounded
  /// to bf16 (exactly: integers of at most 255 in magnitude; vcvtne2ps2bf16
  /// keeps K's order).
  void unpackRow8(Value z, Value rowsOfW, int64_t r, Value k, Value wbuf,
                  ValueRange at) {
    auto bytes = VectorType::get({32}, b.getI8Type());
    auto words = VectorType::get({32}, i32);
    auto floats = VectorType::get({32}, f32);
    Value q =
        vector::LoadOp::create(b, loc, bytes, rowsOfW, ValueRange{idx(r), k});
    Value f =
        g.isUnsigned
            ? Value(arith::UIToFPOp::create(
                  b, loc, floats, arith::ExtUIOp::create(b, loc, words, q)))
            : Value(arith::SIToFPOp::create(
                  b, loc, floats, arith::ExtSIOp::create(b, loc, words, q)));
    if (z)
      f = arith::SubFOp::create(b, loc, f, z);
    vector::StoreOp::create(
        b, loc, arith::TruncFOp::create(b, loc, VectorType::get({32}, bf16), f),
        wbuf, at);
  }

  /// What a tile's chunk loop reads: W's rows of this tile and of the
  /// next one (for the prefetch) as views from their first row (each row's
  /// address a constant offset from one base), the int4 table, and K's
  /// chunks of `steps` x 32 (at most 128: a 64-byte line of each weight
  /// row, and never past a group).
  struct TileRows {
    Value mine, next, lookup;
    int64_t width, chunkK, chunks;
  };
  TileRows tileRows(Value n0, int64_t width) {
    auto rowsFrom = [&](Value first) -> Value {
      auto st = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
      return memref::SubViewOp::create(
          b, loc, g.w, ArrayRef<OpFoldResult>{first, st(0)},
          ArrayRef<OpFoldResult>{
              st(width), st(cast<MemRefType>(g.w.getType()).getDimSize(1))},
          ArrayRef<OpFoldResult>{st(1), st(1)});
    };
    TileRows t;
    t.width = width;
    t.chunkK = 32 * steps;
    t.chunks = g.k / t.chunkK;
    t.mine = rowsFrom(n0);
    // The last tile asks for its own rows.
    t.next = rowsFrom(arith::MinUIOp::create(
        b, loc, add(n0, width), idx(std::max<int64_t>(g.n - width, 0))));
    t.lookup = g.bits == 4 ? table() : Value();
    return t;
  }
  Value slotOf(Value t) {
    return arith::RemUIOp::create(b, loc, t, idx(2)).getResult();
  }
  Value groupOf(const TileRows &rows, Value t) {
    return arith::DivUIOp::create(b, loc, mul(t, rows.chunkK), idx(g.group))
        .getResult();
  }

  /// U(t): chunk t of the tile's weight rows unpacked into slot t % 2 of
  /// `wbuf`, the next tile's rows at the same columns prefetched into L2
  /// (one tile ahead: a decode step's weights stream from memory once).
  void unpackChunk(const TileRows &rows, Value t, const Buffers &buf) {
    Value k = mul(t, rows.chunkK);
    Value byteCol =
        g.bits == 4 ? arith::DivUIOp::create(b, loc, k, idx(2)).getResult() : k;
    Value slot = slotOf(t), gi = groupOf(rows, t);
    for (int64_t r = 0; r < rows.width; ++r) {
      for (int64_t line = 0; line < rows.chunkK * g.bits / 8; line += 64)
        memref::PrefetchOp::create(b, loc, rows.next,
                                   ValueRange{idx(r), add(byteCol, line)},
                                   /*isWrite=*/false, /*localityHint=*/2,
                                   /*isDataCache=*/true);
      Value offset;
      if (g.z)
        offset = vector::BroadcastOp::create(
            b, loc, g.bits == 4 ? halves : VectorType::get({32}, f32),
            memref::LoadOp::create(b, loc, buf.offsets,
                                   ValueRange{idx(r), gi}));
      for (int64_t st = 0; st < steps; ++st) {
        SmallVector<Value> where{slot, idx(st), idx(r), idx(0)};
        if (g.bits == 4)
          unpackRow(rows.lookup, offset, rows.mine, r, add(k, 32 * st),
                    buf.wbuf, where);
        else
          unpackRow8(offset, rows.mine, r, add(k, 32 * st), buf.wbuf, where);
      }
    }
  }

  /// T(t) for block `mb` of A: chunk t's unpacked weights (slot t % 2)
  /// times A's pairs, summed into a zeroed tile.
  Value multiplyChunk(const TileRows &rows, Value packed, Value mb, Value t,
                      const Buffers &buf) {
    Value slot = slotOf(t);
    Value kp = mul(t, rows.chunkK / 2);
    Value c = amx::TileZeroOp::create(b, loc, accTile);
    for (int64_t st = 0; st < steps; ++st) {
      Value wt =
          amx::TileLoadOp::create(b, loc, inTile, buf.wbuf,
                                  ValueRange{slot, idx(st), idx(0), idx(0)});
      Value at = amx::TileLoadOp::create(
          b, loc, inTile, packed, ValueRange{mb, add(kp, 16 * st), idx(0)});
      c = amx::TileMulFOp::create(b, loc, accTile, wt, at, c);
    }
    return c;
  }

  /// The tile's scale of weight row `r` in chunk t's group, in 16 lanes.
  Value scaleOf(const TileRows &rows, const Buffers &buf, int64_t r,
                Value t) {
    return vector::BroadcastOp::create(
        b, loc, v16,
        memref::LoadOp::create(b, loc, buf.scales,
                               ValueRange{idx(r), groupOf(rows, t)}));
  }

  /// C's rows [16 mb, 16 mb + 16) (those below `rows`) at columns n0 ..
  /// n0 + width from `sums` [.., 16 weight rows, 16 rows of A] at
  /// sums[at.., r, m]: a gather of 16 (one per weight row) for each row of
  /// A.
  void storeC(Value sums, ValueRange at, Value mb, Value rows, Value n0,
              int64_t width) {
    OpBuilder::InsertionGuard guard(b);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v16, b.getF32FloatAttr(0.0f)));
    Value row0 = mul(mb, 16);
    Value end = arith::MinUIOp::create(
        b, loc, idx(16), arith::SubIOp::create(b, loc, rows, row0));
    auto mLoop = scf::ForOp::create(b, loc, idx(0), end, idx(1));
    b.setInsertionPointToStart(mLoop.getBody());
    Value m = mLoop.getInductionVar();
    SmallVector<int32_t> strides;
    for (int32_t r = 0; r < 16; ++r)
      strides.push_back(16 * r);
    Value index = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(w16, ArrayRef<int32_t>(strides)));
    SmallVector<bool> lanes;
    for (int64_t r = 0; r < 16; ++r)
      lanes.push_back(r < width);
    Value valid = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(VectorType::get({16}, b.getI1Type()),
                               ArrayRef<bool>(lanes)));
    SmallVector<Value> from(at.begin(), at.end());
    from.append({idx(0), m});
    Value col =
        vector::GatherOp::create(b, loc, v16, sums, from, index, valid, zero);
    Value cRow = add(row0, m);
    if (width == 16)
      vector::StoreOp::create(b, loc, col, g.c, ValueRange{cRow, n0});
    else
      vector::MaskedStoreOp::create(b, loc, g.c, ValueRange{cRow, n0}, valid,
                                    col);
  }

  /// C[0 .., n0 .. n0 + width] for at most 16 rows of A (one block), for
  /// `width` <= 16 weight rows.
  ///
  /// Step t runs U(t), T(t) with its tile stored at once to slot t % 2 of
  /// `part`, and E(t - 1): the slot's sums times their group's scales
  /// added into 16 accumulators in registers (one per weight row, a lane
  /// per row of A). The vector loads of E do not wait for the tile store
  /// just issued (they do not forward from it). Deeper pipelines (T a step
  /// behind U, the tile store another) were 5-10 % slower on Sapphire
  /// Rapids (docs/quantization.md).
  void tile(Value packed, Value rows, Value n0, int64_t width,
            const Buffers &buf) {
    tileOperands(n0, width, buf.offsets, buf.scales);
    OpBuilder::InsertionGuard guard(b);
    Value mb = idx(0);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v16, b.getF32FloatAttr(0.0f)));
    TileRows tr = tileRows(n0, width);
    auto accumulate = [&](Value t, SmallVector<Value> acc) {
      Value slot = slotOf(t);
      for (int64_t r = 0; r < width; ++r) {
        Value sum = vector::LoadOp::create(b, loc, v16, buf.part,
                                           ValueRange{slot, idx(r), idx(0)});
        acc[r] = vector::FMAOp::create(b, loc, sum, scaleOf(tr, buf, r, t),
                                       acc[r]);
      }
      return acc;
    };
    // Step t: U(t), T(t) (its tile stored at once), E(t - 1).
    SmallVector<Value> acc(width, zero);
    auto step = [&](Value t, Value previous) {
      if (t) {
        unpackChunk(tr, t, buf);
        amx::TileStoreOp::create(b, loc, buf.part,
                                 ValueRange{slotOf(t), idx(0), idx(0)},
                                 multiplyChunk(tr, packed, mb, t, buf));
      }
      if (previous)
        acc = accumulate(previous, acc);
    };
    step(idx(0), Value());
    if (tr.chunks > 1) {
      auto loop =
          scf::ForOp::create(b, loc, idx(1), idx(tr.chunks), idx(1), acc);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      acc.assign(loop.getRegionIterArgs().begin(),
                 loop.getRegionIterArgs().end());
      step(t, arith::SubIOp::create(b, loc, t, idx(1)));
      scf::YieldOp::create(b, loc, acc);
      b.setInsertionPointAfter(loop);
      acc.assign(loop.getResults().begin(), loop.getResults().end());
    }
    step(Value(), idx(tr.chunks - 1));
    // The accumulators are C-transposed: stored as [weight row, row of A],
    // then gathered by rows of A.
    for (int64_t r = 0; r < width; ++r)
      vector::StoreOp::create(b, loc, acc[r], buf.part,
                              ValueRange{idx(0), idx(r), idx(0)});
    storeC(buf.part, ValueRange{idx(0)}, mb, rows, n0, width);
  }

  /// C[16 mb0 .., n0 .. n0 + width] for the `nb` (at most kBlocks) blocks
  /// of 16 rows of A from mb0: each chunk of W is unpacked once for all of
  /// them. Step t runs U(t), then for each block T(t) (its tile stored to
  /// `partM` [t % 2, block]) and E(t - 1) of that block: its sums times
  /// the scales (loaded once a step) added into `accM` [block], in memory
  /// (16 accumulators a block do not fit in registers for several).
  void tileBlocks(Value packed, Value mb0, Value nb, Value rows, Value n0,
                  int64_t width, const Buffers &buf) {
    tileOperands(n0, width, buf.offsets, buf.scales);
    OpBuilder::InsertionGuard guard(b);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v16, b.getF32FloatAttr(0.0f)));
    TileRows tr = tileRows(n0, width);
    auto forBlocks = [&](llvm::function_ref<void(Value)> body) {
      OpBuilder::InsertionGuard g2(b);
      auto loop = scf::ForOp::create(b, loc, idx(0), nb, idx(1));
      b.setInsertionPointToStart(loop.getBody());
      body(loop.getInductionVar());
    };
    forBlocks([&](Value j) {
      for (int64_t r = 0; r < width; ++r)
        vector::StoreOp::create(b, loc, zero, buf.accM,
                                ValueRange{j, idx(r), idx(0)});
    });
    auto accumulate = [&](Value j, Value t, ArrayRef<Value> scales) {
      Value slot = slotOf(t);
      for (int64_t r = 0; r < width; ++r) {
        Value sum = vector::LoadOp::create(
            b, loc, v16, buf.partM, ValueRange{slot, j, idx(r), idx(0)});
        Value acc = vector::LoadOp::create(b, loc, v16, buf.accM,
                                           ValueRange{j, idx(r), idx(0)});
        vector::StoreOp::create(
            b, loc, vector::FMAOp::create(b, loc, sum, scales[r], acc),
            buf.accM, ValueRange{j, idx(r), idx(0)});
      }
    };
    auto scalesAt = [&](Value t) {
      SmallVector<Value> scales;
      for (int64_t r = 0; r < width; ++r)
        scales.push_back(scaleOf(tr, buf, r, t));
      return scales;
    };
    // Step t: U(t); per block T(t) (stored at once), E(t - 1).
    auto step = [&](Value t, Value previous) {
      if (t)
        unpackChunk(tr, t, buf);
      SmallVector<Value> scales;
      if (previous)
        scales = scalesAt(previous);
      forBlocks([&](Value j) {
        if (t)
          amx::TileStoreOp::create(
              b, loc, buf.partM, ValueRange{slotOf(t), j, idx(0), idx(0)},
              multiplyChunk(tr, packed, add(mb0, j), t, buf));
        if (previous)
          accumulate(j, previous, scales);
      });
    };
    step(idx(0), Value());
    if (tr.chunks > 1) {
      auto loop = scf::ForOp::create(b, loc, idx(1), idx(tr.chunks), idx(1));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      step(t, arith::SubIOp::create(b, loc, t, idx(1)));
    }
    step(Value(), idx(tr.chunks - 1));
    forBlocks([&](Value j) {
      storeC(buf.accM, ValueRange{j}, add(mb0, j), rows, n0, width);
    });
  }

  /// Blocks of 16 rows of A that share one unpacking of each chunk of W:
  /// 128 rows, whose packed A (K x 128 bf16: 1 MiB at K = 4096) stays in
  /// L2 while a task's weight tiles pass over it.
  static constexpr int64_t kBlocks = 8;

  /// Per-task buffers: the unpacked weight tiles of two chunks (zero rows
  /// past the valid ones), two chunks' f32 tiles, the tile's zero point
  /// offsets and scales, for `width` weight rows; with several blocks of A,
  /// two chunks' tiles and the accumulators of kBlocks blocks.
  Buffers taskBuffers(int64_t width, bool blocks) {
    auto alloc = [&](ArrayRef<int64_t> shape, Type elt) -> Value {
      return memref::AllocOp::create(b, loc, MemRefType::get(shape, elt),
                                     b.getI64IntegerAttr(64));
    };
    Buffers buf;
    buf.wbuf = alloc({2, steps, 16, 32}, bf16);
    buf.part = alloc({2, 16, 16}, f32);
    if (blocks) {
      buf.partM = alloc({2, kBlocks, 16, 16}, f32);
      buf.accM = alloc({kBlocks, 16, 16}, f32);
    }
    buf.offsets =
        g.z ? alloc({width, groups}, g.bits == 4 ? i16 : f32) : Value();
    buf.scales = alloc({width, groups}, f32);
    Value zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(VectorType::get({32}, bf16),
                               b.getZeroAttr(bf16)));
    for (int64_t slot = 0; slot < 2; ++slot)
      for (int64_t st = 0; st < steps; ++st)
        for (int64_t r = width; r < 16; ++r)
          vector::StoreOp::create(
              b, loc, zeros, buf.wbuf,
              ValueRange{idx(slot), idx(st), idx(r), idx(0)});
    return buf;
  }

  void build(bool parallel) {
    Value rows = memref::DimOp::create(b, loc, g.a, 0);
    Value blocks = arith::DivUIOp::create(b, loc, add(rows, 15), idx(16));
    Value packed = packA(rows, blocks);
    Value several = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          blocks, idx(1));
    // The weight tiles [first, last) of `width` rows from n0 = 16 x first,
    // with one block of A (the accumulators in registers), or with several
    // (kBlocks at a time, the block groups outermost: one group's packed A
    // stays in L2 while the tiles pass over it).
    auto tiles = [&](Value first, Value last, int64_t width,
                     const Buffers &buf) {
      OpBuilder::InsertionGuard guard(b);
      auto choice = scf::IfOp::create(b, loc, several, true);
      b.setInsertionPointToStart(choice.elseBlock());
      auto one = scf::ForOp::create(b, loc, first, last, idx(1));
      b.setInsertionPointToStart(one.getBody());
      tile(packed, rows, mul(one.getInductionVar(), 16), width, buf);
      b.setInsertionPointToStart(choice.thenBlock());
      Value groupsOfA = arith::DivUIOp::create(b, loc, add(blocks, kBlocks - 1),
                                               idx(kBlocks));
      auto gLoop = scf::ForOp::create(b, loc, idx(0), groupsOfA, idx(1));
      b.setInsertionPointToStart(gLoop.getBody());
      Value mb0 = mul(gLoop.getInductionVar(), kBlocks);
      Value nb = arith::MinUIOp::create(
          b, loc, idx(kBlocks), arith::SubIOp::create(b, loc, blocks, mb0));
      auto many = scf::ForOp::create(b, loc, first, last, idx(1));
      b.setInsertionPointToStart(many.getBody());
      tileBlocks(packed, mb0, nb, rows, mul(many.getInductionVar(), 16), width,
                 buf);
    };
    int64_t full = g.n / 16, rest = g.n % 16;
    if (full > 0) {
      // Tasks of whole tiles of 16 weight rows: per tile the unpacking is
      // the work (the same for every tile).
      int64_t tasks = parallel ? std::min(threads, full) : 1;
      int64_t per = llvm::divideCeil(full, tasks);
      tasks = llvm::divideCeil(full, per);
      OpBuilder::InsertionGuard guard(b);
      Value task = accel::openLoop(b, loc, tasks, tasks > 1);
      Buffers buf = taskBuffers(16, true);
      Value first = mul(task, per);
      tiles(first, arith::MinUIOp::create(b, loc, add(first, per), idx(full)),
            16, buf);
    }
    if (rest > 0) {
      // The last weight rows: C's columns from 16 x full.
      tiles(idx(full), idx(full + 1), rest, taskBuffers(rest, true));
    }
  }
};

struct AccelCpuDequantKernelsPass
    : public accel::impl::AccelCpuDequantKernelsPassBase<
          AccelCpuDequantKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<DequantGemm, accel::CpuDequantTiles>> gemms;
    bool failedConfig = false;
    func.walk([&](linalg::GenericOp op) {
      std::optional<DequantGemm> g = matchDequant(op);
      if (!g)
        return;
      // The configuration stage's choice; cpu-loops (or none) leaves the
      // generic to the loops.
      auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
          accel::kLoweringConfigAttrName);
      std::optional<accel::CpuDequantTiles> t =
          accel::getCpuDequantTiles(config, g->bits);
      bool amx = config && config.getKernel() == "cpu-dequant-amx";
      if (amx && !t) {
        op.emitOpError("accel-cpu-dequant-kernels: cpu-dequant-amx takes an "
                       "mma [mr, nr, 32] and a tile [rows, 16]");
        failedConfig = true;
        return;
      }
      if (!t)
        return;
      if (amx && !cast<MemRefType>(g->a.getType()).getElementType().isBF16()) {
        op.emitOpError("accel-cpu-dequant-kernels: cpu-dequant-amx takes "
                       "bf16 activations");
        failedConfig = true;
        return;
      }
      if (t->lut && g->bits != 4) {
        op.emitOpError("accel-cpu-dequant-kernels: cpu-dequant-lut takes "
                       "bits(4) weights");
        failedConfig = true;
        return;
      }
      if (std::string why = accel::checkCpuDequantTiles(*t); !why.empty()) {
        op.emitOpError("accel-cpu-dequant-kernels: ") << why;
        failedConfig = true;
        return;
      }
      gemms.push_back({*g, *t});
    });
    if (failedConfig)
      return signalPassFailure();
    OpBuilder builder(&getContext());
    for (auto &[g, tiles] : gemms) {
      builder.setInsertionPoint(g.op);
      linalg::FillOp fill = accel::initializingFill(
          cast<linalg::LinalgOp>(g.op.getOperation()));
      KernelBuilder kb{builder, g.op.getLoc(), g, tiles};
      bool nested = accel::insideParallelLoop(g.op);
      bool parallel = threads > 1 && !nested;
      if (tiles.amxRows > 0) {
        // AMX when there are rows enough and the zero points allow, else
        // the config's mma kernel (table or converting).
        Location loc = g.op.getLoc();
        AmxKernelBuilder amxKernel{builder, loc, g, threads};
        Value rows = memref::DimOp::create(builder, loc, g.a, 0);
        Value enough = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::uge, rows,
            arith::ConstantIndexOp::create(builder, loc, tiles.amxRows));
        // (Zero points and scales are read only when the rows ask for AMX.)
        auto check = scf::IfOp::create(builder, loc, builder.getI1Type(),
                                       enough, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointToStart(check.thenBlock());
          scf::YieldOp::create(builder, loc, amxKernel.operandsExact());
          builder.setInsertionPointToStart(check.elseBlock());
          scf::YieldOp::create(builder, loc, enough);
        }
        auto choice = scf::IfOp::create(builder, loc, check.getResult(0), true);
        {
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointToStart(choice.thenBlock());
          amxKernel.build(parallel);
          builder.setInsertionPointToStart(choice.elseBlock());
          kb.build(parallel);
        }
      } else {
        kb.build(parallel);
      }
      g.op->erase();
      // Every element of C is stored: its zero fill is dead.
      if (fill)
        fill->erase();
    }
    // The AMX kernels' 16 x 16 transposes of A.
    if (failed(accel::lowerWordTransposes(func)))
      return signalPassFailure();
  }
};
} // namespace
