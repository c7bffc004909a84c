# RUN: %python %s
# Promoted accesses are built relative to another access of the statement
# only when they differ by one constant everywhere: a read of a rotating
# buffer whose time level is the write's +1 in one kernel and -1 in the
# other once read level 2 of a two-level buffer (wrong results, no race).
# The program through the emulated GPU mapping with every promotion mode
# equals its CPU lowering bit for bit.
import tempfile
from pathlib import Path

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

path = Path(__file__).parent / "Inputs" / "promoted-time-levels.mlir"
shape = (13, 20)


def run(workdir, passes=(), **options):
    compiled = compile_file(str(path), workdir=workdir, extra_passes=passes, **options)
    rng = np.random.default_rng(0)
    fields = [rng.random(shape).astype(np.float32) for _ in range(2)]
    StencilLibrary(compiled).call("rnd22", *fields)
    return fields


with tempfile.TemporaryDirectory() as tmp:
    want = run(f"{tmp}/ref")
    for promote in ("copy", "interleaved"):
        got = run(f"{tmp}/{promote}", ("hex-tile=h=1 widths=4,20 isolate=false",),
                  emulate_gpu=True, gpu_options=f"threads=1,1 promote={promote}",
                  race_check=True, reverse_threads=True)
        assert all(np.array_equal(a, b) for a, b in zip(want, got)), promote
        print(f"ok promote={promote}")
