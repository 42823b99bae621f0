//===- JitRunner.cpp - JIT-compile and call accel functions ---------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/JitRunner.h"
#include "accel/Transforms/CpuConfig.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include <cstdint>
#include <cerrno>
#include <cstring>
#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace mlir;
using namespace mlir::accel;

std::string accel::hostCompileFeatures(const AccelCpuPipelineOptions &options) {
  std::string features = options.cpuFeatures;
  if (features.empty()) {
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      if (feature.second)
        features += (features.empty() ? "" : ",") + feature.first().str();
  }
  return features;
}

bool accel::hostKernelsFlushBf16Subnormals(
    const AccelCpuPipelineOptions &options) {
  if (!options.vectorize || options.bf16Subnormals != "flush")
    return false;
  std::string features = hostCompileFeatures(options);
  return hasCpuFeature(features, "avx512bf16") ||
         (hasCpuFeature(features, "amx-tile") &&
          hasCpuFeature(features, "amx-bf16"));
}

bool accel::hostKernelsRoundAttentionProbabilities(
    const AccelCpuPipelineOptions &options, Operation *op) {
  if (!options.decomposeAttention)
    return false;
  return cpuFlashOnAmx(op, CpuIsa::fromFeatures(hostCompileFeatures(options)),
                       options.bf16Subnormals == "flush");
}

/// f32 -> bf16 rounded to nearest even, NaN kept quiet with its sign: the
/// compiler-rt builtin LLVM calls for `fptrunc float to bfloat` on hosts
/// without AVX512-BF16 (AOT libraries link compiler-rt; the JIT gets this).
static __bf16 truncSfBf2(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  uint16_t h;
  if ((u & 0x7fffffffu) > 0x7f800000u)
    h = uint16_t((u >> 16) | 0x40u);
  else
    h = uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  return __builtin_bit_cast(__bf16, h);
}

std::string accel::missingHostFeatures(StringRef features) {
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, false);
  std::string missing;
  for (StringRef part : parts) {
    StringRef name = part.trim();
    if (name.starts_with("-"))
      continue;
    name = name.ltrim('+');
    auto it = host.find(name);
    // Names LLVM does not know for this host ("none") are not features.
    if (it == host.end() || it->second)
      continue;
    missing += (missing.empty() ? "" : ",") + name.str();
  }
  return missing;
}

llvm::Error accel::requestAmxPermission() {
#if defined(__linux__) && defined(__x86_64__)
  // ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA: Linux (5.16 on) hands a
  // process AMX's 8 KiB of tile state only when asked; without it the
  // first tile instruction raises SIGILL. Once per process; repeating it
  // is harmless.
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the OS refused AMX tile data to this process (arch_prctl "
        "ARCH_REQ_XCOMP_PERM: " +
            std::string(std::strerror(errno)) +
            "); run without amx-tile in cpu-features");
  return llvm::Error::success();
#else
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "AMX needs Linux on x86-64");
#endif
}

llvm::Expected<std::unique_ptr<ExecutionEngine>>
accel::compileForHost(ModuleOp module, const AccelCpuPipelineOptions &options) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Code compiled for features this CPU lacks would stop with SIGILL: an
  // error before anything runs.
  if (std::string missing = missingHostFeatures(options.cpuFeatures);
      !missing.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cpu-features names " + missing +
            ", which this CPU lacks: the JIT compiles for this CPU "
            "(accel-compile --target=cpu builds for others)");
  if (hasCpuFeature(hostCompileFeatures(options), "amx-tile"))
    if (llvm::Error e = requestAmxPermission())
      return std::move(e);
  OwningOpRef<ModuleOp> lowered = module.clone();
  PassManager pm(module.getContext());
  // The host's CPU features decide the kernels (the JIT compiles for it).
  AccelCpuPipelineOptions hostOptions;
  hostOptions.copyOptionValuesFrom(options);
  hostOptions.cpuFeatures = hostCompileFeatures(options);
  buildAccelCpuPipeline(pm, hostOptions);
  if (failed(pm.run(*lowered)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the CPU pipeline failed");
  auto transformer = makeOptimizingTransformer(/*optLevel=*/3,
                                               /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  SmallVector<StringRef> libs;
  if (options.threads > 1)
    libs.push_back("/usr/lib/llvm-22/lib/libomp.so");
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*lowered, engineOptions);
  if (!engine)
    return engine.takeError();
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("__truncsfbf2")] = {
        llvm::orc::ExecutorAddr::fromPtr(&truncSfBf2),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return engine;
}

void PackedCall::addMemref(void *data, ArrayRef<int64_t> shape) {
  pointers.push_back(data);
  args.push_back(&pointers.back());
  pointers.push_back(data);
  args.push_back(&pointers.back());
  words.push_back(0);
  args.push_back(&words.back());
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  for (int64_t d : shape) {
    words.push_back(d);
    args.push_back(&words.back());
  }
  for (int64_t s : strides) {
    words.push_back(s);
    args.push_back(&words.back());
  }
}

void PackedCall::addScalar(void *value) { args.push_back(value); }

void PackedCall::addResults(ArrayRef<int64_t> ranks) {
  size_t total = 0;
  for (int64_t rank : ranks) {
    resultOffsets.push_back(total);
    total += 3 + 2 * rank;
  }
  resultStorage.assign(std::max<size_t>(1, total), 0);
  // The packed wrapper stores the returned descriptors at the last pointer.
  if (!ranks.empty())
    args.push_back(resultStorage.data());
}

const int64_t *PackedCall::result(unsigned i) const {
  return resultStorage.data() + resultOffsets[i];
}

llvm::Error PackedCall::invoke(ExecutionEngine &engine, StringRef name) {
  return engine.invokePacked(name, args);
}
