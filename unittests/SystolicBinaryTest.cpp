//===- SystolicBinaryTest.cpp - the systolic binary format ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// encodeProgram/decodeProgram (include/accel/Systolic/Binary.h): seeded
// random programs round-trip exactly; every truncation and thousands of
// random mutations either fail with an error or decode to a program that
// encodes back to the very same bytes (so no byte is ever ignored); and each
// decoder message is produced by a one-field corruption at the offset it
// names. The exact bytes of one small program pin the layout of
// docs/systolic-binary.md.
//
//===----------------------------------------------------------------------===//

#include "accel/Systolic/Binary.h"

#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"

#include <cstring>
#include <random>
#include <string>

using namespace sysarray;

namespace {

using Bytes = std::vector<uint8_t>;

uint64_t doubleBits(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return bits;
}

/// Field-by-field equality with messages (Program has no operator==).
void expectSame(const Program &a, const Program &b) {
  EXPECT_EQ(a.name, b.name);
  const MachineConfig &x = a.config, &y = b.config;
  EXPECT_EQ(x.rows, y.rows);
  EXPECT_EQ(x.cols, y.cols);
  EXPECT_EQ(x.inputType, y.inputType);
  EXPECT_EQ(x.accType, y.accType);
  EXPECT_EQ(x.spadRows, y.spadRows);
  EXPECT_EQ(x.spadBanks, y.spadBanks);
  EXPECT_EQ(x.accRows, y.accRows);
  EXPECT_EQ(x.accBanks, y.accBanks);
  EXPECT_EQ(doubleBits(x.dramBytesPerCycle), doubleBits(y.dramBytesPerCycle));
  EXPECT_EQ(x.dramLatency, y.dramLatency);
  EXPECT_EQ(x.vectorLanes, y.vectorLanes);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    EXPECT_EQ(a.buffers[i].name, b.buffers[i].name) << "buffer " << i;
    EXPECT_EQ(a.buffers[i].role, b.buffers[i].role) << "buffer " << i;
    EXPECT_EQ(a.buffers[i].position, b.buffers[i].position) << "buffer " << i;
    EXPECT_EQ(a.buffers[i].type, b.buffers[i].type) << "buffer " << i;
    EXPECT_EQ(a.buffers[i].shape, b.buffers[i].shape) << "buffer " << i;
  }
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  for (size_t i = 0; i < a.instructions.size(); ++i)
    EXPECT_TRUE(a.instructions[i] == b.instructions[i]) << "instruction " << i;
}

/// Random programs the decoder accepts: a valid machine and buffer table,
/// instructions with random fields and zero where an opcode has none. The
/// instructions need not make sense (the decoder does not check that).
class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}

  Program program() {
    Program p;
    p.name = name();
    MachineConfig &c = p.config;
    c.rows = range(1, 1024);
    c.cols = range(1, 1024);
    const ElemType inputs[] = {ElemType::I8, ElemType::BF16, ElemType::F32};
    c.inputType = inputs[range(0, 2)];
    c.accType = c.inputType == ElemType::I8 ? ElemType::I32 : ElemType::F32;
    c.spadBanks = range(1, 8);
    c.spadRows = c.spadBanks * range(1, 1 << 20);
    c.accBanks = range(1, 8);
    c.accRows = c.accBanks * range(1, 1 << 16);
    c.dramBytesPerCycle =
        std::uniform_real_distribution<double>(1e-6, 1e6)(rng);
    c.dramLatency = u32();
    c.vectorLanes = range(1, 1024);
    unsigned numBuffers = range(0, 6);
    for (unsigned i = 0; i < numBuffers; ++i) {
      Buffer &b = p.buffers.emplace_back();
      b.name = name();
      b.role = BufferRole(range(0, 2));
      b.position = b.role == BufferRole::Scratch ? 0 : u32();
      b.type = ElemType(range(0, 3));
      unsigned rank = range(0, 5);
      for (unsigned d = 0; d < rank; ++d)
        b.shape.push_back(range(0, 64));
    }
    unsigned numInsts = range(0, 60);
    for (unsigned i = 0; i < numInsts; ++i)
      p.instructions.push_back(instruction());
    return p;
  }

  Instruction instruction() {
    Instruction in;
    in.op = Opcode(range(1, 10));
    if (in.op == Opcode(9))
      in.op = Opcode::Skip; // (9 is the register form of mvin)
    if (in.op == Opcode(10) && range(0, 1))
      in.op = Opcode::Ssub;
    switch (in.op) {
    case Opcode::Ssub:
      in.reg = range(0, kScalarRegs - 1);
      in.regA = range(0, 2) ? range(0, kScalarRegs - 1) : kNoReg;
      in.regB = range(0, kScalarRegs - 1);
      break;
    case Opcode::Skip:
      in.reg = range(0, kScalarRegs - 1);
      in.count = u32();
      in.iimm = int64_t((uint64_t(u32()) << 32) | u32());
      break;
    case Opcode::Sload:
      in.reg = range(0, kScalarRegs - 1);
      in.buffer = u32();
      in.offset = (uint64_t(u32()) << 32) | u32();
      in.lo = int64_t((uint64_t(u32()) << 32) | u32());
      in.hi = int64_t((uint64_t(u32()) << 32) | u32());
      break;
    case Opcode::Config:
      in.dataflow = Dataflow(range(0, 1));
      break;
    case Opcode::Mvin:
    case Opcode::Mvout:
      in.space = Space(range(0, 1));
      in.transpose = range(0, 1);
      in.buffer = u32();
      in.offset = (uint64_t(u32()) << 32) | u32();
      in.stride = u32();
      in.row = u32();
      in.rows = u32();
      in.cols = u32();
      if (in.op == Opcode::Mvin)
        in.unpack = Unpack(range(0, 4));
      // An mvin with registers: the narrower fields of opcode 9.
      if (in.op == Opcode::Mvin && range(0, 2) == 0) {
        unsigned which = range(1, 3);
        if (which & 1) {
          in.pageReg = range(0, kScalarRegs - 1);
          in.pageStride = u32();
        }
        if (which & 2) {
          in.boundReg = range(0, kScalarRegs - 1);
          in.boundBase = int32_t(u32());
        }
        in.buffer &= 0xFFFF;
        in.offset &= 0xFFFFFFFF;
        in.rows &= 0xFFFF;
        in.cols &= 0xFFFF;
      }
      break;
    case Opcode::Preload:
    case Opcode::Compute:
      (in.op == Opcode::Preload ? in.cRow : in.aRow) = u32();
      in.bRow = range(0, 1) ? kNone : u32();
      in.m = u32();
      in.k = u32();
      in.n = u32();
      (in.op == Opcode::Preload ? in.accumulate : in.preloaded) = range(0, 1);
      break;
    case Opcode::Vector: {
      in.vop = VecOp(range(0, 15));
      bool binary = in.vop == VecOp::Add || in.vop == VecOp::Sub ||
                    in.vop == VecOp::Mul || in.vop == VecOp::Div ||
                    in.vop == VecOp::Max;
      in.bcast = binary ? Bcast(range(0, 2)) : Bcast::None;
      in.dst = u32();
      in.srcA = in.vop == VecOp::Fill ? 0 : u32();
      in.srcB = binary && in.bcast != Bcast::Scalar ? u32() : 0;
      in.rows = u32();
      in.cols = u32();
      if (in.vop == VecOp::Fill || in.bcast == Bcast::Scalar) {
        uint32_t bits = u32(); // any pattern: NaNs, -0, denormals
        std::memcpy(&in.fimm, &bits, 4);
      }
      if (isMaskVecOp(in.vop)) {
        in.iimm = int64_t((uint64_t(u32()) << 32) | u32());
        if (range(0, 1))
          in.reg = range(0, kScalarRegs - 1);
      }
      if ((in.vop == VecOp::RowMax || in.vop == VecOp::RowSum) && range(0, 1))
        in.vflags |= kVecAccumulate;
      if ((in.vop == VecOp::Sub || in.vop == VecOp::Div) && range(0, 1))
        in.vflags |= kVecInfIsZero;
      if (in.vop == VecOp::Copy && range(0, 1))
        in.vflags |= kVecToSpad;
      break;
    }
    case Opcode::Fence:
      break;
    }
    return in;
  }

  std::mt19937_64 rng;

  uint32_t range(uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  }
  /// Small values most of the time, any 32-bit value sometimes.
  uint32_t u32() {
    switch (range(0, 3)) {
    case 0:
      return range(0, 0xFFFFFFFFu);
    case 1:
      return range(0, 1 << 16);
    default:
      return range(0, 64);
    }
  }
  std::string name() {
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    std::string s(range(1, 20), 'a');
    for (char &c : s)
      c = chars[range(0, sizeof(chars) - 2)];
    return s;
  }
};

/// Decodes `bytes` expecting an error that contains `message`.
void expectError(const Bytes &bytes, const std::string &message) {
  llvm::Expected<Program> p = decodeProgram(bytes);
  if (p) {
    ADD_FAILURE() << "decoded, expected an error with \"" << message << "\"";
    return;
  }
  std::string text = llvm::toString(p.takeError());
  EXPECT_NE(text.find(message), std::string::npos)
      << "got \"" << text << "\", expected \"" << message << "\"";
}

TEST(SystolicBinary, RandomProgramsRoundTrip) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Generator gen(seed);
    Program p = gen.program();
    Bytes bytes = encodeProgram(p);
    llvm::Expected<Program> back = decodeProgram(bytes);
    ASSERT_TRUE(bool(back))
        << "seed " << seed << ": " << llvm::toString(back.takeError());
    expectSame(p, *back);
    EXPECT_EQ(encodeProgram(*back), bytes) << "seed " << seed;
    if (testing::Test::HasFailure())
      FAIL() << "seed " << seed;
  }
}

TEST(SystolicBinary, EveryTruncationFails) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Generator gen(seed);
    Bytes bytes = encodeProgram(gen.program());
    for (size_t n = 0; n < bytes.size(); ++n) {
      Bytes prefix(bytes.begin(), bytes.begin() + n);
      llvm::Expected<Program> p = decodeProgram(prefix);
      ASSERT_FALSE(bool(p)) << "seed " << seed << ": " << n << " of "
                            << bytes.size() << " bytes decoded";
      llvm::consumeError(p.takeError());
    }
  }
}

// A mutated file either fails or is the encoding of what it decodes to: the
// decoder reads every byte, there are no two encodings of one program.
TEST(SystolicBinary, RandomMutationsNeverCrashAndAreCanonical) {
  unsigned decoded = 0, rejected = 0;
  for (uint64_t seed = 1; seed <= 10000; ++seed) {
    Generator gen(seed);
    Program p = gen.program();
    Bytes bytes = encodeProgram(p);
    unsigned flips = gen.range(1, 3);
    for (unsigned f = 0; f < flips; ++f) {
      size_t at = gen.range(0, uint32_t(bytes.size() - 1));
      // A random byte, a single bit, or 0/FF: the last two hit the
      // reserved-zero and count fields more often than uniform bytes.
      switch (gen.range(0, 2)) {
      case 0:
        bytes[at] = uint8_t(gen.range(0, 255));
        break;
      case 1:
        bytes[at] ^= uint8_t(1u << gen.range(0, 7));
        break;
      default:
        bytes[at] = gen.range(0, 1) ? 0xFF : 0x00;
      }
    }
    llvm::Expected<Program> back = decodeProgram(bytes);
    if (!back) {
      std::string text = llvm::toString(back.takeError());
      EXPECT_EQ(text.rfind("byte ", 0), 0u) << text;
      ++rejected;
      continue;
    }
    ++decoded;
    ASSERT_EQ(encodeProgram(*back), bytes) << "seed " << seed;
  }
  // Both outcomes happen (a flip of an ordinary field decodes fine).
  EXPECT_GT(decoded, 100u);
  EXPECT_GT(rejected, 100u);
}

/// A small program with one instruction of each kind.
Program smallProgram() {
  Program p;
  p.name = "mm";
  p.config.rows = 2;
  p.config.cols = 4;
  p.config.inputType = ElemType::F32;
  p.config.accType = ElemType::F32;
  p.config.spadRows = 8;
  p.config.spadBanks = 2;
  p.config.accRows = 4;
  p.config.accBanks = 1;
  p.config.dramBytesPerCycle = 2.0;
  p.config.dramLatency = 5;
  p.config.vectorLanes = 3;
  Buffer a;
  a.name = "a";
  a.role = BufferRole::Result;
  a.position = 1;
  a.type = ElemType::BF16;
  a.shape = {2, 3};
  p.buffers.push_back(a);
  Instruction config;
  config.op = Opcode::Config;
  config.dataflow = Dataflow::OS;
  Instruction mvin;
  mvin.op = Opcode::Mvin;
  mvin.space = Space::Acc;
  mvin.transpose = true;
  mvin.unpack = Unpack::U4;
  mvin.buffer = 0;
  mvin.offset = 0x0102030405060708ull;
  mvin.stride = 3;
  mvin.row = 1;
  mvin.rows = 2;
  mvin.cols = 3;
  Instruction preload;
  preload.op = Opcode::Preload;
  preload.accumulate = true;
  preload.cRow = 2;
  preload.m = 2;
  preload.n = 4;
  Instruction compute;
  compute.op = Opcode::Compute;
  compute.preloaded = true;
  compute.aRow = 1;
  compute.bRow = 5;
  compute.m = 2;
  compute.k = 3;
  compute.n = 4;
  Instruction vec;
  vec.op = Opcode::Vector;
  vec.vop = VecOp::Mul;
  vec.bcast = Bcast::Scalar;
  vec.vflags = 0;
  vec.dst = 1;
  vec.srcA = 2;
  vec.rows = 3;
  vec.cols = 4;
  vec.fimm = -2.0f;
  Instruction mask;
  mask.op = Opcode::Vector;
  mask.vop = VecOp::MaskCausal;
  mask.srcA = 1;
  mask.rows = 1;
  mask.cols = 1;
  mask.iimm = -2;
  Instruction sub;
  sub.op = Opcode::Vector;
  sub.vop = VecOp::Sub;
  sub.bcast = Bcast::Row;
  sub.vflags = kVecInfIsZero;
  sub.srcB = 7;
  sub.rows = 1;
  sub.cols = 1;
  Instruction fence;
  fence.op = Opcode::Fence;
  p.instructions = {config, mvin, preload, compute, vec, mask, sub, fence};
  return p;
}

// The layout of docs/systolic-binary.md, byte for byte.
TEST(SystolicBinary, GoldenBytes) {
  Bytes bytes = encodeProgram(smallProgram());
  // clang-format off
  const Bytes expected = {
      // header
      'A', 'C', 'S', 'Y', 1, 0, 0, 0,   // magic, version 1, reserved
      2, 0, 0, 0, 4, 0, 0, 0,           // rows 2, cols 4
      3, 3, 0, 0, 8, 0, 0, 0,           // f32, f32, reserved; spad_rows 8
      2, 0, 0, 0, 4, 0, 0, 0,           // spad_banks 2, acc_rows 4
      1, 0, 0, 0, 5, 0, 0, 0,           // acc_banks 1, dram_latency 5
      0, 0, 0, 0, 0, 0, 0, 0x40,        // dram_bytes_per_cycle 2.0
      3, 0, 0, 0, 1, 0, 0, 0,           // vector_lanes 3, 1 buffer
      8, 0, 0, 0, 2, 0, 0, 0,           // 8 instructions, name of 2 bytes
      'm', 'm', 0, 0, 0, 0, 0, 0,       // the name, padded to 8
      // buffer 0: result 1, bf16, rank 2, name of 1 byte; dims; name
      1, 2, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, //
      2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, //
      'a', 0, 0, 0, 0, 0, 0, 0,
      // config os
      1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      // mvin acc transpose unpack u4: buffer 0, offset, stride 3, row 1,
      // 2 x 3
      2, 1, 1, 4, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1, //
      3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, //
      // preload accumulate: no weights, c_row 2, m 2 k 0 n 4
      4, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 2, 0, 0, 0, //
      0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      // compute preloaded: a_row 1, b_row 5, m 2 k 3 n 4
      5, 0, 1, 0, 1, 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, //
      3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      // vector mul, bcast scalar: dst 1, src_a 2, 3 x 4, imm -2.0f
      6, 4, 0, 2, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, //
      3, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0, 0, //
      // vector mask_causal: src_a 1, 1 x 1, offset -2
      6, 10, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, //
      1, 0, 0, 0, 1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
      0xFF, //
      // vector sub, bcast row, inf_is_zero: src_b 7
      6, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, //
      1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      // fence
      7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
  };
  // clang-format on
  ASSERT_EQ(bytes.size(), expected.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    EXPECT_EQ(unsigned(bytes[i]), unsigned(expected[i])) << "byte " << i;
  llvm::Expected<Program> back = decodeProgram(bytes);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  expectSame(smallProgram(), *back);
}

// Each decoder message, from a corruption of the small program at the
// offset the message names. Offsets: header 0..63, name 64..71, buffer 0
// 72..111 (dims at 88, name at 104), instructions from 112 (32 bytes each:
// config 112, mvin 144, preload 176, compute 208, mul 240, mask 272,
// sub 304, fence 336).
struct Corruption {
  size_t at;
  std::vector<uint8_t> bytes;
  const char *message;
};

TEST(SystolicBinary, EachDecoderMessage) {
  const Bytes good = encodeProgram(smallProgram());
  ASSERT_EQ(good.size(), 368u);
  const Corruption cases[] = {
      {0, {'X'}, "byte 0: bad magic: not a systolic program"},
      {4,
       {2},
       "byte 4: unsupported format version 2 (this decoder reads "
       "version 1)"},
      {7, {1}, "byte 7: reserved header byte must be 0, got 01h"},
      {8, {0}, "byte 8: rows must be in [1, 1024], got 0"},
      {12, {1, 4}, "byte 12: cols must be in [1, 1024], got 1025"},
      {16,
       {1},
       "byte 16: the input type must be i8 (0), bf16 (2) or f32 "
       "(3), got 1"},
      {17,
       {1},
       "byte 17: the accumulator type must be f32 (3) for f32 "
       "inputs, got 1"},
      {19, {4}, "byte 19: reserved header byte must be 0, got 04h"},
      {24, {0}, "byte 24: spad_banks must be >= 1, got 0"},
      {20,
       {7},
       "byte 20: spad_rows must be a positive multiple of "
       "spad_banks (2), got 7"},
      {28,
       {0},
       "byte 28: acc_rows must be a positive multiple of "
       "acc_banks (1), got 0"},
      {32, {0}, "byte 32: acc_banks must be >= 1, got 0"},
      {47,
       {0xC0},
       "byte 40: dram_bytes_per_cycle must be finite and > 0, "
       "got -2"},
      {46,
       {0xF0, 0x7F},
       "byte 40: dram_bytes_per_cycle must be finite and "
       "> 0, got inf"},
      {48, {0}, "byte 48: vector_lanes must be >= 1, got 0"},
      {52,
       {0, 0, 0, 1},
       "byte 52: buffer count 16777216 needs at least "
       "268435456 bytes, 296 left"},
      {56,
       {9},
       "byte 56: instruction count 9 needs 288 bytes after the "
       "buffer table, 256 left"},
      {56, {7}, "byte 336: 32 trailing bytes after the last instruction"},
      {60, {0}, "byte 64: the program name is empty"},
      {60,
       {0, 0, 1},
       "byte 64: truncated: the program name (65536 bytes, "
       "padded to 8) needs 65536 bytes, 304 left"},
      {65,
       {'/'},
       "byte 65: the program name may only use [A-Za-z0-9_.-], "
       "got byte 2Fh"},
      {66, {1}, "byte 66: the program name padding must be 0, got 01h"},
      {72,
       {3},
       "byte 72: buffer 0: unknown role 3 (0 arg, 1 result, 2 "
       "scratch)"},
      {73,
       {4},
       "byte 73: buffer 0: unknown element type 4 (0 i8, 1 i32, 2 "
       "bf16, 3 f32)"},
      {74, {1}, "byte 74: buffer 0: reserved byte must be 0, got 01h"},
      {72, {2}, "byte 76: buffer 0: a scratch buffer has position 0, got 1"},
      {80,
       {0xFF, 0xFF, 0xFF, 0xFF},
       "byte 88: truncated: buffer 0's 4294967295 dimensions needs "
       "34359738360 bytes, 280 left"},
      {94,
       {0x01},
       "byte 88: buffer 0 is larger than the 2^48 bytes a "
       "buffer may hold"},
      {84, {0}, "byte 104: buffer 0's name is empty"},
      {104,
       {'+'},
       "byte 104: buffer 0's name may only use [A-Za-z0-9_.-], "
       "got byte 2Bh"},
      {112, {0}, "byte 112: instruction 0: unknown opcode 0"},
      {112, {12}, "byte 112: instruction 0: unknown opcode 12"},
      {113,
       {2},
       "byte 113: instruction 0 (config): unknown dataflow 2 (0 "
       "ws, 1 os)"},
      {130,
       {1},
       "byte 130: instruction 0 (config): unused byte must be 0, "
       "got 01h"},
      {145,
       {2},
       "byte 145: instruction 1 (mvin): unknown space 2 (0 spad, "
       "1 acc)"},
      {146,
       {3},
       "byte 146: instruction 1 (mvin): flag bits 2h are not "
       "valid here"},
      {147,
       {6},
       "byte 147: instruction 1 (mvin): unknown unpack mode 6 (0 none, 1 "
       "s8, 2 u8, 3 s4, 4 u4, 5 mask)"},
      {177,
       {1},
       "byte 177: instruction 2 (preload): unused byte must be "
       "0, got 01h"},
      {178,
       {0x81},
       "byte 178: instruction 2 (preload): flag bits 80h are "
       "not valid here"},
      {211,
       {1},
       "byte 211: instruction 3 (compute): reserved byte must be "
       "0, got 01h"},
      {239,
       {1},
       "byte 239: instruction 3 (compute): unused byte must be 0, "
       "got 01h"},
      {241, {16}, "byte 241: instruction 4 (vector): unknown vector op 16"},
      {243,
       {3},
       "byte 243: instruction 4 (vector mul): unknown bcast 3 (0 "
       "none, 1 row, 2 scalar)"},
      // (A mask's byte 3 is its register + 1.)
      {275,
       {17},
       "byte 275: instruction 5 (vector mask_causal): register 16 "
       "does not exist (0..15)"},
      {242,
       {8},
       "byte 242: instruction 4 (vector mul): reserved flag bits "
       "8h set"},
      {242,
       {1},
       "byte 242: instruction 4 (vector mul): flag bits 1h are "
       "not valid here"},
      {252,
       {1},
       "byte 252: instruction 4 (vector mul): src_b is unused and "
       "must be 0, got 1"},
      {268,
       {1},
       "byte 268: instruction 4 (vector mul): the high half of "
       "the f32 immediate must be 0, got 01h"},
      {273,
       {0},
       "byte 280: instruction 5 (vector fill): src_a is unused "
       "and must be 0, got 1"},
      {330,
       {1},
       "byte 330: instruction 6 (vector sub): unused immediate "
       "byte must be 0, got 01h"},
      {337,
       {1},
       "byte 337: instruction 7 (fence): unused byte must be 0, "
       "got 01h"},
  };
  for (const Corruption &c : cases) {
    Bytes bad = good;
    std::copy(c.bytes.begin(), c.bytes.end(), bad.begin() + c.at);
    SCOPED_TRACE(c.message);
    expectError(bad, c.message);
  }
  // Shorter than the magic and than the version.
  expectError(Bytes{'A', 'C'}, "byte 0: truncated: the header needs 64 "
                               "bytes, 2 left");
  expectError(Bytes{'A', 'C', 'S', 'Y', 1, 0},
              "byte 0: truncated: the header needs 64 bytes, 6 left");
  expectError(Bytes{'A', 'X'}, "byte 1: bad magic");
  Bytes noInsts(good.begin(), good.begin() + 112);
  noInsts[56] = 0;
  EXPECT_TRUE(bool(decodeProgram(noInsts)));
  // Enough bytes for the counted entries' fixed parts, not for what the
  // first one's dims and name take.
  Bytes noBufferEntry(good.begin(), good.begin() + 120);
  noBufferEntry[52] = 2;
  noBufferEntry[56] = 0;
  expectError(noBufferEntry, "byte 112: truncated: buffer 1's entry needs 16 "
                             "bytes, 8 left");
  Bytes hugeDim = good;
  hugeDim[88] = 0;     // dim 0: 0 elements ...
  hugeDim[103] = 0x80; // ... so only the sign check catches dim 1
  expectError(hugeDim, "byte 96: buffer 0's dimension 1 does not fit in "
                       "int64");
}

} // namespace
