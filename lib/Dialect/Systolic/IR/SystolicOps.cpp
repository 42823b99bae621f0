//===- SystolicOps.cpp - systolic ops and their verifiers -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The verifiers hold a program to include/accel/Systolic/ISA.h: the machine
// (#systolic.config), the DRAM buffers (#systolic.buffer) and, instruction
// by instruction in issue order, the SRAM and DRAM bounds, the element types
// and the dataflow state (config -> preload -> compute). They also enforce
// the canonical form the binary format needs (an operand an instruction does
// not use is absent), so that every verified program encodes, decodes and
// prints back to the same thing.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Systolic/ISA.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <map>
#include <optional>

using namespace mlir;
using namespace mlir::systolic;

#define GET_OP_CLASSES
#include "accel/Dialect/Systolic/IR/SystolicOps.cpp.inc"

void ProgramOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                      ConfigAttr config, ArrayAttr buffers) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getConfigAttrName(state.name), config);
  state.addAttribute(getBuffersAttrName(state.name), buffers);
  Region *body = state.addRegion();
  body->push_back(new Block());
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

static bool isI8(Type t) { return t.isSignlessInteger(8); }
static bool isI32(Type t) { return t.isSignlessInteger(32); }

/// Names travel through the binary format and the tools' messages, so they
/// are plain identifiers; returns the first offending position or npos.
static size_t badNameChar(StringRef name) {
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(llvm::isAlnum(c) || c == '_' || c == '.' || c == '-'))
      return i;
  }
  return StringRef::npos;
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 uint32_t rows, uint32_t cols, Type input,
                                 Type acc, uint32_t spadRows,
                                 uint32_t spadBanks, uint32_t accRows,
                                 uint32_t accBanks,
                                 llvm::APFloat dramBytesPerCycle,
                                 uint32_t dramLatency, uint32_t vectorLanes) {
  // The array's shape bounds every tile; 1024 keeps spadWidth() * rows far
  // from overflowing and is beyond any real array (Gemmini: 16, TPU: 256).
  if (rows < 1 || rows > 1024)
    return emitError() << "systolic config: rows must be in [1, 1024], got "
                       << rows;
  if (cols < 1 || cols > 1024)
    return emitError() << "systolic config: cols must be in [1, 1024], got "
                       << cols;
  if (!isI8(input) && !input.isBF16() && !input.isF32())
    return emitError()
           << "systolic config: input type must be i8, bf16 or f32, got "
           << input;
  // The PEs accumulate i8 products in i32 and floating-point ones in f32.
  bool accOk = isI8(input) ? isI32(acc) : acc.isF32();
  if (!accOk)
    return emitError() << "systolic config: the accumulator type must be "
                       << (isI8(input) ? "i32" : "f32") << " for " << input
                       << " inputs, got " << acc;
  auto checkSram = [&](StringRef name, uint32_t rowCount,
                       uint32_t banks) -> LogicalResult {
    // Banks are equal runs of consecutive rows.
    if (banks < 1)
      return emitError() << "systolic config: " << name
                         << "_banks must be >= 1, got 0";
    if (rowCount < 1 || rowCount % banks != 0)
      return emitError() << "systolic config: " << name
                         << "_rows must be a positive multiple of " << name
                         << "_banks (" << banks << "), got " << rowCount;
    return success();
  };
  if (failed(checkSram("spad", spadRows, spadBanks)) ||
      failed(checkSram("acc", accRows, accBanks)))
    return failure();
  double bpc = dramBytesPerCycle.convertToDouble();
  if (!std::isfinite(bpc) || !(bpc > 0.0)) {
    char text[32];
    snprintf(text, sizeof(text), "%g", bpc); // "inf", "nan", "-2"
    return emitError() << "systolic config: dram_bytes_per_cycle must be "
                          "finite and > 0, got "
                       << text;
  }
  if (vectorLanes < 1)
    return emitError() << "systolic config: vector_lanes must be >= 1, got 0";
  return success();
}

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, BufferRole role,
                                 uint32_t position, RankedTensorType type) {
  if (name.empty())
    return emitError() << "systolic buffer: the name must not be empty";
  size_t bad = badNameChar(name);
  if (bad != StringRef::npos)
    return emitError() << "systolic buffer '" << name
                       << "': the name may only use [A-Za-z0-9_.-], found '"
                       << name.substr(bad, 1) << "' at position " << bad;
  if (role == BufferRole::Scratch && position != 0)
    return emitError() << "systolic buffer '" << name
                       << "': a scratch buffer has position 0, got "
                       << position;
  if (!type.hasStaticShape())
    return emitError() << "systolic buffer '" << name
                       << "': the shape must be static, got " << type;
  Type elem = type.getElementType();
  if (!isI8(elem) && !isI32(elem) && !elem.isBF16() && !elem.isF32())
    return emitError() << "systolic buffer '" << name
                       << "': the element type must be i8, i32, bf16 or "
                          "f32, got "
                       << elem;
  // DRAM addresses (element offsets, sizes in bytes) are 64-bit in the ISA;
  // capping a buffer at 2^48 bytes keeps every bound computation exact.
  unsigned bytes = elem.getIntOrFloatBitWidth() / 8;
  uint64_t limit = (uint64_t(1) << 48) / bytes, n = 1;
  for (int64_t d : type.getShape()) {
    if (d != 0 && n > limit / uint64_t(d))
      return emitError() << "systolic buffer '" << name << "': " << type
                         << " is larger than the 2^48 bytes a buffer may "
                            "hold";
    n *= uint64_t(d);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  StringRef name = getSymName();
  if (name.empty())
    return emitOpError("the program name must not be empty");
  size_t bad = badNameChar(name);
  if (bad != StringRef::npos)
    return emitOpError() << "the program name '" << name
                         << "' may only use [A-Za-z0-9_.-], found '"
                         << name.substr(bad, 1) << "' at position " << bad;
  // A caller binds arguments and results by position and reports buffers by
  // name, so both must be unambiguous.
  llvm::StringMap<unsigned> names;
  llvm::DenseMap<std::pair<unsigned, uint32_t>, unsigned> slots;
  for (auto [i, attr] : llvm::enumerate(getBuffers())) {
    auto buffer = cast<BufferAttr>(attr);
    auto [it, inserted] = names.try_emplace(buffer.getName(), i);
    if (!inserted)
      return emitOpError() << "buffer " << i << " repeats the name '"
                           << buffer.getName() << "' of buffer " << it->second;
    if (buffer.getRole() == BufferRole::Scratch)
      continue;
    auto [slot, fresh] = slots.try_emplace(
        {unsigned(buffer.getRole()), buffer.getPosition()}, i);
    if (!fresh)
      return emitOpError() << "buffers " << slot->second << " and " << i
                           << " are both "
                           << stringifyBufferRole(buffer.getRole()) << " "
                           << buffer.getPosition();
  }
  return success();
}

namespace {

/// Checks the instructions of one program in issue order, tracking the
/// dataflow state the way the array does.
class ProgramChecker {
public:
  ProgramChecker(ProgramOp program)
      : config(program.getConfig()), spadRows(config.getSpadRows()),
        accRows(config.getAccRows()),
        spadWidth(std::max(config.getRows(), config.getCols())),
        accWidth(config.getCols()) {
    for (Attribute a : program.getBuffers())
      buffers.push_back(cast<BufferAttr>(a));
  }

  LogicalResult check(Operation *op) {
    if (auto c = dyn_cast<ConfigOp>(op))
      return check(c);
    if (auto mvin = dyn_cast<MvinOp>(op))
      return failure(
          failed(checkRegisters(mvin)) ||
          failed(checkMove(op, /*isMvin=*/true, mvin.getBuffer(),
                           mvin.getOffset(), mvin.getStride(), mvin.getSpace(),
                           mvin.getRow(), mvin.getRows(), mvin.getCols(),
                           mvin.getTranspose(), mvin.getUnpack(),
                           mvin.getPageStride())));
    if (auto sload = dyn_cast<SloadOp>(op))
      return check(sload);
    if (auto skip = dyn_cast<SkipOp>(op))
      return check(skip);
    if (auto ssub = dyn_cast<SsubOp>(op))
      return failure(failed(scalarReg(op, "destination", ssub.getReg())) ||
                     (ssub.getRegA() &&
                      failed(scalarReg(op, "first source", *ssub.getRegA()))) ||
                     failed(scalarReg(op, "second source", ssub.getRegB())));
    if (auto mvout = dyn_cast<MvoutOp>(op))
      return checkMove(op, /*isMvin=*/false, mvout.getBuffer(),
                       mvout.getOffset(), mvout.getStride(), mvout.getSpace(),
                       mvout.getRow(), mvout.getRows(), mvout.getCols(),
                       mvout.getTranspose());
    if (auto p = dyn_cast<PreloadOp>(op))
      return check(p);
    if (auto c = dyn_cast<ComputeOp>(op))
      return check(c);
    if (auto v = dyn_cast<VectorOp>(op))
      return check(v);
    if (isa<FenceOp>(op)) {
      // A fence flushes the output-stationary partial sums: the next compute
      // needs a new preload.
      endPreload(op);
      return success();
    }
    return op->emitOpError("is not a systolic instruction");
  }

private:
  /// The preload that the next compute(s) pair with.
  struct Preload {
    uint64_t m, k, n;
    bool weights;
    unsigned computes = 0;
  };

  ConfigAttr config;
  SmallVector<BufferAttr> buffers;
  uint64_t spadRows, accRows, spadWidth, accWidth;
  std::optional<Dataflow> dataflow;
  std::optional<Preload> preload;
  /// The instruction that ended the last preload's run of computes (for the
  /// message when a compute comes after it).
  Operation *preloadEnder = nullptr;
  /// WS: the k x n weights in the array, once a preload loaded some.
  std::optional<std::pair<uint64_t, uint64_t>> weights;
  /// The instruction being checked, the body's size, the ends of the runs
  /// skips may pass over (position past the run: how many end there) and
  /// how many runs the current instruction is in.
  size_t position = 0, total = 0;
  std::map<size_t, unsigned> skipEnds;
  unsigned activeSkips = 0;

  void endPreload(Operation *op) {
    if (preload)
      preloadEnder = op;
    preload.reset();
  }

  Type typeOf(Space space) const {
    return space == Space::Spad ? config.getInput() : config.getAcc();
  }
  static StringRef sramName(Space space) {
    return space == Space::Spad ? "scratchpad" : "accumulator";
  }

  /// Every integer field is an unsigned quantity in the ISA.
  static LogicalResult nonNegative(Operation *op, StringRef field,
                                   int64_t value) {
    if (value < 0)
      return op->emitOpError()
             << field << " must be non-negative, got " << value;
    return success();
  }
  static LogicalResult positive(Operation *op, StringRef field, int64_t value) {
    if (value < 1)
      return op->emitOpError() << field << " must be >= 1, got " << value;
    return success();
  }
  /// Rows [first, first + count) of an SRAM with `total` rows.
  static LogicalResult sramRows(Operation *op, StringRef what, Space space,
                                uint64_t first, uint64_t count,
                                uint64_t total) {
    if (first + count > total)
      return op->emitOpError()
             << what << " " << stringifySpace(space) << " rows [" << first
             << ", " << first + count << "), past the " << total
             << " rows of the " << sramName(space);
    return success();
  }

  /// A scalar register operand.
  static LogicalResult scalarReg(Operation *op, StringRef what, int64_t reg) {
    if (reg < 0 || reg >= int64_t(sysarray::kScalarRegs))
      return op->emitOpError()
             << what << " register " << reg << " does not exist (0.."
             << sysarray::kScalarRegs - 1 << ")";
    return success();
  }

  /// An mvin's page and bound registers, and the narrower fields of the
  /// register form (docs/systolic-binary.md, opcode 9).
  LogicalResult checkRegisters(MvinOp op) {
    std::optional<int64_t> page = op.getPageReg(), bound = op.getBoundReg();
    if (page.has_value() != op.getPageStride().has_value())
      return op.emitOpError("takes a page register and a page stride "
                            "together");
    if (bound.has_value() != op.getBoundBase().has_value())
      return op.emitOpError("takes a bound register and a bound base "
                            "together");
    if (!page && !bound)
      return success();
    if ((page && failed(scalarReg(op, "page", *page))) ||
        (bound && failed(scalarReg(op, "bound", *bound))))
      return failure();
    if (page && (int64_t(*op.getPageStride()) < 1 ||
                 int64_t(*op.getPageStride()) > int64_t(UINT32_MAX)))
      return op.emitOpError() << "page stride must be in [1, 2^32), got "
                              << int64_t(*op.getPageStride());
    if (bound) {
      int64_t base = *op.getBoundBase();
      if (base < INT32_MIN || base > INT32_MAX)
        return op.emitOpError()
               << "bound base " << base << " does not fit in 32 bits";
    }
    if (uint64_t(op.getBuffer()) > UINT16_MAX ||
        uint64_t(op.getOffset()) > UINT32_MAX ||
        uint64_t(op.getRows()) > UINT16_MAX ||
        uint64_t(op.getCols()) > UINT16_MAX)
      return op.emitOpError(
          "with registers takes buffer < 2^16, offset < 2^32, rows and "
          "cols < 2^16");
    return success();
  }

public:
  /// Called before instruction `position` of the body (of `total`): where
  /// a skipped run ends, the array state is unknown.
  void at(size_t pos, size_t totalInsts) {
    position = pos;
    total = totalInsts;
    // (Positions only grow: the ends reached are the map's first.)
    if (!skipEnds.empty() && skipEnds.begin()->first == pos) {
      activeSkips -= skipEnds.begin()->second;
      skipEnds.erase(skipEnds.begin());
      endPreload(nullptr);
      weights.reset();
    }
  }

private:
  LogicalResult check(SkipOp op) {
    if (failed(scalarReg(op, "condition", op.getReg())))
      return failure();
    const int64_t count = op.getCount(), after = total - position - 1;
    if (count < 1 || count > after)
      return op.emitOpError()
             << "skips " << count << " instructions; " << after << " follow it";
    ++skipEnds[position + 1 + count];
    ++activeSkips;
    return success();
  }

  LogicalResult check(SloadOp op) {
    if (failed(scalarReg(op, "destination", op.getReg())) ||
        failed(nonNegative(op, "buffer", op.getBuffer())) ||
        failed(nonNegative(op, "offset", op.getOffset())))
      return failure();
    if (uint64_t(op.getBuffer()) >= buffers.size())
      return op.emitOpError() << "buffer index " << op.getBuffer()
                              << " is out of range (the program has "
                              << buffers.size() << " buffers)";
    BufferAttr buffer = buffers[op.getBuffer()];
    if (!isI32(buffer.getType().getElementType()))
      return op.emitOpError() << "loads i32 elements; buffer " << op.getBuffer()
                              << " ('" << buffer.getName() << "') holds "
                              << buffer.getType().getElementType();
    if (int64_t(op.getOffset()) >= buffer.getType().getNumElements())
      return op.emitOpError()
             << "reads element " << op.getOffset() << " of buffer "
             << op.getBuffer() << " ('" << buffer.getName() << "', "
             << buffer.getType().getNumElements() << " elements)";
    // (I64Attr accessors give the bits as uint64_t.)
    int64_t lo = op.getLo(), hi = op.getHi();
    if (lo > hi)
      return op.emitOpError() << "range [" << lo << ", " << hi << "] is empty";
    return success();
  }

  LogicalResult check(ConfigOp op) {
    if (activeSkips > 0)
      return op.emitOpError("inside a skipped run: the dataflow after it "
                            "would depend on run-time data");
    dataflow = op.getDataflow();
    // A config resets the array: the weights and the preload are gone.
    endPreload(op);
    weights.reset();
    return success();
  }

  LogicalResult checkMove(Operation *op, bool isMvin, int64_t bufferIndex,
                          int64_t offsetV, int64_t strideV, Space space,
                          int64_t rowV, int64_t rowsV, int64_t colsV,
                          bool transpose,
                          std::optional<Unpack> unpack = std::nullopt,
                          std::optional<int64_t> pageStride = std::nullopt) {
    if (failed(nonNegative(op, "buffer", bufferIndex)) ||
        failed(nonNegative(op, "offset", offsetV)) ||
        failed(nonNegative(op, "stride", strideV)) ||
        failed(nonNegative(op, "row", rowV)) ||
        failed(positive(op, "rows", rowsV)) ||
        failed(positive(op, "cols", colsV)))
      return failure();
    if (uint64_t(bufferIndex) >= buffers.size())
      return op->emitOpError() << "buffer index " << bufferIndex
                               << " is out of range (the program has "
                               << buffers.size() << " buffers)";
    uint64_t row = rowV, rows = rowsV, cols = colsV;
    StringRef verb = isMvin ? "writes" : "reads";
    uint64_t total = space == Space::Spad ? spadRows : accRows;
    if (failed(sramRows(op, verb, space, row, rows, total)))
      return failure();
    uint64_t width = space == Space::Spad ? spadWidth : accWidth;
    if (cols > width)
      return op->emitOpError()
             << "cols " << cols << " exceeds the " << sramName(space)
             << " width " << width
             << (space == Space::Spad ? " (max(rows, cols))" : " (cols)");
    if (uint64_t(strideV) > UINT32_MAX)
      return op->emitOpError()
             << "stride " << strideV << " does not fit in 32 bits";

    // The DRAM block is dramRows x dramCols (transposed: cols x rows); its
    // last element is at offset + (dramRows - 1) * stride + dramCols - 1.
    // rows, cols < 2^32 here (they fit an SRAM) and offset < 2^63, so 128
    // bits hold the end exactly.
    BufferAttr buffer = buffers[bufferIndex];
    uint64_t dramRows = transpose ? cols : rows;
    uint64_t dramCols = transpose ? rows : cols;
    llvm::APInt end(128, uint64_t(offsetV));
    end += llvm::APInt(128, dramRows - 1) * llvm::APInt(128, strideV);
    end += llvm::APInt(128, dramCols);
    // (4-bit unpacking counts in nibbles, two a byte.)
    const bool nibbles =
        unpack && (*unpack == Unpack::S4 || *unpack == Unpack::U4);
    uint64_t numElements =
        buffer.getType().getNumElements() * (nibbles ? 2 : 1);
    // Paged: the block lies within its page (the machine checks the page).
    if (pageStride && end.ugt(uint64_t(*pageStride)))
      return op->emitOpError()
             << "reads elements [" << offsetV << ", "
             << llvm::toString(end, 10, /*Signed=*/false) << ") of a page of "
             << *pageStride << " elements (buffer " << bufferIndex << ", '"
             << buffer.getName() << "')";
    if (!pageStride && end.ugt(numElements))
      return op->emitOpError()
             << (isMvin ? "reads" : "writes") << " elements [" << offsetV
             << ", " << llvm::toString(end, 10, /*Signed=*/false)
             << ") of buffer " << bufferIndex << " ('" << buffer.getName()
             << "', " << numElements << " elements)";
    // Overlapping rows would make the result depend on the write order.
    if (!isMvin && dramRows > 1 && uint64_t(strideV) < dramCols)
      return op->emitOpError()
             << "writes overlapping DRAM rows: stride " << strideV
             << " is less than the " << dramCols << " elements of a "
             << (transpose ? "transposed " : "") << "row";

    // Types: equal, except that an f32 accumulator takes and gives f32 or
    // bf16, an i32 accumulator gives i8 (saturating), and unpacking reads
    // an i8 buffer into a bf16 or f32 SRAM.
    Type sram = typeOf(space), dram = buffer.getType().getElementType();
    if (unpack) {
      if (!isI8(dram) || !(sram.isF32() || sram.isBF16()))
        return op->emitOpError()
               << "cannot unpack (" << stringifyUnpack(*unpack) << ") " << dram
               << " buffer " << bufferIndex << " ('" << buffer.getName()
               << "') into the " << sram << " " << sramName(space)
               << ": unpacking reads i8 buffers into bf16 or f32 SRAMs";
      return success();
    }
    bool ok = sram == dram;
    if (space == Space::Acc && sram.isF32())
      ok = dram.isF32() || dram.isBF16();
    if (space == Space::Acc && isI32(sram) && !isMvin)
      ok = isI32(dram) || isI8(dram);
    if (!ok)
      return op->emitOpError()
             << "cannot move " << dram << " buffer " << bufferIndex << " ('"
             << buffer.getName() << "') " << (isMvin ? "into" : "out of")
             << " the " << sram << " " << sramName(space);
    return success();
  }

  LogicalResult check(PreloadOp op) {
    std::optional<int64_t> bRowV;
    if (op.getBRow())
      bRowV = *op.getBRow();
    if ((bRowV && failed(nonNegative(op, "weights row", *bRowV))) ||
        failed(nonNegative(op, "c_row", op.getCRow())) ||
        failed(positive(op, "m", op.getM())) ||
        failed(nonNegative(op, "k", op.getK())) ||
        failed(positive(op, "n", op.getN())))
      return failure();
    if (!dataflow)
      return op.emitOpError(
          "comes before any systolic.config: the dataflow is not set");
    uint64_t m = op.getM(), k = op.getK(), n = op.getN(), cRow = op.getCRow();
    uint64_t arrayRows = config.getRows(), arrayCols = config.getCols();
    if (n > arrayCols)
      return op.emitOpError()
             << "n " << n << " exceeds the array's " << arrayCols << " columns";
    if (*dataflow == Dataflow::WS) {
      if (k < 1)
        return op.emitOpError("k must be >= 1 in the weight-stationary "
                              "dataflow, got 0");
      if (k > arrayRows)
        return op.emitOpError() << "k " << k << " exceeds the array's "
                                << arrayRows << " rows (weight-stationary)";
      if (bRowV) {
        if (failed(sramRows(op, "loads weights from", Space::Spad, *bRowV, k,
                            spadRows)))
          return failure();
        weights = {k, n};
      } else if (!weights) {
        return op.emitOpError("keeps the array's weights, but no preload "
                              "since the last config loaded any");
      } else if (weights->first != k || weights->second != n) {
        return op.emitOpError()
               << "keeps the array's " << weights->first << "x"
               << weights->second << " weights, but says k " << k << " n " << n;
      }
    } else {
      if (bRowV)
        return op.emitOpError("cannot load weights in the output-stationary "
                              "dataflow");
      if (k != 0)
        return op.emitOpError() << "k must be 0 in the output-stationary "
                                   "dataflow (the computes give it), got "
                                << k;
      if (m > arrayRows)
        return op.emitOpError() << "m " << m << " exceeds the array's "
                                << arrayRows << " rows (output-stationary)";
    }
    if (failed(sramRows(op, "targets", Space::Acc, cRow, m, accRows)))
      return failure();
    preload = Preload{m, k, n, bRowV.has_value()};
    preloadEnder = nullptr;
    return success();
  }

  LogicalResult check(ComputeOp op) {
    std::optional<int64_t> bRowV;
    if (op.getBRow())
      bRowV = *op.getBRow();
    if (failed(nonNegative(op, "a_row", op.getARow())) ||
        (bRowV && failed(nonNegative(op, "b_row", *bRowV))) ||
        failed(positive(op, "m", op.getM())) ||
        failed(positive(op, "k", op.getK())) ||
        failed(positive(op, "n", op.getN())))
      return failure();
    if (!preload) {
      if (preloadEnder) {
        InFlightDiagnostic diag = op.emitOpError(
            "needs a preload before it; only mvin and mvout may come between "
            "a preload and its computes");
        diag.attachNote(preloadEnder->getLoc())
            << "this instruction ended the last preload's computes";
        return diag;
      }
      return op.emitOpError("needs a preload before it");
    }
    uint64_t m = op.getM(), k = op.getK(), n = op.getN(), aRow = op.getARow();
    if (k > spadWidth)
      return op.emitOpError()
             << "k " << k << " exceeds the scratchpad width " << spadWidth;
    if (failed(sramRows(op, "reads A from", Space::Spad, aRow, m, spadRows)))
      return failure();
    if (*dataflow == Dataflow::WS) {
      if (preload->computes != 0)
        return op.emitOpError("follows another compute: each "
                              "weight-stationary compute needs its own "
                              "preload");
      if (bRowV)
        return op.emitOpError("takes no B operand (`times`) in the "
                              "weight-stationary dataflow: the weights are "
                              "in the array");
      if (m != preload->m || k != preload->k || n != preload->n)
        return op.emitOpError()
               << "m " << m << " k " << k << " n " << n
               << " disagree with the preload's m " << preload->m << " k "
               << preload->k << " n " << preload->n;
      // `preloaded` tells the array which weight buffer to use: the one the
      // preload just filled, or the one it kept.
      if (op.getPreloaded() && !preload->weights)
        return op.emitOpError("is `preloaded`, but the preload before it "
                              "loaded no weights");
      if (!op.getPreloaded() && preload->weights)
        return op.emitOpError("must be `preloaded`: the preload before it "
                              "loaded weights");
    } else {
      if (!bRowV)
        return op.emitOpError("needs a B operand (`times spad[...]`) in the "
                              "output-stationary dataflow");
      if (failed(
              sramRows(op, "reads B from", Space::Spad, *bRowV, k, spadRows)))
        return failure();
      if (m != preload->m || n != preload->n)
        return op.emitOpError()
               << "m " << m << " n " << n << " disagree with the preload's m "
               << preload->m << " n " << preload->n;
      // The first compute after an OS preload starts from the reset sums.
      if (op.getPreloaded() && preload->computes != 0)
        return op.emitOpError("is `preloaded`, but only the first compute "
                              "after a preload may be (output-stationary)");
    }
    ++preload->computes;
    return success();
  }

  LogicalResult check(VectorOp op) {
    // The vector unit sits in the execute pipeline: it ends a preload's
    // computes.
    endPreload(op);
    VecOp vop = op.getOp();
    StringRef name = stringifyVecOp(vop);
    if (!config.getAcc().isF32())
      return op.emitOpError()
             << "needs an f32 accumulator, the config's is " << config.getAcc();
    std::optional<int64_t> srcBV;
    if (op.getSrcB())
      srcBV = *op.getSrcB();
    if (failed(nonNegative(op, "dst", op.getDst())) ||
        failed(nonNegative(op, "src_a", op.getSrcA())) ||
        (srcBV && failed(nonNegative(op, "src_b", *srcBV))) ||
        failed(positive(op, "rows", op.getRows())) ||
        failed(positive(op, "cols", op.getCols())))
      return failure();
    uint64_t rows = op.getRows(), cols = op.getCols();
    if (cols > accWidth)
      return op.emitOpError()
             << "cols " << cols << " exceeds the accumulator width " << accWidth
             << " (cols)";

    bool binary = vop == VecOp::Add || vop == VecOp::Sub || vop == VecOp::Mul ||
                  vop == VecOp::Div || vop == VecOp::Max;
    std::optional<Bcast> bcastAttr = op.getBcast();
    if (bcastAttr && !binary)
      return op.emitOpError()
             << "bcast applies to the binary ops (add, sub, mul, div, max), "
                "not "
             << name;
    Bcast bcast = bcastAttr.value_or(Bcast::None);
    bool needsSrcB = binary && bcast != Bcast::Scalar;
    if (needsSrcB && !srcBV)
      return op.emitOpError() << name << " with bcast " << stringifyBcast(bcast)
                              << " needs src_b";
    if (!needsSrcB && srcBV)
      return op.emitOpError()
             << name
             << (binary ? " with bcast scalar reads imm, not src_b"
                        : " takes no src_b");
    bool needsImm = vop == VecOp::Fill || bcast == Bcast::Scalar;
    if (needsImm && !op.getFimm())
      return op.emitOpError()
             << name << (vop == VecOp::Fill ? "" : " with bcast scalar")
             << " needs an imm";
    if (!needsImm && op.getFimm())
      return op.emitOpError()
             << name << " takes no imm (only fill and bcast scalar)";
    bool isMask = vop == VecOp::MaskCausal || vop == VecOp::MaskKeys ||
                  vop == VecOp::MaskRows || vop == VecOp::MaskLower;
    if (isMask && !op.getIimm())
      return op.emitOpError() << name << " needs an offset";
    if (!isMask && op.getIimm())
      return op.emitOpError() << name << " takes no offset (only the masks)";
    if (!isMask && op.getReg())
      return op.emitOpError() << name << " takes no register (only the masks)";
    if (op.getReg() && failed(scalarReg(op, "offset", *op.getReg())))
      return failure();
    bool isRowReduce = vop == VecOp::RowMax || vop == VecOp::RowSum;
    if (op.getAccumulate() && !isRowReduce)
      return op.emitOpError()
             << name << " cannot accumulate (only rowmax and rowsum)";
    if (op.getInfIsZero() && vop != VecOp::Sub && vop != VecOp::Div)
      return op.emitOpError()
             << name << " takes no inf_is_zero (only sub and div)";
    if (op.getToSpad() && vop != VecOp::Copy)
      return op.emitOpError() << name << " cannot write to_spad (only copy)";

    // Sources.
    if (vop == VecOp::Fill) {
      if (op.getSrcA() != 0)
        return op.emitOpError() << "fill reads no source: src_a must be 0, "
                                   "got "
                                << op.getSrcA();
    } else if (failed(sramRows(op, "reads A from", Space::Acc, op.getSrcA(),
                               rows, accRows))) {
      return failure();
    }
    // A row broadcast reads column 0 of each src_b row, which any row has.
    if (srcBV &&
        failed(sramRows(op, "reads B from", Space::Acc, *srcBV, rows, accRows)))
      return failure();
    // Destination.
    if (op.getToSpad())
      return sramRows(op, "writes", Space::Spad, op.getDst(), rows, spadRows);
    return sramRows(op, "writes", Space::Acc, op.getDst(), rows, accRows);
  }
};

} // namespace

LogicalResult ProgramOp::verifyRegions() {
  ProgramChecker checker(*this);
  const size_t total = getBodyBlock().getOperations().size();
  for (auto [i, op] : llvm::enumerate(getBodyBlock())) {
    checker.at(i, total);
    if (failed(checker.check(&op)))
      return failure();
  }
  return success();
}
