//===- CpuSizeChecks.cpp - sizes a CPU kernel's ops tie together ----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A union-find over the dimensions of the function's shaped values, run on
// the IR as given (before any lowering, so on the ops' own semantics): each
// op unites the dimensions its semantics make equal, a static size joins the
// class of its constant, an index from tensor.dim stands for the dimension
// it reads (so `tensor.empty(%d)` ties to it). The classes that hold more
// than one size the caller passes become the wrapper's checks. An op the
// analysis does not know ties nothing: a call may then still disagree in
// the sizes only that op relates, as before.
//
//===----------------------------------------------------------------------===//

#include "accel/Target/CpuSizeChecks.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include <map>
#include <optional>
#include <tuple>

using namespace mlir;
using namespace mlir::accel;
using namespace mlir::accel::cpuabi;

namespace {

class SizeClasses {
public:
  unsigned find(unsigned n) {
    while (parent[n] != n)
      n = parent[n] = parent[parent[n]];
    return n;
  }

  void unite(unsigned a, unsigned b) {
    a = find(a);
    b = find(b);
    if (a == b)
      return;
    // The smaller node stays the root: classes keep their first constant.
    if (b < a)
      std::swap(a, b);
    parent[b] = a;
    if (!constantOf.count(a) && constantOf.count(b))
      constantOf[a] = constantOf[b];
  }

  unsigned constant(int64_t c) {
    auto [it, added] = constants.try_emplace(c, 0);
    if (added) {
      it->second = fresh();
      constantOf[it->second] = c;
    }
    return it->second;
  }

  /// The class of dimension `d` of `v` (a ranked shaped value).
  unsigned dim(Value v, int64_t d) {
    auto [it, added] = dims.try_emplace({v, d}, 0);
    if (added) {
      unsigned node = fresh();
      it->second = node;
      int64_t size = cast<ShapedType>(v.getType()).getDimSize(d);
      if (!ShapedType::isDynamic(size))
        unite(node, constant(size));
    }
    return it->second;
  }

  /// The class an index value stands for: a constant, or a dimension read
  /// by tensor.dim / memref.dim.
  std::optional<unsigned> index(Value v) {
    if (auto it = indices.find(v); it != indices.end())
      return it->second;
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return constant(c.getSExtValue());
    return std::nullopt;
  }
  void bindIndex(Value v, unsigned node) { indices[v] = node; }

  /// The constant of `n`'s class, if it has one.
  std::optional<int64_t> constantOfClass(unsigned n) {
    auto it = constantOf.find(find(n));
    if (it == constantOf.end())
      return std::nullopt;
    return it->second;
  }

  unsigned fresh() {
    parent.push_back(parent.size());
    return parent.size() - 1;
  }

private:
  std::vector<unsigned> parent;
  llvm::DenseMap<unsigned, int64_t> constantOf;
  std::map<int64_t, unsigned> constants;
  llvm::DenseMap<std::pair<Value, int64_t>, unsigned> dims;
  llvm::DenseMap<Value, unsigned> indices;
};

bool isRankedShaped(Value v) {
  auto t = dyn_cast<ShapedType>(v.getType());
  return t && t.hasRank();
}

/// Unites dimension by dimension two values of the same rank.
void uniteAll(SizeClasses &classes, Value a, Value b) {
  if (!isRankedShaped(a) || !isRankedShaped(b))
    return;
  int64_t rank = cast<ShapedType>(a.getType()).getRank();
  if (cast<ShapedType>(b.getType()).getRank() != rank)
    return;
  for (int64_t d = 0; d < rank; ++d)
    classes.unite(classes.dim(a, d), classes.dim(b, d));
}

} // namespace

std::vector<SizeCheck>
mlir::accel::cpuabi::collectSizeChecks(func::FuncOp func) {
  SizeClasses classes;
  func.walk([&](Operation *op) {
    if (auto d = dyn_cast<tensor::DimOp>(op)) {
      if (std::optional<int64_t> i = d.getConstantIndex();
          i && isRankedShaped(d.getSource()) &&
          *i < cast<ShapedType>(d.getSource().getType()).getRank() && *i >= 0)
        classes.bindIndex(d.getResult(), classes.dim(d.getSource(), *i));
    } else if (auto d = dyn_cast<memref::DimOp>(op)) {
      if (std::optional<int64_t> i = d.getConstantIndex();
          i && isRankedShaped(d.getSource()) &&
          *i < cast<ShapedType>(d.getSource().getType()).getRank() && *i >= 0)
        classes.bindIndex(d.getResult(), classes.dim(d.getSource(), *i));
    } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      RankedTensorType t = empty.getType();
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d))
          if (std::optional<unsigned> n =
                  classes.index(empty.getDynamicSize(d)))
            classes.unite(classes.dim(empty.getResult(), d), *n);
    } else if (auto c = dyn_cast<tensor::CastOp>(op)) {
      uniteAll(classes, c.getSource(), c.getResult());
    } else if (auto c = dyn_cast<memref::CastOp>(op)) {
      uniteAll(classes, c.getSource(), c.getResult());
    }

    // Destination-passing ops return their inits' shapes.
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      for (OpResult r : op->getResults())
        if (r.getResultNumber() < unsigned(dps.getNumDpsInits()))
          uniteAll(classes, r,
                   dps.getDpsInitOperand(r.getResultNumber())->get());

    auto unite = [&](Value a, int64_t da, Value b, int64_t db) {
      classes.unite(classes.dim(a, da), classes.dim(b, db));
    };
    if (auto mm = dyn_cast<MatmulOp>(op)) {
      // A [batch..., M, K], B [batch..., K, N] (or [batch..., N, K]), C
      // [batch..., M, N]: the verifier checks the static sizes only.
      Value a = mm.getLhs(), b = mm.getRhs(), c = mm.getInit();
      if (!isRankedShaped(a) || !isRankedShaped(b) || !isRankedShaped(c))
        return;
      int64_t r = cast<ShapedType>(a.getType()).getRank();
      if (cast<ShapedType>(b.getType()).getRank() != r ||
          cast<ShapedType>(c.getType()).getRank() != r)
        return;
      bool tb = mm.getTransposeB();
      for (int64_t i = 0; i + 2 < r; ++i) {
        unite(a, i, b, i);
        unite(a, i, c, i);
      }
      unite(a, r - 2, c, r - 2);
      unite(a, r - 1, b, tb ? r - 1 : r - 2);
      unite(b, tb ? r - 2 : r - 1, c, r - 1);
    } else if (auto sm = dyn_cast<SoftmaxOp>(op)) {
      uniteAll(classes, sm.getInput(), sm.getInit());
    } else if (auto at = dyn_cast<AttentionOp>(op)) {
      Value q = at.getQuery(), k = at.getKey(), v = at.getValue(),
            o = at.getInit();
      for (Value x : {q, k, v, o})
        if (!isRankedShaped(x) || cast<ShapedType>(x.getType()).getRank() != 4)
          return;
      // Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv],
      // O [B, Hq, Sq, Dv].
      unite(q, 0, k, 0);
      unite(q, 0, v, 0);
      unite(q, 0, o, 0);
      unite(q, 1, o, 1);
      unite(k, 1, v, 1);
      unite(q, 2, o, 2);
      unite(k, 2, v, 2);
      unite(q, 3, k, 3);
      unite(v, 3, o, 3);
      // Hq % Hkv == 0 needs no check here: the CPU lowering takes static
      // head counts only (and the verifier checks those).
      // The mask broadcasts to [B, Hq, Sq, Skv], aligned right; a dynamic
      // mask dimension is taken to be equal (AccelOps.td).
      if (Value mask = at.getMask(); mask && isRankedShaped(mask)) {
        auto mt = cast<ShapedType>(mask.getType());
        std::pair<Value, int64_t> full[4] = {{q, 0}, {q, 1}, {q, 2}, {k, 2}};
        int64_t mr = mt.getRank();
        for (int64_t i = 0; i < mr && mr <= 4; ++i)
          if (mt.getDimSize(i) != 1)
            unite(mask, i, full[i + 4 - mr].first, full[i + 4 - mr].second);
      }
      for (Value lengths : {at.getKvLengths(), at.getQLengths()})
        if (lengths && isRankedShaped(lengths) &&
            cast<ShapedType>(lengths.getType()).getRank() == 1)
          unite(lengths, 0, q, 0);
    } else if (auto pa = dyn_cast<PagedAttentionOp>(op)) {
      // Q [B, Hq, Sq, D], pools [P, T, Hkv, D] and [P, T, Hkv, Dv], block
      // table [B, N], lengths [B], O [B, Hq, Sq, Dv]: only B and P may be
      // dynamic (the verifier checks the rest), and a table or lengths
      // shorter than Q's batch, or a value pool smaller than the key pool,
      // would be read past their ends.
      Value q = pa.getQuery(), k = pa.getKeyCache(), v = pa.getValueCache(),
            t = pa.getBlockTable(), l = pa.getKvLengths(), o = pa.getInit();
      for (Value x : {q, k, v, t, l, o})
        if (!isRankedShaped(x))
          return;
      unite(q, 0, t, 0);
      unite(q, 0, l, 0);
      unite(q, 0, o, 0);
      unite(k, 0, v, 0);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      // Every operand dimension indexed by loop d alone has d's size.
      SmallVector<unsigned> loops;
      for (unsigned i = 0, e = linalgOp.getNumLoops(); i < e; ++i)
        loops.push_back(classes.fresh());
      for (OpOperand &operand : op->getOpOperands()) {
        if (!linalgOp.isDpsInput(&operand) && !linalgOp.isDpsInit(&operand))
          continue;
        if (!isRankedShaped(operand.get()))
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
        for (auto [i, e] : llvm::enumerate(map.getResults()))
          if (auto d = dyn_cast<AffineDimExpr>(e);
              d && d.getPosition() < loops.size())
            classes.unite(classes.dim(operand.get(), i),
                          loops[d.getPosition()]);
      }
    }
  });

  // The sizes the caller passes: the arguments', then the results' (those
  // of the returned values).
  struct External {
    SizeRef ref;
    unsigned node;
    bool dynamic;
  };
  std::vector<External> externals;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    if (!isRankedShaped(arg))
      continue;
    auto t = cast<ShapedType>(arg.getType());
    for (int64_t d = 0; d < t.getRank(); ++d)
      externals.push_back({SizeRef{false, int64_t(i), d, 0},
                           classes.dim(arg, d), t.isDynamicDim(d)});
  }
  SmallVector<SmallVector<unsigned>> resultNodes(func.getNumResults());
  for (auto [i, t] : llvm::enumerate(func.getResultTypes())) {
    auto st = dyn_cast<ShapedType>(t);
    if (!st || !st.hasRank())
      continue;
    for (int64_t d = 0; d < st.getRank(); ++d) {
      unsigned node = classes.fresh();
      if (!st.isDynamicDim(d))
        classes.unite(node, classes.constant(st.getDimSize(d)));
      resultNodes[i].push_back(node);
      externals.push_back(
          {SizeRef{true, int64_t(i), d, 0}, node, st.isDynamicDim(d)});
    }
  }
  func.walk([&](func::ReturnOp ret) {
    for (auto [i, v] : llvm::enumerate(ret.getOperands()))
      if (i < resultNodes.size() && isRankedShaped(v))
        for (auto [d, node] : llvm::enumerate(resultNodes[i]))
          if (int64_t(d) < cast<ShapedType>(v.getType()).getRank())
            classes.unite(node, classes.dim(v, d));
  });

  // What each class is compared with: its constant, or else the first
  // size of it the caller passes.
  auto termOf = [&](unsigned node) -> std::optional<SizeRef> {
    if (std::optional<int64_t> c = classes.constantOfClass(node))
      return SizeRef{false, -1, 0, *c};
    for (const External &e : externals)
      if (classes.find(e.node) == classes.find(node))
        return e.ref;
    return std::nullopt;
  };
  auto same = [](const SizeRef &a, const SizeRef &b) {
    return std::tie(a.result, a.index, a.dim, a.value) ==
           std::tie(b.result, b.index, b.dim, b.value);
  };
  std::vector<SizeCheck> checks;
  for (const External &e : externals) {
    if (!e.dynamic)
      continue; // check_tensor compares it with its static size
    std::optional<SizeRef> target = termOf(e.node);
    if (target && !same(*target, e.ref))
      checks.push_back({e.ref, *target});
  }
  return checks;
}
