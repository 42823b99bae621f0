//===- HipLauncherTest.cpp - the HIP module API launcher ------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The launch tests run the launcher against fake_libamdhip64.c (a
// host-memory HIP runtime built next to this test), which records what the
// launcher asks for and runs a host function in place of the kernel. There
// is no test on a real AMD GPU: none is available where this is developed.
//
//===----------------------------------------------------------------------===//

#include "accel/Runtime/HipLauncher.h"
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
  m.target = "amdgpu";
  m.chip = "gfx942";
  m.kernel = "mixed_kernel";
  m.grid = {3, 2, 1};
  m.block = {64, 4, 1};
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
// The architecture check
//===----------------------------------------------------------------------===//

TEST(HipLauncherTest, AmdgpuArch) {
  struct Case {
    const char *chip;
    const char *gcnArchName;
    const char *error; // nullptr: compatible
  };
  const Case cases[] = {
      // The feature suffixes do not matter, only the processor.
      {"gfx942", "gfx942:sramecc+:xnack-", nullptr},
      {"gfx942", "gfx942:sramecc-:xnack+", nullptr},
      {"gfx942", "gfx942", nullptr},
      {"gfx90a", "gfx90a:sramecc+:xnack-", nullptr},
      {"gfx1100", "gfx1100", nullptr},
      {"gfx942", "gfx90a:sramecc+:xnack-",
       "code for gfx942 runs only on gfx942, but the device is "
       "gfx90a:sramecc+:xnack-"},
      {"gfx90a", "gfx942:sramecc+:xnack-",
       "code for gfx90a runs only on gfx90a, but the device is "
       "gfx942:sramecc+:xnack-"},
      // Neither a prefix nor an extension of the processor name matches.
      {"gfx110", "gfx1100",
       "code for gfx110 runs only on gfx110, but the device is gfx1100"},
      {"gfx1100", "gfx1101",
       "code for gfx1100 runs only on gfx1100, but the device is gfx1101"},
      {"gfx942", "gfx9420:xnack-",
       "code for gfx942 runs only on gfx942, but the device is "
       "gfx9420:xnack-"},
      {"gfx942", "",
       "code for gfx942 cannot be checked against the device: it reports no "
       "architecture name"},
      {"gfx942", ":sramecc+",
       "code for gfx942 cannot be checked against the device: it reports no "
       "architecture name"},
  };
  for (const Case &c : cases)
    EXPECT_EQ(errorOf(checkAmdgpuArch(c.chip, c.gcnArchName)),
              c.error ? c.error : "<success>")
        << c.chip << " on " << c.gcnArchName;
  // The chip itself must be an AMD one, whatever the device is.
  for (const char *chip : {"sm_80", "gfx", "gfx94", "gfx94z", "GFX942", ""})
    EXPECT_EQ(errorOf(checkAmdgpuArch(chip, "gfx942:sramecc+:xnack-")),
              std::string("unknown AMD chip '") + chip +
                  "' (expected gfx<version>, e.g. gfx942)")
        << chip;
}

//===----------------------------------------------------------------------===//
// Opening the runtime
//===----------------------------------------------------------------------===//

/// Sets ACCEL_LIBAMDHIP64 for one test and restores the environment after.
class ScopedLibamdhip64 {
public:
  explicit ScopedLibamdhip64(const char *path) {
    if (path)
      setenv(HipRuntime::kLibraryEnvVar, path, 1);
    else
      unsetenv(HipRuntime::kLibraryEnvVar);
  }
  ~ScopedLibamdhip64() { unsetenv(HipRuntime::kLibraryEnvVar); }
};

TEST(HipLauncherTest, OpenMissingLibrary) {
  ScopedLibamdhip64 env("/nonexistent/libamdhip64.so");
  auto runtime = HipRuntime::open();
  EXPECT_EQ(errorOf(runtime),
            "no AMD HIP runtime: cannot load /nonexistent/libamdhip64.so: "
            "/nonexistent/libamdhip64.so: cannot open shared object file: No "
            "such file or directory");
}

TEST(HipLauncherTest, OpenDefaultLibrary) {
  ScopedLibamdhip64 env(nullptr);
  const char *candidates[] = {"libamdhip64.so", "libamdhip64.so.6",
                              "libamdhip64.so.7",
                              "/opt/rocm/lib/libamdhip64.so"};
  for (const char *candidate : candidates)
    if (void *real = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) {
      dlclose(real);
      GTEST_SKIP() << "this machine has " << candidate;
    }
  auto runtime = HipRuntime::open();
  // Every candidate is named, each with its own reason.
  EXPECT_EQ(errorOf(runtime),
            "no AMD HIP runtime: cannot load libamdhip64.so, libamdhip64.so.6, "
            "libamdhip64.so.7 or /opt/rocm/lib/libamdhip64.so: "
            "libamdhip64.so: cannot open shared object file: No such file or "
            "directory; libamdhip64.so.6: cannot open shared object file: No "
            "such file or directory; libamdhip64.so.7: cannot open shared "
            "object file: No such file or directory; "
            "/opt/rocm/lib/libamdhip64.so: cannot open shared object file: No "
            "such file or directory");
}

TEST(HipLauncherTest, OpenLibraryWithoutSymbols) {
  const char *libm = "/lib/x86_64-linux-gnu/libm.so.6";
  if (access(libm, R_OK) != 0)
    GTEST_SKIP() << libm << " is not here";
  ScopedLibamdhip64 env(libm);
  auto runtime = HipRuntime::open();
  EXPECT_EQ(errorOf(runtime), std::string("no usable AMD HIP runtime: ") +
                                  libm + ": missing symbol hipInit");
}

TEST(HipLauncherTest, OpenRocm5Library) {
  // Everything but the ROCm 6 device properties entry point is there.
  ScopedLibamdhip64 env(ACCEL_FAKE_LIBAMDHIP64_ROCM5);
  auto runtime = HipRuntime::open();
  EXPECT_EQ(errorOf(runtime),
            std::string("no usable AMD HIP runtime: ") +
                ACCEL_FAKE_LIBAMDHIP64_ROCM5 +
                ": missing symbol hipGetDevicePropertiesR0600 (ROCm 6 or "
                "later is needed)");
}

//===----------------------------------------------------------------------===//
// The launch path against the fake runtime
//===----------------------------------------------------------------------===//

/// The fake's control functions (fake_libamdhip64.c).
struct FakeHip {
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
/// C += n (+ big's high bits), and A is scribbled on (it must not come back).
struct MixedKernelState {
  bool sawNaNOutput = false;
  float inputSeen[4] = {0, 0, 0, 0};
  int32_t inoutSeen[2] = {0, 0};
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
  for (int i = 0; i < 2; ++i) {
    state->inoutSeen[i] = c[i];
    c[i] += n + static_cast<int32_t>(big >> 40);
  }
}

class HipLauncherFakeTest : public ::testing::Test {
protected:
  void SetUp() override {
    handle = dlopen(ACCEL_FAKE_LIBAMDHIP64, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto get = [&](const char *name, auto &slot) {
      void *symbol = dlsym(handle, name);
      ASSERT_NE(symbol, nullptr) << name;
      std::memcpy(&slot, &symbol, sizeof(void *));
    };
    get("fake_hip_reset", fake.reset);
    get("fake_hip_fail", fake.fail);
    get("fake_hip_set_param_sizes", fake.setParamSizes);
    get("fake_hip_set_kernel", fake.setKernel);
    get("fake_hip_count", fake.count);
    get("fake_hip_launch_dims", fake.launchDims);
    get("fake_hip_param", fake.param);
    get("fake_hip_image", fake.image);
    get("fake_hip_function", fake.function);
    get("fake_hip_call", fake.call);
    fake.reset();
    setenv(HipRuntime::kLibraryEnvVar, ACCEL_FAKE_LIBAMDHIP64, 1);
    for (const char *name : kFakeEnv)
      unsetenv(name);
  }
  void TearDown() override {
    unsetenv(HipRuntime::kLibraryEnvVar);
    for (const char *name : kFakeEnv)
      unsetenv(name);
    if (handle)
      dlclose(handle);
  }

  static constexpr const char *kFakeEnv[] = {"FAKE_HIP_ARCH", "FAKE_HIP_LDS",
                                             "FAKE_HIP_DEVICES"};

  std::unique_ptr<HipRuntime> openRuntime() {
    auto runtime = HipRuntime::open();
    EXPECT_TRUE(bool(runtime)) << errorOf(runtime);
    return runtime ? std::move(*runtime) : nullptr;
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
  FakeHip fake{};
  /// Enough of an ELF header for the launcher's and the fake's checks.
  const std::string hsaco = "\x7f"
                            "ELF fake HSACO";
  llvm::ArrayRef<uint8_t> image() const {
    return {reinterpret_cast<const uint8_t *>(hsaco.data()), hsaco.size()};
  }
};

TEST_F(HipLauncherFakeTest, TheGpuRuntimeInterfaceTakesCodeObjectsOnly) {
  auto opened = openRuntime();
  ASSERT_TRUE(opened);
  std::unique_ptr<GpuRuntime> runtime = std::move(opened);
  EXPECT_EQ(runtime->getTargetName(), "amdgpu");
  MixedHost host;
  auto wrong = runtime->launchKernel(
      mixedMetadata(), GpuImage{image(), GpuImage::Kind::Ptx}, host.buffers,
      host.scalars, LaunchOptions());
  ASSERT_FALSE(bool(wrong));
  EXPECT_NE(errorOf(wrong).find("not PTX or cubin images"), std::string::npos);
}

TEST_F(HipLauncherFakeTest, LaunchRunsTheWholePath) {
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  EXPECT_EQ(runtime->getLibraryPath(), ACCEL_FAKE_LIBAMDHIP64);
  EXPECT_EQ(fake.count("inits"), 1);
  MixedKernelState state;
  fake.setKernel(mixedKernel, &state);
  recordMixedParams();
  MixedHost host;
  auto result =
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars);
  ASSERT_TRUE(bool(result)) << errorOf(result);

  // What the kernel saw: inputs copied in, the output NaN-filled.
  EXPECT_EQ(state.calls, 1);
  EXPECT_TRUE(state.sawNaNOutput);
  EXPECT_EQ(std::vector<float>(state.inputSeen, state.inputSeen + 4),
            (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(std::vector<int32_t>(state.inoutSeen, state.inoutSeen + 2),
            (std::vector<int32_t>{10, 20}));
  // What came back: Out and InOut, not In.
  EXPECT_EQ(host.b, (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(host.c, (std::vector<int32_t>{18, 28}));
  EXPECT_EQ(host.a, (std::vector<float>{1, 2, 3, 4}));

  // The parameters as hipModuleLaunchKernel received them: one pointer per
  // parameter, 4-byte scalars in the first bytes of their slot.
  EXPECT_EQ(readAs<int32_t>(fake.param(1)), 5);
  EXPECT_EQ(readAs<float>(fake.param(3)), 0.5f);
  EXPECT_EQ(readAs<int64_t>(fake.param(5)), int64_t(3) << 40);
  EXPECT_NE(readAs<uint64_t>(fake.param(0)), readAs<uint64_t>(fake.param(2)));
  EXPECT_NE(readAs<uint64_t>(fake.param(0)), 0u);

  // The launch configuration and module.
  const unsigned *dims = fake.launchDims();
  EXPECT_EQ(std::vector<unsigned>(dims, dims + 6),
            (std::vector<unsigned>{3, 2, 1, 64, 4, 1}));
  EXPECT_EQ(fake.count("shared_bytes"), 1024);
  EXPECT_EQ(std::string(fake.image()), hsaco);
  EXPECT_EQ(std::string(fake.function()), "mixed_kernel");
  EXPECT_EQ(fake.count("synchronizes"), 1);
  EXPECT_EQ(fake.count("launches"), 1);
  EXPECT_EQ(result->deviceName, "Fake AMD GPU");
  EXPECT_EQ(result->gcnArchName, "gfx942:sramecc+:xnack-");
  EXPECT_TRUE(result->launchMillis.empty());
  EXPECT_EQ(fake.count("allocs"), 3);
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, CallOrder) {
  // The architecture is checked before anything is loaded or allocated, the
  // results are copied back only after the synchronization.
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  MixedHost host;
  ASSERT_TRUE(bool(
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars)));
  std::vector<std::string> calls;
  for (int i = 0; i < fake.count("calls"); ++i)
    calls.push_back(fake.call(i));
  std::vector<std::string> expected = {"hipInit",
                                       "hipGetDeviceCount",
                                       "hipGetDevicePropertiesR0600",
                                       "hipSetDevice",
                                       "hipModuleLoadData",
                                       "hipModuleGetFunction",
                                       "hipMalloc",
                                       "hipMemcpyHtoD",
                                       "hipMalloc",
                                       "hipMemset",
                                       "hipMalloc",
                                       "hipMemcpyHtoD",
                                       "hipModuleLaunchKernel",
                                       "hipDeviceSynchronize",
                                       "hipMemcpyDtoH",
                                       "hipMemcpyDtoH",
                                       "hipFree",
                                       "hipFree",
                                       "hipFree",
                                       "hipModuleUnload"};
  EXPECT_EQ(calls, expected);
}

TEST_F(HipLauncherFakeTest, Timing) {
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  MixedHost host;
  LaunchOptions options;
  options.timedLaunches = 3;
  auto result = runtime->launch(mixedMetadata(), image(), host.buffers,
                                host.scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  // One checked launch, then three timed ones; the fake reports 0.25 ms
  // times the launch count.
  EXPECT_EQ(fake.count("launches"), 4);
  EXPECT_EQ(result->launchMillis, (std::vector<float>{0.5f, 0.75f, 1.0f}));
  // The timed launches do not change the results that came back.
  EXPECT_EQ(host.c, (std::vector<int32_t>{10, 20}));
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, SelectsTheDevice) {
  setenv("FAKE_HIP_DEVICES", "2", 1);
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  MixedHost host;
  LaunchOptions options;
  options.device = 1;
  auto result = runtime->launch(mixedMetadata(), image(), host.buffers,
                                host.scalars, options);
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(fake.count("load_device"), 1);
  EXPECT_EQ(fake.count("launch_device"), 1);

  for (int device : {2, -1}) {
    fake.reset();
    options.device = device;
    auto missing = runtime->launch(mixedMetadata(), image(), host.buffers,
                                   host.scalars, options);
    EXPECT_EQ(errorOf(missing), "cannot launch 'mixed_kernel': there is no "
                                "HIP device " +
                                    std::to_string(device) + " (2 found)");
    EXPECT_EQ(fake.count("modules_loaded"), 0);
  }
}

TEST_F(HipLauncherFakeTest, ArchMismatchIsRefusedBeforeLoading) {
  setenv("FAKE_HIP_ARCH", "gfx90a:sramecc+:xnack-", 1);
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  MixedHost host;
  auto result =
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars);
  EXPECT_EQ(errorOf(result),
            "cannot launch 'mixed_kernel': code for gfx942 runs only on "
            "gfx942, but the device is gfx90a:sramecc+:xnack- (device 0: Fake "
            "AMD GPU)");
  EXPECT_EQ(fake.count("modules_loaded"), 0);
  EXPECT_EQ(fake.count("allocs"), 0);

  // Other feature settings of the right processor are fine.
  setenv("FAKE_HIP_ARCH", "gfx942:sramecc-:xnack+", 1);
  EXPECT_TRUE(bool(
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars)));
  KernelMetadata m = mixedMetadata();
  m.chip = "gfx90a";
  setenv("FAKE_HIP_ARCH", "gfx90a", 1);
  EXPECT_TRUE(bool(runtime->launch(m, image(), host.buffers, host.scalars)));
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, LdsLimit) {
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  KernelMetadata m = mixedMetadata();
  MixedHost host;
  // gfx942: 64 KiB per workgroup, static and dynamic together.
  m.dynamicSharedBytes = 65536 - 1000;
  m.resources.emplace();
  m.resources->staticSharedBytes = 1001;
  auto refused = runtime->launch(m, image(), host.buffers, host.scalars);
  EXPECT_EQ(errorOf(refused),
            "cannot launch 'mixed_kernel': it needs 64536 bytes of dynamic and "
            "1001 bytes of static LDS, but device 0 allows 65536 per "
            "workgroup");
  EXPECT_EQ(fake.count("modules_loaded"), 0);
  m.resources->staticSharedBytes = 1000;
  ASSERT_TRUE(bool(runtime->launch(m, image(), host.buffers, host.scalars)));
  EXPECT_EQ(fake.count("shared_bytes"), 64536);

  // gfx950 has 160 KiB.
  fake.reset();
  setenv("FAKE_HIP_LDS", "163840", 1);
  m.resources.reset();
  m.dynamicSharedBytes = 163840;
  ASSERT_TRUE(bool(runtime->launch(m, image(), host.buffers, host.scalars)));
  EXPECT_EQ(fake.count("shared_bytes"), 163840);
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, ZeroSizedBuffer) {
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  KernelMetadata m = mixedMetadata();
  m.kernel = "empty";
  m.arguments = {bufferArg("E", "f16", {0, 8}, BufferAccess::Out),
                 bufferArg("F", "i8", {3}, BufferAccess::Out)};
  size_t sizes[] = {8, 8};
  fake.setParamSizes(sizes, 2);
  uint8_t f[3] = {1, 2, 3};
  HostBuffer buffers[] = {{{}}, {{f, 3}}};
  auto result = runtime->launch(m, image(), buffers, {});
  ASSERT_TRUE(bool(result)) << errorOf(result);
  EXPECT_EQ(readAs<uint64_t>(fake.param(0)), 0u);
  EXPECT_NE(readAs<uint64_t>(fake.param(1)), 0u);
  EXPECT_EQ(fake.count("allocs"), 1);
  // The kernel wrote nothing: the NaN fill comes back.
  EXPECT_EQ(f[0], 0xFF);
  EXPECT_EQ(f[2], 0xFF);
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, HostSideErrors) {
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  KernelMetadata m = mixedMetadata();
  MixedHost host;
  auto tooFew = runtime->launch(m, image(),
                                llvm::MutableArrayRef(host.buffers).drop_back(),
                                host.scalars);
  EXPECT_EQ(errorOf(tooFew), "cannot launch 'mixed_kernel': it takes 3 buffer "
                             "arguments, 2 given");
  host.buffers[2].bytes = host.buffers[2].bytes.drop_back();
  auto wrongSize = runtime->launch(m, image(), host.buffers, host.scalars);
  EXPECT_EQ(errorOf(wrongSize), "cannot launch 'mixed_kernel': buffer 'C' "
                                "needs 8 bytes, the host buffer has 7");
  MixedHost host2;
  host2.scalars[2] = KernelScalar::i32(1);
  auto wrongScalar = runtime->launch(m, image(), host2.buffers, host2.scalars);
  EXPECT_EQ(errorOf(wrongScalar),
            "cannot launch 'mixed_kernel': scalar argument 'big' of kernel "
            "'mixed_kernel' is i64, but i32 was given");
  MixedHost host3;
  m.target = "nvptx";
  m.chip = "sm_80";
  auto nvidia = runtime->launch(m, image(), host3.buffers, host3.scalars);
  EXPECT_EQ(errorOf(nvidia),
            "cannot launch 'mixed_kernel': it targets nvptx, not amdgpu");
  m = mixedMetadata();
  m.block = {1024, 2, 1};
  auto invalid = runtime->launch(m, image(), host3.buffers, host3.scalars);
  EXPECT_EQ(errorOf(invalid),
            "cannot launch 'mixed_kernel': invalid kernel metadata: block: "
            "1024x2x1 = 2048 threads exceeds 1024 per block");
  // PTX text is no code object; neither is an empty image.
  std::string ptx = ".version 7.0\n.target sm_80\n";
  for (llvm::ArrayRef<uint8_t> notHsaco :
       {llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(ptx.data()),
                                ptx.size()),
        llvm::ArrayRef<uint8_t>(image()).take_front(3),
        llvm::ArrayRef<uint8_t>()}) {
    auto refused = runtime->launch(mixedMetadata(), notHsaco, host3.buffers,
                                   host3.scalars);
    EXPECT_EQ(errorOf(refused),
              "cannot launch 'mixed_kernel': the image is neither an ELF code "
              "object (HSACO) nor a clang offload bundle");
  }
  EXPECT_EQ(fake.count("allocs"), 0);
  EXPECT_EQ(fake.count("modules_loaded"), 0);
  EXPECT_EQ(fake.count("calls"), 1); // hipInit only
}

TEST_F(HipLauncherFakeTest, EveryRuntimeFailureIsReportedAndCleanedUp) {
  const char *functions[] = {
      "hipGetDeviceCount",     "hipGetDevicePropertiesR0600",
      "hipSetDevice",          "hipModuleLoadData",
      "hipModuleGetFunction",  "hipMalloc",
      "hipMemcpyHtoD",         "hipMemset",
      "hipModuleLaunchKernel", "hipDeviceSynchronize",
      "hipMemcpyDtoH",         "hipEventCreate",
      "hipEventRecord",        "hipEventSynchronize",
      "hipEventElapsedTime"};
  for (const char *function : functions) {
    SCOPED_TRACE(function);
    fake.reset();
    auto runtime = openRuntime();
    ASSERT_TRUE(runtime);
    fake.fail(function, 2);
    MixedHost host;
    LaunchOptions options;
    options.timedLaunches = 2;
    auto result = runtime->launch(mixedMetadata(), image(), host.buffers,
                                  host.scalars, options);
    EXPECT_EQ(errorOf(result), std::string("cannot launch 'mixed_kernel': ") +
                                   function +
                                   " failed: hipErrorOutOfMemory (out of "
                                   "memory)");
    expectNothingLeaked();
  }
}

TEST_F(HipLauncherFakeTest, ModuleLoadFailure) {
  // A code object the runtime refuses: its error text, nothing left behind.
  auto runtime = openRuntime();
  ASSERT_TRUE(runtime);
  MixedHost host;
  fake.fail("hipModuleLoadData", 200);
  auto result =
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars);
  EXPECT_EQ(errorOf(result),
            "cannot launch 'mixed_kernel': hipModuleLoadData failed: "
            "hipErrorInvalidImage (device kernel image is invalid)");
  EXPECT_EQ(fake.count("allocs"), 0);
  expectNothingLeaked();

  // A failure after the allocations frees all of them.
  fake.reset();
  fake.fail("hipModuleLaunchKernel", 209);
  result =
      runtime->launch(mixedMetadata(), image(), host.buffers, host.scalars);
  EXPECT_EQ(errorOf(result),
            "cannot launch 'mixed_kernel': hipModuleLaunchKernel failed: "
            "hipErrorNoBinaryForGpu (no kernel image is available for "
            "execution on the device)");
  EXPECT_EQ(fake.count("allocs"), 3);
  EXPECT_EQ(fake.count("frees"), 3);
  expectNothingLeaked();
}

TEST_F(HipLauncherFakeTest, InitFailuresAndUnknownCodes) {
  fake.fail("hipInit", 100);
  auto noDevice = HipRuntime::open();
  EXPECT_EQ(errorOf(noDevice), "hipInit failed: hipErrorNoDevice (no "
                               "ROCm-capable device is detected)");
  // A code the runtime has no name for.
  fake.fail("hipInit", 12345);
  auto unknown = HipRuntime::open();
  EXPECT_EQ(errorOf(unknown), "hipInit failed: unknown HIP error 12345");
}

} // namespace
