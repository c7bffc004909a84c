"""Runs a program that xDSL distributed (one rank per block of its grid,
every rank's fields of the global type with its block at the domain's
coordinates, the domain starting at 0) under mpirun, and compares the
gathered cores with the single-process run of the original program, bit for
bit, field by field.

    mpirun -np N python3 xdsl_distributed_run.py DISTRIBUTED.mlir ORIGINAL.mlir \
        FUNCTION SLICES WORKDIR [cpu|openmp|emulate-gpu] [EXTRA.c ...]

SLICES is xDSL's `slices` option (e.g. 2,2 or 2,1,2): the rank count of each
leading dimension, the last one fastest. Field bounds and the rank's core
come from the distributed program's text (the function's field types and
the box of its stores). Arguments that are not fields (Devito's timers) get
a zeroed buffer; EXTRA.c files (their definitions) are linked in.
"""
import re
import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary


def abort_all(kind, value, traceback):
    """An exception on one rank ends every rank (the others would wait for it
    in a collective forever)."""
    sys.__excepthook__(kind, value, traceback)
    MPI.COMM_WORLD.Abort(1)


sys.excepthook = abort_all

distributed, original, function, slices, workdir = sys.argv[1:6]
mode = sys.argv[6] if len(sys.argv) > 6 else "cpu"
extra = sys.argv[7:]
slices = [int(s) for s in slices.split(",")]
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
assert comm.Get_size() == int(np.prod(slices)), "one rank per block"

text = Path(distributed).read_text()
signature = re.search(rf"func\.func @{function}\((.*?)\)\s*{{", text).group(1)
# Per argument: the field's (lb, ub) per dimension, None for other types.
fields = [[tuple(int(v) for v in d.split(",")) for d in re.findall(r"\[(-?\d+,-?\d+)\]", t)]
          if t else None
          for t in re.findall(r"%\w+\s*:\s*(?:!stencil\.field<([^>]*)>|[^,]+)", signature)]
dtype = np.float32 if "xf32>" in signature else np.float64
store = re.search(r"stencil\.store .*?\(<\[([-\d, ]+)\], \[([-\d, ]+)\]>\)", text)
core = [int(v) for v in store.group(2).split(",")]
assert all(int(v) == 0 for v in store.group(1).split(",")), "the domain starts at 0"

# Rank 0 compiles (every rank runs the same library).
work = Path(workdir)
compiled = None
if rank == 0:
    compiled = compile_file(distributed, workdir=work / "dist", openmp=mode == "openmp",
                            emulate_gpu=mode == "emulate-gpu", extra_sources=extra)
lib = StencilLibrary(comm.bcast(compiled, root=0))

rng = np.random.default_rng(7)
glob = [rng.standard_normal([ub - lb for lb, ub in f]).astype(dtype) if f
        else np.zeros(4096, np.uint8) for f in fields]
if rank == 0:
    ref = [a.copy() for a in glob]
    StencilLibrary(compile_file(original, workdir=work / "ref", extra_sources=extra)).call(
        function, *ref)

# This rank's grid coordinates (row-major, last fastest) and block origin.
coords = list(np.unravel_index(rank, slices)) + [0] * (len(core) - len(slices))
origin = [c * n for c, n in zip(coords, core)]


def window(bounds):
    """Local array slice and global array slice of this rank's block, halo
    included: local coordinates lb..core+(ub-N), N the global domain's end."""
    local, glob_ = [], []
    for d, (lb, ub) in enumerate(bounds):
        n = core[d] * (slices[d] if d < len(slices) else 1)
        width = core[d] + (ub - n) - lb
        local.append(slice(0, width))
        glob_.append(slice(origin[d], origin[d] + width))
    return tuple(local), tuple(glob_)


local = []
for g, bounds in zip(glob, fields):
    a = np.zeros_like(g)
    if bounds:
        lw, gw = window(bounds)
        a[lw] = g[gw]
    local.append(a)
lib.call(function, *local)


def core_slices(bounds, offset):
    return tuple(slice(offset[d] - lb, offset[d] - lb + core[d]) for d, (lb, _) in enumerate(bounds))


cores = comm.gather([a[core_slices(b, [0] * len(core))] if b else None
                     for a, b in zip(local, fields)], root=0)
if rank == 0:
    for f, bounds in enumerate(fields):
        if not bounds:
            continue
        got = glob[f].copy()
        for r, blocks in enumerate(cores):
            rc = list(np.unravel_index(r, slices)) + [0] * (len(core) - len(slices))
            got[core_slices(bounds, [c * n for c, n in zip(rc, core)])] = blocks[f]
        same = np.array_equal(got, ref[f]) and got.tobytes() == ref[f].tobytes()
        print(f"{mode} field {f}: gathered == single process: {'PASS' if same else 'FAIL'}")
