//===- MatrixCoreGemm.cpp - the AMD MFMA / WMMA GEMM kernel
//-----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The AMD GEMM: no asynchronous copies, so each K slice of A and B is
// loaded into registers while the matrix cores work on the previous one and
// stored into a double-buffered LDS ring; fragments follow the chip's lane
// layout (MFMA on CDNA, WMMA on RDNA 3).
//
//===----------------------------------------------------------------------===//

#include "../GemmKernel.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::accel;

SmallVector<Value> GemmKernelBuilder::loadSliceToRegisters(Value kt) {
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

void GemmKernelBuilder::storeSliceToLds(ArrayRef<Value> regs, Value stage) {
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

void GemmKernelBuilder::emitLds(const GpuLaneLayout &layout) {
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
        if (!epilogue && k.outType != accElt)
          v = arith::TruncFOp::create(b, loc, k.outType, v);
        OpBuilder::InsertionGuard ig(b);
        if (Value g = guard(r, c)) {
          auto ifOp = scf::IfOp::create(b, loc, g, /*withElseRegion=*/false);
          b.setInsertionPointToStart(ifOp.thenBlock());
        }
        // The epilogue reads memory at the element's indices: inside C.
        if (epilogue)
          v = finishElement(v, r, c);
        memref::StoreOp::create(b, loc, v, gC, global(r, c));
      }
  gpu::ReturnOp::create(b, loc);
}
