/*===- CudaRuntime.h - the CUDA runtime of compiled stencil programs -*- C -*-===
 *
 * libStencilCudaRuntime.so runs the host code that `stencil-opt
 * --convert-to-gpu` produces: it defines the `mgpu*` functions upstream
 * MLIR's GPU lowering calls (module load, kernel launch, streams, events,
 * device memory), on the CUDA driver API. A library compiled for CUDA links
 * it; this header is what C and C++ callers of such a library use around
 * the call: device memory, copies, and the error state.
 *
 * Calling convention of a compiled function: `_mlir_ciface_<name>` takes a
 * pointer to a memref descriptor per field,
 *
 *     struct { T *allocated, *aligned; int64_t offset, sizes[R], strides[R]; }
 *
 * whose pointers are DEVICE pointers (stencilCudaMalloc, or memory of
 * another CUDA library in the same primary context). The call returns when
 * its kernels have finished.
 *
 * Context: the runtime initializes the driver on first use (cuInit) and
 * works in the primary context of device 0, or of $STENCIL_CUDA_DEVICE (the
 * context the CUDA runtime API, CuPy, PyTorch... use too). It makes that
 * context current on threads that have none, and pushes/pops it around its
 * calls on threads where another context is current.
 *
 * Errors: no function aborts. Every failing CUDA call is printed to stderr
 * (unless $STENCIL_CUDA_QUIET is set, or stencilCudaSetVerbose(0)) as
 *
 *     stencil-cuda: cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU
 *       (no kernel image is available for execution on the device)...
 *
 * and the first error since the last stencilCudaClearLastError() is kept
 * (sticky) for the caller to query. Once cuInit has failed, later calls do
 * nothing and add an error saying so (printed only when no error is
 * pending). Check stencilCudaGetLastError() after loading a compiled
 * library (its kernels are loaded by a constructor) and after each call.
 *
 * Functions returning int return 0 (CUDA_SUCCESS) or the CUresult of the
 * failure, which is then also the sticky error if none was pending.
 *===----------------------------------------------------------------------===*/

#ifndef STENCIL_RUNTIME_CUDARUNTIME_H
#define STENCIL_RUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define STENCIL_CUDA_EXPORT __declspec(dllexport)
#else
#define STENCIL_CUDA_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*--- Initialization ---------------------------------------------------------*/

/* Initializes the driver and the primary context now (otherwise the first
 * call that needs them does). Returns 0 or the CUresult of the failing step
 * (cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain); the failure is
 * remembered: later calls return it again without retrying. */
STENCIL_CUDA_EXPORT int stencilCudaInit(void);

/* The device ordinal in use: -1 when not (successfully) initialized. */
STENCIL_CUDA_EXPORT int stencilCudaGetDevice(void);

/* Compute capability and name of the device in use (initializes). `name`
 * may be NULL. Returns 0 or a CUresult. */
STENCIL_CUDA_EXPORT int stencilCudaGetDeviceInfo(int *major, int *minor,
                                                 char *name, size_t nameSize);

/*--- Errors -----------------------------------------------------------------*/

/* CUresult of the first error since the last clear; 0 when none. */
STENCIL_CUDA_EXPORT int stencilCudaGetLastError(void);

/* Its message ("" when none), followed by "(and N more errors)" when more
 * happened. The string stays valid until this thread calls this function
 * again. */
STENCIL_CUDA_EXPORT const char *stencilCudaGetLastErrorMessage(void);

/* Number of errors since the last clear. */
STENCIL_CUDA_EXPORT int stencilCudaGetErrorCount(void);

/* Forgets the pending error(s). A failed initialization stays failed. */
STENCIL_CUDA_EXPORT void stencilCudaClearLastError(void);

/* 0: do not print errors to stderr; 1: print them (the default unless
 * $STENCIL_CUDA_QUIET is set to something other than 0). */
STENCIL_CUDA_EXPORT void stencilCudaSetVerbose(int verbose);

/* The name of a CUresult ("CUDA_ERROR_NO_DEVICE"), also when the driver
 * cannot say (the toolkit's stub library): never NULL. */
STENCIL_CUDA_EXPORT const char *stencilCudaErrorName(int result);

/*--- Device memory and copies -----------------------------------------------*/

/* `bytes` of device memory (cuMemAlloc); NULL when bytes is 0 or on error. */
STENCIL_CUDA_EXPORT void *stencilCudaMalloc(size_t bytes);

/* Frees memory of stencilCudaMalloc after the runtime's pending work. */
STENCIL_CUDA_EXPORT int stencilCudaFree(void *devicePtr);

/* Synchronous copies, ordered after the runtime's pending work. Host memory
 * may be pageable. */
STENCIL_CUDA_EXPORT int stencilCudaMemcpyHtoD(void *dst, const void *src,
                                              size_t bytes);
STENCIL_CUDA_EXPORT int stencilCudaMemcpyDtoH(void *dst, const void *src,
                                              size_t bytes);
STENCIL_CUDA_EXPORT int stencilCudaMemcpyDtoD(void *dst, const void *src,
                                              size_t bytes);

/* Sets `bytes` bytes of device memory to `value` (synchronous). */
STENCIL_CUDA_EXPORT int stencilCudaMemset(void *dst, unsigned char value,
                                          size_t bytes);

/* The device ordinal that owns `ptr` (device or managed memory of any
 * context), -1 when it is not CUDA memory or the runtime cannot initialize.
 * Records no error. */
STENCIL_CUDA_EXPORT int stencilCudaPointerDevice(const void *ptr);

/*--- Streams ----------------------------------------------------------------*/

/* The runtime's stream (a CUstream): every kernel, copy and memset of the
 * compiled code runs on it. It is created on first use with
 * CU_STREAM_DEFAULT flags, so it is ordered with the legacy default stream
 * (CUDA runtime API stream 0, CuPy's default). NULL on error. */
STENCIL_CUDA_EXPORT void *stencilCudaGetStream(void);

/* Waits (on the host) until the runtime's stream is idle. */
STENCIL_CUDA_EXPORT int stencilCudaSynchronize(void);

/* Waits (on the host) until the work queued on another stream is done, with
 * the values of __cuda_array_interface__'s `stream`: 1 is the legacy default
 * stream, 2 the per-thread default stream, anything else a CUstream. */
STENCIL_CUDA_EXPORT int stencilCudaSynchronizeStream(uintptr_t stream);

/* Frees the device buffers the runtime keeps for reuse (gpu.dealloc'ed
 * temporaries of compiled code, at most $STENCIL_CUDA_CACHE_BYTES, default
 * 1 GiB; 0 disables the cache). */
STENCIL_CUDA_EXPORT int stencilCudaReleaseCache(void);

/*--- Statistics (tests, profiling) ------------------------------------------*/

typedef struct StencilCudaStats {
  int64_t moduleLoads;   /* mgpuModuleLoad / mgpuModuleLoadJIT calls */
  int64_t launches;      /* kernels launched */
  int64_t streamCreates; /* mgpuStreamCreate calls */
  int64_t streamsMade;   /* streams the driver actually created */
  int64_t deviceAllocs;  /* cuMemAlloc calls for compiled code */
  int64_t cacheHits;     /* mgpuMemAlloc served from the buffer cache */
  int64_t cachedBytes;   /* bytes held by the buffer cache now */
} StencilCudaStats;

STENCIL_CUDA_EXPORT void stencilCudaGetStats(StencilCudaStats *stats);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STENCIL_RUNTIME_CUDARUNTIME_H */
