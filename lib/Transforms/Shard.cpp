//===- Shard.cpp - split annotated functions over a device grid -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// accel-shard: upstream's sharding propagation and partitioning, run on the
// functions that carry `shard.shard` annotations, with what each process
// holds recorded on the function (accel.grid, accel.split_axes) for the
// runner, the AOT header and the cost model. The ops' own rules live in
// their sharding interface models (lib/Dialect/Accel/IR/
// ShardingInterfaceImpl.cpp); this pass checks what only the whole function
// shows: one grid, splits that divide, no halos.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELSHARDPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

/// The split axes of a sharding as an attribute: one i64 array per
/// dimension (trailing replicated dimensions left out).
static ArrayAttr splitAxesAttr(MLIRContext *ctx, const shard::Sharding &s) {
  SmallVector<Attribute> dims;
  for (shard::GridAxesAttr axes : s.getSplitAxes())
    dims.push_back(DenseI64ArrayAttr::get(
        ctx, llvm::to_vector_of<int64_t>(axes.asArrayRef())));
  while (!dims.empty() && cast<DenseI64ArrayAttr>(dims.back()).empty())
    dims.pop_back();
  return ArrayAttr::get(ctx, dims);
}

/// Checks that `s` splits `value` (a function argument or result) into
/// equal static parts of grid `grid`; `where` locates the error.
static LogicalResult checkBoundarySharding(Operation *where, Value value,
                                           const shard::Sharding &s,
                                           shard::GridOp grid,
                                           const Twine &what) {
  if (!s.getStaticHaloSizes().empty() || !s.getDynamicHaloSizes().empty() ||
      !s.getStaticShardedDimsOffsets().empty() ||
      !s.getDynamicShardedDimsOffsets().empty())
    return where->emitError()
           << what
           << " has halo sizes or explicit shard offsets; accel splits "
              "dimensions into equal parts only";
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return success();
  if (s.getSplitAxes().size() > static_cast<size_t>(type.getRank()))
    return where->emitError() << what << " has " << s.getSplitAxes().size()
                              << " split dimensions but rank "
                              << type.getRank();
  for (auto [dim, axes] : llvm::enumerate(s.getSplitAxes())) {
    int64_t parts = 1;
    for (shard::GridAxis a : axes.asArrayRef()) {
      if (a < 0 || a >= grid.getRank())
        return where->emitError()
               << what << " names grid axis " << a << ", but @"
               << grid.getSymName() << " has " << grid.getRank() << " axes";
      parts *= grid.getShape()[a];
    }
    if (parts == 1)
      continue;
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return where->emitError()
             << what << " splits dynamic dimension " << dim
             << "; accel shards static shapes only";
    if (size % parts != 0)
      return where->emitError()
             << what << " splits dimension " << dim << " (size " << size
             << ") into " << parts << " parts over grid @"
             << grid.getSymName()
             << ", which does not divide it (local shards would differ in "
                "size)";
  }
  return success();
}

/// The sharding of argument `arg` after propagation, as partition reads
/// it: its defining annotation (`shard.shard %arg to ...`), else the one
/// for its users (propagation annotates arguments for their users), else
/// none (replicated).
static std::optional<std::pair<shard::ShardOp, shard::Sharding>>
argumentSharding(BlockArgument arg) {
  std::optional<std::pair<shard::ShardOp, shard::Sharding>> forUsers;
  for (Operation *user : arg.getUsers())
    if (auto s = dyn_cast<shard::ShardOp>(user)) {
      if (!s.getAnnotateForUsers())
        return std::make_pair(s, shard::Sharding(s.getSharding()));
      if (!forUsers)
        forUsers = std::make_pair(s, shard::Sharding(s.getSharding()));
    }
  return forUsers;
}

static std::optional<std::pair<shard::ShardOp, shard::Sharding>>
resultSharding(Value returned) {
  if (auto s = returned.getDefiningOp<shard::ShardOp>())
    return std::make_pair(s, shard::Sharding(s.getSharding()));
  return std::nullopt;
}

namespace {
struct AccelShardPass
    : public accel::impl::AccelShardPassBase<AccelShardPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<shard::GridOp> grids(module.getOps<shard::GridOp>());
    if (grids.empty())
      return;
    if (grids.size() > 1) {
      InFlightDiagnostic d = grids[1].emitError()
                             << "accel-shard takes one shard.grid per module";
      d.attachNote(grids[0].getLoc()) << "the first grid is here";
      return signalPassFailure();
    }
    shard::GridOp grid = grids.front();
    for (int64_t size : grid.getShape())
      if (ShapedType::isDynamic(size) || size < 1) {
        grid.emitError() << "accel-shard needs a grid of static, positive "
                            "sizes (one process per element)";
        return signalPassFailure();
      }

    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func->hasAttr("accel.grid"))
        continue;
      bool annotated = false;
      func.walk([&](shard::ShardOp) { annotated = true; });
      if (!annotated)
        continue;
      if (failed(shardFunction(func, grid)))
        return signalPassFailure();
    }
  }

  LogicalResult shardFunction(func::FuncOp func, shard::GridOp grid) {
    MLIRContext *ctx = func.getContext();
    if (!func.getBody().hasOneBlock())
      return func.emitError()
             << "accel-shard takes functions of a single block";
    // Dead values would reach partition unannotated (upstream's models
    // crash on them): drop them first.
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops))
      if (op != func.getOperation() && isOpTriviallyDead(op))
        op->erase();
    OpPassManager propagate(func::FuncOp::getOperationName());
    propagate.addPass(shard::createShardingPropagation());
    if (failed(runPipeline(propagate, func)))
      return failure();

    // What each process receives and returns, before partition rewrites
    // the signature into local shards.
    SmallVector<ArrayAttr> argAxes(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      auto found = argumentSharding(arg);
      if (!found)
        continue;
      if (failed(checkBoundarySharding(
              found->first, arg, found->second, grid,
              "argument #" + Twine(arg.getArgNumber()) + " of @" +
                  func.getSymName())))
        return failure();
      argAxes[arg.getArgNumber()] = splitAxesAttr(ctx, found->second);
    }
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    SmallVector<ArrayAttr> resultAxes(ret.getNumOperands());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      auto found = resultSharding(v);
      if (!found)
        continue;
      if (failed(checkBoundarySharding(found->first, v, found->second, grid,
                                       "result #" + Twine(i) + " of @" +
                                           func.getSymName())))
        return failure();
      resultAxes[i] = splitAxesAttr(ctx, found->second);
    }
    // Partition needs every tensor the function computes annotated;
    // propagation reaches what is connected to an annotation.
    WalkResult reached = func.walk([&](Operation *op) {
      if (isa<shard::ShardOp, shard::ShardingOp, func::ReturnOp>(op) ||
          op == func.getOperation())
        return WalkResult::advance();
      for (Value r : op->getResults())
        if (isa<RankedTensorType>(r.getType()) &&
            llvm::none_of(r.getUsers(), [](Operation *u) {
              return isa<shard::ShardOp>(u);
            })) {
          op->emitError()
              << "has no sharding after propagation: annotate one of its "
                 "operands or its result, or make the annotations around it "
                 "agree";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (reached.wasInterrupted())
      return failure();
    // Every other annotation must divide what it splits, too.
    WalkResult walk = func.walk([&](shard::ShardOp s) {
      if (failed(checkBoundarySharding(s, s.getSrc(),
                                       shard::Sharding(s.getSharding()), grid,
                                       "this annotation")))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    OpPassManager partition(func::FuncOp::getOperationName());
    partition.addPass(shard::createPartition());
    if (failed(runPipeline(partition, func)))
      return failure();

    // Function attributes (argument attributes would reach the LLVM
    // function, whose translation warns about them).
    auto list = [&](ArrayRef<ArrayAttr> axes) {
      SmallVector<Attribute> all;
      for (ArrayAttr a : axes)
        all.push_back(a ? a : ArrayAttr::get(ctx, {}));
      return ArrayAttr::get(ctx, all);
    };
    func->setAttr("accel.grid", DenseI64ArrayAttr::get(ctx, grid.getShape()));
    func->setAttr("accel.arg_split_axes", list(argAxes));
    func->setAttr("accel.result_split_axes", list(resultAxes));
    return success();
  }
};
} // namespace
