# RUN: %python %s %t
# Every Devito-form program (python/stencil/devito_forms.py: heat, acoustic
# and damped wave with three time buffers, coupled systems reading new and
# stale values, staggered elastic 2D/3D, space orders 2-8) is hex-tiled as a
# new user would (defaults) and must match its numpy reference bit for
# bit, and with small random tile sizes (many full and partial tiles, OpenMP;
# for the staggered schemes, with 5-9 statements per step, the smallest time
# tile and, in 3D, order 2 only, as exact verification takes seconds there).
import os
import random
import subprocess
import sys

from stencil import devito_forms as df
from stencil.compiler import find_stencil_opt
from stencil.randomgen import random_hex_options

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
rng = random.Random(7)
for family, order, shape, steps in df.SUITE:
    prog = df.make(family, order, shape, steps)
    path = df.write_program(prog, __import__("pathlib").Path(workdir))
    # Tiled for real: the time loop becomes a scop (--hex-tile fails with
    # an error when it cannot tile a scop) and nothing is left with a warning.
    poly = subprocess.run([find_stencil_opt(), str(path), "--stencil-to-poly"],
                          capture_output=True, text=True, check=True)
    assert "poly.scop steps" in poly.stdout and "warning" not in poly.stderr, \
        (prog.name, poly.stderr)
    df.check_program(prog, workdir, (False,), seed=5, xdsl=False,
                     extra_passes=("hex-tile",))
    if family == "elastic3d" and order > 2:
        # 9 statements per step: each exact verification takes seconds.
        print(f"ok {prog.name} hex-tiled (defaults)")
        continue
    options, _ = random_hex_options(rng, path, len(shape),
                                    1 if family.startswith("elastic") else 3)
    df.check_program(prog, workdir, (True,), seed=6, xdsl=False,
                     extra_passes=(f"hex-tile={options}",))
    print(f"ok {prog.name} hex-tiled (defaults, and {options})")
print("ok all devito forms hex-tiled")
