//===- Backend.cpp - the target back ends behind one interface
//--------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::accel;

ArtifactSink::~ArtifactSink() = default;
TargetBackend::~TargetBackend() = default;

llvm::ArrayRef<const TargetBackend *> mlir::accel::getTargetBackends() {
  static const TargetBackend *const backends[] = {
      &getSystolicBackend(), &getNvptxBackend(), &getAmdgpuBackend(),
      &getCpuBackend()};
  return backends;
}

const TargetBackend *mlir::accel::lookupTargetBackend(llvm::StringRef name) {
  for (const TargetBackend *backend : getTargetBackends())
    if (backend->getName() == name)
      return backend;
  return nullptr;
}

llvm::Error mlir::accel::backendError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error mlir::accel::writeFileOrError(llvm::StringRef path,
                                          llvm::StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return backendError("cannot write '" + path + "': " + ec.message());
  os << text;
  os.close();
  // A failed write is cleared from the stream: raw_fd_ostream would
  // otherwise end the process with "LLVM ERROR" when destroyed, skipping
  // the clean-up of the caller's staging folder.
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    (void)llvm::sys::fs::remove(path);
    return backendError("cannot write '" + path + "': " + message);
  }
  return llvm::Error::success();
}

/// Checks `meta` and stages it as <kernel>.json.
bool mlir::accel::isCIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::Expected<std::string>
mlir::accel::cModuleName(ModuleOp module, const BackendOptions &opts) {
  std::string name;
  if (auto symbol = module.getSymName()) {
    name = symbol->str();
  } else {
    for (char c : llvm::sys::path::stem(opts.inputName))
      name += llvm::isAlnum(c) ? c : '_';
    if (!name.empty() && llvm::isDigit(name.front()))
      name = "m" + name;
  }
  if (!isCIdentifier(name))
    return backendError("the module name '" + name +
                        "' is not a C identifier");
  return name;
}

llvm::Expected<std::string>
mlir::accel::findTool(llvm::StringRef given,
                      llvm::ArrayRef<llvm::StringRef> names,
                      llvm::StringRef option, llvm::StringRef target) {
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
      return backendError("--target=" + target + " needs " + names.front() +
                          ", which is not on PATH nor in /usr/lib/llvm-22/bin "
                          "(give it with --" +
                          option + "=PATH)");
  }
  if (!llvm::sys::fs::can_execute(path))
    return backendError(names.front() + " '" + path + "' is not an executable");
  return path;
}

llvm::Error mlir::accel::runTool(ArtifactSink &sink, llvm::StringRef what,
                                 llvm::ArrayRef<llvm::StringRef> args) {
  std::string log = sink.temporary("tool.log");
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(args.front(), args, std::nullopt, redirects,
                                /*SecondsToWait=*/300, 0, &message);
  if (rc == 0)
    return llvm::Error::success();
  auto text = llvm::MemoryBuffer::getFile(log);
  return backendError(what + " failed" +
                      (message.empty() ? "" : ": " + message) + "\n" +
                      (text ? (*text)->getBuffer().rtrim().str() : ""));
}

std::vector<std::string> mlir::accel::systemCLibraries() {
  for (llvm::StringRef dir :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
        "/usr/lib64"}) {
    std::string libm = (dir + "/libm.so.6").str(),
                libc = (dir + "/libc.so.6").str();
    if (!llvm::sys::fs::exists(libm) || !llvm::sys::fs::exists(libc))
      continue;
    std::vector<std::string> libs = {libm, libc};
    // The dynamic loader gives thread-local state its __tls_get_addr (as
    // libc.so's linker script would add it).
    std::string loader = (dir + "/ld-linux-x86-64.so.2").str();
    if (llvm::sys::fs::exists(loader))
      libs.push_back(loader);
    return libs;
  }
  return {};
}

llvm::Error mlir::accel::linkSharedLibrary(ArtifactSink &sink,
                                           llvm::StringRef lld,
                                           llvm::StringRef libraryName,
                                           llvm::StringRef object,
                                           llvm::ArrayRef<std::string> libs) {
  std::string versionScript = sink.temporary("exports.map");
  if (llvm::Error e = writeFileOrError(versionScript,
                                       "{ global: accel_*; local: *; };\n"))
    return e;
  std::string library = sink.pathOf(libraryName);
  std::string soname = "-soname=" + libraryName.str();
  std::string exports = "--version-script=" + versionScript;
  llvm::SmallVector<llvm::StringRef> link = {
      lld,           "-shared", soname,  exports, "-z",
      "noexecstack", "-o",      library, object,  "--as-needed"};
  for (const std::string &lib : libs)
    link.push_back(lib);
  std::string what = ("linking '" + libraryName + "' with " + lld).str();
  if (llvm::Error e = runTool(sink, what, link))
    return e;
  sink.adopt(libraryName);
  return llvm::Error::success();
}

llvm::Expected<std::vector<int64_t>>
mlir::accel::partitionShardedModule(ModuleOp module,
                                    const BackendOptions &opts) {
  if (module.getOps<shard::GridOp>().empty())
    return std::vector<int64_t>();
  PassManager pm(module.getContext());
  pm.addPass(accel::createAccelShardPass());
  if (failed(pm.run(module)))
    return backendError("cannot partition '" + opts.inputName +
                        "' over its grid");
  std::vector<int64_t> grid;
  for (auto g : module.getOps<shard::GridOp>())
    grid.assign(g.getShape().begin(), g.getShape().end());
  return grid;
}

void mlir::accel::describeShardedBlocks(Operation *func,
                                        llvm::ArrayRef<int64_t> grid,
                                        std::vector<cpuabi::Buffer> &buffers,
                                        llvm::StringRef attr) {
  auto all = func->getAttrOfType<ArrayAttr>(attr);
  for (auto [i, b] : llvm::enumerate(buffers)) {
    b.wholeShape = b.shape;
    auto axes =
        all && i < all.size() ? dyn_cast<ArrayAttr>(all[i]) : ArrayAttr();
    if (!axes)
      continue;
    for (auto [d, a] : llvm::enumerate(axes)) {
      auto list = cast<DenseI64ArrayAttr>(a).asArrayRef();
      b.splitAxes.emplace_back(list.begin(), list.end());
      int64_t parts = 1;
      for (int64_t axis : list)
        parts *= grid[axis];
      if (d < b.wholeShape.size() && b.wholeShape[d] >= 0)
        b.wholeShape[d] *= parts;
    }
  }
}

llvm::Error mlir::accel::stageKernelMetadata(const KernelMetadata &meta,
                                             ArtifactSink &sink) {
  if (llvm::Error e = accel::verifyKernelMetadata(meta))
    return e;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", accel::toJsonValue(meta)) << "\n";
  return sink.add(meta.kernel + ".json", json);
}

/// The chip of a GPU target: --chip, or the target's default; an error for
/// a chip of the other vendor.
llvm::Expected<std::string>
mlir::accel::gpuChip(llvm::StringRef target, const BackendOptions &options) {
  bool amd = target == "amdgpu";
  llvm::StringRef chip = options.chip;
  if (chip.empty())
    return std::string(amd ? "gfx942" : "sm_80");
  if (accel::isAmdgpuChip(chip) != amd)
    return backendError(
        options.chipFlag + "=" + chip + " is not " +
        (amd ? "an AMD chip (gfx...)" : "an NVIDIA chip (sm_...)") +
        ", as --target=" + target + " needs");
  return chip.str();
}

namespace {
/// accel ops to kernels, the hook, kernels to images: the two GPU back ends'
/// shared flow, with their pipeline options type.
template <typename PipelineOptions>
llvm::Expected<GpuKernelSet>
compileKernels(llvm::StringRef target, llvm::StringRef pipeline,
               ModuleOp module, const BackendOptions &opts, GpuKernelHook hook,
               llvm::function_ref<llvm::Error()> check,
               llvm::function_ref<void(PassManager &, llvm::StringRef)> lower,
               llvm::StringRef image) {
  llvm::Expected<std::string> chip = gpuChip(target, opts);
  if (!chip)
    return chip.takeError();
  PipelineOptions options;
  if (failed(options.parseFromString(opts.pipelineOptions)))
    return backendError("bad --options '" + opts.pipelineOptions + "' for " +
                        pipeline);
  options.chip = *chip;
  if (llvm::Error e = check())
    return std::move(e);
  MLIRContext *ctx = module.getContext();
  GpuKernelSet set;
  set.chip = *chip;
  {
    PassManager pm(ctx);
    buildAccelToGpuKernelsPipeline(pm, options);
    if (failed(pm.run(module)))
      return backendError("cannot compile '" + opts.inputName + "' for " +
                          *chip);
  }
  set.kernels = collectGpuKernels(module, *chip);
  set.collectives = collectGpuCollectives(module);
  if (hook)
    hook(module);
  {
    PassManager pm(ctx);
    lower(pm, *chip);
    if (failed(pm.run(module)))
      return backendError("cannot lower the kernels of '" + opts.inputName +
                          "' to " + image + " for " + *chip);
  }
  set.images = collectPtx(module);
  return set;
}
} // namespace

llvm::Expected<GpuKernelSet>
mlir::accel::compileGpuKernels(llvm::StringRef target, ModuleOp module,
                               const BackendOptions &opts, GpuKernelHook hook) {
  if (target == "nvptx")
    return compileKernels<AccelNvptxPipelineOptions>(
        target, "accel-nvptx-pipeline", module, opts, hook,
        [] { return llvm::Error::success(); },
        [](PassManager &pm, llvm::StringRef chip) {
          buildGpuToPtxPipeline(pm, chip);
        },
        "PTX");
  if (target != "amdgpu")
    return backendError("'" + target + "' is not a GPU target");
  std::string toolkit = opts.rocmToolkit;
  // ld.lld links the code object; checked before compiling anything.
  auto checkLinker = [&]() -> llvm::Error {
    llvm::SmallString<256> lld(toolkit);
    llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
    if (llvm::sys::fs::can_execute(lld))
      return llvm::Error::success();
    return backendError(
        "the ROCm toolkit folder '" + toolkit +
        "' has no executable llvm/bin/ld.lld to link code objects "
        "(give one with --rocm-toolkit=DIR; a symbolic link to LLVM "
        "22's ld.lld is enough)");
  };
  return compileKernels<AccelAmdgpuPipelineOptions>(
      target, "accel-amdgpu-pipeline", module, opts, hook, checkLinker,
      [&](PassManager &pm, llvm::StringRef chip) {
        buildGpuToHsacoPipeline(pm, chip, "bin", toolkit);
      },
      "a code object");
}
