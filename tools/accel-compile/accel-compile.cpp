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
//   accel-compile in.mlir --target=systolic [--options="rows=32 cols=32"] -o DIR
//       DIR/<program>.bin   the binary of docs/systolic-binary.md
//       DIR/<program>.json  machine, buffers, predicted cycles
//   accel-compile in.mlir --target=nvptx --chip=sm_80 -o DIR
//       DIR/<kernel>.ptx    PTX (gpu-module-to-binary)
//       DIR/<kernel>.cubin  ptxas's cubin, when ptxas is found (--ptxas,
//                           PATH, /usr/local/cuda/bin)
//       DIR/<kernel>.json   launch metadata (docs/gpu-runtime.md)
//
// Every file is written to a staging folder inside DIR and renamed into
// place only when the whole compilation succeeded, so a failure leaves
// nothing behind. Names taken from the IR must be plain file names (letters,
// digits, '_', '.', '-', not starting with '.'). Errors are `error:` lines
// and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "accel/Dialect/Systolic/Translate.h"
#include "accel/InitAll.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Runtime/KernelMetadata.h"
#include "accel/Systolic/Binary.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("accel-compile options");
cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input.mlir>"),
                                   cl::Required, cl::cat(category));
cl::opt<std::string> outputDir("o", cl::desc("Output folder (created)"),
                               cl::value_desc("dir"), cl::Required,
                               cl::cat(category));
cl::opt<std::string> target("target", cl::desc("systolic or nvptx"),
                            cl::Required, cl::cat(category));
cl::opt<std::string> chip("chip",
                          cl::desc("GPU chip for --target=nvptx: sm_80, "
                                   "sm_86, sm_89, sm_90 or sm_90a"),
                          cl::init("sm_80"), cl::cat(category));
cl::opt<std::string>
    cubin("cubin",
          cl::desc("nvptx: also assemble a cubin with ptxas: auto (when "
                   "ptxas is found), yes (an error without it) or no"),
          cl::init("auto"), cl::cat(category));
cl::opt<std::string> ptxasPath("ptxas",
                               cl::desc("ptxas to use (default: PATH, then "
                                        "/usr/local/cuda/bin/ptxas)"),
                               cl::cat(category));
cl::opt<std::string>
    pipelineOptions("options",
                    cl::desc("Options of the target's pipeline, e.g. "
                             "\"rows=32 cols=32\" for systolic"),
                    cl::cat(category));

constexpr const char *kTool = "accel-compile";

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Whether `name` (from the IR) can be a file name inside the output folder:
/// no separators, no "..", nothing hidden, nothing empty.
bool isSafeName(llvm::StringRef name) {
  if (name.empty() || name.front() == '.' || name.size() > 200)
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
  });
}

/// Files produced by one run, written to a staging folder and moved into the
/// output folder only once everything succeeded.
class Staging {
public:
  llvm::Error open(llvm::StringRef dir) {
    finalDir = dir.str();
    createdDir = !llvm::sys::fs::exists(dir);
    if (std::error_code ec = llvm::sys::fs::create_directories(dir))
      return error("cannot create the output folder '" + dir +
                   "': " + ec.message());
    if (!llvm::sys::fs::is_directory(dir))
      return error("'" + dir + "' is not a folder");
    llvm::SmallString<256> model(dir);
    llvm::sys::path::append(model, ".accel-compile-%%%%%%");
    llvm::SmallString<256> path;
    if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(model, path))
      return error("cannot write into the output folder '" + dir +
                   "': " + ec.message());
    // createUniqueDirectory appends its own suffix to the model.
    stagingDir = path.str().str();
    return llvm::Error::success();
  }

  llvm::Error add(llvm::StringRef name, llvm::ArrayRef<uint8_t> bytes) {
    return add(name, llvm::StringRef(reinterpret_cast<const char *>(
                                         bytes.data()),
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
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return error("cannot write '" + path + "': " + ec.message());
    os << text;
    os.close();
    if (os.has_error())
      return error("cannot write '" + path + "': " + os.error().message());
    names.push_back(name.str());
    return llvm::Error::success();
  }
  std::string pathOf(llvm::StringRef name) const {
    llvm::SmallString<256> path(stagingDir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  }
  void adopt(llvm::StringRef name) { names.push_back(name.str()); }

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
    if (!committed)
      for (const std::string &name : names)
        llvm::sys::fs::remove(pathOf(name));
    llvm::sys::fs::remove(stagingDir);
    // A folder this run created for a failed compilation goes too.
    if (!committed && createdDir)
      llvm::sys::fs::remove(finalDir);
  }

private:
  std::string finalDir, stagingDir;
  std::vector<std::string> names;
  bool committed = false, createdDir = false;
};

llvm::json::Value configJson(const sysarray::MachineConfig &c) {
  return llvm::json::Object{
      {"rows", c.rows},
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


/// The PTX of every gpu.binary, with the launch metadata of its kernels.
llvm::Error compileNvptx(ModuleOp module, Staging &staging) {
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
        return error("ptxas failed on the PTX of @" + name.str() + " for " + chip +
                     (message.empty() ? "" : ": " + message) + "\n" +
                     logText);
      }
      staging.adopt(cubinName);
      // "Used 66 registers, used 0 barriers, 19456 bytes smem, ..."
      accel::KernelResources r;
      llvm::StringRef rest(logText);
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
      r.registers = number(" registers");
      r.staticSharedBytes = number(" bytes smem");
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
      if (llvm::Error e = accel::verifyKernelMetadata(meta))
        return e;
      std::string json;
      llvm::raw_string_ostream os(json);
      os << llvm::formatv("{0:2}", accel::toJsonValue(meta)) << "\n";
      if (llvm::Error e = staging.add(meta.kernel + ".json", json))
        return e;
    }
  }
  return llvm::Error::success();
}

llvm::Error run(MLIRContext &context) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return error("cannot parse '" + inputFilename + "'");
  Staging staging;
  if (target != "systolic" && target != "nvptx")
    return error("--target must be systolic or nvptx, got '" + target + "'");
  if (llvm::Error e = staging.open(outputDir))
    return e;
  if (llvm::Error e = target == "systolic" ? compileSystolic(*module, staging)
                                           : compileNvptx(*module, staging))
    return e;
  return staging.commit();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "accel-compile: ahead-of-time kernel artifacts "
                              "and their metadata\n");
  // The nvptx path builds its pipelines from text.
  accel::registerAllAccelPasses();
  DialectRegistry registry;
  accel::registerAllAccelDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  if (llvm::Error e = run(context)) {
    llvm::WithColor::error(llvm::errs(), kTool)
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}
