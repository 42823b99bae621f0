//===- CudaLauncherTest.cpp - the CUDA driver launcher --------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Most tests run the launcher against fake_libcuda.c (a host-memory driver
// built next to this test), which records what the launcher asks for and
// runs a host function in place of the kernel. CudaLauncherDevice runs a
// real PTX kernel and is skipped where libcuda.so.1 cannot be opened.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/CudaLauncher.h"
#include "accel/Runtime/GpuRuntime.h"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace mlir::accel;

namespace {

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "<success>";
}

template <typename T> std::string errorOf(llvm::Expected<T> &value) {
  return value ? "<success>" : llvm::toString(value.takeError());
}

KernelArgument bufferArg(const char *name, const char *dtype,
                         llvm::ArrayRef<int64_t> shape, BufferAccess access) {
  KernelArgument arg;
  arg.name = name;
  arg.kind = KernelArgKind::Buffer;
  arg.dtype = dtype;
  arg.shape.assign(shape.begin(), shape.end());
  arg.access = access;
  arg.byteSize = *getDTypeByteWidth(dtype);
  for (int64_t dim : shape)
    arg.byteSize *= dim;
  return arg;
}

KernelArgument scalarArg(const char *name, KernelArgKind kind) {
  KernelArgument arg;
  arg.name = name;
  arg.kind = kind;
  arg.byteSize = kind == KernelArgKind::I64 ? 8 : 4;
  return arg;
}

/// Arguments interleaved so that buffer and scalar positions differ:
/// (A: in f32[4], n: i32, B: out f32[4], s: f32, C: inout i32[2], big: i64).
KernelMetadata mixedMetadata() {
  KernelMetadata m;
  m.chip = "sm_80";
  m.kernel = "mixed_kernel";
  m.grid = {3, 2, 1};
  m.block = {32, 4, 1};
  m.dynamicSharedBytes = 1024;
  m.arguments = {bufferArg("A", "f32", {4}, BufferAccess::In),
                 scalarArg("n", KernelArgKind::I32),
                 bufferArg("B", "f32", {4}, BufferAccess::Out),
                 scalarArg("s", KernelArgKind::F32),
                 bufferArg("C", "i32", {2}, BufferAccess::InOut),
                 scalarArg("big", KernelArgKind::I64)};
  return m;
}

template <typename T> T readAs(const void *pointer) {
  T value;
  std::memcpy(&value, pointer, sizeof(T));
  return value;
}

//===----------------------------------------------------------------------===//
// Pure functions
//===----------------------------------------------------------------------===//

TEST(CudaLauncherTest, PackKernelArguments) {
  KernelMetadata m = mixedMetadata();
  uint64_t pointers[] = {0x1000, 0x2000, 0xdeadbeef00000008ull};
  KernelScalar scalars[] = {KernelScalar::i32(-7), KernelScalar::f32(2.5f),
                            KernelScalar::i64(-(int64_t(1) << 40))};
  auto packed = packKernelArguments(m, pointers, scalars);
  ASSERT_TRUE(bool(packed)) << errorOf(packed);
  ASSERT_EQ(packed->size(), 6u);
  llvm::ArrayRef<void *> p = packed->getPointers();
  EXPECT_EQ(packed->params(), const_cast<void **>(p.data()));
  EXPECT_EQ(readAs<uint64_t>(p[0]), 0x1000u);
  EXPECT_EQ(readAs<int32_t>(p[1]), -7);
  EXPECT_EQ(readAs<uint64_t>(p[2]), 0x2000u);
  EXPECT_EQ(readAs<float>(p[3]), 2.5f);
  EXPECT_EQ(readAs<uint64_t>(p[4]), 0xdeadbeef00000008ull);
  EXPECT_EQ(readAs<int64_t>(p[5]), -(int64_t(1) << 40));
  // Every parameter has its own 8-byte aligned slot.
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p[i]) % 8, 0u) << i;
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(p[i], p[j]);
  }

  // Moving keeps the pointers valid (they point into the moved storage).
  PackedKernelArguments moved = std::move(*packed);
  EXPECT_EQ(moved.getPointers()[5], p[5]);
  EXPECT_EQ(readAs<int32_t>(moved.getPointers()[1]), -7);

  // A kernel without arguments takes a null kernelParams.
  KernelMetadata empty = m;
  empty.arguments.clear();
  auto none = packKernelArguments(empty, {}, {});
  ASSERT_TRUE(bool(none)) << errorOf(none);
  EXPECT_EQ(none->size(), 0u);
  EXPECT_EQ(none->params(), nullptr);
}

TEST(CudaLauncherTest, PackKernelArgumentsErrors) {
  KernelMetadata m = mixedMetadata();
  uint64_t pointers[] = {1, 2, 3};
  KernelScalar scalars[] = {KernelScalar::i32(1), KernelScalar::f32(1),
                            KernelScalar::i64(1)};
  auto fewBuffers =
      packKernelArguments(m, llvm::ArrayRef(pointers).drop_back(), scalars);
  EXPECT_EQ(errorOf(fewBuffers),
            "kernel 'mixed_kernel' takes 3 buffer arguments, 2 given");
  auto fewScalars =
      packKernelArguments(m, pointers, llvm::ArrayRef(scalars).take_front(2));
  EXPECT_EQ(errorOf(fewScalars),
            "kernel 'mixed_kernel' takes 3 scalar arguments, 2 given");
  KernelScalar swapped[] = {KernelScalar::i32(1), KernelScalar::i64(1),
                            KernelScalar::f32(1)};
  auto wrongKind = packKernelArguments(m, pointers, swapped);
  EXPECT_EQ(errorOf(wrongKind), "scalar argument 's' of kernel 'mixed_kernel' "
                                "is f32, but i64 was given");
}

TEST(CudaLauncherTest, KernelScalarBits) {
  EXPECT_EQ(KernelScalar::i32(-1).bits, 0xFFFFFFFFu);
  EXPECT_EQ(KernelScalar::i32(-1).kind, KernelArgKind::I32);
  EXPECT_EQ(KernelScalar::i64(-1).bits, ~uint64_t(0));
  EXPECT_EQ(KernelScalar::i64(-1).kind, KernelArgKind::I64);
  EXPECT_EQ(KernelScalar::f32(1.0f).bits, 0x3F800000u);
  EXPECT_EQ(KernelScalar::f32(1.0f).kind, KernelArgKind::F32);
}

TEST(CudaLauncherTest, ComputeCapability) {
  struct Case {
    const char *chip;
    int major, minor;
    bool isPtx;
    const char *error; // nullptr: compatible
  };
  const Case cases[] = {
      // Plain PTX is JIT-compiled for any later device.
      {"sm_80", 8, 0, true, nullptr},
      {"sm_80", 8, 6, true, nullptr},
      {"sm_80", 9, 0, true, nullptr},
      {"sm_80", 10, 0, true, nullptr},
      {"sm_80", 7, 5, true,
       "code for sm_80 runs only on compute capability 8.0 or later, but the "
       "device has compute capability 7.5"},
      {"sm_86", 8, 0, true,
       "code for sm_86 runs only on compute capability 8.6 or later, but the "
       "device has compute capability 8.0"},
      // A cubin runs within its major version.
      {"sm_80", 8, 0, false, nullptr},
      {"sm_80", 8, 9, false, nullptr},
      {"sm_80", 9, 0, false,
       "code for sm_80 runs only on compute capability 8.0 to 8.x, but the "
       "device has compute capability 9.0"},
      {"sm_86", 8, 0, false,
       "code for sm_86 runs only on compute capability 8.6 to 8.x, but the "
       "device has compute capability 8.0"},
      // Architecture-specific: exactly that version, PTX or not.
      {"sm_90a", 9, 0, true, nullptr},
      {"sm_90a", 9, 0, false, nullptr},
      {"sm_90a", 8, 0, true,
       "code for sm_90a runs only on compute capability 9.0 exactly, but the "
       "device has compute capability 8.0"},
      {"sm_90a", 10, 0, true,
       "code for sm_90a runs only on compute capability 9.0 exactly, but the "
       "device has compute capability 10.0"},
      {"sm_90a", 9, 1, false,
       "code for sm_90a runs only on compute capability 9.0 exactly, but the "
       "device has compute capability 9.1"},
      {"sm_100a", 10, 0, false, nullptr},
      // Family-specific: the same major version, at least the minor one.
      {"sm_100f", 10, 3, true, nullptr},
      {"sm_103f", 10, 0, true,
       "code for sm_103f runs only on compute capability 10.3 to 10.x, but "
       "the device has compute capability 10.0"},
      {"sm_100f", 12, 0, true,
       "code for sm_100f runs only on compute capability 10.0 to 10.x, but "
       "the device has compute capability 12.0"},
      {"sm_120", 12, 0, false, nullptr},
  };
  for (const Case &c : cases) {
    std::string error =
        errorOf(checkComputeCapability(c.chip, c.major, c.minor, c.isPtx));
    EXPECT_EQ(error, c.error ? c.error : "<success>")
        << c.chip << " on " << c.major << "." << c.minor
        << (c.isPtx ? " (PTX)" : " (cubin)");
  }
  for (const char *chip : {"gfx942", "sm_9", "sm_", "sm_9x", "sm_90ab", ""})
    EXPECT_EQ(errorOf(checkComputeCapability(chip, 9, 0, true)),
              std::string("unknown NVIDIA chip '") + chip +
                  "' (expected sm_<major><minor>, optionally with an a or f "
                  "suffix)")
        << chip;
}

//===----------------------------------------------------------------------===//
// Opening the driver
//===----------------------------------------------------------------------===//

/// Sets ACCEL_LIBCUDA for one test and restores the environment after.
class ScopedLibcuda {
public:
  explicit ScopedLibcuda(const char *path) {
    if (path)
      setenv(CudaDriver::kLibraryEnvVar, path, 1);
    else
      unsetenv(CudaDriver::kLibraryEnvVar);
  }
  ~ScopedLibcuda() { unsetenv(CudaDriver::kLibraryEnvVar); }
};

TEST(CudaLauncherTest, OpenMissingLibrary) {
  ScopedLibcuda env("/nonexistent/libcuda.so.1");
  auto driver = CudaDriver::open();
  EXPECT_EQ(errorOf(driver),
            "no NVIDIA driver: cannot load /nonexistent/libcuda.so.1: "
            "/nonexistent/libcuda.so.1: cannot open shared object file: No "
            "such file or directory");
}

TEST(CudaLauncherTest, OpenDefaultLibrary) {
  ScopedLibcuda env(nullptr);
  void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (real) {
    dlclose(real);
    GTEST_SKIP() << "this machine has libcuda.so.1";
  }
  auto driver = CudaDriver::open();
  EXPECT_EQ(errorOf(driver).rfind(
                "no NVIDIA driver: cannot load libcuda.so.1: libcuda.so.1: "
                "cannot open shared object file",
                0),
            0u)
      << errorOf(driver);
}

TEST(CudaLauncherTest, OpenLibraryWithoutSymbols) {
  const char *libm = "/lib/x86_64-linux-gnu/libm.so.6";
  if (access(libm, R_OK) != 0)
    GTEST_SKIP() << libm << " is not here";
  ScopedLibcuda env(libm);
  auto driver = CudaDriver::open();
  EXPECT_EQ(errorOf(driver), std::string("no usable NVIDIA driver: ") + libm +
                                 ": missing symbol cuInit");
}

//===----------------------------------------------------------------------===//
// The launch path against the fake driver
//===----------------------------------------------------------------------===//

/// The fake's control functions (fake_libcuda.c).
struct FakeCuda {
  void (*reset)();
  void (*fail)(const char *, int);
  void (*setParamSizes)(const size_t *, int);
  void (*setKernel)(void (*)(void **, void *), void *);
  int (*count)(const char *);
  const unsigned *(*launchDims)();
  const unsigned char *(*param)(int);
  const char *(*image)();
  const char *(*function)();
  const char *(*call)(int);
};

/// What the fake kernel of mixedMetadata saw and does: B = A * s,
/// C += n (+ big's low bits), and A is scribbled on (it must not come back).
struct MixedKernelState {
  bool sawNaNOutput = false;
  float inputSeen[4] = {0, 0, 0, 0};
  int calls = 0;
};

void mixedKernel(void **params, void *user) {
  auto *state = static_cast<MixedKernelState *>(user);
  ++state->calls;
  auto *a = reinterpret_cast<float *>(readAs<uint64_t>(params[0]));
  int32_t n = readAs<int32_t>(params[1]);
  auto *b = reinterpret_cast<float *>(readAs<uint64_t>(params[2]));
  float s = readAs<float>(params[3]);
  auto *c = reinterpret_cast<int32_t *>(readAs<uint64_t>(params[4]));
  int64_t big = readAs<int64_t>(params[5]);
  state->sawNaNOutput = true;
  for (int i = 0; i < 4; ++i) {
    uint32_t bits = readAs<uint32_t>(&b[i]);
    state->sawNaNOutput &= bits == 0xFFFFFFFFu && std::isnan(b[i]);
    state->inputSeen[i] = a[i];
    b[i] = a[i] * s;
    a[i] = -1;
  }
  for (int i = 0; i < 2; ++i)
    c[i] += n + static_cast<int32_t>(big >> 40);
}

class CudaLauncherFakeTest : public ::testing::Test {
protected:
  void SetUp() override {
    handle = dlopen(ACCEL_FAKE_LIBCUDA, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto get = [&](const char *name, auto &slot) {
      void *symbol = dlsym(handle, name);
      ASSERT_NE(symbol, nullptr) << name;
      std::memcpy(&slot, &symbol, sizeof(void *));
    };
    get("fake_cuda_reset", fake.reset);
    get("fake_cuda_fail", fake.fail);
    get("fake_cuda_set_param_sizes", fake.setParamSizes);
    get("fake_cuda_set_kernel", fake.setKernel);
    get("fake_cuda_count", fake.count);
    get("fake_cuda_launch_dims", fake.launchDims);
    get("fake_cuda_param", fake.param);
    get("fake_cuda_image", fake.image);
    get("fake_cuda_function", fake.function);
    get("fake_cuda_call", fake.call);
    fake.reset();
    setenv(CudaDriver::kLibraryEnvVar, ACCEL_FAKE_LIBCUDA, 1);
    setenv("FAKE_CUDA_CC", "8.0", 1);
    unsetenv("FAKE_CUDA_SMEM_OPTIN");
  }
  void TearDown() override {
    unsetenv(CudaDriver::kLibraryEnvVar);
    unsetenv("FAKE_CUDA_CC");
    unsetenv("FAKE_CUDA_SMEM_OPTIN");
    if (handle)
      dlclose(handle);
  }

  std::unique_ptr<CudaDriver> openDriver() {
    auto driver = CudaDriver::open();
    EXPECT_TRUE(bool(driver)) << errorOf(driver);
    return driver ? std::move(*driver) : nullptr;
  }

  /// Checks that the fake holds nothing the launcher allocated.
  void expectNothingLeaked() {
    EXPECT_EQ(fake.count("allocs"), fake.count("frees"));
    EXPECT_EQ(fake.count("live_modules"), 0);
    EXPECT_EQ(fake.count("live_events"), 0);
    EXPECT_EQ(fake.count("bad_accesses"), 0);
  }

  /// Host data for mixedMetadata.
  struct MixedHost {
    std::vector<float> a = {1, 2, 3, 4};
    std::vector<float> b = {7, 7, 7, 7};
    std::vector<int32_t> c = {10, 20};
    HostBuffer buffers[3];
    KernelScalar scalars[3] = {KernelScalar::i32(5), KernelScalar::f32(0.5f),
                               KernelScalar::i64(int64_t(3) << 40)};
    MixedHost() {
      buffers[0].bytes = {reinterpret_cast<uint8_t *>(a.data()), 16};
      buffers[1].bytes = {reinterpret_cast<uint8_t *>(b.data()), 16};
      buffers[2].bytes = {reinterpret_cast<uint8_t *>(c.data()), 8};
    }
  };

  void recordMixedParams() {
    size_t sizes[] = {8, 4, 8, 4, 8, 8};
    fake.setParamSizes(sizes, 6);
  }

  void *handle = nullptr;
  FakeCuda fake{};
  const std::string ptx = ".version 7.0\n.target sm_80\n// fake PTX";
  llvm::ArrayRef<uint8_t> image() const {
    return {reinterpret_cast<const uint8_t *>(ptx.data()), ptx.size()};
  }
};

TEST_F(CudaLauncherFakeTest, TheGpuRuntimeInterfaceLaunchesTheSameKernel) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  std::unique_ptr<GpuRuntime> runtime = std::move(driver);
  EXPECT_EQ(runtime->getTargetName(), "nvptx");
  EXPECT_EQ(runtime->getLibraryPath(), ACCEL_FAKE_LIBCUDA);
  MixedKernelState state;
  fake.setKernel(mixedKernel, &state);
  recordMixedParams();
  MixedHost host;
  LaunchOptions options;
  options.timedLaunches = 2;
  auto result = runtime->launchKernel(
      mixedMetadata(), GpuImage{image(), GpuImage::Kind::Ptx}, host.buffers,
      host.scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(host.b, (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(result->launchMillis.size(), 2u);
  EXPECT_FALSE(result->deviceName.empty());
  // An AMD code object is refused before anything is allocated.
  auto wrong = runtime->launchKernel(
      mixedMetadata(), GpuImage{image(), GpuImage::Kind::CodeObject},
      host.buffers, host.scalars, options);
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(errorOf(wrong).find("not AMDGPU code objects"), std::string::npos);
  expectNothingLeaked();
}

TEST_F(CudaLauncherFakeTest, LaunchRunsTheWholePath) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  EXPECT_EQ(driver->getLibraryPath(), ACCEL_FAKE_LIBCUDA);
  MixedKernelState state;
  fake.setKernel(mixedKernel, &state);
  recordMixedParams();
  setenv("FAKE_CUDA_CC", "8.6", 1);
  MixedHost host;
  auto result = driver->launch(mixedMetadata(), image(), /*isPtx=*/true,
                               host.buffers, host.scalars);
  ASSERT_TRUE(bool(result)) << errorOf(result);

  // What the kernel saw: inputs copied in, the output NaN-filled.
  EXPECT_EQ(state.calls, 1);
  EXPECT_TRUE(state.sawNaNOutput);
  EXPECT_EQ(std::vector<float>(state.inputSeen, state.inputSeen + 4),
            (std::vector<float>{1, 2, 3, 4}));
  // What came back: Out and InOut, not In.
  EXPECT_EQ(host.b, (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(host.c, (std::vector<int32_t>{18, 28}));
  EXPECT_EQ(host.a, (std::vector<float>{1, 2, 3, 4}));

  // The parameters as cuLaunchKernel received them.
  EXPECT_EQ(readAs<int32_t>(fake.param(1)), 5);
  EXPECT_EQ(readAs<float>(fake.param(3)), 0.5f);
  EXPECT_EQ(readAs<int64_t>(fake.param(5)), int64_t(3) << 40);
  EXPECT_NE(readAs<uint64_t>(fake.param(0)), readAs<uint64_t>(fake.param(2)));
  EXPECT_NE(readAs<uint64_t>(fake.param(0)), 0u);

  // The launch configuration and module.
  const unsigned *dims = fake.launchDims();
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6),
            (std::vector<unsigned>{3, 2, 1, 32, 4, 1}));
  EXPECT_EQ(fake.count("shared_bytes"), 1024);
  EXPECT_EQ(fake.count("func_attribute"), 0); // 1 KiB needs no opt-in
  EXPECT_EQ(fake.count("loaded_ptx"), 1);
  EXPECT_EQ(std::string(fake.image()), ptx);
  EXPECT_EQ(std::string(fake.function()), "mixed_kernel");
  EXPECT_EQ(fake.count("synchronizes"), 1);
  EXPECT_EQ(fake.count("launches"), 1);
  EXPECT_EQ(result->deviceName, "Fake GPU");
  EXPECT_EQ(result->computeCapabilityMajor, 8);
  EXPECT_EQ(result->computeCapabilityMinor, 6);
  EXPECT_EQ(result->jitInfoLog, "fake JIT info");
  EXPECT_TRUE(result->launchMillis.empty());
  EXPECT_EQ(fake.count("allocs"), 3);
  expectNothingLeaked();

  // The primary context is retained once and released with the driver.
  EXPECT_EQ(fake.count("retained_contexts"), 1);
  MixedHost again;
  ASSERT_TRUE(bool(driver->launch(mixedMetadata(), image(), true, again.buffers,
                                  again.scalars)));
  EXPECT_EQ(fake.count("retained_contexts"), 1);
  driver.reset();
  EXPECT_EQ(fake.count("retained_contexts"), 0);
  expectNothingLeaked();
}

TEST_F(CudaLauncherFakeTest, CallOrder) {
  // The capability is checked before anything is loaded or allocated, the
  // results are copied back only after the synchronization.
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  MixedHost host;
  ASSERT_TRUE(bool(driver->launch(mixedMetadata(), image(), true, host.buffers,
                                  host.scalars)));
  std::vector<std::string> calls;
  for (int i = 0; i < fake.count("calls"); ++i)
    calls.push_back(fake.call(i));
  std::vector<std::string> expected = {"cuInit",
                                       "cuDeviceGet",
                                       "cuDeviceGetName",
                                       "cuDeviceGetAttribute",
                                       "cuDeviceGetAttribute",
                                       "cuDeviceGetAttribute",
                                       "cuDevicePrimaryCtxRetain",
                                       "cuCtxSetCurrent",
                                       "cuModuleLoadDataEx",
                                       "cuModuleGetFunction",
                                       "cuMemAlloc_v2",
                                       "cuMemcpyHtoD_v2",
                                       "cuMemAlloc_v2",
                                       "cuMemsetD8_v2",
                                       "cuMemAlloc_v2",
                                       "cuMemcpyHtoD_v2",
                                       "cuLaunchKernel",
                                       "cuCtxSynchronize",
                                       "cuMemcpyDtoH_v2",
                                       "cuMemcpyDtoH_v2",
                                       "cuMemFree_v2",
                                       "cuMemFree_v2",
                                       "cuMemFree_v2",
                                       "cuModuleUnload"};
  EXPECT_EQ(calls, expected);
}

TEST_F(CudaLauncherFakeTest, CubinAndTiming) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  MixedHost host;
  LaunchOptions options;
  options.timedLaunches = 3;
  auto result = driver->launch(mixedMetadata(), image(), /*isPtx=*/false,
                               host.buffers, host.scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(fake.count("loaded_ptx"), 0);
  EXPECT_EQ(result->jitInfoLog, "");
  // One checked launch, then three timed ones; the fake reports 0.25 ms
  // times the launch count.
  EXPECT_EQ(fake.count("launches"), 4);
  EXPECT_EQ(result->launchMillis, (std::vector<float>{0.5f, 0.75f, 1.0f}));
  // The timed launches do not change the results that came back.
  EXPECT_EQ(host.c, (std::vector<int32_t>{10, 20}));
  expectNothingLeaked();

  fake.reset();
  options.timedLaunches = 1;
  result = driver->launch(mixedMetadata(), image(), false, host.buffers,
                          host.scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(result->launchMillis, (std::vector<float>{0.5f}));
  expectNothingLeaked();
}

TEST_F(CudaLauncherFakeTest, LargeDynamicSharedMemory) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  KernelMetadata m = mixedMetadata();
  m.dynamicSharedBytes = 49153;
  MixedHost host;
  ASSERT_TRUE(
      bool(driver->launch(m, image(), true, host.buffers, host.scalars)));
  EXPECT_EQ(fake.count("func_attribute"), 8);
  EXPECT_EQ(fake.count("func_attribute_value"), 49153);
  EXPECT_EQ(fake.count("shared_bytes"), 49153);

  // Exactly 48 KiB needs no opt-in.
  fake.reset();
  m.dynamicSharedBytes = 49152;
  ASSERT_TRUE(
      bool(driver->launch(m, image(), true, host.buffers, host.scalars)));
  EXPECT_EQ(fake.count("func_attribute"), 0);

  // More than the device allows is refused before loading.
  fake.reset();
  setenv("FAKE_CUDA_SMEM_OPTIN", "100000", 1);
  m.dynamicSharedBytes = 99000;
  m.resources = KernelResources{32, 1001, 0, std::nullopt};
  auto refused = driver->launch(m, image(), true, host.buffers, host.scalars);
  EXPECT_EQ(errorOf(refused),
            "cannot launch 'mixed_kernel': it needs 99000 bytes of dynamic and "
            "1001 bytes of static shared memory, but device 0 allows 100000 "
            "per block");
  EXPECT_EQ(fake.count("modules_loaded"), 0);
  m.resources->staticSharedBytes = 1000;
  EXPECT_TRUE(
      bool(driver->launch(m, image(), true, host.buffers, host.scalars)));
}

TEST_F(CudaLauncherFakeTest, CapabilityMismatchIsRefusedBeforeLoading) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  KernelMetadata m = mixedMetadata();
  m.chip = "sm_90a";
  MixedHost host;
  auto result = driver->launch(m, image(), true, host.buffers, host.scalars);
  EXPECT_EQ(errorOf(result),
            "cannot launch 'mixed_kernel': code for sm_90a runs only on "
            "compute capability 9.0 exactly, but the device has compute "
            "capability 8.0 (device 0: Fake GPU)");
  EXPECT_EQ(fake.count("modules_loaded"), 0);
  EXPECT_EQ(fake.count("allocs"), 0);
  setenv("FAKE_CUDA_CC", "9.0", 1);
  EXPECT_TRUE(
      bool(driver->launch(m, image(), true, host.buffers, host.scalars)));
}

TEST_F(CudaLauncherFakeTest, ZeroSizedBuffer) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  KernelMetadata m;
  m.chip = "sm_80";
  m.kernel = "empty";
  m.arguments = {bufferArg("E", "f16", {0, 8}, BufferAccess::Out),
                 bufferArg("F", "i8", {3}, BufferAccess::Out)};
  size_t sizes[] = {8, 8};
  fake.setParamSizes(sizes, 2);
  uint8_t f[3] = {1, 2, 3};
  HostBuffer buffers[] = {{{}}, {{f, 3}}};
  auto result = driver->launch(m, image(), true, buffers, {});
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(readAs<uint64_t>(fake.param(0)), 0u);
  EXPECT_NE(readAs<uint64_t>(fake.param(1)), 0u);
  EXPECT_EQ(fake.count("allocs"), 1);
  // The kernel wrote nothing: the NaN fill comes back.
  EXPECT_EQ(f[0], 0xFF);
  EXPECT_EQ(f[2], 0xFF);
  expectNothingLeaked();
}

TEST_F(CudaLauncherFakeTest, HostSideErrors) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  KernelMetadata m = mixedMetadata();
  MixedHost host;
  auto tooFew = driver->launch(m, image(), true,
                               llvm::MutableArrayRef(host.buffers).drop_back(),
                               host.scalars);
  EXPECT_EQ(errorOf(tooFew), "cannot launch 'mixed_kernel': it takes 3 buffer "
                             "arguments, 2 given");
  host.buffers[2].bytes = host.buffers[2].bytes.drop_back();
  auto wrongSize = driver->launch(m, image(), true, host.buffers, host.scalars);
  EXPECT_EQ(errorOf(wrongSize), "cannot launch 'mixed_kernel': buffer 'C' "
                                "needs 8 bytes, the host buffer has 7");
  MixedHost host2;
  host2.scalars[2] = KernelScalar::i32(1);
  auto wrongScalar =
      driver->launch(m, image(), true, host2.buffers, host2.scalars);
  EXPECT_EQ(errorOf(wrongScalar),
            "cannot launch 'mixed_kernel': scalar argument 'big' of kernel "
            "'mixed_kernel' is i64, but i32 was given");
  m.target = "amdgpu";
  m.chip = "gfx942";
  auto amd = driver->launch(m, image(), true, host2.buffers, host2.scalars);
  EXPECT_EQ(errorOf(amd),
            "cannot launch 'mixed_kernel': it targets amdgpu, not nvptx");
  m = mixedMetadata();
  m.grid[0] = 0;
  auto invalid = driver->launch(m, image(), true, host2.buffers, host2.scalars);
  EXPECT_EQ(errorOf(invalid),
            "cannot launch 'mixed_kernel': invalid kernel metadata: grid[0]: 0 "
            "is out of range [1, 2147483647]");
  LaunchOptions options;
  options.device = 1;
  MixedHost host3;
  auto noDevice = driver->launch(mixedMetadata(), image(), true, host3.buffers,
                                 host3.scalars, options);
  EXPECT_EQ(errorOf(noDevice),
            "cannot launch 'mixed_kernel': cuDeviceGet failed: "
            "CUDA_ERROR_INVALID_DEVICE (invalid device ordinal)");
  EXPECT_EQ(fake.count("allocs"), 0);
  EXPECT_EQ(fake.count("modules_loaded"), 0);
}

TEST_F(CudaLauncherFakeTest, EveryDriverFailureIsReportedAndCleanedUp) {
  const char *functions[] = {
      "cuDeviceGetName",    "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain",
      "cuCtxSetCurrent",    "cuModuleLoadData",     "cuModuleGetFunction",
      "cuFuncSetAttribute", "cuMemAlloc_v2",        "cuMemcpyHtoD_v2",
      "cuMemsetD8_v2",      "cuLaunchKernel",       "cuCtxSynchronize",
      "cuMemcpyDtoH_v2",    "cuEventCreate",        "cuEventRecord",
      "cuEventSynchronize", "cuEventElapsedTime"};
  for (const char *function : functions) {
    SCOPED_TRACE(function);
    fake.reset();
    auto driver = openDriver();
    ASSERT_TRUE(driver);
    fake.fail(function, 2);
    KernelMetadata m = mixedMetadata();
    m.dynamicSharedBytes = 65536;
    MixedHost host;
    LaunchOptions options;
    options.timedLaunches = 2;
    auto result = driver->launch(m, image(), /*isPtx=*/false, host.buffers,
                                 host.scalars, options);
    EXPECT_EQ(errorOf(result), std::string("cannot launch 'mixed_kernel': ") +
                                   function +
                                   " failed: CUDA_ERROR_OUT_OF_MEMORY (out of "
                                   "memory)");
    expectNothingLeaked();
    driver.reset();
    EXPECT_EQ(fake.count("retained_contexts"), 0);
  }
}

TEST_F(CudaLauncherFakeTest, PtxJitFailureShowsTheLog) {
  auto driver = openDriver();
  ASSERT_TRUE(driver);
  fake.fail("cuModuleLoadDataEx", 218);
  MixedHost host;
  auto result = driver->launch(mixedMetadata(), image(), true, host.buffers,
                               host.scalars);
  EXPECT_EQ(errorOf(result),
            "cannot launch 'mixed_kernel': cuModuleLoadDataEx failed: "
            "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n"
            "PTX JIT log:\nptxas fatal   : fake syntax error");
  EXPECT_EQ(fake.count("live_modules"), 0);
  expectNothingLeaked();
}

TEST_F(CudaLauncherFakeTest, InitFailuresAndUnknownCodes) {
  fake.fail("cuInit", 100);
  auto noDevice = CudaDriver::open();
  EXPECT_EQ(errorOf(noDevice), "cuInit failed: CUDA_ERROR_NO_DEVICE (no "
                               "CUDA-capable device is detected)");
  // A code the driver has no name for.
  fake.fail("cuInit", 12345);
  auto unknown = CudaDriver::open();
  EXPECT_EQ(errorOf(unknown), "cuInit failed: unknown CUDA error 12345");
}

//===----------------------------------------------------------------------===//
// A real GPU
//===----------------------------------------------------------------------===//

/// out[i] = alpha * x[i] + y[i] for i < n, for sm_80 and later.
constexpr const char *kAxpyPtx = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry accel_axpy(
    .param .u64 accel_axpy_x,
    .param .u64 accel_axpy_y,
    .param .u64 accel_axpy_out,
    .param .f32 accel_axpy_alpha,
    .param .u32 accel_axpy_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [accel_axpy_x];
    ld.param.u64 %rd2, [accel_axpy_y];
    ld.param.u64 %rd3, [accel_axpy_out];
    ld.param.f32 %f1, [accel_axpy_alpha];
    ld.param.u32 %r1, [accel_axpy_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f2, [%rd8];
    ld.global.f32 %f3, [%rd9];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd10], %f4;
DONE:
    ret;
}
)";

TEST(CudaLauncherDevice, AxpyPtx) {
  unsetenv(CudaDriver::kLibraryEnvVar);
  auto driver = CudaDriver::open();
  if (!driver)
    GTEST_SKIP() << errorOf(driver);
  constexpr int n = 1000;
  KernelMetadata m;
  m.chip = "sm_80";
  m.kernel = "accel_axpy";
  m.grid = {(n + 127) / 128, 1, 1};
  m.block = {128, 1, 1};
  m.arguments = {bufferArg("x", "f32", {n}, BufferAccess::In),
                 bufferArg("y", "f32", {n}, BufferAccess::In),
                 bufferArg("out", "f32", {n}, BufferAccess::Out),
                 scalarArg("alpha", KernelArgKind::F32),
                 scalarArg("n", KernelArgKind::I32)};
  std::vector<float> x(n), y(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = static_cast<float>(2 * i + 1);
  }
  auto bytes = [](std::vector<float> &v) {
    return HostBuffer{{reinterpret_cast<uint8_t *>(v.data()), v.size() * 4}};
  };
  HostBuffer buffers[] = {bytes(x), bytes(y), bytes(out)};
  KernelScalar scalars[] = {KernelScalar::f32(3.0f), KernelScalar::i32(n)};
  LaunchOptions options;
  options.timedLaunches = 5;
  std::string ptx = kAxpyPtx;
  auto result = (*driver)->launch(
      m, {reinterpret_cast<const uint8_t *>(ptx.data()), ptx.size()}, true,
      buffers, scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 3.0f * i + 2 * i + 1) << i;
  ASSERT_EQ(result->launchMillis.size(), 5u);
  for (float millis : result->launchMillis)
    EXPECT_GT(millis, 0.0f);
  std::printf("axpy on %s (%d.%d): %.4f ms\n", result->deviceName.c_str(),
              result->computeCapabilityMajor, result->computeCapabilityMinor,
              result->launchMillis.back());

  // An sm_90a kernel is refused by name on any other device.
  m.chip = "sm_90a";
  auto refused = (*driver)->launch(
      m, {reinterpret_cast<const uint8_t *>(ptx.data()), ptx.size()}, true,
      buffers, scalars);
  if (result->computeCapabilityMajor != 9 ||
      result->computeCapabilityMinor != 0)
    EXPECT_NE(errorOf(refused).find("runs only on compute capability 9.0"),
              std::string::npos);
}

} // namespace
