"""Runs a program that xDSL distributed over a PxQ grid (one rank per block,
every rank's fields of the global type with its block at the domain's
coordinates) under mpirun, and compares the gathered cores with the
single-process run of the original program, bit for bit.

    mpirun -np P*Q python3 xdsl_distributed_run.py DISTRIBUTED.mlir ORIGINAL.mlir \
        FUNCTION P Q WORKDIR [cpu|openmp|emulate-gpu]
"""
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

distributed, original, function, p, q, workdir = sys.argv[1:7]
mode = sys.argv[7] if len(sys.argv) > 7 else "cpu"
p, q = int(p), int(q)
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
assert comm.Get_size() == p * q, "one rank per block"
work = Path(workdir) / f"rank{rank}"
lib = StencilLibrary(compile_file(distributed, workdir=work / "dist", openmp=mode == "openmp",
                                  emulate_gpu=mode == "emulate-gpu"))

# The global fields (halo 1 around 64x64) and the single-process result.
rng = np.random.default_rng(7)
glob = [rng.standard_normal((66, 66)) for _ in range(2)]
if rank == 0:
    ref = [a.copy() for a in glob]
    StencilLibrary(compile_file(original, workdir=work / "ref")).call(function, *ref)

# This rank's block: rows and columns -1..33 of its core at the domain's
# coordinates (array index = coordinate + 1), the rest of the arrays unused.
bx, by = 64 // p, 64 // q
ci, cj = divmod(rank, q)
local = []
for g in glob:
    a = np.zeros((66, 66))
    a[: bx + 2, : by + 2] = g[ci * bx: ci * bx + bx + 2, cj * by: cj * by + by + 2]
    local.append(a)
lib.call(function, *local)
cores = comm.gather([a[1: bx + 1, 1: by + 1] for a in local], root=0)
if rank == 0:
    for f in range(2):
        got = glob[f].copy()
        for r, blocks in enumerate(cores):
            i, j = divmod(r, q)
            got[1 + i * bx: 1 + (i + 1) * bx, 1 + j * by: 1 + (j + 1) * by] = blocks[f]
        same = np.array_equal(got.view(np.int64), ref[f].view(np.int64))
        print(f"{mode} field {f}: gathered == single process: {'PASS' if same else 'FAIL'}")
