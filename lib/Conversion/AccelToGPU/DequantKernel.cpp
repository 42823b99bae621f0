//===- DequantKernel.cpp - weight-only quantised matmul on the GPU --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The kernel of accel.dequant_matmul (DequantKernel.h). Block (x, y) takes
// rows [x * rowsPerBlock, ...) of W and rows [y * rowsA, ...) of A; warp w
// of it rowsPerWarp rows of W from x * rowsPerBlock + w * rowsPerWarp. In
// each step of its K loop lane l takes weights [k, k + chunk) with
// k = step * warp * chunk + l * chunk of each of its W rows: one load of
// chunk * bits / 8 bytes a row (the warp's loads of a row are contiguous),
// that chunk's scale and zero point, then for every 8 weights each row of A
// is loaded once and FMA'd into the lane's rowsA x rowsPerWarp sums. Rows
// of W and A past the ends are clamped to the last one for the loads (their
// sums are never stored); a K loop whose last step is partial guards that
// step. After the loop a butterfly of xor shuffles leaves each sum in every
// lane, and lane 0 stores them.
//
//===----------------------------------------------------------------------===//

#include "DequantKernel.h"
#include "KernelUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

/// Weights a lane converts and multiplies at a time (one vector of A a row).
constexpr int64_t kSub = 8;

/// 2^23 as f32 bits: an integer 0 <= u < 2^23 or-ed into it reads as the
/// float 2^23 + u.
constexpr int32_t kExponentTrick = 0x4B000000;

class DequantKernelBuilder : public GpuIndexBuilder {
public:
  DequantKernelBuilder(OpBuilder &b, Location loc, Block *entry,
                       const GpuDequantPlan &k, const GpuTargetInfo &target)
      : GpuIndexBuilder(b, loc, entry), k(k), target(target) {}

  void emit(Value a, Value w, Value scales, Value zeros, Value c);

private:
  const GpuDequantPlan &k;
  const GpuTargetInfo &target;

  /// i32 and f32 constants, made once in the entry block (as cst()).
  Value i32(int64_t v) { return constant(b.getI32IntegerAttr(int32_t(v))); }
  Value f32(double v) { return constant(b.getF32FloatAttr(float(v))); }
  Value toF32(Value v) {
    return v.getType().isF32()
               ? v
               : arith::ExtFOp::create(b, loc, b.getF32Type(), v).getResult();
  }
  /// The weight whose stored bits are `u` (an i32 of 0..15 or 0..255) as
  /// f32: q exactly, by the exponent trick.
  Value weight(Value u) {
    const int64_t half = int64_t(1) << (k.bits - 1);
    // Two's complement: q = (u xor half) - half, and u xor half is again
    // in 0..2^bits - 1.
    if (!k.isUnsigned)
      u = arith::XOrIOp::create(b, loc, u, i32(half));
    Value f = arith::BitcastOp::create(
        b, loc, b.getF32Type(),
        arith::OrIOp::create(b, loc, u, i32(kExponentTrick)));
    return arith::SubFOp::create(
        b, loc, f, f32(double(1 << 23) + (k.isUnsigned ? 0 : half)));
  }

  /// One step of the K loop for the lane's chunk at `kk`: the sums `acc`
  /// (rowsA x rowsPerWarp, row of A major) updated.
  SmallVector<Value> step(Value kk, ArrayRef<Value> wRows,
                          ArrayRef<Value> aRows, ValueRange acc, Value a,
                          Value w, Value scales, Value zeros);
};

SmallVector<Value> DequantKernelBuilder::step(Value kk, ArrayRef<Value> wRows,
                                              ArrayRef<Value> aRows,
                                              ValueRange acc, Value a, Value w,
                                              Value scales, Value zeros) {
  const int64_t R = k.rowsPerWarp, bytes = k.chunkBytes();
  Type i8 = b.getI8Type(), i32Type = b.getI32Type();
  SmallVector<Value> out(acc.begin(), acc.end());
  // This chunk of every W row, with its group's scale and zero point.
  Value byteCol = div(mul(kk, k.bits), 8);
  Value group = div(kk, k.group);
  SmallVector<Value> chunks, s, z;
  for (Value n : wRows) {
    chunks.push_back(vector::LoadOp::create(
        b, loc, VectorType::get({bytes}, i8), w, ValueRange{n, byteCol},
        false, llvm::MaybeAlign(bytes)));
    s.push_back(
        toF32(memref::LoadOp::create(b, loc, scales, ValueRange{n, group})));
    if (zeros)
      z.push_back(
          toF32(memref::LoadOp::create(b, loc, zeros, ValueRange{n, group})));
  }
  const int64_t sub = std::min(kSub, k.chunk);
  const int64_t aBytes = k.aType.getIntOrFloatBitWidth() / 8;
  auto aVec = VectorType::get({sub}, k.aType);
  const int64_t perWord = 32 / k.bits, mask = (int64_t(1) << k.bits) - 1;
  // Weights [j, j + sub) of every row (their stored bits from `stored(r,
  // e)`, e < sub) dequantised, times A's rows at K offset kk + j, into
  // `sums`.
  auto multiply = [&](llvm::function_ref<Value(int64_t, int64_t)> stored,
                      Value j, MutableArrayRef<Value> sums) {
    SmallVector<SmallVector<Value>> wv(R);
    for (int64_t r = 0; r < R; ++r)
      for (int64_t e = 0; e < sub; ++e) {
        Value q = weight(stored(r, e));
        // The op's f32(f32(q - z) * s).
        if (zeros)
          q = arith::SubFOp::create(b, loc, q, z[r]);
        wv[r].push_back(arith::MulFOp::create(b, loc, q, s[r]));
      }
    for (auto [i, m] : llvm::enumerate(aRows)) {
      // Aligned as the vector within A's rows, but the host promises 16
      // bytes of alignment for a buffer at most.
      Value av = vector::LoadOp::create(
          b, loc, aVec, a, ValueRange{m, add(kk, j)}, false,
          llvm::MaybeAlign(std::min<int64_t>(16, sub * aBytes)));
      for (int64_t e = 0; e < sub; ++e) {
        Value x = toF32(vector::ExtractOp::create(b, loc, av, e));
        for (int64_t r = 0; r < R; ++r) {
          Value &sum = sums[i * R + r];
          sum = math::FmaOp::create(b, loc, x, wv[r][e], sum);
        }
      }
    }
  };

  if (bytes % 4 != 0) {
    // Chunks of 1-3 bytes (groups of 2 or 4 int4, of 1 or 2 int8): the
    // bytes one by one; weight e of int4 is the low nibble of byte e / 2
    // for even e, the high one for odd e.
    multiply(
        [&](int64_t r, int64_t e) -> Value {
          Value byte = arith::ExtUIOp::create(
              b, loc, i32Type,
              vector::ExtractOp::create(b, loc, chunks[r], e * k.bits / 8));
          if (k.bits == 8)
            return byte;
          return e % 2 == 0
                     ? arith::AndIOp::create(b, loc, byte, i32(15)).getResult()
                     : arith::ShRUIOp::create(b, loc, byte, i32(4)).getResult();
        },
        cst(0), out);
    return out;
  }

  // The chunk as 32-bit words (little-endian: weight e of a word in bits
  // [bits * e, bits * (e + 1))). The sub-blocks of `sub` weights run as a
  // loop kept rolled, the words rotated through its iteration arguments
  // (no dynamic indexing into registers): unrolled, the back ends hoist
  // every sub-block's loads of A at once (256 VGPRs and spills on gfx1100
  // at 8 rows of A).
  const int64_t words = bytes / 4, wordsPerSub = sub / perWord;
  SmallVector<Value> carried;
  for (int64_t r = 0; r < R; ++r) {
    Value v = vector::BitCastOp::create(
        b, loc, VectorType::get({words}, i32Type), chunks[r]);
    for (int64_t x = 0; x < words; ++x)
      carried.push_back(vector::ExtractOp::create(b, loc, v, x));
  }
  auto storedIn = [&](ValueRange wordsOfRows) {
    return [&, wordsOfRows](int64_t r, int64_t e) -> Value {
      Value word = wordsOfRows[r * words + e / perWord];
      int64_t shift = k.bits * (e % perWord);
      if (shift)
        word = arith::ShRUIOp::create(b, loc, word, i32(shift));
      if (shift + k.bits < 32)
        word = arith::AndIOp::create(b, loc, word, i32(mask));
      return word;
    };
  };
  const int64_t subs = k.chunk / sub;
  if (subs == 1) {
    multiply(storedIn(carried), cst(0), out);
    return out;
  }
  carried.append(out.begin(), out.end());
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(subs), cst(1), carried);
  keepRolled(loop);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    ValueRange args = loop.getRegionIterArgs();
    ValueRange wordArgs = args.take_front(R * words);
    SmallVector<Value> sums(args.drop_front(R * words));
    multiply(storedIn(wordArgs), mul(loop.getInductionVar(), sub), sums);
    // The next sub-block's words first.
    SmallVector<Value> next;
    for (int64_t r = 0; r < R; ++r)
      for (int64_t x = 0; x < words; ++x)
        next.push_back(wordArgs[r * words + (x + wordsPerSub) % words]);
    next.append(sums.begin(), sums.end());
    scf::YieldOp::create(b, loc, next);
  }
  out.assign(loop.getResults().begin() + R * words, loop.getResults().end());
  return out;
}

void DequantKernelBuilder::emit(Value a, Value w, Value scales, Value zeros,
                                Value c) {
  const int64_t warp = target.getWarpSize(), R = k.rowsPerWarp;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value lane = rem(tid, warp);
  Value n0 = add(mul(bx, k.rowsPerBlock()), mul(div(tid, warp), R));
  Value m0 = mul(by, k.rowsA);

  // The rows this lane loads: past the end, the last one (never stored).
  SmallVector<Value> wRows, aRows, nOf, mOf;
  for (int64_t r = 0; r < R; ++r) {
    nOf.push_back(add(n0, r));
    wRows.push_back(k.n % k.rowsPerBlock() == 0
                        ? nOf.back()
                        : minS(nOf.back(), cst(k.n - 1)));
  }
  for (int64_t i = 0; i < k.rowsA; ++i) {
    mOf.push_back(add(m0, i));
    aRows.push_back(k.rows % k.rowsA == 0 ? mOf.back()
                                          : minS(mOf.back(), cst(k.rows - 1)));
  }

  // The K loop: the warp's chunks side by side, `warp * chunk` weights a
  // step.
  const int64_t perStep = warp * k.chunk;
  const int64_t steps = llvm::divideCeil(k.k, perStep);
  Value zero = f32(0);
  SmallVector<Value> init(k.rowsA * R, zero);
  auto loop = scf::ForOp::create(b, loc, cst(0), cst(steps), cst(1), init);
  // Kept rolled, as the sub-block loop in step(): unrolled loops let the
  // back ends hoist later loads early (keepRolled's note). Rolling this one
  // alone did not change the registers measured (the spills on gfx1100
  // went with the sub-block loop); on a GPU, whether unrolling it keeps
  // more loads in flight is not measured.
  keepRolled(loop);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kk = add(mul(loop.getInductionVar(), perStep), mul(lane, k.chunk));
    ValueRange acc = loop.getRegionIterArgs();
    SmallVector<Value> next;
    if (k.k % perStep == 0) {
      next = step(kk, wRows, aRows, acc, a, w, scales, zeros);
    } else {
      // The last step's lanes past K keep their sums.
      auto ifOp = scf::IfOp::create(b, loc, TypeRange(acc), ult(kk, k.k),
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc,
                             step(kk, wRows, aRows, acc, a, w, scales, zeros));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, acc);
      }
      next.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    scf::YieldOp::create(b, loc, next);
  }

  // Each sum over the warp's lanes (every lane ends with it).
  SmallVector<Value> sums(loop.getResults().begin(), loop.getResults().end());
  Value width = i32(warp);
  for (int64_t off = warp / 2; off >= 1; off /= 2) {
    Value offset = i32(off);
    for (Value &v : sums)
      v = arith::AddFOp::create(
          b, loc, v,
          gpu::ShuffleOp::create(b, loc, v, offset, width,
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult());
  }

  // Lane 0 stores the rows that exist.
  auto first = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, lane, cst(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(first.thenBlock());
  for (int64_t i = 0; i < k.rowsA; ++i)
    for (int64_t r = 0; r < R; ++r) {
      Value valid;
      if (k.rows % k.rowsA != 0)
        valid = ult(mOf[i], k.rows);
      if (k.n % k.rowsPerBlock() != 0)
        valid = both(valid, ult(nOf[r], k.n));
      OpBuilder::InsertionGuard g(b);
      if (valid) {
        auto ifOp = scf::IfOp::create(b, loc, valid, false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      Value v = sums[i * R + r];
      if (!k.outType.isF32())
        v = arith::TruncFOp::create(b, loc, k.outType, v);
      memref::StoreOp::create(b, loc, v, c, ValueRange{mOf[i], nOf[r]});
    }
}

} // namespace

void mlir::accel::emitGpuDequantKernel(
    OpBuilder &b, DequantMatmulOp op, StringRef name, const GpuDequantPlan &k,
    const llvm::DenseMap<Value, std::string> &bufferOf,
    const GpuTargetInfo &target) {
  if (k.rows == 0 || k.n == 0)
    return; // an empty C: nothing to launch
  MLIRContext *ctx = b.getContext();
  Location loc = op.getLoc();
  const int64_t groups = k.k / k.group;
  SmallVector<Type> params = {
      MemRefType::get({k.rows, k.k}, k.aType),
      MemRefType::get({k.n, k.k * k.bits / 8}, b.getI8Type()),
      MemRefType::get({k.n, groups}, k.scaleType)};
  SmallVector<Value> read = {op.getLhs(), op.getWeights(), op.getScales()};
  if (k.hasZeroPoints) {
    params.push_back(MemRefType::get({k.n, groups}, k.zeroType));
    read.push_back(op.getZeroPoints());
  }
  params.push_back(MemRefType::get({k.rows, k.n}, k.outType));
  SmallVector<Attribute> args, access;
  for (Value v : read) {
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, "in"));
  }
  args.push_back(StringAttr::get(ctx, bufferOf.lookup(op.getResult())));
  access.push_back(StringAttr::get(ctx, "out"));

  const int64_t threads = k.warps * target.getWarpSize();
  // [rows of A, rows of W] a block, weights a lane's load.
  auto func = createGpuKernel(
      b, loc, name, params, k.grid(), threads, 0, target.getChip(), args,
      access, "dequant",
      {b.getNamedAttr("tile", b.getDenseI64ArrayAttr(
                                  {k.rowsA, k.rowsPerBlock(), k.chunk}))});

  Block *entry = &func.getBody().front();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  DequantKernelBuilder kb(body, loc, entry, k, target);
  unsigned next = 0;
  Value a = entry->getArgument(next++);
  Value w = entry->getArgument(next++);
  Value scales = entry->getArgument(next++);
  Value zeros = k.hasZeroPoints ? entry->getArgument(next++) : Value();
  kb.emit(a, w, scales, zeros, entry->getArgument(next));
  gpu::ReturnOp::create(body, loc);
}
