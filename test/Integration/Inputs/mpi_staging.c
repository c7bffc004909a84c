/* libStencilMpi's host staging of device buffers, without a GPU: this
 * program defines the three functions libStencilCudaRuntime would (its
 * weak references resolve to them): "device memory" is one static arena,
 * and the copies are memcpy that count. Two ranks exchange buffers of three
 * sizes, twice each (the host buffers are reused), through
 * stencil_mpi_irecv/isend/waitall on "device" pointers; every received
 * buffer must hold what the other rank sent, each send must have copied to
 * the host once and each receive to the device once, after the wait. With
 * STENCIL_MPI_CUDA_AWARE=1 nothing is staged and the data arrives all the
 * same (MPI reads and writes this "device" memory directly). */
#include "Stencil/Runtime/MpiRuntime.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char arena[1 << 16];
static long toHost, toDevice;

static int isDevice(const void *p) {
  return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

int stencilCudaPointerDevice(const void *ptr) { return isDevice(ptr) ? 0 : -1; }

/* STAGING_FAIL=1 makes the copies to the host fail, 2 those to the device. */
static int failing(int which) {
  const char *fail = getenv("STAGING_FAIL");
  return fail && atoi(fail) == which;
}

int stencilCudaMemcpyDtoH(void *dst, const void *src, size_t bytes) {
  if (!isDevice(src) || isDevice(dst) || failing(1))
    return 1;
  memcpy(dst, src, bytes);
  ++toHost;
  return 0;
}

int stencilCudaMemcpyHtoD(void *dst, const void *src, size_t bytes) {
  if (isDevice(src) || !isDevice(dst) || failing(2))
    return 1;
  memcpy(dst, src, bytes);
  ++toDevice;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = (int)stencil_mpi_enter(NULL, 2);
  int peer = 1 - rank, bad = 0;
  int staging = getenv("STENCIL_MPI_CUDA_AWARE") == NULL;
  const int sizes[3] = {40, 4000, 400};
  char *send = arena, *recv = arena + sizeof(arena) / 2;
  for (int round = 0; round < 6; ++round) {
    int n = sizes[round % 3];
    for (int i = 0; i < n; ++i)
      send[i] = (char)(rank * 31 + round * 7 + i);
    memset(recv, 0, (size_t)n);
    stencil_mpi_irecv((int64_t)(intptr_t)recv, n, peer, round);
    stencil_mpi_isend((int64_t)(intptr_t)send, n, peer, round);
    if (staging && toDevice != round) /* it reaches the device at the wait */
      bad = 1;
    stencil_mpi_waitall();
    for (int i = 0; i < n; ++i)
      bad |= recv[i] != (char)(peer * 31 + round * 7 + i);
  }
  printf("rank %d: %s, %ld to the host, %ld to the device, %lld bytes staged\n", rank,
         bad ? "WRONG" : "received what was sent", toHost, toDevice,
         (long long)stencil_mpi_staged_bytes());
  MPI_Finalize();
  return bad;
}
