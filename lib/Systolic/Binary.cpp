//===- Binary.cpp - the systolic program binary format --------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// docs/systolic-binary.md is the layout; the offsets below follow it. The
// decoder checks every byte: a field is either decoded into the Program or
// required to be zero, so decode(bytes) succeeding implies
// encode(decode(bytes)) == bytes (the unit tests check exactly that on
// mutated inputs).
//
//===----------------------------------------------------------------------===//

#include "accel/Systolic/Binary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace sysarray;
using llvm::Error;
using llvm::Twine;
namespace endian = llvm::support::endian;

namespace {

// Instruction flag bits (byte 2 of a word).
constexpr uint8_t kFlagTranspose = 1;  // mvin, mvout
constexpr uint8_t kFlagAccumulate = 1; // preload
constexpr uint8_t kFlagPreloaded = 1;  // compute
constexpr uint8_t kVecFlagMask = kVecAccumulate | kVecInfIsZero | kVecToSpad;
/// The opcode byte of an mvin with a page or bound register (its own
/// layout; Instruction keeps Opcode::Mvin).
constexpr uint8_t kOpMvinRegs = 9;

uint64_t padded(uint64_t n) { return (n + 7) & ~uint64_t(7); }

bool isNameChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
}

bool isBinaryVecOp(VecOp op) {
  return op == VecOp::Add || op == VecOp::Sub || op == VecOp::Mul ||
         op == VecOp::Div || op == VecOp::Max;
}

/// Which vector fields an op uses; the encoder writes and the decoder
/// accepts nonzero values only there.
struct VecUse {
  bool srcA, srcB, fimm, iimm;
  uint8_t flags;
};
VecUse vecUse(VecOp op, Bcast bcast) {
  VecUse u;
  u.srcA = op != VecOp::Fill;
  u.srcB = isBinaryVecOp(op) && bcast != Bcast::Scalar;
  u.fimm = op == VecOp::Fill || (isBinaryVecOp(op) && bcast == Bcast::Scalar);
  u.iimm = isMaskVecOp(op);
  u.flags = 0;
  if (op == VecOp::RowMax || op == VecOp::RowSum)
    u.flags |= kVecAccumulate;
  if (op == VecOp::Sub || op == VecOp::Div)
    u.flags |= kVecInfIsZero;
  if (op == VecOp::Copy)
    u.flags |= kVecToSpad;
  return u;
}

uint32_t floatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
float bitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// Encoder
//===----------------------------------------------------------------------===//

class Writer {
public:
  std::vector<uint8_t> out;

  void u8(uint8_t v) { out.push_back(v); }
  void u16(uint16_t v) { append(v); }
  void u32(uint32_t v) { append(v); }
  void u64(uint64_t v) { append(v); }
  void zeros(size_t n) { out.insert(out.end(), n, 0); }
  /// A name: its bytes, then zeros up to a multiple of 8.
  void name(const std::string &s) {
    out.insert(out.end(), s.begin(), s.end());
    zeros(padded(s.size()) - s.size());
  }

private:
  template <typename T> void append(T v) {
    uint8_t bytes[sizeof(T)];
    endian::write<T, llvm::endianness::little>(bytes, v);
    out.insert(out.end(), bytes, bytes + sizeof(T));
  }
};

void encodeInstruction(Writer &w, const Instruction &inst) {
  size_t start = w.out.size();
  if (inst.op == Opcode::Mvin &&
      (inst.pageReg != kNoReg || inst.boundReg != kNoReg)) {
    w.u8(kOpMvinRegs);
    w.u8(uint8_t(inst.space));
    w.u8(inst.transpose ? kFlagTranspose : 0);
    w.u8(uint8_t(inst.unpack));
    w.u16(uint16_t(inst.buffer));
    w.u8(inst.pageReg);
    w.u8(inst.boundReg);
    w.u32(uint32_t(inst.offset));
    w.u32(inst.stride);
    w.u32(inst.row);
    w.u16(uint16_t(inst.rows));
    w.u16(uint16_t(inst.cols));
    w.u32(inst.pageReg != kNoReg ? uint32_t(inst.pageStride) : 0);
    w.u32(inst.boundReg != kNoReg ? uint32_t(int32_t(inst.boundBase)) : 0);
    return;
  }
  w.u8(uint8_t(inst.op));
  switch (inst.op) {
  case Opcode::Sload:
    w.u8(inst.reg);
    w.u8(0);
    w.u8(0);
    w.u32(inst.buffer);
    w.u64(inst.offset);
    w.u64(uint64_t(inst.lo));
    w.u64(uint64_t(inst.hi));
    break;
  case Opcode::Skip:
    w.u8(inst.reg);
    w.u8(0);
    w.u8(0);
    w.u32(inst.count);
    w.u64(uint64_t(inst.iimm));
    break;
  case Opcode::Ssub:
    w.u8(inst.reg);
    w.u8(inst.regA);
    w.u8(inst.regB);
    break;
  case Opcode::Config:
    w.u8(uint8_t(inst.dataflow));
    break;
  case Opcode::Mvin:
  case Opcode::Mvout:
    w.u8(uint8_t(inst.space));
    w.u8(inst.transpose ? kFlagTranspose : 0);
    w.u8(inst.op == Opcode::Mvin ? uint8_t(inst.unpack) : 0);
    w.u32(inst.buffer);
    w.u64(inst.offset);
    w.u32(inst.stride);
    w.u32(inst.row);
    w.u32(inst.rows);
    w.u32(inst.cols);
    break;
  case Opcode::Preload:
    w.u8(0);
    w.u8(inst.accumulate ? kFlagAccumulate : 0);
    w.u8(0);
    w.u32(inst.bRow);
    w.u32(inst.cRow);
    w.u32(inst.m);
    w.u32(inst.k);
    w.u32(inst.n);
    break;
  case Opcode::Compute:
    w.u8(0);
    w.u8(inst.preloaded ? kFlagPreloaded : 0);
    w.u8(0);
    w.u32(inst.aRow);
    w.u32(inst.bRow);
    w.u32(inst.m);
    w.u32(inst.k);
    w.u32(inst.n);
    break;
  case Opcode::Vector: {
    VecUse use = vecUse(inst.vop, inst.bcast);
    w.u8(uint8_t(inst.vop));
    w.u8(inst.vflags & use.flags);
    // Byte 3: the broadcast of a binary op, a mask's register + 1.
    w.u8(isBinaryVecOp(inst.vop)                       ? uint8_t(inst.bcast)
         : isMaskVecOp(inst.vop) && inst.reg != kNoReg ? uint8_t(inst.reg + 1)
                                                       : 0);
    w.u32(inst.dst);
    w.u32(use.srcA ? inst.srcA : 0);
    w.u32(use.srcB ? inst.srcB : 0);
    w.u32(inst.rows);
    w.u32(inst.cols);
    if (use.fimm)
      w.u64(floatBits(inst.fimm));
    else if (use.iimm)
      w.u64(uint64_t(inst.iimm));
    else
      w.u64(0);
    break;
  }
  case Opcode::Fence:
    break;
  }
  w.zeros(start + kInstructionBytes - w.out.size());
}

//===----------------------------------------------------------------------===//
// Decoder
//===----------------------------------------------------------------------===//

class Decoder {
public:
  explicit Decoder(llvm::ArrayRef<uint8_t> bytes) : b(bytes) {}

  llvm::Expected<Program> decode();

private:
  llvm::ArrayRef<uint8_t> b;

  static Error error(uint64_t at, const Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "byte " + Twine(at) + ": " + msg);
  }
  /// `n` bytes must be left at `at`.
  Error need(uint64_t at, uint64_t n, const Twine &what) const {
    uint64_t left = at <= b.size() ? b.size() - at : 0;
    if (n <= left)
      return Error::success();
    return error(at, "truncated: " + what + " needs " + Twine(n) + " bytes, " +
                         Twine(left) + " left");
  }
  uint8_t u8(uint64_t at) const { return b[at]; }
  uint16_t u16(uint64_t at) const { return endian::read16le(b.data() + at); }
  uint32_t u32(uint64_t at) const { return endian::read32le(b.data() + at); }
  uint64_t u64(uint64_t at) const { return endian::read64le(b.data() + at); }
  /// Bytes [from, to) must be zero.
  Error zeros(uint64_t from, uint64_t to, const Twine &what) const {
    for (uint64_t i = from; i < to; ++i)
      if (b[i] != 0)
        return error(i, what + " must be 0, got " +
                            Twine(llvm::utohexstr(b[i], false, 2)) + "h");
    return Error::success();
  }
  Error name(uint64_t at, uint64_t length, const Twine &what,
             std::string &out) const;
  Error header(Program &p, uint32_t &bufferCount, uint32_t &instCount,
               uint64_t &pos) const;
  Error buffer(uint64_t &pos, unsigned index, Buffer &out) const;
  Error instruction(uint64_t at, unsigned index, Instruction &out) const;
  Error mvinWithRegisters(uint64_t at, unsigned index, Instruction &out) const;
  /// Byte `at` names scalar register `reg` (0..15).
  static Error scalarReg(uint64_t at, const std::string &where, uint8_t reg,
                         const char *none = "") {
    if (reg < kScalarRegs)
      return Error::success();
    return error(at, where + ": register " + Twine(unsigned(reg)) +
                         " does not exist (0.." + Twine(kScalarRegs - 1) +
                         none + ")");
  }
};

Error Decoder::name(uint64_t at, uint64_t length, const Twine &what,
                    std::string &out) const {
  if (length == 0)
    return error(at, what + " is empty");
  if (Error e = need(at, padded(length),
                     what + " (" + Twine(length) + " bytes, padded to 8)"))
    return e;
  for (uint64_t i = 0; i < length; ++i)
    if (!isNameChar(char(b[at + i])))
      return error(at + i, what + " may only use [A-Za-z0-9_.-], got byte " +
                               Twine(llvm::utohexstr(b[at + i], false, 2)) +
                               "h");
  if (Error e = zeros(at + length, at + padded(length), what + " padding"))
    return e;
  out.assign(reinterpret_cast<const char *>(b.data() + at), length);
  return Error::success();
}

Error Decoder::header(Program &p, uint32_t &bufferCount, uint32_t &instCount,
                      uint64_t &pos) const {
  // The magic and the version first: a file that is not ours, or a newer
  // format, should say so rather than "truncated".
  for (unsigned i = 0; i < 4 && i < b.size(); ++i)
    if (b[i] != uint8_t(kBinaryMagic[i]))
      return error(i, "bad magic: not a systolic program (the file must "
                      "start with 'ACSY')");
  if (b.size() >= 6 && u16(4) != kBinaryVersion)
    return error(4, "unsupported format version " + Twine(u16(4)) +
                        " (this decoder reads version " +
                        Twine(kBinaryVersion) + ")");
  if (Error e = need(0, kHeaderBytes, "the header"))
    return e;
  if (Error e = zeros(6, 8, "reserved header byte"))
    return e;

  MachineConfig &c = p.config;
  c.rows = u32(8);
  c.cols = u32(12);
  if (c.rows < 1 || c.rows > 1024)
    return error(8, "rows must be in [1, 1024], got " + Twine(c.rows));
  if (c.cols < 1 || c.cols > 1024)
    return error(12, "cols must be in [1, 1024], got " + Twine(c.cols));
  uint8_t input = u8(16), acc = u8(17);
  if (input != uint8_t(ElemType::I8) && input != uint8_t(ElemType::BF16) &&
      input != uint8_t(ElemType::F32))
    return error(16, "the input type must be i8 (0), bf16 (2) or f32 (3), "
                     "got " +
                         Twine(unsigned(input)));
  c.inputType = ElemType(input);
  ElemType wantAcc =
      c.inputType == ElemType::I8 ? ElemType::I32 : ElemType::F32;
  if (acc != uint8_t(wantAcc))
    return error(17, "the accumulator type must be " +
                         Twine(elemTypeName(wantAcc)) + " (" +
                         Twine(unsigned(wantAcc)) + ") for " +
                         elemTypeName(c.inputType) + " inputs, got " +
                         Twine(unsigned(acc)));
  c.accType = wantAcc;
  if (Error e = zeros(18, 20, "reserved header byte"))
    return e;
  auto sram = [&](uint64_t at, const char *name, uint32_t &rows,
                  uint32_t &banks) -> Error {
    rows = u32(at);
    banks = u32(at + 4);
    if (banks < 1)
      return error(at + 4, Twine(name) + "_banks must be >= 1, got 0");
    if (rows < 1 || rows % banks != 0)
      return error(at, Twine(name) + "_rows must be a positive multiple of " +
                           name + "_banks (" + Twine(banks) + "), got " +
                           Twine(rows));
    return Error::success();
  };
  if (Error e = sram(20, "spad", c.spadRows, c.spadBanks))
    return e;
  if (Error e = sram(28, "acc", c.accRows, c.accBanks))
    return e;
  c.dramLatency = u32(36);
  uint64_t bpcBits = u64(40);
  std::memcpy(&c.dramBytesPerCycle, &bpcBits, 8);
  if (!std::isfinite(c.dramBytesPerCycle) || !(c.dramBytesPerCycle > 0.0)) {
    char text[32];
    snprintf(text, sizeof(text), "%g", c.dramBytesPerCycle); // "inf", "nan"
    return error(40, Twine("dram_bytes_per_cycle must be finite and > 0, "
                           "got ") +
                         text);
  }
  c.vectorLanes = u32(48);
  if (c.vectorLanes < 1)
    return error(48, "vector_lanes must be >= 1, got 0");
  bufferCount = u32(52);
  instCount = u32(56);
  uint32_t nameLength = u32(60);
  pos = kHeaderBytes;
  if (Error e = name(pos, nameLength, "the program name", p.name))
    return e;
  pos += padded(nameLength);
  return Error::success();
}

Error Decoder::buffer(uint64_t &pos, unsigned index, Buffer &out) const {
  if (Error e =
          need(pos, kBufferEntryBytes, "buffer " + Twine(index) + "'s entry"))
    return e;
  uint8_t role = u8(pos), type = u8(pos + 1);
  if (role > uint8_t(BufferRole::Scratch))
    return error(pos, "buffer " + Twine(index) + ": unknown role " +
                          Twine(unsigned(role)) +
                          " (0 arg, 1 result, 2 scratch)");
  if (type > uint8_t(ElemType::F32))
    return error(pos + 1, "buffer " + Twine(index) + ": unknown element type " +
                              Twine(unsigned(type)) +
                              " (0 i8, 1 i32, 2 bf16, 3 f32)");
  if (Error e =
          zeros(pos + 2, pos + 4, "buffer " + Twine(index) + ": reserved byte"))
    return e;
  out.role = BufferRole(role);
  out.type = ElemType(type);
  out.position = u32(pos + 4);
  if (out.role == BufferRole::Scratch && out.position != 0)
    return error(pos + 4, "buffer " + Twine(index) +
                              ": a scratch buffer has position 0, got " +
                              Twine(out.position));
  uint32_t rank = u32(pos + 8), nameLength = u32(pos + 12);
  uint64_t dimsAt = pos + kBufferEntryBytes;
  // Checked before the shape vector is sized: a huge rank cannot allocate.
  if (Error e =
          need(dimsAt, uint64_t(rank) * 8,
               "buffer " + Twine(index) + "'s " + Twine(rank) + " dimensions"))
    return e;
  out.shape.resize(rank);
  uint64_t limit = kMaxBufferBytes / elemBytes(out.type), n = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    uint64_t at = dimsAt + uint64_t(d) * 8, dim = u64(at);
    // Checked on its own: after a zero dimension the size check below
    // passes anything.
    if (dim > uint64_t(INT64_MAX))
      return error(at, "buffer " + Twine(index) + "'s dimension " + Twine(d) +
                           " does not fit in int64");
    if (dim != 0 && n > limit / dim)
      return error(at, "buffer " + Twine(index) +
                           " is larger than the 2^48 "
                           "bytes a buffer may hold");
    n *= dim;
    out.shape[d] = int64_t(dim);
  }
  uint64_t nameAt = dimsAt + uint64_t(rank) * 8;
  if (Error e = name(nameAt, nameLength, "buffer " + Twine(index) + "'s name",
                     out.name))
    return e;
  pos = nameAt + padded(nameLength);
  return Error::success();
}

/// Opcode 9: an mvin with a page or bound register (docs/systolic-binary.md).
Error Decoder::mvinWithRegisters(uint64_t at, unsigned index,
                                 Instruction &out) const {
  out.op = Opcode::Mvin;
  std::string where = ("instruction " + Twine(index) + " (mvin)").str();
  uint8_t space = u8(at + 1), flags = u8(at + 2), unpack = u8(at + 3);
  if (space > uint8_t(Space::Acc))
    return error(at + 1, where + ": unknown space " + Twine(unsigned(space)) +
                             " (0 spad, 1 acc)");
  if (flags & ~kFlagTranspose)
    return error(at + 2, where + ": flag bits " +
                             Twine(llvm::utohexstr(flags & ~kFlagTranspose)) +
                             "h are not valid here");
  if (unpack > uint8_t(kLastUnpack))
    return error(at + 3, where + ": unknown unpack mode " +
                             Twine(unsigned(unpack)) +
                             " (0 none, 1 s8, 2 u8, 3 s4, 4 u4, 5 mask)");
  out.space = Space(space);
  out.transpose = flags & kFlagTranspose;
  out.unpack = Unpack(unpack);
  out.buffer = u16(at + 4);
  out.pageReg = u8(at + 6);
  out.boundReg = u8(at + 7);
  for (unsigned i : {0u, 1u}) {
    uint8_t reg = i ? out.boundReg : out.pageReg;
    if (reg != kNoReg)
      if (Error e = scalarReg(at + 6 + i, where, reg, ", FFh none"))
        return e;
  }
  if (out.pageReg == kNoReg && out.boundReg == kNoReg)
    return error(at + 6, where + ": opcode 9 needs a page or a bound "
                                 "register (an mvin without is opcode 2)");
  out.offset = u32(at + 8);
  out.stride = u32(at + 12);
  out.row = u32(at + 16);
  out.rows = u16(at + 20);
  out.cols = u16(at + 22);
  if (out.pageReg != kNoReg)
    out.pageStride = u32(at + 24);
  else if (Error e = zeros(at + 24, at + 28,
                           where + ": page stride without "
                                   "a page register"))
    return e;
  if (out.boundReg != kNoReg)
    out.boundBase = int32_t(u32(at + 28));
  else if (Error e = zeros(at + 28, at + 32,
                           where + ": bound base without "
                                   "a bound register"))
    return e;
  return Error::success();
}

Error Decoder::instruction(uint64_t at, unsigned index,
                           Instruction &out) const {
  uint8_t opcode = u8(at);
  if (opcode < uint8_t(Opcode::Config) || opcode > uint8_t(Opcode::Ssub))
    return error(at, "instruction " + Twine(index) + ": unknown opcode " +
                         Twine(unsigned(opcode)));
  out = Instruction();
  if (opcode == kOpMvinRegs)
    return mvinWithRegisters(at, index, out);
  out.op = Opcode(opcode);
  std::string where =
      ("instruction " + Twine(index) + " (" + opcodeName(out.op) + ")").str();
  uint8_t sub = u8(at + 1), flags = u8(at + 2), aux = u8(at + 3);
  auto onlyFlags = [&](uint8_t allowed) -> Error {
    if (flags & ~allowed)
      return error(at + 2, where + ": flag bits " +
                               Twine(llvm::utohexstr(flags & ~allowed)) +
                               "h are not valid here");
    return Error::success();
  };
  switch (out.op) {
  case Opcode::Sload:
    if (Error e = scalarReg(at + 1, where, sub))
      return e;
    if (Error e = zeros(at + 2, at + 4, where + ": reserved byte"))
      return e;
    out.reg = sub;
    out.buffer = u32(at + 4);
    out.offset = u64(at + 8);
    out.lo = int64_t(u64(at + 16));
    out.hi = int64_t(u64(at + 24));
    return Error::success();
  case Opcode::Skip:
    if (Error e = scalarReg(at + 1, where, sub))
      return e;
    if (Error e = zeros(at + 2, at + 4, where + ": reserved byte"))
      return e;
    out.reg = sub;
    out.count = u32(at + 4);
    out.iimm = int64_t(u64(at + 8));
    return zeros(at + 16, at + kInstructionBytes, where + ": unused byte");
  case Opcode::Ssub: {
    // (The first source may be FFh: 0.)
    const uint8_t regs[3] = {sub, flags, aux};
    for (unsigned i = 0; i < 3; ++i)
      if (!(i == 1 && regs[i] == kNoReg))
        if (Error e = scalarReg(at + 1 + i, where, regs[i]))
          return e;
    out.reg = sub;
    out.regA = flags;
    out.regB = aux;
    return zeros(at + 4, at + kInstructionBytes, where + ": unused byte");
  }
  case Opcode::Config:
    if (sub > uint8_t(Dataflow::OS))
      return error(at + 1, where + ": unknown dataflow " +
                               Twine(unsigned(sub)) + " (0 ws, 1 os)");
    out.dataflow = Dataflow(sub);
    return zeros(at + 2, at + kInstructionBytes, where + ": unused byte");
  case Opcode::Mvin:
  case Opcode::Mvout:
    if (sub > uint8_t(Space::Acc))
      return error(at + 1, where + ": unknown space " + Twine(unsigned(sub)) +
                               " (0 spad, 1 acc)");
    if (Error e = onlyFlags(kFlagTranspose))
      return e;
    if (out.op == Opcode::Mvout) {
      if (Error e = zeros(at + 3, at + 4, where + ": reserved byte"))
        return e;
    } else if (aux > uint8_t(kLastUnpack)) {
      return error(at + 3, where + ": unknown unpack mode " +
                               Twine(unsigned(aux)) +
                               " (0 none, 1 s8, 2 u8, 3 s4, 4 u4, 5 mask)");
    }
    out.unpack = out.op == Opcode::Mvin ? Unpack(aux) : Unpack::None;
    out.space = Space(sub);
    out.transpose = flags & kFlagTranspose;
    out.buffer = u32(at + 4);
    out.offset = u64(at + 8);
    out.stride = u32(at + 16);
    out.row = u32(at + 20);
    out.rows = u32(at + 24);
    out.cols = u32(at + 28);
    return Error::success();
  case Opcode::Preload:
  case Opcode::Compute: {
    if (Error e = zeros(at + 1, at + 2, where + ": unused byte"))
      return e;
    if (Error e = onlyFlags(1))
      return e;
    if (Error e = zeros(at + 3, at + 4, where + ": reserved byte"))
      return e;
    bool isPreload = out.op == Opcode::Preload;
    (isPreload ? out.accumulate : out.preloaded) = flags & 1;
    (isPreload ? out.bRow : out.aRow) = u32(at + 4);
    (isPreload ? out.cRow : out.bRow) = u32(at + 8);
    out.m = u32(at + 12);
    out.k = u32(at + 16);
    out.n = u32(at + 20);
    return zeros(at + 24, at + kInstructionBytes, where + ": unused byte");
  }
  case Opcode::Vector: {
    if (sub > uint8_t(VecOp::MaskLower))
      return error(at + 1,
                   where + ": unknown vector op " + Twine(unsigned(sub)));
    out.vop = VecOp(sub);
    where =
        ("instruction " + Twine(index) + " (vector " + vecOpName(out.vop) + ")")
            .str();
    if (isMaskVecOp(out.vop)) {
      // Byte 3: the register added to the offset, + 1 (0: none).
      if (aux != 0)
        if (Error e = scalarReg(at + 3, where, uint8_t(aux - 1)))
          return e;
      if (aux != 0)
        out.reg = uint8_t(aux - 1);
      aux = 0;
    }
    if (aux > uint8_t(Bcast::Scalar))
      return error(at + 3, where + ": unknown bcast " + Twine(unsigned(aux)) +
                               " (0 none, 1 row, 2 scalar)");
    if (aux != 0 && !isBinaryVecOp(out.vop))
      return error(at + 3, where + ": bcast applies to the binary ops only");
    out.bcast = Bcast(aux);
    VecUse use = vecUse(out.vop, out.bcast);
    if (flags & ~kVecFlagMask)
      return error(at + 2, where + ": reserved flag bits " +
                               Twine(llvm::utohexstr(flags & ~kVecFlagMask)) +
                               "h set");
    if (Error e = onlyFlags(use.flags))
      return e;
    out.vflags = flags;
    out.dst = u32(at + 4);
    out.srcA = u32(at + 8);
    out.srcB = u32(at + 12);
    out.rows = u32(at + 16);
    out.cols = u32(at + 20);
    if (!use.srcA && out.srcA != 0)
      return error(at + 8, where + ": src_a is unused and must be 0, got " +
                               Twine(out.srcA));
    if (!use.srcB && out.srcB != 0)
      return error(at + 12, where + ": src_b is unused and must be 0, got " +
                                Twine(out.srcB));
    if (use.fimm) {
      out.fimm = bitsFloat(u32(at + 24));
      return zeros(at + 28, at + kInstructionBytes,
                   where + ": the high half of the f32 immediate");
    }
    if (use.iimm) {
      out.iimm = int64_t(u64(at + 24));
      return Error::success();
    }
    return zeros(at + 24, at + kInstructionBytes,
                 where + ": unused immediate byte");
  }
  case Opcode::Fence:
    return zeros(at + 1, at + kInstructionBytes, where + ": unused byte");
  }
  return Error::success();
}

llvm::Expected<Program> Decoder::decode() {
  Program p;
  uint32_t bufferCount = 0, instCount = 0;
  uint64_t pos = 0;
  if (Error e = header(p, bufferCount, instCount, pos))
    return std::move(e);
  // Every entry takes at least kBufferEntryBytes: a count beyond the input
  // is an error before anything is reserved.
  if (bufferCount > (b.size() - pos) / kBufferEntryBytes)
    return error(52, "buffer count " + Twine(bufferCount) + " needs at least " +
                         Twine(uint64_t(bufferCount) * kBufferEntryBytes) +
                         " bytes, " + Twine(b.size() - pos) + " left");
  p.buffers.resize(bufferCount);
  for (uint32_t i = 0; i < bufferCount; ++i)
    if (Error e = buffer(pos, i, p.buffers[i]))
      return std::move(e);
  uint64_t left = b.size() - pos,
           want = uint64_t(instCount) * kInstructionBytes;
  if (want > left)
    return error(56, "instruction count " + Twine(instCount) + " needs " +
                         Twine(want) + " bytes after the buffer table, " +
                         Twine(left) + " left");
  if (want < left)
    return error(pos + want, Twine(left - want) +
                                 " trailing bytes after the last "
                                 "instruction");
  p.instructions.resize(instCount);
  for (uint32_t i = 0; i < instCount; ++i)
    if (Error e = instruction(pos + uint64_t(i) * kInstructionBytes, i,
                              p.instructions[i]))
      return std::move(e);
  return p;
}

} // namespace

std::vector<uint8_t> sysarray::encodeProgram(const Program &program) {
  Writer w;
  const MachineConfig &c = program.config;
  w.out.insert(w.out.end(), kBinaryMagic, kBinaryMagic + 4);
  w.u16(kBinaryVersion);
  w.u16(0);
  w.u32(c.rows);
  w.u32(c.cols);
  w.u8(uint8_t(c.inputType));
  w.u8(uint8_t(c.accType));
  w.u16(0);
  w.u32(c.spadRows);
  w.u32(c.spadBanks);
  w.u32(c.accRows);
  w.u32(c.accBanks);
  w.u32(c.dramLatency);
  uint64_t bpcBits;
  std::memcpy(&bpcBits, &c.dramBytesPerCycle, 8);
  w.u64(bpcBits);
  w.u32(c.vectorLanes);
  w.u32(uint32_t(program.buffers.size()));
  w.u32(uint32_t(program.instructions.size()));
  w.u32(uint32_t(program.name.size()));
  w.name(program.name);
  for (const Buffer &buf : program.buffers) {
    w.u8(uint8_t(buf.role));
    w.u8(uint8_t(buf.type));
    w.u16(0);
    w.u32(buf.role == BufferRole::Scratch ? 0 : buf.position);
    w.u32(uint32_t(buf.shape.size()));
    w.u32(uint32_t(buf.name.size()));
    for (int64_t d : buf.shape)
      w.u64(uint64_t(d));
    w.name(buf.name);
  }
  for (const Instruction &inst : program.instructions)
    encodeInstruction(w, inst);
  return std::move(w.out);
}

llvm::Expected<Program> sysarray::decodeProgram(llvm::ArrayRef<uint8_t> bytes) {
  return Decoder(bytes).decode();
}
