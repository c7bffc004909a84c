//===- CudaRuntime.cpp - the CUDA runtime of compiled stencil programs ----===//
//
// The `mgpu*` functions that the host code of `--convert-to-gpu` calls
// (emitted by upstream's gpu-to-llvm and by the translation of gpu.binary /
// gpu.launch_func to LLVM IR), and the helpers of Stencil/Runtime/
// CudaRuntime.h, on the CUDA driver API.
//
// Design:
//  - lazy initialization: cuInit, the device (0, $STENCIL_CUDA_DEVICE or
//    mgpuSetDefaultDevice before first use), its primary context;
//  - one stream for everything: mgpuStreamCreate returns it, and
//    mgpuStreamDestroy leaves it alone. A single in-order stream is a valid
//    schedule of any set of MLIR async tokens, and it saves a stream
//    creation and destruction per launch;
//  - device buffers freed by compiled code are kept (up to a limit) and
//    reused for allocations of the same size: all of that code's work is on
//    the one stream, so a reused buffer is only touched after the work that
//    used it before;
//  - errors never abort: they are printed and recorded (first one sticky).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Runtime/CudaRuntime.h"

#include <cuda.h>

#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#define MGPU_EXPORT extern "C" STENCIL_CUDA_EXPORT

namespace {

//===----------------------------------------------------------------------===//
// Error names and the sticky error
//===----------------------------------------------------------------------===//

// CUresult names, for when cuGetErrorName cannot answer (the toolkit's stub
// libcuda answers CUDA_ERROR_STUB_LIBRARY to every call, itself included).
struct NamedResult {
  int code;
  const char *name;
};
const NamedResult kResultNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {5, "CUDA_ERROR_PROFILER_DISABLED"},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"},
    {205, "CUDA_ERROR_MAP_FAILED"},
    {206, "CUDA_ERROR_UNMAP_FAILED"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED"},
    {208, "CUDA_ERROR_ALREADY_MAPPED"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED"},
    {211, "CUDA_ERROR_NOT_MAPPED"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {402, "CUDA_ERROR_LOSSY_QUERY"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE"},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY"},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED"},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
    {907, "CUDA_ERROR_CAPTURED_EVENT"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"},
    {916, "CUDA_ERROR_KEY_ROTATION"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char *resultName(CUresult result) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  for (const NamedResult &entry : kResultNames)
    if (entry.code == static_cast<int>(result))
      return entry.name;
  return "CUDA_ERROR_(unknown code)";
}

// A description: the driver's, else ours for the results that mean the
// driver itself is missing or unusable.
std::string resultDescription(CUresult result) {
  const char *text = nullptr;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  switch (static_cast<int>(result)) {
  case 34:
    return "libcuda.so.1 is the CUDA toolkit's stub library, not a driver: "
           "no CUDA driver on this machine";
  case 35:
    return "the installed CUDA driver is older than the CUDA runtime";
  case 100:
    return "no CUDA-capable device is detected";
  default:
    return "no description: the driver could not give one";
  }
}

struct ErrorState {
  std::mutex mutex;
  CUresult code = CUDA_SUCCESS; // the first error since the last clear
  std::string message;
  int count = 0;
  std::atomic<int> verbose{-1}; // -1: not decided yet ($STENCIL_CUDA_QUIET)
};

// Never destroyed: compiled libraries call into the runtime from their
// destructors (mgpuModuleUnload), possibly after ours ran.
ErrorState &errorState() {
  static ErrorState *state = new ErrorState;
  return *state;
}

bool verbose() {
  ErrorState &s = errorState();
  int v = s.verbose.load(std::memory_order_relaxed);
  if (v < 0) {
    const char *quiet = std::getenv("STENCIL_CUDA_QUIET");
    v = (quiet && *quiet && std::strcmp(quiet, "0") != 0) ? 0 : 1;
    s.verbose.store(v, std::memory_order_relaxed);
  }
  return v != 0;
}

// Records an error. `alwaysPrint`: print it even when another is pending
// (real CUDA failures); otherwise only when it becomes the sticky one
// (consequences of an earlier failure, which would flood stderr).
void recordError(CUresult code, const std::string &message,
                 bool alwaysPrint = true) {
  ErrorState &s = errorState();
  bool first;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    first = s.count == 0;
    if (first) {
      s.code = code;
      s.message = message;
    }
    ++s.count;
  }
  if ((first || alwaysPrint) && verbose())
    std::fprintf(stderr, "%s\n", message.c_str());
}

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof(buffer), fmt, args);
  va_end(args);
  return buffer;
}

// "stencil-cuda: CALL failed: NAME (description)[: detail]".
std::string describe(const char *call, CUresult result,
                     const std::string &detail = "") {
  std::string message = format("stencil-cuda: %s failed: %s (%s)", call,
                               resultName(result),
                               resultDescription(result).c_str());
  if (!detail.empty())
    message += ": " + detail;
  return message;
}

// Reports a failed CUDA call.
bool check(const char *call, CUresult result, const std::string &detail = "") {
  if (result == CUDA_SUCCESS)
    return true;
  recordError(result, describe(call, result, detail));
  return false;
}

// `CHECK(cuMemAlloc, &ptr, n)` calls cuMemAlloc (cuda.h may rename it to
// cuMemAlloc_v2) and reports a failure under the documented name.
#define CHECK(fn, ...) check(#fn, fn(__VA_ARGS__))
#define CHECK_DETAIL(detail, fn, ...) check(#fn, fn(__VA_ARGS__), detail)

//===----------------------------------------------------------------------===//
// Device, context and stream
//===----------------------------------------------------------------------===//

struct DeviceState {
  std::mutex mutex;
  std::atomic<bool> ready{false};
  bool attempted = false;
  CUresult initResult = CUDA_SUCCESS;
  std::string initFailure; // the message of the failed step
  int requested = -1;      // mgpuSetDefaultDevice before initialization
  int ordinal = -1;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

DeviceState &deviceState() {
  static DeviceState *state = new DeviceState;
  return *state;
}

std::atomic<int64_t> statModuleLoads{0}, statLaunches{0}, statStreamCreates{0},
    statStreamsMade{0}, statDeviceAllocs{0}, statCacheHits{0};

// Which device: mgpuSetDefaultDevice's, else $STENCIL_CUDA_DEVICE, else 0.
bool chooseDevice(DeviceState &d, int &ordinal) {
  if (d.requested >= 0) {
    ordinal = d.requested;
    return true;
  }
  ordinal = 0;
  const char *env = std::getenv("STENCIL_CUDA_DEVICE");
  if (!env || !*env)
    return true;
  char *end = nullptr;
  long value = std::strtol(env, &end, 10);
  if (*end || value < 0 || value > INT_MAX) {
    d.initResult = CUDA_ERROR_INVALID_DEVICE;
    d.initFailure = format("stencil-cuda: STENCIL_CUDA_DEVICE='%s' is not a "
                           "device ordinal (0, 1, ...)",
                           env);
    recordError(d.initResult, d.initFailure);
    return false;
  }
  ordinal = static_cast<int>(value);
  return true;
}

// The first failure of initialization, as an error of `caller`, which does
// nothing.
void reportNotInitialized(const DeviceState &d, const char *caller) {
  static const char prefix[] = "stencil-cuda: ";
  const char *why = d.initFailure.c_str();
  if (std::strncmp(why, prefix, sizeof(prefix) - 1) == 0)
    why += sizeof(prefix) - 1;
  recordError(d.initResult,
              format("stencil-cuda: %s skipped: CUDA is not usable (%s)",
                     caller, why),
              /*alwaysPrint=*/false);
}

// Initializes once; false (and an error for `caller`) if that failed.
bool ensureInitialized(const char *caller) {
  DeviceState &d = deviceState();
  if (d.ready.load(std::memory_order_acquire))
    return true;
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.ready.load(std::memory_order_relaxed))
    return true;
  if (d.attempted) {
    if (caller)
      reportNotInitialized(d, caller);
    return false;
  }
  d.attempted = true;
  // Records the failure of a step; later callers are told about it.
  auto step = [&](const char *call, CUresult result,
                  const std::string &detail = "") {
    if (result == CUDA_SUCCESS)
      return true;
    d.initResult = result;
    d.initFailure = describe(call, result, detail);
    recordError(result, d.initFailure);
    return false;
  };
  if (!step("cuInit", cuInit(0)))
    return false;
  int ordinal = 0;
  if (!chooseDevice(d, ordinal))
    return false;
  int count = 0;
  if (!step("cuDeviceGetCount", cuDeviceGetCount(&count)))
    return false;
  if (!step("cuDeviceGet", cuDeviceGet(&d.device, ordinal),
            format("device %d of %d (STENCIL_CUDA_DEVICE selects one)",
                   ordinal, count)))
    return false;
  if (!step("cuDevicePrimaryCtxRetain",
            cuDevicePrimaryCtxRetain(&d.context, d.device),
            format("device %d", ordinal)))
    return false;
  d.ordinal = ordinal;
  d.ready.store(true, std::memory_order_release);
  return true;
}

// Makes the runtime's context current for the lifetime of the guard: set on
// a thread without a current context (and left there, as the CUDA runtime
// API does), pushed and popped on a thread where another one is current.
class ContextGuard {
public:
  explicit ContextGuard(const char *caller) {
    if (!ensureInitialized(caller))
      return;
    CUcontext wanted = deviceState().context;
    CUcontext current = nullptr;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == wanted) {
      ok = true;
      return;
    }
    if (!current) {
      ok = CHECK(cuCtxSetCurrent, wanted);
      return;
    }
    ok = pushed = CHECK(cuCtxPushCurrent, wanted);
  }
  ~ContextGuard() {
    if (pushed) {
      CUcontext popped;
      CHECK(cuCtxPopCurrent, &popped);
    }
  }
  ContextGuard(const ContextGuard &) = delete;
  ContextGuard &operator=(const ContextGuard &) = delete;
  explicit operator bool() const { return ok; }

private:
  bool ok = false;
  bool pushed = false;
};

// The runtime's stream, created on first use (requires a ContextGuard).
CUstream runtimeStream() {
  DeviceState &d = deviceState();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.stream) {
    // CU_STREAM_DEFAULT: ordered with the legacy default stream, which the
    // CUDA runtime API and the Python array libraries use by default.
    if (!CHECK(cuStreamCreate, &d.stream, CU_STREAM_DEFAULT))
      return nullptr;
    ++statStreamsMade;
  }
  return d.stream;
}

bool isRuntimeStream(CUstream stream) {
  DeviceState &d = deviceState();
  std::lock_guard<std::mutex> lock(d.mutex);
  return stream && stream == d.stream;
}

// Synchronizes the runtime's stream if it exists (before freeing memory its
// work may still use, and before synchronous copies).
bool syncRuntimeStream(const char *why) {
  CUstream stream;
  {
    DeviceState &d = deviceState();
    std::lock_guard<std::mutex> lock(d.mutex);
    stream = d.stream;
  }
  if (!stream)
    return true;
  return check("cuStreamSynchronize", cuStreamSynchronize(stream), why);
}

//===----------------------------------------------------------------------===//
// Kernel names (for messages)
//===----------------------------------------------------------------------===//

std::mutex functionNamesMutex;
std::unordered_map<CUfunction, std::string> &functionNames() {
  static auto *names = new std::unordered_map<CUfunction, std::string>;
  return *names;
}

std::string functionName(CUfunction function) {
  std::lock_guard<std::mutex> lock(functionNamesMutex);
  auto it = functionNames().find(function);
  return it == functionNames().end() ? std::string("?") : it->second;
}

//===----------------------------------------------------------------------===//
// Device memory of compiled code, with a cache of freed buffers
//===----------------------------------------------------------------------===//

struct Allocations {
  std::mutex mutex;
  std::unordered_map<void *, size_t> live; // cuMemAlloc'ed by mgpuMemAlloc
  std::multimap<size_t, void *> cached;    // freed, kept for reuse
  size_t cachedBytes = 0;
  int64_t limit = -1; // -1: not read yet
};

Allocations &allocations() {
  static Allocations *state = new Allocations;
  return *state;
}

size_t cacheLimit(Allocations &a) {
  if (a.limit < 0) {
    a.limit = int64_t(1) << 30;
    if (const char *env = std::getenv("STENCIL_CUDA_CACHE_BYTES")) {
      char *end = nullptr;
      long long value = std::strtoll(env, &end, 10);
      if (*env && !*end && value >= 0)
        a.limit = value;
    }
  }
  return static_cast<size_t>(a.limit);
}

// Frees every cached buffer (after the stream is idle). Requires a context.
bool releaseCache() {
  Allocations &a = allocations();
  std::multimap<size_t, void *> buffers;
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    buffers.swap(a.cached);
    a.cachedBytes = 0;
  }
  if (buffers.empty())
    return true;
  bool ok = syncRuntimeStream("before freeing cached buffers");
  for (auto &entry : buffers)
    ok &= CHECK(cuMemFree, reinterpret_cast<CUdeviceptr>(entry.second));
  return ok;
}

// Round sizes up so that near sizes share cached buffers.
size_t roundedSize(uint64_t bytes) { return (bytes + 511) & ~size_t(511); }

} // namespace

//===----------------------------------------------------------------------===//
// The mgpu* entry points of the lowered host code (LLVM 22)
//===----------------------------------------------------------------------===//

namespace {
// The `.target` of a PTX module (a cubin or fatbin is not text): "" if none.
std::string ptxTarget(const void *data, size_t size) {
  const char *text = static_cast<const char *>(data);
  // PTX from the NVPTX back end starts with a comment or a directive.
  if (size < 2 || !(text[0] == '/' || text[0] == '.'))
    return "";
  size_t length = strnlen(text, size);
  static const char key[] = ".target ";
  const size_t keyLength = sizeof(key) - 1;
  for (size_t i = 0; i + keyLength < length; ++i) {
    if (std::memcmp(text + i, key, keyLength) != 0)
      continue;
    size_t begin = i + keyLength, end = begin;
    while (end < length && !std::strchr(" ,\n\r\t", text[end]))
      ++end;
    return std::string(text + begin, end - begin);
  }
  return "";
}

CUmodule loadModule(const char *caller, const void *data, size_t size,
                    int optLevel) {
  ContextGuard guard(caller);
  if (!guard)
    return nullptr;
  ++statModuleLoads;
  char errorLog[8192] = {0};
  CUjit_option options[4] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_OPTIMIZATION_LEVEL};
  void *values[4] = {errorLog, reinterpret_cast<void *>(sizeof(errorLog)),
                     reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  unsigned numOptions = optLevel >= 0 ? 3 : 2;
  CUmodule module = nullptr;
  CUresult result =
      cuModuleLoadDataEx(&module, data, numOptions, options, values);
  if (result == CUDA_SUCCESS)
    return module;
  std::string detail;
  int major = 0, minor = 0;
  DeviceState &d = deviceState();
  if (cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           d.device) == CUDA_SUCCESS &&
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                           d.device) == CUDA_SUCCESS) {
    detail = format("the device is sm_%d%d", major, minor);
    std::string target = ptxTarget(data, size);
    if (!target.empty())
      detail += ", the PTX targets " + target;
    if (result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
        result == CUDA_ERROR_INVALID_PTX ||
        result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      detail += format(" (compile for this GPU: --convert-to-gpu=chip=sm_%d%d, "
                       "gpu_options=\"chip=sm_%d%d\" in Python)",
                       major, minor, major, minor);
  }
  if (errorLog[0])
    detail += std::string("; JIT log: ") + errorLog;
  check("cuModuleLoadData", result, detail);
  return nullptr;
}

// Grid and block sizes come as intptr_t (MLIR's index): they must fit the
// driver's unsigned int.
bool launchSizes(const char *caller, CUfunction function, const intptr_t (&dims)[6],
                 unsigned (&out)[6], bool &empty) {
  empty = false;
  for (int i = 0; i < 6; ++i) {
    if (dims[i] < 0 || static_cast<uint64_t>(dims[i]) > UINT_MAX) {
      recordError(CUDA_ERROR_INVALID_VALUE,
                  format("stencil-cuda: %s of kernel %s: invalid size "
                         "grid %ldx%ldx%ld block %ldx%ldx%ld",
                         caller, functionName(function).c_str(),
                         long(dims[0]), long(dims[1]), long(dims[2]),
                         long(dims[3]), long(dims[4]), long(dims[5])));
      return false;
    }
    out[i] = static_cast<unsigned>(dims[i]);
    empty |= out[i] == 0;
  }
  return true;
}

std::string launchDetail(CUfunction function, const unsigned (&dims)[6],
                         int32_t smem) {
  return format("kernel %s, grid %ux%ux%u, block %ux%ux%u, %d bytes of shared "
                "memory",
                functionName(function).c_str(), dims[0], dims[1], dims[2],
                dims[3], dims[4], dims[5], smem);
}

// Kernels that ask for more than 48 KiB of dynamic shared memory must opt in.
bool allowSharedMemory(CUfunction function, int32_t smem) {
  if (smem <= 48 * 1024)
    return true;
  return CHECK_DETAIL(format("kernel %s, %d bytes of dynamic shared memory",
                             functionName(function).c_str(), smem),
                      cuFuncSetAttribute, function,
                      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
}

// A launch without a function (its module did not load) or stream.
bool launchable(const char *caller, CUfunction function) {
  if (function)
    return true;
  recordError(CUDA_ERROR_INVALID_HANDLE,
              format("stencil-cuda: %s skipped: no kernel (loading its module "
                     "or looking it up failed)",
                     caller),
              /*alwaysPrint=*/false);
  return false;
}
} // namespace

MGPU_EXPORT CUmodule mgpuModuleLoad(void *data, size_t size) {
  return loadModule("mgpuModuleLoad", data, size, /*optLevel=*/-1);
}

MGPU_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  // PTX text, NUL-terminated.
  return loadModule("mgpuModuleLoadJIT", data, SIZE_MAX,
                    optLevel < 0 ? 0 : optLevel > 4 ? 4 : optLevel);
}

MGPU_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return; // its loading failed, which was reported
  // Compiled libraries unload their kernels from a destructor: at process
  // exit the driver may have been torn down already (its exit handlers run
  // before the libraries' destructors), and nothing is left to free.
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_ERROR_DEINITIALIZED)
    return;
  ContextGuard guard(nullptr);
  if (!guard)
    return;
  CUresult result = cuModuleUnload(module);
  if (result != CUDA_ERROR_DEINITIALIZED)
    check("cuModuleUnload", result);
}

MGPU_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                             const char *name) {
  ContextGuard guard("mgpuModuleGetFunction");
  if (!guard)
    return nullptr;
  if (!module) {
    recordError(CUDA_ERROR_INVALID_HANDLE,
                format("stencil-cuda: mgpuModuleGetFunction(%s) skipped: its "
                       "module failed to load",
                       name),
                /*alwaysPrint=*/false);
    return nullptr;
  }
  CUfunction function = nullptr;
  if (!CHECK_DETAIL(format("kernel %s", name), cuModuleGetFunction, &function,
                    module, name))
    return nullptr;
  std::lock_guard<std::mutex> lock(functionNamesMutex);
  functionNames()[function] = name;
  return function;
}

MGPU_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, int32_t smem,
                                  CUstream stream, void **params, void **extra,
                                  size_t /*paramsCount*/) {
  ContextGuard guard("mgpuLaunchKernel");
  if (!guard || !launchable("mgpuLaunchKernel", function))
    return;
  unsigned dims[6];
  bool empty;
  if (!launchSizes("mgpuLaunchKernel", function,
                   {gridX, gridY, gridZ, blockX, blockY, blockZ}, dims, empty))
    return;
  if (empty)
    return; // no thread: nothing to run (the driver would refuse it)
  if (!allowSharedMemory(function, smem))
    return;
  ++statLaunches;
  check("cuLaunchKernel",
        cuLaunchKernel(function, dims[0], dims[1], dims[2], dims[3], dims[4],
                       dims[5], static_cast<unsigned>(smem), stream, params,
                       extra),
        launchDetail(function, dims, smem));
}

MGPU_EXPORT void mgpuLaunchClusterKernel(
    CUfunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t smem,
    CUstream stream, void **params, void **extra) {
  ContextGuard guard("mgpuLaunchClusterKernel");
  if (!guard || !launchable("mgpuLaunchClusterKernel", function))
    return;
  unsigned dims[6], cluster[6];
  bool empty, emptyCluster;
  if (!launchSizes("mgpuLaunchClusterKernel", function,
                   {gridX, gridY, gridZ, blockX, blockY, blockZ}, dims,
                   empty) ||
      !launchSizes("mgpuLaunchClusterKernel", function,
                   {clusterX, clusterY, clusterZ, 1, 1, 1}, cluster,
                   emptyCluster))
    return;
  if (empty)
    return;
  if (!allowSharedMemory(function, smem))
    return;
  std::string detail = launchDetail(function, dims, smem) +
                       format(", cluster %ux%ux%u", cluster[0], cluster[1],
                              cluster[2]);
  // More than 8 blocks per cluster is a non-portable size: opt in.
  if (uint64_t(cluster[0]) * cluster[1] * cluster[2] > 8 &&
      !CHECK_DETAIL(detail, cuFuncSetAttribute, function,
                    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))
    return;
  CUlaunchAttribute attribute;
  std::memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = cluster[0];
  attribute.value.clusterDim.y = cluster[1];
  attribute.value.clusterDim.z = cluster[2];
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = dims[0];
  config.gridDimY = dims[1];
  config.gridDimZ = dims[2];
  config.blockDimX = dims[3];
  config.blockDimY = dims[4];
  config.blockDimZ = dims[5];
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  ++statLaunches;
  check("cuLaunchKernelEx", cuLaunchKernelEx(&config, function, params, extra),
        detail);
}

MGPU_EXPORT CUstream mgpuStreamCreate() {
  ContextGuard guard("mgpuStreamCreate");
  if (!guard)
    return nullptr;
  ++statStreamCreates;
  return runtimeStream();
}

MGPU_EXPORT void mgpuStreamDestroy(CUstream stream) {
  // The runtime's stream lives as long as the process: nothing to do.
  if (!stream || isRuntimeStream(stream))
    return;
  ContextGuard guard("mgpuStreamDestroy");
  if (guard)
    CHECK(cuStreamDestroy, stream);
}

MGPU_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ContextGuard guard("mgpuStreamSynchronize");
  if (guard)
    CHECK(cuStreamSynchronize, stream);
}

MGPU_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ContextGuard guard("mgpuStreamWaitEvent");
  if (guard && event)
    CHECK(cuStreamWaitEvent, stream, event, 0);
}

MGPU_EXPORT CUevent mgpuEventCreate() {
  ContextGuard guard("mgpuEventCreate");
  if (!guard)
    return nullptr;
  CUevent event = nullptr;
  if (!CHECK(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING))
    return nullptr;
  return event;
}

MGPU_EXPORT void mgpuEventDestroy(CUevent event) {
  if (!event)
    return;
  ContextGuard guard("mgpuEventDestroy");
  if (guard)
    CHECK(cuEventDestroy, event);
}

MGPU_EXPORT void mgpuEventSynchronize(CUevent event) {
  if (!event)
    return;
  ContextGuard guard("mgpuEventSynchronize");
  if (guard)
    CHECK(cuEventSynchronize, event);
}

MGPU_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  if (!event)
    return;
  ContextGuard guard("mgpuEventRecord");
  if (guard)
    CHECK(cuEventRecord, event, stream);
}

MGPU_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                               bool isHostShared) {
  ContextGuard guard("mgpuMemAlloc");
  if (!guard || sizeBytes == 0)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared) {
    // Managed memory is touched by the host too: not cached.
    CHECK_DETAIL(format("%llu bytes", (unsigned long long)sizeBytes),
                 cuMemAllocManaged, &ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL);
    return reinterpret_cast<void *>(ptr);
  }
  size_t bytes = roundedSize(sizeBytes);
  Allocations &a = allocations();
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    auto it = a.cached.find(bytes);
    if (it != a.cached.end()) {
      void *reused = it->second;
      a.cached.erase(it);
      a.cachedBytes -= bytes;
      a.live[reused] = bytes;
      ++statCacheHits;
      return reused;
    }
  }
  CUresult result = cuMemAlloc(&ptr, bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    releaseCache(); // buffers of other sizes may be what is missing
    result = cuMemAlloc(&ptr, bytes);
  }
  if (!check("cuMemAlloc", result,
             format("%llu bytes", (unsigned long long)sizeBytes)))
    return nullptr;
  ++statDeviceAllocs;
  std::lock_guard<std::mutex> lock(a.mutex);
  a.live[reinterpret_cast<void *>(ptr)] = bytes;
  return reinterpret_cast<void *>(ptr);
}

MGPU_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (!ptr)
    return;
  ContextGuard guard("mgpuMemFree");
  if (!guard)
    return;
  Allocations &a = allocations();
  {
    std::lock_guard<std::mutex> lock(a.mutex);
    auto it = a.live.find(ptr);
    if (it != a.live.end()) {
      size_t bytes = it->second;
      a.live.erase(it);
      // Kernels still queued on the runtime's stream may use the buffer;
      // whoever reuses it queues after them on the same stream.
      if (a.cachedBytes + bytes <= cacheLimit(a)) {
        a.cached.emplace(bytes, ptr);
        a.cachedBytes += bytes;
        return;
      }
    }
  }
  syncRuntimeStream("before cuMemFree");
  CHECK(cuMemFree, reinterpret_cast<CUdeviceptr>(ptr));
}

MGPU_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                            CUstream stream) {
  ContextGuard guard("mgpuMemcpy");
  if (guard && sizeBytes)
    CHECK_DETAIL(format("%zu bytes", sizeBytes), cuMemcpyAsync,
                 reinterpret_cast<CUdeviceptr>(dst),
                 reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream);
}

MGPU_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                              CUstream stream) {
  ContextGuard guard("mgpuMemset32");
  if (guard && count)
    CHECK(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
          stream);
}

MGPU_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                              CUstream stream) {
  ContextGuard guard("mgpuMemset16");
  if (guard && count)
    CHECK(cuMemsetD16Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
          stream);
}

namespace {
// A ranked memref descriptor {allocated, aligned, offset, sizes[rank],
// strides[rank]}: the address of its first element and the bytes from there
// to the end of its last one.
void *memrefSpan(int64_t rank, const void *descriptor, int64_t elementBytes,
                 size_t &bytes) {
  auto *base = static_cast<char *const *>(descriptor);
  auto *numbers = reinterpret_cast<const int64_t *>(base + 2);
  int64_t offset = numbers[0];
  const int64_t *sizes = numbers + 1;
  const int64_t *strides = sizes + rank;
  int64_t last = 0;
  bytes = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] <= 0)
      return base[1] + offset * elementBytes;
    last += (sizes[i] - 1) * (strides[i] < 0 ? -strides[i] : strides[i]);
  }
  bytes = static_cast<size_t>((last + 1) * elementBytes);
  return base[1] + offset * elementBytes;
}
} // namespace

MGPU_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                           int64_t elementSizeBytes) {
  ContextGuard guard("mgpuMemHostRegisterMemRef");
  if (!guard)
    return;
  size_t bytes;
  void *ptr = memrefSpan(rank, descriptor, elementSizeBytes, bytes);
  if (bytes)
    CHECK_DETAIL(format("%zu bytes at %p", bytes, ptr), cuMemHostRegister, ptr,
                 bytes, 0);
}

MGPU_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                             int64_t elementSizeBytes) {
  ContextGuard guard("mgpuMemHostUnregisterMemRef");
  if (!guard)
    return;
  size_t bytes;
  void *ptr = memrefSpan(rank, descriptor, elementSizeBytes, bytes);
  if (bytes)
    CHECK(cuMemHostUnregister, ptr);
}

MGPU_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  DeviceState &d = deviceState();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (!d.attempted) {
    d.requested = device;
    return;
  }
  if (d.ready.load() && d.ordinal == device)
    return;
  recordError(CUDA_ERROR_INVALID_DEVICE,
              format("stencil-cuda: mgpuSetDefaultDevice(%d) ignored: the "
                     "runtime already uses device %d",
                     device, d.ordinal));
}

//===----------------------------------------------------------------------===//
// The C API of CudaRuntime.h
//===----------------------------------------------------------------------===//

extern "C" {

int stencilCudaInit(void) {
  if (ensureInitialized(nullptr))
    return CUDA_SUCCESS;
  return deviceState().initResult;
}

int stencilCudaGetDevice(void) {
  DeviceState &d = deviceState();
  return d.ready.load(std::memory_order_acquire) ? d.ordinal : -1;
}

int stencilCudaGetDeviceInfo(int *major, int *minor, char *name,
                             size_t nameSize) {
  if (!ensureInitialized("stencilCudaGetDeviceInfo"))
    return deviceState().initResult;
  CUdevice device = deviceState().device;
  CUresult result = cuDeviceGetAttribute(
      major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  if (result == CUDA_SUCCESS)
    result = cuDeviceGetAttribute(
        minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  if (!check("cuDeviceGetAttribute", result))
    return result;
  if (name && nameSize) {
    result = cuDeviceGetName(name, static_cast<int>(nameSize), device);
    check("cuDeviceGetName", result);
  }
  return result;
}

int stencilCudaGetLastError(void) {
  ErrorState &s = errorState();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.count ? static_cast<int>(s.code) : 0;
}

const char *stencilCudaGetLastErrorMessage(void) {
  thread_local std::string copy;
  ErrorState &s = errorState();
  std::lock_guard<std::mutex> lock(s.mutex);
  copy = s.count ? s.message : std::string();
  if (s.count > 1)
    copy += format(" (and %d more error%s)", s.count - 1,
                   s.count > 2 ? "s" : "");
  return copy.c_str();
}

int stencilCudaGetErrorCount(void) {
  ErrorState &s = errorState();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.count;
}

void stencilCudaClearLastError(void) {
  ErrorState &s = errorState();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.code = CUDA_SUCCESS;
  s.message.clear();
  s.count = 0;
}

void stencilCudaSetVerbose(int verbose) {
  errorState().verbose.store(verbose ? 1 : 0);
}

const char *stencilCudaErrorName(int result) {
  return resultName(static_cast<CUresult>(result));
}

void *stencilCudaMalloc(size_t bytes) {
  ContextGuard guard("stencilCudaMalloc");
  if (!guard || bytes == 0)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (!CHECK_DETAIL(format("%zu bytes", bytes), cuMemAlloc, &ptr, bytes))
    return nullptr;
  return reinterpret_cast<void *>(ptr);
}

int stencilCudaFree(void *devicePtr) {
  if (!devicePtr)
    return CUDA_SUCCESS;
  ContextGuard guard("stencilCudaFree");
  if (!guard)
    return deviceState().initResult;
  syncRuntimeStream("before cuMemFree");
  CUresult result = cuMemFree(reinterpret_cast<CUdeviceptr>(devicePtr));
  check("cuMemFree", result);
  return result;
}

namespace {
// A copy on the runtime's stream, waited for.
int copyOnStream(const char *caller, const char *call, void *dst,
                 const void *src, size_t bytes, CUresult (*copy)(void *,
                                                                const void *,
                                                                size_t,
                                                                CUstream)) {
  ContextGuard guard(caller);
  if (!guard)
    return deviceState().initResult;
  if (!bytes)
    return CUDA_SUCCESS;
  CUstream stream = runtimeStream();
  if (!stream)
    return stencilCudaGetLastError();
  CUresult result = copy(dst, src, bytes, stream);
  if (!check(call, result, format("%zu bytes", bytes)))
    return result;
  result = cuStreamSynchronize(stream);
  check("cuStreamSynchronize", result, format("after %s", call));
  return result;
}
} // namespace

int stencilCudaMemcpyHtoD(void *dst, const void *src, size_t bytes) {
  return copyOnStream(
      "stencilCudaMemcpyHtoD", "cuMemcpyHtoDAsync", dst, src, bytes,
      [](void *d, const void *s, size_t n, CUstream st) {
        return cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(d), s, n, st);
      });
}

int stencilCudaMemcpyDtoH(void *dst, const void *src, size_t bytes) {
  return copyOnStream(
      "stencilCudaMemcpyDtoH", "cuMemcpyDtoHAsync", dst, src, bytes,
      [](void *d, const void *s, size_t n, CUstream st) {
        return cuMemcpyDtoHAsync(d, reinterpret_cast<CUdeviceptr>(s), n, st);
      });
}

int stencilCudaMemcpyDtoD(void *dst, const void *src, size_t bytes) {
  return copyOnStream(
      "stencilCudaMemcpyDtoD", "cuMemcpyDtoDAsync", dst, src, bytes,
      [](void *d, const void *s, size_t n, CUstream st) {
        return cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(d),
                                 reinterpret_cast<CUdeviceptr>(s), n, st);
      });
}

int stencilCudaMemset(void *dst, unsigned char value, size_t bytes) {
  ContextGuard guard("stencilCudaMemset");
  if (!guard)
    return deviceState().initResult;
  if (!bytes)
    return CUDA_SUCCESS;
  CUstream stream = runtimeStream();
  if (!stream)
    return stencilCudaGetLastError();
  CUresult result = cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                    bytes, stream);
  if (!check("cuMemsetD8Async", result, format("%zu bytes", bytes)))
    return result;
  result = cuStreamSynchronize(stream);
  check("cuStreamSynchronize", result, "after cuMemsetD8Async");
  return result;
}

int stencilCudaPointerDevice(const void *ptr) {
  if (!ptr || !ensureInitialized(nullptr))
    return -1;
  int ordinal = -1;
  if (cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                            reinterpret_cast<CUdeviceptr>(ptr)) !=
      CUDA_SUCCESS)
    return -1;
  return ordinal;
}

void *stencilCudaGetStream(void) {
  ContextGuard guard("stencilCudaGetStream");
  return guard ? runtimeStream() : nullptr;
}

int stencilCudaSynchronize(void) {
  ContextGuard guard("stencilCudaSynchronize");
  if (!guard)
    return deviceState().initResult;
  return syncRuntimeStream("stencilCudaSynchronize") ? CUDA_SUCCESS
                                                     : stencilCudaGetLastError();
}

int stencilCudaSynchronizeStream(uintptr_t stream) {
  ContextGuard guard("stencilCudaSynchronizeStream");
  if (!guard)
    return deviceState().initResult;
  CUstream handle = stream == 1   ? CU_STREAM_LEGACY
                    : stream == 2 ? CU_STREAM_PER_THREAD
                                  : reinterpret_cast<CUstream>(stream);
  CUresult result = cuStreamSynchronize(handle);
  check("cuStreamSynchronize", result,
        format("the stream 0x%lx of a __cuda_array_interface__",
               static_cast<unsigned long>(stream)));
  return result;
}

int stencilCudaReleaseCache(void) {
  ContextGuard guard("stencilCudaReleaseCache");
  if (!guard)
    return deviceState().initResult;
  return releaseCache() ? CUDA_SUCCESS : stencilCudaGetLastError();
}

void stencilCudaGetStats(StencilCudaStats *stats) {
  stats->moduleLoads = statModuleLoads.load();
  stats->launches = statLaunches.load();
  stats->streamCreates = statStreamCreates.load();
  stats->streamsMade = statStreamsMade.load();
  stats->deviceAllocs = statDeviceAllocs.load();
  stats->cacheHits = statCacheHits.load();
  Allocations &a = allocations();
  std::lock_guard<std::mutex> lock(a.mutex);
  stats->cachedBytes = static_cast<int64_t>(a.cachedBytes);
}

} // extern "C"
