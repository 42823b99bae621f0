//===- KernelUtils.h - index arithmetic for GPU kernel builders -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The index arithmetic the kernels of convert-accel-to-gpu are written in:
// constants hoisted to the kernel's entry block (so every nested region sees
// them) and folded as the kernel is built, so the emitted IR reads like the
// algorithm. All of it is `index`, which the NVVM lowering makes 64-bit, so
// no global offset can wrap.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELUTILS_H
#define ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELUTILS_H

#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <map>
#include <utility>

namespace mlir::accel {

/// Marks `loop` not to be unrolled by LLVM (llvm.loop.unroll.disable): the
/// attribute reaches llvm.br's loop_annotation through scf-to-cf and
/// cf-to-llvm, which forward it. A short loop with a constant trip count is
/// otherwise unrolled whole, and the AMD back end then hoists every
/// iteration's loads (the fma GEMM on gfx942, K = 48: 482 VGPRs, 67 with
/// the loop kept; the fma attention on gfx1100: spills).
inline void keepRolled(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  loop->setAttr("loop_annotation",
                LLVM::LoopAnnotationAttr::get(
                    ctx, {}, {}, {},
                    LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true),
                                              {}, {}, {}, {}, {}, {}),
                    {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}));
}

/// Folding index arithmetic on an OpBuilder; null Values stand for "true"
/// in the boolean helpers.
class GpuIndexBuilder {
public:
  GpuIndexBuilder(OpBuilder &b, Location loc, Block *entry)
      : b(b), loc(loc), entry(entry) {}

  Value cst(int64_t v) {
    auto it = constants.find(v);
    if (it != constants.end())
      return it->second;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    return constants[v] = arith::ConstantIndexOp::create(b, loc, v);
  }
  Value add(Value x, Value y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(*cx + *cy);
    if (cx == 0)
      return y;
    if (cy == 0)
      return x;
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value add(Value x, int64_t y) { return add(x, cst(y)); }
  Value mul(Value x, int64_t y) {
    if (std::optional<int64_t> cx = getConstantIntValue(x))
      return cst(*cx * y);
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, cst(y)).getResult();
  }
  /// Unsigned division and remainder: for values known to be >= 0.
  Value div(Value x, int64_t y) {
    if (std::optional<int64_t> cx = getConstantIntValue(x); cx && *cx >= 0)
      return cst(*cx / y);
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, cst(y)).getResult();
  }
  Value rem(Value x, int64_t y) {
    if (std::optional<int64_t> cx = getConstantIntValue(x); cx && *cx >= 0)
      return cst(*cx % y);
    return arith::RemUIOp::create(b, loc, x, cst(y));
  }
  /// Signed min and max (band arithmetic may go below 0).
  Value minS(Value x, Value y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(std::min(*cx, *cy));
    return arith::MinSIOp::create(b, loc, x, y);
  }
  Value maxS(Value x, Value y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return cst(std::max(*cx, *cy));
    return arith::MaxSIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value ult(Value x, int64_t y) {
    return cmp(arith::CmpIPredicate::ult, x, cst(y));
  }
  /// x && y where a null value is true.
  Value both(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return arith::AndIOp::create(b, loc, x, y);
  }

  /// Where copy `first + tid` of a round lands in a `rows` x `cols` tile
  /// copied in pieces of `vec` elements by `threads` threads: (row, column),
  /// row-major, computed once per (tile, round). In a last round with fewer
  /// copies than threads the extra threads repeat the last copy (same bytes
  /// to the same place, harmless). Every kernel's global-to-shared copies
  /// (cp.async or register-staged) are spread over the threads this way.
  std::pair<Value, Value> copyCoord(Value tid, int64_t threads, int64_t rows,
                                    int64_t cols, int64_t vec, int64_t first) {
    const int64_t perRow = cols / vec, total = rows * perRow;
    auto [it, inserted] =
        copyCoords.try_emplace({rows, cols, vec, first, threads});
    if (inserted) {
      Value id = add(tid, first);
      if (first + threads > total)
        id = arith::MinUIOp::create(b, loc, id, cst(total - 1));
      it->second = {div(id, perRow), mul(rem(id, perRow), vec)};
    }
    return it->second;
  }

  /// Forgets the cached copy coordinates built inside `op` (a loop whose
  /// body first asked for them): code after it, a second loop over the
  /// same body included, cannot use them.
  void forgetCopyCoordsIn(Operation *op) {
    auto inside = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && op->isProperAncestor(def);
    };
    for (auto it = copyCoords.begin(); it != copyCoords.end();) {
      if (inside(it->second.first) || inside(it->second.second))
        it = copyCoords.erase(it);
      else
        ++it;
    }
  }

  /// A constant of `value` (any type), made once in the entry block.
  Value constant(TypedAttr value) {
    Value &c = typedConstants[value];
    if (!c) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      c = arith::ConstantOp::create(b, loc, value);
    }
    return c;
  }

  /// The zero of `type`.
  Value zeroOf(Type type) {
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(type)).getResult();
  }

  /// `read()` where `guard` holds, else `otherwise()`, both of `type` and
  /// built in their branches of an scf.if; `read()` alone for a null guard.
  /// The insertion point ends after the scf.if.
  Value readIf(Value guard, Type type, llvm::function_ref<Value()> read,
               llvm::function_ref<Value()> otherwise) {
    if (!guard)
      return read();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, guard, true);
    OpBuilder::InsertionGuard ig(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, read());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise());
    return ifOp.getResult(0);
  }

  /// A wgmma shared-memory matrix descriptor of the tile at shared address
  /// `addr` in the 128-byte swizzle. Bits 0-13: address / 16 (the shared
  /// window is 2^18 bytes); 16-29: the leading byte offset / 16; 32-45: the
  /// stride byte offset / 16; 62-63: the layout, 1 = 128-byte swizzle. The
  /// base offset (bits 49-51) is 0: every swizzle atom starts 1024-byte
  /// aligned.
  Value wgmmaDescriptor(Value addr, int64_t leading, int64_t stride) {
    Type i64 = b.getI64Type();
    auto c64 = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
    };
    Value a = arith::IndexCastUIOp::create(b, loc, i64, addr);
    a = arith::ShRUIOp::create(
        b, loc, arith::AndIOp::create(b, loc, a, c64(0x3FFFF)), c64(4));
    int64_t fixed =
        ((leading >> 4) << 16) | ((stride >> 4) << 32) | (int64_t(1) << 62);
    return arith::OrIOp::create(b, loc, a, c64(fixed));
  }
  /// The kernel's dynamic shared memory as bytes, its address, and the
  /// bytes from there to the next 1024-byte boundary: wgmma's 128-byte
  /// swizzle is a function of the address bits, so swizzled tiles start on
  /// that atom, aligned at run time (the launch's bytes carry 1 KiB of
  /// slack).
  std::array<Value, 3> swizzleAlignedSharedMemory() {
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    Value dyn = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    Value start = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dyn);
    Value pad = rem(arith::SubIOp::create(b, loc, cst(kGpuWgmmaSwizzleAtom),
                                          rem(start, kGpuWgmmaSwizzleAtom)),
                    kGpuWgmmaSwizzleAtom);
    return {dyn, start, pad};
  }
  /// The element offset of 16-byte chunk `c` of row `r` in a tile of `rows`
  /// rows in the 128-byte swizzle: [chunks / 8][rows][128 bytes], chunk c of
  /// a row at c ^ (r % 8) within its 128 bytes; `vec` elements a chunk.
  Value swizzledOffset(Value r, Value c, int64_t rows, int64_t vec) {
    Value swizzled = arith::XOrIOp::create(b, loc, rem(c, 8), rem(r, 8));
    return add(add(mul(div(c, 8), rows * 8 * vec), mul(r, 8 * vec)),
               mul(swizzled, vec));
  }

protected:
  OpBuilder &b;
  Location loc;
  Block *entry;
  llvm::DenseMap<int64_t, Value> constants;
  llvm::DenseMap<Attribute, Value> typedConstants;
  /// copyCoord's results by (rows, cols, vec, first, threads).
  std::map<std::array<int64_t, 5>, std::pair<Value, Value>> copyCoords;
};

/// A gpu.func kernel `name` taking `params`, at `b`'s insertion point, with
/// its known block (`threads` x 1 x 1) and grid sizes and the
/// `accel.launch` attribute every launcher and the host library read
/// (docs/gpu-runtime.md): grid, block, dynamic shared memory, chip, each
/// parameter's buffer and access, the kernel's kind (none for a matmul)
/// and `extra`, the kernel's own fields.
inline gpu::GPUFuncOp
createGpuKernel(OpBuilder &b, Location loc, StringRef name,
                ArrayRef<Type> params, std::array<int64_t, 3> grid,
                int64_t threads, int64_t sharedBytes, StringRef chip,
                ArrayRef<Attribute> args, ArrayRef<Attribute> access,
                StringRef kind, ArrayRef<NamedAttribute> extra = {}) {
  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(params, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  func.setKnownGridSizeAttr(b.getDenseI32ArrayAttr(
      {int32_t(grid[0]), int32_t(grid[1]), int32_t(grid[2])}));
  SmallVector<NamedAttribute> launch = {
      b.getNamedAttr("grid", b.getDenseI64ArrayAttr(grid)),
      b.getNamedAttr("block", b.getDenseI64ArrayAttr({threads, 1, 1})),
      b.getNamedAttr("dynamic_shared_memory", b.getI64IntegerAttr(sharedBytes)),
      b.getNamedAttr("chip", b.getStringAttr(chip)),
      b.getNamedAttr("args", b.getArrayAttr(args)),
      b.getNamedAttr("access", b.getArrayAttr(access))};
  if (!kind.empty())
    launch.push_back(b.getNamedAttr("kind", b.getStringAttr(kind)));
  llvm::append_range(launch, extra);
  func->setAttr("accel.launch", b.getDictionaryAttr(launch));
  return func;
}

/// `v` seen through tensor.expand_shape / collapse_shape: a reshape of a
/// contiguous buffer changes none of its bytes.
inline Value sourceOfReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto e = dyn_cast<tensor::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<tensor::CollapseShapeOp>(def))
      v = c.getSrc();
    else
      break;
  }
  return v;
}

/// The host buffer behind each value the kernels of `func` read or write:
/// argument n is "argn", result n "resultn", other results of `computed`
/// (the ops that get kernels, all `opName`) "tmpn"; a reshape
/// (tensor.expand_shape / collapse_shape, as frontends put around batched
/// ops) names its source's buffer, which the kernel then views in the
/// reshaped type. A result that no such op computes, or one returned
/// twice, is a located error on the return.
inline FailureOr<llvm::DenseMap<Value, std::string>>
nameKernelBuffers(func::FuncOp func, ArrayRef<Operation *> computed,
                  StringRef opName) {
  llvm::DenseMap<Value, std::string> bufferOf;
  for (BlockArgument a : func.getArguments())
    bufferOf[a] = ("arg" + Twine(a.getArgNumber())).str();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, returned] : llvm::enumerate(ret.getOperands())) {
    Value v = sourceOfReshapes(returned);
    Operation *def = v.getDefiningOp();
    if (!def || !llvm::is_contained(computed, def))
      return ret.emitOpError("result #")
             << i << " is not computed by an " << opName
             << "; the GPU kernels only return what they compute";
    if (bufferOf.count(v))
      return ret.emitOpError("returns the value of result #")
             << i << " twice; each result is its own buffer";
    bufferOf[v] = ("result" + Twine(i)).str();
  }
  unsigned tmp = 0;
  for (Operation *op : computed)
    if (!bufferOf.count(op->getResult(0)))
      bufferOf[op->getResult(0)] = ("tmp" + Twine(tmp++)).str();
  func.walk([&](Operation *op) {
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      if (auto it = bufferOf.find(sourceOfReshapes(op->getResult(0)));
          it != bufferOf.end())
        bufferOf[op->getResult(0)] = it->second;
  });
  return bufferOf;
}

} // namespace mlir::accel

#endif // ACCEL_LIB_CONVERSION_ACCELTOGPU_KERNELUTILS_H
