//===- MpiRuntime.cpp - halo exchanges of distributed stencil programs -----===//

#include "Stencil/Runtime/MpiRuntime.h"

// The C API only (not the C++ bindings some MPI headers pull in).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

// A GPU program (--convert-to-gpu) packs its halos into device buffers.
// libStencilCudaRuntime, which such a program links, defines these; a CPU
// program links no CUDA and they stay null (weak references).
extern "C" {
int stencilCudaPointerDevice(const void *ptr) __attribute__((weak));
int stencilCudaMemcpyDtoH(void *dst, const void *src, size_t bytes)
    __attribute__((weak));
int stencilCudaMemcpyHtoD(void *dst, const void *src, size_t bytes)
    __attribute__((weak));
}

namespace {

MPI_Comm communicator = MPI_COMM_NULL;
int64_t rank = 0;
std::vector<MPI_Request> requests;
int64_t messages = 0, bytesSent = 0, exchanges = 0, stagedBytes = 0;

// Host staging of device buffers: a send copies the packed halo to host
// memory before MPI_Isend, a receive lands in host memory and is copied to
// the device after MPI_Waitall. $STENCIL_MPI_CUDA_AWARE=1 hands device
// pointers to MPI instead (an MPI built with CUDA support).
bool cudaAware = false;
std::deque<std::vector<char>> hostBuffers; // reused across exchanges
size_t hostBuffersUsed = 0;
struct StagedReceive {
  void *device;
  const char *host;
  int64_t bytes;
};
std::vector<StagedReceive> stagedReceives;

[[noreturn]] void fail(const char *message) {
  std::fprintf(stderr, "stencil: %s\n", message);
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(communicator == MPI_COMM_NULL ? MPI_COMM_WORLD : communicator,
              1);
  std::exit(1);
}

void check(int err, const char *what) {
  if (err == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING + 128];
  int length = 0;
  char reason[MPI_MAX_ERROR_STRING];
  MPI_Error_string(err, reason, &length);
  std::snprintf(text, sizeof(text), "%s failed: %s", what, reason);
  fail(text);
}

void post(int64_t buffer, int64_t bytes, int64_t peer, int64_t tag,
          bool send) {
  if (communicator == MPI_COMM_NULL)
    fail("a halo exchange outside a distributed function "
         "(stencil_mpi_enter was not called)");
  if (peer < 0)
    return;
  void *data = reinterpret_cast<void *>(static_cast<intptr_t>(buffer));
  if (!cudaAware && stencilCudaPointerDevice &&
      stencilCudaPointerDevice(data) >= 0) {
    if (hostBuffersUsed == hostBuffers.size())
      hostBuffers.emplace_back();
    std::vector<char> &host = hostBuffers[hostBuffersUsed++];
    host.resize(static_cast<size_t>(bytes));
    if (send) {
      if (stencilCudaMemcpyDtoH(host.data(), data, host.size()) != 0)
        fail("copying a halo buffer from the device to the host failed");
    } else {
      stagedReceives.push_back({data, host.data(), bytes});
    }
    stagedBytes += bytes;
    data = host.data();
  }
  requests.emplace_back();
  if (send) {
    check(MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE,
                    static_cast<int>(peer), static_cast<int>(tag),
                    communicator, &requests.back()),
          "MPI_Isend");
    ++messages;
    bytesSent += bytes;
  } else {
    check(MPI_Irecv(data, static_cast<int>(bytes), MPI_BYTE,
                    static_cast<int>(peer), static_cast<int>(tag),
                    communicator, &requests.back()),
          "MPI_Irecv");
  }
}

void requireMpi() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    fail("a distributed program was called without MPI: call MPI_Init "
         "first (from Python, import mpi4py's MPI)");
}

MPI_Comm communicatorOf(const void *comm) {
  return comm ? *static_cast<const MPI_Comm *>(comm) : MPI_COMM_WORLD;
}

} // namespace

extern "C" int64_t stencil_mpi_grid_code(const void *comm, int64_t ndims) {
  requireMpi();
  int size = 0;
  check(MPI_Comm_size(communicatorOf(comm), &size), "MPI_Comm_size");
  int dims[3] = {0, 0, 0};
  check(MPI_Dims_create(size, static_cast<int>(ndims), dims),
        "MPI_Dims_create");
  int64_t code = 0;
  for (int64_t d = 0; d < ndims; ++d) {
    if (dims[d] >= (1 << 20))
      return -1;
    code |= static_cast<int64_t>(dims[d]) << (20 * d);
  }
  return code;
}

extern "C" void stencil_mpi_no_grid(int64_t code, int64_t ndims,
                                    const char *compiled) {
  std::string grid = "more than 2^20 ranks in a dimension";
  int64_t ranks = 1;
  if (code >= 0) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < ndims; ++d)
      dims.push_back((code >> (20 * d)) & ((1 << 20) - 1));
    while (dims.size() > 1 && dims.back() == 1) // as grid=auto names grids
      dims.pop_back();
    grid.clear();
    for (int64_t n : dims) {
      ranks *= n;
      grid += (grid.empty() ? "" : "x") + std::to_string(n);
    }
  }
  std::string text =
      "the program was distributed with grid=auto for the grids " +
      std::string(compiled) + ", not for the " + grid +
      " grid MPI_Dims_create chooses for " + std::to_string(ranks) +
      " ranks: run it on one of those rank counts, or distribute it again "
      "(ranks=" +
      std::to_string(ranks) + ")";
  fail(text.c_str());
}

extern "C" int64_t stencil_mpi_enter(const void *comm, int64_t ranks) {
  requireMpi();
  communicator = communicatorOf(comm);
  int size = 0, me = 0;
  check(MPI_Comm_size(communicator, &size), "MPI_Comm_size");
  check(MPI_Comm_rank(communicator, &me), "MPI_Comm_rank");
  if (size != ranks) {
    char text[256];
    std::snprintf(text, sizeof(text),
                  "the program was distributed over %lld ranks (its grid), "
                  "but the communicator has %d",
                  static_cast<long long>(ranks), size);
    fail(text);
  }
  rank = me;
  const char *aware = std::getenv("STENCIL_MPI_CUDA_AWARE");
  cudaAware = aware && std::strcmp(aware, "0") != 0 && *aware;
  return rank;
}

extern "C" int64_t stencil_mpi_rank(void) { return rank; }

extern "C" int64_t stencil_mpi_grid_rank(int64_t ranks) {
  // A program distributed elsewhere (xDSL's distribute-stencil) has no
  // dispatcher that entered a communicator: it runs on MPI_COMM_WORLD.
  if (communicator == MPI_COMM_NULL)
    return stencil_mpi_enter(nullptr, ranks);
  return rank;
}

extern "C" void stencil_mpi_irecv(int64_t buffer, int64_t bytes, int64_t peer,
                                  int64_t tag) {
  post(buffer, bytes, peer, tag, /*send=*/false);
}

extern "C" void stencil_mpi_isend(int64_t buffer, int64_t bytes, int64_t peer,
                                  int64_t tag) {
  post(buffer, bytes, peer, tag, /*send=*/true);
}

extern "C" void stencil_mpi_waitall(void) {
  ++exchanges;
  if (requests.empty())
    return;
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                    MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  requests.clear();
  for (const StagedReceive &r : stagedReceives)
    if (stencilCudaMemcpyHtoD(r.device, r.host, static_cast<size_t>(r.bytes)) !=
        0)
      fail("copying a received halo from the host to the device failed");
  stagedReceives.clear();
  hostBuffersUsed = 0;
}

extern "C" void stencil_mpi_counters(int64_t *m, int64_t *b, int64_t *e) {
  *m = messages;
  *b = bytesSent;
  *e = exchanges;
}

extern "C" int64_t stencil_mpi_staged_bytes(void) { return stagedBytes; }

extern "C" void stencil_mpi_reset_counters(void) {
  messages = bytesSent = exchanges = stagedBytes = 0;
}
