//===- ISA.h - the systolic array's machine and instruction set -*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR) description of the parameterised systolic array that
// the `systolic` dialect models, the simulator executes and the binary format
// encodes. docs/systolic.md is the prose version; this header is the contract.
//
// The machine (Gemmini is the reference design, ucb-bar/gemmini):
//
//  * a `rows x cols` array of processing elements (PEs). Inputs are i8, bf16
//    or f32; products accumulate in i32 (for i8) or f32.
//  * a scratchpad (spad) of `spadRows` rows, each `spadWidth() =
//    max(rows, cols)` elements of the input type, in `spadBanks` equal banks
//    of consecutive rows;
//  * an accumulator SRAM (acc) of `accRows` rows, each `cols` elements of the
//    accumulator type, in `accBanks` equal banks;
//  * DRAM: the program's buffers (function arguments, results and scratch),
//    reached by a DMA engine with `dramBytesPerCycle` and `dramLatency`;
//  * a vector unit of `vectorLanes` f32 lanes that works on accumulator rows
//    (softmax, scaling, casts back into the scratchpad);
//  * two dataflows, chosen by `config`: weight-stationary (WS) and
//    output-stationary (OS).
//
// A program is a straight-line list of instructions (the stream a host core
// issues to the array, as with Gemmini's RoCC commands). The DMA (mvin,
// mvout) and the execute unit (preload, compute, vector) run decoupled; the
// simulator orders them by their SRAM and DRAM read/write sets, `fence` waits
// for everything before it.
//
// Instruction semantics (all sizes in elements, rows/cols >= 1):
//
//  config  dataflow                  Selects WS or OS for what follows. A
//                                    program must config before its first
//                                    preload.
//  mvin    buffer, offset, stride,   Copies a `rows x cols` block from DRAM
//          space, row, rows, cols,   buffer `buffer` (element (r, c) at
//          transpose, unpack         offset + r*stride + c) into SRAM rows
//                                    row..row+rows-1 of `space`, columns
//                                    0..cols-1. With `transpose` the DRAM
//                                    block is `cols x rows` (element (r, c)
//                                    of the SRAM block is DRAM offset +
//                                    c*stride + r). The DRAM element type
//                                    must equal the SRAM one, except that
//                                    the accumulator also takes bf16/f32
//                                    (widened to f32) when it holds f32,
//                                    and that `unpack` (see Unpack) reads
//                                    an i8 buffer's bytes as integers into
//                                    a bf16 or f32 SRAM (exact): one a byte,
//                                    or two a byte (4-bit, the low nibble
//                                    first), offset and stride then counted
//                                    in nibbles.
//  mvout   space, row, rows, cols,   Copies SRAM rows to DRAM (the same
//          buffer, offset, stride,   addressing, `transpose` writes the
//          transpose                 transposed block). From the accumulator
//                                    the value is converted to the buffer's
//                                    type: f32 -> bf16 rounds to nearest
//                                    even, i32 -> i8 saturates.
//  preload bRow, cRow, k, n, m,      WS: loads the `k x n` weight tile at
//          accumulate                spad rows bRow.. (k <= rows, n <= cols)
//                                    into the PEs; bRow == kNone keeps the
//                                    weights already there. OS: resets the
//                                    PEs' `m x n` partial sums (m <= rows,
//                                    n <= cols); bRow must be kNone.
//                                    Either way the results of the computes
//                                    that follow go to acc rows cRow.., added
//                                    to what is there when `accumulate`,
//                                    overwriting it otherwise.
//  compute aRow, bRow, m, k, n,      WS: streams the `m x k` tile A at spad
//          preloaded                 rows aRow.. through the weights and
//                                    writes A.W (m x n) to the preload's
//                                    target; `preloaded` says the weights
//                                    come from the preload just before (not
//                                    kept from an earlier one); bRow must be
//                                    kNone. OS: multiplies A (m x k at aRow)
//                                    by B (k x n at bRow) into the PEs'
//                                    partial sums (k <= spadWidth); the sums
//                                    reach the accumulator when the next
//                                    preload, config, fence or the end of
//                                    the program flushes them. In both
//                                    dataflows a compute follows a preload
//                                    whose m/n/k agree with it.
//  vector  op, dst, srcA, srcB,      Element-wise and row-wise f32 work on a
//          rows, cols, bcast, imm,   `rows x cols` block of accumulator rows
//          flags                     (see VecOp). With kVecToSpad the
//                                    destination is the scratchpad and the
//                                    values are rounded to the input type
//                                    (op must be Copy).
//  fence                             Waits until every earlier instruction
//                                    has finished.
//  sload   reg, buffer, offset,      Loads element `offset` of the i32
//          lo, hi                    buffer `buffer` into scalar register
//                                    `reg` (one of kScalarRegs, all 0 at
//                                    the start); the machine stops with an
//                                    error if the value is outside
//                                    [lo, hi] (run-time data checked where
//                                    it is read: a length, a count).
//  ssub    reg, regA, regB           r[reg] = r[regA] - r[regB], r[regA]
//                                    read as 0 when regA is kNoReg (the
//                                    machine stops on overflow).
//  skip    count, reg, imm           When r[reg] <= imm, the next `count`
//                                    instructions are not executed (a
//                                    forward branch: the key blocks past a
//                                    sequence's length). What follows
//                                    issues once r[reg] is loaded.
//
// Scalar registers hold run-time data (a decode step's block table and
// sequence lengths) that the instructions below read; the DMA does the
// sloads in its load queue, in order with the mvins.
//
//  * mvin with a page register `p`: the block starts at offset +
//    r[p] * pageStride (r[p] >= 0; the block must lie within
//    [0, pageStride) of its page, the verifier checks, and the page
//    within the buffer, the machine checks when it reads it).
//  * mvin with a bound register `b`: only the DRAM block's first
//    clamp(r[b] - boundBase, 0, n) lines are read (a line: a row, or a
//    column with `transpose`; n of them); the SRAM elements of the other
//    lines are set to zero and nothing is read for them (no address is
//    formed, so a page past a sequence's end is never checked).
//  * vector masks (MaskCausal, MaskKeys, MaskRows, MaskLower) with a
//    register `reg`: the immediate is imm + r[reg].
//
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_SYSTOLIC_ISA_H
#define ACCEL_SYSTOLIC_ISA_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// Outside `mlir` and `mlir::accel` on purpose: this is plain C++, and a
// top-level `accel` would be ambiguous under `using namespace mlir`.
namespace sysarray {

/// Element types of DRAM buffers and SRAMs.
enum class ElemType : uint8_t { I8 = 0, I32 = 1, BF16 = 2, F32 = 3 };

/// Bytes per element.
inline unsigned elemBytes(ElemType t) {
  switch (t) {
  case ElemType::I8:
    return 1;
  case ElemType::BF16:
    return 2;
  case ElemType::I32:
  case ElemType::F32:
    return 4;
  }
  return 0;
}

/// "i8", "i32", "bf16", "f32".
const char *elemTypeName(ElemType t);

enum class Opcode : uint8_t;
enum class VecOp : uint8_t;
/// "config", "mvin", ... ("unknown" for a value outside the enum).
const char *opcodeName(Opcode op);
/// "fill", "copy", ... as the dialect spells them ("?" outside the enum).
const char *vecOpName(VecOp op);

enum class Dataflow : uint8_t { WS = 0, OS = 1 };

/// Which SRAM an mvin/mvout/vector operand names.
enum class Space : uint8_t { Spad = 0, Acc = 1 };

/// The machine a program is compiled for and runs on.
struct MachineConfig {
  uint32_t rows = 16, cols = 16;
  ElemType inputType = ElemType::I8;
  /// I32 for i8 inputs, F32 otherwise.
  ElemType accType = ElemType::I32;
  uint32_t spadRows = 16384; // 256 KiB of i8 at width 16
  uint32_t spadBanks = 4;
  uint32_t accRows = 1024; // 64 KiB of i32 at width 16
  uint32_t accBanks = 2;
  /// DRAM <-> SRAM bandwidth (bytes per cycle) and the latency of one DMA
  /// request (cycles).
  double dramBytesPerCycle = 16.0;
  uint32_t dramLatency = 100;
  /// f32 lanes of the vector unit (elements per cycle).
  uint32_t vectorLanes = 16;

  uint32_t spadWidth() const { return std::max(rows, cols); }
  uint32_t accWidth() const { return cols; }
  uint64_t spadBytes() const {
    return uint64_t(spadRows) * spadWidth() * elemBytes(inputType);
  }
  uint64_t accBytes() const {
    return uint64_t(accRows) * accWidth() * elemBytes(accType);
  }
  uint32_t spadBankRows() const { return spadRows / std::max(1u, spadBanks); }
  uint32_t accBankRows() const { return accRows / std::max(1u, accBanks); }
};

/// What a DRAM buffer is to the caller. Scratch buffers start zeroed (the
/// runtime's job: accel-run and accel-sim zero them before a run); the
/// compiler relies on that for the zeros of a K = 0 matmul.
enum class BufferRole : uint8_t { Arg = 0, Result = 1, Scratch = 2 };

/// A DRAM buffer: a function argument, a result or compiler scratch.
struct Buffer {
  std::string name;
  BufferRole role = BufferRole::Scratch;
  /// Argument or result number (0 for scratch).
  uint32_t position = 0;
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape;

  uint64_t numElements() const {
    uint64_t n = 1;
    for (int64_t d : shape)
      n *= uint64_t(d);
    return n;
  }
  uint64_t sizeBytes() const { return numElements() * elemBytes(type); }
};

enum class Opcode : uint8_t {
  Config = 1,
  Mvin = 2,
  Mvout = 3,
  Preload = 4,
  Compute = 5,
  Vector = 6,
  Fence = 7,
  Sload = 8,
  Skip = 10, // (9 is the binary code of an mvin with registers)
  Ssub = 11,
};

/// Vector unit operations. `B` is srcB element-wise (Bcast::None), srcB's
/// column 0 per row (Bcast::Row) or `imm` (Bcast::Scalar).
enum class VecOp : uint8_t {
  Fill = 0,        // dst = imm
  Copy = 1,        // dst = A
  Add = 2,         // dst = A + B
  Sub = 3,         // dst = A - B (kVecInfIsZero: a -inf B is read as 0)
  Mul = 4,         // dst = A * B
  Div = 5,         // dst = A / B (kVecInfIsZero: x / 0 is 0)
  Max = 6,         // dst = max(A, B)
  Exp = 7,         // dst = exp(A)
  RowMax = 8,      // dst[i][0] = max_j A[i][j] (kVecAccumulate: and dst[i][0])
  RowSum = 9,      // dst[i][0] = sum_j A[i][j] in j order (kVecAccumulate: +)
  MaskCausal = 10, // dst[i][j] = j - i > imm ? -inf : A[i][j]
  Rsqrt = 11,      // dst = 1 / sqrt(A)
  RoundBf16 = 12,  // dst = A rounded to bf16 (nearest even), held as f32
  MaskKeys = 13,   // dst[i][j] = j > imm ? -inf : A[i][j]
  MaskRows = 14,   // dst[i][j] = i > imm ? -inf : A[i][j]
  MaskLower = 15   // dst[i][j] = j - i <= imm ? -inf : A[i][j]
};

/// The masks: an integer offset (`iimm`), plus a register when one is
/// given.
inline bool isMaskVecOp(VecOp op) {
  return op == VecOp::MaskCausal || op == VecOp::MaskKeys ||
         op == VecOp::MaskRows || op == VecOp::MaskLower;
}

enum class Bcast : uint8_t { None = 0, Row = 1, Scalar = 2 };

/// How mvin reads an i8 buffer into a float SRAM (weight-only quantised
/// weights: the DMA widens them, the vector unit never sees the bytes).
enum class Unpack : uint8_t {
  None = 0, // the buffer's own elements
  S8 = 1,   // a byte an integer, two's complement (-128..127)
  U8 = 2,   // a byte an integer, unsigned (0..255)
  S4 = 3,   // two integers a byte, two's complement (-8..7), low nibble first
  U4 = 4,   // two integers a byte, unsigned (0..15), low nibble first
  Mask = 5, // a byte a boolean (an i1 tensor's storage): nonzero keeps,
            // read as 0; zero removes, read as -inf (the additive mask the
            // boolean one means, so attention adds it as it adds a float one)
};
/// The last Unpack value (decoders refuse what lies past it).
inline constexpr Unpack kLastUnpack = Unpack::Mask;
/// "s8", "u8", "s4", "u4", "mask" ("" for None, "?" outside the enum).
const char *unpackName(Unpack u);
/// Elements an i8 buffer's byte holds under `u` (2 for 4-bit, else 1).
inline unsigned unpackPerByte(Unpack u) {
  return u == Unpack::S4 || u == Unpack::U4 ? 2 : 1;
}

/// Vector flags.
enum : uint8_t {
  kVecAccumulate = 1,
  kVecInfIsZero = 2,
  kVecToSpad = 4,
};

/// "No address" for preload.bRow and compute.bRow.
inline constexpr uint32_t kNone = 0xFFFFFFFFu;

/// Scalar registers, and "no register" for mvin's page/bound and the
/// vector masks' register.
inline constexpr unsigned kScalarRegs = 16;
inline constexpr uint8_t kNoReg = 0xFF;

/// One instruction. Fields not used by an opcode are zero (kNone for the
/// unused bRow, kNoReg for unused registers), so two equal programs compare
/// equal field by field.
struct Instruction {
  Opcode op = Opcode::Fence;
  // config
  Dataflow dataflow = Dataflow::WS;
  // mvin / mvout
  uint32_t buffer = 0;
  uint64_t offset = 0;
  uint32_t stride = 0;
  Space space = Space::Spad;
  uint32_t row = 0;
  bool transpose = false;
  Unpack unpack = Unpack::None; // mvin
  /// mvin: the page register (kNoReg: none) and the elements a page
  /// spans; the bound register (kNoReg: none) and its base.
  uint8_t pageReg = kNoReg;
  uint64_t pageStride = 0;
  uint8_t boundReg = kNoReg;
  int64_t boundBase = 0;
  /// sload: the destination register, the range its value must be in.
  /// vector MaskCausal / MaskKeys: the register added to iimm (kNoReg:
  /// none).
  uint8_t reg = kNoReg;
  int64_t lo = 0, hi = 0;
  /// skip: the instructions it skips (its register is `reg`, its
  /// threshold `iimm`).
  uint32_t count = 0;
  /// ssub: the registers subtracted (r[reg] = r[regA] - r[regB]; regA
  /// kNoReg: 0).
  uint8_t regA = kNoReg, regB = kNoReg;
  // mvin / mvout / vector block
  uint32_t rows = 0, cols = 0;
  // preload / compute
  uint32_t aRow = 0, bRow = kNone, cRow = 0;
  uint32_t m = 0, k = 0, n = 0;
  bool accumulate = false; // preload
  bool preloaded = false;  // compute
  // vector
  VecOp vop = VecOp::Copy;
  Bcast bcast = Bcast::None;
  uint8_t vflags = 0;
  uint32_t dst = 0, srcA = 0, srcB = 0;
  /// Vector immediate: the f32 scalar (Fill, Bcast::Scalar) or the signed
  /// MaskCausal / MaskKeys offset.
  float fimm = 0.0f;
  int64_t iimm = 0;

  bool operator==(const Instruction &o) const;
  bool operator!=(const Instruction &o) const { return !(*this == o); }
};

/// A whole program: the machine, the DRAM buffers and the instructions.
struct Program {
  std::string name;
  MachineConfig config;
  std::vector<Buffer> buffers;
  std::vector<Instruction> instructions;
};

} // namespace sysarray

#endif // ACCEL_SYSTOLIC_ISA_H
