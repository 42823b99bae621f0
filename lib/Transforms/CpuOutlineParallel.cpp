//===- CpuOutlineParallel.cpp - parallel loops as parallel-for calls -----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// An ahead-of-time library runs inside someone else's program: it cannot
// count on an OpenMP runtime there, and an inference runtime that embeds it
// has a thread pool of its own (as XNNPACK takes pthreadpool). So the
// library's parallel loops do not become OpenMP regions; each outermost
// `scf.parallel` becomes a call
//
//   callee(body, context, count)
//
// of a parallel-for the library's C wrapper defines (its own threads, or
// the caller's pool: docs/aot.md, "Threads"). `body(context, begin, end)`
// is the loop's body outlined into a function that runs the iterations
// [begin, end) of the row-major linearised iteration space; `context` is a
// stack slot holding what the body reads from outside the loop, each value
// in its LLVM form. Upstream's async-parallel-for outlines the same way but
// calls into MLIR's async runtime library, which an AOT library must not
// need.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCPUOUTLINEPARALLELPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;

namespace {

/// The function type of an outlined body: (context, begin, end) -> ().
FunctionType bodyType(MLIRContext *ctx) {
  auto index = IndexType::get(ctx);
  return FunctionType::get(ctx, {LLVM::LLVMPointerType::get(ctx), index, index},
                           {});
}

/// A trip count known when compiling, if every bound and step is constant.
std::optional<int64_t> staticTripCount(scf::ParallelOp loop) {
  int64_t total = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    int64_t span, trips;
    if (!l || !u || !s || *s <= 0 || llvm::SubOverflow(*u, *l, span))
      return std::nullopt;
    trips = span > 0 ? llvm::divideCeil(span, *s) : 0;
    if (llvm::MulOverflow(total, trips, total))
      return std::nullopt;
  }
  return total;
}

/// Most calls of the parallel-for one loop may make per call of its
/// function: the iterations of the sequential loops around it.
constexpr int64_t kMaxDispatches = 1024;

/// Whether `loop` is in no other parallel loop and the sequential loops
/// around it (a GEMM's K blocks) run a number of times known when
/// compiling, at most kMaxDispatches in all. A parallel loop in a loop of
/// unknown trip count stays sequential: each iteration would cost a
/// dispatch, and LLVM could no longer delete the outer loop when the inner
/// one is empty (a reduction over 2^62 rows of no columns takes no time
/// sequentially).
bool boundedDispatches(scf::ParallelOp loop) {
  int64_t dispatches = 1;
  for (Operation *op = loop->getParentOp(); op && !isa<func::FuncOp>(op);
       op = op->getParentOp()) {
    if (isa<scf::ParallelOp>(op))
      return false;
    if (!isa<LoopLikeOpInterface>(op))
      continue;
    auto outer = dyn_cast<scf::ForOp>(op);
    std::optional<APInt> trips =
        outer ? outer.getStaticTripCount() : std::nullopt;
    if (!trips || trips->getZExtValue() > uint64_t(kMaxDispatches))
      return false;
    dispatches *= std::max<int64_t>(1, trips->getZExtValue());
    if (dispatches > kMaxDispatches)
      return false;
  }
  return true;
}

struct OutlineParallel
    : public accel::impl::AccelCpuOutlineParallelPassBase<OutlineParallel> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (callee.empty()) {
      module.emitError("accel-cpu-outline-parallel: the callee name is empty");
      return signalPassFailure();
    }
    LLVMTypeConverter converter(ctx);

    // The outermost loops to outline, per function.
    SmallVector<scf::ParallelOp> loops;
    module.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<func::FuncOp>() || loop.getNumResults() ||
          !boundedDispatches(loop))
        return;
      std::optional<int64_t> trips = staticTripCount(loop);
      if (trips && *trips <= 1)
        return;
      loops.push_back(loop);
    });
    if (loops.empty())
      return;

    auto index = IndexType::get(ctx);
    auto calleeType = FunctionType::get(
        ctx, {bodyType(ctx), LLVM::LLVMPointerType::get(ctx), index}, {});
    Operation *existing = SymbolTable::lookupSymbolIn(module, callee);
    auto function = dyn_cast_or_null<func::FuncOp>(existing);
    if (existing && (!function || function.getFunctionType() != calleeType)) {
      existing->emitError()
          << "accel-cpu-outline-parallel: '" << callee
          << "' is the parallel-for outlined loops call, so it must be a "
             "func.func of type "
          << calleeType;
      return signalPassFailure();
    }
    if (!function) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      function = func::FuncOp::create(b, module.getLoc(), callee, calleeType);
      function.setPrivate();
    }

    SymbolTable symbols(module);
    for (scf::ParallelOp loop : loops)
      outline(loop, function, converter, symbols);
  }

  /// Replaces `loop` with a call of `parallelFor`, unless a value it uses
  /// has no LLVM form (then it stays a sequential loop).
  void outline(scf::ParallelOp loop, func::FuncOp parallelFor,
               LLVMTypeConverter &converter, SymbolTable &symbols) {
    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    auto parent = loop->getParentOfType<func::FuncOp>();

    // What the body reads from outside the loop, then per dimension the
    // lower bound, step and trip count. Constants are made again inside the
    // body (they stay constants for LLVM); the rest go through the context.
    llvm::SetVector<Value> usedSet;
    getUsedValuesDefinedAbove(loop.getRegion(), usedSet);
    SmallVector<Value> used(usedSet.begin(), usedSet.end());
    OpBuilder b(loop);
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> lbs, steps, counts;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      // Folded: constant bounds give a constant count.
      Value span = b.createOrFold<arith::SubIOp>(loc, ub, lb);
      Value n = b.createOrFold<arith::MaxSIOp>(
          loc, b.createOrFold<arith::CeilDivSIOp>(loc, span, step), c0);
      total = b.createOrFold<arith::MulIOp>(loc, total, n);
      lbs.push_back(lb);
      steps.push_back(step);
      counts.push_back(n);
    }
    llvm::SetVector<Value> inputs;
    // The first dimension's count is not needed to delinearise.
    auto read = llvm::concat<Value>(used, lbs, steps,
                                    MutableArrayRef<Value>(counts).drop_front());
    for (Value v : read)
      if (!matchPattern(v, m_Constant()))
        inputs.insert(v);
    SmallVector<Type> fieldTypes;
    for (Value v : inputs) {
      Type t = converter.convertType(v.getType());
      if (!t || !LLVM::isCompatibleType(t)) {
        // Left sequential; what was built for it folds away.
        return;
      }
      fieldTypes.push_back(t);
    }
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto structType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);

    // The context: a stack slot in the entry block (not in a loop around
    // this one, where each iteration would take more stack).
    Value slot;
    if (!inputs.empty()) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&parent.getBody().front());
      Value one = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                           b.getI64IntegerAttr(1));
      // No alignment given: LLVM's preferred one for the struct, which
      // the fields' loads and stores (a captured vector's included) assume.
      slot = LLVM::AllocaOp::create(b, loc, ptr, structType, one,
                                    /*alignment=*/0);
    } else {
      slot = LLVM::ZeroOp::create(b, loc, ptr);
    }
    auto field = [&](OpBuilder &builder, Value base, int64_t i) {
      return LLVM::GEPOp::create(builder, loc, ptr, structType, base,
                                 ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
    };
    // In the LLVM form: a memref as its descriptor, an index as i64.
    for (auto [i, v] : llvm::enumerate(inputs)) {
      Value stored = v;
      if (isa<IndexType>(v.getType()))
        stored = arith::IndexCastOp::create(b, loc, fieldTypes[i], v);
      else if (v.getType() != fieldTypes[i])
        stored = UnrealizedConversionCastOp::create(b, loc, fieldTypes[i], v)
                     .getResult(0);
      LLVM::StoreOp::create(b, loc, stored, field(b, slot, i));
    }

    // The body: (context, begin, end), iterations begin..end-1.
    std::string name = (parent.getSymName() + "_parallel").str();
    func::FuncOp body;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(parent);
      body = func::FuncOp::create(b, loc, name, bodyType(ctx));
      body.setPrivate();
      // Local to the object: two modules' objects link into one program.
      body->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
      symbols.insert(body); // makes the name unique
      Block *entry = body.addEntryBlock();
      b.setInsertionPointToStart(entry);
      Value context = entry->getArgument(0);
      IRMapping map;
      for (auto [i, v] : llvm::enumerate(inputs)) {
        Value loaded =
            LLVM::LoadOp::create(b, loc, fieldTypes[i], field(b, context, i));
        if (isa<IndexType>(v.getType()))
          loaded = arith::IndexCastOp::create(b, loc, v.getType(), loaded);
        else if (v.getType() != fieldTypes[i])
          loaded = UnrealizedConversionCastOp::create(b, loc, v.getType(),
                                                      loaded)
                       .getResult(0);
        map.map(v, loaded);
      }
      auto inBody = [&](Value v) {
        if (Value mapped = map.lookupOrNull(v))
          return mapped;
        // A constant (not an input).
        Value copy = b.clone(*v.getDefiningOp(), map)->getResult(0);
        map.map(v, copy);
        return copy;
      };
      for (Value v : read)
        inBody(v);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto iterations = scf::ForOp::create(b, loc, entry->getArgument(1),
                                           entry->getArgument(2), one);
      b.setInsertionPointToStart(iterations.getBody());
      // Row-major: the last dimension varies fastest.
      size_t rank = loop.getNumLoops();
      Value rest = iterations.getInductionVar();
      SmallVector<Value> ivs(rank);
      for (size_t d = rank; d-- > 0;) {
        Value idx = rest;
        if (d > 0) {
          idx = arith::RemUIOp::create(b, loc, rest, inBody(counts[d]));
          rest = arith::DivUIOp::create(b, loc, rest, inBody(counts[d]));
        }
        ivs[d] = arith::AddIOp::create(
            b, loc, inBody(lbs[d]),
            arith::MulIOp::create(b, loc, idx, inBody(steps[d])));
      }
      for (size_t d = 0; d < rank; ++d)
        map.map(loop.getInductionVars()[d], ivs[d]);
      for (Operation &op : loop.getBody()->without_terminator())
        b.clone(op, map);
      b.setInsertionPointToEnd(entry);
      func::ReturnOp::create(b, loc);
    }

    Value fn = func::ConstantOp::create(b, loc, bodyType(ctx),
                                        SymbolRefAttr::get(body));
    func::CallOp::create(b, loc, parallelFor, ValueRange{fn, slot, total});
    loop.erase();
  }
};

} // namespace
