//===- GemmKernel.h - the GEMM kernel builder -------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The builder of convert-accel-to-gpu's GEMM kernels. What every kernel
// shares (the thread's place in the block, global indexing, the clamped
// copy source) is here; each algorithm's body is in its vendor's file:
//
//   NVIDIA/MmaSyncGemm.cpp   cp.async ring, ldmatrix, mma.sync (sm_80+)
//   NVIDIA/WgmmaGemm.cpp     swizzled cp.async ring, wgmma (sm_90a)
//   AMD/MatrixCoreGemm.cpp   register-staged LDS ring, MFMA / WMMA
//   FmaGemm.cpp              f32 by fused multiply-adds, both vendors
//
// The configuration stage (KernelConfig.h) chooses the kernel; emit()
// dispatches on that choice.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_GEMMKERNEL_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_GEMMKERNEL_H

#include "Epilogue.h"
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "accel/Conversion/AccelToGPU/GpuTargetInfo.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include <array>
#include <map>

namespace mlir::accel {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Builds the body of one GEMM kernel: the common part here and in
/// AccelToGPU.cpp (the thread's place, global indexing, the dispatch), one
/// kernel body per algorithm in its vendor's folder.
class GemmKernelBuilder : public GpuIndexBuilder {
public:
  GemmKernelBuilder(OpBuilder &b, Location loc, const GemmKernel &k,
                    const GpuTargetInfo &target, Block *entry)
      : GpuIndexBuilder(b, loc, entry), k(k), cfg(k.config), target(target) {}

  /// The kernel the configuration chose (its `kernel`), on these buffers;
  /// with `epi`, applying it to C before the store (its buffers in
  /// `epilogueBuffers`, gC then holding its result).
  void emit(Value gA, Value gB, Value gCin, Value gC,
            const GpuEpilogue *epi = nullptr,
            ArrayRef<Value> epilogueBuffers = {});

  /// The mma.sync kernel (NVIDIA/MmaSyncGemm.cpp).
  void emitMmaSync();
  /// The wgmma kernel, sm_90a (NVIDIA/WgmmaGemm.cpp).
  void emitWgmma();
  /// The kernel of chips without asynchronous copies and with lane-layout
  /// fragments: AMD MFMA / WMMA (AMD/MatrixCoreGemm.cpp).
  void emitLds(const GpuLaneLayout &layout);
  /// The FMA kernel of f32 inputs, any chip (FmaGemm.cpp).
  void emitFma();
  /// Stores what loadSliceToRegisters returned into the FMA kernel's LDS
  /// buffer `stage`: A and B as [tileK][tile + kGpuFmaRowPad], so that a
  /// thread reads its rows of A and columns of B at one K as vectors.
  void storeSliceToLdsByK(ArrayRef<Value> regs, Value stage);
  /// Loads this thread's part of K-slice `kt` of A and B from global memory
  /// into registers (vectors of vecA / vecB elements; zeros outside A, B).
  SmallVector<Value> loadSliceToRegisters(Value kt);
  /// Stores what loadSliceToRegisters returned into LDS buffer `stage`: A
  /// as [tileM][tileK + pad], B transposed as [tileN][tileK + pad].
  void storeSliceToLds(ArrayRef<Value> regs, Value stage);
  /// The (row, column) in a tileRows x tileCols slice of copy `first` + tid
  /// of `vec` elements (the last round clamped as in copySlice).
  std::pair<Value, Value> copyCoord(int64_t tileRows, int64_t tileCols,
                                    int64_t vec, int64_t first) {
    return GpuIndexBuilder::copyCoord(
        tid, cfg.warpsM * cfg.warpsN * target.getWarpSize(), tileRows, tileCols,
        vec, first);
  }
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
  /// The element type the kernel stores: the epilogue's result's, else C's.
  Type storeElement() { return epilogue ? epilogue->outType : k.outType; }
  /// What the kernel stores for accumulator element `acc` at C's (row,
  /// col): the element rounded to C's type, then the epilogue applied (its
  /// buffers read at the element's indices). Built where the element is
  /// known to be inside C.
  Value finishElement(Value acc, Value row, Value col) {
    if (k.outType != acc.getType())
      acc = arith::TruncFOp::create(b, loc, k.outType, acc);
    if (!epilogue)
      return acc;
    // C's indices: the batch dimensions (collapsed into the grid's z, so
    // split again, the last varying fastest), then row and column.
    ArrayRef<int64_t> cShape =
        cast<RankedTensorType>(epilogue->op->getResult(0).getType())
            .getShape();
    SmallVector<Value> ivs(cShape.size() - 2);
    for (int64_t d = int64_t(ivs.size()) - 1, stride = 1; d >= 0; --d) {
      ivs[d] = rem(div(batchIdx, stride), cShape[d]);
      stride *= cShape[d];
    }
    ivs.append({row, col});
    return emitGpuEpilogueElement(b, loc, *epilogue, acc, gEpilogue, ivs);
  }

  const GemmKernel &k;
  const GpuGemmConfig &cfg;
  const GpuTargetInfo &target;
  /// The same for copySwizzled: (row, column chunk, offset in the tile), by
  /// (rows, chunks, first copy of the round).
  std::map<std::array<int64_t, 3>, std::array<Value, 3>> swizzledCoords;

  /// Global buffers; the shared rings cp.async fills (sA, sB) and the
  /// views ldmatrix reads them through (lA, lB: sA, sB but for f8, i8).
  Value gA, gB, gCin, gC, sA, sB, lA, lB;
  /// The epilogue applied before the store, if any, and its buffers.
  const GpuEpilogue *epilogue = nullptr;
  SmallVector<Value> gEpilogue;
  Value tid, lane, batchIdx, blockRow, blockCol, warpRow, warpCol;
};

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_GEMMKERNEL_H
