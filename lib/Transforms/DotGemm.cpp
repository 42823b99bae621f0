//===- DotGemm.cpp - 2-D bf16/i8 GEMMs on buffers for the CPU kernels ----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "DotGemm.h"
#include "BufferAccess.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::accel;

bool mlir::accel::unitInnerStride(MemRefType t) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

/// `op` as a row-major GEMM with static sizes whose operands a dot
/// instruction takes: maps (m, k), (k, n), (m, n) over loops (m, n, k) and
/// the body `out + ext(a) * ext(b)` with bf16 -> f32 (extf) or i8 -> i32
/// (extsi) widening.
bool mlir::accel::isPlainGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 3 ||
      !linalg::isaContractionOpInterface(op))
    return false;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> want = {AffineMap::get(3, 0, {m, k}, ctx),
                                 AffineMap::get(3, 0, {k, n}, ctx),
                                 AffineMap::get(3, 0, {m, n}, ctx)};
  return op.getIndexingMapsArray() == ArrayRef<AffineMap>(want) &&
         op.getIteratorTypesArray()[2] == utils::IteratorType::reduction;
}

std::optional<DotGemm> mlir::accel::matchDotGemm(linalg::LinalgOp op) {
  if (!isPlainGemm(op))
    return std::nullopt;
  Value a = op.getDpsInputOperand(0)->get(),
        b = op.getDpsInputOperand(1)->get(), c = op.getDpsInitOperand(0)->get();
  auto at = dyn_cast<MemRefType>(a.getType()),
       bt = dyn_cast<MemRefType>(b.getType()),
       ct = dyn_cast<MemRefType>(c.getType());
  if (!at || !bt || !ct || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape() || !unitInnerStride(at) || !unitInnerStride(bt) ||
      !unitInnerStride(ct) || at.getElementType() != bt.getElementType())
    return std::nullopt;
  DotKind kind;
  if (at.getElementType().isBF16() && ct.getElementType().isF32())
    kind = DotKind::Bf16;
  else if (at.getElementType().isInteger(8) &&
           ct.getElementType().isInteger(32))
    kind = DotKind::I8;
  else
    return std::nullopt;
  // The body must widen both operands exactly, multiply and add to the
  // accumulator: what the dot instructions compute.
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return std::nullopt;
  Value acc = body.getArgument(2);
  Value lhs = add->getOperand(0), rhs = add->getOperand(1);
  if (lhs != acc && rhs != acc)
    return std::nullopt;
  Operation *mul = (lhs == acc ? rhs : lhs).getDefiningOp();
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul))
    return std::nullopt;
  auto widened = [&](Value v, unsigned arg) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      return kind == DotKind::Bf16 && ext.getIn() == body.getArgument(arg);
    if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
      return kind == DotKind::I8 && ext.getIn() == body.getArgument(arg);
    return false;
  };
  Value x = mul->getOperand(0), y = mul->getOperand(1);
  if (!((widened(x, 0) && widened(y, 1)) || (widened(x, 1) && widened(y, 0))))
    return std::nullopt;
  return DotGemm{
      op, kind, a, b, c, at.getDimSize(0), bt.getDimSize(1), at.getDimSize(1)};
}

namespace {
/// Emits the packing of B (packDotB).
struct Packer {
  OpBuilder &b;
  Location loc;
  const DotGemm &g;
  int64_t nr, groupMultiple;
  bool parallel;
  /// Where to pack (a buffer of the packed shape), or null: a new one.
  Value into;

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }
  int64_t groupSize() const { return g.groupSize(); }
  Type inType() { return g.inputType(); }
  /// 16 columns of one group of B: vector<32xbf16> or vector<64xi8>.
  VectorType panelType() { return vec(16 * groupSize(), inType()); }

  /// G rows of 16 columns interleaved: column-major groups of G.
  Value interleaveRows(ArrayRef<Value> rows) {
    if (rows.size() == 2)
      return vector::InterleaveOp::create(b, loc, rows[0], rows[1]);
    // Four i8 rows: pairs (r0, r1) and (r2, r3), then the pairs as 16-bit
    // units.
    Type i16 = b.getI16Type();
    Value p01 = vector::InterleaveOp::create(b, loc, rows[0], rows[1]);
    Value p23 = vector::InterleaveOp::create(b, loc, rows[2], rows[3]);
    Value u01 = vector::BitCastOp::create(b, loc, vec(16, i16), p01);
    Value u23 = vector::BitCastOp::create(b, loc, vec(16, i16), p23);
    Value quads = vector::InterleaveOp::create(b, loc, u01, u23);
    return vector::BitCastOp::create(b, loc, panelType(), quads);
  }

  SmallVector<Value> panelIndex(Value kk, Value col, int64_t t) {
    return dotPanelIndex(b, loc, g, nr, kk, col, t);
  }

  /// B's element (k, col): B[k, col], or B[col, k] stored [N, K].
  Value loadB(Value k, Value col) {
    return memref::LoadOp::create(
        b, loc, g.b, g.bTransposed ? ValueRange{col, k} : ValueRange{k, col});
  }

  /// B stored [N, K]: per 16 columns and 16 groups from k0 = G kk0, the
  /// columns' 16 rows of 16 words, transposed: row j holds group kk0 + j of
  /// each column, G elements each, which is its panel.
  void packTransposedBlock(Value packed, Value kk0, Value col) {
    Value k0 = arith::MulIOp::create(b, loc, kk0, idx(groupSize()));
    SmallVector<Value> rows;
    for (int64_t r = 0; r < 16; ++r)
      rows.push_back(vector::LoadOp::create(
          b, loc, panelType(), g.b,
          ValueRange{arith::AddIOp::create(b, loc, col, idx(r)), k0}));
    for (auto [j, column] : llvm::enumerate(transposeWords(b, loc, rows)))
      vector::StoreOp::create(
          b, loc, vector::BitCastOp::create(b, loc, panelType(), column),
          packed,
          panelIndex(arith::AddIOp::create(b, loc, kk0, idx(j)), col, 0));
  }

  /// Bp[kk, n, t] = B[G kk + t, n], zeros past N and past K.
  Value pack() {
    Type elt = inType();
    int64_t gs = groupSize();
    int64_t groupsK = llvm::alignTo((g.k + gs - 1) / gs, groupMultiple),
            cols = (g.n + 15) / 16 * 16;
    Value packed =
        into ? into
             : memref::AllocOp::create(
                   b, loc,
                   MemRefType::get({(cols + nr - 1) / nr, groupsK, nr * gs},
                                   elt),
                   b.getI64IntegerAttr(64))
                   .getResult();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
    int64_t fullGroups = g.k / gs, fullCols = g.n / 16 * 16;
    Value c0 = idx(0), c1 = idx(1), cg = idx(gs);
    // B stored [N, K]: blocks of 16 groups and 16 columns; the groups past
    // the last whole 16 one by one below.
    int64_t vectorGroups = g.bTransposed ? fullGroups / 16 * 16 : fullGroups;
    if (g.bTransposed && vectorGroups > 0 && fullCols > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value kb = openLoop(b, loc, vectorGroups / 16, parallel);
      Value kk0 = arith::MulIOp::create(b, loc, kb, idx(16));
      auto nLoop = scf::ForOp::create(b, loc, c0, idx(fullCols), idx(16));
      b.setInsertionPointToStart(nLoop.getBody());
      packTransposedBlock(packed, kk0, nLoop.getInductionVar());
    }
    // Whole groups of rows, 16 columns at a time.
    if (!g.bTransposed && fullGroups > 0 && fullCols > 0) {
      OpBuilder::InsertionGuard guard(b);
      Value kk = openLoop(b, loc, fullGroups, parallel);
      Value k0 = arith::MulIOp::create(b, loc, kk, cg);
      auto nLoop = scf::ForOp::create(b, loc, c0, idx(fullCols), idx(16));
      b.setInsertionPointToStart(nLoop.getBody());
      Value col = nLoop.getInductionVar();
      SmallVector<Value> rows;
      for (int64_t t = 0; t < gs; ++t) {
        Value k = arith::AddIOp::create(b, loc, k0, idx(t));
        rows.push_back(vector::LoadOp::create(b, loc, vec(16, elt), g.b,
                                              ValueRange{k, col}));
      }
      vector::StoreOp::create(b, loc, interleaveRows(rows), packed,
                              panelIndex(kk, col, 0));
    }
    // The columns past the last whole 16 (and the padding), one at a time;
    // the last group of a K that G does not divide is padded with zeros.
    auto scalarCols = [&](int64_t colBegin, int64_t groupBegin,
                          int64_t groupEnd) {
      if (colBegin >= cols || groupBegin >= groupEnd)
        return;
      OpBuilder::InsertionGuard guard(b);
      auto kLoop =
          scf::ForOp::create(b, loc, idx(groupBegin), idx(groupEnd), c1);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      auto nLoop = scf::ForOp::create(b, loc, idx(colBegin), idx(cols), c1);
      b.setInsertionPointToStart(nLoop.getBody());
      Value col = nLoop.getInductionVar();
      for (int64_t t = 0; t < gs; ++t) {
        // k = G kk + t, read only when k < K and col < N.
        Value k = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, kk, cg), idx(t));
        Value inK = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, k,
                                          idx(g.k));
        Value inN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          col, idx(g.n));
        Value in = arith::AndIOp::create(b, loc, inK, inN);
        auto read = scf::IfOp::create(b, loc, TypeRange{elt}, in,
                                      /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(read.thenBlock());
          scf::YieldOp::create(b, loc, loadB(k, col));
          b.setInsertionPointToStart(read.elseBlock());
          scf::YieldOp::create(b, loc, zero);
        }
        memref::StoreOp::create(b, loc, read.getResult(0), packed,
                                panelIndex(kk, col, t));
      }
    };
    scalarCols(fullCols, 0, vectorGroups);
    scalarCols(0, vectorGroups, groupsK);
    return packed;
  }

};
} // namespace

linalg::TransposeOp mlir::accel::matchTransposedB(const DotGemm &g) {
  return matchTransposeInto(g.op, g.b);
}

linalg::TransposeOp mlir::accel::matchTransposeInto(Operation *gemm, Value b) {
  auto alloc = b.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return {};
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    if (user == gemm)
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || t.getInit() != b || transpose)
      return {};
    transpose = t;
  }
  if (!transpose || transpose->getBlock() != gemm->getBlock() ||
      !transpose->isBeforeInBlock(gemm) ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return {};
  auto in = dyn_cast<MemRefType>(transpose.getInput().getType());
  if (!in || !in.hasStaticShape() || !unitInnerStride(in))
    return {};
  // Nothing between them may write the transpose's input (any view of
  // its buffer; ops with unknown effects count as writes): C's zero fill
  // and allocations are what the pipeline puts there.
  Value source = rootBuffer(transpose.getInput());
  for (Operation *op = transpose->getNextNode(); op != gemm;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && mayWrite(op, source))
      return {};
  return transpose;
}

Value mlir::accel::viewOfB(OpBuilder &b, Location loc, const DotGemm &g,
                           OpFoldResult k0, OpFoldResult col0, int64_t rows,
                           int64_t cols) {
  SmallVector<OpFoldResult> offsets{k0, col0};
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(rows), b.getIndexAttr(cols)};
  if (g.bTransposed) {
    std::swap(offsets[0], offsets[1]);
    std::swap(sizes[0], sizes[1]);
  }
  return memref::SubViewOp::create(
      b, loc, g.b, offsets, sizes,
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

linalg::TransposeOp mlir::accel::adoptTransposedB(DotGemm &g) {
  linalg::TransposeOp t = matchTransposedB(g);
  if (t) {
    g.b = t.getInput();
    g.bTransposed = true;
  }
  return t;
}

void mlir::accel::eraseTransposeOfB(Operation *transpose) {
  Value copy = cast<linalg::TransposeOp>(transpose).getInit();
  transpose->erase();
  if (copy.use_empty())
    copy.getDefiningOp()->erase();
}

SmallVector<Value> mlir::accel::transposeWords(OpBuilder &b, Location loc,
                                               ArrayRef<Value> rows) {
  assert(rows.size() == 16 && "a square of 16 rows");
  Type i32 = b.getI32Type();
  auto words = VectorType::get({16}, i32);
  auto square = VectorType::get({16, 16}, i32);
  Value m = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(square, b.getI32IntegerAttr(0)));
  for (auto [r, row] : llvm::enumerate(rows)) {
    Value w = row.getType() == words
                  ? row
                  : vector::BitCastOp::create(b, loc, words, row).getResult();
    m = vector::InsertOp::create(b, loc, w, m, r);
  }
  Value t = vector::TransposeOp::create(b, loc, m, ArrayRef<int64_t>{1, 0});
  SmallVector<Value> columns;
  for (int64_t j = 0; j < 16; ++j)
    columns.push_back(vector::ExtractOp::create(b, loc, t, j));
  return columns;
}

LogicalResult mlir::accel::lowerWordTransposes(Operation *root) {
  SmallVector<Operation *> transposes;
  root->walk([&](vector::TransposeOp t) {
    if (t.getResultVectorType() ==
        VectorType::get({16, 16}, IntegerType::get(root->getContext(), 32)))
      transposes.push_back(t);
  });
  if (transposes.empty())
    return success();
  RewritePatternSet patterns(root->getContext());
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::Shuffle16x16);
  return applyOpPatternsGreedily(transposes, std::move(patterns));
}

bool mlir::accel::insideParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ForallOp>() ||
         op->getParentOfType<scf::ParallelOp>();
}

Value mlir::accel::openLoop(OpBuilder &b, Location loc, int64_t count,
                            bool parallel) {
  if (parallel) {
    auto loop = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(count)}, ValueRange{},
        std::nullopt);
    b.setInsertionPointToStart(loop.getBody());
    return loop.getInductionVar(0);
  }
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
      arith::ConstantIndexOp::create(b, loc, count),
      arith::ConstantIndexOp::create(b, loc, 1));
  b.setInsertionPointToStart(loop.getBody());
  return loop.getInductionVar();
}

SmallVector<Value> mlir::accel::dotPanelIndex(OpBuilder &b, Location loc,
                                              const DotGemm &g, int64_t nr,
                                              Value kk, Value col, int64_t t) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value panel = arith::DivUIOp::create(b, loc, col, idx(nr));
  Value within = arith::RemUIOp::create(b, loc, col, idx(nr));
  Value at = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, within, idx(g.groupSize())),
      idx(t));
  return {panel, kk, at};
}

Value mlir::accel::packDotB(OpBuilder &b, Location loc, const DotGemm &g,
                            int64_t nr, int64_t groupMultiple, bool parallel,
                            Value into) {
  return Packer{b, loc, g, nr, groupMultiple, parallel, into}.pack();
}
