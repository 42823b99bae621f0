//===- RowKernel.cpp - row reductions and their consumers as one kernel ---===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"
#include "Epilogue.h"
#include "KernelConfig.h"
#include "GemmKernel.h"
#include "KernelUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::accel;

using Role = GpuRowRole;

int64_t GpuRowGroup::rows() const {
  int64_t r = 1;
  for (auto [i, s] : llvm::enumerate(space))
    if (i != reductionLoop)
      r *= s;
  return r;
}

bool GpuRowGroup::contains(Operation *op) const {
  return llvm::is_contained(members, op);
}

bool mlir::accel::isGpuRowReduction(linalg::GenericOp g) {
  if (g.getNumReductionLoops() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumResults() != 1)
    return false;
  SmallVector<unsigned> red;
  g.getReductionDims(red);
  unsigned n = g.getNumLoops();
  SmallVector<AffineExpr> rows;
  for (unsigned i = 0; i < n; ++i)
    if (i != red[0])
      rows.push_back(getAffineDimExpr(i, g.getContext()));
  return g.getIndexingMapsArray().back() ==
         AffineMap::get(n, 0, rows, g.getContext());
}

/// The loop that `g` (a row reduction) reduces.
static unsigned reductionLoopOf(linalg::GenericOp g) {
  SmallVector<unsigned> red;
  g.getReductionDims(red);
  return red[0];
}

/// The map through which a generic of `n` loops reads a row value: the
/// loops other than `p`, in order.
static AffineMap rowProjection(unsigned n, unsigned p, MLIRContext *ctx) {
  SmallVector<AffineExpr> rows;
  for (unsigned i = 0; i < n; ++i)
    if (i != p)
      rows.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(n, 0, rows, ctx);
}

/// `g`'s role in a group of loop space `space` reducing loop `p`, if it can
/// have one.
static std::optional<Role> roleIn(linalg::GenericOp g, ArrayRef<int64_t> space,
                                  unsigned p) {
  SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  if (isGpuRowReduction(g))
    return ArrayRef<int64_t>(ranges) == space && reductionLoopOf(g) == p
               ? std::optional<Role>(Role::Reduction)
               : std::nullopt;
  if (g.getNumReductionLoops() != 0 || g.getNumResults() != 1 ||
      g.getNumDpsInits() != 1 || !g.getIndexingMapsArray().back().isIdentity())
    return std::nullopt;
  if (ArrayRef<int64_t>(ranges) == space)
    return Role::Full;
  SmallVector<int64_t> rowSpace(space);
  rowSpace.erase(rowSpace.begin() + p);
  if (ranges == rowSpace)
    return Role::Row;
  return std::nullopt;
}

/// Whether a member of role `reader` (over `n` loops of the group's full
/// space, or its rows) can read a member of role `read` through `map`.
static bool readable(Role reader, AffineMap map, Role read, unsigned n,
                     unsigned p) {
  if (read == Role::Full)
    return reader != Role::Row && map.isIdentity() && map.getNumDims() == n;
  if (reader == Role::Row)
    return map.isIdentity() && map.getNumDims() == n - 1;
  return map == rowProjection(n, p, map.getContext());
}

/// The operands a generic reads: inputs whose block argument is used, and
/// a reduction's init (its starting value).
static SmallVector<OpOperand *> readOperands(linalg::GenericOp g) {
  SmallVector<OpOperand *> out;
  for (OpOperand &o : g->getOpOperands())
    if (!g.getMatchingBlockArgument(&o).use_empty() ||
        (isGpuRowReduction(g) && g.isDpsInit(&o)))
      out.push_back(&o);
  return out;
}

/// The scalar constant a value of a tensor holds everywhere: a splat
/// constant or a linalg.fill of a scalar constant.
static TypedAttr uniformValue(Value v) {
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<TypedAttr>();
  if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
    Attribute a;
    if (matchPattern(fill.getInputs()[0], m_Constant(&a)))
      return dyn_cast<TypedAttr>(a);
  }
  return {};
}

namespace {

/// A group under construction.
struct Building {
  SmallVector<int64_t> space;
  unsigned p = 0;
  llvm::DenseSet<Operation *> set;
  DenseMap<Operation *, Role> roles;
};

/// Forms the groups of one function (formGpuRowGroups).
class GroupFormer {
public:
  GroupFormer(func::FuncOp func, ArrayRef<Operation *> exclude)
      : func(func), exclude(exclude) {}

  FailureOr<SmallVector<GpuRowGroup, 1>> run();

private:
  func::FuncOp func;
  ArrayRef<Operation *> exclude;
  SmallVector<Building> groups;
  /// Index into `groups` of each member; merged groups point at the one
  /// they were merged into (find()).
  DenseMap<Operation *, unsigned> groupOf;
  SmallVector<unsigned> parent;

  unsigned find(unsigned g) {
    while (parent[g] != g)
      g = parent[g] = parent[parent[g]];
    return g;
  }
  std::optional<unsigned> groupOfValue(Value v) {
    Operation *def = v.getDefiningOp();
    auto it = def ? groupOf.find(def) : groupOf.end();
    if (it == groupOf.end())
      return std::nullopt;
    return find(it->second);
  }

  /// Whether `v` is computed, through any chain of ops of the function,
  /// from an op of `set`.
  bool dependsOn(Value v, const llvm::DenseSet<Operation *> &set) {
    SmallVector<Operation *> work;
    llvm::DenseSet<Operation *> seen;
    if (Operation *d = v.getDefiningOp())
      work.push_back(d);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      if (set.contains(op))
        return true;
      for (Value o : op->getOperands())
        if (Operation *d = o.getDefiningOp())
          work.push_back(d);
    }
    return false;
  }

  /// Whether one kernel can compute `set`: no member reads a value outside
  /// it that is computed from a member (that value's kernel would have to
  /// run both before and after this one).
  bool closed(const llvm::DenseSet<Operation *> &set) {
    for (Operation *op : set)
      for (Value v : op->getOperands()) {
        Operation *d = v.getDefiningOp();
        if (d && set.contains(d))
          continue;
        if (dependsOn(v, set))
          return false;
      }
    return true;
  }

  /// Whether `g` in role `role` reads every member of group `gi` it reads
  /// through a map the kernel can follow.
  bool readsCompatibly(linalg::GenericOp g, Role role, unsigned gi) {
    const Building &grp = groups[gi];
    for (OpOperand *o : readOperands(g)) {
      Operation *d = o->get().getDefiningOp();
      if (!d || !grp.set.contains(d))
        continue;
      if (!readable(role, g.getMatchingIndexingMap(o), grp.roles.lookup(d),
                    grp.space.size(), grp.p))
        return false;
    }
    return true;
  }

  void add(unsigned gi, linalg::GenericOp g, Role role) {
    groups[gi].set.insert(g);
    groups[gi].roles[g] = role;
    groupOf[g] = gi;
  }

  /// Joins `g` to the compatible groups among the groups of what it reads
  /// (merging them), or starts a group when it is a reduction that joins
  /// none. Returns whether it joined or started one.
  bool place(linalg::GenericOp g) {
    SmallVector<unsigned> candidates;
    for (OpOperand *o : readOperands(g))
      if (std::optional<unsigned> gi = groupOfValue(o->get()))
        if (!llvm::is_contained(candidates, *gi))
          candidates.push_back(*gi);
    std::optional<unsigned> target;
    Role targetRole = Role::Full;
    for (unsigned gi : candidates) {
      Building &grp = groups[gi];
      std::optional<Role> role = roleIn(g, grp.space, grp.p);
      if (!role || !readsCompatibly(g, *role, gi))
        continue;
      llvm::DenseSet<Operation *> set = grp.set;
      if (target)
        set.insert(groups[*target].set.begin(), groups[*target].set.end());
      set.insert(g);
      if (!closed(set))
        continue;
      if (!target) {
        target = gi;
        targetRole = *role;
        continue;
      }
      // Merge gi into the target.
      Building &into = groups[*target];
      for (Operation *op : grp.set) {
        into.set.insert(op);
        into.roles[op] = grp.roles.lookup(op);
      }
      grp.set.clear();
      parent[gi] = *target;
    }
    if (target) {
      add(*target, g, targetRole);
      return true;
    }
    if (!isGpuRowReduction(g))
      return false;
    Building grp;
    grp.space = g.getStaticLoopRanges();
    grp.p = reductionLoopOf(g);
    groups.push_back(std::move(grp));
    parent.push_back(groups.size() - 1);
    add(groups.size() - 1, g, Role::Reduction);
    return true;
  }

  /// Joins an elementwise generic that only members of one group read.
  bool absorb(linalg::GenericOp g) {
    std::optional<unsigned> target;
    for (Operation *user : g->getResult(0).getUsers()) {
      auto it = groupOf.find(user);
      if (it == groupOf.end())
        return false;
      unsigned gi = find(it->second);
      if (target && *target != gi)
        return false;
      target = gi;
    }
    if (!target)
      return false;
    Building &grp = groups[*target];
    std::optional<Role> role = roleIn(g, grp.space, grp.p);
    if (!role || *role == Role::Reduction)
      return false;
    for (OpOperand &use : g->getResult(0).getUses()) {
      auto user = cast<linalg::GenericOp>(use.getOwner());
      if (g.getNumDpsInits() && user.isDpsInit(&use) &&
          !isGpuRowReduction(user) &&
          user.getMatchingBlockArgument(&use).use_empty())
        continue; // shapes the result only
      if (!readable(grp.roles.lookup(user), user.getMatchingIndexingMap(&use),
                    *role, grp.space.size(), grp.p))
        return false;
    }
    llvm::DenseSet<Operation *> set = grp.set;
    set.insert(g);
    if (!closed(set))
      return false;
    add(*target, g, *role);
    return true;
  }

  LogicalResult check(const GpuRowGroup &group, const Building &grp);
};

} // namespace

/// Why the reduction `g` cannot be a row kernel's, or success: its yield is
/// an associative float combination of its accumulator (used once) and a
/// term, on f32, f16 or bf16.
static LogicalResult
findCombiner(linalg::GenericOp g, Operation *&comb, Value &term,
             function_ref<LogicalResult(const Twine &)> fail) {
  Block &body = g.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  Type t = acc.getType();
  if (!t.isF32() && !t.isF16() && !t.isBF16())
    return fail("its accumulator is not f32, f16 or bf16 (a GPU row kernel "
                "combines floats of those types)");
  Value y = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  Operation *op = y.getDefiningOp();
  if (!op || op->getBlock() != &body ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(op))
    return fail("it does not yield arith.addf, mulf, maximumf, minimumf, "
                "maxnumf or minnumf of its accumulator; a GPU row kernel "
                "combines partial results in any order, which only an "
                "associative combination allows");
  if (!acc.hasOneUse() ||
      (op->getOperand(0) == acc) == (op->getOperand(1) == acc))
    return fail("its accumulator is used other than once, as one operand of "
                "the yielded combination");
  comb = op;
  term = op->getOperand(0) == acc ? op->getOperand(1) : op->getOperand(0);
  return success();
}

LogicalResult GroupFormer::check(const GpuRowGroup &group,
                                 const Building &grp) {
  for (auto [i, member] : llvm::enumerate(group.members)) {
    linalg::GenericOp g = member;
    Role role = group.roles[i];
    auto fail = [&](const Twine &why) -> LogicalResult {
      return g.emitOpError("cannot be computed by a GPU row kernel: ") << why;
    };
    auto outType = cast<RankedTensorType>(g.getResult(0).getType());
    if (llvm::is_contained(group.outputs, g.getResult(0)) &&
        (!outType.hasStaticShape() ||
         !isGpuStorableType(outType.getElementType())))
      return fail("its result, which the kernel stores, is not a tensor of "
                  "static shape of f32, f16, bf16, fp8, i8 or i32");
    if (role == Role::Reduction) {
      Operation *comb;
      Value term;
      if (failed(findCombiner(g, comb, term, fail)))
        return failure();
    }
    for (OpOperand *o : readOperands(g)) {
      Value v = o->get();
      Operation *d = v.getDefiningOp();
      if ((d && group.contains(d)) || uniformValue(v))
        continue;
      std::string why =
          whyNotGpuBufferOperand(g, *o, g.getStaticLoopRanges());
      if (!why.empty())
        return fail("operand #" + Twine(o->getOperandNumber()) + " " + why);
    }
    if (std::string why = whyNotGpuBody(g); !why.empty())
      return fail(why);
  }
  return success();
}

FailureOr<SmallVector<GpuRowGroup, 1>> GroupFormer::run() {
  Block &block = func.getBody().front();
  SmallVector<linalg::GenericOp> generics;
  for (auto g : block.getOps<linalg::GenericOp>())
    if (!llvm::is_contained(exclude, g.getOperation()))
      generics.push_back(g);

  // Reductions a row kernel cannot compute are errors here (an elementwise
  // kernel cannot take them either).
  for (linalg::GenericOp g : generics) {
    if (g.getNumReductionLoops() == 0 || isGpuRowReduction(g))
      continue;
    if (g.getNumReductionLoops() != 1)
      return g.emitOpError("reduces over ")
             << g.getNumReductionLoops()
             << " loops; a GPU row kernel reduces over one (reshape the "
                "reduced dimensions into one)";
    return g.emitOpError("cannot be computed by a GPU row kernel: it does "
                         "not have one result indexed by its parallel loops "
                         "in order");
  }
  for (linalg::GenericOp g : generics)
    if (isGpuRowReduction(g) &&
        llvm::any_of(g.getStaticLoopRanges(), ShapedType::isDynamic))
      return g.emitOpError("needs static shapes on the GPU target");

  // Forward: each reduction and what reads the groups' members.
  for (linalg::GenericOp g : generics)
    place(g);
  // Backward: elementwise producers only members read.
  for (linalg::GenericOp g : llvm::reverse(generics))
    if (!groupOf.count(g) && g.getNumReductionLoops() == 0 &&
        g->getNumResults() == 1)
      absorb(g);

  SmallVector<GpuRowGroup, 1> out;
  for (unsigned gi = 0; gi < groups.size(); ++gi) {
    const Building &grp = groups[gi];
    if (find(gi) != gi || grp.set.empty())
      continue;
    GpuRowGroup group;
    group.space = grp.space;
    group.reductionLoop = grp.p;
    for (Operation &op : block)
      if (grp.set.contains(&op)) {
        group.members.push_back(cast<linalg::GenericOp>(op));
        group.roles.push_back(grp.roles.lookup(&op));
      }
    for (linalg::GenericOp g : group.members) {
      Value r = g.getResult(0);
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !grp.set.contains(u); }))
        group.outputs.push_back(r);
      for (OpOperand *o : readOperands(g)) {
        Value v = o->get();
        Operation *d = v.getDefiningOp();
        if ((d && grp.set.contains(d)) || uniformValue(v) ||
            llvm::is_contained(group.inputs, v))
          continue;
        group.inputs.push_back(v);
      }
    }
    if (failed(check(group, grp)))
      return failure();
    out.push_back(std::move(group));
  }
  return out;
}

FailureOr<SmallVector<GpuRowGroup, 1>>
mlir::accel::formGpuRowGroups(func::FuncOp func,
                              ArrayRef<Operation *> exclude) {
  return GroupFormer(func, exclude).run();
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

namespace {

/// Builds the body of one row kernel.
class RowKernelBuilder : public GpuIndexBuilder {
public:
  RowKernelBuilder(OpBuilder &b, Location loc, Block *entry,
                   const GpuRowGroup &group, const GpuTargetInfo &target,
                   int64_t threads)
      : GpuIndexBuilder(b, loc, entry), group(group), target(target),
        threads(threads) {}

  void emit();

private:
  const GpuRowGroup &group;
  const GpuTargetInfo &target;
  const int64_t threads;
  DenseMap<Value, Value> bufferArg;
  /// Row members' values for this block's row.
  DenseMap<Value, Value> rowValue;
  SmallVector<Value> rowIvs;
  Value tid;

  /// The loop indices of the full space at column `j`.
  SmallVector<Value> fullIvs(Value j) {
    SmallVector<Value> ivs(rowIvs);
    ivs.insert(ivs.begin() + group.reductionLoop, j);
    return ivs;
  }

  /// Operand `o` of member `g` at `g`'s loop indices `ivs`.
  Value operandAt(linalg::GenericOp g, OpOperand &o, ArrayRef<Value> ivs) {
    Value v = o.get();
    if (auto it = rowValue.find(v); it != rowValue.end())
      return it->second;
    if (auto def = v.getDefiningOp<linalg::GenericOp>();
        def && group.contains(def))
      return evaluate(def, ivs, nullptr); // a full member: the identity
    if (TypedAttr a = uniformValue(v))
      return arith::ConstantOp::create(b, loc, a);
    SmallVector<Value> idx;
    for (AffineExpr e : g.getMatchingIndexingMap(&o).getResults())
      idx.push_back(emitGpuIndex(b, loc, e, ivs));
    return memref::LoadOp::create(b, loc, bufferArg.lookup(v), idx);
  }

  /// `g`'s body at loop indices `ivs`: the yielded value, or for a
  /// reduction (`comb` its combination) the term it folds in.
  Value evaluate(linalg::GenericOp g, ArrayRef<Value> ivs, Operation *comb,
                 Value term = Value()) {
    Block &body = g.getRegion().front();
    IRMapping map;
    for (OpOperand *o : readOperands(g))
      if (!(comb && g.isDpsInit(o)))
        map.map(g.getMatchingBlockArgument(o), operandAt(g, *o, ivs));
    auto cloneOutside = [&](Value v) {
      if (!map.contains(v) && !g.getRegion().isAncestor(v.getParentRegion()))
        map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
    };
    for (Operation &op : body.without_terminator()) {
      if (&op == comb)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      for (Value v : op.getOperands())
        cloneOutside(v);
      b.clone(op, map);
    }
    Value y = comb ? term
                   : cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
    cloneOutside(y);
    return map.lookupOrDefault(y);
  }

  /// `comb` (a reduction's combination) of `acc` and `x`, in `comb`'s
  /// operand order, on values of `type`.
  Value combine(Operation *comb, Value acc, Value x, Value accArg) {
    Value lhs = comb->getOperand(0) == accArg ? acc : x;
    Value rhs = comb->getOperand(0) == accArg ? x : acc;
    OperationState state(loc, comb->getName(), ValueRange{lhs, rhs},
                         TypeRange{acc.getType()}, comb->getAttrs());
    return b.create(state)->getResult(0);
  }

  /// The identity of `comb` in `type`.
  TypedAttr identity(Operation *comb, FloatType type) {
    const llvm::fltSemantics &sem = type.getFloatSemantics();
    llvm::APFloat v = llvm::APFloat::getZero(sem, /*Negative=*/true);
    if (isa<arith::MulFOp>(comb))
      v = llvm::APFloat::getOne(sem);
    else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(comb))
      v = llvm::APFloat::getInf(sem, /*Negative=*/true);
    else if (isa<arith::MinimumFOp, arith::MinNumFOp>(comb))
      v = llvm::APFloat::getInf(sem, /*Negative=*/false);
    return FloatAttr::get(type, v);
  }

  /// A loop over this thread's columns (j = tid, tid + threads, ...),
  /// carrying `init`; `step` builds the next values at column j (inside
  /// the guard when the columns do not fill the last round).
  SmallVector<Value>
  columnLoop(ValueRange init,
             function_ref<SmallVector<Value>(Value j, ValueRange)> step) {
    const int64_t cols = group.columns();
    auto loop = scf::ForOp::create(b, loc, cst(0),
                                   cst(ceilDiv(cols, threads)), cst(1), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value j = add(mul(loop.getInductionVar(), threads), tid);
    ValueRange carried = loop.getRegionIterArgs();
    SmallVector<Value> next;
    if (cols % threads == 0) {
      next = step(j, carried);
    } else if (init.empty()) {
      // No results: the builder gave the then block its terminator.
      auto ifOp = scf::IfOp::create(b, loc, ult(j, cols),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      step(j, carried);
    } else {
      auto ifOp = scf::IfOp::create(b, loc, TypeRange(init), ult(j, cols),
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, loc, step(j, carried));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, ValueRange(carried));
      }
      next.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    // A loop without results has its terminator from the builder.
    if (!init.empty())
      scf::YieldOp::create(b, loc, next);
    return SmallVector<Value>(loop.getResults());
  }

  void emitReduction(linalg::GenericOp g, unsigned slot, Value shared);
};

} // namespace

void RowKernelBuilder::emitReduction(linalg::GenericOp g, unsigned slot,
                                     Value shared) {
  Operation *comb;
  Value term;
  auto ignore = [](const Twine &) { return failure(); };
  (void)findCombiner(g, comb, term, ignore);
  BlockArgument accArg = g.getRegion().front().getArguments().back();
  auto accType = cast<FloatType>(accArg.getType());

  // This thread's columns, from the identity.
  Value start = arith::ConstantOp::create(b, loc, identity(comb, accType));
  Value acc = columnLoop(ValueRange{start}, [&](Value j, ValueRange carried) {
                return SmallVector<Value>{combine(
                    comb, carried[0], evaluate(g, fullIvs(j), comb, term),
                    accArg)};
              })[0];

  // The warp's, by a butterfly (every lane ends with the same value: each
  // step combines the same two values, in either order), in f32 for the
  // shuffles (16-bit floats extend exactly).
  FloatType f32 = b.getF32Type();
  Value v = accType == f32 ? acc : arith::ExtFOp::create(b, loc, f32, acc);
  const int64_t warp = target.getWarpSize();
  Value width = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(warp));
  for (int64_t off = warp / 2; off >= 1; off /= 2) {
    Value offset =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(off)));
    Value other = gpu::ShuffleOp::create(b, loc, v, offset, width,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = combine(comb, v, other, accArg);
  }

  // The block's: lane 0 of each warp puts its value in shared memory; after
  // a barrier every thread combines them in warp order.
  const int64_t warps = threads / warp;
  if (warps > 1) {
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({warps}, f32, MemRefLayoutAttrInterface(), wg);
    Value partial = memref::ViewOp::create(b, loc, type, shared,
                                           cst(slot * warps * 4), ValueRange{});
    Value lane = rem(tid, warp), warpId = div(tid, warp);
    {
      OpBuilder::InsertionGuard guard(b);
      auto ifOp = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::eq, lane, cst(0)),
          /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      memref::StoreOp::create(b, loc, v, partial, ValueRange{warpId});
    }
    gpu::BarrierOp::create(b, loc);
    v = memref::LoadOp::create(b, loc, partial, ValueRange{cst(0)});
    for (int64_t w = 1; w < warps; ++w)
      v = combine(comb, v,
                  memref::LoadOp::create(b, loc, partial, ValueRange{cst(w)}),
                  accArg);
  }
  if (accType != f32)
    v = arith::TruncFOp::create(b, loc, accType, v);

  // The linalg op starts from its init: combined once, first.
  OpOperand *init = g.getDpsInitOperand(0);
  Value start0 = operandAt(g, *init, fullIvs(cst(0)));
  rowValue[g.getResult(0)] = combine(comb, start0, v, accArg);
}

void RowKernelBuilder::emit() {
  Location l = loc;
  tid = gpu::ThreadIdOp::create(b, l, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, l, gpu::Dimension::x);
  // The row's indices, row-major.
  SmallVector<int64_t> rowSizes(group.space);
  rowSizes.erase(rowSizes.begin() + group.reductionLoop);
  rowIvs.resize(rowSizes.size());
  int64_t stride = 1;
  for (int64_t d = int64_t(rowSizes.size()) - 1; d >= 0; --d) {
    // The block index is below the product of the sizes: the first
    // index needs no remainder.
    rowIvs[d] = d == 0 ? div(bid, stride) : rem(div(bid, stride), rowSizes[d]);
    stride *= rowSizes[d];
  }
  for (auto [i, v] : llvm::enumerate(group.inputs))
    bufferArg[v] = entry->getArgument(i);

  Value shared;
  if (threads > target.getWarpSize()) {
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    shared = gpu::DynamicSharedMemoryOp::create(
        b, l,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
  }

  // Row values in block order (a reduction's loop may read earlier ones).
  unsigned slot = 0;
  for (auto [i, member] : llvm::enumerate(group.members)) {
    linalg::GenericOp g = member;
    Role role = group.roles[i];
    if (role == Role::Reduction)
      emitReduction(g, slot++, shared);
    else if (role == Role::Row)
      rowValue[g.getResult(0)] = evaluate(g, rowIvs, nullptr);
  }

  // The outputs: row values by thread 0, full ones by every thread over its
  // columns.
  const size_t first = group.inputs.size();
  SmallVector<std::pair<Value, Value>> full;
  {
    OpBuilder::InsertionGuard guard(b);
    scf::IfOp ifOp;
    for (auto [i, v] : llvm::enumerate(group.outputs)) {
      Value mem = entry->getArgument(first + i);
      auto it = rowValue.find(v);
      if (it == rowValue.end()) {
        full.push_back({v, mem});
        continue;
      }
      if (!ifOp) {
        ifOp = scf::IfOp::create(b, l, cmp(arith::CmpIPredicate::eq, tid, cst(0)),
                                 /*withElseRegion=*/false);
        b.setInsertionPointToStart(ifOp.thenBlock());
      }
      memref::StoreOp::create(b, l, it->second, mem, rowIvs);
    }
  }
  if (!full.empty())
    columnLoop(ValueRange{}, [&](Value j, ValueRange) {
      SmallVector<Value> ivs = fullIvs(j);
      for (auto [v, mem] : full) {
        auto g = cast<linalg::GenericOp>(v.getDefiningOp());
        memref::StoreOp::create(b, loc, evaluate(g, ivs, nullptr), mem, ivs);
      }
      return SmallVector<Value>();
    });
  gpu::ReturnOp::create(b, l);
}

void mlir::accel::emitGpuRowKernel(
    OpBuilder &b, const GpuRowGroup &group, StringRef name,
    const DenseMap<Value, std::string> &bufferOf, const GpuTargetInfo &target) {
  const int64_t rows = group.rows();
  if (rows == 0)
    return; // nothing to launch
  MLIRContext *ctx = b.getContext();
  Location loc = group.members.front()->getLoc();
  SmallVector<Type> params;
  SmallVector<Attribute> args, access;
  for (Value v : group.inputs) {
    auto t = cast<RankedTensorType>(v.getType());
    params.push_back(MemRefType::get(t.getShape(), t.getElementType()));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, "in"));
  }
  for (Value v : group.outputs) {
    auto t = cast<RankedTensorType>(v.getType());
    params.push_back(MemRefType::get(t.getShape(), t.getElementType()));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
    access.push_back(StringAttr::get(ctx, "out"));
  }
  const int64_t threads = getGpuRowKernelThreads(group.columns(), target);
  const int64_t warps = threads / target.getWarpSize();
  int64_t reductions = llvm::count(group.roles, Role::Reduction);
  const int64_t sharedBytes = warps > 1 ? reductions * warps * 4 : 0;

  auto func = createGpuKernel(
      b, loc, name, params, {rows, 1, 1}, threads, sharedBytes,
      target.getChip(), args, access, "row",
      {b.getNamedAttr("columns", b.getI64IntegerAttr(group.columns()))});

  Block *entry = &func.getBody().front();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  RowKernelBuilder(body, loc, entry, group, target, threads).emit();
}
