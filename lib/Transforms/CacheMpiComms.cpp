//===- CacheMpiComms.cpp - one communicator split per call site -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// accel-cache-mpi-comms (Passes.td): each MPI_Comm_split call of the
// lowered code splits once per process; later calls reuse the communicator
// from a module global.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELCACHEMPICOMMSPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

// MPICH's MPI_COMM_NULL (mpi.h: ((MPI_Comm)0x04000000)).
static constexpr int32_t kMpichCommNull = 0x04000000;

namespace {
struct AccelCacheMpiCommsPass
    : public accel::impl::AccelCacheMpiCommsPassBase<AccelCacheMpiCommsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::CallOp> splits;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      // MPI_Comm_split(comm, color, key, &newcomm) with MPICH's i32 handle.
      if (callee && *callee == "MPI_Comm_split" &&
          call.getArgOperands().size() == 4 &&
          call.getArgOperands()[0].getType().isInteger(32) &&
          isa<LLVM::LLVMPointerType>(call.getArgOperands()[3].getType()))
        splits.push_back(call);
    });
    MLIRContext *ctx = module.getContext();
    Type i32 = IntegerType::get(ctx, 32);
    for (auto [n, call] : llvm::enumerate(splits)) {
      Location loc = call.getLoc();
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      std::string name = llvm::formatv("__accel_mpi_comm_{0}", n).str();
      while (module.lookupSymbol(name))
        name += "_";
      auto global = LLVM::GlobalOp::create(
          b, loc, i32, /*isConstant=*/false, LLVM::Linkage::Internal, name,
          b.getI32IntegerAttr(kMpichCommNull));

      // before: cached = load @global; cond_br (cached == NULL) ^split ^reuse
      // ^split:  r = MPI_Comm_split(...); store *out -> @global; br ^join(r)
      // ^reuse:  store cached -> *out; br ^join(0)
      Block *before = call->getBlock();
      Block *join = before->splitBlock(call);
      Block *split = join->splitBlock(std::next(Block::iterator(call)));
      // `split` now holds what followed the call; swap roles: the call's
      // block becomes ^split, the rest ^join.
      std::swap(join, split);
      Type resultType = call.getNumResults() ? call.getResult().getType()
                                             : Type();
      if (resultType)
        join->insertArgument(unsigned(0), resultType, loc);
      Value out = call.getArgOperands()[3];

      b.setInsertionPointToEnd(before);
      Value address = LLVM::AddressOfOp::create(b, loc, global);
      Value cached = LLVM::LoadOp::create(b, loc, i32, address);
      Value null = LLVM::ConstantOp::create(b, loc, i32, kMpichCommNull);
      Value fresh = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                         cached, null);
      Block *reuse = new Block();
      reuse->insertBefore(join);
      LLVM::CondBrOp::create(b, loc, fresh, split, reuse);

      b.setInsertionPointToEnd(split);
      Value made = LLVM::LoadOp::create(b, loc, i32, out);
      LLVM::StoreOp::create(b, loc, made, address);
      SmallVector<Value> joinArgs;
      if (resultType)
        joinArgs.push_back(call.getResult());
      LLVM::BrOp::create(b, loc, joinArgs, join);

      b.setInsertionPointToEnd(reuse);
      LLVM::StoreOp::create(b, loc, cached, out);
      SmallVector<Value> reuseArgs;
      if (resultType)
        reuseArgs.push_back(LLVM::ConstantOp::create(
            b, loc, resultType, b.getIntegerAttr(resultType, 0)));
      LLVM::BrOp::create(b, loc, reuseArgs, join);

      if (resultType)
        call.getResult().replaceUsesWithIf(
            join->getArgument(0), [&](OpOperand &use) {
              Operation *user = use.getOwner();
              return user->getBlock() != split;
            });
    }
  }
};
} // namespace
