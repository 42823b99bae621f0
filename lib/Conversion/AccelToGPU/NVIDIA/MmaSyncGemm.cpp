//===- MmaSyncGemm.cpp - the mma.sync GEMM kernel
//---------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The NVIDIA GEMM of sm_80 and newer: a block tile of C in registers of
// its warps, fed by a multi-stage cp.async ring in shared memory, ldmatrix
// and mma.sync (the pass description in Passes.td has the algorithm).
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

void GemmKernelBuilder::copySlice(Value src, Value dst, Value stage,
                                  int64_t tileRows, int64_t tileCols,
                                  int64_t vec, Value row0, Value col0,
                                  int64_t rowLimit, int64_t colLimit,
                                  bool checkRows, bool checkCols,
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

Value GemmKernelBuilder::issueSlice(Value kt, Value stage) {
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

Value GemmKernelBuilder::loadAccumulator(Value row, Value col) {
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

void GemmKernelBuilder::storeAccumulator(Value acc, Value row, Value col) {
  Type outElt = storeElement();
  auto pairOut = VectorType::get({2}, outElt);
  const int64_t n = k.shape.n;
  const bool checkCols = n % cfg.tileN != 0;
  for (int64_t h = 0; h < 2; ++h) {
    Value r = add(row, 8 * h);
    Value inRow = rowGuard(r);
    Value v = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{h});
    // Without an epilogue the pair is rounded to C's type at once; with
    // one, each element inside the guard (the epilogue reads memory at the
    // element's indices).
    if (!epilogue && k.outType != accElement())
      v = arith::TruncFOp::create(b, loc, pairOut, v);
    if (n % 2 == 0) {
      Value guard = both(inRow, checkCols ? ult(col, n) : Value());
      OpBuilder::InsertionGuard g(b);
      if (guard) {
        auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      if (epilogue) {
        SmallVector<Value> elems;
        for (int64_t j = 0; j < 2; ++j)
          elems.push_back(finishElement(
              vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{j}), r,
              add(col, j)));
        v = vector::FromElementsOp::create(b, loc, pairOut, elems);
      }
      vector::StoreOp::create(
          b, loc, v, gC, global(r, col), false,
          llvm::MaybeAlign(2 * outElt.getIntOrFloatBitWidth() / 8));
    } else {
      for (int64_t j = 0; j < 2; ++j) {
        Value c = add(col, j);
        Value guard = both(inRow, ult(c, n));
        auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value e = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{j});
        if (epilogue)
          e = finishElement(e, r, c);
        memref::StoreOp::create(b, loc, e, gC, global(r, c));
      }
    }
  }
}

void GemmKernelBuilder::emitMmaSync() {
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
            for (int64_t np = 0; np < fragsN / 2 && k.tf32 && !s.transposeB;
                 ++np) {
              // TF32 with B stored [k][n]: ldmatrix .trans moves 16-bit
              // elements only, so each lane reads its two values of each
              // n8 fragment itself: b0 = B[k + t][n + g], b1 = B[k + t +
              // 4][n + g] (t = lane % 4, g = lane / 4).
              Value t = rem(lane, 4), g = div(lane, 4);
              for (int64_t h = 0; h < 2; ++h) {
                Value col = add(add(warpCol, np * 16 + h * 8), g);
                Value frag = zeroB;
                for (int64_t j = 0; j < 2; ++j) {
                  Value v = memref::LoadOp::create(
                      b, loc, lB,
                      ValueRange{stage, add(add(t, kk), 4 * j), col});
                  frag = vector::InsertOp::create(b, loc, v, frag,
                                                  ArrayRef<int64_t>{j, 0});
                }
                bs.push_back(frag);
              }
            }
            for (int64_t np = 0; np < fragsN / 2 && !(k.tf32 && !s.transposeB);
                 ++np) {
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
