# RUN: %python %s %t
# --fuse as a new user would run it: the multi-apply examples (laplap,
# hdiff, fdtd-2d: intermediates in tile-local buffers) with the model's
# sizes (OpenMP) and small sizes (many partial tiles, sequential), and
# through the GPU mapping (buffers in shared memory) with the race check
# and the threads in reverse; the staggered elastic Devito forms (fields
# only: the velocity and stress updates in two groups), on the CPU and
# through the GPU mapping; two examples composed with --hex-tile (time
# loops stay hex-tiled) and the sweeps fused: each bit for bit against its
# numpy reference.
import os
import sys
from pathlib import Path

from stencil import benchmarks
from stencil import devito_forms as df

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
print("ok fused programs")
