# RUN: %python %s
# Programs of stencil.randomgen --emulate-gpu that the GPU mapping once got
# wrong, through the emulated GPU code with the race check and the threads
# in reverse, against their CPU lowering, bit for bit.
#
# inter-tile-reuse-h1.mlir (seed 4601, program 139): inter-tile reuse
# (promotion step f) with full tiles isolated, hexagons of height 1 and
# width 6, and threads along x that divide the parallelogram width. Phase 1
# has a single hexagonal tile, so isl drops its block loop and the walk's
# regions (partial tile, the loop of isolated full tiles, partial tile)
# follow each other in a block node. Each region was a launch of its own,
# and the first tile of a region moved what the previous tile had left in
# another launch's shared memory (wrong rows). They now share one launch.
#
# barrier-thread-guard.mlir (seed 4702, program 66): isl put a step's
# barrier inside the guard of a statement's thread filter, a condition on
# thread ids that holds for every thread wherever the barrier runs. The
# emulation refused it ("barrier under thread-dependent control flow");
# such a guard is now evaluated for thread 0.
#
# negative-dividend.mlir (seed 4702, program 148): isl divides with its
# "non-negative dividend" division in the bounds of a loop that is empty for
# some outer iterations, where the dividend is negative. Translated as an
# unsigned division, such a bound was near 2^64 / 9 and the kernel hung;
# it is a floor division now. (A hang ends the test: SIGALRM.)
#
# split-grid-y-tile.mlir (seed 5806, programs 73, 75 and 94, reduced): split
# tiling in 3D, whose colors map their second tile dimension to the blocks
# along y. A value computed at the y tile's last instance (r1 at row 1, from
# r0 at row 0, both in tile 0) was in no loop over the y tiles: isl put it
# after the loop of r0's tiles -1 and 0, and that code ran on block y = 0
# while tile 0 ran on block 1, which had not written r0 yet (an
# uninitialized read). Tile y now runs on block floormod(y, grid size) in
# every loop over the member and outside them.
#
# split-grid-y-inner-iterator.mlir (seed 5901, program 122): there, the y
# tile that isl fixed for a piece outside the loops over it is expressed
# (at the statement) with the iterators of loops inside that piece, so the
# test of the block is made at each statement and barrier instead.
#
# Each also through stencil-opt --mlir-disable-threading, where the code
# generator builds the AST of the whole tree at once instead of the
# kernels' ASTs in parallel.
import os
import signal
import stat
import tempfile
from pathlib import Path

import numpy as np

from stencil.compiler import compile_file, find_stencil_opt
from stencil.runtime import StencilLibrary

inputs = Path(__file__).parent / "Inputs"
CASES = [
    ("inter-tile-reuse-h1.mlir", "rnd139", (14, 18), np.float64,
     "hex-tile=h=1 widths=6,5 isolate=true offset=0",
     "threads=1,8 promote=copy inter-tile-reuse=true"),
    ("barrier-thread-guard.mlir", "rnd66", (17, 21), np.float32,
     "hex-tile=h=2 widths=8,5 isolate=true offset=4",
     "threads=2,2 promote=none shared-budget=1024 inter-tile-reuse=true"),
    ("negative-dividend.mlir", "rnd148", (11, 12, 11), np.float32,
     "hex-tile=h=5 widths=5,1,7 offset=1",
     "threads=1,4,6 promote=none shared-budget=49152 inter-tile-reuse=true"),
    ("split-grid-y-tile.mlir", "k", (3, 4, 3), np.float32, "split-tile", ""),
    ("split-grid-y-inner-iterator.mlir", "rnd122", (15, 11, 19), np.float64,
     "split-tile", ""),
]


def run(path, name, shape, dtype, workdir, passes=(), **options):
    compiled = compile_file(str(path), workdir=workdir, extra_passes=passes, **options)
    rng = np.random.default_rng(0)
    fields = [rng.random(shape).astype(dtype) for _ in range(2)]
    StencilLibrary(compiled).call(name, *fields)
    return fields


signal.alarm(900)
with tempfile.TemporaryDirectory() as tmp:
    sequential = Path(tmp) / "stencil-opt-sequential"
    sequential.write_text(f"#!/bin/sh\nexec {find_stencil_opt()} --mlir-disable-threading \"$@\"\n")
    sequential.chmod(sequential.stat().st_mode | stat.S_IXUSR)
    chosen = os.environ.get("STENCIL_OPT")
    for i, (file, name, shape, dtype, tiling, mapping) in enumerate(CASES):
        want = run(inputs / file, name, shape, dtype, f"{tmp}/ref{i}")
        for how in ("parallel", "sequential"):
            if how == "sequential":
                os.environ["STENCIL_OPT"] = str(sequential)
            got = run(inputs / file, name, shape, dtype, f"{tmp}/gpu{i}-{how}", (tiling,),
                      emulate_gpu=True, gpu_options=mapping, race_check=True,
                      reverse_threads=True)
            if chosen is None:
                os.environ.pop("STENCIL_OPT", None)
            else:
                os.environ["STENCIL_OPT"] = chosen
            assert all(np.array_equal(a, b) for a, b in zip(want, got)), (file, how)
            print(f"ok {file} ({how} kernel ASTs)")
