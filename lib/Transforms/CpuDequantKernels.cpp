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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
  Value toF32(Value x) {
    if (getElementTypeOrSelf(x.getType()).isF32())
      return x;
    Type t = f32;
    if (auto v = dyn_cast<VectorType>(x.getType()))
      t = VectorType::get(v.getShape(), f32);
    return arith::ExtFOp::create(b, loc, t, x);
  }

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
          accel::getCpuDequantTiles(config);
      if (!t)
        return;
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
      kb.build(threads > 1 && !nested);
      g.op->erase();
      // Every element of C is stored: its zero fill is dead.
      if (fill)
        fill->erase();
    }
  }
};
} // namespace
