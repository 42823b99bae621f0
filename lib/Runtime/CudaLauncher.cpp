//===- CudaLauncher.cpp - Launch generated kernels with the CUDA driver ---===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The driver API types and entry points are declared here rather than taken
// from cuda.h: the build must not depend on the CUDA toolkit, and the few
// declarations below are ABI-stable. Entry points are resolved by their
// versioned names (cuMemAlloc_v2, ...), which are what cuda.h's macros
// expand to.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/CudaLauncher.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iterator>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// The driver API subset
//===----------------------------------------------------------------------===//

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr unsigned CU_EVENT_DEFAULT = 0;

/// Dynamic shared memory above this needs an explicit opt-in per function.
constexpr int64_t kDefaultDynamicSharedLimit = 48 * 1024;
/// Size of each JIT log buffer.
constexpr size_t kJitLogBytes = 16 * 1024;
} // namespace

struct CudaDriver::Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

  /// "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  llvm::Error check(CUresult result, StringRef function) const {
    if (result == CUDA_SUCCESS)
      return llvm::Error::success();
    const char *name = nullptr;
    const char *text = nullptr;
    // Both leave the pointer null for a code the driver does not know.
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (cuGetErrorString(result, &text) != CUDA_SUCCESS)
      text = nullptr;
    std::string message = (function + " failed: ").str();
    message += name ? name : "unknown CUDA error " + std::to_string(result);
    if (text)
      message += std::string(" (") + text + ")";
    return llvm::createStringError(message);
  }
};

namespace {
/// Resolves `name` into `slot`, trying `fallback` (an older name of the same
/// function) when the driver lacks the preferred one.
llvm::Error resolve(void *handle, StringRef path, const char *name, void *slot,
                    const char *fallback = nullptr) {
  void *symbol = dlsym(handle, name);
  if (!symbol && fallback)
    symbol = dlsym(handle, fallback);
  if (!symbol)
    return llvm::createStringError("no usable NVIDIA driver: " + path +
                                   ": missing symbol " + name);
  std::memcpy(slot, &symbol, sizeof(void *));
  return llvm::Error::success();
}

/// Frees what one launch allocated, in reverse order, when it goes out of
/// scope. Errors while freeing are dropped: by then either the launch
/// already failed with a better message or the results are back.
class LaunchResources {
public:
  explicit LaunchResources(const CudaDriver::Api &api) : api(api) {}
  ~LaunchResources() {
    for (CUevent event : events)
      (void)api.cuEventDestroy(event);
    for (CUdeviceptr pointer : llvm::reverse(allocations))
      (void)api.cuMemFree(pointer);
    if (module)
      (void)api.cuModuleUnload(module);
  }

  const CudaDriver::Api &api;
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> allocations;
  std::vector<CUevent> events;
};
} // namespace

llvm::Error accel::checkComputeCapability(StringRef chip, int major, int minor,
                                          bool isPtx) {
  StringRef digits = chip;
  char suffix = 0;
  if (digits.consume_front("sm_") &&
      (digits.ends_with("a") || digits.ends_with("f"))) {
    suffix = digits.back();
    digits = digits.drop_back();
  }
  unsigned version = 0;
  if (!chip.starts_with("sm_") || digits.size() < 2 ||
      !llvm::all_of(digits, llvm::isDigit) || digits.getAsInteger(10, version))
    return llvm::createStringError(
        "unknown NVIDIA chip '" + chip +
        "' (expected sm_<major><minor>, optionally with an a or f suffix)");
  // The last digit is the minor version: sm_90 is 9.0, sm_100 is 10.0.
  int chipMajor = version / 10, chipMinor = version % 10;
  std::string have = "the device has compute capability " +
                     std::to_string(major) + "." + std::to_string(minor);
  std::string need =
      std::to_string(chipMajor) + "." + std::to_string(chipMinor);
  auto refuse = [&](const std::string &runsOn) {
    return llvm::createStringError("code for " + chip.str() + " runs only on " +
                                   runsOn + ", but " + have);
  };
  bool atLeast =
      major > chipMajor || (major == chipMajor && minor >= chipMinor);
  if (suffix == 'a') {
    // Architecture-specific features (wgmma, setmaxnreg, ...): neither the
    // SASS nor the PTX carries over to any other version.
    if (major != chipMajor || minor != chipMinor)
      return refuse("compute capability " + need + " exactly");
    return llvm::Error::success();
  }
  if (suffix == 'f' || !isPtx) {
    // Family-specific code, and any cubin, runs within its major version.
    if (major != chipMajor || !atLeast)
      return refuse("compute capability " + need + " to " +
                    std::to_string(chipMajor) + ".x");
    return llvm::Error::success();
  }
  if (!atLeast)
    return refuse("compute capability " + need + " or later");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// CudaDriver
//===----------------------------------------------------------------------===//

CudaDriver::CudaDriver(std::string libraryPath, std::unique_ptr<Api> api)
    : libraryPath(std::move(libraryPath)), api(std::move(api)) {}

CudaDriver::~CudaDriver() {
  for (auto [device, context] : contexts)
    (void)api->cuDevicePrimaryCtxRelease(device);
  // The library stays loaded: unloading libcuda while its helper threads
  // and atexit handlers exist is a known way to crash at exit.
}

llvm::Expected<std::unique_ptr<CudaDriver>> CudaDriver::open() {
  std::string path = "libcuda.so.1";
  if (const char *override = std::getenv(kLibraryEnvVar); override && *override)
    path = override;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return llvm::createStringError("no NVIDIA driver: cannot load " + path +
                                   ": " + (reason ? reason : "unknown error"));
  }
  auto api = std::make_unique<Api>();
  std::pair<const char *, void *> symbols[] = {
      {"cuInit", &api->cuInit},
      {"cuDeviceGet", &api->cuDeviceGet},
      {"cuDeviceGetAttribute", &api->cuDeviceGetAttribute},
      {"cuDeviceGetName", &api->cuDeviceGetName},
      {"cuDevicePrimaryCtxRetain", &api->cuDevicePrimaryCtxRetain},
      {"cuDevicePrimaryCtxRelease_v2", &api->cuDevicePrimaryCtxRelease},
      {"cuCtxSetCurrent", &api->cuCtxSetCurrent},
      {"cuCtxSynchronize", &api->cuCtxSynchronize},
      {"cuModuleLoadDataEx", &api->cuModuleLoadDataEx},
      {"cuModuleLoadData", &api->cuModuleLoadData},
      {"cuModuleUnload", &api->cuModuleUnload},
      {"cuModuleGetFunction", &api->cuModuleGetFunction},
      {"cuFuncSetAttribute", &api->cuFuncSetAttribute},
      {"cuMemAlloc_v2", &api->cuMemAlloc},
      {"cuMemFree_v2", &api->cuMemFree},
      {"cuMemcpyHtoD_v2", &api->cuMemcpyHtoD},
      {"cuMemcpyDtoH_v2", &api->cuMemcpyDtoH},
      {"cuMemsetD8_v2", &api->cuMemsetD8},
      {"cuLaunchKernel", &api->cuLaunchKernel},
      {"cuEventCreate", &api->cuEventCreate},
      {"cuEventRecord", &api->cuEventRecord},
      {"cuEventSynchronize", &api->cuEventSynchronize},
      {"cuEventDestroy_v2", &api->cuEventDestroy},
      {"cuGetErrorName", &api->cuGetErrorName},
      {"cuGetErrorString", &api->cuGetErrorString},
  };
  for (auto [name, slot] : symbols)
    if (llvm::Error error = resolve(handle, path, name, slot))
      return std::move(error);
  // CUDA 12.8 renamed it; older drivers have only the first version, whose
  // behaviour for two events on the default stream is the same.
  if (llvm::Error error =
          resolve(handle, path, "cuEventElapsedTime_v2",
                  &api->cuEventElapsedTime, "cuEventElapsedTime"))
    return std::move(error);

  if (llvm::Error error = api->check(api->cuInit(0), "cuInit"))
    return std::move(error);
  return std::unique_ptr<CudaDriver>(new CudaDriver(path, std::move(api)));
}

llvm::Error CudaDriver::useDevice(int device) {
  for (auto [ordinal, context] : contexts)
    if (ordinal == device)
      return api->check(api->cuCtxSetCurrent(static_cast<CUcontext>(context)),
                        "cuCtxSetCurrent");
  CUcontext context = nullptr;
  if (llvm::Error error =
          api->check(api->cuDevicePrimaryCtxRetain(&context, device),
                     "cuDevicePrimaryCtxRetain"))
    return error;
  contexts.emplace_back(device, context);
  return api->check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

llvm::Expected<GpuLaunchResult>
CudaDriver::launchKernel(const KernelMetadata &metadata, GpuImage image,
                         llvm::MutableArrayRef<HostBuffer> buffers,
                         llvm::ArrayRef<KernelScalar> scalars,
                         const LaunchOptions &options) {
  if (image.kind == GpuImage::Kind::CodeObject)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the CUDA driver runs PTX or cubin images, not AMDGPU code objects");
  llvm::Expected<LaunchResult> result =
      launch(metadata, image.bytes, image.kind == GpuImage::Kind::Ptx, buffers,
             scalars, options);
  if (!result)
    return result.takeError();
  return GpuLaunchResult{std::move(result->deviceName),
                         std::move(result->launchMillis)};
}

llvm::Expected<LaunchResult> CudaDriver::launch(
    const KernelMetadata &metadata, llvm::ArrayRef<uint8_t> image, bool isPtx,
    llvm::MutableArrayRef<HostBuffer> buffers,
    llvm::ArrayRef<KernelScalar> scalars, const LaunchOptions &options) {
  const Api &cu = *api;
  std::string kernel = "'" + metadata.kernel + "'";
  auto prefixed = [&](llvm::Error error) {
    return llvm::createStringError("cannot launch " + kernel + ": " +
                                   llvm::toString(std::move(error)));
  };
  // Everything about the host side is checked before the device is touched.
  llvm::Expected<llvm::SmallVector<const KernelArgument *>> checked =
      checkHostArguments(metadata, "nvptx", buffers, scalars);
  if (!checked)
    return prefixed(checked.takeError());
  llvm::SmallVector<const KernelArgument *> bufferArgs = std::move(*checked);

  CUdevice device = 0;
  if (llvm::Error error =
          cu.check(cu.cuDeviceGet(&device, options.device), "cuDeviceGet"))
    return prefixed(std::move(error));
  LaunchResult result;
  char name[256] = {0};
  if (llvm::Error error =
          cu.check(cu.cuDeviceGetName(name, sizeof(name) - 1, device),
                   "cuDeviceGetName"))
    return prefixed(std::move(error));
  result.deviceName = name;
  int optinShared = 0;
  for (auto [out, attribute] :
       {std::pair<int *, int>{&result.computeCapabilityMajor,
                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {&result.computeCapabilityMinor,
         CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {&optinShared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}})
    if (llvm::Error error =
            cu.check(cu.cuDeviceGetAttribute(out, attribute, device),
                     "cuDeviceGetAttribute"))
      return prefixed(std::move(error));
  // Refused here with the versions in the message, instead of the driver's
  // "invalid device function" / "no kernel image" at load or launch time.
  if (llvm::Error error =
          checkComputeCapability(metadata.chip, result.computeCapabilityMajor,
                                 result.computeCapabilityMinor, isPtx))
    return prefixed(llvm::createStringError(
        llvm::toString(std::move(error)) + " (device " +
        std::to_string(options.device) + ": " + result.deviceName + ")"));
  int64_t staticShared =
      metadata.resources ? metadata.resources->staticSharedBytes : 0;
  if (metadata.dynamicSharedBytes + staticShared > optinShared)
    return prefixed(llvm::createStringError(
        "it needs " + std::to_string(metadata.dynamicSharedBytes) +
        " bytes of dynamic and " + std::to_string(staticShared) +
        " bytes of static shared memory, but device " +
        std::to_string(options.device) + " allows " +
        std::to_string(optinShared) + " per block"));

  if (llvm::Error error = useDevice(device))
    return prefixed(std::move(error));
  LaunchResources resources(cu);

  // Load the module. PTX must be NUL-terminated for the JIT.
  if (isPtx) {
    std::string ptx(reinterpret_cast<const char *>(image.data()), image.size());
    std::string infoLog(kJitLogBytes, '\0'), errorLog(kJitLogBytes, '\0');
    CUjit_option jitOptions[] = {
        CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jitValues[] = {
        infoLog.data(), reinterpret_cast<void *>(kJitLogBytes - 1),
        errorLog.data(), reinterpret_cast<void *>(kJitLogBytes - 1)};
    CUresult loaded =
        cu.cuModuleLoadDataEx(&resources.module, ptx.c_str(),
                              std::size(jitOptions), jitOptions, jitValues);
    auto trimmed = [](const std::string &log) {
      return StringRef(log.c_str()).trim().str();
    };
    result.jitInfoLog = trimmed(infoLog);
    if (llvm::Error error = cu.check(loaded, "cuModuleLoadDataEx")) {
      resources.module = nullptr;
      std::string log = trimmed(errorLog);
      return prefixed(llvm::createStringError(
          llvm::toString(std::move(error)) +
          (log.empty() ? "" : "\nPTX JIT log:\n" + log)));
    }
  } else {
    if (llvm::Error error =
            cu.check(cu.cuModuleLoadData(&resources.module, image.data()),
                     "cuModuleLoadData")) {
      resources.module = nullptr;
      return prefixed(std::move(error));
    }
  }
  CUfunction function = nullptr;
  if (llvm::Error error =
          cu.check(cu.cuModuleGetFunction(&function, resources.module,
                                          metadata.kernel.c_str()),
                   "cuModuleGetFunction"))
    return prefixed(std::move(error));
  if (metadata.dynamicSharedBytes > kDefaultDynamicSharedLimit)
    if (llvm::Error error = cu.check(
            cu.cuFuncSetAttribute(
                function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(metadata.dynamicSharedBytes)),
            "cuFuncSetAttribute"))
      return prefixed(std::move(error));

  // Device buffers. A zero-byte buffer gets a null pointer: cuMemAlloc
  // rejects size 0, and a kernel never dereferences an empty buffer.
  llvm::SmallVector<uint64_t> devicePointers;
  for (auto [arg, buffer] : llvm::zip_equal(bufferArgs, buffers)) {
    CUdeviceptr pointer = 0;
    size_t size = buffer.bytes.size();
    if (size != 0) {
      if (llvm::Error error =
              cu.check(cu.cuMemAlloc(&pointer, size), "cuMemAlloc_v2"))
        return prefixed(std::move(error));
      resources.allocations.push_back(pointer);
      // Outputs start as NaN (0xFF bytes are NaN in every float type) so
      // an element the kernel fails to write cannot pass a check.
      llvm::Error error =
          arg->access == BufferAccess::Out
              ? cu.check(cu.cuMemsetD8(pointer, 0xFF, size), "cuMemsetD8_v2")
              : cu.check(cu.cuMemcpyHtoD(pointer, buffer.bytes.data(), size),
                         "cuMemcpyHtoD_v2");
      if (error)
        return prefixed(std::move(error));
    }
    devicePointers.push_back(pointer);
  }
  auto packed = packKernelArguments(metadata, devicePointers, scalars);
  if (!packed)
    return prefixed(packed.takeError());

  auto launchOnce = [&]() {
    return cu.check(cu.cuLaunchKernel(
                        function, metadata.grid[0], metadata.grid[1],
                        metadata.grid[2], metadata.block[0], metadata.block[1],
                        metadata.block[2], metadata.dynamicSharedBytes, nullptr,
                        packed->params(), nullptr),
                    "cuLaunchKernel");
  };
  if (llvm::Error error = launchOnce())
    return prefixed(std::move(error));
  // Errors of the kernel itself (illegal address, ...) surface here.
  if (llvm::Error error = cu.check(cu.cuCtxSynchronize(), "cuCtxSynchronize"))
    return prefixed(std::move(error));
  for (auto [arg, buffer, pointer] :
       llvm::zip_equal(bufferArgs, buffers, devicePointers)) {
    if (arg->access == BufferAccess::In || buffer.bytes.empty())
      continue;
    if (llvm::Error error = cu.check(
            cu.cuMemcpyDtoH(buffer.bytes.data(), pointer, buffer.bytes.size()),
            "cuMemcpyDtoH_v2"))
      return prefixed(std::move(error));
  }

  // Timing runs after the results are back, so they cannot disturb them
  // (an accumulating kernel would add to its output again).
  if (options.timedLaunches > 0) {
    CUevent start = nullptr, stop = nullptr;
    if (llvm::Error error = cu.check(cu.cuEventCreate(&start, CU_EVENT_DEFAULT),
                                     "cuEventCreate"))
      return prefixed(std::move(error));
    resources.events.push_back(start);
    if (llvm::Error error = cu.check(cu.cuEventCreate(&stop, CU_EVENT_DEFAULT),
                                     "cuEventCreate"))
      return prefixed(std::move(error));
    resources.events.push_back(stop);
    for (unsigned i = 0; i < options.timedLaunches; ++i) {
      float millis = 0;
      llvm::Error error =
          cu.check(cu.cuEventRecord(start, nullptr), "cuEventRecord");
      if (!error)
        error = launchOnce();
      if (!error)
        error = cu.check(cu.cuEventRecord(stop, nullptr), "cuEventRecord");
      if (!error)
        error = cu.check(cu.cuEventSynchronize(stop), "cuEventSynchronize");
      if (!error)
        error = cu.check(cu.cuEventElapsedTime(&millis, start, stop),
                         "cuEventElapsedTime");
      if (error)
        return prefixed(std::move(error));
      result.launchMillis.push_back(millis);
    }
  }
  return result;
}
