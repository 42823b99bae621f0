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
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
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
#include "llvm/ADT/StringExtras.h"
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

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

namespace {

/// Builds the body of one kernel.
class KernelBuilder : public GpuIndexBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const GemmKernel &k,
                const GpuTargetInfo &target, Block *entry)
      : GpuIndexBuilder(b, loc, entry), k(k), cfg(k.config), target(target) {}

  void emit(Value gA, Value gB, Value gCin, Value gC);

private:
  /// The wgmma kernel (cfg.wgmma): emit()'s body for sm_90a.
  void emitWgmma();
  /// The kernel of chips without asynchronous copies and with lane-layout
  /// fragments (AMD MFMA / WMMA): emit()'s body there.
  void emitLds(const GpuLaneLayout &layout);
  /// Loads this thread's part of K-slice `kt` of A and B from global memory
  /// into registers (vectors of vecA / vecB elements; zeros outside A, B).
  SmallVector<Value> loadSliceToRegisters(Value kt);
  /// Stores what loadSliceToRegisters returned into LDS buffer `stage`: A
  /// as [tileM][tileK + pad], B transposed as [tileN][tileK + pad].
  void storeSliceToLds(ArrayRef<Value> regs, Value stage);
  /// The (row, column) in a tileRows x tileCols slice of copy `first` + tid
  /// of `vec` elements (the last round clamped as in copySlice).
  std::pair<Value, Value> copyCoord(int64_t tileRows, int64_t tileCols,
                                    int64_t vec, int64_t first);
  /// cp.async of a tile of `rows` rows x `chunks` 16-byte chunks of `src`
  /// (global element (row0 + r, col0 + c * 16 bytes)) into the 1-D shared
  /// ring `dst` from element `base` on, in wgmma's 128-byte swizzle: the
  /// chunks in blocks of 8 (a 128-byte row), block j at j * rows * 128
  /// bytes, row r of a block at r * 128 bytes and its chunk c at
  /// (c ^ (r % 8)) * 16 bytes. Limits and zero-fill as in copySlice.
  void copySwizzled(Value src, Value dst, Value base, int64_t rows,
                    int64_t chunks, Value row0, Value col0, int64_t rowLimit,
                    int64_t colLimit, bool checkRows, bool checkCols,
                    SmallVectorImpl<Value> &tokens);
  /// The cp.async group of K-slice `kt` into ring buffer `stage` (wgmma).
  Value issueSwizzledSlice(Value kt, Value stage);

  /// Who this thread is: tid, lane, the block's corner of C (blockRow,
  /// blockCol), its batch and its warp's part (warpRow, warpCol).
  void locateThread() {
    const int64_t warp = target.getWarpSize();
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value warpId = div(tid, warp);
    lane = rem(tid, warp);
    blockCol =
        mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), cfg.tileN);
    blockRow =
        mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), cfg.tileM);
    if (k.batched)
      batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
    warpRow = mul(div(warpId, cfg.warpsN), cfg.tileM / cfg.warpsM);
    warpCol = mul(rem(warpId, cfg.warpsN), cfg.tileN / cfg.warpsN);
  }

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
  /// A copy of `vec` elements from global (gr, gc): when the row or the
  /// column can reach its limit (-1: cannot), the number of source elements
  /// (vec, or 0 outside: zero-fill) with gr and gc clamped to 0 outside;
  /// else null (all of them).
  Value clampSource(Value &gr, Value &gc, int64_t vec, int64_t rowLimit,
                    int64_t colLimit) {
    Value valid = both(rowLimit >= 0 ? ult(gr, rowLimit) : Value(),
                       colLimit >= 0 ? ult(gc, colLimit) : Value());
    if (!valid)
      return Value();
    Value n = arith::SelectOp::create(b, loc, valid, cst(vec), cst(0));
    gr = arith::SelectOp::create(b, loc, valid, gr, cst(0));
    gc = arith::SelectOp::create(b, loc, valid, gc, cst(0));
    return n;
  }
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
  /// The same for copySwizzled: (row, column chunk, offset in the tile), by
  /// (rows, chunks, first copy of the round).
  std::map<std::array<int64_t, 3>, std::array<Value, 3>> swizzledCoords;

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
    auto [r, c] = copyCoord(tileRows, tileCols, vec, first);
    Value gr = add(row0, r), gc = add(col0, c);
    Value n = clampSource(gr, gc, vec, checkRows ? rowLimit : -1,
                          checkCols ? colLimit : -1);
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
      pair = readIf(
          guard, pairAcc, [&] { return load(b, loc); }, [&] { return zeros; });
    } else {
      // Odd N: element by element.
      SmallVector<Value> elems;
      for (int64_t j = 0; j < 2; ++j) {
        Value c = add(col, j);
        elems.push_back(readIf(
            both(inRow, ult(c, n)), accElt,
            [&] {
              return extend(memref::LoadOp::create(b, loc, gCin, global(r, c)));
            },
            [&] { return zeroOf(accElt); }));
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
  if (cfg.wgmma)
    return emitWgmma();
  if (std::optional<GpuLaneLayout> layout = target.getLaneLayout(k.mma))
    return emitLds(*layout);
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t pad = getGpuSharedRowPad(s.inBytes);
  const int64_t S = cfg.stages;
  const int64_t partM = cfg.tileM / cfg.warpsM, partN = cfg.tileN / cfg.warpsN;
  const int64_t fragsM = partM / k.mma.m, fragsN = partN / k.mma.n;

  locateThread();

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
// The LDS kernel (AMD MFMA / WMMA)
//===----------------------------------------------------------------------===//

std::pair<Value, Value> KernelBuilder::copyCoord(int64_t tileRows,
                                                 int64_t tileCols, int64_t vec,
                                                 int64_t first) {
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  const int64_t perRow = tileCols / vec, total = tileRows * perRow;
  auto [it, inserted] =
      copyCoords.try_emplace({tileRows, tileCols, vec, first});
  if (inserted) {
    Value id = add(tid, first);
    // A last round with fewer copies than threads: the extra threads repeat
    // the last copy (same bytes to the same place, harmless).
    if (first + threads > total)
      id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
    it->second = {div(id, perRow), mul(rem(id, perRow), vec)};
  }
  return it->second;
}

SmallVector<Value> KernelBuilder::loadSliceToRegisters(Value kt) {
  const GpuGemmShape &s = k.shape;
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  Value k0 = mul(kt, cfg.tileK);
  SmallVector<Value> regs;
  // One vector of `vec` elements per copy, from a clamped address and
  // replaced by zeros outside the matrix (branch-free: every lane loads).
  auto load = [&](Value src, Type elt, int64_t rows, int64_t cols, int64_t vec,
                  Value row0, Value col0, int64_t rowLimit, int64_t colLimit,
                  bool checkRows, bool checkCols) {
    auto vecType = VectorType::get({vec}, elt);
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecType, b.getZeroAttr(elt)));
    for (int64_t first = 0; first < rows * (cols / vec); first += threads) {
      auto [r, c] = copyCoord(rows, cols, vec, first);
      Value gr = add(row0, r), gc = add(col0, c);
      Value valid = clampSource(gr, gc, vec, checkRows ? rowLimit : -1,
                                checkCols ? colLimit : -1);
      Value v = vector::LoadOp::create(
          b, loc, vecType, src, global(gr, gc), false,
          llvm::MaybeAlign(vec * elt.getIntOrFloatBitWidth() / 8));
      if (valid)
        v = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, valid,
                                  cst(0)),
            v, zeros);
      regs.push_back(v);
    }
  };
  // K is checked even when tileK divides it: the last iteration loads the
  // slice past K (zeros) rather than branch.
  load(gA, k.inType, cfg.tileM, cfg.tileK, k.vecA, blockRow, k0, s.m, s.k,
       s.m % cfg.tileM != 0, true);
  if (s.transposeB)
    load(gB, k.inTypeB, cfg.tileN, cfg.tileK, k.vecB, blockCol, k0, s.n, s.k,
         s.n % cfg.tileN != 0, true);
  else
    load(gB, k.inTypeB, cfg.tileK, cfg.tileN, k.vecB, k0, blockCol, s.k, s.n,
         true, s.n % cfg.tileN != 0);
  return regs;
}

void KernelBuilder::storeSliceToLds(ArrayRef<Value> regs, Value stage) {
  const GpuGemmShape &s = k.shape;
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  size_t next = 0;
  auto rounds = [&](int64_t rows, int64_t cols, int64_t vec) {
    SmallVector<int64_t> firsts;
    for (int64_t first = 0; first < rows * (cols / vec); first += threads)
      firsts.push_back(first);
    return firsts;
  };
  for (int64_t first : rounds(cfg.tileM, cfg.tileK, k.vecA)) {
    auto [r, c] = copyCoord(cfg.tileM, cfg.tileK, k.vecA, first);
    vector::StoreOp::create(b, loc, regs[next++], sA, ValueRange{stage, r, c});
  }
  if (s.transposeB) {
    for (int64_t first : rounds(cfg.tileN, cfg.tileK, k.vecB)) {
      auto [r, c] = copyCoord(cfg.tileN, cfg.tileK, k.vecB, first);
      vector::StoreOp::create(b, loc, regs[next++], sB,
                              ValueRange{stage, r, c});
    }
    return;
  }
  // B as [K, N]: a copy holds vecB consecutive N of one K; the fragments
  // want runs of K, so it is transposed on the way into LDS, element by
  // element.
  for (int64_t first : rounds(cfg.tileK, cfg.tileN, k.vecB)) {
    auto [r, c] = copyCoord(cfg.tileK, cfg.tileN, k.vecB, first);
    Value v = regs[next++];
    for (int64_t i = 0; i < k.vecB; ++i)
      memref::StoreOp::create(
          b, loc, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{i}),
          sB, ValueRange{stage, add(c, i), r});
  }
}

void KernelBuilder::emitLds(const GpuLaneLayout &layout) {
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t pad = getGpuSharedRowPad(s.inBytes);
  const int64_t partM = cfg.tileM / cfg.warpsM, partN = cfg.tileN / cfg.warpsN;
  const int64_t fragsM = partM / k.mma.m, fragsN = partN / k.mma.n;

  locateThread();

  // Where this lane's fragment elements sit (GpuLaneLayout): R = lane % 16
  // is the row of A, the column of B and of C; G = lane / 16 picks A's and
  // B's run of K and C's rows.
  Value laneR = rem(lane, 16), laneG = div(lane, 16);
  Value kRun = mul(rem(laneG, layout.kGroups), layout.kPerLane);

  const int64_t numK = ceilDiv(s.k, cfg.tileK);
  // Two LDS buffers of A [tileM][tileK + pad] and B [tileN][tileK + pad]
  // (B always K-contiguous: a fragment is one vector load either way).
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto aType = MemRefType::get({cfg.stages, cfg.tileM, cfg.tileK + pad},
                               k.inType, MemRefLayoutAttrInterface(), wg);
  auto bType = MemRefType::get({cfg.stages, cfg.tileN, cfg.tileK + pad},
                               k.inTypeB, MemRefLayoutAttrInterface(), wg);
  if (numK > 0) {
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    sA = memref::ViewOp::create(b, loc, aType, dyn, cst(0), ValueRange{});
    sB = memref::ViewOp::create(b, loc, bType, dyn,
                                cst(aType.getNumElements() * s.inBytes),
                                ValueRange{});
  }

  Type accElt = accElement();
  auto accType = VectorType::get({layout.accPerLane}, accElt);
  // C element e of fragment (mt, nt): row fragRow + 16 mt + e * accRowStep,
  // column fragCol + 16 nt.
  Value fragRow =
      add(add(blockRow, warpRow), mul(laneG, layout.accLaneRowStep));
  Value fragCol = add(add(blockCol, warpCol), laneR);
  auto element = [&](int64_t mt, int64_t nt, int64_t e) {
    return std::make_pair(add(fragRow, mt * 16 + e * layout.accRowStep),
                          add(fragCol, nt * 16));
  };
  auto guard = [&](Value r, Value c) {
    return both(s.m % cfg.tileM != 0 ? ult(r, s.m) : Value(),
                s.n % cfg.tileN != 0 ? ult(c, s.n) : Value());
  };
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getZeroAttr(accElt)));
  SmallVector<Value> accs;
  for (int64_t mt = 0; mt < fragsM; ++mt)
    for (int64_t nt = 0; nt < fragsN; ++nt) {
      if (!k.accumulate) {
        accs.push_back(zeroAcc);
        continue;
      }
      // C read element by element, 16 lanes of a row group reading 16
      // consecutive elements of a row.
      SmallVector<Value> elems;
      for (int64_t e = 0; e < layout.accPerLane; ++e) {
        Value r, c;
        std::tie(r, c) = element(mt, nt, e);
        auto read = [&]() -> Value {
          Value v = memref::LoadOp::create(b, loc, gCin, global(r, c));
          return k.outType == accElt
                     ? v
                     : arith::ExtFOp::create(b, loc, accElt, v).getResult();
        };
        elems.push_back(
            readIf(guard(r, c), accElt, read, [&] { return zeroOf(accElt); }));
      }
      accs.push_back(vector::FromElementsOp::create(b, loc, accType, elems));
    }

  if (numK > 0) {
    // Software pipeline through registers (no asynchronous copies): slice
    // kt + 1 is loaded from global memory while the waves multiply slice kt
    // out of LDS buffer kt % 2, then stored into the other buffer, which
    // every wave finished reading before the barrier that ended iteration
    // kt - 1. One barrier per slice.
    SmallVector<Value> regs = loadSliceToRegisters(cst(0));
    storeSliceToLds(regs, cst(0));
    gpu::BarrierOp::create(b, loc);
    auto fragType = [&](Type elt) {
      return VectorType::get({layout.kPerLane}, elt);
    };
    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(numK), cst(1), accs,
        [&](OpBuilder &, Location, Value kt, ValueRange iterAccs) {
          SmallVector<Value> cur(iterAccs.begin(), iterAccs.end());
          Value next = add(kt, 1);
          SmallVector<Value> nextRegs = loadSliceToRegisters(next);
          Value stage = rem(kt, cfg.stages);
          for (int64_t kk = 0; kk < cfg.tileK; kk += k.mma.k) {
            SmallVector<Value> as, bs;
            for (int64_t mt = 0; mt < fragsM; ++mt)
              as.push_back(vector::LoadOp::create(
                  b, loc, fragType(k.inType), sA,
                  ValueRange{stage, add(add(warpRow, laneR), mt * 16),
                             add(kRun, kk)}));
            for (int64_t nt = 0; nt < fragsN; ++nt)
              bs.push_back(vector::LoadOp::create(
                  b, loc, fragType(k.inTypeB), sB,
                  ValueRange{stage, add(add(warpCol, laneR), nt * 16),
                             add(kRun, kk)}));
            for (int64_t mt = 0; mt < fragsM; ++mt)
              for (int64_t nt = 0; nt < fragsN; ++nt) {
                Value &acc = cur[mt * fragsN + nt];
                acc = target.createMma(b, loc, k.mma, as[mt], bs[nt], acc);
              }
          }
          storeSliceToLds(nextRegs, rem(next, cfg.stages));
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, cur);
        });
    accs.assign(loop.getResults().begin(), loop.getResults().end());
  }

  // The epilogue: element by element, each row of 16 lanes storing 16
  // consecutive elements of C.
  for (int64_t mt = 0; mt < fragsM; ++mt)
    for (int64_t nt = 0; nt < fragsN; ++nt)
      for (int64_t e = 0; e < layout.accPerLane; ++e) {
        auto [r, c] = element(mt, nt, e);
        Value v = vector::ExtractOp::create(b, loc, accs[mt * fragsN + nt],
                                            ArrayRef<int64_t>{e});
        if (k.outType != accElt)
          v = arith::TruncFOp::create(b, loc, k.outType, v);
        OpBuilder::InsertionGuard ig(b);
        if (Value g = guard(r, c)) {
          auto ifOp = scf::IfOp::create(b, loc, g, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifOp.thenBlock());
        }
        memref::StoreOp::create(b, loc, v, gC, global(r, c));
      }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The wgmma kernel (sm_90a)
//===----------------------------------------------------------------------===//

void KernelBuilder::copySwizzled(Value src, Value dst, Value base, int64_t rows,
                                 int64_t chunks, Value row0, Value col0,
                                 int64_t rowLimit, int64_t colLimit,
                                 bool checkRows, bool checkCols,
                                 SmallVectorImpl<Value> &tokens) {
  const int64_t threads = cfg.warpsM * cfg.warpsN * target.getWarpSize();
  const int64_t vec = 16 / k.shape.inBytes;
  const int64_t total = rows * chunks;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t first = 0; first < total; first += threads) {
    auto [it, inserted] = swizzledCoords.try_emplace({rows, chunks, first});
    if (inserted) {
      Value id = add(tid, first);
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      Value r = div(id, chunks), c = rem(id, chunks);
      it->second = {r, c, swizzledOffset(r, c, rows, vec)};
    }
    auto [r, c, offset] = it->second;
    Value gr = add(row0, r), gc = add(col0, mul(c, vec));
    Value n = clampSource(gr, gc, vec, checkRows ? rowLimit : -1,
                          checkCols ? colLimit : -1);
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, dst, ValueRange{add(base, offset)}, src,
        global(gr, gc), b.getIndexAttr(vec), n, b.getUnitAttr()));
  }
}

Value KernelBuilder::issueSwizzledSlice(Value kt, Value stage) {
  const GpuGemmShape &s = k.shape;
  const int64_t rowElems = 128 / s.inBytes;
  Value k0 = mul(kt, cfg.tileK);
  SmallVector<Value> tokens;
  copySwizzled(gA, sA, mul(stage, cfg.tileM * rowElems), cfg.tileM, 8, blockRow,
               k0, s.m, s.k, s.m % cfg.tileM != 0, true, tokens);
  Value baseB = mul(stage, cfg.tileN * rowElems);
  if (k.bMnMajor)
    // [tileK] rows of N: tileN / 64 blocks of 128 bytes of N.
    copySwizzled(gB, sB, baseB, cfg.tileK, cfg.tileN * s.inBytes / 16, k0,
                 blockCol, s.k, s.n, true, s.n % cfg.tileN != 0, tokens);
  else
    copySwizzled(gB, sB, baseB, cfg.tileN, 8, blockCol, k0, s.n, s.k,
                 s.n % cfg.tileN != 0, true, tokens);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), tokens);
}

void KernelBuilder::emitWgmma() {
  MLIRContext *ctx = b.getContext();
  const GpuGemmShape &s = k.shape;
  const int64_t S = cfg.stages;
  const int64_t rowBytes = 128;
  const int64_t rowElems = rowBytes / s.inBytes;
  // One wgmma is 16 deep for 16-bit inputs, 32 for 8-bit: 32 bytes of K.
  const int64_t instrK = 32 / s.inBytes;
  const bool promote = promotesWgmmaAccumulation(k);
  // wgmma groups in flight while the next one is issued: with 3 or more
  // stages the copy of slice kt + S - 2 overwrites the buffer of slice
  // kt - 2, whose wgmma has completed. A promoting kernel waits for every
  // slice's group before it adds the slice up (wgmma.wait_group 0): none
  // is in flight, and the copy of slice kt + S - 1 refills the buffer of
  // slice kt - 1, which every warpgroup has finished reading by the
  // barrier.
  const int64_t inFlight = S >= 3 && !promote ? 1 : 0;

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(tid, 32);
  Value group = div(tid, 128), warpInGroup = div(rem(tid, 128), 32);
  blockCol = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), cfg.tileN);
  blockRow = mul(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y), cfg.tileM);
  if (k.batched)
    batchIdx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);

  const int64_t numK = ceilDiv(s.k, cfg.tileK);
  auto wg = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value baseA, baseB;
  if (numK > 0) {
    auto [dyn, start, pad] = swizzleAlignedSharedMemory();
    auto ring = [&](int64_t rows, Type elt) {
      return MemRefType::get({S * rows * rowElems}, elt,
                             MemRefLayoutAttrInterface(), wg);
    };
    Value offsetB = add(pad, S * cfg.tileM * rowBytes);
    sA = memref::ViewOp::create(b, loc, ring(cfg.tileM, k.inType), dyn, pad,
                                ValueRange{});
    sB = memref::ViewOp::create(b, loc, ring(cfg.tileN, k.inTypeB), dyn,
                                offsetB, ValueRange{});
    baseA = add(start, pad);
    baseB = add(start, offsetB);
  }

  // The accumulators of a warpgroup's 64 x tileN part of C: tileN / 2 per
  // thread, as wgmma's D struct. Element 4j + q of a thread of warp w
  // (lane l) of its group is C[64 g + 16 w + l / 4 + 8 (q / 2)]
  // [8 j + 2 (l % 4) + q % 2]: mma.sync's m16n8 C fragment per warp.
  const int64_t perThread = cfg.tileN / 2;
  Type accElt = accElement();
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(perThread, accElt));
  Value fragRow = add(add(add(blockRow, mul(group, 64)), mul(warpInGroup, 16)),
                      div(lane, 4));
  Value fragCol = add(blockCol, mul(rem(lane, 4), 2));
  Value acc = LLVM::ZeroOp::create(b, loc, accType);
  if (k.accumulate) {
    for (int64_t j = 0; j < cfg.tileN / 8; ++j) {
      Value pairs = loadAccumulator(fragRow, add(fragCol, 8 * j));
      for (int64_t q = 0; q < 4; ++q)
        acc = LLVM::InsertValueOp::create(
            b, loc, acc,
            vector::ExtractOp::create(b, loc, pairs,
                                      ArrayRef<int64_t>{q / 2, q % 2}),
            4 * j + q);
    }
  }

  if (numK > 0) {
    auto mmaType = [&](Type t) {
      if (t.isF16())
        return NVVM::WGMMATypes::f16;
      if (t.isBF16())
        return NVVM::WGMMATypes::bf16;
      if (isa<Float8E4M3FNType>(t))
        return NVVM::WGMMATypes::e4m3;
      if (isa<Float8E5M2Type>(t))
        return NVVM::WGMMATypes::e5m2;
      return NVVM::WGMMATypes::s8;
    };
    NVVM::WGMMATypes typeA = mmaType(k.inType), typeB = mmaType(k.inTypeB);
    NVVM::WGMMATypes typeD =
        k.mma.accumulatesInInt ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32;
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, cfg.tileN, instrK);
    // A is K-major ("row"); B K-major ("col") as [N, K], N-major ("row",
    // wgmma's transposed B) as [K, N].
    NVVM::MMALayout layoutB =
        k.bMnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col;

    Value lastGroup;
    for (int64_t i = 0; i + 1 + inFlight < S; ++i)
      lastGroup = issueSwizzledSlice(cst(i), cst(i));
    // Promoting: the loop also carries the slice accumulator, whose value
    // is never read (each slice's first wgmma has scale-d zero); carried,
    // it needs no zeroing.
    SmallVector<Value> iterInit = {acc};
    if (promote)
      iterInit.push_back(LLVM::ZeroOp::create(b, loc, accType));
    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(numK), cst(1), iterInit,
        [&](OpBuilder &, Location, Value kt, ValueRange iterAcc) {
          Value cur = iterAcc.front();
          Value slice = promote ? iterAcc[1] : Value();
          // Slice kt has landed (this thread's copies); the proxy fence
          // makes the copies' generic-proxy writes visible to wgmma's
          // async-proxy reads, and the barrier makes every thread's visible
          // and tells that every warpgroup is done with slice
          // kt - 1 - inFlight, whose buffer the next copy refills.
          nvgpu::DeviceAsyncWaitOp::create(
              b, loc, lastGroup, b.getI32IntegerAttr(S - 2 - inFlight));
          NVVM::FenceProxyOp::create(
              b, loc, NVVM::ProxyKind::async_shared,
              NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
          gpu::BarrierOp::create(b, loc);
          Value next = add(kt, S - 1 - inFlight);
          issueSwizzledSlice(next, rem(next, S));
          Value stage = rem(kt, S);
          Value aStart = add(add(baseA, mul(stage, cfg.tileM * rowBytes)),
                             mul(group, 64 * rowBytes));
          Value bStart = add(baseB, mul(stage, cfg.tileN * rowBytes));
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          for (int64_t kk = 0; kk < cfg.tileK; kk += instrK) {
            // K-major: the 8-row groups of 128 bytes are 1024 bytes apart
            // (the stride offset; the leading one is unused), and a step
            // of K moves the start within the swizzled row. N-major: the
            // 8-row groups of K are 1024 bytes apart, the 64-element blocks
            // of N tileK * 128 bytes (the leading offset).
            Value descA =
                wgmmaDescriptor(add(aStart, kk * s.inBytes), 16, 1024);
            Value descB =
                k.bMnMajor
                    ? wgmmaDescriptor(add(bStart, (kk / 8) * 1024),
                                      cfg.tileK * rowBytes, 1024)
                    : wgmmaDescriptor(add(bStart, kk * s.inBytes), 16, 1024);
            // Promoting: the slice's sum starts at its first wgmma (D =
            // A.B, scale-d zero) and leaves `cur` alone.
            Value &d = promote ? slice : cur;
            d = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, accType, d, descA, descB, shape, typeA, typeB, typeD,
                promote && kk == 0 ? NVVM::WGMMAScaleOut::zero
                                   : NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row, layoutB,
                k.mma.accumulatesInInt ? NVVM::MMAIntOverflowAttr::get(
                                             ctx, NVVM::MMAIntOverflow::wrapped)
                                       : NVVM::MMAIntOverflowAttr());
          }
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          // Promoting, inFlight is 0: the slice's registers are complete
          // before they are read.
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, inFlight);
          if (!promote) {
            scf::YieldOp::create(b, loc, cur);
            return;
          }
          // The promotion: the slice's sum added into the f32 accumulator
          // with f32 additions.
          for (int64_t i = 0; i < perThread; ++i) {
            Value sum = arith::AddFOp::create(
                b, loc, LLVM::ExtractValueOp::create(b, loc, cur, i),
                LLVM::ExtractValueOp::create(b, loc, slice, i));
            cur = LLVM::InsertValueOp::create(b, loc, cur, sum, i);
          }
          scf::YieldOp::create(b, loc, ValueRange{cur, slice});
        });
    acc = loop.getResult(0);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup, b.getI32IntegerAttr(0));
  }

  auto pairType = VectorType::get({2, 2}, accElt);
  for (int64_t j = 0; j < cfg.tileN / 8; ++j) {
    SmallVector<Value> elems;
    for (int64_t q = 0; q < 4; ++q)
      elems.push_back(LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + q));
    storeAccumulator(vector::FromElementsOp::create(b, loc, pairType, elems),
                     fragRow, add(fragCol, 8 * j));
  }
  gpu::ReturnOp::create(b, loc);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertAccelToGPUPass
    : public mlir::accel::impl::ConvertAccelToGPUPassBase<
          ConvertAccelToGPUPass> {
  using Base::Base;

  /// The pass options, for the ops without an accel.lowering_config.
  GpuConfigOverrides options;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    options = GpuConfigOverrides::fromOptions(mma, tileM, tileN, tileK, warps,
                                              stages);
    std::unique_ptr<GpuTargetInfo> target =
        setUpGpuPass(module, chip, "convert-accel-to-gpu", options);
    if (!target)
      return signalPassFailure();
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

  LogicalResult convert(func::FuncOp func, const GpuTargetInfo &target) {
    if (failed(checkGpuKernelFunction(func)))
      return failure();
    // Functions of accel.attention have their own kernel
    // (AttentionKernel.cpp).
    if (hasGpuAttention(func))
      return convertGpuAttentionFunction(func, target, options);
    SmallVector<MatmulOp> matmuls(func.getBody().front().getOps<MatmulOp>());

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

  /// The kernel of `mm`: its analysis and its configuration (the op's
  /// accel.lowering_config, else the stage's choice with the pass options),
  /// with the buffers it reads checked.
  FailureOr<GemmKernel> plan(MatmulOp mm,
                             const DenseMap<Value, std::string> &bufferOf,
                             const GpuTargetInfo &target) {
    FailureOr<GemmKernel> planned = planGpuMatmul(mm, target, options);
    if (failed(planned))
      return failure();
    GemmKernel k = *planned;
    const GpuGemmShape &s = k.shape;

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
        b.getNamedAttr("stages", b.getI64IntegerAttr(c.stages)),
        b.getNamedAttr("mma",
                       b.getStringAttr(getGpuMatmulKernelName(k, target)))};
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
