/* Calls examples/heat2d.mlir compiled with --distribute PxQ (P = Q = 0:
 * --distribute auto, the grid of MPI_Dims_create) from C, as
 * docs/distributed.md describes: every rank fills its local arrays (its
 * block and the library's halo H, zeros outside the global fields [-1, 65)
 * x [-1, 49)) from the formula of the global fields, calls the
 * entry point with a duplicate of MPI_COMM_WORLD, and prints the sum of the
 * bit patterns of its block of the result (u1 after 11 steps). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

void _mlir_ciface_heat2d(MemRef2D *u0, MemRef2D *u1, const MPI_Comm *comm);

static double initial(int64_t i, int64_t j, int which) {
  return (double)((i * 31 + j * 17 + which * 7 + 1000) % 101) / 101.0;
}

/* The block of coordinate c among p ranks over n points (docs/distributed.md). */
static void block(int64_t n, int64_t p, int64_t c, int64_t *lo, int64_t *hi) {
  int64_t base = n / p, rem = n % p;
  *lo = c * base + (c < rem ? c : rem);
  *hi = *lo + base + (c < rem);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  /* mpi_heat2d P Q H */
  int64_t grid[2] = {atoi(argv[1]), atoi(argv[2])}, n[2] = {64, 48};
  int64_t halo = atoi(argv[3]);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank, size, dims[2] = {0, 0};
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!grid[0]) {
    MPI_Dims_create(size, 2, dims);
    grid[0] = dims[0];
    grid[1] = dims[1];
  }
  int64_t c[2] = {rank / grid[1], rank % grid[1]}, lo[2], hi[2], shape[2];
  for (int d = 0; d < 2; ++d) {
    block(n[d], grid[d], c[d], &lo[d], &hi[d]);
    shape[d] = hi[d] - lo[d] + 2 * halo;
  }
  MemRef2D u[2];
  for (int w = 0; w < 2; ++w) {
    double *data = malloc(sizeof(double) * shape[0] * shape[1]);
    for (int64_t a = 0; a < shape[0]; ++a)
      for (int64_t b = 0; b < shape[1]; ++b) {
        int64_t i = lo[0] - halo + a, j = lo[1] - halo + b;
        int inside = i >= -1 && i < n[0] + 1 && j >= -1 && j < n[1] + 1;
        data[a * shape[1] + b] = inside ? initial(i, j, w) : 0.0;
      }
    u[w] = (MemRef2D){data, data, 0, {shape[0], shape[1]}, {shape[1], 1}};
  }
  _mlir_ciface_heat2d(&u[0], &u[1], &comm);
  uint64_t sum = 0;
  for (int64_t a = halo; a < shape[0] - halo; ++a)
    for (int64_t b = halo; b < shape[1] - halo; ++b) {
      uint64_t bits;
      memcpy(&bits, &u[1].aligned[a * shape[1] + b], sizeof bits);
      sum += bits;
    }
  printf("block %lld:%lld x %lld:%lld bits %llu\n", (long long)lo[0], (long long)hi[0],
         (long long)lo[1], (long long)hi[1], (unsigned long long)sum);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
