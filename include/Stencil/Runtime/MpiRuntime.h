/*===- MpiRuntime.h - halo exchanges of distributed stencil programs -*- C
 *-*-===
 *
 * libStencilMpi.so is called by the code `--stencil-distribute` and
 * `--convert-stencil-to-loops` generate: the entry point of a distributed
 * function calls stencil_mpi_enter with the caller's communicator, and every
 * halo exchange posts its receives and sends, then waits for all of them.
 * Messages are bytes (MPI_BYTE): the generated code needs no MPI type or
 * handle of a particular MPI implementation. MPI must be initialized by the
 * caller (MPI_Init, or importing mpi4py).
 *
 * GPU programs (--convert-to-gpu) exchange buffers in device memory. By
 * default they are staged through host memory: a send copies the buffer to
 * the host before MPI_Isend, a receive lands in host memory and is copied to
 * the device by stencil_mpi_waitall (through libStencilCudaRuntime, which
 * such a program links). With $STENCIL_MPI_CUDA_AWARE=1 (read by
 * stencil_mpi_enter) device pointers go to MPI as they are, for an MPI built
 * with CUDA support.
 *
 * The communicator and the counters are global to the process: one
 * distributed function runs at a time (calls from several threads at once
 * are not supported).
 *
 *===------------------------------------------------------------------------===*/

#ifndef STENCIL_RUNTIME_MPIRUNTIME_H
#define STENCIL_RUNTIME_MPIRUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes *comm (an MPI_Comm; null: MPI_COMM_WORLD) the communicator of the
 * exchanges and returns this process's rank in it. Fails (message on
 * stderr, then MPI_Abort, or exit(1) without MPI) when MPI is not
 * initialized or the communicator's size is not `ranks`, the number of
 * ranks the program was distributed over. */
int64_t stencil_mpi_enter(const void *comm, int64_t ranks);

/* grid=auto: the grid MPI_Dims_create chooses for the size of *comm (null:
 * MPI_COMM_WORLD) over `ndims` dimensions, encoded with 20 bits per
 * dimension, the first lowest (-1 when a dimension does not fit). Fails like
 * stencil_mpi_enter without MPI. */
int64_t stencil_mpi_grid_code(const void *comm, int64_t ndims);

/* grid=auto: fails for the grid `code` encodes, which the program was not
 * compiled for; `compiled` lists the grids it was. */
void stencil_mpi_no_grid(int64_t code, int64_t ndims, const char *compiled);

/* This process's rank in the current communicator. */
int64_t stencil_mpi_rank(void);

/* The rank a halo exchange of a grid of `ranks` processes runs as: the rank
 * in the current communicator, or, when no distributed function entered one
 * (a program distributed by xDSL has no dispatcher), stencil_mpi_enter(null,
 * ranks) on MPI_COMM_WORLD with its checks. */
int64_t stencil_mpi_grid_rank(int64_t ranks);

/* Non-blocking receive / send of `bytes` bytes at `buffer` from / to rank
 * `peer` (-1: no neighbour, nothing moves) with tag `tag`. */
void stencil_mpi_irecv(int64_t buffer, int64_t bytes, int64_t peer, int64_t tag);
void stencil_mpi_isend(int64_t buffer, int64_t bytes, int64_t peer, int64_t tag);

/* Waits for every receive and send posted since the last call. */
void stencil_mpi_waitall(void);

/* Messages and bytes this process has sent since the last reset (messages
 * to no neighbour do not count), and the number of exchanges (waitall
 * calls). */
void stencil_mpi_counters(int64_t *messages, int64_t *bytes, int64_t *exchanges);
void stencil_mpi_reset_counters(void);

/* Bytes staged through host memory since the last reset (sent and
 * received; 0 for CPU programs and with $STENCIL_MPI_CUDA_AWARE=1). */
int64_t stencil_mpi_staged_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* STENCIL_RUNTIME_MPIRUNTIME_H */
