//===- AccelToGPU.cpp - accel matmuls to GPU kernels ----------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// convert-accel-to-gpu: compiles each function of accel.matmul ops on
// static tensors into a gpu.module with one kernel per matmul (functions of
// accel.attention: AttentionKernel.cpp). The kernel is the one the
// configuration stage chose (KernelConfig.cpp); its body is written once per
// algorithm, in its vendor's folder (GemmKernel.h lists them). Everything
// the kernel needs to know about the chip comes from GpuTargetInfo.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "AttentionKernel.h"
#include "DequantKernel.h"
#include "Epilogue.h"
#include "GemmKernel.h"
#include "KernelConfig.h"
#include "KernelUtils.h"
#include "PagedAttentionKernel.h"
#include "RowKernel.h"
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
#include "mlir/Dialect/Shard/IR/ShardOps.h"
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
#include <numeric>

namespace mlir::accel {
#define GEN_PASS_DEF_CONVERTACCELTOGPUPASS
#include "accel/Conversion/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

//===----------------------------------------------------------------------===//
// Kernel emission
//===----------------------------------------------------------------------===//

void GemmKernelBuilder::emit(Value a, Value bArg, Value cIn, Value c,
                             const GpuEpilogue *epi,
                             ArrayRef<Value> epilogueBuffers) {
  gA = a;
  gB = bArg;
  gCin = cIn;
  gC = c;
  epilogue = epi;
  gEpilogue.assign(epilogueBuffers.begin(), epilogueBuffers.end());
  // The kernel the configuration stage chose (KernelConfig.cpp).
  StringRef kernel = getGpuMatmulKernelName(k, target);
  if (kernel == "wgmma")
    return emitWgmma();
  if (kernel == "mfma" || kernel == "wmma")
    return emitLds(*target.getLaneLayout(k.mma));
  if (kernel == "fma")
    return emitFma();
  return emitMmaSync();
}

/// Of the epilogues that are one generic (it reads several kernels'
/// results), only the last kernel's stays: the others store their result,
/// which that kernel then reads.
static void
keepLastOfShared(SmallVectorImpl<std::optional<GpuEpilogue>> &epilogues) {
  for (auto [i, e] : llvm::enumerate(epilogues)) {
    if (!e)
      continue;
    for (size_t j = i + 1; j < epilogues.size(); ++j)
      if (epilogues[j] && epilogues[j]->op == e->op) {
        e.reset();
        break;
      }
  }
}

namespace {

/// One kernel of a function: what it reads and writes (values of the
/// function, seen through reshapes), and the op that places it among
/// kernels that do not depend on each other.
struct KernelItem {
  enum Kind {
    Matmul,
    Attention,
    Dequant,
    Paged,
    Elementwise,
    Row,
    Collective
  } kind;
  size_t index;
  SmallVector<Value> reads, writes;
  Operation *anchor;
};

/// The order in which `items` run: each after the kernels that write what
/// it reads, otherwise in the order of their anchors. A located error when
/// they depend on each other in a cycle.
FailureOr<SmallVector<size_t>> orderKernels(func::FuncOp func,
                                            ArrayRef<KernelItem> items) {
  DenseMap<Value, size_t> writer;
  for (auto [i, item] : llvm::enumerate(items))
    for (Value v : item.writes)
      writer[sourceOfReshapes(v)] = i;
  SmallVector<size_t> byAnchor(items.size());
  std::iota(byAnchor.begin(), byAnchor.end(), 0);
  llvm::sort(byAnchor, [&](size_t x, size_t y) {
    return items[x].anchor != items[y].anchor &&
           items[x].anchor->isBeforeInBlock(items[y].anchor);
  });
  SmallVector<size_t> order;
  SmallVector<bool> done(items.size(), false);
  while (order.size() < items.size()) {
    bool progress = false;
    for (size_t i : byAnchor) {
      if (done[i])
        continue;
      bool ready = llvm::all_of(items[i].reads, [&](Value v) {
        auto it = writer.find(sourceOfReshapes(v));
        return it == writer.end() || it->second == i || done[it->second];
      });
      if (!ready)
        continue;
      done[i] = true;
      order.push_back(i);
      progress = true;
      break;
    }
    if (!progress)
      return func.emitOpError("has GPU kernels that read each other's "
                              "results in a cycle; split the function");
  }
  return order;
}

/// What the host library needs of a partitioned function's all-reduce,
/// which it runs as one NCCL call between the kernels (GpuCollective in
/// Pipelines.h reads it back); a located error for one NCCL cannot run.
FailureOr<DictionaryAttr>
describeAllReduce(shard::AllReduceOp op,
                  const DenseMap<Value, std::string> &bufferOf) {
  auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(op.getResult().getType());
  if (!type || !resultType || !type.hasStaticShape() ||
      type.getElementType() != resultType.getElementType())
    return op.emitOpError("runs on the GPU as an NCCL all-reduce of a "
                          "statically shaped tensor into one of the same "
                          "element type");
  StringRef reduction;
  switch (op.getReduction()) {
  case shard::ReductionKind::Sum:
    reduction = "sum";
    break;
  case shard::ReductionKind::Max:
    reduction = "max";
    break;
  case shard::ReductionKind::Min:
    reduction = "min";
    break;
  case shard::ReductionKind::Product:
    reduction = "product";
    break;
  case shard::ReductionKind::Average:
    reduction = "average";
    break;
  default:
    return op.emitOpError("reduces with '")
           << shard::stringifyReductionKind(op.getReduction())
           << "', which NCCL's all-reduce has no operation for (it has sum, "
              "max, min, product and average)";
  }
  std::string dtype;
  llvm::raw_string_ostream(dtype) << type.getElementType();
  if (getNcclDataType(dtype) < 0)
    return op.emitOpError("all-reduces ")
           << type.getElementType()
           << " elements, which NCCL has no data type for (it has i8, i32, "
              "i64, f16, bf16, f32 and f64)";
  // The op's verifier made sure the grid exists.
  auto grid =
      SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!bufferOf.count(op.getInput()))
    return op.emitOpError("all-reduces a value that is not a kernel buffer (a "
                          "function argument or the result of a kernel)");
  Builder b(op.getContext());
  int64_t bytes =
      type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  NamedAttribute fields[] = {
      b.getNamedAttr("kind", b.getStringAttr("all_reduce")),
      b.getNamedAttr("reduction", b.getStringAttr(reduction)),
      b.getNamedAttr("input", b.getStringAttr(bufferOf.lookup(op.getInput()))),
      b.getNamedAttr("output",
                     b.getStringAttr(bufferOf.lookup(op.getResult()))),
      b.getNamedAttr("dtype", b.getStringAttr(dtype)),
      b.getNamedAttr("count", b.getI64IntegerAttr(type.getNumElements())),
      b.getNamedAttr("byte_size", b.getI64IntegerAttr(bytes)),
      b.getNamedAttr("grid", b.getDenseI64ArrayAttr(grid.getShape())),
      b.getNamedAttr("grid_axes",
                     b.getDenseI64ArrayAttr(
                         llvm::to_vector_of<int64_t>(op.getGridAxes())))};
  return b.getDictionaryAttr(fields);
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
    SmallVector<MatmulOp> matmuls(func.getBody().front().getOps<MatmulOp>());
    SmallVector<AttentionOp> attentions(
        func.getBody().front().getOps<AttentionOp>());
    SmallVector<DequantMatmulOp> dequants(
        func.getBody().front().getOps<DequantMatmulOp>());
    SmallVector<PagedAttentionOp> pagedOps(
        func.getBody().front().getOps<PagedAttentionOp>());

    // Each matmul's epilogue (checkGpuKernelFunction admitted it): the
    // kernel then writes the epilogue's result, not C.
    SmallVector<std::optional<GpuEpilogue>> epilogues;
    SmallVector<Operation *> computed, epilogueOps;
    for (MatmulOp mm : matmuls) {
      FailureOr<std::optional<GpuEpilogue>> e = findGpuEpilogue(mm);
      if (failed(e))
        return failure();
      epilogues.push_back(std::move(*e));
    }
    // A generic that reads several matmuls' results (SwiGLU's
    // silu(x Wg) * (x Wu)) is the epilogue of the last of them; the others
    // store their C, which that kernel then reads.
    keepLastOfShared(epilogues);
    for (auto [mm, e] : llvm::zip(matmuls, epilogues)) {
      if (e)
        epilogueOps.push_back(e->op);
      computed.push_back(e ? e->op.getOperation() : mm.getOperation());
    }
    // Each attention's epilogue: the generic that is the only user of O
    // (a residual add, a cast), applied to each element before the store.
    // A generic that is already a matmul's epilogue (it reads a matmul's
    // result too) stays that matmul's, and one that reads several
    // attentions' results is the last one's: the others store O, which
    // its kernel then reads.
    SmallVector<std::optional<GpuEpilogue>> attentionEpilogues;
    for (AttentionOp op : attentions) {
      std::optional<GpuEpilogue> e;
      Value o = op.getResult();
      if (o.hasOneUse() && isa<linalg::GenericOp>(*o.getUsers().begin())) {
        FailureOr<std::optional<GpuEpilogue>> found = findGpuEpilogue(op);
        if (failed(found))
          return failure();
        e = std::move(*found);
      }
      if (e && llvm::is_contained(epilogueOps, e->op.getOperation()))
        e.reset();
      attentionEpilogues.push_back(std::move(e));
    }
    keepLastOfShared(attentionEpilogues);
    // What each attention kernel writes: its epilogue's result or O.
    SmallVector<Operation *> attentionWrites;
    for (auto [op, e] : llvm::zip(attentions, attentionEpilogues)) {
      if (e)
        epilogueOps.push_back(e->op);
      attentionWrites.push_back(e ? e->op.getOperation() : op.getOperation());
    }

    // Row reductions with the generics around them (norms, softmax): one
    // row kernel a group (RowKernel.h).
    FailureOr<SmallVector<GpuRowGroup, 1>> rowGroups =
        formGpuRowGroups(func, epilogueOps);
    if (failed(rowGroups))
      return failure();
    auto inRowGroup = [&](Operation *op) {
      return llvm::any_of(*rowGroups, [&](const GpuRowGroup &g) {
        return g.contains(op);
      });
    };

    // Elementwise generics that are no matmul's epilogue and in no row
    // group: kernels of their own (a residual add, SwiGLU's product, a
    // cast).
    SmallVector<GpuEpilogue> elementwise;
    for (auto g : func.getBody().front().getOps<linalg::GenericOp>()) {
      if (llvm::is_contained(computed, g.getOperation()) ||
          llvm::is_contained(attentionWrites, g.getOperation()) ||
          inRowGroup(g))
        continue;
      FailureOr<GpuEpilogue> e = analyzeGpuElementwise(g);
      if (failed(e))
        return failure();
      elementwise.push_back(std::move(*e));
    }
    // A sharded function's all-reduces: NCCL calls of the host library
    // between the kernels that write and read their buffers.
    SmallVector<shard::AllReduceOp> reduces(
        func.getBody().front().getOps<shard::AllReduceOp>());
    SmallVector<Operation *> written(computed);
    llvm::append_range(written, attentionWrites);
    for (DequantMatmulOp op : dequants)
      written.push_back(op);
    for (PagedAttentionOp op : pagedOps)
      written.push_back(op);
    for (shard::AllReduceOp op : reduces)
      written.push_back(op);
    for (const GpuEpilogue &e : elementwise)
      written.push_back(e.op);
    for (const GpuRowGroup &g : *rowGroups)
      for (Value v : g.outputs)
        written.push_back(v.getDefiningOp());

    // The host buffer behind each value a kernel reads or writes.
    FailureOr<DenseMap<Value, std::string>> buffers = nameKernelBuffers(
        func, written,
        "accel.matmul, accel.dequant_matmul, accel.attention, "
        "accel.paged_attention, accel.softmax or linalg.generic");
    if (failed(buffers))
      return failure();
    DenseMap<Value, std::string> &bufferOf = *buffers;

    // Check everything before building anything; each kernel's reads and
    // writes order the kernels.
    SmallVector<KernelItem> items;
    SmallVector<GemmKernel> kernels;
    // `item` also reads the buffers of its kernel's epilogue `e`, of an
    // op named `producer`.
    auto readEpilogue = [&](KernelItem &item, GpuEpilogue &e,
                            StringRef producer) -> LogicalResult {
      for (unsigned n : e.bufferOperands) {
        if (!bufferOf.count(e.op->getOperand(n)))
          return e.op.emitOpError("reads operand #")
                 << n << " in the GPU epilogue of an " << producer
                 << ", which is not a kernel buffer (a function argument or "
                    "the result of another kernel)";
        item.reads.push_back(e.op->getOperand(n));
      }
      return success();
    };
    for (auto [i, mm, epilogue] : llvm::enumerate(matmuls, epilogues)) {
      FailureOr<GemmKernel> kernel = plan(mm, bufferOf, target);
      if (failed(kernel))
        return failure();
      kernels.push_back(*kernel);
      KernelItem item{KernelItem::Matmul, i, {mm.getLhs(), mm.getRhs()},
                      {computed[i]->getResult(0)}, computed[i]};
      if (kernel->accumulate)
        item.reads.push_back(mm.getInit());
      if (epilogue && failed(readEpilogue(item, *epilogue, "accel.matmul")))
        return failure();
      items.push_back(std::move(item));
    }
    // `item` reads `values` (null ones skipped), each a kernel buffer.
    auto readBuffers = [&](Operation *op, KernelItem &item,
                           ArrayRef<Value> values) -> LogicalResult {
      for (Value v : values) {
        if (!v)
          continue;
        if (!bufferOf.count(v))
          return op->emitOpError("reads a value that is not a kernel buffer "
                                 "(a function argument or the result of "
                                 "another kernel)");
        item.reads.push_back(v);
      }
      return success();
    };
    // Attention kernels are numbered after the matmuls.
    SmallVector<AttentionPlan, 1> plans;
    for (auto [j, op] : llvm::enumerate(attentions)) {
      FailureOr<AttentionPlan> k = planGpuAttention(op, target, options);
      if (failed(k))
        return failure();
      plans.push_back(*k);
      Operation *writer = attentionWrites[j];
      KernelItem item{
          KernelItem::Attention, j, {}, {writer->getResult(0)}, writer};
      if (k->skv > 0 && failed(readBuffers(op, item,
                                           {op.getQuery(), op.getKey(),
                                            op.getValue(), op.getMask()})))
        return failure();
      if (std::optional<GpuEpilogue> &e = attentionEpilogues[j];
          e && failed(readEpilogue(item, *e, "accel.attention")))
        return failure();
      items.push_back(std::move(item));
    }
    // Weight-only quantised matmuls (DequantKernel.h).
    SmallVector<GpuDequantPlan, 1> dequantPlans;
    for (auto [j, op] : llvm::enumerate(dequants)) {
      FailureOr<GpuDequantPlan> k = planGpuDequant(op, target);
      if (failed(k))
        return failure();
      dequantPlans.push_back(*k);
      KernelItem item{KernelItem::Dequant, j, {}, {op.getResult()}, op};
      if (failed(readBuffers(op, item,
                             {op.getLhs(), op.getWeights(), op.getScales(),
                              op.getZeroPoints()})))
        return failure();
      items.push_back(std::move(item));
    }
    // Decode attention over a paged KV cache (PagedAttentionKernel.h):
    // with several splits, a temporary of their states between its two
    // kernels, named after the function's other temporaries.
    SmallVector<GpuPagedPlan, 1> pagedPlans;
    SmallVector<std::string, 1> pagedPartials;
    unsigned nextTmp = 0;
    for (auto &[v, name] : bufferOf) {
      StringRef rest = name;
      unsigned n;
      if (rest.consume_front("tmp") && !rest.getAsInteger(10, n))
        nextTmp = std::max(nextTmp, n + 1);
    }
    for (auto [j, op] : llvm::enumerate(pagedOps)) {
      FailureOr<GpuPagedPlan> k = planGpuPagedAttention(op, target);
      if (failed(k))
        return failure();
      pagedPlans.push_back(*k);
      pagedPartials.push_back(k->splits > 1 ? ("tmp" + Twine(nextTmp++)).str()
                                            : std::string());
      KernelItem item{KernelItem::Paged, j, {}, {op.getResult()}, op};
      if (failed(
              readBuffers(op, item,
                          {op.getQuery(), op.getKeyCache(), op.getValueCache(),
                           op.getBlockTable(), op.getKvLengths()})))
        return failure();
      items.push_back(std::move(item));
    }
    for (auto [j, e] : llvm::enumerate(elementwise)) {
      KernelItem item{KernelItem::Elementwise, j, {}, {e.op->getResult(0)},
                      e.op};
      for (unsigned n : e.bufferOperands) {
        if (!bufferOf.count(e.op->getOperand(n)))
          return e.op.emitOpError("reads operand #")
                 << n
                 << " in a GPU elementwise kernel, which is not a kernel "
                    "buffer (a function argument or the result of another "
                    "kernel)";
        item.reads.push_back(e.op->getOperand(n));
      }
      items.push_back(std::move(item));
    }
    for (auto [k, g] : llvm::enumerate(*rowGroups)) {
      for (Value v : g.inputs)
        if (!bufferOf.count(v))
          for (linalg::GenericOp m : g.members)
            for (OpOperand &o : m->getOpOperands())
              if (o.get() == v)
                return m.emitOpError("reads operand #")
                       << o.getOperandNumber()
                       << " in a GPU row kernel, which is not a kernel "
                          "buffer (a function argument or the result of "
                          "another kernel)";
      items.push_back({KernelItem::Row, k, g.inputs, g.outputs,
                       g.members.front()});
    }
    SmallVector<DictionaryAttr> collectives;
    for (auto [k, op] : llvm::enumerate(reduces)) {
      FailureOr<DictionaryAttr> d = describeAllReduce(op, bufferOf);
      if (failed(d))
        return failure();
      collectives.push_back(*d);
      items.push_back(
          {KernelItem::Collective, k, {op.getInput()}, {op.getResult()}, op});
    }
    FailureOr<SmallVector<size_t>> order = orderKernels(func, items);
    if (failed(order))
      return failure();

    std::string moduleName = (func.getSymName() + "_kernels").str();
    auto parent = func->getParentOfType<ModuleOp>();
    if (parent.lookupSymbol(moduleName))
      return func.emitOpError("cannot place its kernels: the symbol @")
             << moduleName << " already exists";
    OpBuilder b(func);
    Location loc = func.getLoc();
    auto gpuModule = gpu::GPUModuleOp::create(b, loc, moduleName);
    b.setInsertionPointToStart(gpuModule.getBody());
    // Each collective with the number of kernels launched before it.
    SmallVector<Attribute> steps;
    for (size_t x : *order) {
      const KernelItem &item = items[x];
      size_t i = item.index;
      if (item.kind == KernelItem::Collective) {
        auto launched = llvm::range_size(gpuModule.getOps<gpu::GPUFuncOp>());
        SmallVector<NamedAttribute> fields(collectives[i].getValue());
        fields.push_back(
            b.getNamedAttr("position", b.getI64IntegerAttr(launched)));
        steps.push_back(b.getDictionaryAttr(fields));
        continue;
      }
      if (item.kind == KernelItem::Row) {
        emitGpuRowKernel(b, (*rowGroups)[i],
                         (func.getSymName() + "_row" + Twine(i)).str(),
                         bufferOf, target);
        continue;
      }
      if (item.kind == KernelItem::Attention) {
        const AttentionPlan &k = plans[i];
        if (k.batch == 0 || k.hq == 0 || k.sq == 0)
          continue; // an empty O: nothing to launch
        emitGpuAttentionKernel(
            b, attentions[i],
            (func.getSymName() + "_" + Twine(matmuls.size() + i)).str(), k,
            attentionEpilogues[i] ? &*attentionEpilogues[i] : nullptr, bufferOf,
            target);
        continue;
      }
      if (item.kind == KernelItem::Dequant) {
        emitGpuDequantKernel(
            b, dequants[i],
            (func.getSymName() + "_dequant" + Twine(i)).str(),
            dequantPlans[i], bufferOf, target);
        continue;
      }
      if (item.kind == KernelItem::Paged) {
        emitGpuPagedAttentionKernels(
            b, pagedOps[i], (func.getSymName() + "_paged" + Twine(i)).str(),
            pagedPlans[i], pagedPartials[i], bufferOf, target);
        continue;
      }
      if (item.kind == KernelItem::Elementwise) {
        emitElementwiseKernel(
            b, elementwise[i],
            (func.getSymName() + "_elementwise" + Twine(i)).str(), bufferOf,
            target);
        continue;
      }
      MatmulOp mm = matmuls[i];
      const GemmKernel &k = kernels[i];
      if (k.shape.m == 0 || k.shape.n == 0 || k.shape.batch == 0)
        continue; // an empty C: nothing to launch
      emitKernel(b, mm, (func.getSymName() + "_" + Twine(i)).str(), k,
                 epilogues[i] ? &*epilogues[i] : nullptr, bufferOf, target);
    }
    if (!steps.empty())
      gpuModule->setAttr("accel.collectives", b.getArrayAttr(steps));
    func.erase();
    return success();
  }

  /// The kernel of a standalone elementwise generic: one thread per element
  /// of its result, in blocks of 256 threads along a 1-D grid; each thread
  /// turns its linear index into the loop indices, reads the operands
  /// through their maps, runs the body and stores. `accel.launch` says
  /// `kind = "elementwise"`.
  void emitElementwiseKernel(OpBuilder &b, const GpuEpilogue &e,
                             StringRef name,
                             const DenseMap<Value, std::string> &bufferOf,
                             const GpuTargetInfo &target) {
    MLIRContext *ctx = b.getContext();
    linalg::GenericOp g = e.op;
    Location loc = g.getLoc();
    auto outType = cast<RankedTensorType>(g.getResult(0).getType());
    const int64_t numel = outType.getNumElements();
    if (numel == 0)
      return; // nothing to launch
    SmallVector<Type> params;
    SmallVector<Attribute> args, access;
    for (unsigned n : e.bufferOperands) {
      Value v = g->getOperand(n);
      auto t = cast<RankedTensorType>(v.getType());
      params.push_back(MemRefType::get(t.getShape(), t.getElementType()));
      args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
      access.push_back(StringAttr::get(ctx, "in"));
    }
    params.push_back(MemRefType::get(outType.getShape(), e.outType));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(g->getResult(0))));
    access.push_back(StringAttr::get(ctx, "out"));

    const int64_t threads = kGpuElementwiseThreads;
    const int64_t blocks = ceilDiv(numel, threads);
    auto func =
        createGpuKernel(b, loc, name, params, {blocks, 1, 1}, threads, 0,
                        target.getChip(), args, access, "elementwise");

    Block *entry = &func.getBody().front();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    GpuIndexBuilder ib(body, loc, entry);
    Value tid = gpu::ThreadIdOp::create(body, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(body, loc, gpu::Dimension::x);
    Value linear = ib.add(ib.mul(bid, threads), tid);
    {
      OpBuilder::InsertionGuard guard(body);
      if (numel % threads != 0) {
        auto ifOp = scf::IfOp::create(body, loc, ib.ult(linear, numel),
                                      /*withElseRegion=*/false);
        body.setInsertionPointToStart(ifOp.thenBlock());
      }
      // Row-major: the last loop index varies fastest.
      SmallVector<Value> ivs(outType.getRank());
      int64_t stride = 1;
      for (int64_t d = outType.getRank() - 1; d >= 0; --d) {
        ivs[d] = ib.rem(ib.div(linear, stride), outType.getDimSize(d));
        stride *= outType.getDimSize(d);
      }
      SmallVector<Value> buffers(
          entry->getArguments().take_front(e.bufferOperands.size()));
      Value v = emitGpuEpilogueElement(body, loc, e, Value(), buffers, ivs);
      memref::StoreOp::create(body, loc, v, entry->getArguments().back(),
                              ivs);
    }
    gpu::ReturnOp::create(body, loc);
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
                  const GemmKernel &k, const GpuEpilogue *epilogue,
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
    // The epilogue's buffers (bias, scales, residual: read at their own
    // shapes), then what the kernel writes: the epilogue's result or C.
    Value written = mm.getResult();
    Type writtenType = k.outType;
    if (epilogue) {
      for (unsigned n : epilogue->bufferOperands) {
        Value v = epilogue->op->getOperand(n);
        auto t = cast<RankedTensorType>(v.getType());
        params.push_back(MemRefType::get(t.getShape(), t.getElementType()));
        args.push_back(StringAttr::get(ctx, bufferOf.lookup(v)));
        access.push_back(StringAttr::get(ctx, "in"));
      }
      written = epilogue->op->getResult(0);
      writtenType = epilogue->outType;
    }
    params.push_back(memref(s.m, s.n, writtenType));
    args.push_back(StringAttr::get(ctx, bufferOf.lookup(written)));
    access.push_back(StringAttr::get(ctx, "out"));

    const GpuGemmConfig &c = k.config;
    int64_t threads = c.warpsM * c.warpsN * target.getWarpSize();
    std::array<int64_t, 3> grid = {ceilDiv(s.n, c.tileN), ceilDiv(s.m, c.tileM),
                                   s.batch};
    SmallVector<NamedAttribute> launch = {
        b.getNamedAttr("tile",
                       b.getDenseI64ArrayAttr({c.tileM, c.tileN, c.tileK})),
        b.getNamedAttr("warps", b.getDenseI64ArrayAttr({c.warpsM, c.warpsN})),
        b.getNamedAttr("stages", b.getI64IntegerAttr(c.stages)),
        b.getNamedAttr("mma",
                       b.getStringAttr(getGpuMatmulKernelName(k, target)))};
    // How many of the parameters before the written buffer the epilogue
    // reads (after A, B and C's initial value).
    if (epilogue)
      launch.push_back(b.getNamedAttr(
          "epilogue", b.getI64IntegerAttr(epilogue->bufferOperands.size())));
    auto func =
        createGpuKernel(b, loc, name, params, grid, threads,
                        s.k == 0 ? 0 : getGpuGemmSharedBytes(s, c),
                        target.getChip(), args, access, /*kind=*/"", launch);

    Block *entry = &func.getBody().front();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    GemmKernelBuilder kb(body, loc, k, target, entry);
    unsigned next = 0;
    Value a = s.k > 0 ? entry->getArgument(next++) : Value();
    Value bArg = s.k > 0 ? entry->getArgument(next++) : Value();
    Value cIn = k.accumulate ? entry->getArgument(next++) : Value();
    SmallVector<Value> epilogueBuffers;
    if (epilogue)
      for (size_t i = 0; i < epilogue->bufferOperands.size(); ++i)
        epilogueBuffers.push_back(entry->getArgument(next++));
    kb.emit(a, bArg, cIn, entry->getArgument(next), epilogue,
            epilogueBuffers);
  }
};

} // namespace
