//===- LowerShardToMpi.cpp - a partitioned module's collectives to MPI ----===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
// accel-lower-shard-to-mpi: upstream's convert-shard-to-mpi, then the two
// things accel's CPU pipeline needs on top of it (see Passes.td): world
// communicators instead of a fresh split per call, and no grid symbols left
// for the LLVM lowering. Also the mpi ops' memory effects, which upstream
// leaves undeclared and buffer deallocation refuses to guess.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/Conversion/ShardToMPI/ShardToMPI.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELLOWERSHARDTOMPIPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

namespace {

/// Declares what an mpi op does to its buffers: `reads` and `writes` are
/// the memref operands' indices.
template <typename OpTy, int Read, int Write>
struct MpiBufferEffects
    : public MemoryEffectOpInterface::ExternalModel<
          MpiBufferEffects<OpTy, Read, Write>, OpTy> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                      &effects) const {
    if (Read >= 0)
      effects.emplace_back(MemoryEffects::Read::get(),
                           &op->getOpOperand(Read));
    if (Write >= 0)
      effects.emplace_back(MemoryEffects::Write::get(),
                           &op->getOpOperand(Write));
  }
};

struct AccelLowerShardToMpiPass
    : public accel::impl::AccelLowerShardToMpiPassBase<
          AccelLowerShardToMpiPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool partitioned = llvm::any_of(module.getOps<func::FuncOp>(),
                                    [](func::FuncOp f) {
                                      return f->hasAttr("accel.grid");
                                    });
    if (!partitioned)
      return;
    // MLIR 22's convert-shard-to-mpi lowers all-reduces (and halo
    // updates); resharding's all-gathers and all-to-alls would stop it with
    // "failed to legalize": say what to change instead.
    WalkResult unsupported = module.walk([&](Operation *op) {
      if (!isa<shard::AllGatherOp, shard::AllToAllOp>(op))
        return WalkResult::advance();
      op->emitError()
          << "cannot run on MPI: upstream's convert-shard-to-mpi (MLIR 22) "
             "lowers all_reduce only, and this "
          << op->getName().stripDialect()
          << " reshards a value between the annotations; keep it as it is "
             "computed (accel-run gathers split results)";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    // The MPI ABI the LLVM lowering targets: MPICH's (Debian's libmpich,
    // what accel-run loads), unless the module names one.
    if (!module->hasAttr("dlti.map")) {
      MLIRContext *ctx = module.getContext();
      module->setAttr(
          "dlti.map",
          MapAttr::get(ctx, {DataLayoutEntryAttr::get(
                                    StringAttr::get(ctx, "MPI:Implementation"),
                                    StringAttr::get(ctx, "MPICH"))}));
    }
    OpPassManager convert(ModuleOp::getOperationName());
    convert.addPass(createConvertShardToMPIPass());
    if (failed(runPipeline(convert, module)))
      return signalPassFailure();

    // A split of the world with one color for every process is the world
    // (the key is the process's index in the grid, which under the
    // grid-equals-world contract is its world rank).
    module.walk([&](mpi::CommSplitOp split) {
      if (!split.getComm().getDefiningOp<mpi::CommWorldOp>() ||
          !matchPattern(split.getColor(), m_Constant()) ||
          split.getRetval())
        return;
      OpBuilder b(split);
      Value world = mpi::CommWorldOp::create(
          b, split.getLoc(), split.getNewcomm().getType());
      split.getNewcomm().replaceAllUsesWith(world);
      split.erase();
    });

    // What computed the splits' keys (the rank, its grid index) is dead now.
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : llvm::reverse(ops))
      if (op->getDialect() && isOpTriviallyDead(op) &&
          isa<mpi::MPIDialect, arith::ArithDialect>(op->getDialect()))
        op->erase();

    // Nothing below the partition refers to the grid by name any more.
    for (auto grid :
         llvm::make_early_inc_range(module.getOps<shard::GridOp>())) {
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
    }
  }
};
} // namespace

void accel::registerMpiMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<MpiBufferEffects<mpi::AllReduceOp, 0, 1>>(
        *ctx);
    mpi::SendOp::attachInterface<MpiBufferEffects<mpi::SendOp, 0, -1>>(*ctx);
    mpi::ISendOp::attachInterface<MpiBufferEffects<mpi::ISendOp, 0, -1>>(*ctx);
    mpi::RecvOp::attachInterface<MpiBufferEffects<mpi::RecvOp, -1, 0>>(*ctx);
    mpi::IRecvOp::attachInterface<MpiBufferEffects<mpi::IRecvOp, -1, 0>>(*ctx);
  });
}
