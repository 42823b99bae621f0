//===- ISA.cpp - the systolic array's instruction set ---------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Systolic/ISA.h"

#include <cstring>
#include <iterator>

using namespace sysarray;

const char *sysarray::elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::I8:
    return "i8";
  case ElemType::I32:
    return "i32";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F32:
    return "f32";
  }
  return "?";
}

const char *sysarray::opcodeName(Opcode op) {
  switch (op) {
  case Opcode::Config:
    return "config";
  case Opcode::Mvin:
    return "mvin";
  case Opcode::Mvout:
    return "mvout";
  case Opcode::Preload:
    return "preload";
  case Opcode::Compute:
    return "compute";
  case Opcode::Vector:
    return "vector";
  case Opcode::Fence:
    return "fence";
  case Opcode::Sload:
    return "sload";
  case Opcode::Skip:
    return "skip";
  case Opcode::Ssub:
    return "ssub";
  }
  return "unknown";
}

const char *sysarray::vecOpName(VecOp op) {
  static const char *const names[] = {
      "fill",       "copy",      "add",         "sub",
      "mul",        "div",       "max",         "exp",
      "rowmax",     "rowsum",    "mask_causal", "rsqrt",
      "round_bf16", "mask_keys", "mask_rows",   "mask_lower"};
  return unsigned(op) < std::size(names) ? names[unsigned(op)] : "?";
}

const char *sysarray::unpackName(Unpack u) {
  static const char *const names[] = {"", "s8", "u8", "s4", "u4", "mask"};
  return unsigned(u) < std::size(names) ? names[unsigned(u)] : "?";
}

bool Instruction::operator==(const Instruction &o) const {
  // The float immediate compares by bits: a NaN fill equals itself and
  // -0.0 differs from 0.0, as the binary encoding does.
  uint32_t a, b;
  std::memcpy(&a, &fimm, 4);
  std::memcpy(&b, &o.fimm, 4);
  return op == o.op && dataflow == o.dataflow && buffer == o.buffer &&
         offset == o.offset && stride == o.stride && space == o.space &&
         row == o.row && transpose == o.transpose && unpack == o.unpack &&
         rows == o.rows && cols == o.cols && aRow == o.aRow && bRow == o.bRow &&
         cRow == o.cRow && m == o.m && k == o.k && n == o.n &&
         accumulate == o.accumulate && preloaded == o.preloaded &&
         vop == o.vop && bcast == o.bcast && vflags == o.vflags &&
         dst == o.dst && srcA == o.srcA && srcB == o.srcB && a == b &&
         iimm == o.iimm && pageReg == o.pageReg && pageStride == o.pageStride &&
         boundReg == o.boundReg && boundBase == o.boundBase && reg == o.reg &&
         lo == o.lo && hi == o.hi && count == o.count && regA == o.regA &&
         regB == o.regB;
}
