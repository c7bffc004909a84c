# RUN: %python %s %t
# Every Devito-form program (python/stencil/devito_forms.py: heat, acoustic
# and damped wave with three time buffers, coupled systems reading new and
# stale values, staggered elastic 2D/3D, space orders 2-8) is hex-tiled as a
# new user would (defaults, OpenMP) and must match its numpy reference bit for
# bit; the families with at most two statements per step also with small
# random tile sizes (many full and partial tiles; the staggered ones get those
# in the random programs of hex-tile-random.test, and exact verification of
# their 5-9 statements per step takes seconds per tiling).
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
    # Tiled for real: the schedule has the two phases, and nothing is left
    # untiled with a warning.
    tiled = subprocess.run([find_stencil_opt(), str(path), "--hex-tile"],
                           capture_output=True, text=True, check=True)
    assert "sequence" in tiled.stdout and "warning" not in tiled.stderr, \
        (prog.name, tiled.stderr)
    df.check_program(prog, workdir, (True,), seed=5, xdsl=False,
                     extra_passes=("hex-tile",))
    if family.startswith("elastic"):
        print(f"ok {prog.name} hex-tiled (defaults)")
        continue
    options, _ = random_hex_options(rng, path, len(shape))
    df.check_program(prog, workdir, (False,), seed=6, xdsl=False,
                     extra_passes=(f"hex-tile={options}",))
    print(f"ok {prog.name} hex-tiled (defaults, and {options})")
print("ok all devito forms hex-tiled")
