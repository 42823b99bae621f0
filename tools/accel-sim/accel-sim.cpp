//===- accel-sim.cpp - run a systolic program on the simulator ------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Runs one systolic program on the cycle-level simulator and reports its
// statistics (docs/systolic-simulator.md, section "accel-sim"):
//
//   accel-sim PROGRAM [--program=@name] [--input FILE.npy]... [--seed N]
//             [--mode=default|scalesim] [--save-outputs DIR]
//             [--json FILE]
//
// PROGRAM is a binary (docs/systolic-binary.md) or MLIR text holding
// systolic.program ops. The argument buffers get the --input files in
// position order, or seeded random data; result buffers start as 0xFF bytes
// (NaN for floats) so that an element no mvout wrote stands out; scratch
// starts at zero.
//
// Every error is one `accel-sim: error:` line (after the MLIR diagnostics
// when the text does not parse or verify) and exit code 1. Output files are
// written to temporaries and renamed into place only once all of them have
// been written, so a failed run leaves none behind.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/Translate.h"
#include "accel/InitAll.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "accel/Systolic/Binary.h"
#include "accel/Systolic/Simulator.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;
namespace endian = llvm::support::endian;
using sysarray::Buffer;
using sysarray::BufferRole;
using sysarray::ElemType;
using sysarray::Program;
using sysarray::SimStats;
using sysarray::TimingMode;

namespace {

cl::OptionCategory category("accel-sim options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<program: binary or .mlir>"),
                                   cl::Required, cl::cat(category));
cl::opt<std::string>
    programName("program",
                cl::desc("The systolic.program to run (@name or name), when "
                         "the module has several"),
                cl::value_desc("@name"), cl::cat(category));
cl::list<std::string>
    inputFiles("input",
               cl::desc("A .npy file for the next argument buffer, in "
                        "position order (one per argument, or none)"),
               cl::value_desc("file.npy"), cl::cat(category));
cl::opt<uint64_t> seed("seed",
                       cl::desc("Seed of the random arguments used without "
                                "--input"),
                       cl::init(1), cl::cat(category));
cl::opt<TimingMode>
    mode("mode", cl::desc("Timing model"), cl::init(TimingMode::Default),
         cl::cat(category),
         cl::values(clEnumValN(TimingMode::Default, "default",
                               "Gemmini-like decoupled DMA and execute units"),
                    clEnumValN(TimingMode::ScaleSim, "scalesim",
                               "SCALE-Sim v2's compute-cycle model")));
cl::opt<std::string> saveOutputs(
    "save-outputs",
    cl::desc("Write each result buffer to DIR/<name>.npy (DIR is created "
             "when missing; bf16 is saved as float32)"),
    cl::value_desc("dir"), cl::cat(category));
cl::opt<std::string> statsJson(
    "json",
    cl::desc("Write the statistics, the machine and the DRAM assumption as "
             "JSON"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<bool> allowBytecode("allow-bytecode",
                            cl::desc(mlir::accel::kAllowBytecodeDescription),
                            cl::init(false), cl::cat(category));

constexpr const char *kTool = "accel-sim";
/// accel-sim refuses programs whose buffers need more memory than this: a
/// binary may declare buffers of up to 2^48 bytes each.
constexpr uint64_t kMaxTotalBytes = uint64_t(8) << 30;

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Python's spelling of a shape, as .npy headers and numpy users write it:
/// "(20, 30)", "(5,)", "()".
std::string shapeTuple(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// "20x30" ("scalar" for rank 0).
std::string shapeDims(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

/// The shortest decimal that reads back as `v`, so that checksums are exact
/// and still short for integers.
std::string formatDouble(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// The program in `inputFilename`. It is a binary when it starts with the
/// magic or holds a NUL byte (MLIR text never does, so a binary with a
/// damaged magic still reaches the decoder and gets its message), MLIR text
/// otherwise.
llvm::Expected<Program> loadProgram(MLIRContext &context) {
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(inputFilename,
                                                 /*IsText=*/false);
  if (std::error_code ec = file.getError())
    return error("cannot read '" + inputFilename + "': " + ec.message());
  StringRef bytes = (*file)->getBuffer();
  StringRef want = StringRef(programName).ltrim('@');

  // MLIR bytecode has NUL bytes too, but it is MLIR, read below (only when
  // allowed: malformed bytecode can crash MLIR's reader).
  if (!isBytecode((*file)->getMemBufferRef()) &&
      (bytes.starts_with(
           StringRef(sysarray::kBinaryMagic, sizeof(sysarray::kBinaryMagic))) ||
       bytes.contains('\0'))) {
    // Not verified: the simulator checks every instruction it runs, and
    // this tool is also how a hand-made binary gets tested against it.
    llvm::Expected<Program> program =
        sysarray::decodeProgram(llvm::arrayRefFromStringRef(bytes));
    if (!program)
      return error("'" + inputFilename +
                   "': " + llvm::toString(program.takeError()));
    if (!want.empty() && program->name != want)
      return error("'" + inputFilename + "' holds program @" + program->name +
                   ", not @" + want);
    return program;
  }

  // Input that would crash MLIR is refused with a located error
  // (ToolInput.h). Verification is left to toProgram, which verifies the one
  // program run: a broken sibling in the module does not stop it.
  bool bytecode = isBytecode((*file)->getMemBufferRef());
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  accel::ToolInputOptions inputOptions;
  inputOptions.allowBytecode = allowBytecode;
  inputOptions.verifyAfterParse = false;
  OwningOpRef<ModuleOp> module = accel::loadToolInput(
      std::move(*file), sourceMgr, context, llvm::errs(), inputOptions);
  if (!module)
    return error("cannot parse '" + inputFilename + "'" +
                 (bytecode && !allowBytecode
                      ? ""
                      : " (neither a systolic binary nor MLIR text)"));

  llvm::Expected<systolic::ProgramOp> selected = systolic::selectProgram(
      *module, want, inputFilename, ": pick one with --program=@name");
  if (!selected)
    return selected.takeError();
  systolic::ProgramOp chosen = *selected;
  FailureOr<Program> program = systolic::toProgram(chosen);
  if (failed(program))
    return error("@" + chosen.getSymName() + " in '" + inputFilename +
                 "' does not verify");
  return std::move(*program);
}

/// The argument buffers' indices by position. The decoder does not check
/// what the verifier does about the buffer table, and this tool relies on
/// it: distinct names (they name the output files) and argument positions
/// 0..n-1, each once (they bind the --input files).
llvm::Expected<SmallVector<unsigned>> argumentBuffers(const Program &p) {
  llvm::StringMap<unsigned> names;
  unsigned numArgs = 0;
  for (auto [i, b] : llvm::enumerate(p.buffers)) {
    auto [it, fresh] = names.try_emplace(b.name, i);
    if (!fresh)
      return error("'" + inputFilename + "': buffers " +
                   llvm::Twine(it->second) + " and " + llvm::Twine(i) +
                   " are both named '" + b.name + "'");
    numArgs += b.role == BufferRole::Arg;
  }
  SmallVector<unsigned> args(numArgs, ~0u);
  for (auto [i, b] : llvm::enumerate(p.buffers)) {
    if (b.role != BufferRole::Arg)
      continue;
    if (b.position >= numArgs || args[b.position] != ~0u)
      return error("'" + inputFilename + "': argument buffer " +
                   llvm::Twine(i) + " '" + b.name + "' has position " +
                   llvm::Twine(b.position) + "; the " + llvm::Twine(numArgs) +
                   " arguments need positions 0.." +
                   llvm::Twine(numArgs ? numArgs - 1 : 0) + ", each once");
    args[b.position] = i;
  }
  return args;
}

//===----------------------------------------------------------------------===//
// .npy files (numpy/lib/format.py: magic "\x93NUMPY", version, header
// length, a Python dict literal with descr, fortran_order and shape, data)
//===----------------------------------------------------------------------===//

struct NpyFile {
  std::unique_ptr<llvm::MemoryBuffer> file;
  std::string descr;
  SmallVector<int64_t> shape;
  StringRef data;
};

/// The value of `key` in a .npy header dict, up to the next top-level comma.
std::optional<StringRef> dictValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == StringRef::npos)
      return std::nullopt;
    return rest.take_front(close + 1);
  }
  return rest.take_front(rest.find_first_of(",}")).trim();
}

llvm::Expected<NpyFile> readNpy(StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return error("'" + path + "': " + why);
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (std::error_code ec = file.getError())
    return error("cannot read '" + path + "': " + ec.message());
  StringRef bytes = (*file)->getBuffer();
  if (!bytes.starts_with("\x93NUMPY"))
    return fail("not a .npy file (bad magic)");
  size_t headerLen = 0, headerStart = 0;
  uint8_t major = bytes.size() > 6 ? uint8_t(bytes[6]) : 0;
  if (major == 1) {
    headerStart = 10;
    if (bytes.size() >= headerStart)
      headerLen = endian::read16le(bytes.data() + 8);
  } else if (major == 2 || major == 3) {
    headerStart = 12;
    if (bytes.size() >= headerStart)
      headerLen = endian::read32le(bytes.data() + 8);
  } else {
    return fail("unsupported .npy version " + llvm::Twine(unsigned(major)));
  }
  if (bytes.size() < headerStart || bytes.size() - headerStart < headerLen)
    return fail("truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLen);

  NpyFile npy;
  std::optional<StringRef> descr = dictValue(header, "descr");
  std::optional<StringRef> fortran = dictValue(header, "fortran_order");
  std::optional<StringRef> shape = dictValue(header, "shape");
  bool shapeOk = shape && shape->starts_with("(") && shape->ends_with(")");
  if (shapeOk) {
    SmallVector<StringRef> dims;
    shape->drop_front().drop_back().split(dims, ',', -1, /*KeepEmpty=*/false);
    for (StringRef d : dims) {
      int64_t n;
      shapeOk &= !d.trim().getAsInteger(10, n) && n >= 0;
      npy.shape.push_back(n);
    }
  }
  if (!descr || !fortran || !shapeOk)
    return fail("cannot read the .npy header " + header.trim());
  if (*fortran != "False")
    return fail("Fortran-ordered arrays are not supported (save with "
                "np.ascontiguousarray)");
  npy.descr = descr->trim("'\"").str();
  npy.data = bytes.drop_front(headerStart + headerLen);
  npy.file = std::move(*file);
  return npy;
}

/// Writes `data` (little-endian elements of `descr`) as a version 1.0 .npy
/// file.
void writeNpy(llvm::raw_ostream &os, StringRef descr,
              llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<uint8_t> data) {
  std::string header =
      "{'descr': '" + descr.str() +
      "', 'fortran_order': False, 'shape': " + shapeTuple(shape) + ", }";
  // numpy pads the header with spaces and a newline so the data starts at a
  // multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  char prefix[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
  endian::write16le(prefix + 8, uint16_t(header.size()));
  os.write(prefix, sizeof(prefix));
  os << header;
  os.write(reinterpret_cast<const char *>(data.data()), data.size());
}

/// Copies the .npy file `path` into argument buffer `b`. The dtype must be
/// the buffer's own ('|i1', '<i4', '<f4'), except that a bf16 buffer takes
/// '<f4' (rounded to nearest even) or '<u2' (the bits), and an i8 one
/// '|b1' (a boolean mask's bytes).
llvm::Error loadInput(StringRef path, const Buffer &b,
                      std::vector<uint8_t> &bytes) {
  llvm::Expected<NpyFile> npy = readNpy(path);
  if (!npy)
    return npy.takeError();
  // '<' little-endian, '|' not applicable (one byte), '=' native; this
  // tool, like the simulator, assumes a little-endian host.
  StringRef kind = npy->descr;
  if (kind.size() == 3 && StringRef("<|=").contains(kind[0]))
    kind = kind.drop_front();
  bool fromF32 = false, ok = false;
  const char *expected = "";
  switch (b.type) {
  case ElemType::I8:
    // A bool array's bytes (0 or 1) are an i1 tensor's storage: an
    // attention's boolean mask (the program reads it with `unpack mask`).
    ok = kind == "i1" || kind == "b1";
    expected = "'|i1' (int8) or '|b1' (bool)";
    break;
  case ElemType::I32:
    ok = kind == "i4";
    expected = "'<i4' (int32)";
    break;
  case ElemType::F32:
    ok = kind == "f4";
    expected = "'<f4' (float32)";
    break;
  case ElemType::BF16:
    fromF32 = kind == "f4";
    ok = fromF32 || kind == "u2";
    expected = "'<f4' (float32, rounded to bf16) or '<u2' (bf16 bits)";
    break;
  }
  std::string argument = "argument " + std::to_string(b.position) + " '" +
                         b.name + "' (" + sysarray::elemTypeName(b.type) +
                         ", shape " + shapeTuple(b.shape) + ")";
  if (!ok)
    return error("'" + path + "': dtype '" + npy->descr + "' does not fit " +
                 argument + ": expected " + expected);
  if (llvm::ArrayRef<int64_t>(npy->shape) != llvm::ArrayRef(b.shape))
    return error("'" + path + "': shape " + shapeTuple(npy->shape) +
                 " does not match " + argument);
  uint64_t width = fromF32 ? 4 : sysarray::elemBytes(b.type);
  if (npy->data.size() != b.numElements() * width)
    return error("'" + path + "': holds " + llvm::Twine(npy->data.size()) +
                 " data bytes, shape " + shapeTuple(npy->shape) + " of '" +
                 npy->descr + "' needs " +
                 llvm::Twine(b.numElements() * width));
  if (!fromF32) {
    // Both sides are little-endian byte sequences.
    std::memcpy(bytes.data(), npy->data.data(), bytes.size());
    return llvm::Error::success();
  }
  for (uint64_t i = 0, e = b.numElements(); i < e; ++i) {
    float f = llvm::bit_cast<float>(endian::read32le(npy->data.data() + 4 * i));
    endian::write16le(bytes.data() + 2 * i, sysarray::floatToBF16(f));
  }
  return llvm::Error::success();
}

/// Seeded random data: i8 uniform in [-128, 127], i32 in [-32768, 32767],
/// f32 and bf16 uniform in [-1, 1) (multiples of 2^-23, rounded to bf16).
/// mt19937_64's output is fixed by the C++ standard, so a seed gives the same
/// data everywhere.
void randomFill(const Buffer &b, std::vector<uint8_t> &bytes,
                std::mt19937_64 &rng) {
  for (uint64_t i = 0, e = b.numElements(); i < e; ++i) {
    switch (b.type) {
    case ElemType::I8:
      bytes[i] = uint8_t(rng() >> 56);
      break;
    case ElemType::I32:
      endian::write32le(bytes.data() + 4 * i,
                        uint32_t(int32_t(rng() >> 48) - 32768));
      break;
    case ElemType::F32:
    case ElemType::BF16: {
      float f = float(double(rng() >> 40) * 0x1p-23 - 1.0);
      if (b.type == ElemType::F32)
        endian::write32le(bytes.data() + 4 * i, llvm::bit_cast<uint32_t>(f));
      else
        endian::write16le(bytes.data() + 2 * i, sysarray::floatToBF16(f));
      break;
    }
    }
  }
}

/// Element `i` of a buffer as a double (exact for every element type).
double element(const Buffer &b, const std::vector<uint8_t> &bytes, uint64_t i) {
  const uint8_t *p = bytes.data() + i * sysarray::elemBytes(b.type);
  switch (b.type) {
  case ElemType::I8:
    return int8_t(*p);
  case ElemType::I32:
    return int32_t(endian::read32le(p));
  case ElemType::BF16:
    return sysarray::bf16ToFloat(endian::read16le(p));
  case ElemType::F32:
    return llvm::bit_cast<float>(endian::read32le(p));
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

/// Output files go to temporaries next to them and are renamed into place
/// only once every one has been written; otherwise the destructor removes
/// the temporaries and the folders it created.
class Staging {
public:
  ~Staging() {
    for (auto &[temp, path] : files)
      llvm::sys::fs::remove(temp);
    for (const std::string &dir : createdDirs) // deepest first
      llvm::sys::fs::remove(dir);
  }

  llvm::Error makeDir(StringRef dir) {
    llvm::SmallString<128> p(dir);
    while (p.size() > 1 && llvm::sys::path::is_separator(p.back()))
      p.pop_back();
    for (llvm::SmallString<128> q = p; !q.empty() && !llvm::sys::fs::exists(q);
         llvm::sys::path::remove_filename(q))
      createdDirs.push_back(q.str().str());
    if (std::error_code ec = llvm::sys::fs::create_directories(p))
      return error("cannot create directory '" + dir + "': " + ec.message());
    return llvm::Error::success();
  }

  llvm::Error add(StringRef path,
                  llvm::function_ref<void(llvm::raw_ostream &)> write) {
    auto fail = [&](std::error_code ec) {
      return error("cannot write '" + path + "': " + ec.message());
    };
    // Checked now: renaming onto a folder would fail only after other
    // outputs were already in place.
    if (llvm::sys::fs::is_directory(path))
      return fail(std::make_error_code(std::errc::is_a_directory));
    llvm::SmallString<128> temp;
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueFile(path + "-%%%%%%.tmp", fd, temp))
      return fail(ec);
    files.push_back({temp.str().str(), path.str()});
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    write(os);
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return fail(ec);
    }
    return llvm::Error::success();
  }

  llvm::Error commit() {
    for (auto &[temp, path] : files) {
      if (std::error_code ec = llvm::sys::fs::rename(temp, path))
        return error("cannot write '" + path + "': " + ec.message());
      temp.clear(); // renamed: nothing to remove
    }
    files.clear();
    createdDirs.clear();
    return llvm::Error::success();
  }

private:
  SmallVector<std::pair<std::string, std::string>> files; // temp, final
  SmallVector<std::string> createdDirs;
};

struct Checksum {
  unsigned buffer;
  double sum = 0, maxAbs = 0;
  uint64_t nans = 0;
};

void writeStatsJson(llvm::raw_ostream &os, const Program &p, const SimStats &s,
                    llvm::ArrayRef<Checksum> sums) {
  const sysarray::MachineConfig &c = p.config;
  llvm::json::OStream j(os, 2);
  auto number = [&](StringRef key, double v) {
    if (std::isfinite(v))
      j.attribute(key, v);
    else
      j.attribute(key, nullptr); // JSON has no NaN or infinity
  };
  j.object([&] {
    j.attribute("program", p.name);
    j.attribute("mode", sysarray::timingModeName(mode));
    j.attributeObject("config", [&] {
      j.attribute("rows", c.rows);
      j.attribute("cols", c.cols);
      j.attribute("inputType", sysarray::elemTypeName(c.inputType));
      j.attribute("accType", sysarray::elemTypeName(c.accType));
      j.attribute("spadRows", c.spadRows);
      j.attribute("spadWidth", c.spadWidth());
      j.attribute("spadBanks", c.spadBanks);
      j.attribute("accRows", c.accRows);
      j.attribute("accBanks", c.accBanks);
      j.attribute("dramBytesPerCycle", c.dramBytesPerCycle);
      j.attribute("dramLatency", c.dramLatency);
      j.attribute("vectorLanes", c.vectorLanes);
    });
    j.attributeObject("dram", [&] {
      bool ideal = mode == TimingMode::ScaleSim;
      j.attribute("bytesPerCycle", c.dramBytesPerCycle);
      j.attribute("latencyCycles", c.dramLatency);
      j.attribute("applied", !ideal);
      j.attribute("assumption",
                  ideal ? "ideal DRAM (infinite bandwidth, no stalls); the "
                          "machine's bandwidth and latency are not applied"
                        : "every DMA request occupies its channel for "
                          "ceil(bytes / bytesPerCycle) cycles and lands "
                          "latencyCycles later");
    });
    j.attributeObject("stats", [&] {
      j.attribute("cycles", s.cycles);
      j.attribute("computeCycles", s.computeCycles);
      j.attribute("stallCycles", s.stallCycles);
      j.attribute("macs", s.macs);
      number("peUtilization", s.peUtilization);
      number("mappingEfficiency", s.mappingEfficiency);
      number("computeUtilization", s.computeUtilization);
      j.attribute("folds", s.folds);
      j.attribute("dramReadBytes", s.dramReadBytes);
      j.attribute("dramWriteBytes", s.dramWriteBytes);
      j.attribute("spadReadBytes", s.spadReadBytes);
      j.attribute("spadWriteBytes", s.spadWriteBytes);
      j.attribute("accReadBytes", s.accReadBytes);
      j.attribute("accWriteBytes", s.accWriteBytes);
      j.attribute("bankConflictCycles", s.bankConflictCycles);
      j.attribute("vectorCycles", s.vectorCycles);
      j.attribute("dmaBusyCycles", s.dmaBusyCycles);
      j.attribute("instructions", s.instructions);
      j.attribute("vectorInstructions", s.vectorInstructions);
      j.attribute("skippedInstructions", s.skippedInstructions);
    });
    j.attributeArray("results", [&] {
      for (const Checksum &sum : sums) {
        const Buffer &b = p.buffers[sum.buffer];
        j.object([&] {
          j.attribute("name", b.name);
          j.attribute("position", b.position);
          j.attribute("type", sysarray::elemTypeName(b.type));
          j.attributeArray("shape", [&] {
            for (int64_t d : b.shape)
              j.value(d);
          });
          number("sum", sum.sum);
          number("maxAbs", sum.maxAbs);
          j.attribute("nans", sum.nans);
        });
      }
    });
  });
  os << "\n";
}

llvm::Error run(MLIRContext &context) {
  llvm::Expected<Program> loaded = loadProgram(context);
  if (!loaded)
    return loaded.takeError();
  const Program &program = *loaded;
  llvm::Expected<SmallVector<unsigned>> args = argumentBuffers(program);
  if (!args)
    return args.takeError();

  uint64_t total = 0;
  for (const Buffer &b : program.buffers)
    total += b.sizeBytes(); // each at most 2^48: no overflow
  if (total > kMaxTotalBytes)
    return error("@" + program.name + "'s buffers need " + llvm::Twine(total) +
                 " bytes; accel-sim allocates at most " +
                 llvm::Twine(kMaxTotalBytes) + " bytes");

  std::vector<std::vector<uint8_t>> buffers;
  for (const Buffer &b : program.buffers)
    buffers.emplace_back(b.sizeBytes(),
                         b.role == BufferRole::Result ? 0xFF : 0x00);

  if (!inputFiles.empty() && inputFiles.size() != args->size()) {
    std::string names;
    for (unsigned i : *args)
      names += (names.empty() ? "" : ", ") + program.buffers[i].name;
    return error(llvm::Twine(inputFiles.size()) + " --input files for @" +
                 program.name + ", which takes " + llvm::Twine(args->size()) +
                 " arguments" + (names.empty() ? "" : " (" + names + ")"));
  }
  std::mt19937_64 rng(seed);
  for (auto [position, index] : llvm::enumerate(*args)) {
    if (inputFiles.empty())
      randomFill(program.buffers[index], buffers[index], rng);
    else if (llvm::Error e = loadInput(inputFiles[position],
                                       program.buffers[index], buffers[index]))
      return e;
  }

  llvm::Expected<SimStats> stats =
      sysarray::simulate(program, buffers, sysarray::SimOptions{mode});
  if (!stats)
    return error("simulating @" + program.name + ": " +
                 llvm::toString(stats.takeError()));

  // Results in position order.
  SmallVector<Checksum> sums;
  for (auto [i, b] : llvm::enumerate(program.buffers))
    if (b.role == BufferRole::Result)
      sums.push_back({unsigned(i)});
  llvm::sort(sums, [&](const Checksum &x, const Checksum &y) {
    return std::pair(program.buffers[x.buffer].position, x.buffer) <
           std::pair(program.buffers[y.buffer].position, y.buffer);
  });
  for (Checksum &sum : sums) {
    const Buffer &b = program.buffers[sum.buffer];
    for (uint64_t i = 0, e = b.numElements(); i < e; ++i) {
      double v = element(b, buffers[sum.buffer], i);
      sum.sum += v;
      if (std::isnan(v))
        ++sum.nans;
      else
        sum.maxAbs = std::max(sum.maxAbs, std::fabs(v));
    }
  }

  Staging staging;
  if (!saveOutputs.empty()) {
    if (llvm::Error e = staging.makeDir(saveOutputs))
      return e;
    for (const Checksum &sum : sums) {
      const Buffer &b = program.buffers[sum.buffer];
      llvm::SmallString<128> path(saveOutputs);
      llvm::sys::path::append(path, b.name + ".npy");
      const std::vector<uint8_t> &bytes = buffers[sum.buffer];
      auto write = [&](llvm::raw_ostream &os) {
        if (b.type != ElemType::BF16) {
          const char *descr = b.type == ElemType::I8    ? "|i1"
                              : b.type == ElemType::I32 ? "<i4"
                                                        : "<f4";
          writeNpy(os, descr, b.shape, bytes);
          return;
        }
        // bf16 widens to float32 exactly; numpy has no bf16 dtype.
        std::vector<uint8_t> widened(b.numElements() * 4);
        for (uint64_t i = 0, e = b.numElements(); i < e; ++i)
          endian::write32le(widened.data() + 4 * i,
                            llvm::bit_cast<uint32_t>(sysarray::bf16ToFloat(
                                endian::read16le(bytes.data() + 2 * i))));
        writeNpy(os, "<f4", b.shape, widened);
      };
      if (llvm::Error e = staging.add(path, write))
        return e;
    }
  }
  if (!statsJson.empty())
    if (llvm::Error e = staging.add(statsJson, [&](llvm::raw_ostream &os) {
          writeStatsJson(os, program, *stats, sums);
        }))
      return e;
  if (llvm::Error e = staging.commit())
    return e;

  llvm::raw_ostream &os = llvm::outs();
  os << kTool << ": @" << program.name << ", " << sysarray::timingModeName(mode)
     << " timing, ";
  if (inputFiles.empty())
    os << "random arguments (seed " << seed << ")\n";
  else
    os << "arguments from " << inputFiles.size() << " .npy files\n";
  os << sysarray::formatStats(program, *stats, mode) << "\n";
  for (const Checksum &sum : sums) {
    const Buffer &b = program.buffers[sum.buffer];
    os << b.name << ": " << sysarray::elemTypeName(b.type) << " "
       << shapeDims(b.shape) << ", sum " << formatDouble(sum.sum)
       << ", max abs " << formatDouble(sum.maxAbs);
    if (sum.nans)
      os << ", " << sum.nans << " NaN";
    os << "\n";
  }
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "runs a systolic program on the cycle-level simulator "
      "(docs/systolic-simulator.md)\n");
  DialectRegistry registry;
  mlir::accel::registerAllAccelDialects(registry);
  MLIRContext context(registry);
  context.loadDialect<systolic::SystolicDialect>();
  if (llvm::Error e = run(context)) {
    llvm::WithColor::error(llvm::errs(), kTool)
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}
