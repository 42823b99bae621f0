//===- Translate.cpp - systolic dialect <-> plain Program -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// toProgram reads a verified program, so every integer it narrows to the
// ISA's 32-bit fields is in range (the verifier bounds it by an SRAM, the
// array or the buffer table) and every optional operand is present exactly
// when the instruction uses it.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/Translate.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <cstring>

using namespace mlir;
using namespace mlir::systolic;
namespace isa = ::sysarray;

Type mlir::systolic::typeFromElemType(MLIRContext *context,
                                      isa::ElemType type) {
  Builder b(context);
  switch (type) {
  case isa::ElemType::I8:
    return b.getIntegerType(8);
  case isa::ElemType::I32:
    return b.getIntegerType(32);
  case isa::ElemType::BF16:
    return b.getBF16Type();
  case isa::ElemType::F32:
    return b.getF32Type();
  }
  llvm_unreachable("unknown ElemType");
}

FailureOr<isa::ElemType> mlir::systolic::elemTypeFromType(Type type) {
  if (type.isSignlessInteger(8))
    return isa::ElemType::I8;
  if (type.isSignlessInteger(32))
    return isa::ElemType::I32;
  if (type.isBF16())
    return isa::ElemType::BF16;
  if (type.isF32())
    return isa::ElemType::F32;
  return failure();
}

static isa::Space toSpace(Space s) {
  return s == Space::Spad ? isa::Space::Spad : isa::Space::Acc;
}
static Space fromSpace(isa::Space s) {
  return s == isa::Space::Spad ? Space::Spad : Space::Acc;
}

FailureOr<isa::Program> mlir::systolic::toProgram(ProgramOp op) {
  if (failed(mlir::verify(op)))
    return failure();
  isa::Program p;
  p.name = op.getSymName().str();
  ConfigAttr c = op.getConfig();
  p.config.rows = c.getRows();
  p.config.cols = c.getCols();
  p.config.inputType = *elemTypeFromType(c.getInput());
  p.config.accType = *elemTypeFromType(c.getAcc());
  p.config.spadRows = c.getSpadRows();
  p.config.spadBanks = c.getSpadBanks();
  p.config.accRows = c.getAccRows();
  p.config.accBanks = c.getAccBanks();
  p.config.dramBytesPerCycle = c.getDramBytesPerCycle().convertToDouble();
  p.config.dramLatency = c.getDramLatency();
  p.config.vectorLanes = c.getVectorLanes();
  for (Attribute a : op.getBuffers()) {
    auto buf = cast<BufferAttr>(a);
    isa::Buffer &out = p.buffers.emplace_back();
    out.name = buf.getName().str();
    out.role = isa::BufferRole(uint8_t(buf.getRole()));
    out.position = buf.getPosition();
    out.type = *elemTypeFromType(buf.getType().getElementType());
    out.shape.assign(buf.getType().getShape().begin(),
                     buf.getType().getShape().end());
  }

  for (Operation &inst : op.getBodyBlock()) {
    isa::Instruction &out = p.instructions.emplace_back();
    if (auto config = dyn_cast<ConfigOp>(inst)) {
      out.op = isa::Opcode::Config;
      out.dataflow = config.getDataflow() == Dataflow::WS ? isa::Dataflow::WS
                                                          : isa::Dataflow::OS;
    } else if (auto mvin = dyn_cast<MvinOp>(inst)) {
      out.op = isa::Opcode::Mvin;
      out.buffer = mvin.getBuffer();
      out.offset = mvin.getOffset();
      out.stride = mvin.getStride();
      out.space = toSpace(mvin.getSpace());
      out.row = mvin.getRow();
      out.rows = mvin.getRows();
      out.cols = mvin.getCols();
      out.transpose = mvin.getTranspose();
    } else if (auto mvout = dyn_cast<MvoutOp>(inst)) {
      out.op = isa::Opcode::Mvout;
      out.buffer = mvout.getBuffer();
      out.offset = mvout.getOffset();
      out.stride = mvout.getStride();
      out.space = toSpace(mvout.getSpace());
      out.row = mvout.getRow();
      out.rows = mvout.getRows();
      out.cols = mvout.getCols();
      out.transpose = mvout.getTranspose();
    } else if (auto preload = dyn_cast<PreloadOp>(inst)) {
      out.op = isa::Opcode::Preload;
      out.bRow = preload.getBRow() ? uint32_t(*preload.getBRow()) : isa::kNone;
      out.cRow = preload.getCRow();
      out.m = preload.getM();
      out.k = preload.getK();
      out.n = preload.getN();
      out.accumulate = preload.getAccumulate();
    } else if (auto compute = dyn_cast<ComputeOp>(inst)) {
      out.op = isa::Opcode::Compute;
      out.aRow = compute.getARow();
      out.bRow = compute.getBRow() ? uint32_t(*compute.getBRow()) : isa::kNone;
      out.m = compute.getM();
      out.k = compute.getK();
      out.n = compute.getN();
      out.preloaded = compute.getPreloaded();
    } else if (auto vector = dyn_cast<VectorOp>(inst)) {
      out.op = isa::Opcode::Vector;
      out.vop = isa::VecOp(uint8_t(vector.getOp()));
      out.dst = vector.getDst();
      out.srcA = vector.getSrcA();
      out.srcB = vector.getSrcB() ? uint32_t(*vector.getSrcB()) : 0;
      out.rows = vector.getRows();
      out.cols = vector.getCols();
      out.bcast = isa::Bcast(uint8_t(vector.getBcast().value_or(Bcast::None)));
      if (auto fimm = vector.getFimm())
        out.fimm = fimm->convertToFloat();
      out.iimm = vector.getIimm().value_or(0);
      out.vflags = (vector.getAccumulate() ? isa::kVecAccumulate : 0) |
                   (vector.getInfIsZero() ? isa::kVecInfIsZero : 0) |
                   (vector.getToSpad() ? isa::kVecToSpad : 0);
    } else {
      assert(isa<FenceOp>(inst) && "the verifier admits instructions only");
      out.op = isa::Opcode::Fence;
    }
  }
  return p;
}

ProgramOp mlir::systolic::fromProgram(OpBuilder &builder, Location loc,
                                      const isa::Program &program) {
  MLIRContext *ctx = builder.getContext();
  const isa::MachineConfig &c = program.config;
  auto config = ConfigAttr::get(
      ctx, c.rows, c.cols, typeFromElemType(ctx, c.inputType),
      typeFromElemType(ctx, c.accType), c.spadRows, c.spadBanks, c.accRows,
      c.accBanks, llvm::APFloat(c.dramBytesPerCycle), c.dramLatency,
      c.vectorLanes);
  SmallVector<Attribute> buffers;
  for (const isa::Buffer &buf : program.buffers)
    buffers.push_back(BufferAttr::get(
        ctx, buf.name, BufferRole(uint32_t(buf.role)), buf.position,
        RankedTensorType::get(buf.shape, typeFromElemType(ctx, buf.type))));
  auto op = ProgramOp::create(builder, loc, program.name, config,
                              builder.getArrayAttr(buffers));

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&op.getBodyBlock());
  auto i64 = [&](uint64_t v) { return builder.getI64IntegerAttr(int64_t(v)); };
  auto optI64 = [&](bool present, uint64_t v) {
    return present ? i64(v) : IntegerAttr();
  };
  auto unit = [&](bool set) { return set ? builder.getUnitAttr() : UnitAttr(); };
  for (auto [index, inst] : llvm::enumerate(program.instructions)) {
    Location at = NameLoc::get(
        builder.getStringAttr("instruction " + std::to_string(index)), loc);
    switch (inst.op) {
    case isa::Opcode::Config:
      ConfigOp::create(builder, at,
                       inst.dataflow == isa::Dataflow::WS ? Dataflow::WS
                                                          : Dataflow::OS);
      break;
    case isa::Opcode::Mvin:
      MvinOp::create(builder, at, inst.buffer, inst.offset, inst.stride,
                     fromSpace(inst.space), inst.row, inst.rows, inst.cols,
                     inst.transpose);
      break;
    case isa::Opcode::Mvout:
      MvoutOp::create(builder, at, fromSpace(inst.space), inst.row, inst.rows,
                      inst.cols, inst.buffer, inst.offset, inst.stride,
                      inst.transpose);
      break;
    case isa::Opcode::Preload:
      PreloadOp::create(builder, at, optI64(inst.bRow != isa::kNone, inst.bRow),
                        i64(inst.cRow), i64(inst.m), i64(inst.k), i64(inst.n),
                        unit(inst.accumulate));
      break;
    case isa::Opcode::Compute:
      ComputeOp::create(builder, at, i64(inst.aRow),
                        optI64(inst.bRow != isa::kNone, inst.bRow), i64(inst.m),
                        i64(inst.k), i64(inst.n), unit(inst.preloaded));
      break;
    case isa::Opcode::Vector: {
      auto vop = VecOp(uint32_t(inst.vop));
      bool binary = vop == VecOp::Add || vop == VecOp::Sub ||
                    vop == VecOp::Mul || vop == VecOp::Div || vop == VecOp::Max;
      bool scalar = inst.bcast == isa::Bcast::Scalar;
      uint32_t fbits;
      std::memcpy(&fbits, &inst.fimm, 4);
      bool hasFimm = vop == VecOp::Fill || (binary && scalar) || fbits != 0;
      bool hasIimm = vop == VecOp::MaskCausal || inst.iimm != 0;
      VectorOp::create(
          builder, at, VecOpAttr::get(ctx, vop), i64(inst.dst), i64(inst.srcA),
          optI64((binary && !scalar) || inst.srcB != 0, inst.srcB),
          i64(inst.rows), i64(inst.cols),
          inst.bcast == isa::Bcast::None
              ? BcastAttr()
              : BcastAttr::get(ctx, Bcast(uint32_t(inst.bcast))),
          hasFimm ? builder.getF32FloatAttr(inst.fimm) : FloatAttr(),
          hasIimm ? builder.getI64IntegerAttr(inst.iimm) : IntegerAttr(),
          unit(inst.vflags & isa::kVecAccumulate),
          unit(inst.vflags & isa::kVecInfIsZero),
          unit(inst.vflags & isa::kVecToSpad));
      break;
    }
    case isa::Opcode::Fence:
      FenceOp::create(builder, at);
      break;
    }
  }
  return op;
}
