//===- fake_libamdhip64.c - A host-memory stand-in for libamdhip64 -*- C
//-*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Implements the HIP runtime entry points HipRuntime resolves, on host
// memory, so the launcher's whole path (loading, allocation, copies, NaN
// fill, argument packing, launch, freeing) runs in unit tests on machines
// without an AMD GPU. Device pointers are malloc'd host pointers.
// hipModuleLaunchKernel records its configuration and a copy of each
// parameter (the test says how many bytes each has) and calls a
// test-provided host function in place of the kernel. The fake_hip_*
// functions let the test inspect and steer it.
//
// Environment: FAKE_HIP_ARCH (default "gfx942:sramecc+:xnack-") is the
// devices' gcnArchName, FAKE_HIP_LDS (default 65536) their LDS per
// workgroup, FAKE_HIP_DEVICES (default 1) how many there are.
//
// Built twice: with FAKE_HIP_ROCM5 defined it has the ROCm 5 entry point
// hipGetDeviceProperties instead of hipGetDevicePropertiesR0600.
//
//===----------------------------------------------------------------------===//

#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;

/* Codes from hip_runtime_api.h. */
enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  NO_BINARY_FOR_GPU = 209,
  NOT_FOUND = 500,
};

/* The layout of hipDeviceProp_tR0600 up to the fields the launcher reads,
   written independently of HipLauncher.cpp (offsets from
   hip_runtime_api.h of ROCm 6). */
typedef struct {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  char pad1[1160 - 304];
  char gcnArchName[256];
  char pad2[1472 - 1416];
} DeviceProp;
_Static_assert(offsetof(DeviceProp, gcnArchName) == 1160, "layout");
_Static_assert(sizeof(DeviceProp) == 1472, "layout");

#define MAX_ALLOCS 64
#define MAX_PARAMS 32
#define MAX_CALLS 64

static struct {
  void *pointer[MAX_ALLOCS];
  size_t size[MAX_ALLOCS];
  int allocs, frees, badAccesses;
  int liveModules, liveEvents, modulesLoaded;
  int launches, synchronizes, inits;
  int launchDevice, loadDevice;
  unsigned dims[6];
  unsigned sharedBytes;
  size_t paramSize[MAX_PARAMS];
  int numParams;
  unsigned char params[MAX_PARAMS][8];
  char image[256];
  char function[128];
  void (*kernel)(void **params, void *user);
  void *user;
  char failName[64];
  int failCode;
  char calls[MAX_CALLS][32];
  int numCalls;
  void *stream;
  char launched[MAX_CALLS][64];
} fake;

static struct ihipModule_t {
  int unused;
} theModule;
/* Functions by name: the launch knows which kernel it runs. */
#define MAX_FUNCTIONS 16
static struct ihipModuleSymbol_t {
  char name[128];
} theFunctions[MAX_FUNCTIONS];
static int numFunctions;
static struct ihipEvent_t {
  int unused;
} theEvents[8];

/* Returns the injected error when `name` is the function to fail, and
   records the call order. */
/* The calling thread's current device, as the runtime keeps it. */
static __thread int currentDevice;

/* Ranks that are threads of one process (gpu-sharded.test) call in
   at the same time: the call log and each launch with its callback are
   serialized. */
static pthread_mutex_t callsLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t launchLock = PTHREAD_MUTEX_INITIALIZER;

static hipError_t enter(const char *name) {
  pthread_mutex_lock(&callsLock);
  if (fake.numCalls < MAX_CALLS)
    snprintf(fake.calls[fake.numCalls++], sizeof(fake.calls[0]), "%s", name);
  pthread_mutex_unlock(&callsLock);
  if (fake.failCode != 0 && strcmp(name, fake.failName) == 0)
    return fake.failCode;
  return SUCCESS;
}

#define ENTER(name)                                                            \
  do {                                                                         \
    hipError_t injected = enter(name);                                         \
    if (injected != SUCCESS)                                                   \
      return injected;                                                         \
  } while (0)

/* The allocation containing [pointer, pointer + size), or -1. */
static int findAllocation(const void *pointer, size_t size) {
  uintptr_t start = (uintptr_t)pointer;
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    uintptr_t base = (uintptr_t)fake.pointer[i];
    if (base && start >= base && start + size <= base + fake.size[i])
      return i;
  }
  return -1;
}

static int deviceCount(void) {
  const char *count = getenv("FAKE_HIP_DEVICES");
  return count ? atoi(count) : 1;
}

//===--- Test control -----------------------------------------------------===//

void fake_hip_reset(void) {
  memset(&fake, 0, sizeof(fake));
  memset(theFunctions, 0, sizeof(theFunctions));
  numFunctions = 0;
}
/* The stream of the last launch, and the kernel of launch i. */
void *fake_hip_stream(void) { return fake.stream; }
const char *fake_hip_launched(int i) {
  return i >= 0 && i < fake.launches && i < MAX_CALLS ? fake.launched[i] : "";
}
void fake_hip_fail(const char *name, int code) {
  snprintf(fake.failName, sizeof(fake.failName), "%s", name);
  fake.failCode = code;
}
void fake_hip_set_param_sizes(const size_t *sizes, int count) {
  fake.numParams = count < MAX_PARAMS ? count : MAX_PARAMS;
  memcpy(fake.paramSize, sizes, fake.numParams * sizeof(size_t));
}
void fake_hip_set_kernel(void (*kernel)(void **, void *), void *user) {
  fake.kernel = kernel;
  fake.user = user;
}
/* Counters, by name; -1 for an unknown name. */
int fake_hip_count(const char *what) {
  if (!strcmp(what, "allocs"))
    return fake.allocs;
  if (!strcmp(what, "frees"))
    return fake.frees;
  if (!strcmp(what, "bad_accesses"))
    return fake.badAccesses;
  if (!strcmp(what, "live_modules"))
    return fake.liveModules;
  if (!strcmp(what, "modules_loaded"))
    return fake.modulesLoaded;
  if (!strcmp(what, "live_events"))
    return fake.liveEvents;
  if (!strcmp(what, "launches"))
    return fake.launches;
  if (!strcmp(what, "synchronizes"))
    return fake.synchronizes;
  if (!strcmp(what, "inits"))
    return fake.inits;
  if (!strcmp(what, "launch_device"))
    return fake.launchDevice;
  if (!strcmp(what, "load_device"))
    return fake.loadDevice;
  if (!strcmp(what, "shared_bytes"))
    return (int)fake.sharedBytes;
  if (!strcmp(what, "calls"))
    return fake.numCalls;
  return -1;
}
const unsigned *fake_hip_launch_dims(void) { return fake.dims; }
const unsigned char *fake_hip_param(int i) { return fake.params[i]; }
const char *fake_hip_image(void) { return fake.image; }
const char *fake_hip_function(void) { return fake.function; }
const char *fake_hip_call(int i) {
  return i < fake.numCalls ? fake.calls[i] : "";
}

//===--- Runtime API ------------------------------------------------------===//

hipError_t hipInit(unsigned flags) {
  ENTER("hipInit");
  ++fake.inits;
  return flags == 0 ? SUCCESS : INVALID_VALUE;
}

hipError_t hipGetDeviceCount(int *count) {
  ENTER("hipGetDeviceCount");
  *count = deviceCount();
  return *count > 0 ? SUCCESS : NO_DEVICE;
}

static hipError_t getProperties(DeviceProp *props, int device) {
  if (device < 0 || device >= deviceCount())
    return INVALID_DEVICE;
  /* The runtime writes the whole structure. */
  memset(props, 0x5A, sizeof(*props));
  snprintf(props->name, sizeof(props->name), "Fake AMD GPU");
  const char *arch = getenv("FAKE_HIP_ARCH");
  snprintf(props->gcnArchName, sizeof(props->gcnArchName), "%s",
           arch ? arch : "gfx942:sramecc+:xnack-");
  const char *lds = getenv("FAKE_HIP_LDS");
  props->sharedMemPerBlock = lds ? (size_t)atol(lds) : 65536;
  return SUCCESS;
}

#ifdef FAKE_HIP_ROCM5
hipError_t hipGetDeviceProperties(DeviceProp *props, int device) {
  ENTER("hipGetDeviceProperties");
  return getProperties(props, device);
}
#else
hipError_t hipGetDevicePropertiesR0600(DeviceProp *props, int device) {
  ENTER("hipGetDevicePropertiesR0600");
  return getProperties(props, device);
}
#endif

hipError_t hipSetDevice(int device) {
  ENTER("hipSetDevice");
  if (device < 0 || device >= deviceCount())
    return INVALID_DEVICE;
  currentDevice = device;
  return SUCCESS;
}

hipError_t hipGetDevice(int *device) {
  ENTER("hipGetDevice");
  *device = currentDevice;
  return SUCCESS;
}

hipError_t hipDeviceSynchronize(void) {
  ENTER("hipDeviceSynchronize");
  ++fake.synchronizes;
  return SUCCESS;
}

hipError_t hipModuleLoadData(struct ihipModule_t **module, const void *image) {
  ENTER("hipModuleLoadData");
  /* Like the runtime: an image that is no code object is refused. */
  if (memcmp(image,
             "\x7f"
             "ELF",
             4) != 0)
    return INVALID_IMAGE;
  snprintf(fake.image, sizeof(fake.image), "%s", (const char *)image);
  fake.loadDevice = currentDevice;
  ++fake.liveModules;
  ++fake.modulesLoaded;
  *module = &theModule;
  return SUCCESS;
}

hipError_t hipModuleUnload(struct ihipModule_t *module) {
  ENTER("hipModuleUnload");
  if (module != &theModule)
    return INVALID_VALUE;
  --fake.liveModules;
  return SUCCESS;
}

hipError_t hipModuleGetFunction(struct ihipModuleSymbol_t **function,
                                struct ihipModule_t *module, const char *name) {
  ENTER("hipModuleGetFunction");
  if (module != &theModule)
    return INVALID_VALUE;
  snprintf(fake.function, sizeof(fake.function), "%s", name);
  int i = 0;
  while (i < numFunctions && strcmp(theFunctions[i].name, name) != 0)
    ++i;
  if (i == MAX_FUNCTIONS)
    return NOT_FOUND;
  if (i == numFunctions)
    snprintf(theFunctions[numFunctions++].name, sizeof(theFunctions[0].name),
             "%s", name);
  *function = &theFunctions[i];
  return SUCCESS;
}

hipError_t hipMalloc(void **pointer, size_t size) {
  ENTER("hipMalloc");
  /* The runtime returns a null pointer for size 0; the launcher must not
     ask for one at all. */
  if (size == 0)
    return INVALID_VALUE;
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    if (fake.pointer[i])
      continue;
    fake.pointer[i] = malloc(size);
    fake.size[i] = size;
    ++fake.allocs;
    *pointer = fake.pointer[i];
    return SUCCESS;
  }
  return OUT_OF_MEMORY;
}

hipError_t hipFree(void *pointer) {
  ENTER("hipFree");
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    if (fake.pointer[i] != pointer)
      continue;
    free(fake.pointer[i]);
    fake.pointer[i] = NULL;
    ++fake.frees;
    return SUCCESS;
  }
  ++fake.badAccesses;
  return INVALID_VALUE;
}

hipError_t hipMemcpyHtoD(void *dst, const void *src, size_t size) {
  ENTER("hipMemcpyHtoD");
  if (findAllocation(dst, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memcpy(dst, src, size);
  return SUCCESS;
}

hipError_t hipMemcpyDtoH(void *dst, const void *src, size_t size) {
  ENTER("hipMemcpyDtoH");
  if (findAllocation(src, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memcpy(dst, src, size);
  return SUCCESS;
}

hipError_t hipMemset(void *dst, int value, size_t size) {
  ENTER("hipMemset");
  if (findAllocation(dst, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memset(dst, value, size);
  return SUCCESS;
}

static hipError_t launchLocked(struct ihipModuleSymbol_t *function,
                                 unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz,
                                 unsigned sharedBytes, void *stream,
                                 void **params, void **extra) {
  ENTER("hipModuleLaunchKernel");
  if (function < theFunctions || function >= theFunctions + numFunctions ||
      extra != NULL)
    return INVALID_VALUE;
  fake.stream = stream;
  snprintf(fake.function, sizeof(fake.function), "%s", function->name);
  if (fake.launches < MAX_CALLS)
    snprintf(fake.launched[fake.launches], sizeof(fake.launched[0]), "%s",
             function->name);
  unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  memcpy(fake.dims, dims, sizeof(dims));
  fake.sharedBytes = sharedBytes;
  fake.launchDevice = currentDevice;
  if (fake.numParams > 0 && params == NULL)
    return INVALID_VALUE;
  for (int i = 0; i < fake.numParams; ++i)
    memcpy(fake.params[i], params[i], fake.paramSize[i]);
  ++fake.launches;
  if (fake.kernel)
    fake.kernel(params, fake.user);
  return SUCCESS;
}

hipError_t hipModuleLaunchKernel(struct ihipModuleSymbol_t *function,
                                 unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz,
                                 unsigned sharedBytes, void *stream,
                                 void **params, void **extra) {
  pthread_mutex_lock(&launchLock);
  hipError_t result = launchLocked(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params, extra);
  pthread_mutex_unlock(&launchLock);
  return result;
}

hipError_t hipEventCreate(struct ihipEvent_t **event) {
  ENTER("hipEventCreate");
  if (fake.liveEvents >= 8)
    return INVALID_VALUE;
  *event = &theEvents[fake.liveEvents++];
  return SUCCESS;
}

hipError_t hipEventRecord(struct ihipEvent_t *event, void *stream) {
  ENTER("hipEventRecord");
  (void)event;
  return stream == NULL ? SUCCESS : INVALID_VALUE;
}

hipError_t hipEventSynchronize(struct ihipEvent_t *event) {
  ENTER("hipEventSynchronize");
  (void)event;
  return SUCCESS;
}

hipError_t hipEventElapsedTime(float *millis, struct ihipEvent_t *start,
                               struct ihipEvent_t *stop) {
  ENTER("hipEventElapsedTime");
  (void)start;
  (void)stop;
  *millis = 0.25f * (float)fake.launches;
  return SUCCESS;
}

hipError_t hipEventDestroy(struct ihipEvent_t *event) {
  ENTER("hipEventDestroy");
  (void)event;
  --fake.liveEvents;
  return SUCCESS;
}

/* The names and texts of the runtime. For a code it does not know, the
   runtime answers "hipErrorUnknown"; the fake answers NULL so that the
   launcher's guard against a null name is exercised. */
const char *hipGetErrorName(hipError_t code) {
  switch (code) {
  case SUCCESS:
    return "hipSuccess";
  case INVALID_VALUE:
    return "hipErrorInvalidValue";
  case OUT_OF_MEMORY:
    return "hipErrorOutOfMemory";
  case NO_DEVICE:
    return "hipErrorNoDevice";
  case INVALID_DEVICE:
    return "hipErrorInvalidDevice";
  case INVALID_IMAGE:
    return "hipErrorInvalidImage";
  case NO_BINARY_FOR_GPU:
    return "hipErrorNoBinaryForGpu";
  case NOT_FOUND:
    return "hipErrorNotFound";
  }
  return NULL;
}

const char *hipGetErrorString(hipError_t code) {
  switch (code) {
  case SUCCESS:
    return "no error";
  case INVALID_VALUE:
    return "invalid argument";
  case OUT_OF_MEMORY:
    return "out of memory";
  case NO_DEVICE:
    return "no ROCm-capable device is detected";
  case INVALID_DEVICE:
    return "invalid device ordinal";
  case INVALID_IMAGE:
    return "device kernel image is invalid";
  case NO_BINARY_FOR_GPU:
    return "no kernel image is available for execution on the device";
  case NOT_FOUND:
    return "named symbol not found";
  }
  return NULL;
}
