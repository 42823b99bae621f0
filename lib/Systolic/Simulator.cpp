//===- Simulator.cpp - cycle-level simulator of the systolic array --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One pass over the instructions in program order does both jobs: it executes
// each instruction on the SRAM/DRAM state (the functional model, exact) and
// schedules it on the machine's units (the timing model). The schedule only
// depends on the order and the read/write sets, so the functional result is
// the program-order one whatever the timing says.
//
// This file is compiled with -ffp-contract=off (see CMakeLists.txt): every f32
// product and sum is rounded separately, as the documented semantics say.
//
//===----------------------------------------------------------------------===//

#include "accel/Systolic/Simulator.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace sysarray;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Number conversions
//===----------------------------------------------------------------------===//

uint16_t sysarray::floatToBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    // Keep the sign and the top of the payload, force the quiet bit so the
    // truncated payload cannot become an infinity.
    return uint16_t((bits >> 16) | 0x0040u);
  // Round to nearest even: add 0x7FFF plus the lowest kept bit, truncate.
  // Overflow past the largest finite bf16 correctly carries into infinity.
  uint32_t lsb = (bits >> 16) & 1u;
  return uint16_t((bits + 0x7FFFu + lsb) >> 16);
}

float sysarray::bf16ToFloat(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

const char *sysarray::timingModeName(TimingMode mode) {
  switch (mode) {
  case TimingMode::Default:
    return "default";
  case TimingMode::ScaleSim:
    return "scalesim";
  }
  return "?";
}

namespace {

/// Largest SRAM (in elements) the simulator allocates; a bigger machine is
/// reported as an error instead of exhausting the host's memory.
constexpr uint64_t kMaxSramElements = uint64_t(1) << 28;
constexpr uint32_t kMaxArrayDim = 4096;

const char *spaceName(Space s) { return s == Space::Spad ? "spad" : "acc"; }

uint64_t satSub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/// ceil(bytes / bytesPerCycle); the small slack keeps a quotient that is an
/// integer in exact arithmetic (256 / 12.8) from rounding up.
uint64_t transferCycles(uint64_t bytes, double bytesPerCycle) {
  if (bytes == 0)
    return 0;
  double q = double(bytes) / bytesPerCycle;
  uint64_t c = uint64_t(std::ceil(q - 1e-9));
  return std::max<uint64_t>(c, 1);
}

/// NaN if either operand is NaN, else the larger (b when they compare
/// equal): the NaN-propagating maximum (torch.maximum), so a NaN input
/// reaches the output as the fp64 reference says it should.
float maxProp(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  return a > b ? a : b;
}

struct Interval {
  uint64_t begin, end;
};

/// Length of the union of `v` (sorted in place).
uint64_t unionLength(std::vector<Interval> &v) {
  std::sort(v.begin(), v.end(), [](const Interval &a, const Interval &b) {
    return a.begin < b.begin;
  });
  uint64_t total = 0, curB = 0, curE = 0;
  bool have = false;
  for (const Interval &i : v) {
    if (i.end <= i.begin)
      continue;
    if (!have || i.begin > curE) {
      if (have)
        total += curE - curB;
      curB = i.begin;
      curE = i.end;
      have = true;
    } else {
      curE = std::max(curE, i.end);
    }
  }
  if (have)
    total += curE - curB;
  return total;
}

/// A fold: one set of weights (WS) or one preload's partial sums (OS), for
/// the mapping-efficiency / compute-utilisation statistics and the SCALE-Sim
/// cycle count.
struct Fold {
  bool open = false;
  bool ws = true;
  uint64_t macUsed = 0; // PEs holding a weight (WS) or an output (OS)
  uint64_t t = 0;       // rows streamed (WS) / sum of k (OS)
  uint64_t computes = 0;
  uint64_t firstStart = 0, lastEnd = 0; // Default timing: span of the fold
};

/// The preload the following computes belong to.
struct PreloadState {
  bool valid = false;
  bool loadsWeights = false; // WS: bRow != kNone
  uint32_t cRow = 0, m = 0, k = 0, n = 0;
  bool accumulate = false;
  uint64_t computes = 0; // computes since this preload
};

class Simulator {
public:
  Simulator(const Program &program, std::vector<std::vector<uint8_t>> &buffers,
            const SimOptions &options)
      : prog(program), cfg(program.config), bufs(buffers), opts(options) {}

  Expected<SimStats> run();

private:
  // Errors.
  Error fail(const Twine &msg) const {
    const Instruction &in = prog.instructions[index];
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("instruction {0} ({1}): ", index, opcodeName(in.op))
                .str() +
            msg.str());
  }
  static Error programError(const Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
  }

  Error checkProgram();
  void allocate();
  Error step(const Instruction &in);
  Error checkSram(Space space, uint32_t row, uint32_t rows, uint32_t cols,
                  const char *what);
  Error checkDram(const Instruction &in);
  Error mvin(const Instruction &in);
  Error mvout(const Instruction &in);
  Error preload(const Instruction &in);
  Error compute(const Instruction &in);
  Error vector(const Instruction &in);
  Error sload(const Instruction &in);
  /// Moves `index` past the skipped instructions when the condition holds.
  Error skip(const Instruction &in);
  Error ssub(const Instruction &in);
  /// mvin's move: the SRAM block of `in` from the DRAM block of `eff` (in,
  /// or its lines cut by a bound register; `nothing`: none read), after
  /// the registers it reads are ready (`regStart`).
  Error moveIn(const Instruction &in, const Instruction &eff,
               bool nothing = false, uint64_t regStart = 0);
  /// A register an instruction reads: checked, and its value.
  Error readReg(uint8_t reg, const char *what);
  void config(const Instruction &in);
  void fence();
  void finish();

  // Functional helpers.
  uint8_t *sramBytes(Space s) {
    if (s == Space::Acc)
      return isInt ? reinterpret_cast<uint8_t *>(accI.data())
                   : reinterpret_cast<uint8_t *>(accF.data());
    switch (cfg.inputType) {
    case ElemType::I8:
      return reinterpret_cast<uint8_t *>(spadI8.data());
    case ElemType::BF16:
      return reinterpret_cast<uint8_t *>(spadBF.data());
    default:
      return reinterpret_cast<uint8_t *>(spadF.data());
    }
  }
  uint64_t dramIndex(const Instruction &in, uint64_t r, uint64_t c) const {
    return in.transpose ? in.offset + c * in.stride + r
                        : in.offset + r * in.stride + c;
  }
  void gatherInt(uint32_t row, uint32_t rows, uint32_t cols, int32_t *out);
  void gatherFloat(uint32_t row, uint32_t rows, uint32_t cols, float *out);
  void flushOS(uint64_t start);
  /// OS: shifts partial sums out (flushing them when a fold is pending) for
  /// `kRows` cycles; returns the start cycle.
  uint64_t osShift(uint64_t lowerBound);

  // Timing helpers.
  static uint64_t maxRange(const std::vector<uint64_t> &v, uint32_t row,
                           uint32_t rows) {
    uint64_t m = 0;
    for (uint32_t i = 0; i < rows; ++i)
      m = std::max(m, v[size_t(row) + i]);
    return m;
  }
  static void setRange(std::vector<uint64_t> &v, uint32_t row, uint32_t rows,
                       uint64_t t) {
    for (uint32_t i = 0; i < rows; ++i)
      v[size_t(row) + i] = std::max(v[size_t(row) + i], t);
  }
  std::vector<uint64_t> &lastW(Space s) {
    return s == Space::Spad ? spadW : accW;
  }
  std::vector<uint64_t> &lastR(Space s) {
    return s == Space::Spad ? spadR : accR;
  }
  /// Latest write or read of the rows: what a new write must come after.
  uint64_t writeHazard(Space s, uint32_t row, uint32_t rows) {
    return std::max(maxRange(lastW(s), row, rows),
                    maxRange(lastR(s), row, rows));
  }
  void done(uint64_t t) { endTime = std::max(endTime, t); }
  void array(uint64_t b, uint64_t e) { arrayBusy.push_back({b, e}); }
  void closeFold();
  void openFold(bool ws, uint64_t macUsed);

  const Program &prog;
  const MachineConfig &cfg;
  std::vector<std::vector<uint8_t>> &bufs;
  SimOptions opts;
  SimStats st;
  size_t index = 0;

  // Machine shape.
  uint32_t R = 0, C = 0, spadW_ = 0;
  bool isInt = true;
  uint64_t fillLatency = 0; // R + C - 1

  // Functional state.
  std::vector<int8_t> spadI8;
  std::vector<uint16_t> spadBF;
  std::vector<float> spadF;
  std::vector<int32_t> accI;
  std::vector<float> accF;
  bool configured = false;
  Dataflow dataflow = Dataflow::WS;
  PreloadState pre;
  bool weightsValid = false;
  uint32_t wK = 0, wN = 0;
  std::vector<int32_t> wI; // R x C weights (WS), row stride C
  std::vector<float> wF;
  std::vector<uint32_t> psI; // OS partial sums, m x n
  std::vector<float> psF;
  // Scratch, reused to avoid per-instruction allocation.
  std::vector<int32_t> tmpAI, tmpBI;
  std::vector<float> tmpAF, tmpBF, vecOut;
  std::vector<uint32_t> rowI;
  std::vector<float> rowF;

  // Timing state (cycles). Every instruction starts at or after `barrier`
  // (the last fence).
  uint64_t barrier = 0, endTime = 0;
  uint64_t execLast = 0;   // start of the latest array instruction
  uint64_t vecLast = 0;    // start of the latest vector instruction
  uint64_t arrayFree = 0;  // array input free (streaming / shifting)
  uint64_t weightFree = 0; // WS weight-load path free
  uint64_t weightsReady = 0;
  uint64_t vecFree = 0;
  uint64_t loadFree = 0, storeFree = 0;           // DMA read / write channels
  std::vector<uint64_t> spadW, spadR, accW, accR; // per SRAM row
  std::vector<uint64_t> bufW, bufR;               // per DRAM buffer
  std::vector<Interval> arrayBusy, dmaBusy;
  // Scalar registers: values, when each is written (its sload landed) and
  // the latest start of an instruction that read it (a new sload waits
  // for it).
  int64_t regs[kScalarRegs] = {};
  uint64_t regReady[kScalarRegs] = {}, regRead[kScalarRegs] = {};

  Fold fold;
  double mapSum = 0, utilSum = 0, ssUtilSum = 0;
  uint64_t ssCycles = 0;
};

Error Simulator::checkProgram() {
  if (cfg.rows == 0 || cfg.cols == 0 || cfg.rows > kMaxArrayDim ||
      cfg.cols > kMaxArrayDim)
    return programError(llvm::formatv("machine: a {0}x{1} array is not "
                                      "simulated (each side 1..{2})",
                                      cfg.rows, cfg.cols, kMaxArrayDim)
                            .str());
  if (uint8_t(cfg.inputType) > 3 || uint8_t(cfg.accType) > 3)
    return programError("machine: unknown element type");
  bool intIn = cfg.inputType == ElemType::I8;
  bool floatIn =
      cfg.inputType == ElemType::BF16 || cfg.inputType == ElemType::F32;
  if (!(intIn && cfg.accType == ElemType::I32) &&
      !(floatIn && cfg.accType == ElemType::F32))
    return programError(Twine("machine: inputs of ") +
                        elemTypeName(cfg.inputType) + " cannot accumulate in " +
                        elemTypeName(cfg.accType) +
                        " (i8 accumulates in i32, bf16 and f32 in f32)");
  if (cfg.spadRows == 0 || cfg.accRows == 0)
    return programError("machine: the scratchpad and the accumulator need "
                        "at least one row");
  if (uint64_t(cfg.spadRows) * cfg.spadWidth() > kMaxSramElements ||
      uint64_t(cfg.accRows) * cfg.accWidth() > kMaxSramElements)
    return programError(
        llvm::formatv("machine: SRAMs of {0}x{1} (spad) and {2}x{3} (acc) "
                      "elements exceed the simulator's limit of {4}",
                      cfg.spadRows, cfg.spadWidth(), cfg.accRows,
                      cfg.accWidth(), kMaxSramElements)
            .str());
  if (!(cfg.dramBytesPerCycle > 0) || !std::isfinite(cfg.dramBytesPerCycle))
    return programError(llvm::formatv("machine: dramBytesPerCycle must be a "
                                      "positive number, not {0}",
                                      cfg.dramBytesPerCycle)
                            .str());
  if (cfg.vectorLanes == 0)
    return programError("machine: vectorLanes must be at least 1");
  if (bufs.size() != prog.buffers.size())
    return programError(
        llvm::formatv("program '{0}' has {1} buffers but {2} were given",
                      prog.name, prog.buffers.size(), bufs.size())
            .str());
  for (size_t i = 0; i < prog.buffers.size(); ++i) {
    const Buffer &b = prog.buffers[i];
    if (uint8_t(b.type) > 3)
      return programError(
          llvm::formatv("buffer {0} '{1}' has an unknown element type", i,
                        b.name)
              .str());
    for (int64_t d : b.shape)
      if (d < 0)
        return programError(
            llvm::formatv("buffer {0} '{1}' has a negative dimension", i,
                          b.name)
                .str());
    if (bufs[i].size() != b.sizeBytes())
      return programError(
          llvm::formatv("buffer {0} '{1}' holds {2} bytes, expected {3} "
                        "({4} elements of {5})",
                        i, b.name, bufs[i].size(), b.sizeBytes(),
                        b.numElements(), elemTypeName(b.type))
              .str());
  }
  return Error::success();
}

void Simulator::allocate() {
  R = cfg.rows;
  C = cfg.cols;
  spadW_ = cfg.spadWidth();
  isInt = cfg.inputType == ElemType::I8;
  fillLatency = uint64_t(R) + C - 1;
  size_t spadElems = size_t(cfg.spadRows) * spadW_;
  size_t accElems = size_t(cfg.accRows) * C;
  switch (cfg.inputType) {
  case ElemType::I8:
    spadI8.assign(spadElems, 0);
    break;
  case ElemType::BF16:
    spadBF.assign(spadElems, 0);
    break;
  default:
    spadF.assign(spadElems, 0.0f);
    break;
  }
  if (isInt) {
    accI.assign(accElems, 0);
    wI.assign(size_t(R) * C, 0);
  } else {
    accF.assign(accElems, 0.0f);
    wF.assign(size_t(R) * C, 0.0f);
  }
  spadW.assign(cfg.spadRows, 0);
  spadR.assign(cfg.spadRows, 0);
  accW.assign(cfg.accRows, 0);
  accR.assign(cfg.accRows, 0);
  bufW.assign(bufs.size(), 0);
  bufR.assign(bufs.size(), 0);
}

Expected<SimStats> Simulator::run() {
  if (Error e = checkProgram())
    return std::move(e);
  allocate();
  for (index = 0; index < prog.instructions.size(); ++index)
    if (Error e = step(prog.instructions[index]))
      return std::move(e);
  finish();
  return st;
}

Error Simulator::step(const Instruction &in) {
  ++st.instructions;
  switch (in.op) {
  case Opcode::Config:
    if (uint8_t(in.dataflow) > 1)
      return fail(
          llvm::formatv("unknown dataflow {0}", unsigned(in.dataflow)).str());
    config(in);
    return Error::success();
  case Opcode::Mvin:
    return mvin(in);
  case Opcode::Mvout:
    return mvout(in);
  case Opcode::Preload:
    return preload(in);
  case Opcode::Compute:
    return compute(in);
  case Opcode::Vector:
    return vector(in);
  case Opcode::Fence:
    fence();
    return Error::success();
  case Opcode::Sload:
    return sload(in);
  case Opcode::Skip:
    return skip(in);
  case Opcode::Ssub:
    return ssub(in);
  }
  return fail(llvm::formatv("unknown opcode {0}", unsigned(in.op)).str());
}

//===----------------------------------------------------------------------===//
// Operand checks
//===----------------------------------------------------------------------===//

Error Simulator::checkSram(Space space, uint32_t row, uint32_t rows,
                           uint32_t cols, const char *what) {
  if (uint8_t(space) > 1)
    return fail(llvm::formatv("unknown SRAM space {0}", unsigned(space)).str());
  if (rows == 0 || cols == 0)
    return fail(llvm::formatv("{0} block of {1}x{2} elements is empty", what,
                              rows, cols)
                    .str());
  uint32_t width = space == Space::Spad ? spadW_ : C;
  uint32_t total = space == Space::Spad ? cfg.spadRows : cfg.accRows;
  if (cols > width)
    return fail(llvm::formatv("{0} block of {1} columns is wider than the {2} "
                              "({3} columns)",
                              what, cols, spaceName(space), width)
                    .str());
  if (uint64_t(row) + rows > total)
    return fail(llvm::formatv("{0} rows {1}..{2} are outside the {3} ({4} "
                              "rows)",
                              what, row, uint64_t(row) + rows - 1,
                              spaceName(space), total)
                    .str());
  return Error::success();
}

Error Simulator::checkDram(const Instruction &in) {
  const Buffer &b = prog.buffers[in.buffer];
  // (An mvin's unpacked 4-bit elements: two a byte, counted in nibbles.)
  uint64_t elems = bufs[in.buffer].size() / elemBytes(b.type) *
                   (in.op == Opcode::Mvin ? unpackPerByte(in.unpack) : 1);
  uint64_t outer = in.transpose ? in.cols : in.rows;
  uint64_t inner = in.transpose ? in.rows : in.cols;
  uint64_t prod = 0, last = 0;
  bool overflow =
      __builtin_mul_overflow(outer - 1, uint64_t(in.stride), &prod) ||
      __builtin_add_overflow(in.offset, prod, &last) ||
      __builtin_add_overflow(last, inner - 1, &last);
  if (overflow)
    return fail(llvm::formatv("DRAM block of buffer {0} '{1}' (offset {2}, "
                              "stride {3}) overflows 64-bit addressing",
                              in.buffer, b.name, in.offset, in.stride)
                    .str());
  if (last >= elems)
    return fail(llvm::formatv("DRAM block reaches element {0} of buffer {1} "
                              "'{2}', which has {3} elements (offset {4}, "
                              "stride {5}, {6}x{7}{8})",
                              last, in.buffer, b.name, elems, in.offset,
                              in.stride, in.rows, in.cols,
                              in.transpose ? ", transposed" : "")
                    .str());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

Error Simulator::mvin(const Instruction &in) {
  if (in.buffer >= bufs.size())
    return fail(llvm::formatv("buffer {0} does not exist (the program has "
                              "{1})",
                              in.buffer, bufs.size())
                    .str());
  if (Error e = checkSram(in.space, in.row, in.rows, in.cols, "destination"))
    return e;
  const Buffer &b = prog.buffers[in.buffer];
  ElemType sramType = in.space == Space::Spad ? cfg.inputType : cfg.accType;
  if (uint8_t(in.unpack) > uint8_t(kLastUnpack))
    return fail(
        llvm::formatv("unknown unpack mode {0}", unsigned(in.unpack)).str());
  const bool unpack = in.unpack != Unpack::None;
  if (unpack && (b.type != ElemType::I8 ||
                 (sramType != ElemType::BF16 && sramType != ElemType::F32)))
    return fail(llvm::formatv("cannot unpack ({0}) {1} buffer {2} '{3}' into "
                              "the {4} of {5}: unpacking reads i8 buffers "
                              "into bf16 or f32 SRAMs",
                              unpackName(in.unpack), elemTypeName(b.type),
                              in.buffer, b.name, spaceName(in.space),
                              elemTypeName(sramType))
                    .str());
  bool widen = in.space == Space::Acc && sramType == ElemType::F32 &&
               b.type == ElemType::BF16;
  if (b.type != sramType && !widen && !unpack)
    return fail(llvm::formatv("cannot move {0} buffer {1} '{2}' into the {3} "
                              "of {4}",
                              elemTypeName(b.type), in.buffer, b.name,
                              spaceName(in.space), elemTypeName(sramType))
                    .str());
  if (in.pageReg == kNoReg && in.boundReg == kNoReg)
    return moveIn(in, in);
  // Registers: the page moves the block, the bound cuts its lines. `eff` is
  // the block the DMA reads (its lines cut), `in` the SRAM block it fills.
  Instruction eff = in;
  uint64_t regStart = 0;
  const uint32_t lines = in.transpose ? in.cols : in.rows;
  uint32_t valid = lines;
  if (in.boundReg != kNoReg) {
    if (Error e = readReg(in.boundReg, "bound"))
      return e;
    int64_t left = 0;
    if (__builtin_sub_overflow(regs[in.boundReg], in.boundBase, &left))
      left = regs[in.boundReg] < 0 ? 0 : int64_t(lines);
    valid = uint32_t(std::clamp<int64_t>(left, 0, lines));
    regStart = std::max(regStart, regReady[in.boundReg]);
  }
  if (in.pageReg != kNoReg) {
    if (Error e = readReg(in.pageReg, "page"))
      return e;
    regStart = std::max(regStart, regReady[in.pageReg]);
    int64_t page = regs[in.pageReg];
    uint64_t base = 0;
    if (valid > 0 &&
        (page < 0 ||
         __builtin_mul_overflow(uint64_t(page), in.pageStride, &base) ||
         __builtin_add_overflow(in.offset, base, &eff.offset)))
      return fail(llvm::formatv("page register r{0} holds {1}: page {1} of "
                                "{2} elements is outside buffer {3} '{4}'",
                                unsigned(in.pageReg), page, in.pageStride,
                                in.buffer, b.name)
                      .str());
  }
  (in.transpose ? eff.cols : eff.rows) = valid;
  // A page outside the buffer: the table's entry, named.
  if (in.pageReg != kNoReg && valid > 0)
    if (Error err = checkDram(eff)) {
      llvm::consumeError(std::move(err));
      uint64_t elems =
          bufs[in.buffer].size() / elemBytes(b.type) * unpackPerByte(in.unpack);
      return fail(llvm::formatv("page register r{0} holds {1}: page {1} of "
                                "{2} elements is outside buffer {3} '{4}' "
                                "({5} elements)",
                                unsigned(in.pageReg), regs[in.pageReg],
                                in.pageStride, in.buffer, b.name, elems)
                      .str());
    }
  return moveIn(in, eff, valid == 0, regStart);
}

Error Simulator::readReg(uint8_t reg, const char *what) {
  if (reg >= kScalarRegs)
    return fail(llvm::formatv("{0} register r{1} does not exist (the machine "
                              "has r0..r{2})",
                              what, unsigned(reg), kScalarRegs - 1)
                    .str());
  return Error::success();
}

Error Simulator::moveIn(const Instruction &in, const Instruction &eff,
                        bool nothing, uint64_t regStart) {
  const Buffer &b = prog.buffers[in.buffer];
  ElemType sramType = in.space == Space::Spad ? cfg.inputType : cfg.accType;
  const bool unpack = in.unpack != Unpack::None;
  bool widen = in.space == Space::Acc && sramType == ElemType::F32 &&
               b.type == ElemType::BF16;
  if (!nothing)
    if (Error e = checkDram(eff))
      return e;

  // Functional.
  const uint8_t *dram = bufs[in.buffer].data();
  uint32_t width = in.space == Space::Spad ? spadW_ : C;
  unsigned dBytes = elemBytes(b.type), sBytes = elemBytes(sramType);
  uint8_t *sram = sramBytes(in.space);
  // The value at unpacked element `i` of the buffer: an integer, or a
  // boolean's additive mask value.
  auto valueAt = [&](uint64_t i) -> float {
    switch (in.unpack) {
    case Unpack::Mask:
      return dram[i] ? 0.0f : -std::numeric_limits<float>::infinity();
    case Unpack::S8:
      return int8_t(dram[i]);
    case Unpack::U8:
      return dram[i];
    case Unpack::S4:
    case Unpack::U4: {
      int32_t v = (dram[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
      return in.unpack == Unpack::S4 && v >= 8 ? v - 16 : v;
    }
    case Unpack::None:
      break;
    }
    return 0;
  };
  // The SRAM block is in's; the DMA reads eff's (the same, or its lines
  // cut by a bound register: the others are zeros).
  const uint32_t readRows = nothing ? 0 : eff.rows,
                 readCols = nothing ? 0 : eff.cols;
  for (uint32_t r = 0; r < in.rows; ++r) {
    size_t sBase = (size_t(in.row) + r) * width;
    if (r >= readRows || readCols < in.cols) {
      // Zeros past the bound (all of the row, or its columns past it).
      uint32_t from = r >= readRows ? 0 : readCols;
      std::memset(sram + (sBase + from) * sBytes, 0,
                  size_t(in.cols - from) * sBytes);
      if (r >= readRows)
        continue;
    }
    if (unpack) {
      // Integers of at most 8 bits, 0 and -inf: exact in bf16 and f32.
      for (uint32_t c = 0; c < readCols; ++c) {
        float v = valueAt(dramIndex(eff, r, c));
        if (sramType == ElemType::F32) {
          std::memcpy(sram + (sBase + c) * 4, &v, 4);
        } else {
          uint16_t h = floatToBF16(v);
          std::memcpy(sram + (sBase + c) * 2, &h, 2);
        }
      }
    } else if (widen) {
      for (uint32_t c = 0; c < readCols; ++c) {
        uint16_t v;
        std::memcpy(&v, dram + dramIndex(eff, r, c) * 2, 2);
        accF[sBase + c] = bf16ToFloat(v);
      }
    } else if (!in.transpose) {
      std::memcpy(sram + sBase * sBytes, dram + dramIndex(eff, r, 0) * dBytes,
                  size_t(readCols) * sBytes);
    } else {
      for (uint32_t c = 0; c < readCols; ++c)
        std::memcpy(sram + (sBase + c) * sBytes,
                    dram + dramIndex(eff, r, c) * dBytes, sBytes);
    }
  }
  uint64_t n = uint64_t(readRows) * readCols;
  // 4-bit elements: the bytes that hold them (a row's odd first or last
  // nibble takes its whole byte).
  uint64_t bytes = n * dBytes;
  if (unpackPerByte(in.unpack) == 2 && n > 0) {
    const uint64_t outer = in.transpose ? readCols : readRows,
                   inner = in.transpose ? readRows : readCols;
    bytes = 0;
    for (uint64_t o = 0; o < outer; ++o)
      bytes += ((eff.offset + o * eff.stride) % 2 + inner + 1) / 2;
  }
  st.dramReadBytes += bytes;
  (in.space == Space::Spad ? st.spadWriteBytes : st.accWriteBytes) +=
      uint64_t(in.rows) * in.cols * sBytes;

  // Timing: the load queue issues in order, each request when the earlier
  // readers and writers of its destination rows and the earlier writers of
  // its buffer are done (Gemmini's reservation station); the channel takes
  // ceil(bytes / bandwidth) cycles per request and the data lands
  // dramLatency later, so back-to-back requests overlap their latency.
  // With registers it also waits for them (their sloads landed); a block
  // the bound leaves empty reads nothing: its zeros land a cycle later.
  uint64_t tr = transferCycles(bytes, cfg.dramBytesPerCycle);
  uint64_t lat = nothing ? 1 : cfg.dramLatency;
  uint64_t s = std::max({barrier, loadFree, bufW[in.buffer], regStart,
                         writeHazard(in.space, in.row, in.rows)});
  uint64_t landed = s + lat + tr;
  loadFree = s + tr;
  for (uint8_t reg : {in.pageReg, in.boundReg})
    if (reg != kNoReg)
      regRead[reg] = std::max(regRead[reg], s);
  bufR[in.buffer] = std::max(bufR[in.buffer], landed);
  setRange(lastW(in.space), in.row, in.rows, landed);
  dmaBusy.push_back({s, landed});
  done(landed);
  return Error::success();
}

Error Simulator::ssub(const Instruction &in) {
  const bool zeroA = in.regA == kNoReg;
  for (auto [reg, what] :
       {std::pair{in.reg, "destination"},
        std::pair{zeroA ? uint8_t(0) : in.regA, "first source"},
        std::pair{in.regB, "second source"}})
    if (Error e = readReg(reg, what))
      return e;
  const int64_t a = zeroA ? 0 : regs[in.regA];
  int64_t v;
  if (__builtin_sub_overflow(a, regs[in.regB], &v))
    return fail(
        llvm::formatv("{0} - r{1} ({2} - {3}) overflows",
                      zeroA ? std::string("0") : "r" + std::to_string(in.regA),
                      unsigned(in.regB), a, regs[in.regB])
            .str());
  regs[in.reg] = v;
  // Timing: one cycle of the scalar unit once the sources are loaded and
  // the destination's earlier readers have started.
  uint64_t s = std::max({barrier, zeroA ? 0 : regReady[in.regA],
                         regReady[in.regB], regRead[in.reg], regReady[in.reg]});
  if (!zeroA)
    regRead[in.regA] = std::max(regRead[in.regA], s);
  regRead[in.regB] = std::max(regRead[in.regB], s);
  regReady[in.reg] = s + 1;
  done(s + 1);
  return Error::success();
}

Error Simulator::skip(const Instruction &in) {
  if (Error e = readReg(in.reg, "condition"))
    return e;
  const uint64_t after = prog.instructions.size() - index - 1;
  if (in.count == 0 || in.count > after)
    return fail(
        llvm::formatv("skips {0} instructions; {1} follow it", in.count, after)
            .str());
  // The host decides once the register is loaded: nothing after the skip
  // issues before that.
  barrier = std::max(barrier, regReady[in.reg]);
  regRead[in.reg] = std::max(regRead[in.reg], barrier);
  if (regs[in.reg] <= in.iimm) {
    index += in.count;
    st.skippedInstructions += in.count;
  }
  return Error::success();
}

Error Simulator::sload(const Instruction &in) {
  if (Error e = readReg(in.reg, "destination"))
    return e;
  if (in.buffer >= bufs.size())
    return fail(llvm::formatv("buffer {0} does not exist (the program has "
                              "{1})",
                              in.buffer, bufs.size())
                    .str());
  const Buffer &b = prog.buffers[in.buffer];
  if (b.type != ElemType::I32)
    return fail(llvm::formatv("loads i32 elements; buffer {0} '{1}' holds "
                              "{2}",
                              in.buffer, b.name, elemTypeName(b.type))
                    .str());
  uint64_t elems = bufs[in.buffer].size() / 4;
  if (in.offset >= elems)
    return fail(llvm::formatv("element {0} is outside buffer {1} '{2}' ({3} "
                              "elements)",
                              in.offset, in.buffer, b.name, elems)
                    .str());
  if (in.lo > in.hi)
    return fail(
        llvm::formatv("the range [{0}, {1}] is empty", in.lo, in.hi).str());
  int32_t v;
  std::memcpy(&v, bufs[in.buffer].data() + in.offset * 4, 4);
  if (v < in.lo || v > in.hi)
    return fail(llvm::formatv("element {0} of buffer {1} '{2}' is {3}, "
                              "outside [{4}, {5}]",
                              in.offset, in.buffer, b.name, v, in.lo, in.hi)
                    .str());
  regs[in.reg] = v;
  st.dramReadBytes += 4;
  // Timing: a 4-byte request of the load queue, after the buffer's writers
  // and the register's earlier readers and writer.
  uint64_t tr = transferCycles(4, cfg.dramBytesPerCycle);
  uint64_t s = std::max(
      {barrier, loadFree, bufW[in.buffer], regRead[in.reg], regReady[in.reg]});
  uint64_t landed = s + cfg.dramLatency + tr;
  loadFree = s + tr;
  bufR[in.buffer] = std::max(bufR[in.buffer], landed);
  regReady[in.reg] = landed;
  dmaBusy.push_back({s, landed});
  done(landed);
  return Error::success();
}

Error Simulator::mvout(const Instruction &in) {
  if (in.pageReg != kNoReg || in.boundReg != kNoReg)
    return fail("page and bound registers apply to mvin only");
  if (in.buffer >= bufs.size())
    return fail(llvm::formatv("buffer {0} does not exist (the program has "
                              "{1})",
                              in.buffer, bufs.size())
                    .str());
  if (Error e = checkSram(in.space, in.row, in.rows, in.cols, "source"))
    return e;
  if (in.unpack != Unpack::None)
    return fail("mvout does not unpack: its unpack mode must be none");
  const Buffer &b = prog.buffers[in.buffer];
  ElemType sramType = in.space == Space::Spad ? cfg.inputType : cfg.accType;
  bool ok = b.type == sramType;
  if (in.space == Space::Acc && sramType == ElemType::I32)
    ok |= b.type == ElemType::I8;
  if (in.space == Space::Acc && sramType == ElemType::F32)
    ok |= b.type == ElemType::BF16;
  if (!ok)
    return fail(llvm::formatv("cannot move the {0} of {1} out to {2} buffer "
                              "{3} '{4}'",
                              spaceName(in.space), elemTypeName(sramType),
                              elemTypeName(b.type), in.buffer, b.name)
                    .str());
  if (Error e = checkDram(in))
    return e;

  // Functional.
  uint8_t *dram = bufs[in.buffer].data();
  uint32_t width = in.space == Space::Spad ? spadW_ : C;
  unsigned dBytes = elemBytes(b.type), sBytes = elemBytes(sramType);
  const uint8_t *sram = sramBytes(in.space);
  bool sameType = b.type == sramType;
  for (uint32_t r = 0; r < in.rows; ++r) {
    size_t sBase = (size_t(in.row) + r) * width;
    if (sameType && !in.transpose) {
      std::memcpy(dram + dramIndex(in, r, 0) * dBytes, sram + sBase * sBytes,
                  size_t(in.cols) * sBytes);
      continue;
    }
    for (uint32_t c = 0; c < in.cols; ++c) {
      uint8_t *dst = dram + dramIndex(in, r, c) * dBytes;
      if (sameType) {
        std::memcpy(dst, sram + (sBase + c) * sBytes, sBytes);
      } else if (b.type == ElemType::I8) {
        int32_t v = accI[sBase + c];
        int8_t q = int8_t(std::clamp<int32_t>(v, -128, 127));
        std::memcpy(dst, &q, 1);
      } else { // f32 -> bf16
        uint16_t q = floatToBF16(accF[sBase + c]);
        std::memcpy(dst, &q, 2);
      }
    }
  }
  uint64_t n = uint64_t(in.rows) * in.cols;
  uint64_t bytes = n * dBytes;
  st.dramWriteBytes += bytes;
  (in.space == Space::Spad ? st.spadReadBytes : st.accReadBytes) += n * sBytes;

  // Timing: the store queue has its own write channel (AXI-like full
  // duplex) and issues in order once the source rows are written and the
  // earlier loads from this buffer are done (stores to one buffer are
  // ordered by the queue). The SRAM rows are read while the request is
  // transferred, the DRAM is written dramLatency later.
  uint64_t tr = transferCycles(bytes, cfg.dramBytesPerCycle);
  uint64_t lat = cfg.dramLatency;
  uint64_t s = std::max({barrier, storeFree, bufR[in.buffer],
                         maxRange(lastW(in.space), in.row, in.rows)});
  uint64_t landed = s + lat + tr;
  storeFree = s + tr;
  setRange(lastR(in.space), in.row, in.rows, s + tr);
  bufW[in.buffer] = std::max(bufW[in.buffer], landed);
  dmaBusy.push_back({s, landed});
  done(landed);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Execute unit: config, preload, compute
//===----------------------------------------------------------------------===//

void Simulator::gatherInt(uint32_t row, uint32_t rows, uint32_t cols,
                          int32_t *out) {
  for (uint32_t r = 0; r < rows; ++r) {
    const int8_t *src = spadI8.data() + (size_t(row) + r) * spadW_;
    for (uint32_t c = 0; c < cols; ++c)
      out[size_t(r) * cols + c] = src[c];
  }
}

void Simulator::gatherFloat(uint32_t row, uint32_t rows, uint32_t cols,
                            float *out) {
  for (uint32_t r = 0; r < rows; ++r) {
    size_t base = (size_t(row) + r) * spadW_;
    if (cfg.inputType == ElemType::BF16) {
      for (uint32_t c = 0; c < cols; ++c)
        out[size_t(r) * cols + c] = bf16ToFloat(spadBF[base + c]);
    } else {
      std::memcpy(out + size_t(r) * cols, spadF.data() + base,
                  size_t(cols) * 4);
    }
  }
}

void Simulator::openFold(bool ws, uint64_t macUsed) {
  closeFold();
  fold = Fold();
  fold.open = true;
  fold.ws = ws;
  fold.macUsed = macUsed;
}

void Simulator::closeFold() {
  if (!fold.open)
    return;
  fold.open = false;
  if (fold.computes == 0)
    return;
  ++st.folds;
  double pes = double(R) * C;
  mapSum += double(fold.macUsed) / pes;
  uint64_t T = fold.t;
  // SCALE-Sim v2: WS (and IS) folds last 2R + T + C - 2 cycles, OS folds
  // T + R + C - 2. Its per-fold compute utilisation divides by the cycle
  // count of its filter (WS) or output (OS) demand matrix, which for WS is
  // C - 1 longer than the fold (2R + 2C + T - 3); see the doc.
  uint64_t ssFold = fold.ws ? 2ull * R + T + C - 2 : T + R + C - 2;
  uint64_t ssUtilCycles = fold.ws ? 2ull * R + 2ull * C + T - 3 : ssFold;
  ssCycles += ssFold;
  ssUtilSum += double(fold.macUsed) * double(T) / (pes * double(ssUtilCycles));
  uint64_t span = std::max<uint64_t>(fold.lastEnd - fold.firstStart, 1);
  utilSum += double(fold.macUsed) * double(T) / (pes * double(span));
}

/// Functional OS flush of the pending partial sums into the preload's
/// target.
void Simulator::flushOS(uint64_t start) {
  uint32_t m = pre.m, n = pre.n;
  for (uint32_t i = 0; i < m; ++i) {
    size_t base = (size_t(pre.cRow) + i) * C;
    if (isInt) {
      for (uint32_t j = 0; j < n; ++j) {
        uint32_t v = psI[size_t(i) * n + j];
        if (pre.accumulate)
          v += uint32_t(accI[base + j]);
        accI[base + j] = int32_t(v);
      }
    } else {
      for (uint32_t j = 0; j < n; ++j) {
        float v = psF[size_t(i) * n + j];
        accF[base + j] = pre.accumulate ? accF[base + j] + v : v;
      }
    }
  }
  uint64_t bytes = uint64_t(m) * n * elemBytes(cfg.accType);
  st.accWriteBytes += bytes;
  if (pre.accumulate)
    st.accReadBytes += bytes;
  // Timing: R cycles to shift the sums out, R + C - 1 to reach the
  // accumulator.
  uint64_t landed = start + R + fillLatency;
  setRange(accW, pre.cRow, m, landed);
  array(start, landed);
  fold.lastEnd = landed;
  done(landed);
  closeFold();
  pre.computes = 0;
}

uint64_t Simulator::osShift(uint64_t lowerBound) {
  bool pending = dataflow == Dataflow::OS && pre.valid && pre.computes > 0;
  uint64_t s = std::max({lowerBound, barrier, execLast, arrayFree});
  if (pending) {
    // The flush's first results reach the accumulator R + C - 1 after the
    // shift starts; earlier readers/writers of the target must be done.
    s = std::max(s,
                 satSub(writeHazard(Space::Acc, pre.cRow, pre.m), fillLatency));
    flushOS(s);
  }
  arrayFree = s + R;
  array(s, s + R);
  done(s + R);
  execLast = s;
  return s;
}

void Simulator::config(const Instruction &in) {
  if (configured && dataflow == Dataflow::OS && pre.valid && pre.computes > 0)
    osShift(0);
  closeFold();
  uint64_t s = std::max(barrier, execLast);
  execLast = s;
  configured = true;
  dataflow = in.dataflow;
  pre = PreloadState();
  weightsValid = false;
}

void Simulator::fence() {
  if (configured && dataflow == Dataflow::OS && pre.valid && pre.computes > 0) {
    osShift(0);
    // The partial sums are gone; a compute needs a new preload.
    pre.valid = false;
  }
  barrier = endTime;
  execLast = std::max(execLast, barrier);
  vecLast = std::max(vecLast, barrier);
}

void Simulator::finish() {
  if (configured && dataflow == Dataflow::OS && pre.valid && pre.computes > 0)
    osShift(0);
  closeFold();
  uint64_t pes = uint64_t(R) * C;
  if (opts.mode == TimingMode::ScaleSim) {
    st.cycles = ssCycles > 0 ? ssCycles - 1 : 0;
    st.computeCycles = st.cycles;
    st.stallCycles = 0;
    st.bankConflictCycles = 0;
    st.dmaBusyCycles = 0;
    st.computeUtilization = st.folds ? ssUtilSum / double(st.folds) : 0;
  } else {
    st.cycles = endTime;
    st.computeCycles = unionLength(arrayBusy);
    st.stallCycles = satSub(st.cycles, st.computeCycles);
    st.dmaBusyCycles = unionLength(dmaBusy);
    st.computeUtilization = st.folds ? utilSum / double(st.folds) : 0;
  }
  st.mappingEfficiency = st.folds ? mapSum / double(st.folds) : 0;
  st.peUtilization =
      st.cycles ? double(st.macs) / (double(pes) * double(st.cycles)) : 0;
}

Error Simulator::preload(const Instruction &in) {
  if (!configured)
    return fail("preload before any config");
  if (dataflow == Dataflow::WS) {
    bool loads = in.bRow != kNone;
    // k and n describe the weights also when they are kept (bRow = none).
    if (in.k == 0 || in.k > R || in.n == 0 || in.n > C)
      return fail(llvm::formatv("WS weight tile of {0}x{1} does not fit "
                                "the {2}x{3} array",
                                in.k, in.n, R, C)
                      .str());
    if (loads)
      if (Error e = checkSram(Space::Spad, in.bRow, in.k, in.n, "weight"))
        return e;
    if (Error e = checkSram(Space::Acc, in.cRow, in.m, in.n, "target"))
      return e;
    pre = PreloadState();
    pre.valid = true;
    pre.loadsWeights = loads;
    pre.cRow = in.cRow;
    pre.m = in.m;
    pre.k = in.k;
    pre.n = in.n;
    pre.accumulate = in.accumulate;
    uint64_t s = std::max(barrier, execLast);
    if (loads) {
      // Functional: the weights are copied now; a later mvin into these
      // rows does not change them.
      uint32_t k = in.k, n = in.n;
      if (isInt) {
        std::fill(wI.begin(), wI.end(), 0);
        for (uint32_t kk = 0; kk < k; ++kk)
          for (uint32_t j = 0; j < n; ++j)
            wI[size_t(kk) * C + j] =
                spadI8[(size_t(in.bRow) + kk) * spadW_ + j];
      } else {
        std::fill(wF.begin(), wF.end(), 0.0f);
        tmpBF.resize(size_t(k) * n);
        gatherFloat(in.bRow, k, n, tmpBF.data());
        for (uint32_t kk = 0; kk < k; ++kk)
          for (uint32_t j = 0; j < n; ++j)
            wF[size_t(kk) * C + j] = tmpBF[size_t(kk) * n + j];
      }
      weightsValid = true;
      wK = k;
      wN = n;
      st.spadReadBytes += uint64_t(k) * n * elemBytes(cfg.inputType);
      openFold(/*ws=*/true, uint64_t(k) * n);
      // Timing: one weight row per cycle on the weight-load path, into the
      // PEs' shadow weight buffer, so this overlaps the previous compute.
      s = std::max({s, weightFree, maxRange(spadW, in.bRow, k)});
      weightsReady = s + k;
      weightFree = s + k;
      setRange(spadR, in.bRow, k, s + k);
      array(s, s + k);
      done(s + k);
    }
    execLast = s;
    return Error::success();
  }

  // OS.
  if (in.bRow != kNone)
    return fail("an OS preload has no weights: bRow must be none");
  if (in.m == 0 || in.m > R || in.n == 0 || in.n > C)
    return fail(llvm::formatv("OS output tile of {0}x{1} does not fit the "
                              "{2}x{3} array",
                              in.m, in.n, R, C)
                    .str());
  if (Error e = checkSram(Space::Acc, in.cRow, in.m, in.n, "target"))
    return e;
  // Shifting the new (zero) partial sums in shifts the previous fold's out.
  osShift(0);
  pre = PreloadState();
  pre.valid = true;
  pre.cRow = in.cRow;
  pre.m = in.m;
  pre.k = in.k;
  pre.n = in.n;
  pre.accumulate = in.accumulate;
  size_t mn = size_t(in.m) * in.n;
  if (isInt)
    psI.assign(mn, 0);
  else
    psF.assign(mn, 0.0f);
  openFold(/*ws=*/false, uint64_t(in.m) * in.n);
  return Error::success();
}

Error Simulator::compute(const Instruction &in) {
  if (!configured)
    return fail("compute before any config");
  if (!pre.valid)
    return fail("compute without a preceding preload");
  bool ws = dataflow == Dataflow::WS;
  if (in.m != pre.m || in.n != pre.n || (ws && in.k != pre.k))
    return fail(llvm::formatv("compute of m={0} k={1} n={2} does not agree "
                              "with its preload (m={3} k={4} n={5})",
                              in.m, in.k, in.n, pre.m, pre.k, pre.n)
                    .str());
  if (in.k == 0)
    return fail("compute with k = 0");
  if (in.k > spadW_)
    return fail(llvm::formatv("compute with k = {0} exceeds the scratchpad "
                              "width {1}",
                              in.k, spadW_)
                    .str());
  if (Error e = checkSram(Space::Spad, in.aRow, in.m, in.k, "A"))
    return e;
  uint32_t m = in.m, k = in.k, n = in.n;

  if (ws) {
    if (in.bRow != kNone)
      return fail("a WS compute takes its weights from the preload: bRow "
                  "must be none");
    if (!weightsValid)
      return fail("WS compute without preloaded weights");
    if (in.preloaded && !pre.loadsWeights)
      return fail("compute says its weights come from the preceding "
                  "preload, but that preload (bRow = none) loaded none");
    if (!in.preloaded && pre.loadsWeights && pre.computes == 0)
      return fail("compute says its weights are kept from an earlier "
                  "preload, but the preceding preload loaded new ones");
    if (k != wK || n != wN)
      return fail(llvm::formatv("compute of k={0} n={1} does not match the "
                                "{2}x{3} weights in the array",
                                k, n, wK, wN)
                      .str());
    // Functional: out = A . W, each element summed over k in order from 0,
    // then added to (or written over) the target.
    for (uint32_t i = 0; i < m; ++i) {
      size_t accBase = (size_t(pre.cRow) + i) * C;
      if (isInt) {
        const int8_t *a = spadI8.data() + (size_t(in.aRow) + i) * spadW_;
        rowI.assign(n, 0);
        uint32_t *acc = rowI.data();
        for (uint32_t kk = 0; kk < k; ++kk) {
          int32_t av = a[kk];
          const int32_t *w = wI.data() + size_t(kk) * C;
          for (uint32_t j = 0; j < n; ++j)
            acc[j] += uint32_t(av * w[j]);
        }
        int32_t *dst = accI.data() + accBase;
        for (uint32_t j = 0; j < n; ++j)
          dst[j] = int32_t(pre.accumulate ? uint32_t(dst[j]) + acc[j] : acc[j]);
      } else {
        tmpAF.resize(k);
        gatherFloat(in.aRow + i, 1, k, tmpAF.data());
        rowF.assign(n, 0.0f);
        float *acc = rowF.data();
        for (uint32_t kk = 0; kk < k; ++kk) {
          float av = tmpAF[kk];
          const float *w = wF.data() + size_t(kk) * C;
          for (uint32_t j = 0; j < n; ++j)
            acc[j] = acc[j] + av * w[j];
        }
        float *dst = accF.data() + accBase;
        for (uint32_t j = 0; j < n; ++j)
          dst[j] = pre.accumulate ? dst[j] + acc[j] : acc[j];
      }
    }
    uint64_t outBytes = uint64_t(m) * n * elemBytes(cfg.accType);
    st.spadReadBytes += uint64_t(m) * k * elemBytes(cfg.inputType);
    st.accWriteBytes += outBytes;
    if (pre.accumulate)
      st.accReadBytes += outBytes;

    // Timing: m cycles of streaming once the array input and the weights
    // are free; the results land R + C - 1 after the last row enters, the
    // first R + C - 1 after the first.
    uint64_t s = std::max({barrier, execLast, arrayFree, weightsReady,
                           maxRange(spadW, in.aRow, m)});
    s = std::max(s, satSub(writeHazard(Space::Acc, pre.cRow, m), fillLatency));
    uint64_t landed = s + m + fillLatency;
    arrayFree = s + m;
    setRange(spadR, in.aRow, m, s + m);
    setRange(accW, pre.cRow, m, landed);
    array(s, landed);
    done(landed);
    execLast = s;
    if (fold.computes == 0)
      fold.firstStart = s;
    fold.lastEnd = std::max(fold.lastEnd, landed);
  } else {
    if (in.bRow == kNone)
      return fail("an OS compute needs B: bRow must name scratchpad rows");
    if (Error e = checkSram(Space::Spad, in.bRow, k, n, "B"))
      return e;
    // Functional: the partial sums accumulate over k in order, across the
    // computes of the fold.
    if (isInt) {
      tmpAI.resize(size_t(m) * k);
      tmpBI.resize(size_t(k) * n);
      gatherInt(in.aRow, m, k, tmpAI.data());
      gatherInt(in.bRow, k, n, tmpBI.data());
      for (uint32_t i = 0; i < m; ++i) {
        uint32_t *p = psI.data() + size_t(i) * n;
        for (uint32_t kk = 0; kk < k; ++kk) {
          int32_t av = tmpAI[size_t(i) * k + kk];
          const int32_t *b = tmpBI.data() + size_t(kk) * n;
          for (uint32_t j = 0; j < n; ++j)
            p[j] += uint32_t(av * b[j]);
        }
      }
    } else {
      tmpAF.resize(size_t(m) * k);
      tmpBF.resize(size_t(k) * n);
      gatherFloat(in.aRow, m, k, tmpAF.data());
      gatherFloat(in.bRow, k, n, tmpBF.data());
      for (uint32_t i = 0; i < m; ++i) {
        float *p = psF.data() + size_t(i) * n;
        for (uint32_t kk = 0; kk < k; ++kk) {
          float av = tmpAF[size_t(i) * k + kk];
          const float *b = tmpBF.data() + size_t(kk) * n;
          for (uint32_t j = 0; j < n; ++j)
            p[j] = p[j] + av * b[j];
        }
      }
    }
    st.spadReadBytes +=
        (uint64_t(m) * k + uint64_t(k) * n) * elemBytes(cfg.inputType);

    // Timing: k cycles of streaming A and B; one read port per bank, so A
    // and B rows in a common bank take twice as long.
    uint32_t bankRows = std::max(1u, cfg.spadBankRows());
    uint32_t aLo = in.aRow / bankRows, aHi = (in.aRow + m - 1) / bankRows;
    uint32_t bLo = in.bRow / bankRows, bHi = (in.bRow + k - 1) / bankRows;
    bool conflict = aLo <= bHi && bLo <= aHi;
    uint64_t busy = conflict ? 2ull * k : k;
    if (conflict)
      st.bankConflictCycles += k;
    uint64_t s =
        std::max({barrier, execLast, arrayFree, maxRange(spadW, in.aRow, m),
                  maxRange(spadW, in.bRow, k)});
    arrayFree = s + busy;
    setRange(spadR, in.aRow, m, s + busy);
    setRange(spadR, in.bRow, k, s + busy);
    array(s, s + busy);
    done(s + busy);
    execLast = s;
    if (fold.computes == 0)
      fold.firstStart = s;
  }
  st.macs += uint64_t(m) * k * n;
  ++pre.computes;
  ++fold.computes;
  fold.t += ws ? m : k;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Vector unit
//===----------------------------------------------------------------------===//

Error Simulator::vector(const Instruction &in) {
  ++st.vectorInstructions;
  if (cfg.accType != ElemType::F32)
    return fail(llvm::formatv("vector instructions work on an f32 "
                              "accumulator; this machine's is {0}",
                              elemTypeName(cfg.accType))
                    .str());
  if (uint8_t(in.vop) > uint8_t(VecOp::MaskLower))
    return fail(llvm::formatv("unknown vector op {0}", unsigned(in.vop)).str());
  if (uint8_t(in.bcast) > uint8_t(Bcast::Scalar))
    return fail(
        llvm::formatv("unknown broadcast {0}", unsigned(in.bcast)).str());
  if (in.vflags & ~uint8_t(kVecAccumulate | kVecInfIsZero | kVecToSpad))
    return fail(
        llvm::formatv("unknown vector flags {0:x}", unsigned(in.vflags)).str());
  VecOp op = in.vop;
  bool toSpad = in.vflags & kVecToSpad;
  bool accumulate = in.vflags & kVecAccumulate;
  bool infIsZero = in.vflags & kVecInfIsZero;
  bool reduce = op == VecOp::RowMax || op == VecOp::RowSum;
  bool binary = op == VecOp::Add || op == VecOp::Sub || op == VecOp::Mul ||
                op == VecOp::Div || op == VecOp::Max;
  if (toSpad && op != VecOp::Copy)
    return fail(Twine("kVecToSpad needs op copy, not ") + vecOpName(op));
  if (accumulate && !reduce)
    return fail(Twine("kVecAccumulate applies to rowmax/rowsum, not ") +
                vecOpName(op));
  if (infIsZero && op != VecOp::Sub && op != VecOp::Div)
    return fail(Twine("kVecInfIsZero applies to sub/div, not ") +
                vecOpName(op));
  const bool masks = isMaskVecOp(op);
  int64_t imm = in.iimm;
  if (in.reg != kNoReg) {
    if (!masks)
      return fail(Twine("a register applies to the masks, not ") +
                  vecOpName(op));
    if (Error e = readReg(in.reg, "offset"))
      return e;
    if (__builtin_add_overflow(in.iimm, regs[in.reg], &imm))
      return fail(llvm::formatv("offset {0} + r{1} ({2}) overflows", in.iimm,
                                unsigned(in.reg), regs[in.reg])
                      .str());
  }
  uint32_t rows = in.rows, cols = in.cols;
  bool readsA = op != VecOp::Fill;
  bool readsB = binary && in.bcast != Bcast::Scalar;
  if (readsA)
    if (Error e = checkSram(Space::Acc, in.srcA, rows, cols, "srcA"))
      return e;
  if (readsB)
    if (Error e = checkSram(Space::Acc, in.srcB, rows,
                            in.bcast == Bcast::Row ? 1 : cols, "srcB"))
      return e;
  Space dstSpace = toSpad ? Space::Spad : Space::Acc;
  if (Error e = checkSram(dstSpace, in.dst, rows, cols, "dst"))
    return e;

  // Functional: every source element is read before any destination element
  // is written, so overlapping operands behave like separate ones.
  size_t outCols = reduce ? 1 : cols;
  vecOut.resize(size_t(rows) * outCols);
  const float *acc = accF.data();
  for (uint32_t i = 0; i < rows; ++i) {
    const float *a = acc + (size_t(in.srcA) + i) * C;
    float *out = vecOut.data() + size_t(i) * outCols;
    if (reduce) {
      float r;
      if (op == VecOp::RowMax) {
        r = -std::numeric_limits<float>::infinity();
        for (uint32_t j = 0; j < cols; ++j)
          r = maxProp(r, a[j]);
        if (accumulate)
          r = maxProp(acc[(size_t(in.dst) + i) * C], r);
      } else {
        r = 0.0f;
        for (uint32_t j = 0; j < cols; ++j)
          r = r + a[j];
        if (accumulate)
          r = acc[(size_t(in.dst) + i) * C] + r;
      }
      out[0] = r;
      continue;
    }
    for (uint32_t j = 0; j < cols; ++j) {
      float b = in.fimm;
      if (readsB)
        b = in.bcast == Bcast::Row ? acc[(size_t(in.srcB) + i) * C]
                                   : acc[(size_t(in.srcB) + i) * C + j];
      float r = 0.0f;
      switch (op) {
      case VecOp::Fill:
        r = in.fimm;
        break;
      case VecOp::Copy:
        r = a[j];
        break;
      case VecOp::Add:
        r = a[j] + b;
        break;
      case VecOp::Sub:
        if (infIsZero && b == -std::numeric_limits<float>::infinity())
          b = 0.0f;
        r = a[j] - b;
        break;
      case VecOp::Mul:
        r = a[j] * b;
        break;
      case VecOp::Div:
        r = (infIsZero && b == 0.0f) ? 0.0f : a[j] / b;
        break;
      case VecOp::Max:
        r = maxProp(a[j], b);
        break;
      case VecOp::Exp:
        r = std::exp(a[j]);
        break;
      case VecOp::Rsqrt:
        r = 1.0f / std::sqrt(a[j]);
        break;
      case VecOp::RoundBf16:
        r = roundToBF16(a[j]);
        break;
      case VecOp::MaskCausal:
        // (j - i > imm cannot overflow: an offset near the int64 limits
        // masks all or nothing.)
        r = int64_t(j) - int64_t(i) > imm
                ? -std::numeric_limits<float>::infinity()
                : a[j];
        break;
      case VecOp::MaskKeys:
        r = int64_t(j) > imm ? -std::numeric_limits<float>::infinity() : a[j];
        break;
      case VecOp::MaskRows:
        r = int64_t(i) > imm ? -std::numeric_limits<float>::infinity() : a[j];
        break;
      case VecOp::MaskLower:
        r = int64_t(j) - int64_t(i) <= imm
                ? -std::numeric_limits<float>::infinity()
                : a[j];
        break;
      default:
        break;
      }
      out[j] = r;
    }
  }
  for (uint32_t i = 0; i < rows; ++i) {
    const float *out = vecOut.data() + size_t(i) * outCols;
    size_t row = size_t(in.dst) + i;
    if (!toSpad) {
      std::memcpy(accF.data() + row * C, out, outCols * 4);
    } else if (cfg.inputType == ElemType::BF16) {
      for (uint32_t j = 0; j < cols; ++j)
        spadBF[row * spadW_ + j] = floatToBF16(out[j]);
    } else {
      std::memcpy(spadF.data() + row * spadW_, out, size_t(cols) * 4);
    }
  }
  uint64_t elems = uint64_t(rows) * cols;
  if (readsA)
    st.accReadBytes += elems * 4;
  if (readsB)
    st.accReadBytes += (in.bcast == Bcast::Row ? rows : elems) * 4;
  if (reduce && accumulate)
    st.accReadBytes += uint64_t(rows) * 4;
  if (toSpad)
    st.spadWriteBytes += elems * elemBytes(cfg.inputType);
  else
    st.accWriteBytes += uint64_t(rows) * outCols * 4;

  // Timing: ceil(rows*cols / lanes) issue cycles (x kVectorExpFactor for
  // exp, x2 when element-wise A and B share an accumulator bank), then
  // kVectorLatency cycles of pipeline before the results are written.
  uint64_t issue = (elems + cfg.vectorLanes - 1) / cfg.vectorLanes;
  if (op == VecOp::Exp || op == VecOp::Rsqrt)
    issue *= kVectorExpFactor;
  if (readsB && in.bcast == Bcast::None) {
    uint32_t bankRows = std::max(1u, cfg.accBankRows());
    uint32_t aLo = in.srcA / bankRows, aHi = (in.srcA + rows - 1) / bankRows;
    uint32_t bLo = in.srcB / bankRows, bHi = (in.srcB + rows - 1) / bankRows;
    if (aLo <= bHi && bLo <= aHi) {
      st.bankConflictCycles += issue;
      issue *= 2;
    }
  }
  // The vector unit has its own in-order queue (like the load and store
  // queues): it waits for its own previous instruction and for the data,
  // not for the array's instructions around it.
  uint64_t s = std::max({barrier, vecLast, vecFree});
  if (in.reg != kNoReg)
    s = std::max(s, regReady[in.reg]);
  if (readsA)
    s = std::max(s, maxRange(accW, in.srcA, rows));
  if (readsB)
    s = std::max(s, maxRange(accW, in.srcB, rows));
  if (reduce && accumulate)
    s = std::max(s, maxRange(accW, in.dst, rows));
  s = std::max(s, writeHazard(dstSpace, in.dst, rows));
  uint64_t landed = s + issue + kVectorLatency;
  vecFree = s + issue;
  if (readsA)
    setRange(accR, in.srcA, rows, s + issue);
  if (readsB)
    setRange(accR, in.srcB, rows, s + issue);
  setRange(lastW(dstSpace), in.dst, rows, landed);
  st.vectorCycles += issue;
  if (in.reg != kNoReg)
    regRead[in.reg] = std::max(regRead[in.reg], s);
  done(landed);
  vecLast = s;
  return Error::success();
}

} // namespace

Expected<SimStats>
sysarray::simulate(const Program &program,
                   std::vector<std::vector<uint8_t>> &buffers,
                   const SimOptions &options) {
  Simulator sim(program, buffers, options);
  return sim.run();
}

/// 16, 12.8: the shortest form of a bandwidth.
static std::string formatNumber(double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", d);
  return buf;
}

static std::string formatBytes(uint64_t b) {
  if (b >= (uint64_t(1) << 20))
    return llvm::formatv("{0:f2} MiB", double(b) / double(1 << 20)).str();
  if (b >= 1024)
    return llvm::formatv("{0:f1} KiB", double(b) / 1024.0).str();
  return llvm::formatv("{0} B", b).str();
}

std::string sysarray::formatStats(const Program &program, const SimStats &s,
                                  TimingMode mode) {
  const MachineConfig &c = program.config;
  std::string out =
      llvm::formatv("{0}: {1} cycles",
                    program.name.empty() ? "program" : program.name, s.cycles)
          .str();
  if (mode == TimingMode::ScaleSim)
    out += " (SCALE-Sim v2 compute model: folds back to back, each paying "
           "the full fill and drain)";
  else
    out += llvm::formatv(" (default timing model), the array busy {0} and "
                         "idle {1}",
                         s.computeCycles, s.stallCycles)
               .str();
  out += llvm::formatv(". {0} MACs on the {1}x{2} array: PE utilization "
                       "{3:f2}%, mapping efficiency {4:f2}% and compute "
                       "utilization {5:f2}% over {6} folds. ",
                       s.macs, c.rows, c.cols, s.peUtilization * 100,
                       s.mappingEfficiency * 100, s.computeUtilization * 100,
                       s.folds)
             .str();
  out += "Traffic: DRAM " + formatBytes(s.dramReadBytes) + " read, " +
         formatBytes(s.dramWriteBytes) + " written; scratchpad " +
         formatBytes(s.spadReadBytes) + " read, " +
         formatBytes(s.spadWriteBytes) + " written; accumulator " +
         formatBytes(s.accReadBytes) + " read, " +
         formatBytes(s.accWriteBytes) + " written. ";
  if (mode == TimingMode::ScaleSim) {
    out += llvm::formatv("DRAM is assumed ideal (infinite bandwidth, no "
                         "stalls; the machine's {0} bytes/cycle and "
                         "{1}-cycle latency are not applied, SCALE-Sim "
                         "counts memory stalls separately); the {2} vector "
                         "instructions ({3} vector-unit cycles in the default "
                         "model) are not counted. ",
                         formatNumber(c.dramBytesPerCycle), c.dramLatency,
                         s.vectorInstructions, s.vectorCycles)
               .str();
  } else {
    out += llvm::formatv("Bank conflicts cost {0} cycles; the vector unit "
                         "is busy {1} cycles ({2} instructions) and the DMA "
                         "{3} cycles, assuming {4} DRAM bytes/cycle and a "
                         "{5}-cycle latency per request. ",
                         s.bankConflictCycles, s.vectorCycles,
                         s.vectorInstructions, s.dmaBusyCycles,
                         formatNumber(c.dramBytesPerCycle), c.dramLatency)
               .str();
  }
  out += llvm::formatv("{0} instructions", s.instructions).str();
  if (s.skippedInstructions)
    out += llvm::formatv(" ({0} more skipped)", s.skippedInstructions).str();
  out += ".";
  return out;
}
