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

#include "accel/InitAll.h"
#include "accel/Runtime/KernelMetadata.h"
#include "accel/Support/CompileBudget.h"
#include "accel/Support/InputLimits.h"
#include "accel/Support/ToolInput.h"
#include "accel/Target/Backend.h"
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
class Staging final : public accel::ArtifactSink {
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

  using accel::ArtifactSink::add;
  llvm::Error add(llvm::StringRef name, llvm::StringRef text) override {
    if (!isSafeName(name))
      return error("the name '" + name +
                   "' from the IR cannot be a file name in the output folder "
                   "(letters, digits, '_', '.', '-', not starting with '.')");
    if (llvm::is_contained(names, name.str()))
      return error("two artifacts are called '" + name + "'");
    llvm::SmallString<256> path(stagingDir);
    llvm::sys::path::append(path, name);
    if (llvm::Error e = accel::writeFileOrError(path, text))
      return e;
    names.push_back(name.str());
    return llvm::Error::success();
  }
  std::string pathOf(llvm::StringRef name) const override {
    llvm::SmallString<256> path(stagingDir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }
  void adopt(llvm::StringRef name) override { names.push_back(name.str()); }
  /// A scratch file in the staging folder, removed whatever happens.
  std::string temporary(llvm::StringRef name) override { return pathOf(name); }

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

llvm::Error run(MLIRContext &context,
                std::unique_ptr<llvm::MemoryBuffer> file) {
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
    if (!accel::lookupTargetBackend(t))
      return error("--target must be systolic, nvptx, amdgpu or cpu (or "
                   "several, comma separated), got '" +
                   t + "'");
    if (llvm::is_contained(llvm::ArrayRef(targets).take_front(i), t))
      return error("--target names '" + t + "' twice");
  }
  // The back end does the work (include/accel/Target/Backend.h); the tool
  // reads the input, stages and commits.
  accel::BackendOptions options;
  options.inputName = inputFilename;
  options.pipelineOptions = pipelineOptions;
  options.chip = chip;
  options.cubin = cubin;
  options.ptxas = ptxasPath;
  options.rocmToolkit = rocmToolkit;
  options.cpuFeatures = cpuFeatures;
  options.clang = clangPath;
  options.lld = lldPath;
  options.maxConstantBytes = maxConstantBytes;
  options.maxTensorBytes = maxTensorBytes;
  auto compileFor = [&](llvm::StringRef t, ModuleOp m, Staging &staging) {
    return accel::lookupTargetBackend(t)->compile(m, staging, options);
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
