//===- fake_libcuda.c - A host-memory stand-in for libcuda --------*- C -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Implements the CUDA driver entry points CudaDriver resolves, on host
// memory, so the launcher's whole path (loading, allocation, copies, NaN
// fill, argument packing, launch, freeing) runs in unit tests on machines
// without a GPU. Device pointers are malloc'd host pointers. cuLaunchKernel
// records its configuration and a copy of each parameter (the test says how
// many bytes each has) and calls a test-provided host function in place of
// the kernel. The fake_cuda_* functions let the test inspect and steer it.
//
// Environment: FAKE_CUDA_CC="major.minor" (default "8.0") is the device's
// compute capability; FAKE_CUDA_SMEM_OPTIN (default 232448) its opt-in
// shared memory per block.
//
//===----------------------------------------------------------------------===//

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  OUT_OF_MEMORY = 2,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_PTX = 218,
  INVALID_CONTEXT = 201,
  NOT_FOUND = 500,
};

#define MAX_ALLOCS 64
#define MAX_PARAMS 32
#define MAX_CALLS 64

static struct {
  void *pointer[MAX_ALLOCS];
  size_t size[MAX_ALLOCS];
  int allocs, frees, badAccesses;
  int liveModules, liveEvents, retainedContexts, modulesLoaded;
  int launches, synchronizes, setCurrent;
  unsigned dims[6];
  unsigned sharedBytes;
  int funcAttribute, funcAttributeValue;
  size_t paramSize[MAX_PARAMS];
  int numParams;
  unsigned char params[MAX_PARAMS][8];
  int loadedPtx;
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

/* The calling thread's current context, as the driver keeps it. */
static __thread struct CUctx_st *currentContext;

static struct CUmod_st {
  int unused;
} theModule;
/* Functions by name: the launch knows which kernel it runs. */
#define MAX_FUNCTIONS 16
static struct CUfunc_st {
  char name[128];
} theFunctions[MAX_FUNCTIONS];
static int numFunctions;
static struct CUctx_st {
  int unused;
} theContext;
static struct CUevent_st {
  int unused;
} theEvents[8];

/* Returns the injected error when `name` is the function to fail, and
   records the call order. */
/* Ranks that are threads of one process (gpu-sharded.test) call in
   at the same time: the call log and each launch with its callback are
   serialized. */
static pthread_mutex_t callsLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t launchLock = PTHREAD_MUTEX_INITIALIZER;

static CUresult enter(const char *name) {
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
    CUresult injected = enter(name);                                           \
    if (injected != SUCCESS)                                                   \
      return injected;                                                         \
  } while (0)

/* The allocation containing [pointer, pointer + size), or -1. */
static int findAllocation(CUdeviceptr pointer, size_t size) {
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    uintptr_t base = (uintptr_t)fake.pointer[i];
    if (base && pointer >= base && pointer + size <= base + fake.size[i])
      return i;
  }
  return -1;
}

//===--- Test control -----------------------------------------------------===//

void fake_cuda_reset(void) {
  memset(&fake, 0, sizeof(fake));
  memset(theFunctions, 0, sizeof(theFunctions));
  numFunctions = 0;
}
void fake_cuda_fail(const char *name, int code) {
  snprintf(fake.failName, sizeof(fake.failName), "%s", name);
  fake.failCode = code;
}
void fake_cuda_set_param_sizes(const size_t *sizes, int count) {
  fake.numParams = count < MAX_PARAMS ? count : MAX_PARAMS;
  memcpy(fake.paramSize, sizes, fake.numParams * sizeof(size_t));
}
void fake_cuda_set_kernel(void (*kernel)(void **, void *), void *user) {
  fake.kernel = kernel;
  fake.user = user;
}
/* Counters, by name; -1 for an unknown name. */
int fake_cuda_count(const char *what) {
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
  if (!strcmp(what, "retained_contexts"))
    return fake.retainedContexts;
  if (!strcmp(what, "launches"))
    return fake.launches;
  if (!strcmp(what, "synchronizes"))
    return fake.synchronizes;
  if (!strcmp(what, "loaded_ptx"))
    return fake.loadedPtx;
  if (!strcmp(what, "func_attribute"))
    return fake.funcAttribute;
  if (!strcmp(what, "func_attribute_value"))
    return fake.funcAttributeValue;
  if (!strcmp(what, "shared_bytes"))
    return (int)fake.sharedBytes;
  if (!strcmp(what, "calls"))
    return fake.numCalls;
  return -1;
}
const unsigned *fake_cuda_launch_dims(void) { return fake.dims; }
const unsigned char *fake_cuda_param(int i) { return fake.params[i]; }
const char *fake_cuda_image(void) { return fake.image; }
const char *fake_cuda_function(void) { return fake.function; }
/* The stream of the last launch, and the kernel of launch i. */
void *fake_cuda_stream(void) { return fake.stream; }
const char *fake_cuda_launched(int i) {
  return i >= 0 && i < fake.launches && i < MAX_CALLS ? fake.launched[i] : "";
}
const char *fake_cuda_call(int i) {
  return i < fake.numCalls ? fake.calls[i] : "";
}

//===--- Driver API -------------------------------------------------------===//

CUresult cuInit(unsigned flags) {
  ENTER("cuInit");
  return flags == 0 ? SUCCESS : INVALID_VALUE;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  ENTER("cuDeviceGet");
  if (ordinal != 0)
    return INVALID_DEVICE;
  *device = 0;
  return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  ENTER("cuDeviceGetName");
  (void)device;
  snprintf(name, length, "Fake GPU");
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  ENTER("cuDeviceGetAttribute");
  (void)device;
  const char *cc = getenv("FAKE_CUDA_CC");
  int major = 8, minor = 0;
  if (cc)
    sscanf(cc, "%d.%d", &major, &minor);
  const char *smem = getenv("FAKE_CUDA_SMEM_OPTIN");
  switch (attribute) {
  case 75:
    *value = major;
    return SUCCESS;
  case 76:
    *value = minor;
    return SUCCESS;
  case 97:
    *value = smem ? atoi(smem) : 232448;
    return SUCCESS;
  }
  return INVALID_VALUE;
}

CUresult cuDevicePrimaryCtxRetain(struct CUctx_st **context, int device) {
  ENTER("cuDevicePrimaryCtxRetain");
  (void)device;
  *context = &theContext;
  ++fake.retainedContexts;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  ENTER("cuDevicePrimaryCtxRelease_v2");
  (void)device;
  --fake.retainedContexts;
  return SUCCESS;
}

CUresult cuCtxSetCurrent(struct CUctx_st *context) {
  ENTER("cuCtxSetCurrent");
  if (context != &theContext && context != NULL)
    return INVALID_VALUE;
  currentContext = context;
  return SUCCESS;
}

CUresult cuCtxGetCurrent(struct CUctx_st **context) {
  ENTER("cuCtxGetCurrent");
  *context = currentContext;
  return SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  ENTER("cuCtxSynchronize");
  ++fake.synchronizes;
  return SUCCESS;
}

static void recordImage(const void *image) {
  snprintf(fake.image, sizeof(fake.image), "%s", (const char *)image);
}

CUresult cuModuleLoadDataEx(struct CUmod_st **module, const void *image,
                            unsigned numOptions, int *options, void **values) {
  /* On an injected failure, write the JIT error log like the driver. */
  CUresult injected = enter("cuModuleLoadDataEx");
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == 5 && injected != SUCCESS)
      snprintf((char *)values[i], 64, "ptxas fatal   : fake syntax error");
    else if (options[i] == 3 && injected == SUCCESS)
      snprintf((char *)values[i], 64, "fake JIT info");
  if (injected != SUCCESS)
    return injected;
  recordImage(image);
  fake.loadedPtx = 1;
  ++fake.liveModules;
  ++fake.modulesLoaded;
  *module = &theModule;
  return SUCCESS;
}

CUresult cuModuleLoadData(struct CUmod_st **module, const void *image) {
  ENTER("cuModuleLoadData");
  recordImage(image);
  fake.loadedPtx = 0;
  ++fake.liveModules;
  ++fake.modulesLoaded;
  *module = &theModule;
  return SUCCESS;
}

CUresult cuModuleUnload(struct CUmod_st *module) {
  ENTER("cuModuleUnload");
  if (module != &theModule)
    return INVALID_VALUE;
  --fake.liveModules;
  return SUCCESS;
}

CUresult cuModuleGetFunction(struct CUfunc_st **function,
                             struct CUmod_st *module, const char *name) {
  ENTER("cuModuleGetFunction");
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

CUresult cuFuncSetAttribute(struct CUfunc_st *function, int attribute,
                            int value) {
  ENTER("cuFuncSetAttribute");
  (void)function;
  fake.funcAttribute = attribute;
  fake.funcAttributeValue = value;
  return SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t size) {
  ENTER("cuMemAlloc_v2");
  if (size == 0)
    return INVALID_VALUE;
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    if (fake.pointer[i])
      continue;
    fake.pointer[i] = malloc(size);
    fake.size[i] = size;
    ++fake.allocs;
    *pointer = (CUdeviceptr)(uintptr_t)fake.pointer[i];
    return SUCCESS;
  }
  return OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  ENTER("cuMemFree_v2");
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    if ((CUdeviceptr)(uintptr_t)fake.pointer[i] != pointer)
      continue;
    free(fake.pointer[i]);
    fake.pointer[i] = NULL;
    ++fake.frees;
    return SUCCESS;
  }
  ++fake.badAccesses;
  return INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t size) {
  ENTER("cuMemcpyHtoD_v2");
  if (findAllocation(dst, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memcpy((void *)(uintptr_t)dst, src, size);
  return SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t size) {
  ENTER("cuMemcpyDtoH_v2");
  if (findAllocation(src, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memcpy(dst, (const void *)(uintptr_t)src, size);
  return SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t size) {
  ENTER("cuMemsetD8_v2");
  if (findAllocation(dst, size) < 0) {
    ++fake.badAccesses;
    return INVALID_VALUE;
  }
  memset((void *)(uintptr_t)dst, value, size);
  return SUCCESS;
}

static CUresult launchLocked(struct CUfunc_st *function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sharedBytes, void *stream, void **params,
                        void **extra) {
  ENTER("cuLaunchKernel");
  if (function < theFunctions || function >= theFunctions + numFunctions ||
      extra != NULL)
    return INVALID_VALUE;
  /* A kernel runs in the context it was loaded in. */
  if (currentContext != &theContext)
    return INVALID_CONTEXT;
  fake.stream = stream;
  snprintf(fake.function, sizeof(fake.function), "%s", function->name);
  if (fake.launches < MAX_CALLS)
    snprintf(fake.launched[fake.launches], sizeof(fake.launched[0]), "%s",
             function->name);
  unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  memcpy(fake.dims, dims, sizeof(dims));
  fake.sharedBytes = sharedBytes;
  if (fake.numParams > 0 && params == NULL)
    return INVALID_VALUE;
  for (int i = 0; i < fake.numParams; ++i)
    memcpy(fake.params[i], params[i], fake.paramSize[i]);
  ++fake.launches;
  if (fake.kernel)
    fake.kernel(params, fake.user);
  return SUCCESS;
}

CUresult cuLaunchKernel(struct CUfunc_st *function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sharedBytes, void *stream, void **params,
                        void **extra) {
  pthread_mutex_lock(&launchLock);
  CUresult result = launchLocked(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, params, extra);
  pthread_mutex_unlock(&launchLock);
  return result;
}

CUresult cuEventCreate(struct CUevent_st **event, unsigned flags) {
  ENTER("cuEventCreate");
  if (flags != 0 || fake.liveEvents >= 8)
    return INVALID_VALUE;
  *event = &theEvents[fake.liveEvents++];
  return SUCCESS;
}

CUresult cuEventRecord(struct CUevent_st *event, void *stream) {
  ENTER("cuEventRecord");
  (void)event;
  return stream == NULL ? SUCCESS : INVALID_VALUE;
}

CUresult cuEventSynchronize(struct CUevent_st *event) {
  ENTER("cuEventSynchronize");
  (void)event;
  return SUCCESS;
}

/* Only the pre-CUDA-12.8 name, so the launcher's fallback is exercised. */
CUresult cuEventElapsedTime(float *millis, struct CUevent_st *start,
                            struct CUevent_st *stop) {
  ENTER("cuEventElapsedTime");
  (void)start;
  (void)stop;
  *millis = 0.25f * (float)fake.launches;
  return SUCCESS;
}

CUresult cuEventDestroy_v2(struct CUevent_st *event) {
  ENTER("cuEventDestroy_v2");
  (void)event;
  --fake.liveEvents;
  return SUCCESS;
}

static const char *errorName(CUresult code) {
  switch (code) {
  case SUCCESS:
    return "CUDA_SUCCESS";
  case INVALID_VALUE:
    return "CUDA_ERROR_INVALID_VALUE";
  case OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case INVALID_DEVICE:
    return "CUDA_ERROR_INVALID_DEVICE";
  case INVALID_PTX:
    return "CUDA_ERROR_INVALID_PTX";
  case INVALID_CONTEXT:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case NOT_FOUND:
    return "CUDA_ERROR_NOT_FOUND";
  }
  return NULL;
}

static const char *errorString(CUresult code) {
  switch (code) {
  case SUCCESS:
    return "no error";
  case INVALID_VALUE:
    return "invalid argument";
  case OUT_OF_MEMORY:
    return "out of memory";
  case NO_DEVICE:
    return "no CUDA-capable device is detected";
  case INVALID_DEVICE:
    return "invalid device ordinal";
  case INVALID_PTX:
    return "a PTX JIT compilation failed";
  case NOT_FOUND:
    return "named symbol not found";
  }
  return NULL;
}

/* Like the driver: CUDA_ERROR_INVALID_VALUE and a null string for a code it
   does not know. */
CUresult cuGetErrorName(CUresult code, const char **name) {
  *name = errorName(code);
  return *name ? SUCCESS : INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult code, const char **text) {
  *text = errorString(code);
  return *text ? SUCCESS : INVALID_VALUE;
}
