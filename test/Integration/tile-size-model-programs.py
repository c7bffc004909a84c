# RUN: %python %s %t
# The tile-size model's sizes (model=true, hex and split, with small cache
# budgets so that the grids hold full tiles) on examples and on Devito forms
# whose choice the hybrid width condition shapes (coupled, elastic 2D/3D,
# 5-9 statements per step): bit for bit against the numpy reference.
import os
import re
import subprocess
import sys
from pathlib import Path

from stencil import benchmarks
from stencil import devito_forms as df
from stencil.compiler import find_stencil_opt

workdir = Path(sys.argv[1])
os.makedirs(workdir, exist_ok=True)
root = Path(__file__).parents[2]


def model_passes(path, tiling, kib):
    """The tiling pass with the model, and the sizes its report names, with
    the least budget from `kib` on (doubling) within which the model finds
    a tile (below it the fixed defaults are taken)."""
    while True:
        option = f"{tiling}=model=true report cache-kib={kib}"
        out = subprocess.run([find_stencil_opt(), str(path), f"--{option}", "-o", "/dev/null"],
                             capture_output=True, text=True, check=True)
        sizes = re.search(r"sizes h=(\d+) widths=([\d,]+) \(model\)", out.stderr)
        if sizes:
            return (option,), f"{sizes.group(0)} within {kib} KiB"
        assert "no tile within the budget" in out.stderr and kib < 4096, (path, out.stderr)
        kib *= 2


for name in ("jacobi1d_3pt", "jacobi2d", "fdtd2d", "heat3d", "laplace3d"):
    path = root / "examples" / f"{name}.mlir"
    for tiling in ("hex-tile", "split-tile"):
        passes, sizes = model_passes(path, tiling, 8)
        status = benchmarks.check_file(str(path), openmp=True, verbose=False,
                                       extra_passes=passes)
        assert status == 0, (path, passes)
        print(f"ok {name} {tiling}: {sizes}")

# Grids larger than the suite's (more tiles, some of them full).
for family, order, shape, steps in (("coupled", 4, (18, 14, 36), 6),
                                    ("elastic2d", 2, (40, 48), 11),
                                    ("elastic3d", 2, (12, 10, 34), 4)):
    prog = df.make(family, order, shape, steps)
    path = df.write_program(prog, workdir)
    for tiling in ("hex-tile", "split-tile"):
        passes, sizes = model_passes(path, tiling, 16)
        df.check_program(prog, str(workdir), (True,), seed=8, xdsl=False,
                         extra_passes=passes)
        print(f"ok {prog.name} {tiling}: {sizes}")
print("ok the model's sizes, bit for bit")
