// GPU benchmark driver for one kernel, dtype and size (bench/gpu_bench.py).
//
// Compiled with the header python/stencil/cudagen.py generates for the
// kernel, which defines the sizes (SB_*), the naive kernels (sb_naive_run),
// their host version (sb_host_run) and the call of a compiled library
// (sb_call_ciface):
//
//   nvcc -O3 -arch=sm_90 --fmad=false --prec-div=true --prec-sqrt=true
//        --ftz=false -std=c++17 -Xcompiler -O3,-ffp-contract=off -I include
//        --pre-include kernel.cuh -o driver bench/gpu_driver.cu -ldl
//
// Device mode (the default): allocates the fields on the device, fills them
// (from --init FILE, or with the deterministic hash sb_init_value, mirrored
// by cudagen.hash_inputs), then for every variant -- the naive kernels and
// each --lib NAME=PATH, a shared library built by stencil-opt whose
// _mlir_ciface_<name> takes memref descriptors of device arrays --
//   1. one untimed run from the initial arrays, whose fields are compared bit
//      for bit, on the device, with the first variant's (--dump writes them);
//   2. --warmup more untimed runs;
//   3. --runs timed runs, interleaved across the variants, each from the
//      initial arrays (copied in on the device, not timed): cudaEvents on the
//      default stream around the call, after and before a
//      cudaDeviceSynchronize (a library may use its own streams);
// then the device copy bandwidth: cudaMemcpyDeviceToDevice and a copy
// kernel over one field, --copy-reps copies per timed run.  Writes JSON.
//
// --host-emulate: no CUDA call at all; runs sb_host_run (the kernels' point
// functions in loops, compiled for the host) once and dumps the fields: the
// CPU check of the kernel source where there is no GPU.
//
// Exit status: 0 on success (mismatches are reported in the JSON, not in the
// status), 2 on a usage or runtime error, 3 when there is no CUDA device.

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef SB_NAME
#error "compile with --pre-include KERNEL.cuh, the header of python/stencil/cudagen.py"
#endif

// The project's CUDA runtime (libStencilCudaRuntime.so, which a compiled
// library links): its error state and statistics, looked up with dlsym in the
// library's dependencies, when the header is on the include path (-I include).
#if __has_include("Stencil/Runtime/CudaRuntime.h")
#include "Stencil/Runtime/CudaRuntime.h"
#define SB_HAVE_RUNTIME_API 1
#else
#define SB_HAVE_RUNTIME_API 0
#endif

static void die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "gpu_driver: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(status);
}

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess)                                                   \
      die(2, "%s:%d: %s: %s", __FILE__, __LINE__, #call,                       \
          cudaGetErrorString(err_));                                           \
  } while (0)

// ---------------------------------------------------------------------------
// Deterministic initial values (cudagen.hash_inputs is the numpy mirror)

__host__ __device__ static inline uint64_t sb_mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__host__ __device__ static inline sb_real sb_init_value(int field, long long idx,
                                                        uint64_t seed) {
  uint64_t key = (seed << 48) ^ ((uint64_t)field << 40);
  double v = (double)(sb_mix((uint64_t)idx ^ key) >> 11) * 0x1.0p-53;
  return (sb_real)v;
}

__global__ void sb_init_kernel(sb_real *a, int field, uint64_t seed) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < SB_ELEMS;
       i += stride)
    a[i] = sb_init_value(field, i, seed);
}

__global__ void sb_copy_kernel(sb_real *__restrict__ dst, const sb_real *__restrict__ src,
                               long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// Elements whose bit patterns differ: count and first index.
__global__ void sb_diff_kernel(const sb_bits *a, const sb_bits *b, long long n,
                               unsigned long long *count, unsigned long long *first) {
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    if (a[i] != b[i]) {
      atomicAdd(count, 1ULL);
      atomicMin(first, (unsigned long long)i);
    }
}

// ---------------------------------------------------------------------------

struct Options {
  std::string json, init, dump;
  std::vector<std::pair<std::string, std::string>> libs;
  int runs = 5, warmup = 1, copy_reps = 10;
  uint64_t seed = 0x5eed;
  bool host_emulate = false, naive = true, inject = false;
};

static void usage() {
  fprintf(stderr,
          "usage: gpu_driver [--json OUT] [--lib NAME=PATH]... [--runs N] [--warmup N]\n"
          "                  [--copy-reps N] [--init FILE] [--seed S] [--dump PREFIX]\n"
          "                  [--no-naive] [--inject-mismatch] [--host-emulate]\n"
          "kernel %s (%s), compiled in\n",
          SB_NAME, SB_DTYPE);
  exit(2);
}

static Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage();
      return argv[++i];
    };
    if (a == "--json")
      o.json = value();
    else if (a == "--lib") {
      std::string v = value();
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        usage();
      o.libs.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else if (a == "--runs")
      o.runs = atoi(value().c_str());
    else if (a == "--warmup")
      o.warmup = atoi(value().c_str());
    else if (a == "--copy-reps")
      o.copy_reps = atoi(value().c_str());
    else if (a == "--init")
      o.init = value();
    else if (a == "--seed")
      o.seed = strtoull(value().c_str(), nullptr, 0);
    else if (a == "--dump")
      o.dump = value();
    else if (a == "--no-naive")
      o.naive = false;
    else if (a == "--inject-mismatch")
      o.inject = true;
    else if (a == "--host-emulate")
      o.host_emulate = true;
    else
      usage();
  }
  if (o.runs < 1 || o.warmup < 0 || o.copy_reps < 1)
    usage();
  return o;
}

static const size_t kBytes = (size_t)SB_ELEMS * sizeof(sb_real);

static void read_init(const std::string &path, std::vector<sb_real> &host) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f)
    die(2, "cannot open %s", path.c_str());
  size_t n = fread(host.data(), sizeof(sb_real), host.size(), f);
  char extra;
  bool longer = fread(&extra, 1, 1, f) == 1;
  fclose(f);
  if (n != host.size() || longer)
    die(2, "%s: expected %zu bytes (%d fields of %lld %s elements)", path.c_str(),
        host.size() * sizeof(sb_real), SB_NFIELDS, SB_ELEMS, SB_DTYPE);
}

static void write_file(const std::string &path, const void *data, size_t bytes) {
  FILE *f = fopen(path.c_str(), "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes)
    die(2, "cannot write %s", path.c_str());
  fclose(f);
}

// Flips the last mantissa bit of *x (--inject-mismatch: the middle element of
// field 0, to show that the comparisons catch one wrong bit).
static void flip_bit(sb_real *x) {
  sb_bits b;
  memcpy(&b, x, sizeof b);
  b ^= 1;
  memcpy(x, &b, sizeof b);
}

static std::string json_str(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if ((unsigned char)c < 0x20)
      continue;
    out += c;
  }
  return out + "\"";
}

static std::string json_list(const std::vector<double> &v) {
  std::string out = "[";
  char buf[64];
  for (size_t i = 0; i < v.size(); ++i) {
    snprintf(buf, sizeof buf, "%s%.6f", i ? ", " : "", v[i]);
    out += buf;
  }
  return out + "]";
}

static void emit_json(const Options &o, const std::string &body) {
  FILE *f = o.json.empty() ? stdout : fopen(o.json.c_str(), "w");
  if (!f)
    die(2, "cannot write %s", o.json.c_str());
  fputs(body.c_str(), f);
  if (f != stdout)
    fclose(f);
}

static std::string header_json(const char *mode) {
  char buf[1024];
  std::string shape = "[";
  for (int d = 0; d < SB_RANK; ++d)
    shape += (d ? ", " : "") + std::to_string(sb_shape[d]);
  shape += "]";
  snprintf(buf, sizeof buf,
           "{\n \"mode\": \"%s\",\n \"kernel\": \"%s\",\n \"dtype\": \"%s\",\n"
           " \"shape\": %s,\n \"steps\": %lld,\n \"time_loop\": %d,\n \"points\": %lld,\n"
           " \"elems_per_field\": %lld,\n \"fields\": %d,\n \"launches_per_step\": %d,\n"
           " \"block\": \"%s\"",
           mode, SB_NAME, SB_DTYPE, shape.c_str(), SB_STEPS, SB_TIME_LOOP, SB_POINTS,
           SB_ELEMS, SB_NFIELDS, SB_LAUNCHES_PER_STEP, SB_BLOCK);
  return buf;
}

// ---------------------------------------------------------------------------
// Host emulation: the kernels' point functions in loops, no CUDA call

static int host_emulate(const Options &o) {
  std::vector<sb_real> host((size_t)SB_NFIELDS * SB_ELEMS);
  if (!o.init.empty())
    read_init(o.init, host);
  else
    for (int f = 0; f < SB_NFIELDS; ++f)
      for (long long i = 0; i < SB_ELEMS; ++i)
        host[(size_t)f * SB_ELEMS + i] = sb_init_value(f, i, o.seed);
  if (!o.dump.empty())
    write_file(o.dump + "init.bin", host.data(), host.size() * sizeof(sb_real));
  std::vector<std::vector<sb_real>> temps(SB_NTEMPS);
  sb_real *tmp[SB_NTEMPS > 0 ? SB_NTEMPS : 1] = {nullptr};
  for (int t = 0; t < SB_NTEMPS; ++t) {
    temps[t].assign((size_t)sb_temp_elems[t], (sb_real)0);
    tmp[t] = temps[t].data();
  }
  sb_real *arg[SB_NFIELDS];
  for (int f = 0; f < SB_NFIELDS; ++f)
    arg[f] = host.data() + (size_t)f * SB_ELEMS;
  auto t0 = std::chrono::steady_clock::now();
  sb_host_run(arg, tmp);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count();
  if (o.inject)
    flip_bit(&arg[0][SB_ELEMS / 2]);
  if (!o.dump.empty())
    write_file(o.dump + "naive.bin", host.data(), host.size() * sizeof(sb_real));
  char buf[128];
  snprintf(buf, sizeof buf, ",\n \"host_ms\": %.3f\n}\n", ms);
  emit_json(o, header_json("host-emulate") + buf);
  return 0;
}

// ---------------------------------------------------------------------------
// Device mode

struct RuntimeApi {
#if SB_HAVE_RUNTIME_API
  decltype(&stencilCudaGetLastError) last_error = nullptr;
  decltype(&stencilCudaGetLastErrorMessage) message = nullptr;
  decltype(&stencilCudaClearLastError) clear = nullptr;
  decltype(&stencilCudaGetStats) stats = nullptr;
#endif
  void load(void *handle) {
#if SB_HAVE_RUNTIME_API
    last_error = (decltype(last_error))dlsym(handle, "stencilCudaGetLastError");
    message = (decltype(message))dlsym(handle, "stencilCudaGetLastErrorMessage");
    clear = (decltype(clear))dlsym(handle, "stencilCudaClearLastError");
    stats = (decltype(stats))dlsym(handle, "stencilCudaGetStats");
#else
    (void)handle;
#endif
  }
  // Dies when the runtime has recorded an error (it never aborts by itself).
  void check(const std::string &what) {
#if SB_HAVE_RUNTIME_API
    if (last_error && last_error() != 0)
      die(2, "%s: the stencil CUDA runtime reports: %s", what.c_str(),
          message ? message() : "(no message)");
#else
    (void)what;
#endif
  }
  // Kernels launched and device allocations made so far (-1: unknown).
  void counters(long long &launches, long long &allocs) {
    launches = allocs = -1;
#if SB_HAVE_RUNTIME_API
    if (stats) {
      StencilCudaStats st;
      stats(&st);
      launches = st.launches;
      allocs = st.deviceAllocs;
    }
#endif
  }
};

struct Variant {
  std::string name, path;
  void *fn = nullptr;  // _mlir_ciface_<name>, or null for the naive kernels
  RuntimeApi rt;
  std::vector<double> ms, wall_ms;
  std::vector<unsigned long long> differ, first;
  long long launches = -1, allocs = -1;  // in the checked run (libraries)
  bool reference = false;
};

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  if (o.host_emulate)
    return host_emulate(o);

  int ndev = 0;
  cudaError_t derr = cudaGetDeviceCount(&ndev);
  if (derr != cudaSuccess || ndev == 0)
    die(3, "no CUDA device (%s)",
        derr != cudaSuccess ? cudaGetErrorString(derr) : "0 devices");
  CK(cudaSetDevice(0));
  CK(cudaFree(0));  // creates the primary context, which the libraries' runtime shares
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int mem_clock_khz = 0, bus_width = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaGetLastError();

  // fields, their initial values, the reference result, temporaries
  std::vector<sb_real *> cur(SB_NFIELDS), init(SB_NFIELDS), golden(SB_NFIELDS);
  for (int f = 0; f < SB_NFIELDS; ++f) {
    CK(cudaMalloc(&cur[f], kBytes));
    CK(cudaMalloc(&init[f], kBytes));
    CK(cudaMalloc(&golden[f], kBytes));
  }
  sb_real *tmp[SB_NTEMPS > 0 ? SB_NTEMPS : 1] = {nullptr};
  for (int t = 0; t < SB_NTEMPS; ++t)
    CK(cudaMalloc(&tmp[t], (size_t)sb_temp_elems[t] * sizeof(sb_real)));
  if (!o.init.empty()) {
    std::vector<sb_real> host((size_t)SB_NFIELDS * SB_ELEMS);
    read_init(o.init, host);
    for (int f = 0; f < SB_NFIELDS; ++f)
      CK(cudaMemcpy(init[f], host.data() + (size_t)f * SB_ELEMS, kBytes,
                    cudaMemcpyHostToDevice));
  } else {
    for (int f = 0; f < SB_NFIELDS; ++f)
      sb_init_kernel<<<1024, 256>>>(init[f], f, o.seed);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  unsigned long long *d_count, *d_first;
  CK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  CK(cudaMalloc(&d_first, sizeof(unsigned long long)));

  std::vector<Variant> variants;
  if (o.naive) {
    Variant v;
    v.name = "naive";
    variants.push_back(v);
  }
  for (auto &lib : o.libs) {
    Variant v;
    v.name = lib.first;
    v.path = lib.second;
    // after cudaFree(0): the library's constructors load its cubin
    void *h = dlopen(lib.second.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
      die(2, "%s: %s", lib.first.c_str(), dlerror());
    v.fn = dlsym(h, SB_SYMBOL);
    if (!v.fn)
      die(2, "%s: no %s in %s", lib.first.c_str(), SB_SYMBOL, lib.second.c_str());
    v.rt.load(h);
    v.rt.check(lib.first + ": loading " + lib.second);
    variants.push_back(v);
  }
  if (variants.empty())
    die(2, "no variant to run (--no-naive and no --lib)");
  variants[0].reference = true;

  auto reset = [&]() {
    for (int f = 0; f < SB_NFIELDS; ++f)
      CK(cudaMemcpy(cur[f], init[f], kBytes, cudaMemcpyDeviceToDevice));
  };
  auto run = [&](Variant &v) {
    if (!v.fn) {
      sb_naive_run(cur.data(), tmp, 0);
    } else {
      sb_memref desc[SB_NFIELDS];
      for (int f = 0; f < SB_NFIELDS; ++f) {
        desc[f].allocated = cur[f];
        desc[f].aligned = cur[f];
        desc[f].offset = 0;
        int64_t stride = 1;
        for (int d = SB_RANK - 1; d >= 0; --d) {
          desc[f].sizes[d] = sb_full[d];
          desc[f].strides[d] = stride;
          stride *= sb_full[d];
        }
      }
      sb_call_ciface(v.fn, desc);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
      die(2, "%s: launch failed: %s", v.name.c_str(), cudaGetErrorString(err));
    err = cudaDeviceSynchronize();
    if (err != cudaSuccess)
      die(2, "%s: %s", v.name.c_str(), cudaGetErrorString(err));
    v.rt.check(v.name);
  };

  // 1. checked run of every variant, compared with the first
  std::vector<sb_real> host;
  if (!o.dump.empty()) {
    host.resize((size_t)SB_NFIELDS * SB_ELEMS);
    for (int f = 0; f < SB_NFIELDS; ++f)
      CK(cudaMemcpy(host.data() + (size_t)f * SB_ELEMS, init[f], kBytes,
                    cudaMemcpyDeviceToHost));
    write_file(o.dump + "init.bin", host.data(), host.size() * sizeof(sb_real));
  }
  for (size_t k = 0; k < variants.size(); ++k) {
    Variant &v = variants[k];
    reset();
    CK(cudaDeviceSynchronize());
    long long launches0, allocs0, launches1, allocs1;
    v.rt.counters(launches0, allocs0);
    run(v);
    v.rt.counters(launches1, allocs1);
    if (v.fn && launches0 >= 0) {
      v.launches = launches1 - launches0;
      v.allocs = allocs1 - allocs0;
    }
    if (o.inject && k + 1 == variants.size() && variants.size() > 1) {
      sb_real x;
      CK(cudaMemcpy(&x, cur[0] + SB_ELEMS / 2, sizeof x, cudaMemcpyDeviceToHost));
      flip_bit(&x);
      CK(cudaMemcpy(cur[0] + SB_ELEMS / 2, &x, sizeof x, cudaMemcpyHostToDevice));
    }
    if (v.reference) {
      for (int f = 0; f < SB_NFIELDS; ++f)
        CK(cudaMemcpy(golden[f], cur[f], kBytes, cudaMemcpyDeviceToDevice));
    } else {
      for (int f = 0; f < SB_NFIELDS; ++f) {
        unsigned long long zero = 0, none = ~0ULL, count, first;
        CK(cudaMemcpy(d_count, &zero, sizeof zero, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_first, &none, sizeof none, cudaMemcpyHostToDevice));
        sb_diff_kernel<<<1024, 256>>>((const sb_bits *)cur[f], (const sb_bits *)golden[f],
                                      SB_ELEMS, d_count, d_first);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost));
        v.differ.push_back(count);
        v.first.push_back(first);
      }
    }
    if (!o.dump.empty()) {
      for (int f = 0; f < SB_NFIELDS; ++f)
        CK(cudaMemcpy(host.data() + (size_t)f * SB_ELEMS, cur[f], kBytes,
                      cudaMemcpyDeviceToHost));
      write_file(o.dump + v.name + ".bin", host.data(), host.size() * sizeof(sb_real));
    }
  }
  // 2. warm-up
  for (int w = 0; w < o.warmup; ++w)
    for (Variant &v : variants) {
      reset();
      run(v);
    }
  // 3. timed runs, interleaved
  cudaEvent_t ev0, ev1;
  CK(cudaEventCreate(&ev0));
  CK(cudaEventCreate(&ev1));
  for (int r = 0; r < o.runs; ++r)
    for (Variant &v : variants) {
      reset();
      CK(cudaDeviceSynchronize());
      auto t0 = std::chrono::steady_clock::now();
      CK(cudaEventRecord(ev0, 0));
      run(v);  // ends with cudaDeviceSynchronize
      CK(cudaEventRecord(ev1, 0));
      CK(cudaEventSynchronize(ev1));
      auto t1 = std::chrono::steady_clock::now();
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, ev0, ev1));
      v.ms.push_back(ms);
      v.wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }

  // copy bandwidth over one field: cudaMemcpy and a copy kernel
  std::vector<double> memcpy_ms, kernel_ms;
  const int cblock = 256;
  const long long cgrid = (SB_ELEMS + cblock - 1) / cblock;
  for (int w = 0; w < 2; ++w) {
    CK(cudaMemcpyAsync(cur[0], init[0], kBytes, cudaMemcpyDeviceToDevice, 0));
    sb_copy_kernel<<<(unsigned)cgrid, cblock>>>(cur[0], init[0], SB_ELEMS);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < o.runs; ++r) {
    float ms = 0;
    CK(cudaEventRecord(ev0, 0));
    for (int i = 0; i < o.copy_reps; ++i)
      CK(cudaMemcpyAsync(cur[0], init[0], kBytes, cudaMemcpyDeviceToDevice, 0));
    CK(cudaEventRecord(ev1, 0));
    CK(cudaEventSynchronize(ev1));
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    memcpy_ms.push_back(ms / o.copy_reps);
    CK(cudaEventRecord(ev0, 0));
    for (int i = 0; i < o.copy_reps; ++i)
      sb_copy_kernel<<<(unsigned)cgrid, cblock>>>(cur[0], init[0], SB_ELEMS);
    CK(cudaEventRecord(ev1, 0));
    CK(cudaEventSynchronize(ev1));
    CK(cudaGetLastError());
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    kernel_ms.push_back(ms / o.copy_reps);
  }

  // JSON
  std::string out = header_json("device");
  char buf[2048];
  snprintf(buf, sizeof buf,
           ",\n \"device\": {\"name\": %s, \"cc\": \"%d.%d\", \"sms\": %d, "
           "\"global_mem_gib\": %.1f, \"l2_mib\": %.1f, \"mem_clock_khz\": %d, "
           "\"bus_width_bits\": %d, \"peak_gbs\": %.1f, \"driver\": %d, \"runtime\": %d}",
           json_str(prop.name).c_str(), prop.major, prop.minor, prop.multiProcessorCount,
           prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize / 1048576.0, mem_clock_khz,
           bus_width, 2.0 * mem_clock_khz * 1e3 * (bus_width / 8) / 1e9, driver, runtime);
  out += buf;
  snprintf(buf, sizeof buf,
           ",\n \"copy\": {\"bytes\": %zu, \"reps\": %d, \"memcpy_ms\": %s, \"kernel_ms\": %s}",
           kBytes, o.copy_reps, json_list(memcpy_ms).c_str(), json_list(kernel_ms).c_str());
  out += buf;
  out += ",\n \"variants\": {";
  for (size_t k = 0; k < variants.size(); ++k) {
    Variant &v = variants[k];
    out += std::string(k ? ",\n" : "\n") + "  " + json_str(v.name) + ": {";
    out += "\"library\": " + (v.fn ? json_str(v.path) : std::string("null"));
    out += ", \"reference\": " + std::string(v.reference ? "true" : "false");
    if (v.fn) {
      snprintf(buf, sizeof buf, ", \"launches\": %lld, \"device_allocs\": %lld", v.launches,
               v.allocs);
      out += buf;
    }
    out += ", \"ms\": " + json_list(v.ms) + ", \"wall_ms\": " + json_list(v.wall_ms);
    if (!v.reference) {
      out += ", \"differ\": {";
      for (int f = 0; f < SB_NFIELDS; ++f) {
        snprintf(buf, sizeof buf, "%s\"%s\": [%llu, %lld]", f ? ", " : "", sb_fields[f],
                 v.differ[f], v.differ[f] ? (long long)v.first[f] : -1LL);
        out += buf;
      }
      out += "}";
    }
    out += "}";
  }
  out += "\n }\n}\n";
  emit_json(o, out);
  return 0;
}
