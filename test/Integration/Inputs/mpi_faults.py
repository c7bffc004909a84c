"""Faults of distributed runs, run under mpirun by distributed-cli.test:
    early-exit LIB  rank 1 exits before the call; the others wait in it
    ranks LIB       a 4-rank library called on this communicator, through
                    the Python API and (bypassing its check) the C entry
"""
import os
import pickle
import sys

import numpy as np
from mpi4py import MPI

from stencil import distributed
from stencil.runtime import StencilLibrary

mode, pickled = sys.argv[1], sys.argv[2]
with open(pickled, "rb") as f:
    compiled = pickle.load(f)
lib = StencilLibrary(compiled)
sig = next(iter(compiled.signatures.values()))
dec = sig.decomposition
comm = MPI.COMM_WORLD
shape = tuple(u - l for l, u in zip(dec.fields[0].lb, dec.fields[0].ub))
fields = [np.zeros(shape), np.zeros(shape)]
if mode == "early-exit":
    if comm.rank == 1:
        os._exit(3)
    distributed.call(lib, sig.name, *fields)
elif mode == "ranks":
    try:
        distributed.call(lib, sig.name, *fields)
    except ValueError as e:
        print(f"rank {comm.rank}: {e}", flush=True)
    comm.Barrier()
    local = [np.zeros(dec.local_shape(0, i)) for i in range(2)]
    lib.call(sig.name, *local, distributed.comm_pointer(None))
