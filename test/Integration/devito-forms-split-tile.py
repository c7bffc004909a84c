# RUN: %python %s %t
# Every Devito-form program (python/stencil/devito_forms.py: heat, acoustic
# and damped wave with three time buffers, coupled systems reading new and
# stale values, staggered elastic 2D/3D, space orders 2-8) split-tiled as a
# new user would (defaults, OpenMP), every other one also with small random
# sizes (many full and partial tiles, sequential), and every fourth one
# through the GPU mapping with poly-to-gpu's GPU sizes, its kernels emulated
# on the CPU: bit for bit against its numpy reference.
import os
import random
import sys
from pathlib import Path

from stencil import devito_forms as df
from stencil.randomgen import random_split_options

workdir = Path(sys.argv[1])
os.makedirs(workdir, exist_ok=True)
rng = random.Random(9)
for i, (family, order, shape, steps) in enumerate(df.SUITE):
    prog = df.make(family, order, shape, steps)
    path = df.write_program(prog, workdir)
    df.check_program(prog, workdir / "defaults", (True,), seed=5, xdsl=False,
                     extra_passes=("split-tile",))
    note = ""
    if i % 2:
        # Slopes up to the radius, order / 2, per canonical step.
        options, _ = random_split_options(rng, path, len(shape), 2, order // 2)
        df.check_program(prog, workdir / "random", (False,), seed=6, xdsl=False,
                         extra_passes=(f"split-tile={options}",))
        note += f", {options}"
    if i % 4 == 0:
        df.check_program(prog, workdir / "gpu", (False,), seed=7, xdsl=False,
                         extra_passes=("split-tile",), emulate_gpu=True)
        note = ", GPU mapping emulated"
    print(f"ok {prog.name} split-tiled (defaults{note})")
print("ok all devito forms split-tiled")
