//===- CpuBackend.cpp - the x86-64 CPU back end
//-----------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-cpu-pipeline (sequential), LLVM's X86 back end, a C wrapper
// (CpuAbi.h) compiled by clang and linked by ld.lld: an object, a shared
// library, a C header and JSON metadata per module (docs/aot.md).
//
//===----------------------------------------------------------------------===//

#include "../Internal.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Support/InputLimits.h"
#include "accel/Target/CpuAbi.h"
#include "accel/Target/CpuSizeChecks.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::accel;

namespace {

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
    return backendError("@" + function + ": " + what + " has type " + text +
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

llvm::Error compileCpu(ModuleOp module, ArtifactSink &sink,
                       const BackendOptions &opts) {
  namespace abi = accel::cpuabi;
  MLIRContext *ctx = module.getContext();
  abi::Artifact artifact;
  artifact.triple = "x86_64-unknown-linux-gnu";
  // 1. The CPU and the features the code may use (and the wrapper checks).
  std::string llvmFeatures;
  artifact.cpu = "x86-64";
  if (opts.cpuFeatures == "host") {
    artifact.cpu = llvm::sys::getHostCPUName().str();
    for (const auto &f : llvm::sys::getHostCPUFeatures()) {
      llvmFeatures += (llvmFeatures.empty() ? "" : ",") +
                      std::string(f.second ? "+" : "-") + f.first().str();
    }
    for (const abi::Feature &f : abi::knownFeatures())
      if (llvm::sys::getHostCPUFeatures().lookup(f.name))
        artifact.features.push_back(f.name);
  } else if (!opts.cpuFeatures.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(opts.cpuFeatures).split(parts, ',');
    for (llvm::StringRef part : parts) {
      if (!abi::lookupFeature(part)) {
        std::string known;
        for (const abi::Feature &f : abi::knownFeatures())
          known += (known.empty() ? "" : ", ") + std::string(f.name);
        return backendError("unknown CPU feature '" + part +
                            "' in --features (known: " + known + "; or host)");
      }
      if (!llvm::is_contained(artifact.features, part.str())) {
        artifact.features.push_back(part.str());
        llvmFeatures += (llvmFeatures.empty() ? "+" : ",+") + part.str();
      }
    }
  }
  // 2. The module's name and the public functions' C signatures.
  llvm::Expected<std::string> moduleName = cModuleName(module, opts);
  if (!moduleName)
    return moduleName.takeError();
  artifact.module = *moduleName;
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
        return backendError(
            "the function name '" + name +
            "' is reserved for the library's allocation functions");
  }
  // A sharded module: each process's functions (local shapes), with what
  // each buffer is a block of (accel-shard; docs/distributed.md).
  llvm::Expected<std::vector<int64_t>> grid =
      partitionShardedModule(module, opts);
  if (!grid)
    return grid.takeError();
  artifact.grid = std::move(*grid);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    abi::Kernel kernel;
    kernel.name = func.getSymName().str();
    if (!isCIdentifier(kernel.name))
      return backendError("the function name '" + kernel.name +
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
    if (!artifact.grid.empty()) {
      describeShardedBlocks(func, artifact.grid, kernel.args,
                            "accel.arg_split_axes");
      describeShardedBlocks(func, artifact.grid, kernel.results,
                            "accel.result_split_axes");
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
    return backendError("'" + opts.inputName + "' has no function to compile");
  llvm::Expected<std::string> clang =
      findTool(opts.clang, {"clang-22", "clang"}, "clang", "cpu");
  if (!clang)
    return clang.takeError();
  llvm::Expected<std::string> lld = findTool(opts.lld, {"ld.lld"}, "ld-lld", "cpu");
  if (!lld)
    return lld.takeError();

  // 3. accel ops -> LLVM dialect.
  accel::AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(opts.pipelineOptions)))
    return backendError("bad --options '" + opts.pipelineOptions +
                        "' for accel-cpu-pipeline");
  // Parallel loops call the wrapper's parallel-for (its own threads or the
  // caller's pool; docs/aot.md, "Threads"): no OpenMP runtime is linked.
  if (options.threads < 1 || options.threads > 1024)
    return backendError("--options 'threads=" +
                        std::to_string(int64_t(options.threads)) +
                        "': a CPU library runs on 1 to 1024 threads "
                        "(docs/aot.md, \"Threads\")");
  options.parallelForCalls = true;
  // Results the kernel allocates are written into the caller's buffers
  // (accel.result_args below), unless --options says otherwise (an A/B).
  if (!options.resultsInPlace.getNumOccurrences())
    options.resultsInPlace = true;
  artifact.threads = options.threads;
  // Temporaries sized at run time are checked and allocated through the
  // wrapper, which turns a failure into ACCEL_ERR_ALLOC (docs/aot.md).
  options.guardAllocations = true;
  options.maxAllocationBytes = opts.maxTensorBytes;
  // Never empty: an empty list would let the pipeline take features from
  // the module's accel.target that the target machine does not have.
  options.cpuFeatures = artifact.features.empty()
                            ? artifact.cpu
                            : llvm::join(artifact.features, ",");
  {
    PassManager pm(ctx);
    accel::buildAccelCpuPipeline(pm, options);
    if (failed(pm.run(module)))
      return backendError("cannot compile '" + opts.inputName +
                          "' for the CPU");
  }
  // Results the kernel writes into buffers it is given, appended to its
  // arguments (accel-cpu-results-in-place), with the alignment its
  // accesses assume of each; `_mlir_ciface_` must take exactly those.
  for (abi::Kernel &k : artifact.kernels) {
    auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(k.name);
    auto ciface =
        module.lookupSymbol<LLVM::LLVMFuncOp>("_mlir_ciface_" + k.name);
    if (!f || !ciface)
      return backendError("the CPU pipeline lost the function '" + k.name +
                          "'");
    auto moved = f->getAttrOfType<DenseI64ArrayAttr>("accel.result_args");
    auto aligns =
        f->getAttrOfType<DenseI64ArrayAttr>("accel.result_arg_alignments");
    if (moved)
      for (auto [j, r] : llvm::enumerate(moved.asArrayRef())) {
        if (r < 0 || size_t(r) >= k.results.size() || !aligns ||
            aligns.size() != moved.size())
          return backendError("the function '" + k.name +
                              "' has a malformed accel.result_args");
        k.resultArgs.push_back(r);
        k.resultArgAlignments.push_back(std::max<int64_t>(1, aligns[j]));
      }
    size_t expected =
        (k.results.empty() ? 0 : 1) + k.args.size() + k.resultArgs.size();
    if (ciface.getNumArguments() != expected)
      return backendError("the function '" + k.name + "' takes " +
                          std::to_string(ciface.getNumArguments()) +
                          " descriptors after lowering, not " +
                          std::to_string(expected));
  }
  // Folding makes constants of its own (a tensor.splat of a constant becomes
  // a splat constant of its full shape): check them again before LLVM
  // materializes them.
  if (failed(accel::checkConstantSizes(module, opts.maxConstantBytes)))
    return backendError("'" + opts.inputName + "' is too large to compile");

  // 4. LLVM IR, optimized and compiled for the target machine.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(artifact.triple);
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget)
    return backendError("--target=cpu needs LLVM's X86 back end: " + message);
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, artifact.cpu, llvmFeatures, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, artifact.module);
  if (!llvmModule)
    return backendError("cannot translate '" + opts.inputName + "' to LLVM IR");
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
        !runtime.contains(f.getName()) &&
        !(!artifact.grid.empty() && f.getName().starts_with("MPI_")))
      return backendError(
          "the lowered code calls '" + f.getName() +
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
      return backendError("LLVM cannot emit an object file for " +
                          artifact.cpu);
    codegen.run(*llvmModule);
  }

  // 5. The header, the C wrapper (baseline x86-64: its CPU check must run
  //    anywhere), one relocatable object with both, the shared library.
  std::string m = artifact.module;
  if (llvm::Error e = sink.add(m + ".h", abi::headerText(artifact)))
    return e;
  std::string kernelObject = sink.temporary("kernels.o");
  std::string wrapperSource = sink.temporary("wrapper.c");
  std::string wrapperObject = sink.temporary("wrapper.o");
  for (auto [path, text] :
       {std::pair<std::string, std::string>{kernelObject, object.str().str()},
        {wrapperSource, abi::wrapperText(artifact)}}) {
    if (llvm::Error e = writeFileOrError(path, text))
      return e;
  }
  std::string include = "-I" + llvm::sys::path::parent_path(kernelObject).str();
  if (llvm::Error e =
          runTool(sink, "compiling the C wrapper of '" + m + "' with " + *clang,
                  {*clang, "--target=x86_64-unknown-linux-gnu", "-march=x86-64",
                   "-O2", "-fPIC", "-std=c11", include, "-c", wrapperSource,
                   "-o", wrapperObject}))
    return e;
  std::string objectName = m + ".o", libraryName = "lib" + m + ".so";
  std::string objectPath = sink.pathOf(objectName);
  if (llvm::Error e =
          runTool(sink, "linking '" + objectName + "' with " + *lld,
                  {*lld, "-r", kernelObject, wrapperObject, "-o", objectPath}))
    return e;
  sink.adopt(objectName);
  // libc and libm as DT_NEEDED when they are where Debian and most
  // distributions keep them; otherwise their symbols stay undefined and
  // come from the program that loads the library.
  std::vector<std::string> libs = systemCLibraries();
  // A sharded module's collectives call MPICH (the ABI the mpi lowering
  // targets): libmpich.so.12 is DT_NEEDED, so the library loads in an MPI
  // program and refuses to load where MPICH is missing.
  if (!artifact.grid.empty()) {
    std::string mpich;
    for (llvm::StringRef dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
                                "/usr/lib/x86_64-linux-gnu/mpich/lib"})
      if (llvm::sys::fs::exists(dir + "/libmpich.so.12")) {
        mpich = (dir + "/libmpich.so.12").str();
        break;
      }
    if (mpich.empty())
      return backendError("'" + opts.inputName +
                          "' is sharded: its library links MPICH "
                          "(libmpich.so.12), which is not installed "
                          "(scripts/setup.sh installs libmpich-dev)");
    libs.push_back(mpich);
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
  // Only the C ABI is exported: the kernels' own symbols (`f`,
  // `_mlir_ciface_f`) stay inside the library.
  if (llvm::Error e =
          linkSharedLibrary(sink, *lld, libraryName, objectPath, libs))
    return e;
  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", abi::metadata(artifact)) << "\n";
  return sink.add(m + ".json", json);
}

} // namespace

const TargetBackend &mlir::accel::getCpuBackend() {
  static const FunctionBackend backend("cpu", compileCpu);
  return backend;
}
