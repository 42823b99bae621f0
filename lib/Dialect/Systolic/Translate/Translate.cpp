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
namespace sa = ::sysarray;

Type mlir::systolic::typeFromElemType(MLIRContext *context, sa::ElemType type) {
  Builder b(context);
  switch (type) {
  case sa::ElemType::I8:
    return b.getIntegerType(8);
  case sa::ElemType::I32:
    return b.getIntegerType(32);
  case sa::ElemType::BF16:
    return b.getBF16Type();
  case sa::ElemType::F32:
    return b.getF32Type();
  }
  llvm_unreachable("unknown ElemType");
}

FailureOr<sa::ElemType> mlir::systolic::elemTypeFromType(Type type) {
  if (type.isSignlessInteger(8))
    return sa::ElemType::I8;
  if (type.isSignlessInteger(32))
    return sa::ElemType::I32;
  if (type.isBF16())
    return sa::ElemType::BF16;
  if (type.isF32())
    return sa::ElemType::F32;
  return failure();
}

static sa::Space toSpace(Space s) {
  return s == Space::Spad ? sa::Space::Spad : sa::Space::Acc;
}
static Space fromSpace(sa::Space s) {
  return s == sa::Space::Spad ? Space::Spad : Space::Acc;
}

FailureOr<sa::Program> mlir::systolic::toProgram(ProgramOp op) {
  if (failed(mlir::verify(op)))
    return failure();
  sa::Program p;
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
    sa::Buffer &out = p.buffers.emplace_back();
    out.name = buf.getName().str();
    out.role = sa::BufferRole(uint8_t(buf.getRole()));
    out.position = buf.getPosition();
    out.type = *elemTypeFromType(buf.getType().getElementType());
    out.shape.assign(buf.getType().getShape().begin(),
                     buf.getType().getShape().end());
  }

  for (Operation &inst : op.getBodyBlock()) {
    sa::Instruction &out = p.instructions.emplace_back();
    if (auto config = dyn_cast<ConfigOp>(inst)) {
      out.op = sa::Opcode::Config;
      out.dataflow = config.getDataflow() == Dataflow::WS ? sa::Dataflow::WS
                                                          : sa::Dataflow::OS;
    } else if (auto mvin = dyn_cast<MvinOp>(inst)) {
      out.op = sa::Opcode::Mvin;
      out.buffer = mvin.getBuffer();
      out.offset = mvin.getOffset();
      out.stride = mvin.getStride();
      out.space = toSpace(mvin.getSpace());
      out.row = mvin.getRow();
      out.rows = mvin.getRows();
      out.cols = mvin.getCols();
      out.transpose = mvin.getTranspose();
      if (std::optional<Unpack> u = mvin.getUnpack())
        out.unpack = sa::Unpack(uint8_t(*u));
      if (std::optional<int64_t> r = mvin.getPageReg()) {
        out.pageReg = uint8_t(*r);
        out.pageStride = uint64_t(*mvin.getPageStride());
      }
      if (std::optional<int64_t> r = mvin.getBoundReg()) {
        out.boundReg = uint8_t(*r);
        out.boundBase = *mvin.getBoundBase();
      }
    } else if (auto ssub = dyn_cast<SsubOp>(inst)) {
      out.op = sa::Opcode::Ssub;
      out.reg = uint8_t(ssub.getReg());
      out.regA = ssub.getRegA() ? uint8_t(*ssub.getRegA()) : sa::kNoReg;
      out.regB = uint8_t(ssub.getRegB());
    } else if (auto skip = dyn_cast<SkipOp>(inst)) {
      out.op = sa::Opcode::Skip;
      out.reg = uint8_t(skip.getReg());
      out.count = uint32_t(skip.getCount());
      out.iimm = int64_t(skip.getImm());
    } else if (auto sload = dyn_cast<SloadOp>(inst)) {
      out.op = sa::Opcode::Sload;
      out.reg = uint8_t(sload.getReg());
      out.buffer = sload.getBuffer();
      out.offset = sload.getOffset();
      out.lo = sload.getLo();
      out.hi = sload.getHi();
    } else if (auto mvout = dyn_cast<MvoutOp>(inst)) {
      out.op = sa::Opcode::Mvout;
      out.buffer = mvout.getBuffer();
      out.offset = mvout.getOffset();
      out.stride = mvout.getStride();
      out.space = toSpace(mvout.getSpace());
      out.row = mvout.getRow();
      out.rows = mvout.getRows();
      out.cols = mvout.getCols();
      out.transpose = mvout.getTranspose();
    } else if (auto preload = dyn_cast<PreloadOp>(inst)) {
      out.op = sa::Opcode::Preload;
      out.bRow = preload.getBRow() ? uint32_t(*preload.getBRow()) : sa::kNone;
      out.cRow = preload.getCRow();
      out.m = preload.getM();
      out.k = preload.getK();
      out.n = preload.getN();
      out.accumulate = preload.getAccumulate();
    } else if (auto compute = dyn_cast<ComputeOp>(inst)) {
      out.op = sa::Opcode::Compute;
      out.aRow = compute.getARow();
      out.bRow = compute.getBRow() ? uint32_t(*compute.getBRow()) : sa::kNone;
      out.m = compute.getM();
      out.k = compute.getK();
      out.n = compute.getN();
      out.preloaded = compute.getPreloaded();
    } else if (auto vector = dyn_cast<VectorOp>(inst)) {
      out.op = sa::Opcode::Vector;
      out.vop = sa::VecOp(uint8_t(vector.getOp()));
      out.dst = vector.getDst();
      out.srcA = vector.getSrcA();
      out.srcB = vector.getSrcB() ? uint32_t(*vector.getSrcB()) : 0;
      out.rows = vector.getRows();
      out.cols = vector.getCols();
      out.bcast = sa::Bcast(uint8_t(vector.getBcast().value_or(Bcast::None)));
      if (auto fimm = vector.getFimm())
        out.fimm = fimm->convertToFloat();
      out.iimm = vector.getIimm().value_or(0);
      if (std::optional<int64_t> r = vector.getReg())
        out.reg = uint8_t(*r);
      out.vflags = (vector.getAccumulate() ? sa::kVecAccumulate : 0) |
                   (vector.getInfIsZero() ? sa::kVecInfIsZero : 0) |
                   (vector.getToSpad() ? sa::kVecToSpad : 0);
    } else {
      assert(isa<FenceOp>(inst) && "the verifier admits instructions only");
      out.op = sa::Opcode::Fence;
    }
  }
  return p;
}

ProgramOp mlir::systolic::fromProgram(OpBuilder &builder, Location loc,
                                      const sa::Program &program) {
  MLIRContext *ctx = builder.getContext();
  const sa::MachineConfig &c = program.config;
  auto config =
      ConfigAttr::get(ctx, c.rows, c.cols, typeFromElemType(ctx, c.inputType),
                      typeFromElemType(ctx, c.accType), c.spadRows, c.spadBanks,
                      c.accRows, c.accBanks, llvm::APFloat(c.dramBytesPerCycle),
                      c.dramLatency, c.vectorLanes);
  SmallVector<Attribute> buffers;
  for (const sa::Buffer &buf : program.buffers)
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
  auto unit = [&](bool set) {
    return set ? builder.getUnitAttr() : UnitAttr();
  };
  for (auto [index, inst] : llvm::enumerate(program.instructions)) {
    Location at = NameLoc::get(
        builder.getStringAttr("instruction " + std::to_string(index)), loc);
    switch (inst.op) {
    case sa::Opcode::Config:
      ConfigOp::create(builder, at,
                       inst.dataflow == sa::Dataflow::WS ? Dataflow::WS
                                                         : Dataflow::OS);
      break;
    case sa::Opcode::Mvin: {
      bool paged = inst.pageReg != sa::kNoReg,
           bounded = inst.boundReg != sa::kNoReg;
      MvinOp::create(
          builder, at, i64(inst.buffer), i64(inst.offset), i64(inst.stride),
          SpaceAttr::get(ctx, fromSpace(inst.space)), i64(inst.row),
          i64(inst.rows), i64(inst.cols), unit(inst.transpose),
          inst.unpack == sa::Unpack::None
              ? UnpackAttr()
              : UnpackAttr::get(ctx, Unpack(uint8_t(inst.unpack))),
          optI64(paged, inst.pageReg), optI64(paged, inst.pageStride),
          optI64(bounded, inst.boundReg),
          bounded ? builder.getI64IntegerAttr(inst.boundBase) : IntegerAttr());
      break;
    }
    case sa::Opcode::Ssub:
      SsubOp::create(builder, at, optI64(inst.regA != sa::kNoReg, inst.regA),
                     i64(inst.regB), i64(inst.reg));
      break;
    case sa::Opcode::Skip:
      SkipOp::create(builder, at, inst.count, inst.reg, inst.iimm);
      break;
    case sa::Opcode::Sload:
      SloadOp::create(builder, at, inst.buffer, inst.offset, inst.lo, inst.hi,
                      inst.reg);
      break;
    case sa::Opcode::Mvout:
      MvoutOp::create(builder, at, fromSpace(inst.space), inst.row, inst.rows,
                      inst.cols, inst.buffer, inst.offset, inst.stride,
                      inst.transpose);
      break;
    case sa::Opcode::Preload:
      PreloadOp::create(builder, at, optI64(inst.bRow != sa::kNone, inst.bRow),
                        i64(inst.cRow), i64(inst.m), i64(inst.k), i64(inst.n),
                        unit(inst.accumulate));
      break;
    case sa::Opcode::Compute:
      ComputeOp::create(builder, at, i64(inst.aRow),
                        optI64(inst.bRow != sa::kNone, inst.bRow), i64(inst.m),
                        i64(inst.k), i64(inst.n), unit(inst.preloaded));
      break;
    case sa::Opcode::Vector: {
      auto vop = VecOp(uint32_t(inst.vop));
      bool binary = vop == VecOp::Add || vop == VecOp::Sub ||
                    vop == VecOp::Mul || vop == VecOp::Div || vop == VecOp::Max;
      bool scalar = inst.bcast == sa::Bcast::Scalar;
      uint32_t fbits;
      std::memcpy(&fbits, &inst.fimm, 4);
      bool hasFimm = vop == VecOp::Fill || (binary && scalar) || fbits != 0;
      bool hasIimm = sa::isMaskVecOp(inst.vop) || inst.iimm != 0;
      VectorOp::create(
          builder, at, VecOpAttr::get(ctx, vop), i64(inst.dst), i64(inst.srcA),
          optI64((binary && !scalar) || inst.srcB != 0, inst.srcB),
          i64(inst.rows), i64(inst.cols),
          inst.bcast == sa::Bcast::None
              ? BcastAttr()
              : BcastAttr::get(ctx, Bcast(uint32_t(inst.bcast))),
          hasFimm ? builder.getF32FloatAttr(inst.fimm) : FloatAttr(),
          hasIimm ? builder.getI64IntegerAttr(inst.iimm) : IntegerAttr(),
          optI64(inst.reg != sa::kNoReg, inst.reg),
          unit(inst.vflags & sa::kVecAccumulate),
          unit(inst.vflags & sa::kVecInfIsZero),
          unit(inst.vflags & sa::kVecToSpad));
      break;
    }
    case sa::Opcode::Fence:
      FenceOp::create(builder, at);
      break;
    }
  }
  return op;
}

llvm::Expected<ProgramOp>
mlir::systolic::selectProgram(ModuleOp module, llvm::StringRef want,
                              llvm::StringRef fileName,
                              llvm::StringRef severalHint) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  SmallVector<ProgramOp> programs(module.getOps<ProgramOp>());
  std::string names;
  for (ProgramOp p : programs)
    names += (names.empty() ? "@" : ", @") + p.getSymName().str();
  if (!want.empty()) {
    for (ProgramOp p : programs)
      if (p.getSymName() == want)
        return p;
    return error("no systolic.program named @" + want + " in '" + fileName +
                 "'" +
                 (programs.empty() ? std::string(" (it has none)")
                                   : " (it has " + names + ")"));
  }
  if (programs.empty())
    return error("'" + fileName +
                 "' has no systolic.program at the top level of its module");
  if (programs.size() > 1)
    return error("'" + fileName + "' has " + llvm::Twine(programs.size()) +
                 " systolic.program ops (" + names + ")" + severalHint);
  return programs.front();
}
