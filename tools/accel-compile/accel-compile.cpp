//===- accel-compile.cpp - ahead-of-time kernel artifacts -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Compiles the functions of a .mlir file for a target and writes, per
// kernel, the artifact and a JSON metadata file into a folder:
//
//   accel-compile in.mlir --target=systolic [--options="rows=32 cols=32"] -o
//   DIR
//       DIR/<program>.bin   the binary of docs/systolic-binary.md
//       DIR/<program>.json  machine, buffers, predicted cycles
//   accel-compile in.mlir --target=nvptx --chip=sm_80 -o DIR
//       DIR/<kernel>.ptx    PTX (gpu-module-to-binary)
//       DIR/<kernel>.cubin  ptxas's cubin, when ptxas is found (--ptxas,
//                           PATH, /usr/local/cuda/bin)
//       DIR/<kernel>.json   launch metadata (docs/gpu-runtime.md)
//   accel-compile in.mlir --target=amdgpu --chip=gfx942 -o DIR
//       DIR/<kernel>.hsaco  the code object (gpu-module-to-binary, linked
//                           by --rocm-toolkit's ld.lld)
//       DIR/<kernel>.json   launch metadata with the resource report
//                           (VGPRs, SGPRs, LDS, occupancy; also printed)
//   accel-compile in.mlir --target=cpu [--features=avx512f,...|host] -o DIR
//       DIR/<module>.o, DIR/lib<module>.so  x86-64 object and library
//       DIR/<module>.h      the C entry points (docs/aot.md)
//       DIR/<module>.json   features, versions, kernel signatures
//
// Every file is written to a staging folder inside DIR and renamed into
// place only when the whole compilation succeeded, so a failure leaves
// nothing behind. Names taken from the IR must be plain file names (letters,
// digits, '_', '.', '-', not starting with '.'). Errors are `error:` lines
// and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "CpuAbi.h"
#include "CpuSizeChecks.h"
#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Dialect/Systolic/Translate.h"
#include "accel/InitAll.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Runtime/AmdgpuCodeObject.h"
#include "accel/Runtime/KernelMetadata.h"
#include "accel/Support/CompileBudget.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "accel/Systolic/Binary.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("accel-compile options");
cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input.mlir>"),
                                   cl::Required, cl::cat(category));
cl::opt<std::string> outputDir("o", cl::desc("Output folder (created)"),
                               cl::value_desc("dir"), cl::Required,
                               cl::cat(category));
cl::opt<std::string>
    target("target",
           cl::desc("systolic, nvptx, amdgpu or cpu; several, comma "
                    "separated, write "
                    "one folder each (DIR/<target>)"),
           cl::Required, cl::cat(category));
cl::opt<std::string> chip("chip",
                          cl::desc("GPU chip: --target=nvptx sm_80 (the "
                                   "default), sm_86, sm_89, sm_90 or sm_90a; "
                                   "--target=amdgpu gfx942 (the default), "
                                   "gfx90a or gfx1100"),
                          cl::init(""), cl::cat(category));
cl::opt<std::string> rocmToolkit(
    "rocm-toolkit",
    cl::desc("amdgpu: a folder with llvm/bin/ld.lld (and amdgcn/bitcode) "
             "that links the code objects (default: the one the build "
             "made, " ACCEL_ROCM_TOOLKIT_DIR ")"),
    cl::init(ACCEL_ROCM_TOOLKIT_DIR), cl::cat(category));
cl::opt<std::string>
    cubin("cubin",
          cl::desc("nvptx: also assemble a cubin with ptxas: auto (when "
                   "ptxas is found), yes (an error without it) or no"),
          cl::init("auto"), cl::cat(category));
cl::opt<std::string> ptxasPath("ptxas",
                               cl::desc("ptxas to use (default: PATH, then "
                                        "/usr/local/cuda/bin/ptxas)"),
                               cl::cat(category));
cl::opt<std::string> cpuFeatures(
    "features",
    cl::desc("cpu: x86-64 features the code may use, comma separated "
             "(avx2,fma,avx512f,avx512bf16,...), or host; the library "
             "refuses to run on a CPU without them"),
    cl::cat(category));
cl::opt<std::string> clangPath("clang",
                               cl::desc("cpu: the C compiler for the wrapper "
                                        "(default: clang-22, clang)"),
                               cl::cat(category));
cl::opt<std::string> lldPath("ld-lld",
                             cl::desc("cpu: the linker (default: ld.lld on "
                                      "PATH or in /usr/lib/llvm-22/bin)"),
                             cl::cat(category));
cl::opt<std::string>
    pipelineOptions("options",
                    cl::desc("Options of the target's pipeline, e.g. "
                             "\"rows=32 cols=32\" for systolic"),
                    cl::cat(category));
cl::opt<uint64_t> maxConstantBytes(
    "max-constant-bytes",
    cl::desc("Refuse a module whose constants hold more bytes than this in "
             "all (default: 1 GiB)"),
    cl::init(accel::kDefaultMaxConstantBytes), cl::cat(category));
cl::opt<uint64_t> maxTensorBytes(
    "max-tensor-bytes",
    cl::desc("Refuse a module with a statically shaped tensor, memref or "
             "vector of more bytes than this (default: 16 GiB); for "
             "--target=cpu, also the most a temporary sized at run time may "
             "take (a larger one fails the call with ACCEL_ERR_ALLOC)"),
    cl::init(accel::kDefaultMaxTensorBytes), cl::cat(category));
cl::opt<double> maxCompileSeconds(
    "max-compile-seconds",
    cl::desc("Stop a compilation that takes longer than this many seconds "
             "of wall-clock time, with an error and no output (default: 0, "
             "no limit; give one for untrusted input: one MLIR pass can "
             "take unbounded time). The compilation then runs in a child "
             "process, with the programs it starts"),
    cl::init(0), cl::cat(category));
cl::opt<uint64_t> maxCompileMemory(
    "max-compile-memory",
    cl::desc("Stop a compilation whose resident memory grows past this many "
             "bytes, with an error and no output (default: 0, no limit). "
             "Like --max-compile-seconds, the compilation then runs in a "
             "child process"),
    cl::init(0), cl::cat(category));
cl::opt<uint64_t> maxOutputBytes(
    "max-output-bytes",
    cl::desc("Refuse to write artifacts of more bytes than this in all, and "
             "stop any one file (a temporary, a program's output) growing "
             "past it (default: 4 GiB; 0: no limit)"),
    cl::init(uint64_t(4) << 30), cl::cat(category));
cl::opt<bool> allowBytecode("allow-bytecode",
                            cl::desc(mlir::accel::kAllowBytecodeDescription),
                            cl::init(false), cl::cat(category));

accel::TensorSizeLimits sizeLimits() {
  accel::TensorSizeLimits limits;
  limits.maxConstantBytes = maxConstantBytes;
  limits.maxTensorBytes = maxTensorBytes;
  return limits;
}

constexpr const char *kTool = "accel-compile";

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Writes `text` to `path`. A failed write (a full disk, a file past
/// --max-output-bytes) is an error, cleared from the stream: raw_fd_ostream
/// would otherwise end the process with "LLVM ERROR" when destroyed,
/// skipping the clean-up of the staging folder.
llvm::Error writeFile(llvm::StringRef path, llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  os << text;
  os.close();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    // What was written of it goes, or the staging folder would not.
    (void)llvm::sys::fs::remove(path);
    return error("cannot write '" + path + "': " + message);
  }
  return llvm::Error::success();
}

/// Whether `name` (from the IR) can be a file name inside the output folder:
/// no separators, no "..", nothing hidden, nothing empty.
bool isSafeName(llvm::StringRef name) {
  return name.size() <= 200 && accel::isPlainFileName(name);
}

/// Whether nothing at all is at `path`: not even a dangling symbolic link
/// (fs::exists follows links, and a run that thought it made `path` would
/// remove the link).
bool isMissing(llvm::StringRef path) {
  llvm::sys::fs::file_status st;
  return bool(llvm::sys::fs::status(path, st, /*Follow=*/false));
}

/// Removes `path` if it is an empty folder, and nothing else.
void removeEmptyFolder(llvm::StringRef path) {
  (void)::rmdir(path.str().c_str());
}

/// Files produced by one run, written to a staging folder and moved into the
/// output folder only once everything succeeded.
class Staging {
public:
  llvm::Error open(llvm::StringRef dir) {
    finalDir = dir.str();
    createdDir = isMissing(dir);
    // Under a compile budget, what the parent removes if it has to stop
    // this process, reported before it exists: each folder
    // create_directories is about to make (outermost first; each goes only
    // when empty) and, below, the staging folder.
    if (createdDir) {
      llvm::SmallVector<std::string> missing;
      for (llvm::StringRef p = dir; !p.empty() && isMissing(p);
           p = llvm::sys::path::parent_path(p))
        missing.push_back(p.str());
      for (auto it = missing.rbegin(); it != missing.rend(); ++it)
        accel::removeIfStoppedAndEmpty(*it);
    }
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return error("cannot create the output folder '" + dir +
                   "': " + ec.message());
    if (!llvm::sys::fs::is_directory(dir))
      return error("'" + dir + "' is not a folder");
    llvm::SmallString<256> model(dir);
    // Stage inside DIR itself, whatever the cwd.
    if (std::error_code ec = llvm::sys::fs::make_absolute(model))
      return error("cannot resolve the output folder '" + dir +
                   "': " + ec.message());
    llvm::sys::path::append(model, ".accel-compile-%%%%%%%%%%%%");
    // A name is drawn, reported, and only then made (createUniqueDirectory
    // would make it before its name could be reported); a name that is
    // taken is withdrawn before the next draw.
    for (int attempt = 0; attempt < 64; ++attempt) {
      llvm::SmallString<256> path;
      llvm::sys::fs::createUniquePath(model, path, /*MakeAbsolute=*/false);
      accel::removeIfStopped(path);
      std::error_code ec =
          llvm::sys::fs::create_directory(path, /*IgnoreExisting=*/false);
      if (!ec) {
        stagingDir = path.str().str();
        return llvm::Error::success();
      }
      accel::keepIfStopped(path);
      if (ec != std::errc::file_exists)
        return error("cannot write into the output folder '" + dir +
                     "': " + ec.message());
    }
    return error("cannot write into the output folder '" + dir +
                 "': no free name for a staging folder");
  }

  /// The bytes of the files to be moved into the output folder.
  uint64_t stagedBytes() const {
    uint64_t total = 0;
    for (const std::string &name : names) {
      uint64_t size = 0;
      if (!llvm::sys::fs::file_size(pathOf(name), size))
        total += size;
    }
    return total;
  }

  llvm::Error add(llvm::StringRef name, llvm::ArrayRef<uint8_t> bytes) {
    return add(name,
               llvm::StringRef(reinterpret_cast<const char *>(bytes.data()),
                               bytes.size()));
  }
  llvm::Error add(llvm::StringRef name, llvm::StringRef text) {
    if (!isSafeName(name))
      return error("the name '" + name +
                   "' from the IR cannot be a file name in the output folder "
                   "(letters, digits, '_', '.', '-', not starting with '.')");
    if (llvm::is_contained(names, name.str()))
      return error("two artifacts are called '" + name + "'");
    llvm::SmallString<256> path(stagingDir);
    llvm::sys::path::append(path, name);
    if (llvm::Error e = writeFile(path, text))
      return e;
    names.push_back(name.str());
    return llvm::Error::success();
  }
  std::string pathOf(llvm::StringRef name) const {
    llvm::SmallString<256> path(stagingDir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }
  void adopt(llvm::StringRef name) { names.push_back(name.str()); }
  /// A scratch file in the staging folder, removed whatever happens.
  std::string temporary(llvm::StringRef name) {
    return pathOf(name);
  }

  /// Moves every file into the output folder.
  llvm::Error commit() {
    for (const std::string &name : names) {
      llvm::SmallString<256> to(finalDir);
      llvm::sys::path::append(to, name);
      if (std::error_code ec = llvm::sys::fs::rename(pathOf(name), to))
        return error("cannot move '" + name + "' into '" + finalDir +
                     "': " + ec.message());
    }
    committed = true;
    return llvm::Error::success();
  }

  ~Staging() {
    if (stagingDir.empty())
      return;
    // The hidden folder is this run's alone: whatever is left in it goes,
    // listed or not (a program's partial output after it failed).
    llvm::sys::fs::remove_directories(stagingDir);
    // A folder this run created for a failed compilation goes too (a
    // folder only, and only when empty: rmdir).
    if (!committed && createdDir)
      removeEmptyFolder(finalDir);
  }

  /// Fails unless every artifact can be moved into the output folder: the
  /// name there is free or a regular file (replaced). Checked before the
  /// commit, which renames file by file and so must not fail halfway.
  llvm::Error checkDestinations() const {
    for (const std::string &name : names) {
      llvm::SmallString<256> to(finalDir);
      llvm::sys::path::append(to, name);
      llvm::sys::fs::file_status st;
      if (llvm::sys::fs::status(to, st, /*Follow=*/false))
        continue; // free
      if (st.type() != llvm::sys::fs::file_type::regular_file)
        return error("cannot write '" + to +
                     "': it exists and is not a regular file");
    }
    return llvm::Error::success();
  }

private:
  std::string finalDir, stagingDir;
  std::vector<std::string> names;
  bool committed = false, createdDir = false;
};

llvm::json::Value configJson(const sysarray::MachineConfig &c) {
  return llvm::json::Object{{"rows", c.rows},
                            {"cols", c.cols},
                            {"input", sysarray::elemTypeName(c.inputType)},
                            {"accumulator", sysarray::elemTypeName(c.accType)},
                            {"spad_rows", c.spadRows},
                            {"spad_banks", c.spadBanks},
                            {"acc_rows", c.accRows},
                            {"acc_banks", c.accBanks},
                            {"dram_bytes_per_cycle", c.dramBytesPerCycle},
                            {"dram_latency", c.dramLatency},
                            {"vector_lanes", c.vectorLanes}};
}

llvm::Error compileSystolic(ModuleOp module, Staging &staging) {
  accel::AccelSystolicPipelineOptions options;
  if (failed(options.parseFromString(pipelineOptions)))
    return error("bad --options '" + pipelineOptions +
                 "' for accel-systolic-pipeline");
  PassManager pm(module.getContext());
  accel::buildAccelSystolicPipeline(pm, options);
  if (failed(pm.run(module)))
    return error("cannot compile '" + inputFilename +
                 "' for the systolic array");
  unsigned count = 0;
  for (auto programOp : module.getOps<systolic::ProgramOp>()) {
    FailureOr<sysarray::Program> program = systolic::toProgram(programOp);
    if (failed(program))
      return error("program @" + programOp.getSymName() + " does not verify");
    std::string name = program->name;
    if (llvm::Error e =
            staging.add(name + ".bin", sysarray::encodeProgram(*program)))
      return e;
    llvm::json::Array buffers;
    for (const sysarray::Buffer &b : program->buffers) {
      llvm::json::Array shape;
      for (int64_t d : b.shape)
        shape.push_back(d);
      buffers.push_back(llvm::json::Object{
          {"name", b.name},
          {"role", b.role == sysarray::BufferRole::Arg      ? "arg"
                   : b.role == sysarray::BufferRole::Result ? "result"
                                                            : "scratch"},
          {"position", b.position},
          {"dtype", sysarray::elemTypeName(b.type)},
          {"shape", std::move(shape)},
          {"bytes", b.sizeBytes()}});
    }
    llvm::json::Object meta{
        {"format_version", 1},
        {"compiler", std::string("accel ") + ACCEL_VERSION_STRING},
        {"target", "systolic"},
        {"kernel", name},
        {"artifact", name + ".bin"},
        {"machine", configJson(program->config)},
        {"buffers", std::move(buffers)},
        {"instructions", uint64_t(program->instructions.size())}};
    if (auto predicted =
            programOp->getAttrOfType<IntegerAttr>("predicted_cycles"))
      meta["predicted_cycles"] = predicted.getInt();
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(meta))) << "\n";
    if (llvm::Error e = staging.add(name + ".json", json))
      return e;
    ++count;
  }
  if (!count)
    return error("'" + inputFilename + "' has no function to compile");
  return llvm::Error::success();
}

/// Checks `meta` and stages it as <kernel>.json.
llvm::Error stageKernelMetadata(const accel::KernelMetadata &meta,
                                Staging &staging) {
  if (llvm::Error e = accel::verifyKernelMetadata(meta))
    return e;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", accel::toJsonValue(meta)) << "\n";
  return staging.add(meta.kernel + ".json", json);
}

/// The chip of a GPU target: --chip, or the target's default; an error for
/// a chip of the other vendor.
llvm::Expected<std::string> gpuChip(llvm::StringRef target) {
  bool amd = target == "amdgpu";
  if (chip.empty())
    return std::string(amd ? "gfx942" : "sm_80");
  if (accel::isAmdgpuChip(chip) != amd)
    return error("--chip=" + chip + " is not " +
                 (amd ? "an AMD chip (gfx...)" : "an NVIDIA chip (sm_...)") +
                 ", as --target=" + target + " needs");
  return std::string(chip);
}

/// The code object of every gpu.binary, with the launch metadata and the
/// resource report of its kernels.
llvm::Error compileAmdgpu(ModuleOp module, Staging &staging) {
  llvm::Expected<std::string> gfx = gpuChip("amdgpu");
  if (!gfx)
    return gfx.takeError();
  MLIRContext *ctx = module.getContext();
  accel::AccelAmdgpuPipelineOptions options;
  if (failed(options.parseFromString(pipelineOptions)))
    return error("bad --options '" + pipelineOptions +
                 "' for accel-amdgpu-pipeline");
  options.chip = *gfx;
  // ld.lld links the code object; check before compiling anything.
  llvm::SmallString<256> lld(rocmToolkit);
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  if (!llvm::sys::fs::can_execute(lld))
    return error("the ROCm toolkit folder '" + rocmToolkit +
                 "' has no executable llvm/bin/ld.lld to link code objects "
                 "(give one with --rocm-toolkit=DIR; a symbolic link to LLVM "
                 "22's ld.lld is enough)");
  {
    PassManager pm(ctx);
    accel::buildAccelToGpuKernelsPipeline(pm, options);
    if (failed(pm.run(module)))
      return error("cannot compile '" + inputFilename + "' for " + *gfx);
  }
  std::vector<accel::GpuKernel> kernels =
      accel::collectGpuKernels(module, *gfx);
  if (kernels.empty())
    return error("'" + inputFilename + "' has no function to compile");
  {
    PassManager pm(ctx);
    accel::buildGpuToHsacoPipeline(pm, *gfx, "bin", rocmToolkit);
    if (failed(pm.run(module)))
      return error("cannot lower the kernels of '" + inputFilename +
                   "' to a code object for " + *gfx);
  }
  for (auto &[name, object] : accel::collectPtx(module)) {
    std::string hsacoName = (name + ".hsaco").str();
    if (llvm::Error e = staging.add(
            hsacoName, llvm::ArrayRef<uint8_t>(
                           reinterpret_cast<const uint8_t *>(object.data()),
                           object.size())))
      return e;
    for (accel::GpuKernel &kernel : kernels) {
      if (kernel.module != name)
        continue;
      accel::KernelMetadata &meta = kernel.metadata;
      llvm::Expected<accel::AmdgpuKernelResources> res =
          accel::readAmdgpuKernelResources(object, meta.kernel, *gfx);
      if (!res)
        return error("the code object of @" + meta.kernel + ": " +
                     llvm::toString(res.takeError()));
      int64_t threads = meta.block[0] * meta.block[1] * meta.block[2];
      int64_t lds = res->groupSegmentBytes + meta.dynamicSharedBytes;
      accel::KernelResources r;
      // The note's VGPR count includes the AGPRs on CDNA.
      r.registers = res->vgprs;
      r.staticSharedBytes = res->groupSegmentBytes;
      r.spillBytes = res->privateSegmentBytes;
      accel::KernelResources::Amdgpu a;
      a.vgprs = res->vgprs;
      a.agprs = res->agprs;
      a.sgprs = res->sgprs;
      a.allocatedVgprs = res->allocatedVgprs;
      a.scratchBytes = res->privateSegmentBytes;
      a.wavefrontSize = res->wavefrontSize;
      a.wavesPerSimd =
          accel::estimateAmdgpuWavesPerSimd(*res, *gfx, lds, threads);
      r.amdgpu = a;
      meta.resources = r;
      meta.hsaco = hsacoName;
      if (llvm::Error e = stageKernelMetadata(meta, staging))
        return e;
      // The resource report, one line per kernel.
      llvm::outs() << llvm::formatv(
          "{0} ({1}, wave{2}): {3} VGPRs ({4} allocated, {5} of them AGPRs), "
          "{6} "
          "SGPRs, {7} bytes LDS ({8} static + {9} dynamic), {10} bytes "
          "scratch, {11} spilled VGPRs, occupancy {12} waves/SIMD\n",
          meta.kernel, *gfx, res->wavefrontSize, res->vgprs,
          res->allocatedVgprs, res->agprs, res->sgprs, lds,
          res->groupSegmentBytes, meta.dynamicSharedBytes,
          res->privateSegmentBytes, res->vgprSpills, a.wavesPerSimd);
    }
  }
  return llvm::Error::success();
}

/// The PTX of every gpu.binary, with the launch metadata of its kernels.
llvm::Error compileNvptx(ModuleOp module, Staging &staging) {
  llvm::Expected<std::string> sm = gpuChip("nvptx");
  if (!sm)
    return sm.takeError();
  const std::string &chip = *sm;
  if (cubin != "auto" && cubin != "yes" && cubin != "no")
    return error("--cubin must be auto, yes or no, got '" + cubin + "'");
  MLIRContext *ctx = module.getContext();
  // 1. accel ops -> gpu.module kernels carrying their launch attributes.
  accel::AccelNvptxPipelineOptions options;
  if (failed(options.parseFromString(pipelineOptions)))
    return error("bad --options '" + pipelineOptions +
                 "' for accel-nvptx-pipeline");
  options.chip = chip;
  {
    PassManager pm(ctx);
    accel::buildAccelToGpuKernelsPipeline(pm, options);
    if (failed(pm.run(module)))
      return error("cannot compile '" + inputFilename + "' for " + chip);
  }
  std::vector<accel::GpuKernel> kernels =
      accel::collectGpuKernels(module, chip);
  if (kernels.empty())
    return error("'" + inputFilename + "' has no function to compile");
  // 2. The kernels to PTX.
  {
    PassManager pm(ctx);
    accel::buildGpuToPtxPipeline(pm, chip);
    if (failed(pm.run(module)))
      return error("cannot lower the kernels of '" + inputFilename +
                   "' to PTX for " + chip);
  }
  // 3. PTX, cubin and metadata per kernel module.
  std::string ptxas;
  if (cubin != "no") {
    if (!ptxasPath.empty())
      ptxas = ptxasPath;
    else if (auto found = llvm::sys::findProgramByName("ptxas"))
      ptxas = *found;
    else if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
      ptxas = "/usr/local/cuda/bin/ptxas";
    if (ptxas.empty() && cubin == "yes")
      return error("--cubin=yes needs ptxas, which is not on PATH nor in "
                   "/usr/local/cuda/bin (give it with --ptxas=PATH)");
    if (!ptxas.empty() && !llvm::sys::fs::can_execute(ptxas))
      return error("ptxas '" + ptxas + "' is not an executable");
  }
  for (auto &[name, text] : accel::collectPtx(module)) {
    std::string ptxName = (name + ".ptx").str(), cubinName;
    if (llvm::Error e = staging.add(ptxName, text))
      return e;
    std::optional<accel::KernelResources> resources;
    if (!ptxas.empty()) {
      cubinName = (name + ".cubin").str();
      std::string out = staging.pathOf(cubinName);
      std::string log = staging.pathOf((name + ".ptxas.log").str());
      std::string arch = "-arch=" + chip;
      std::string in = staging.pathOf(ptxName);
      llvm::StringRef args[] = {ptxas, arch, "-v", in, "-o", out};
      std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
      std::string message;
      int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/120, 0, &message);
      auto text = llvm::MemoryBuffer::getFile(log);
      std::string logText = text ? (*text)->getBuffer().str() : "";
      llvm::sys::fs::remove(log);
      if (rc != 0) {
        llvm::sys::fs::remove(out);
        return error("ptxas failed on the PTX of @" + name.str() + " for " +
                     chip + (message.empty() ? "" : ": " + message) + "\n" +
                     logText);
      }
      staging.adopt(cubinName);
      // "Used 66 registers, used 0 barriers, 19456 bytes smem, ..." and,
      // on its own line, "... 0 bytes spill stores, ...". Other lines may
      // say "registers" too (sm_90a: "warpgroup.arrive is injected ... to
      // allow use of registers in GMMA"): each number is read on its line.
      accel::KernelResources r;
      llvm::StringRef ptxasLog(logText), rest;
      auto lineWith = [&](llvm::StringRef what) {
        size_t at = ptxasLog.find(what);
        if (at == llvm::StringRef::npos)
          return llvm::StringRef();
        size_t begin = ptxasLog.rfind('\n', at);
        begin = begin == llvm::StringRef::npos ? 0 : begin + 1;
        return ptxasLog.slice(begin, ptxasLog.find('\n', at));
      };
      auto number = [&](llvm::StringRef before) -> int64_t {
        size_t at = rest.find(before);
        if (at == llvm::StringRef::npos)
          return 0;
        llvm::StringRef head = rest.take_front(at).rtrim();
        size_t space = head.find_last_of(" ");
        int64_t v = 0;
        (void)head.substr(space + 1).getAsInteger(10, v);
        return v;
      };
      rest = lineWith(": Used ");
      r.registers = number(" registers");
      r.staticSharedBytes = number(" bytes smem");
      rest = lineWith(" bytes spill stores");
      r.spillBytes = number(" bytes spill stores");
      resources = r;
    }
    for (accel::GpuKernel &kernel : kernels) {
      if (kernel.module != name)
        continue;
      accel::KernelMetadata &meta = kernel.metadata;
      meta.resources = resources;
      meta.ptx = ptxName;
      meta.cubin = cubinName;
      if (llvm::Error e = stageKernelMetadata(meta, staging))
        return e;
    }
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// --target=cpu: an x86-64 object and shared library per module, with a C
// header and JSON metadata (docs/aot.md).
//===----------------------------------------------------------------------===//

bool isCIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `program` from --clang/--ld-lld, else PATH, else LLVM 22's bin folder.
llvm::Expected<std::string> findTool(llvm::StringRef given,
                                     llvm::ArrayRef<llvm::StringRef> names,
                                     llvm::StringRef option) {
  std::string path;
  if (!given.empty()) {
    path = given.str();
  } else {
    for (llvm::StringRef name : names) {
      if (auto found = llvm::sys::findProgramByName(name)) {
        path = *found;
        break;
      }
      std::string llvmBin = ("/usr/lib/llvm-22/bin/" + name).str();
      if (llvm::sys::fs::can_execute(llvmBin)) {
        path = llvmBin;
        break;
      }
    }
    if (path.empty())
      return error("--target=cpu needs " + names.front() +
                   ", which is not on PATH nor in /usr/lib/llvm-22/bin "
                   "(give it with --" +
                   option + "=PATH)");
  }
  if (!llvm::sys::fs::can_execute(path))
    return error(names.front() + " '" + path + "' is not an executable");
  return path;
}

/// Runs a tool; its output goes into the error when it fails.
llvm::Error runTool(Staging &staging, llvm::StringRef what,
                    llvm::ArrayRef<llvm::StringRef> args) {
  std::string log = staging.temporary("tool.log");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(args.front(), args, std::nullopt, redirects,
                                /*SecondsToWait=*/300, 0, &message);
  if (rc == 0)
    return llvm::Error::success();
  auto text = llvm::MemoryBuffer::getFile(log);
  return error(what + " failed" + (message.empty() ? "" : ": " + message) +
               "\n" + (text ? (*text)->getBuffer().rtrim().str() : ""));
}

/// The C ABI's view of one argument or result type.
llvm::Expected<accel::cpuabi::Buffer>
abiBuffer(Type type, llvm::StringRef function, llvm::StringRef what) {
  auto shaped = dyn_cast<ShapedType>(type);
  auto memref = dyn_cast<MemRefType>(type);
  bool ok = shaped && shaped.hasRank() &&
            (isa<RankedTensorType>(type) ||
             (memref && memref.getLayout().isIdentity())) &&
            shaped.getRank() <= accel::cpuabi::kMaxRank &&
            (shaped.getElementType().isIntOrFloat()) &&
            shaped.getElementType().getIntOrFloatBitWidth() % 8 == 0;
  if (!ok) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return error("@" + function + ": " + what + " has type " + text +
                 ", which the C ABI cannot pass (ranked tensors or "
                 "identity-layout memrefs of rank <= 8, of whole-byte "
                 "integers or floats)");
  }
  accel::cpuabi::Buffer b;
  llvm::raw_string_ostream(b.dtype) << shaped.getElementType();
  b.elemBytes = shaped.getElementType().getIntOrFloatBitWidth() / 8;
  for (int64_t d : shaped.getShape())
    b.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return b;
}

/// Functions the lowered code may call: C library and libm (the code
/// generator turns math intrinsics into libm calls). Anything else, such as
/// libmlir_c_runner_utils' memrefCopy, would be missing when the library
/// is loaded.
bool isLibcCall(llvm::StringRef name) {
  static const llvm::StringRef allowed[] = {
      "malloc", "free",    "aligned_alloc", "calloc", "realloc",
      "memcpy", "memmove", "memset",        "abort"};
  return llvm::is_contained(allowed, name);
}

llvm::Error compileCpu(ModuleOp module, Staging &staging) {
  namespace abi = accel::cpuabi;
  MLIRContext *ctx = module.getContext();
  abi::Artifact artifact;
  artifact.triple = "x86_64-unknown-linux-gnu";
  // 1. The CPU and the features the code may use (and the wrapper checks).
  std::string llvmFeatures;
  artifact.cpu = "x86-64";
  if (cpuFeatures == "host") {
    artifact.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &f : llvm::sys::getHostCPUFeatures()) {
      llvmFeatures += (llvmFeatures.empty() ? "" : ",") +
                      std::string(f.second ? "+" : "-") + f.first().str();
    }
    for (const abi::Feature &f : abi::knownFeatures())
      if (llvm::sys::getHostCPUFeatures().lookup(f.name))
        artifact.features.push_back(f.name);
  } else if (!cpuFeatures.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(cpuFeatures).split(parts, ',');
    for (llvm::StringRef part : parts) {
      if (!abi::lookupFeature(part)) {
        std::string known;
        for (const abi::Feature &f : abi::knownFeatures())
          known += (known.empty() ? "" : ", ") + std::string(f.name);
        return error("unknown CPU feature '" + part +
                     "' in --features (known: " + known + "; or host)");
      }
      if (!llvm::is_contained(artifact.features, part.str())) {
        artifact.features.push_back(part.str());
        llvmFeatures += (llvmFeatures.empty() ? "+" : ",+") + part.str();
      }
    }
  }
  // 2. The module's name and the public functions' C signatures.
  if (auto name = module.getSymName()) {
    artifact.module = name->str();
  } else {
    for (char c : llvm::sys::path::stem(inputFilename))
      artifact.module += llvm::isAlnum(c) ? c : '_';
    if (!artifact.module.empty() && llvm::isDigit(artifact.module.front()))
      artifact.module = "m" + artifact.module;
  }
  if (!isCIdentifier(artifact.module))
    return error("the module name '" + artifact.module +
                 "' is not a C identifier");
  // The lowered code calls these for its temporaries; a function of the
  // module under one of their names would take the call (or clash with the
  // wrapper's definition).
  for (Operation &op : module.getBody()->getOperations()) {
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (!symbol)
      continue;
    llvm::StringRef name = symbol.getName();
    for (const abi::RuntimeFunction &r : abi::runtimeFunctions())
      if (name == r.lowered || name == abi::runtimeSymbol(artifact, r.suffix))
        return error("the function name '" + name +
                     "' is reserved for the library's allocation functions");
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    abi::Kernel kernel;
    kernel.name = func.getSymName().str();
    if (!isCIdentifier(kernel.name))
      return error("the function name '" + kernel.name +
                   "' is not a C identifier");
    FunctionType type = func.getFunctionType();
    llvm::raw_string_ostream(kernel.signature) << type;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto b = abiBuffer(t, kernel.name, "argument " + std::to_string(i));
      if (!b)
        return b.takeError();
      kernel.args.push_back(std::move(*b));
    }
    for (auto [i, t] : llvm::enumerate(type.getResults())) {
      auto b = abiBuffer(t, kernel.name, "result " + std::to_string(i));
      if (!b)
        return b.takeError();
      kernel.results.push_back(std::move(*b));
    }
    // Sizes the ops relate, checked by the wrapper before the kernel runs
    // (an 8x16 A with an 8x4 B would read past B).
    kernel.sizeChecks = abi::collectSizeChecks(func);
    // Makes the lowering emit `_mlir_ciface_<name>`, which takes memref
    // descriptors by pointer: the wrapper's stable target.
    func->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
    artifact.kernels.push_back(std::move(kernel));
  }
  if (artifact.kernels.empty())
    return error("'" + inputFilename + "' has no function to compile");
  llvm::Expected<std::string> clang =
      findTool(clangPath, {"clang-22", "clang"}, "clang");
  if (!clang)
    return clang.takeError();
  llvm::Expected<std::string> lld = findTool(lldPath, {"ld.lld"}, "ld-lld");
  if (!lld)
    return lld.takeError();

  // 3. accel ops -> LLVM dialect, sequential code (no OpenMP runtime).
  accel::AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(pipelineOptions)))
    return error("bad --options '" + pipelineOptions +
                 "' for accel-cpu-pipeline");
  options.threads = 1;
  // Temporaries sized at run time are checked and allocated through the
  // wrapper, which turns a failure into ACCEL_ERR_ALLOC (docs/aot.md).
  options.guardAllocations = true;
  options.maxAllocationBytes = maxTensorBytes;
  // Never empty: an empty list would let the pipeline take features from
  // the module's accel.target that the target machine does not have.
  options.cpuFeatures = artifact.features.empty()
                            ? artifact.cpu
                            : llvm::join(artifact.features, ",");
  {
    PassManager pm(ctx);
    accel::buildAccelCpuPipeline(pm, options);
    if (failed(pm.run(module)))
      return error("cannot compile '" + inputFilename + "' for the CPU");
  }
  // Folding makes constants of its own (a tensor.splat of a constant becomes
  // a splat constant of its full shape): check them again before LLVM
  // materializes them.
  if (failed(accel::checkConstantSizes(module, maxConstantBytes)))
    return error("'" + inputFilename + "' is too large to compile");

  // 4. LLVM IR, optimized and compiled for the target machine.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(artifact.triple);
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget)
    return error("--target=cpu needs LLVM's X86 back end: " + message);
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, artifact.cpu, llvmFeatures, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, artifact.module);
  if (!llvmModule)
    return error("cannot translate '" + inputFilename + "' to LLVM IR");
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // The allocation functions get the names the wrapper defines them under
  // (no function of the module has them: checked in step 2).
  llvm::StringSet<> runtime;
  for (const abi::RuntimeFunction &r : abi::runtimeFunctions()) {
    std::string name = abi::runtimeSymbol(artifact, r.suffix);
    if (llvm::Function *f = llvmModule->getFunction(r.lowered))
      f->setName(name);
    runtime.insert(name);
  }
  for (llvm::Function &f : *llvmModule)
    if (f.isDeclaration() && !f.isIntrinsic() && !isLibcCall(f.getName()) &&
        !runtime.contains(f.getName()))
      return error("the lowered code calls '" + f.getName() +
                   "', which is not in the C library; the shared library "
                   "could not be loaded without it");
  if (llvm::Error e = makeOptimizingTransformer(/*optLevel=*/3,
                                                /*sizeLevel=*/0, machine.get())(
          llvmModule.get()))
    return e;
  llvm::SmallString<0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return error("LLVM cannot emit an object file for " + artifact.cpu);
    codegen.run(*llvmModule);
  }

  // 5. The header, the C wrapper (baseline x86-64: its CPU check must run
  //    anywhere), one relocatable object with both, the shared library.
  std::string m = artifact.module;
  if (llvm::Error e = staging.add(m + ".h", abi::headerText(artifact)))
    return e;
  std::string kernelObject = staging.temporary("kernels.o");
  std::string wrapperSource = staging.temporary("wrapper.c");
  std::string wrapperObject = staging.temporary("wrapper.o");
  std::string versionScript = staging.temporary("exports.map");
  for (auto [path, text] :
       {std::pair<std::string, std::string>{kernelObject, object.str().str()},
        {wrapperSource, abi::wrapperText(artifact)},
        // Only the C ABI is exported: the kernels' own symbols (`f`,
        // `_mlir_ciface_f`) stay inside the library.
        {versionScript, "{ global: accel_*; local: *; };\n"}}) {
    if (llvm::Error e = writeFile(path, text))
      return e;
  }
  std::string include = "-I" + llvm::sys::path::parent_path(kernelObject).str();
  if (llvm::Error e = runTool(
          staging, "compiling the C wrapper of '" + m + "' with " + *clang,
          {*clang, "--target=x86_64-unknown-linux-gnu", "-march=x86-64", "-O2",
           "-fPIC", "-std=c11", include, "-c", wrapperSource, "-o",
           wrapperObject}))
    return e;
  std::string objectName = m + ".o", libraryName = "lib" + m + ".so";
  std::string objectPath = staging.pathOf(objectName);
  std::string libraryPath = staging.pathOf(libraryName);
  if (llvm::Error e =
          runTool(staging, "linking '" + objectName + "' with " + *lld,
                  {*lld, "-r", kernelObject, wrapperObject, "-o", objectPath}))
    return e;
  staging.adopt(objectName);
  // libc and libm as DT_NEEDED when they are where Debian and most
  // distributions keep them; otherwise their symbols stay undefined and
  // come from the program that loads the library.
  llvm::SmallVector<std::string> libs;
  for (llvm::StringRef dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
        "/usr/lib64"}) {
    std::string libm = (dir + "/libm.so.6").str(),
                libc = (dir + "/libc.so.6").str();
    if (llvm::sys::fs::exists(libm) && llvm::sys::fs::exists(libc)) {
      libs = {libm, libc};
      // The dynamic loader gives the wrapper's thread-local state its
      // __tls_get_addr (as libc.so's linker script would add it).
      std::string loader = (dir + "/ld-linux-x86-64.so.2").str();
      if (llvm::sys::fs::exists(loader))
        libs.push_back(loader);
      break;
    }
  }
  // compiler-rt's builtins: without f16c or avx512bf16 LLVM turns f16 and
  // bf16 conversions into calls of __extendhfsf2, __truncsfbf2, ...; the
  // static archive gives the library the few it calls (kept local by the
  // version script), so it loads on any x86-64.
  for (llvm::StringRef candidate :
       {"/usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.builtins-x86_64.a",
        "/usr/lib/llvm-22/lib/clang/22/lib/x86_64-pc-linux-gnu/"
        "libclang_rt.builtins.a"})
    if (llvm::sys::fs::exists(candidate)) {
      libs.push_back(candidate.str());
      break;
    }
  std::string soname = "-soname=" + libraryName;
  std::string exports = "--version-script=" + versionScript;
  llvm::SmallVector<llvm::StringRef> link = {
      *lld,          "-shared", soname,      exports,    "-z",
      "noexecstack", "-o",      libraryPath, objectPath, "--as-needed"};
  for (const std::string &lib : libs)
    link.push_back(lib);
  if (llvm::Error e =
          runTool(staging, "linking '" + libraryName + "' with " + *lld, link))
    return e;
  staging.adopt(libraryName);
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", abi::metadata(artifact)) << "\n";
  return staging.add(m + ".json", json);
}

/// What is checked before anything is moved into place, for all of a run's
/// stagings: the artifacts' bytes in all against --max-output-bytes, that
/// every destination can take its file (so no rename fails halfway), and,
/// under a compile budget, leave to commit.
llvm::Error prepareCommit(llvm::ArrayRef<const Staging *> stagings) {
  uint64_t bytes = 0;
  for (const Staging *staging : stagings)
    bytes += staging->stagedBytes();
  if (maxOutputBytes != 0 && bytes > maxOutputBytes)
    return error("the artifacts take " + llvm::Twine(bytes) +
                 " bytes, more than --max-output-bytes=" +
                 llvm::Twine(uint64_t(maxOutputBytes)) +
                 "; nothing was written");
  for (const Staging *staging : stagings)
    if (llvm::Error e = staging->checkDestinations())
      return e;
  if (!accel::mayCommit())
    return error("the compilation ran out of --max-compile-seconds");
  return llvm::Error::success();
}

/// Caps every file this process and the programs it runs write at
/// --max-output-bytes (RLIMIT_FSIZE, the soft limit: a write past it fails
/// with EFBIG instead of raising SIGXFSZ), so that no single file can fill
/// the disk before the total is checked.
void limitFileSizes() {
  // A write past any file-size limit (this one or the caller's `ulimit
  // -f`) is an error to report and clean up after, not a signal.
  std::signal(SIGXFSZ, SIG_IGN);
  if (maxOutputBytes == 0)
    return;
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0)
    return;
  rlim_t want = rlim_t(uint64_t(maxOutputBytes));
  if (limit.rlim_max != RLIM_INFINITY && want > limit.rlim_max)
    want = limit.rlim_max;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= want)
    return;
  limit.rlim_cur = want;
  (void)setrlimit(RLIMIT_FSIZE, &limit);
}

llvm::Error run(MLIRContext &context, std::unique_ptr<llvm::MemoryBuffer> file) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  // Input that would crash MLIR or exhaust the memory of the compiler or of
  // the compiled code is refused before anything is staged (ToolInput.h).
  accel::ToolInputOptions inputOptions;
  inputOptions.allowBytecode = allowBytecode;
  inputOptions.sizeLimits = sizeLimits();
  accel::ToolInputError why;
  OwningOpRef<ModuleOp> module = accel::loadToolInput(
      std::move(file), sourceMgr, context, llvm::errs(), inputOptions, &why);
  if (!module)
    return error(why == accel::ToolInputError::TooLarge
                     ? "'" + inputFilename + "' is too large to compile"
                     : "cannot parse '" + inputFilename + "'");
  llvm::SmallVector<llvm::StringRef> targets;
  llvm::StringRef(target).split(targets, ',');
  for (auto [i, t] : llvm::enumerate(targets)) {
    if (t != "systolic" && t != "nvptx" && t != "amdgpu" && t != "cpu")
      return error("--target must be systolic, nvptx, amdgpu or cpu (or "
                   "several, comma separated), got '" +
                   t + "'");
    if (llvm::is_contained(llvm::ArrayRef(targets).take_front(i), t))
      return error("--target names '" + t + "' twice");
  }
  auto compileFor = [&](llvm::StringRef t, ModuleOp m, Staging &staging) {
    return t == "systolic" ? compileSystolic(m, staging)
           : t == "nvptx"  ? compileNvptx(m, staging)
           : t == "amdgpu" ? compileAmdgpu(m, staging)
                           : compileCpu(m, staging);
  };
  if (targets.size() == 1) {
    Staging staging;
    if (llvm::Error e = staging.open(outputDir))
      return e;
    if (llvm::Error e = compileFor(targets.front(), *module, staging))
      return e;
    if (llvm::Error e = prepareCommit({&staging}))
      return e;
    return staging.commit();
  }
  // Several targets: one folder each, DIR/<target>, all written or none.
  if (!pipelineOptions.empty())
    return error("--options are one target's pipeline options: give one "
                 "--target with them");
  bool createdDir = isMissing(outputDir);
  // DIR itself is made by the first target's create_directories: reported
  // here, so that a stopped run removes it too when it is empty.
  if (createdDir)
    accel::removeIfStoppedAndEmpty(outputDir);
  std::vector<std::unique_ptr<Staging>> stagings;
  auto fail = [&](llvm::Error e) {
    stagings.clear(); // removes what each staged, and the folders it made
    if (createdDir)
      removeEmptyFolder(outputDir);
    return e;
  };
  for (llvm::StringRef t : targets) {
    stagings.push_back(std::make_unique<Staging>());
    llvm::SmallString<256> dir(outputDir);
    llvm::sys::path::append(dir, t);
    if (llvm::Error e = stagings.back()->open(dir))
      return fail(std::move(e));
    // Each target's pipeline rewrites the module: a copy each.
    OwningOpRef<ModuleOp> copy = module->clone();
    if (llvm::Error e = compileFor(t, *copy, *stagings.back()))
      return fail(error(t + ": " + llvm::toString(std::move(e))));
  }
  llvm::SmallVector<const Staging *> all;
  for (std::unique_ptr<Staging> &staging : stagings)
    all.push_back(staging.get());
  if (llvm::Error e = prepareCommit(all))
    return fail(std::move(e));
  for (std::unique_ptr<Staging> &staging : stagings)
    if (llvm::Error e = staging->commit())
      return fail(std::move(e));
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "accel-compile: ahead-of-time kernel artifacts "
                              "and their metadata\n");
  limitFileSizes();
  // Read before a budget's fork: the child, in a process group of its own,
  // must not read a terminal.
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &message);
  if (!file) {
    llvm::WithColor::error(llvm::errs(), kTool) << message << "\n";
    return 1;
  }
  // Under a budget the rest runs in a child process; this one waits
  // and exits with its code. Before the MLIRContext: its threads would not
  // survive the fork.
  accel::CompileBudget budget;
  budget.seconds = maxCompileSeconds;
  budget.residentBytes = maxCompileMemory;
  if (std::optional<int> code =
          accel::runWithCompileBudget(budget, kTool, llvm::errs()))
    return *code;
  // The nvptx path builds its pipelines from text.
  accel::registerAllAccelPasses();
  DialectRegistry registry;
  accel::registerAllAccelDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  // A located error is enough; the op dumped in generic form after it (the
  // whole module, for a pass-level error) is noise to a user of this tool.
  context.printOpOnDiagnostic(false);
  if (llvm::Error e = run(context, std::move(file))) {
    llvm::WithColor::error(llvm::errs(), kTool)
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}
