//===- ShardingInterfaceImpl.cpp - accel ops under upstream sharding ------===//
//
// The external models of `shard::ShardingInterface` for the accel compute
// ops (see the header). Propagation uses the iterator types and indexing
// maps; `partition` clones the op on the local shards, or refuses a split the
// op cannot compute locally with a located error.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/ShardingInterfaceImpl.h"

#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::accel;
using shard::GridAxis;
using shard::ReductionKind;
using shard::Sharding;
using shard::ShardingArray;
using utils::IteratorType;

namespace {

/// The grid named by the first sharding present, or null.
shard::GridOp gridOf(Operation *op, ArrayRef<Sharding> operands,
                     ArrayRef<Sharding> results,
                     SymbolTableCollection &symbols) {
  for (ArrayRef<Sharding> list : {operands, results})
    for (const Sharding &s : list)
      if (s)
        return shard::getGridOrNull(op, s.getGridAttr(), symbols);
  return nullptr;
}

/// Refuses a split of a static dimension that the grid axes do not divide:
/// the local shards would differ in size, which the accel kernels (static
/// shapes) do not take.
LogicalResult checkDivisible(Operation *op, Value value, const Sharding &s,
                             shard::GridOp grid, StringRef what) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !s || !grid)
    return success();
  for (auto [dim, axes] : llvm::enumerate(s.getSplitAxes())) {
    if (dim >= static_cast<size_t>(type.getRank()) || axes.empty())
      continue;
    int64_t parts = 1;
    for (GridAxis a : axes.asArrayRef())
      parts *= grid.getShape()[a];
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return op->emitOpError() << "cannot split the dynamic dimension " << dim
                               << " of its " << what
                               << " over the grid (static shapes only)";
    if (size % parts != 0)
      return op->emitOpError()
             << "cannot split dimension " << dim << " (size " << size
             << ") of its " << what << " into " << parts
             << " equal parts over grid @" << grid.getSymName();
  }
  return success();
}

LogicalResult checkAllDivisible(Operation *op, ArrayRef<Sharding> operands,
                                ArrayRef<Sharding> results,
                                shard::GridOp grid) {
  for (auto [i, s] : llvm::enumerate(operands))
    if (failed(checkDivisible(op, op->getOperand(i), s, grid,
                              "operand #" + std::to_string(i))))
      return failure();
  for (auto [i, s] : llvm::enumerate(results))
    if (failed(checkDivisible(op, op->getResult(i), s, grid,
                              "result #" + std::to_string(i))))
      return failure();
  return success();
}

/// What a `partition` works from: the grid, the op's loops and the grid
/// axes each loop is split over, once the splits are known to divide.
struct SplitPlan {
  shard::GridOp grid;
  SmallVector<IteratorType> loops;
  ShardingArray assignment;
  bool isSplit(unsigned loop) const {
    return loop < assignment.size() && !assignment[loop].empty();
  }
};

FailureOr<SplitPlan> planSplit(Operation *op, ArrayRef<Sharding> operands,
                               ArrayRef<Sharding> results,
                               SymbolTableCollection &symbols) {
  auto model = cast<shard::ShardingInterface>(op);
  SplitPlan plan;
  plan.grid = gridOf(op, operands, results, symbols);
  if (failed(checkAllDivisible(op, operands, results, plan.grid)))
    return failure();
  plan.loops = model.getLoopIteratorTypes();
  plan.assignment = shard::getGridAxisAssignmentForLoopIterators(
      operands, results, plan.loops, model.getIndexingMaps());
  return plan;
}

/// The operand maps in operand order, then the result map (= the init's).
SmallVector<AffineMap> orderMaps(Operation *op,
                                 llvm::function_ref<AffineMap(Value)> mapOf,
                                 AffineMap resultMap) {
  SmallVector<AffineMap> maps;
  for (Value v : op->getOperands())
    maps.push_back(mapOf(v));
  maps.push_back(resultMap);
  return maps;
}

//===----------------------------------------------------------------------===//
// accel.matmul
//===----------------------------------------------------------------------===//

struct MatmulSharding
    : public shard::ShardingInterface::ExternalModel<MatmulSharding,
                                                     MatmulOp> {
  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    return cast<MatmulOp>(op).getLoopIteratorTypes();
  }

  SmallVector<ReductionKind> getReductionLoopIteratorKinds(Operation *) const {
    return {ReductionKind::Sum};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto mm = cast<MatmulOp>(op);
    MLIRContext *ctx = op->getContext();
    int64_t nb = mm.getNumBatchDims();
    unsigned loops = nb + 3;
    auto dims = [&](std::initializer_list<unsigned> tail) {
      SmallVector<AffineExpr> e;
      for (int64_t b = 0; b < nb; ++b)
        e.push_back(getAffineDimExpr(b, ctx));
      for (unsigned t : tail)
        e.push_back(getAffineDimExpr(nb + t, ctx));
      return AffineMap::get(loops, 0, e, ctx);
    };
    // Loop positions after the batch: 0 = M, 1 = N, 2 = K.
    AffineMap lhs = dims({0, 2});
    AffineMap rhs = mm.getTransposeB() ? dims({1, 2}) : dims({2, 1});
    AffineMap acc = dims({0, 1});
    AffineMap scalar = AffineMap::get(loops, 0, {}, ctx);
    return orderMaps(
        op,
        [&](Value v) {
          if (v == mm.getLhs())
            return lhs;
          if (v == mm.getRhs())
            return rhs;
          if (v == mm.getInit())
            return acc;
          return scalar; // the f32 scales
        },
        acc);
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbols,
                          OpBuilder &builder) const {
    auto mm = cast<MatmulOp>(op);
    FailureOr<SplitPlan> plan =
        planSplit(op, operandShardings, resultShardings, symbols);
    if (failed(plan))
      return failure();
    shard::GridOp grid = plan->grid;
    if (!shard::isAtLeastOneReductionIteratorSharded(plan->loops,
                                                     plan->assignment)) {
      shard::partitionTriviallyShardableOperation(
          *op, partitionedOperands, operandShardings, resultShardings,
          partitionMap, symbols, builder);
      return success();
    }

    // Row-parallel: each process multiplies its slice of K. The partial
    // sums are added across the reduction axes in C's element type, so C
    // must hold them exactly as the single-device kernel would (f32, or
    // i32 whose wrap-around addition is associative).
    Type accType = getElementTypeOrSelf(mm.getInit().getType());
    if (!accType.isF32() && !accType.isInteger(32))
      return op->emitOpError()
             << "cannot split K over the grid with a " << accType
             << " accumulator: the partial sums would be rounded to "
             << accType << " before they are added (use an f32 C)";
    SmallVector<GridAxis> reductionAxes =
        shard::getReductionGridAxes(plan->loops, plan->assignment);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    SmallVector<Value> operands = llvm::to_vector(partitionedOperands);
    unsigned initIndex = mm.getInitMutable().getOperandNumber();
    Value init = operands[initIndex];
    if (mm.getAccumulate()) {
      // C enters the sum once, after it: every process multiplies into a
      // fresh tile and adds C (its local block) to the reduced sum. (Adding
      // C on one process before the all-reduce would select between C and
      // zeros, which bufferizes into a copy of unknown layout.)
      auto type = cast<RankedTensorType>(init.getType());
      operands[initIndex] =
          tensor::EmptyOp::create(b, type.getShape(), type.getElementType());
    }
    IRMapping local;
    for (auto [from, to] : llvm::zip_equal(op->getOperands(), operands))
      local.map(from, to);
    shard::partitionTriviallyShardableOperation(*op, operands,
                                                operandShardings,
                                                resultShardings, local,
                                                symbols, builder);
    Value partial = local.lookup(mm.getResult());
    if (mm.getAccumulate())
      cast<MatmulOp>(partial.getDefiningOp()).setAccumulate(false);
    Value sum = shard::AllReduceOp::create(b, partial, grid.getSymName(),
                                           reductionAxes, ReductionKind::Sum);
    // C added once, as an elementwise generic (the form every back end's
    // epilogue and elementwise kernels take).
    if (mm.getAccumulate()) {
      auto type = cast<RankedTensorType>(init.getType());
      AffineMap id = b.getMultiDimIdentityMap(type.getRank());
      SmallVector<utils::IteratorType> parallel(type.getRank(),
                                                utils::IteratorType::parallel);
      sum = linalg::GenericOp::create(
                b, TypeRange{type}, ValueRange{sum, init}, ValueRange{init},
                ArrayRef<AffineMap>{id, id, id}, parallel,
                [](OpBuilder &nb, Location loc, ValueRange args) {
                  Value r =
                      isa<FloatType>(args[0].getType())
                          ? arith::AddFOp::create(nb, loc, args[0], args[1])
                                .getResult()
                          : arith::AddIOp::create(nb, loc, args[0], args[1])
                                .getResult();
                  linalg::YieldOp::create(nb, loc, r);
                })
                .getResult(0);
    }
    partitionMap.map(mm.getResult(), sum);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// accel.attention
//===----------------------------------------------------------------------===//

// Loop positions: 0 B, 1 Hq, 2 Sq, 3 Dv (parallel), 4 Skv, 5 D (reductions),
// then one unit loop per broadcast mask dimension and for an MQA K/V head
// (never split: the operand is replicated along it).
constexpr unsigned kSkv = 4, kD = 5, kFixedLoops = 6;

struct AttentionSharding
    : public shard::ShardingInterface::ExternalModel<AttentionSharding,
                                                     AttentionOp> {
  /// The loop of each dimension of `v` (an attention operand); `extra`
  /// counts the unit loops handed out.
  static SmallVector<unsigned> loopsOf(AttentionOp at, Value v,
                                       unsigned &extra) {
    auto unit = [&]() { return kFixedLoops + extra++; };
    auto q = at.getQuery().getType();
    if (v == at.getQuery())
      return {0, 1, 2, kD};
    if (v == at.getKey() || v == at.getValue()) {
      auto t = cast<RankedTensorType>(v.getType());
      bool mqa = t.getDimSize(1) == 1 && q.getDimSize(1) != 1;
      unsigned heads = mqa ? unit() : 1;
      return {0, heads, kSkv, v == at.getKey() ? kD : 3u};
    }
    if (v == at.getInit())
      return {0, 1, 2, 3};
    if (v == at.getMask()) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t rank = t.getRank();
      SmallVector<int64_t> full = {q.getDimSize(0), q.getDimSize(1),
                                   q.getDimSize(2),
                                   at.getKey().getType().getDimSize(2)};
      const unsigned loopOf[4] = {0, 1, 2, kSkv};
      SmallVector<unsigned> loops;
      for (int64_t i = 0; i < rank; ++i) {
        int64_t j = 4 - rank + i;
        bool broadcast = t.getDimSize(i) == 1 && full[j] != 1;
        loops.push_back(broadcast ? unit() : loopOf[j]);
      }
      return loops;
    }
    if (v == at.getKvLengths() || v == at.getQLengths())
      return {0};
    return {}; // the diagonal
  }

  static unsigned numUnitLoops(AttentionOp at) {
    unsigned extra = 0;
    for (Value v : at->getOperands())
      (void)loopsOf(at, v, extra);
    return extra;
  }

  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    SmallVector<IteratorType> types(4, IteratorType::parallel);
    types.append({IteratorType::reduction, IteratorType::reduction});
    types.append(numUnitLoops(cast<AttentionOp>(op)), IteratorType::parallel);
    return types;
  }

  SmallVector<ReductionKind> getReductionLoopIteratorKinds(Operation *) const {
    // The keys feed a softmax and D feeds an exponent: neither is a sum
    // that an all-reduce could finish.
    return {ReductionKind::Generic, ReductionKind::Generic};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto at = cast<AttentionOp>(op);
    MLIRContext *ctx = op->getContext();
    unsigned numLoops = kFixedLoops + numUnitLoops(at);
    unsigned extra = 0;
    auto mapOf = [&](Value v) {
      SmallVector<AffineExpr> e;
      for (unsigned l : loopsOf(at, v, extra))
        e.push_back(getAffineDimExpr(l, ctx));
      return AffineMap::get(numLoops, 0, e, ctx);
    };
    SmallVector<AffineMap> maps;
    for (Value v : op->getOperands())
      maps.push_back(mapOf(v));
    maps.push_back(maps[at.getInitMutable().getOperandNumber()]);
    return maps;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbols,
                          OpBuilder &builder) const {
    auto at = cast<AttentionOp>(op);
    FailureOr<SplitPlan> plan =
        planSplit(op, operandShardings, resultShardings, symbols);
    if (failed(plan))
      return failure();
    auto split = [&](unsigned loop) { return plan->isSplit(loop); };
    if (split(kSkv) || split(kD))
      return op->emitOpError()
             << "cannot split the " << (split(kSkv) ? "key sequence" : "head")
             << " dimension over the grid: softmax needs every key's score "
                "(split the batch, the heads, or the queries)";
    if (split(2) && (at.getCausal() || at.getQLengths() || at.getDiagonal()))
      return op->emitOpError()
             << "cannot split the query sequence over the grid with a causal "
                "band or q_lengths (they depend on the global query "
                "position); split the batch or the heads";
    // The unit loops (broadcast mask dimensions, an MQA K/V head) cannot
    // be split: checkAllDivisible refused a size-1 dimension in parts.
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbols, builder);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// accel.softmax
//===----------------------------------------------------------------------===//

struct SoftmaxSharding
    : public shard::ShardingInterface::ExternalModel<SoftmaxSharding,
                                                     SoftmaxOp> {
  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    return cast<SoftmaxOp>(op).getLoopIteratorTypes();
  }

  SmallVector<ReductionKind> getReductionLoopIteratorKinds(Operation *) const {
    return {ReductionKind::Generic};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto sm = cast<SoftmaxOp>(op);
    int64_t rank = sm.getInput().getType().getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op->getContext());
    return {id, id, id};
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbols,
                          OpBuilder &builder) const {
    auto sm = cast<SoftmaxOp>(op);
    FailureOr<SplitPlan> plan =
        planSplit(op, operandShardings, resultShardings, symbols);
    if (failed(plan))
      return failure();
    if (shard::isAtLeastOneReductionIteratorSharded(plan->loops,
                                                    plan->assignment))
      return op->emitOpError()
             << "cannot split the normalised dimension "
             << sm.getDimension() << " over the grid";
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbols, builder);
    return success();
  }
};

} // namespace

void accel::registerShardingInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, AccelDialect *) {
    ctx->loadDialect<arith::ArithDialect, linalg::LinalgDialect,
                     shard::ShardDialect,
                     tensor::TensorDialect>();
    MatmulOp::attachInterface<MatmulSharding>(*ctx);
    AttentionOp::attachInterface<AttentionSharding>(*ctx);
    SoftmaxOp::attachInterface<SoftmaxSharding>(*ctx);
  });
}
