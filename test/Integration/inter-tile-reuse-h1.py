# RUN: %python %s
# Inter-tile reuse (promotion step f) with full tiles isolated, hexagons of
# height 1 and width 6, and threads along x that divide the parallelogram
# width (1 or 5 here; 2-4 leave reuse off): phase 1 has a single hexagonal
# tile, so isl drops its block loop and the walk's regions (partial tile,
# the loop of isolated full tiles, partial tile) follow each other in a
# block node. Each region was a launch of its own, and the first tile of a
# region moved what the previous tile left in another launch's shared
# memory. The regions now share one launch (found by stencil.randomgen
# --hex-tile --emulate-gpu --seed 4601 --count 150).
import tempfile
from pathlib import Path

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

path = Path(__file__).parent / "Inputs" / "inter-tile-reuse-h1.mlir"
shape = (14, 18)


def run(workdir, passes=(), **options):
    compiled = compile_file(str(path), workdir=workdir, extra_passes=passes, **options)
    rng = np.random.default_rng(0)
    fields = [rng.random(shape) for _ in range(2)]
    StencilLibrary(compiled).call("rnd139", *fields)
    return fields


with tempfile.TemporaryDirectory() as tmp:
    want = run(f"{tmp}/ref")
    got = run(f"{tmp}/reuse", ("hex-tile=h=1 widths=6,5 isolate=true offset=0",),
              emulate_gpu=True,
              gpu_options="threads=1,8 promote=copy inter-tile-reuse=true")
    assert all(np.array_equal(a, b) for a, b in zip(want, got)), "differs"
    print("ok")
