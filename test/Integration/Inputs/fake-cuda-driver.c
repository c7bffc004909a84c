/* A fake CUDA driver (libcuda.so.1) for testing libStencilCudaRuntime on
 * machines without a GPU. "Device memory" is host memory, kernels are not
 * run (launches are only counted and checked), modules must look like a
 * cubin (ELF) or PTX text. Every entry point counts its calls:
 * fakeCudaCalls("cuLaunchKernel") answers how many there were.
 *
 *   FAKE_CUDA_FAIL="cuModuleLoadDataEx=209,cuInit=100"  make these calls fail
 *                                                        with that CUresult
 *   FAKE_CUDA_DEVICES=N                                  devices (default 1)
 *
 * cuGetErrorName knows no names (like the toolkit's stub), so the runtime's
 * own table names the errors.
 *
 * Build: cc -shared -fPIC -I$CUDA/include fake-cuda-driver.c
 *           -Wl,-soname,libcuda.so.1 -o DIR/libcuda.so.1
 */
#include <cuda.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNTERS 128
static struct {
  const char *name;
  long count;
} counters[MAX_COUNTERS];

static void count(const char *name) {
  for (int i = 0; i < MAX_COUNTERS; ++i) {
    if (!counters[i].name)
      counters[i].name = name;
    if (strcmp(counters[i].name, name) == 0) {
      ++counters[i].count;
      return;
    }
  }
}

long fakeCudaCalls(const char *name) {
  for (int i = 0; i < MAX_COUNTERS && counters[i].name; ++i)
    if (strcmp(counters[i].name, name) == 0)
      return counters[i].count;
  return 0;
}

/* The failure FAKE_CUDA_FAIL asks for, for `name`. */
static CUresult injected(const char *name) {
  const char *spec = getenv("FAKE_CUDA_FAIL");
  size_t len = strlen(name);
  while (spec && *spec) {
    if (strncmp(spec, name, len) == 0 && spec[len] == '=')
      return (CUresult)atoi(spec + len + 1);
    spec = strchr(spec, ',');
    if (spec)
      ++spec;
  }
  return CUDA_SUCCESS;
}

#define ENTER(name)                                                            \
  do {                                                                         \
    count(name);                                                               \
    CUresult fail_ = injected(name);                                           \
    if (fail_ != CUDA_SUCCESS)                                                 \
      return fail_;                                                            \
  } while (0)

static int initialized;
static int currentCtxDepth; /* 0: none current */
static int primaryCtx;      /* its address is the handle */

/* Allocations, to answer cuPointerGetAttribute and check frees. */
#define MAX_ALLOCS 4096
static struct {
  char *ptr;
  size_t bytes;
} allocs[MAX_ALLOCS];

static int findAlloc(const void *p, int exact) {
  for (int i = 0; i < MAX_ALLOCS; ++i) {
    if (!allocs[i].ptr)
      continue;
    if (exact ? allocs[i].ptr == p
              : ((const char *)p >= allocs[i].ptr &&
                 (const char *)p < allocs[i].ptr + allocs[i].bytes))
      return i;
  }
  return -1;
}

long fakeCudaLiveAllocations(void) {
  long n = 0;
  for (int i = 0; i < MAX_ALLOCS; ++i)
    n += allocs[i].ptr != 0;
  return n;
}

static CUresult fakeAlloc(CUdeviceptr *dptr, size_t bytes) {
  for (int i = 0; i < MAX_ALLOCS; ++i)
    if (!allocs[i].ptr) {
      allocs[i].ptr = calloc(1, bytes);
      allocs[i].bytes = bytes;
      *dptr = (CUdeviceptr)allocs[i].ptr;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_OUT_OF_MEMORY;
}

#define NEED_INIT()                                                            \
  do {                                                                         \
    if (!initialized)                                                          \
      return CUDA_ERROR_NOT_INITIALIZED;                                       \
  } while (0)
#define NEED_CTX()                                                             \
  do {                                                                         \
    NEED_INIT();                                                               \
    if (!currentCtxDepth)                                                      \
      return CUDA_ERROR_INVALID_CONTEXT;                                       \
  } while (0)

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  count("cuGetErrorName");
  return CUDA_ERROR_NOT_SUPPORTED; /* like the stub: the runtime names it */
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
  count("cuGetErrorString");
  *pStr = "fake driver error";
  return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags) {
  ENTER("cuInit");
  initialized = 1;
  return CUDA_SUCCESS;
}

static int deviceCount(void) {
  const char *n = getenv("FAKE_CUDA_DEVICES");
  return n ? atoi(n) : 1;
}

CUresult cuDeviceGetCount(int *count_) {
  ENTER("cuDeviceGetCount");
  NEED_INIT();
  *count_ = deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  ENTER("cuDeviceGet");
  NEED_INIT();
  if (ordinal < 0 || ordinal >= deviceCount())
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                              CUdevice dev) {
  ENTER("cuDeviceGetAttribute");
  NEED_INIT();
  if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *pi = 8;
  else if (attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *pi = 6;
  else
    *pi = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  ENTER("cuDeviceGetName");
  NEED_INIT();
  snprintf(name, (size_t)len, "Fake GPU %d", (int)dev);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  ENTER("cuDevicePrimaryCtxRetain");
  NEED_INIT();
  *pctx = (CUcontext)&primaryCtx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  ENTER("cuCtxGetCurrent");
  NEED_INIT();
  *pctx = currentCtxDepth ? (CUcontext)&primaryCtx : NULL;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  ENTER("cuCtxSetCurrent");
  NEED_INIT();
  currentCtxDepth = ctx ? 1 : 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
  ENTER("cuCtxPushCurrent");
  NEED_INIT();
  ++currentCtxDepth;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *pctx) {
  ENTER("cuCtxPopCurrent");
  NEED_CTX();
  --currentCtxDepth;
  if (pctx)
    *pctx = (CUcontext)&primaryCtx;
  return CUDA_SUCCESS;
}

/* Modules and functions: a module is a heap cell, a function remembers its
 * name. */
struct FakeFunction {
  char name[256];
};

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int numOptions, CUjit_option *options,
                            void **optionValues) {
  ENTER("cuModuleLoadDataEx");
  NEED_CTX();
  const char *text = (const char *)image;
  /* A cubin (ELF), a fatbin (magic 0xba55ed50) or PTX text. */
  static const unsigned char fatbin[4] = {0x50, 0xed, 0x55, 0xba};
  if (memcmp(text, "\x7f"
                   "ELF",
             4) != 0 &&
      memcmp(text, fatbin, 4) != 0 && strncmp(text, "//", 2) != 0 &&
      strncmp(text, ".version", 8) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  *module = (CUmodule)malloc(16);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  ENTER("cuModuleUnload");
  NEED_INIT();
  free(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  ENTER("cuModuleGetFunction");
  NEED_CTX();
  struct FakeFunction *f = calloc(1, sizeof(*f));
  snprintf(f->name, sizeof(f->name), "%s", name);
  *function = (CUfunction)f;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction func, CUfunction_attribute attrib,
                            int value) {
  ENTER("cuFuncSetAttribute");
  NEED_CTX();
  return CUDA_SUCCESS;
}

/* The last launch, for tests. */
static unsigned lastLaunch[6];
static long lastLaunchParams;
unsigned fakeCudaLastLaunch(int i) { return lastLaunch[i]; }

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                        unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                        CUstream hStream, void **kernelParams, void **extra) {
  ENTER("cuLaunchKernel");
  NEED_CTX();
  if (!f || !gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY ||
      !blockDimZ || (uint64_t)blockDimX * blockDimY * blockDimZ > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (!kernelParams && !extra)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned dims[6] = {gridDimX, gridDimY, gridDimZ,
                      blockDimX, blockDimY, blockDimZ};
  memcpy(lastLaunch, dims, sizeof(dims));
  (void)lastLaunchParams;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                          void **kernelParams, void **extra) {
  ENTER("cuLaunchKernelEx");
  NEED_CTX();
  return CUDA_SUCCESS;
}

/* Streams and events are heap cells. */
CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  ENTER("cuStreamCreate");
  NEED_CTX();
  *stream = (CUstream)malloc(16);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream) {
  ENTER("cuStreamDestroy");
  NEED_CTX();
  free(stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  ENTER("cuStreamSynchronize");
  NEED_CTX();
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
  ENTER("cuStreamWaitEvent");
  NEED_CTX();
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  ENTER("cuEventCreate");
  NEED_CTX();
  *event = (CUevent)malloc(16);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  ENTER("cuEventDestroy");
  NEED_CTX();
  free(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  ENTER("cuEventRecord");
  NEED_CTX();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  ENTER("cuEventSynchronize");
  NEED_CTX();
  return CUDA_SUCCESS;
}

/* Memory. */
CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  ENTER("cuMemAlloc");
  NEED_CTX();
  if (!bytesize)
    return CUDA_ERROR_INVALID_VALUE;
  return fakeAlloc(dptr, bytesize);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
                           unsigned int flags) {
  ENTER("cuMemAllocManaged");
  NEED_CTX();
  return fakeAlloc(dptr, bytesize);
}

CUresult cuMemFree(CUdeviceptr dptr) {
  ENTER("cuMemFree");
  NEED_CTX();
  int i = findAlloc((void *)dptr, 1);
  if (i < 0)
    return CUDA_ERROR_INVALID_VALUE;
  free(allocs[i].ptr);
  allocs[i].ptr = NULL;
  return CUDA_SUCCESS;
}

/* Device pointers must lie in an allocation. */
static int deviceRange(CUdeviceptr p, size_t n) {
  int i = findAlloc((void *)p, 0);
  return i >= 0 && (char *)p + n <= allocs[i].ptr + allocs[i].bytes;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                       CUstream s) {
  ENTER("cuMemcpyAsync");
  NEED_CTX();
  memcpy((void *)dst, (void *)src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n,
                           CUstream s) {
  ENTER("cuMemcpyHtoDAsync");
  NEED_CTX();
  if (!deviceRange(dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  ENTER("cuMemcpyDtoHAsync");
  NEED_CTX();
  if (!deviceRange(src, n))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy(dst, (void *)src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                           CUstream s) {
  ENTER("cuMemcpyDtoDAsync");
  NEED_CTX();
  if (!deviceRange(src, n) || !deviceRange(dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)dst, (void *)src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n,
                         CUstream s) {
  ENTER("cuMemsetD8Async");
  NEED_CTX();
  if (!deviceRange(dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  memset((void *)dst, v, n);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n,
                          CUstream s) {
  ENTER("cuMemsetD16Async");
  NEED_CTX();
  for (size_t i = 0; i < n; ++i)
    ((unsigned short *)dst)[i] = v;
  return CUDA_SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n,
                          CUstream s) {
  ENTER("cuMemsetD32Async");
  NEED_CTX();
  for (size_t i = 0; i < n; ++i)
    ((unsigned int *)dst)[i] = v;
  return CUDA_SUCCESS;
}

CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int flags) {
  ENTER("cuMemHostRegister");
  NEED_CTX();
  return CUDA_SUCCESS;
}

CUresult cuMemHostUnregister(void *p) {
  ENTER("cuMemHostUnregister");
  NEED_CTX();
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr ptr) {
  ENTER("cuPointerGetAttribute");
  NEED_INIT();
  if (attribute != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL ||
      findAlloc((void *)ptr, 0) < 0)
    return CUDA_ERROR_INVALID_VALUE;
  *(int *)data = 0;
  return CUDA_SUCCESS;
}
