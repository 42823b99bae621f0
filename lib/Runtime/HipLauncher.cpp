//===- HipLauncher.cpp - Launch generated kernels with the HIP module API -===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The HIP types and entry points are declared here rather than taken from
// hip/hip_runtime_api.h: the build must not depend on ROCm, and the few
// declarations below are the ABI of libamdhip64 (ROCm 6 and 7). The one
// structure read, hipDeviceProp_tR0600, is declared only up to the fields
// used, with padding that keeps its size and their offsets; the offsets are
// asserted below.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/HipLauncher.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// The HIP API subset
//===----------------------------------------------------------------------===//

namespace {
// From hip_runtime_api.h: hipError_t is a C enum (an int), the handles are
// pointers to opaque structures, hipDeviceptr_t is void *.
using hipError_t = int;
using hipDeviceptr_t = void *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;

constexpr hipError_t hipSuccess = 0;

/// The leading fields of hipDeviceProp_tR0600 (hip_runtime_api.h, ROCm 6.0
/// and later, where `hipDeviceProp_t` is a macro for it). The runtime writes
/// the whole structure, so the padding keeps its full size.
struct HipDevicePropR0600 {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  // regsPerBlock ... unifiedFunctionPointers, reserved[63], hipReserved[32].
  char fieldsUpToGcnArchName[1160 - 304];
  char gcnArchName[256];
  // maxSharedMemoryPerMultiProcessor ... asicRevision.
  char fieldsAfterGcnArchName[1472 - 1416];
};
static_assert(offsetof(HipDevicePropR0600, sharedMemPerBlock) == 296);
static_assert(offsetof(HipDevicePropR0600, gcnArchName) == 1160);
static_assert(sizeof(HipDevicePropR0600) == 1472);
} // namespace

struct HipRuntime::Api {
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipGetDeviceProperties)(HipDevicePropR0600 *, int);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t, const void *, size_t);
  hipError_t (*hipMemcpyDtoH)(void *, hipDeviceptr_t, size_t);
  hipError_t (*hipMemset)(void *, int, size_t);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);

  /// "hipMalloc failed: hipErrorOutOfMemory (out of memory)".
  llvm::Error check(hipError_t result, StringRef function) const {
    if (result == hipSuccess)
      return llvm::Error::success();
    const char *name = hipGetErrorName(result);
    const char *text = hipGetErrorString(result);
    std::string message = (function + " failed: ").str();
    message += name ? name : "unknown HIP error " + std::to_string(result);
    if (text)
      message += std::string(" (") + text + ")";
    return llvm::createStringError(message);
  }
};

namespace {
/// Frees what one launch allocated, in reverse order, when it goes out of
/// scope. Errors while freeing are dropped: by then either the launch
/// already failed with a better message or the results are back.
class LaunchResources {
public:
  explicit LaunchResources(const HipRuntime::Api &api) : api(api) {}
  ~LaunchResources() {
    for (hipEvent_t event : events)
      (void)api.hipEventDestroy(event);
    for (void *pointer : llvm::reverse(allocations))
      (void)api.hipFree(pointer);
    if (module)
      (void)api.hipModuleUnload(module);
  }

  const HipRuntime::Api &api;
  hipModule_t module = nullptr;
  std::vector<void *> allocations;
  std::vector<hipEvent_t> events;
};

/// What hipModuleLoadData accepts: an ELF code object, or a clang offload
/// bundle. Anything else is refused before the runtime parses it, since it
/// reads sizes out of the image's own headers.
bool looksLikeCodeObject(llvm::ArrayRef<uint8_t> image) {
  StringRef bytes(reinterpret_cast<const char *>(image.data()), image.size());
  return bytes.starts_with("\x7f"
                           "ELF") ||
         bytes.starts_with("__CLANG_OFFLOAD_BUNDLE__");
}
} // namespace

//===----------------------------------------------------------------------===//
// Architecture check
//===----------------------------------------------------------------------===//

llvm::Error accel::checkAmdgpuArch(StringRef chip, StringRef gcnArchName) {
  StringRef version = chip;
  if (!version.consume_front("gfx") || version.size() < 3 ||
      !llvm::all_of(version, llvm::isHexDigit))
    return llvm::createStringError("unknown AMD chip '" + chip +
                                   "' (expected gfx<version>, e.g. gfx942)");
  StringRef processor = gcnArchName.split(':').first;
  if (processor.empty())
    return llvm::createStringError("code for " + chip +
                                   " cannot be checked against the device: it "
                                   "reports no architecture name");
  if (processor != chip)
    return llvm::createStringError("code for " + chip + " runs only on " +
                                   chip + ", but the device is " + gcnArchName);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// HipRuntime
//===----------------------------------------------------------------------===//

HipRuntime::HipRuntime(std::string libraryPath, std::unique_ptr<Api> api)
    : libraryPath(std::move(libraryPath)), api(std::move(api)) {}

// The library stays loaded: unloading the HIP runtime while its helper
// threads and atexit handlers exist is a known way to crash at exit.
HipRuntime::~HipRuntime() = default;

llvm::Expected<std::unique_ptr<HipRuntime>> HipRuntime::open() {
  // The development symlink first, then the sonames of ROCm 6 and 7, then
  // the default install, which is not always on the loader's path.
  llvm::SmallVector<std::string> candidates = {
      "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.7",
      "/opt/rocm/lib/libamdhip64.so"};
  if (const char *override = std::getenv(kLibraryEnvVar); override && *override)
    candidates = {override};
  void *handle = nullptr;
  std::string path;
  llvm::SmallVector<std::string> reasons;
  for (const std::string &candidate : candidates) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      path = candidate;
      break;
    }
    const char *reason = dlerror();
    reasons.push_back(reason ? reason : candidate + ": unknown error");
  }
  if (!handle) {
    std::string tried = candidates.back();
    if (candidates.size() > 1)
      tried = llvm::join(llvm::ArrayRef(candidates).drop_back(), ", ") +
              " or " + tried;
    return llvm::createStringError("no AMD HIP runtime: cannot load " + tried +
                                   ": " + llvm::join(reasons, "; "));
  }

  auto api = std::make_unique<Api>();
  std::pair<const char *, void *> symbols[] = {
      {"hipInit", &api->hipInit},
      {"hipGetDeviceCount", &api->hipGetDeviceCount},
      {"hipGetDevicePropertiesR0600", &api->hipGetDeviceProperties},
      {"hipSetDevice", &api->hipSetDevice},
      {"hipDeviceSynchronize", &api->hipDeviceSynchronize},
      {"hipModuleLoadData", &api->hipModuleLoadData},
      {"hipModuleUnload", &api->hipModuleUnload},
      {"hipModuleGetFunction", &api->hipModuleGetFunction},
      {"hipMalloc", &api->hipMalloc},
      {"hipFree", &api->hipFree},
      {"hipMemcpyHtoD", &api->hipMemcpyHtoD},
      {"hipMemcpyDtoH", &api->hipMemcpyDtoH},
      {"hipMemset", &api->hipMemset},
      {"hipModuleLaunchKernel", &api->hipModuleLaunchKernel},
      {"hipEventCreate", &api->hipEventCreate},
      {"hipEventRecord", &api->hipEventRecord},
      {"hipEventSynchronize", &api->hipEventSynchronize},
      {"hipEventElapsedTime", &api->hipEventElapsedTime},
      {"hipEventDestroy", &api->hipEventDestroy},
      {"hipGetErrorName", &api->hipGetErrorName},
      {"hipGetErrorString", &api->hipGetErrorString},
  };
  for (auto [name, slot] : symbols) {
    void *symbol = dlsym(handle, name);
    if (!symbol) {
      // "hipGetDeviceProperties" exists in every version, but it is the
      // ROCm 5 entry point with the old structure layout; the current one
      // (which the header's macro names) came with ROCm 6.
      bool isR0600 = StringRef(name) == "hipGetDevicePropertiesR0600";
      return llvm::createStringError(
          "no usable AMD HIP runtime: " + path + ": missing symbol " + name +
          (isR0600 ? " (ROCm 6 or later is needed)" : ""));
    }
    std::memcpy(slot, &symbol, sizeof(void *));
  }

  if (llvm::Error error = api->check(api->hipInit(0), "hipInit"))
    return std::move(error);
  return std::unique_ptr<HipRuntime>(new HipRuntime(path, std::move(api)));
}

llvm::Expected<GpuLaunchResult>
HipRuntime::launchKernel(const KernelMetadata &metadata, GpuImage image,
                         llvm::MutableArrayRef<HostBuffer> buffers,
                         llvm::ArrayRef<KernelScalar> scalars,
                         const LaunchOptions &options) {
  if (image.kind != GpuImage::Kind::CodeObject)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the HIP runtime runs AMDGPU code objects, not PTX or cubin images");
  llvm::Expected<HipLaunchResult> result =
      launch(metadata, image.bytes, buffers, scalars, options);
  if (!result)
    return result.takeError();
  return GpuLaunchResult{std::move(result->deviceName),
                         std::move(result->launchMillis)};
}

llvm::Expected<HipLaunchResult> HipRuntime::launch(
    const KernelMetadata &metadata, llvm::ArrayRef<uint8_t> image,
    llvm::MutableArrayRef<HostBuffer> buffers,
    llvm::ArrayRef<KernelScalar> scalars, const LaunchOptions &options) {
  const Api &hip = *api;
  std::string kernel = "'" + metadata.kernel + "'";
  auto prefixed = [&](llvm::Error error) {
    return llvm::createStringError("cannot launch " + kernel + ": " +
                                   llvm::toString(std::move(error)));
  };
  // Everything about the host side is checked before the device is touched.
  llvm::Expected<llvm::SmallVector<const KernelArgument *>> checked =
      checkHostArguments(metadata, "amdgpu", buffers, scalars);
  if (!checked)
    return prefixed(checked.takeError());
  llvm::SmallVector<const KernelArgument *> bufferArgs = std::move(*checked);
  if (!looksLikeCodeObject(image))
    return prefixed(llvm::createStringError(
        "the image is neither an ELF code object (HSACO) nor a clang offload "
        "bundle"));

  int deviceCount = 0;
  if (llvm::Error error =
          hip.check(hip.hipGetDeviceCount(&deviceCount), "hipGetDeviceCount"))
    return prefixed(std::move(error));
  if (options.device < 0 || options.device >= deviceCount)
    return prefixed(llvm::createStringError(
        "there is no HIP device " + std::to_string(options.device) + " (" +
        std::to_string(deviceCount) + " found)"));
  HipDevicePropR0600 props;
  std::memset(&props, 0, sizeof(props));
  if (llvm::Error error =
          hip.check(hip.hipGetDeviceProperties(&props, options.device),
                    "hipGetDevicePropertiesR0600"))
    return prefixed(std::move(error));
  HipLaunchResult result;
  // The runtime NUL-terminates both, but a wrong layout must not overrun.
  result.deviceName = std::string(props.name, strnlen(props.name, 256));
  result.gcnArchName =
      std::string(props.gcnArchName, strnlen(props.gcnArchName, 256));
  std::string onDevice = " (device " + std::to_string(options.device) + ": " +
                         result.deviceName + ")";
  // Refused here with both names in the message, instead of the runtime's
  // "no kernel image is available" at load or launch time.
  if (llvm::Error error = checkAmdgpuArch(metadata.chip, result.gcnArchName))
    return prefixed(
        llvm::createStringError(llvm::toString(std::move(error)) + onDevice));
  int64_t staticLds =
      metadata.resources ? metadata.resources->staticSharedBytes : 0;
  if (metadata.dynamicSharedBytes + staticLds >
      static_cast<int64_t>(props.sharedMemPerBlock))
    return prefixed(llvm::createStringError(
        "it needs " + std::to_string(metadata.dynamicSharedBytes) +
        " bytes of dynamic and " + std::to_string(staticLds) +
        " bytes of static LDS, but device " + std::to_string(options.device) +
        " allows " + std::to_string(props.sharedMemPerBlock) +
        " per workgroup"));

  // The HIP runtime API works on the calling thread's current device.
  if (llvm::Error error =
          hip.check(hip.hipSetDevice(options.device), "hipSetDevice"))
    return prefixed(std::move(error));
  LaunchResources resources(hip);

  if (llvm::Error error =
          hip.check(hip.hipModuleLoadData(&resources.module, image.data()),
                    "hipModuleLoadData")) {
    resources.module = nullptr;
    return prefixed(std::move(error));
  }
  hipFunction_t function = nullptr;
  if (llvm::Error error =
          hip.check(hip.hipModuleGetFunction(&function, resources.module,
                                             metadata.kernel.c_str()),
                    "hipModuleGetFunction"))
    return prefixed(std::move(error));

  // Device buffers. A zero-byte buffer gets a null pointer, as in the CUDA
  // launcher: a kernel never dereferences an empty buffer.
  llvm::SmallVector<uint64_t> devicePointers;
  for (auto [arg, buffer] : llvm::zip_equal(bufferArgs, buffers)) {
    void *pointer = nullptr;
    size_t size = buffer.bytes.size();
    if (size != 0) {
      if (llvm::Error error =
              hip.check(hip.hipMalloc(&pointer, size), "hipMalloc"))
        return prefixed(std::move(error));
      resources.allocations.push_back(pointer);
      // Outputs start as NaN (0xFF bytes are NaN in every float type) so
      // an element the kernel fails to write cannot pass a check.
      llvm::Error error =
          arg->access == BufferAccess::Out
              ? hip.check(hip.hipMemset(pointer, 0xFF, size), "hipMemset")
              : hip.check(hip.hipMemcpyHtoD(pointer, buffer.bytes.data(), size),
                          "hipMemcpyHtoD");
      if (error)
        return prefixed(std::move(error));
    }
    devicePointers.push_back(reinterpret_cast<uintptr_t>(pointer));
  }
  auto packed = packKernelArguments(metadata, devicePointers, scalars);
  if (!packed)
    return prefixed(packed.takeError());

  // The grid is in workgroups, as for cuLaunchKernel (unlike
  // hipExtModuleLaunchKernel, which takes work-items).
  auto launchOnce = [&]() {
    return hip.check(hip.hipModuleLaunchKernel(
                         function, metadata.grid[0], metadata.grid[1],
                         metadata.grid[2], metadata.block[0], metadata.block[1],
                         metadata.block[2], metadata.dynamicSharedBytes,
                         nullptr, packed->params(), nullptr),
                     "hipModuleLaunchKernel");
  };
  if (llvm::Error error = launchOnce())
    return prefixed(std::move(error));
  // Errors of the kernel itself (memory violation, ...) surface here.
  if (llvm::Error error =
          hip.check(hip.hipDeviceSynchronize(), "hipDeviceSynchronize"))
    return prefixed(std::move(error));
  for (auto [arg, buffer, pointer] :
       llvm::zip_equal(bufferArgs, buffers, devicePointers)) {
    if (arg->access == BufferAccess::In || buffer.bytes.empty())
      continue;
    if (llvm::Error error =
            hip.check(hip.hipMemcpyDtoH(buffer.bytes.data(),
                                        reinterpret_cast<void *>(pointer),
                                        buffer.bytes.size()),
                      "hipMemcpyDtoH"))
      return prefixed(std::move(error));
  }

  // Timing runs after the results are back, so they cannot disturb them
  // (an accumulating kernel would add to its output again).
  if (options.timedLaunches > 0) {
    hipEvent_t start = nullptr, stop = nullptr;
    if (llvm::Error error =
            hip.check(hip.hipEventCreate(&start), "hipEventCreate"))
      return prefixed(std::move(error));
    resources.events.push_back(start);
    if (llvm::Error error =
            hip.check(hip.hipEventCreate(&stop), "hipEventCreate"))
      return prefixed(std::move(error));
    resources.events.push_back(stop);
    for (unsigned i = 0; i < options.timedLaunches; ++i) {
      float millis = 0;
      llvm::Error error =
          hip.check(hip.hipEventRecord(start, nullptr), "hipEventRecord");
      if (!error)
        error = launchOnce();
      if (!error)
        error = hip.check(hip.hipEventRecord(stop, nullptr), "hipEventRecord");
      if (!error)
        error = hip.check(hip.hipEventSynchronize(stop), "hipEventSynchronize");
      if (!error)
        error = hip.check(hip.hipEventElapsedTime(&millis, start, stop),
                          "hipEventElapsedTime");
      if (error)
        return prefixed(std::move(error));
      result.launchMillis.push_back(millis);
    }
  }
  return result;
}
