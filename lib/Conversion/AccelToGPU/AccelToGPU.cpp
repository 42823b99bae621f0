//===- AccelToGPU.cpp - accel matmuls to NVIDIA GPU kernels ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiles each function of accel.matmul ops on static tensors into a
// gpu.module with one kernel per matmul: a block tile of C in f32 registers
// of its warps, fed by a multi-stage cp.async ring in shared memory,
// ldmatrix and mma.sync m16n8k16 (the pass description in Passes.td has the
// algorithm). Everything the kernel needs to know about the chip comes from
// GpuTargetInfo.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "AttentionKernel.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"
#include <cstdlib>
#include <map>

namespace mlir::accel {
#define GEN_PASS_DEF_CONVERTACCELTOGPUPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

//===----------------------------------------------------------------------===//
// Tile choice
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t mlir::accel::getGpuGemmSharedBytes(const GpuGemmShape &shape,
                                           const GpuGemmConfig &config) {
  const int64_t pad = getGpuSharedRowPad(shape.inBytes);
  int64_t a = config.tileM * (config.tileK + pad);
  int64_t b = shape.transposeB ? config.tileN * (config.tileK + pad)
                               : config.tileK * (config.tileN + pad);
  return config.stages * (a + b) * shape.inBytes;
}

bool mlir::accel::splitGpuWarps(int64_t tileM, int64_t tileN, int64_t warps,
                                GpuGemmConfig &config) {
  // Each warp part holds whole ldmatrix x4 loads: 16 rows of A and 16
  // columns of B (two m16n8 fragments).
  int64_t bestM = 0;
  double bestRatio = 0;
  for (int64_t wm = 1; wm <= warps; ++wm) {
    if (warps % wm != 0)
      continue;
    int64_t wn = warps / wm;
    if (tileM % (16 * wm) != 0 || tileN % (16 * wn) != 0)
      continue;
    double partM = double(tileM / wm), partN = double(tileN / wn);
    double ratio = std::max(partM, partN) / std::min(partM, partN);
    // Squarer parts load fewer fragments per mma; on a tie the taller part
    // (fewer, larger A loads).
    if (bestM == 0 || ratio < bestRatio) {
      bestM = wm;
      bestRatio = ratio;
    }
  }
  if (bestM == 0)
    return false;
  config.warpsM = bestM;
  config.warpsN = warps / bestM;
  return true;
}

GpuGemmConfig mlir::accel::getDefaultGpuGemmConfig(const GpuTargetInfo &target,
                                                   const GpuGemmShape &shape) {
  GpuGemmConfig c;
  // Large tiles reuse each loaded element more, but only pay off while the
  // grid still keeps every multiprocessor busy.
  bool large = ceilDiv(shape.m, 128) * ceilDiv(shape.n, 128) * shape.batch >=
               target.getNumMultiprocessors();
  c.tileM = c.tileN = large ? 128 : 64;
  int64_t warps = large ? 8 : 4;
  while (c.tileM > 16 && c.tileM / 2 >= shape.m)
    c.tileM /= 2;
  while (c.tileN > 16 && c.tileN / 2 >= shape.n)
    c.tileN /= 2;
  // 64 bytes of K per slice; 8-bit inputs multiply 32 deep (m16n8k32).
  int64_t depth = shape.inBytes == 1 ? 32 : 16;
  c.tileK = std::min<int64_t>(
      2 * depth, std::max<int64_t>(depth, llvm::alignTo(shape.k, depth)));
  while (warps > 1 && !splitGpuWarps(c.tileM, c.tileN, warps, c))
    warps /= 2;
  if (warps == 1)
    splitGpuWarps(c.tileM, c.tileN, 1, c);
  c.stages = ceilDiv(shape.k, c.tileK) <= 1 ? 2 : 3;
  return c;
}

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

namespace {

/// Everything the kernel of one matmul depends on.
struct GemmKernel {
  GpuGemmShape shape;
  GpuGemmConfig config;
  GpuMmaInstr mma;
  /// A's and B's element types (f8 may mix e4m3 and e5m2), and C's.
  Type inType, inTypeB, outType;
  bool accumulate = false;
  /// Whether the global memrefs carry a (collapsed) batch dimension.
  bool batched = false;
  /// Elements per cp.async of a row of A and of B.
  int64_t vecA = 8, vecB = 8;
};

/// Builds the body of one kernel.
class KernelBuilder : public GpuIndexBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const GemmKernel &k,
                const GpuTargetInfo &target, Block *entry)
      : GpuIndexBuilder(b, loc, entry), k(k), cfg(k.config), target(target) {}

  void emit(Value gA, Value gB, Value gCin, Value gC);

private:
  SmallVector<Value> global(Value row, Value col) {
    if (k.batched)
      return {batchIdx, row, col};
    return {row, col};
  }

  /// cp.async of one tileRows x tileCols slice of `src` (row-major, rows
  /// x cols elements) starting at global (row0, col0) into `dst[stage]`, in
  /// copies of `vec` elements spread over the threads. Copies outside
  /// [rowLimit) x [colLimit) read 0 elements (their shared bytes are
  /// zero-filled) from a clamped address; `checkRows` / `checkCols` say
  /// whether a slice can reach past the limit at all.
  void copySlice(Value src, Value dst, Value stage, int64_t tileRows,
                 int64_t tileCols, int64_t vec, Value row0, Value col0,
                 int64_t rowLimit, int64_t colLimit, bool checkRows,
                 bool checkCols, SmallVectorImpl<Value> &tokens);
  /// The cp.async group of K-slice `kt` (A and B) into ring buffer `stage`.
  Value issueSlice(Value kt, Value stage);
  /// Fragment (mt, nt) of the accumulators: its rows `row` and `row + 8`,
  /// columns `col` and `col + 1` (mma.sync's C layout).
  Value loadAccumulator(Value row, Value col);
  void storeAccumulator(Value acc, Value row, Value col);
  /// The guard of the two elements at (row, col + 0/1) of C: null when the
  /// block tile never reaches past M / N.
  Value rowGuard(Value row) {
    return k.shape.m % cfg.tileM != 0 ? ult(row, k.shape.m) : Value();
  }
  /// The accumulators' element type: i32 for i8 inputs, else f32.
  Type accElement() {
    return k.mma.accumulatesInInt ? Type(b.getI32Type()) : b.getF32Type();
  }

  const GemmKernel &k;
  const GpuGemmConfig &cfg;
  const GpuTargetInfo &target;
  /// (row, column) in a slice of the copies of this thread, by (slice rows,
  /// slice columns, elements per copy, first copy of the round).
  std::map<std::array<int64_t, 4>, std::pair<Value, Value>> copyCoords;

  /// Global buffers; the shared rings cp.async fills (sA, sB) and the
  /// views ldmatrix reads them through (lA, lB: sA, sB but for f8, i8).
  Value gA, gB, gCin, gC, sA, sB, lA, lB;
  Value tid, lane, batchIdx, blockRow, blockCol, warpRow, warpCol;
};

void KernelBuilder::copySlice(Value src, Value dst, Value stage,
                              int64_t tileRows, int64_t tileCols, int64_t vec,
                              Value row0, Value col0, int64_t rowLimit,
                              int64_t colLimit, bool checkRows, bool checkCols,
                              SmallVectorImpl<Value> &tokens) {
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  const int64_t perRow = tileCols / vec, total = tileRows * perRow;
  const int64_t bytes = vec * k.shape.inBytes;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < total; first += threads) {
    // The thread's place in the slice is the same for every slice: computed
    // once, before the first (prologue) copy.
    auto [it, inserted] =
        copyCoords.try_emplace({tileRows, tileCols, vec, first});
    if (inserted) {
      Value id = add(tid, first);
      // A last round with fewer copies than threads: the extra threads
      // repeat the last copy (same bytes to the same place, harmless).
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      it->second = {div(id, perRow), mul(rem(id, perRow), vec)};
    }
    auto [r, c] = it->second;
    Value gr = add(row0, r), gc = add(col0, c);
    Value valid = both(checkRows ? ult(gr, rowLimit) : Value(),
                       checkCols ? ult(gc, colLimit) : Value());
    Value n;
    if (valid) {
      n = arith::SelectOp::create(b, loc, valid, cst(vec), cst(0));
      gr = arith::SelectOp::create(b, loc, valid, gr, cst(0));
      gc = arith::SelectOp::create(b, loc, valid, gc, cst(0));
    }
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, dst, ValueRange{stage, r, c}, src, global(gr, gc),
        b.getIndexAttr(vec), n,
        // .cg (bypass L1) exists for 16-byte copies only.
        bytes == 16 ? b.getUnitAttr() : UnitAttr()));
  }
}

Value KernelBuilder::issueSlice(Value kt, Value stage) {
  const GpuGemmShape &s = k.shape;
  Value k0 = mul(kt, cfg.tileK);
  SmallVector<Value> tokens;
  // The K check stays even when tileK divides K: the last stages - 1
  // iterations issue slices past K to keep one group per iteration.
  copySlice(gA, sA, stage, cfg.tileM, cfg.tileK, k.vecA, blockRow, k0, s.m, s.k,
            s.m % cfg.tileM != 0, true, tokens);
  if (s.transposeB)
    copySlice(gB, sB, stage, cfg.tileN, cfg.tileK, k.vecB, blockCol, k0, s.n,
              s.k, s.n % cfg.tileN != 0, true, tokens);
  else
    copySlice(gB, sB, stage, cfg.tileK, cfg.tileN, k.vecB, k0, blockCol, s.k,
              s.n, true, s.n % cfg.tileN != 0, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

Value KernelBuilder::loadAccumulator(Value row, Value col) {
  Type accElt = accElement();
  auto pairAcc = VectorType::get({2}, accElt);
  auto pairOut = VectorType::get({2}, k.outType);
  const int64_t n = k.shape.n;
  const bool checkCols = n % cfg.tileN != 0;
  auto extend = [&](Value v) -> Value {
    if (k.outType == accElt)
      return v;
    return arith::ExtFOp::create(
        b, loc, v.getType() == k.outType ? accElt : pairAcc, v);
  };
  Value acc = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({2, 2}, accElt),
                             b.getZeroAttr(accElt)));
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(pairAcc, b.getZeroAttr(accElt)));
  for (int64_t h = 0; h < 2; ++h) {
    Value r = add(row, 8 * h);
    Value inRow = rowGuard(r);
    Value pair;
    if (n % 2 == 0) {
      // Pairs: C's rows have an even length, so (r, col) is 2-element
      // aligned and both elements are in or out together.
      Value guard = both(inRow, checkCols ? ult(col, n) : Value());
      auto load = [&](OpBuilder &, Location) -> Value {
        Value v = vector::LoadOp::create(
            b, loc, pairOut, gCin, global(r, col), false,
            llvm::MaybeAlign(2 * k.outType.getIntOrFloatBitWidth() / 8));
        return extend(v);
      };
      if (!guard) {
        pair = load(b, loc);
      } else {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{pairAcc}, guard, true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc, load(b, loc));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, zeros);
        pair = ifOp.getResult(0);
      }
    } else {
      // Odd N: element by element.
      SmallVector<Value> elems;
      for (int64_t j = 0; j < 2; ++j) {
        Value c = add(col, j);
        Value guard = both(inRow, ult(c, n));
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{accElt}, guard, true);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value v = memref::LoadOp::create(b, loc, gCin, global(r, c));
        scf::YieldOp::create(b, loc, extend(v));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(
            b, loc,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(accElt))
                .getResult());
        b.setInsertionPointAfter(ifOp);
        elems.push_back(ifOp.getResult(0));
      }
      pair = vector::FromElementsOp::create(b, loc, pairAcc, elems);
    }
    acc = vector::InsertOp::create(b, loc, pair, acc, ArrayRef<int64_t>{h});
  }
  return acc;
}

void KernelBuilder::storeAccumulator(Value acc, Value row, Value col) {
  auto pairOut = VectorType::get({2}, k.outType);
  const int64_t n = k.shape.n;
  const bool checkCols = n % cfg.tileN != 0;
  for (int64_t h = 0; h < 2; ++h) {
    Value r = add(row, 8 * h);
    Value inRow = rowGuard(r);
    Value v = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{h});
    if (k.outType != accElement())
      v = arith::TruncFOp::create(b, loc, pairOut, v);
    if (n % 2 == 0) {
      Value guard = both(inRow, checkCols ? ult(col, n) : Value());
      OpBuilder::InsertionGuard g(b);
      if (guard) {
        auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      vector::StoreOp::create(
          b, loc, v, gC, global(r, col), false,
          llvm::MaybeAlign(2 * k.outType.getIntOrFloatBitWidth() / 8));
    } else {
      for (int64_t j = 0; j < 2; ++j) {
        Value c = add(col, j);
        Value guard = both(inRow, ult(c, n));
        auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value e = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{j});
        memref::StoreOp::create(b, loc, e, gC, global(r, c));
      }
    }
  }
}

void KernelBuilder::emit(Value a, Value bArg, Value cIn, Value c) {
  gA = a;
  gB = bArg;
  gCin = cIn;
  gC = c;
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t warp = target.getWarpSize();
  const int64_t pad = getGpuSharedRowPad(s.inBytes);
  const int64_t S = cfg.stages;
  const int64_t partM = cfg.tileM / cfg.warpsM, partN = cfg.tileN / cfg.warpsN;
  const int64_t fragsM = partM / k.mma.m, fragsN = partN / k.mma.n;

  // Who this thread is.
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpId = div(tid, warp);
  lane = rem(tid, warp);
  blockCol = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), cfg.tileN);
  blockRow = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), cfg.tileM);
  if (k.batched)
    batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  warpRow = mul(div(warpId, cfg.warpsN), partM);
  warpCol = mul(rem(warpId, cfg.warpsN), partN);

  const int64_t numK = ceilDiv(s.k, cfg.tileK);
  // The ring buffers, carved out of dynamic shared memory (none for K = 0).
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto ring = [&](int64_t rows, int64_t cols, Type elt) {
    return MemRefType::get({S, rows, cols + pad}, elt,
                           MemRefLayoutAttrInterface(), wg);
  };
  auto aType = ring(cfg.tileM, cfg.tileK, k.inType);
  auto bType = s.transposeB ? ring(cfg.tileN, cfg.tileK, k.inTypeB)
                            : ring(cfg.tileK, cfg.tileN, k.inTypeB);
  if (numK > 0) {
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    Value bOffset = cst(aType.getNumElements() * s.inBytes);
    sA = memref::ViewOp::create(b, loc, aType, dyn, cst(0), ValueRange{});
    sB = memref::ViewOp::create(b, loc, bType, dyn, bOffset, ValueRange{});
    // ldmatrix reads f8 as its bytes: nvgpu.ldmatrix's lowering cannot
    // return f8 vectors (MLIR 22), and cp.async cannot change the type.
    // Second views of the same buffers, in i8.
    lA = sA;
    lB = sB;
    if (isa<FloatType>(k.inType) && s.inBytes == 1) {
      auto bytes = [&](MemRefType t) {
        return MemRefType::get(t.getShape(), b.getI8Type(),
                               MemRefLayoutAttrInterface(), wg);
      };
      lA = memref::ViewOp::create(b, loc, bytes(aType), dyn, cst(0),
                                  ValueRange{});
      lB = memref::ViewOp::create(b, loc, bytes(bType), dyn, bOffset,
                                  ValueRange{});
    }
  }

  // Where this thread's accumulator fragments sit in C.
  Value fragRow = add(add(blockRow, warpRow), div(lane, 4));
  Value fragCol = add(add(blockCol, warpCol), mul(rem(lane, 4), 2));
  auto accType = VectorType::get({2, 2}, accElement());
  SmallVector<Value> accs;
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getZeroAttr(accElement())));
  for (int64_t mt = 0; mt < fragsM; ++mt)
    for (int64_t nt = 0; nt < fragsN; ++nt)
      accs.push_back(k.accumulate ? loadAccumulator(add(fragRow, mt * 16),
                                                    add(fragCol, nt * 8))
                                  : zeroAcc);

  if (numK > 0) {
    // Prologue: slices 0 .. S-2 in flight.
    Value lastGroup;
    for (int64_t i = 0; i + 1 < S; ++i)
      lastGroup = issueSlice(cst(i), cst(i));

    // Lane offsets of the ldmatrix row addresses (x4: lanes 8i..8i+7 give
    // the rows of 8x8 matrix i; a row is 16 bytes, `rowK` elements: 8 of
    // 16 bits, 16 of 8 bits). m16n8k32 on 8-bit data has the byte layout of
    // m16n8k16 on 16-bit data (each register holds 4 consecutive K of one
    // row of A or column of B instead of 2), so the same loads serve both.
    const int64_t rowK = 16 / s.inBytes;
    Value l16 = rem(lane, 16), half8 = mul(div(lane, 16), 8);
    Value aRow = add(warpRow, l16), aCol = mul(div(lane, 16), rowK);
    Value bRow, bCol;
    if (s.transposeB) {
      // B stored [n][k]: matrices (n 0-7, k 0-7), (n 0-7, k 8-15),
      // (n 8-15, k 0-7), (n 8-15, k 8-15) -> b0, b1 of two n8 fragments
      // (k in 16-byte steps).
      bRow = add(add(warpCol, half8), rem(lane, 8));
      bCol = mul(rem(div(lane, 8), 2), rowK);
    } else {
      // B stored [k][n], read transposed: matrices (k 0-7, n 0-7),
      // (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
      bRow = l16;
      bCol = add(warpCol, half8);
    }

    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(numK), cst(1), accs,
        [&](OpBuilder &, Location, Value kt, ValueRange iterAccs) {
          SmallVector<Value> cur(iterAccs.begin(), iterAccs.end());
          // Slice kt has landed once at most S - 2 newer groups are
          // pending; the barrier makes it visible to every warp and tells
          // that every warp is done with slice kt - 1, whose buffer the
          // next copy refills.
          nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                           b.getI32IntegerAttr(S - 2));
          gpu::BarrierOp::create(b, loc);
          Value next = add(kt, S - 1);
          issueSlice(next, rem(next, S));
          Value stage = rem(kt, S);
          // 32 bits per register and row of a fragment.
          const int64_t perReg = 4 / s.inBytes;
          Type eltA = cast<MemRefType>(lA.getType()).getElementType();
          Type eltB = cast<MemRefType>(lB.getType()).getElementType();
          auto fragA = VectorType::get({4, perReg}, eltA);
          auto quadB = VectorType::get({4, perReg}, eltB);
          auto fragB = VectorType::get({2, perReg}, eltB);
          Value zeroB = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(fragB, b.getZeroAttr(eltB)));
          for (int64_t kk = 0; kk < cfg.tileK; kk += k.mma.k) {
            SmallVector<Value> as, bs;
            for (int64_t mt = 0; mt < fragsM; ++mt)
              as.push_back(nvgpu::LdMatrixOp::create(
                  b, loc, fragA, lA,
                  ValueRange{stage, add(aRow, mt * 16), add(aCol, kk)},
                  /*transpose=*/false, /*numTiles=*/4));
            for (int64_t np = 0; np < fragsN / 2; ++np) {
              Value quad = s.transposeB
                               ? nvgpu::LdMatrixOp::create(
                                     b, loc, quadB, lB,
                                     ValueRange{stage, add(bRow, np * 16),
                                                add(bCol, kk)},
                                     /*transpose=*/false, /*numTiles=*/4)
                               : nvgpu::LdMatrixOp::create(
                                     b, loc, quadB, lB,
                                     ValueRange{stage, add(bRow, kk),
                                                add(bCol, np * 16)},
                                     /*transpose=*/true, /*numTiles=*/4);
              // Rows 2h, 2h+1 are (b0, b1) of fragment 2 np + h; row by
              // row, as n-D strided slices do not lower to LLVM.
              for (int64_t h = 0; h < 2; ++h) {
                Value frag = zeroB;
                for (int64_t j = 0; j < 2; ++j)
                  frag = vector::InsertOp::create(
                      b, loc,
                      vector::ExtractOp::create(b, loc, quad,
                                                ArrayRef<int64_t>{2 * h + j}),
                      frag, ArrayRef<int64_t>{j});
                bs.push_back(frag);
              }
            }
            for (int64_t mt = 0; mt < fragsM; ++mt)
              for (int64_t nt = 0; nt < fragsN; ++nt) {
                Value &acc = cur[mt * fragsN + nt];
                acc = target.createMma(b, loc, k.mma, as[mt], bs[nt], acc);
              }
          }
          scf::YieldOp::create(b, loc, cur);
        });
    accs.assign(loop.getResults().begin(), loop.getResults().end());
    // The last groups only zero-fill; let them finish before the block's
    // shared memory goes away.
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup, b.getI32IntegerAttr(0));
  }

  for (int64_t mt = 0; mt < fragsM; ++mt)
    for (int64_t nt = 0; nt < fragsN; ++nt)
      storeAccumulator(accs[mt * fragsN + nt], add(fragRow, mt * 16),
                       add(fragCol, nt * 8));
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

int64_t product(ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The largest number of elements (8, 4 or 2) a cp.async of a row of
/// `length` elements of `bytes` each can move with every copy aligned.
int64_t copyElements(int64_t length, int64_t bytes) {
  for (int64_t v = 16 / bytes; v * bytes >= 4; v /= 2)
    if (length % v == 0)
      return v;
  return 0;
}

struct ConvertAccelToGPUPass
    : public mlir::accel::impl::ConvertAccelToGPUPassBase<
          ConvertAccelToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<GpuTargetInfo> target = createGpuTargetInfo(chip);
    if (!target) {
      auto diag = module.emitError() << "convert-accel-to-gpu: unknown chip '"
                                     << chip << "' (known: ";
      llvm::interleaveComma(getKnownGpuChips(), diag);
      diag << ")";
      return signalPassFailure();
    }
    if (tileM < 0 || tileN < 0 || tileK < 0 || warps < 0 || stages < 0) {
      module.emitError() << "convert-accel-to-gpu: tile sizes, warps and "
                            "stages must not be negative";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        funcs.push_back(f);
    for (func::FuncOp f : funcs)
      if (failed(convert(f, *target)))
        return signalPassFailure();
    if (!funcs.empty())
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(module.getContext()));
  }

  /// The block tile of `mm`: the defaults with the options applied, checked
  /// against the chip.
  FailureOr<GpuGemmConfig> configure(MatmulOp mm, const GpuGemmShape &shape,
                                     const GpuTargetInfo &target) {
    GpuGemmConfig c = getDefaultGpuGemmConfig(target, shape);
    int64_t w = warps ? int64_t(warps) : c.warpsM * c.warpsN;
    if (tileM)
      c.tileM = tileM;
    if (tileN)
      c.tileN = tileN;
    if (tileK)
      c.tileK = tileK;
    if (stages)
      c.stages = stages;
    if (c.tileM % 16 != 0 || c.tileN % 16 != 0 || c.tileK % 16 != 0)
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << "x" << c.tileK
             << " is not made of 16x16x16 blocks (ldmatrix x4 loads 16x16 "
                "and mma.sync m16n8k16 is 16 deep): tile-m, tile-n and "
                "tile-k must be multiples of 16";
    if (shape.inBytes == 1 && c.tileK % 32 != 0)
      return mm.emitOpError("tile-k = ")
             << c.tileK
             << " is not a multiple of 32: 8-bit inputs are multiplied by "
                "mma.sync m16n8k32, 32 deep";
    if (c.stages < 2)
      return mm.emitOpError("needs at least 2 stages (one slice copied "
                            "while the warps multiply another), got ")
             << c.stages;
    // Chosen warps follow a given tile: more while a warp would own more
    // than 64x64 of C (128 accumulator registers), fewer while they do not
    // split it. Given warps must fit.
    if (!warps) {
      while (c.tileM * c.tileN / w > 64 * 64 &&
             2 * w * target.getWarpSize() <= target.getMaxThreadsPerBlock())
        w *= 2;
      while (w > 1 && !splitGpuWarps(c.tileM, c.tileN, w, c))
        w /= 2;
    }
    if (!splitGpuWarps(c.tileM, c.tileN, w, c))
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << " cannot be split among " << w
             << " warps: warps = wm x wn needs tile-m a multiple of 16 wm "
                "and tile-n a multiple of 16 wn";
    int64_t threads = w * target.getWarpSize();
    if (threads > target.getMaxThreadsPerBlock())
      return mm.emitOpError("needs ")
             << threads << " threads per block; " << target.getChip()
             << " allows " << target.getMaxThreadsPerBlock();
    int64_t smem = getGpuGemmSharedBytes(shape, c);
    if (smem > target.getMaxSharedMemoryPerBlock())
      return mm.emitOpError("tile ")
             << c.tileM << "x" << c.tileN << "x" << c.tileK << " with "
             << c.stages << " stages needs " << smem
             << " bytes of shared memory; " << target.getChip() << " has "
             << target.getMaxSharedMemoryPerBlock() << " per block";
    return c;
  }

  LogicalResult convert(func::FuncOp func, const GpuTargetInfo &target) {
    // Functions of accel.attention have their own kernel
    // (AttentionKernel.cpp).
    if (hasGpuAttention(func))
      return convertGpuAttentionFunction(func, target, stages);
    SmallVector<MatmulOp> matmuls;
    for (Operation &op : func.getBody().front()) {
      if (auto mm = dyn_cast<MatmulOp>(op))
        matmuls.push_back(mm);
      else if (!isa<tensor::EmptyOp, arith::ConstantOp, func::ReturnOp>(op))
        return op.emitOpError("has no GPU lowering (convert-accel-to-gpu "
                              "compiles functions of accel.matmul ops)");
    }
    if (matmuls.empty())
      return func.emitOpError("has no accel.matmul to compile for the GPU");

    // The host buffer behind each value a kernel reads or writes.
    SmallVector<Operation *> computed(matmuls.begin(), matmuls.end());
    FailureOr<DenseMap<Value, std::string>> buffers =
        nameKernelBuffers(func, computed, "accel.matmul");
    if (failed(buffers))
      return failure();
    DenseMap<Value, std::string> &bufferOf = *buffers;

    // Check everything before building anything.
    SmallVector<GemmKernel> kernels;
    for (MatmulOp mm : matmuls) {
      FailureOr<GemmKernel> kernel = plan(mm, bufferOf, target);
      if (failed(kernel))
        return failure();
      kernels.push_back(*kernel);
    }

    std::string moduleName = (func.getSymName() + "_kernels").str();
    auto parent = func->getParentOfType<ModuleOp>();
    if (parent.lookupSymbol(moduleName))
      return func.emitOpError("cannot place its kernels: the symbol @")
             << moduleName << " already exists";
    OpBuilder b(func);
    Location loc = func.getLoc();
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, moduleName);
    b.setInsertionPointToStart(gpuModule.getBody());
    for (auto [i, mm] : llvm::enumerate(matmuls)) {
      const GemmKernel &k = kernels[i];
      if (k.shape.m == 0 || k.shape.n == 0 || k.shape.batch == 0)
        continue; // an empty C: nothing to launch
      emitKernel(b, mm, (func.getSymName() + "_" + Twine(i)).str(), k, bufferOf,
                 target);
    }
    func.erase();
    return success();
  }

  FailureOr<GemmKernel> plan(MatmulOp mm,
                             const DenseMap<Value, std::string> &bufferOf,
                             const GpuTargetInfo &target) {
    auto aType = mm.getLhs().getType(), bType = mm.getRhs().getType();
    auto cType = mm.getInit().getType();
    if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
        !cType.hasStaticShape())
      return mm.emitOpError("needs static shapes on the GPU target");
    GemmKernel k;
    k.inType = aType.getElementType();
    k.inTypeB = bType.getElementType();
    k.outType = cType.getElementType();
    k.accumulate = mm.getAccumulate();
    int64_t rank = cType.getRank();
    k.batched = rank > 2;
    GpuGemmShape &s = k.shape;
    s.batch = product(cType.getShape().drop_back(2));
    s.m = cType.getDimSize(rank - 2);
    s.n = cType.getDimSize(rank - 1);
    s.k = aType.getDimSize(rank - 1);
    s.transposeB = mm.getTransposeB();

    // The op's verifier admits f32, f16, bf16, f8 and i8 inputs (scales
    // only with f8 and i8), C never narrower than them.
    std::optional<GpuMmaType> mmaType = getGpuMmaType(k.inType);
    std::string why;
    std::optional<GpuMmaInstr> instr =
        mmaType ? target.findMma(*mmaType, why) : std::nullopt;
    if (!instr)
      return mm.emitOpError("of ")
             << k.inType << " inputs has no GPU lowering: " << why;
    if (*mmaType == GpuMmaType::TF32)
      return mm.emitOpError("of ")
             << k.inType
             << " inputs has no GPU lowering yet: convert-accel-to-gpu "
                "emits mma.sync for f16, bf16, f8 and i8 only ("
             << stringifyGpuMmaType(*mmaType) << " kernels are not done)";
    k.mma = *instr;
    // The verifier lets only f8 mix types (e4m3 with e5m2): same chips.
    if (k.inTypeB != k.inType)
      k.mma.inputB = getGpuMmaType(k.inTypeB);
    s.inBytes = k.inType.getIntOrFloatBitWidth() / 8;
    if (mm.getLhsScale())
      return mm.emitOpError("with scales has no GPU lowering yet: the "
                            "kernels of convert-accel-to-gpu take no scalar "
                            "parameters (scaled ")
             << k.inType << " kernels are not done)";
    // mma.sync m16n8k32 wants 4 consecutive K of a column of B in each
    // register; ldmatrix .trans moves 16-bit elements only, so B as [K, N]
    // would need a transposing copy into shared memory.
    if (s.inBytes == 1 && !s.transposeB)
      return mm.emitOpError("of ")
             << k.inType
             << " inputs has no GPU lowering yet for B stored [K, N]: 8-bit "
                "kernels read B as [N, K] (transpose_b), as ldmatrix cannot "
                "transpose 8-bit elements (transposing B into shared memory "
                "is not done)";

    // Rows of A are K long, rows of B K (transposed) or N long; cp.async
    // moves aligned 4-, 8- or 16-byte pieces of them.
    k.vecA = copyElements(s.k, s.inBytes);
    int64_t bRow = s.transposeB ? s.k : s.n;
    k.vecB = copyElements(bRow, s.inBytes);
    if (s.inBytes == 1 && (!k.vecA || !k.vecB))
      return mm.emitOpError("K = ")
             << s.k
             << " is not a multiple of 4: the rows of A and B are copied to "
                "shared memory by cp.async in aligned pieces of at least 4 "
                "bytes (4 elements of "
             << k.inType << "); pad it to a multiple of 4";
    if (!k.vecA || !k.vecB)
      return mm.emitOpError()
             << (k.vecA ? "N = " : "K = ") << (k.vecA ? s.n : s.k)
             << " is odd: the rows of " << (k.vecA ? "B" : "A")
             << " are copied to shared memory by cp.async in aligned pieces "
                "of at least 4 bytes (2 elements); pad it to an even size";

    FailureOr<GpuGemmConfig> config = configure(mm, s, target);
    if (failed(config))
      return failure();
    k.config = *config;

    std::array<int64_t, 3> grid = {ceilDiv(s.n, k.config.tileN),
                                   ceilDiv(s.m, k.config.tileM), s.batch};
    std::array<int64_t, 3> maxGrid = target.getMaxGridSize();
    for (int d = 0; d < 3; ++d)
      if (grid[d] > maxGrid[d])
        return mm.emitOpError("needs a grid of ")
               << grid[0] << " x " << grid[1] << " x " << grid[2] << " blocks; "
               << target.getChip() << " allows at most " << maxGrid[0] << " x "
               << maxGrid[1] << " x " << maxGrid[2];

    // Nothing is read for an empty C, nor A and B when K = 0.
    if (s.m == 0 || s.n == 0 || s.batch == 0)
      return k;
    for (Value v : {mm.getLhs(), mm.getRhs()})
      if (s.k > 0 && !bufferOf.count(v))
        return mm.emitOpError("reads a value that is not a kernel buffer (a "
                              "function argument or an accel.matmul "
                              "result)");
    if (k.accumulate && !bufferOf.count(mm.getInit()))
      return mm.emitOpError("accumulates into a value that is not a kernel "
                            "buffer (a function argument or an accel.matmul "
                            "result)");
    return k;
  }

  void emitKernel(OpBuilder &b, MatmulOp mm, StringRef name,
                  const GemmKernel &k,
                  const DenseMap<Value, std::string> &bufferOf,
                  const GpuTargetInfo &target) {
    MLIRContext *ctx = b.getContext();
    Location loc = mm.getLoc();
    const GpuGemmShape &s = k.shape;
    auto memref = [&](int64_t rows, int64_t cols, Type elt) {
      if (k.batched)
        return MemRefType::get({s.batch, rows, cols}, elt);
      return MemRefType::get({rows, cols}, elt);
    };
    SmallVector<Type> params;
    SmallVector<Attribute> args, access;
    // With K = 0, A and B hold no element and are no parameters (a bare
    // pointer cannot stand for an empty memref).
    if (s.k > 0) {
      params = {memref(s.m, s.k, k.inType), s.transposeB
                                                ? memref(s.n, s.k, k.inTypeB)
                                                : memref(s.k, s.n, k.inTypeB)};
      args = {StringAttr::get(ctx, bufferOf.lookup(mm.getLhs())),
              StringAttr::get(ctx, bufferOf.lookup(mm.getRhs()))};
      access = {StringAttr::get(ctx, "in"), StringAttr::get(ctx, "in")};
    }
    if (k.accumulate) {
      params.push_back(memref(s.m, s.n, k.outType));
      args.push_back(StringAttr::get(ctx, bufferOf.lookup(mm.getInit())));
      access.push_back(StringAttr::get(ctx, "in"));
    }
    params.push_back(memref(s.m, s.n, k.outType));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(mm.getResult())));
    access.push_back(StringAttr::get(ctx, "out"));

    auto func =
        gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(params, {}));
    const GpuGemmConfig &c = k.config;
    int64_t threads = c.warpsM * c.warpsN * target.getWarpSize();
    std::array<int64_t, 3> grid = {ceilDiv(s.n, c.tileN), ceilDiv(s.m, c.tileM),
                                   s.batch};
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    func.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(
        {int32_t(grid[0]), int32_t(grid[1]), int32_t(grid[2])}));
    NamedAttribute launch[] = {
        b.getNamedAttr("grid", b.getDenseI64ArrayAttr(grid)),
        b.getNamedAttr("block", b.getDenseI64ArrayAttr({threads, 1, 1})),
        b.getNamedAttr(
            "dynamic_shared_memory",
            b.getI64IntegerAttr(s.k == 0 ? 0 : getGpuGemmSharedBytes(s, c))),
        b.getNamedAttr("chip", b.getStringAttr(target.getChip())),
        b.getNamedAttr("args", b.getArrayAttr(args)),
        b.getNamedAttr("access", b.getArrayAttr(access)),
        b.getNamedAttr("tile",
                       b.getDenseI64ArrayAttr({c.tileM, c.tileN, c.tileK})),
        b.getNamedAttr("warps", b.getDenseI64ArrayAttr({c.warpsM, c.warpsN})),
        b.getNamedAttr("stages", b.getI64IntegerAttr(c.stages))};
    func->setAttr("accel.launch", b.getDictionaryAttr(launch));

    Block *entry = &func.getBody().front();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    KernelBuilder kb(body, loc, k, target, entry);
    unsigned next = 0;
    Value a = s.k > 0 ? entry->getArgument(next++) : Value();
    Value bArg = s.k > 0 ? entry->getArgument(next++) : Value();
    Value cIn = k.accumulate ? entry->getArgument(next++) : Value();
    kb.emit(a, bArg, cIn, entry->getArgument(next));
  }
};

} // namespace
