# RUN: %python %s %t
# --fuse as a new user would run it: the multi-apply examples (laplap,
# hdiff, fdtd-2d: intermediates in tile-local buffers) with the model's
# sizes (OpenMP) and small sizes (many partial tiles, sequential), and
# through the GPU mapping (buffers in shared memory) with the race check
# and the threads in reverse; the staggered elastic Devito forms (fields
# only: the velocity and stress updates in two groups), on the CPU and
# through the GPU mapping; two examples composed with --hex-tile (time
# loops stay hex-tiled) and the sweeps fused; a sweep that reads a field it
# stores later (two nests, one of a single statement), on the CPU and
# through the GPU mapping: each bit for bit against its numpy reference.
import os
import sys
from pathlib import Path

import numpy as np

from stencil import benchmarks
from stencil import devito_forms as df
from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

workdir = Path(sys.argv[1])
os.makedirs(workdir, exist_ok=True)
examples = Path(__file__).parents[2] / "examples"
for name, small in (("laplap", "tile=5,7"), ("hdiff", "tile=3,5,16"),
                    ("fdtd2d", "tile=7,5")):
    path = str(examples / f"{name}.mlir")
    for passes, openmp in ((("fuse",), True), ((f"fuse={small}",), False)):
        assert benchmarks.check_file(path, openmp=openmp, verbose=False,
                                     extra_passes=passes) == 0, (name, passes)
    assert benchmarks.check_file(path, openmp=False, verbose=False,
                                 extra_passes=("fuse",), emulate_gpu=True,
                                 race_check=True, reverse_threads=True) == 0, name
    print(f"ok {name}: fused (model, {small}, GPU mapping emulated, no race)")
for family, order, shape, steps in (("elastic2d", 4, (13, 11), 3),
                                    ("elastic3d", 2, (9, 7, 5), 3)):
    prog = df.make(family, order, shape, steps)
    df.write_program(prog, workdir)
    df.check_program(prog, workdir / "cpu", (True,), seed=5, xdsl=False,
                     extra_passes=("fuse",))
    df.check_program(prog, workdir / "gpu", (False,), seed=6, xdsl=False,
                     extra_passes=("fuse",), emulate_gpu=True)
    print(f"ok {prog.name}: fused, CPU and GPU mapping emulated")
for name in ("hdiff", "fdtd2d"):
    assert benchmarks.check_file(str(examples / f"{name}.mlir"), openmp=True,
                                 verbose=False,
                                 extra_passes=("hex-tile", "fuse")) == 0, name
    print(f"ok {name}: --hex-tile --fuse")
# %b is read (at offsets) before the sweep stores into it; on a GPU each
# nest is a kernel, generated alone.
path = Path(__file__).parent / "Inputs" / "fuse_field_read_before_store.mlir"
rng = np.random.default_rng(7)
a, b, c = (rng.random((18, 10)) for _ in range(3))
want_b, want_c = b.copy(), c.copy()
want_b[1:17, 1:9] = a[1:17, 1:9] + a[2:18, 1:9]
want_c[1:17, 1:9] = b[0:16, 1:9] - b[1:17, 2:10]
for passes, gpu in ((("fuse",), False), (("fuse",), True),
                    (("fuse=tile=4,4",), True), (("fuse=tile=3,5",), True)):
    checks = dict(emulate_gpu=True, race_check=True,
                  reverse_threads=True) if gpu else {}
    lib = StencilLibrary(compile_file(str(path), workdir=workdir,
                                      extra_passes=passes, **checks))
    fields = [a.copy(), b.copy(), c.copy()]
    lib.call("read_before_store", *fields)
    assert np.array_equal(fields[1], want_b) and np.array_equal(
        fields[2], want_c), (passes, gpu)
    print(f"ok read_before_store: {passes[0]}"
          + (" (GPU mapping emulated, no race)" if gpu else ""))
print("ok fused programs")
