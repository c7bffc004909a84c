# RUN: %python %s
# Every example with a time loop split-tiled with the default sizes (OpenMP)
# and with small random sizes (sequential, many partial tiles), and a 1D, 2D,
# 3D and a five-statement example through the GPU mapping with poly-to-gpu's
# GPU sizes (one launch per color, shared-memory promotion, asked for in 3D
# where promote=auto leaves the arrays in global memory; a 3D color's second
# tile dimension over the grid's y), their kernels
# emulated on the CPU with the race check and the threads in reverse: each
# bit for bit against its numpy reference.
import random
import subprocess
from pathlib import Path

from stencil import benchmarks
from stencil.compiler import find_stencil_opt
from stencil.randomgen import random_split_options

examples = [p for p in sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))
            if "iter_args" in p.read_text()]
assert len(examples) == 12, examples
rng = random.Random(5)
for path in examples:
    out = subprocess.run([find_stencil_opt(), str(path), "--split-tile"],
                         capture_output=True, text=True, check=True)
    assert "sequence" in out.stdout and "warning" not in out.stderr, (path, out.stderr)
    rank = out.stdout.split("poly.stmt @S0")[1].split("]")[0].count(",")
    options, _ = random_split_options(rng, path, rank)
    for passes, openmp in ((("split-tile",), True), ((f"split-tile={options}",), False)):
        status = benchmarks.check_file(str(path), openmp=openmp, verbose=False,
                                       extra_passes=passes)
        assert status == 0, (path, passes)
    print(f"ok {path.name}: split-tiled (defaults, and {options})")
for name in ("jacobi1d_5pt", "jacobi2d", "heat3d", "fdtd2d"):
    path = Path(__file__).parents[2] / "examples" / f"{name}.mlir"
    status = benchmarks.check_file(str(path), openmp=False, verbose=False,
                                   extra_passes=("split-tile",), emulate_gpu=True,
                                   race_check=True, reverse_threads=True,
                                   gpu_options="promote=interleaved")
    assert status == 0, path
    print(f"ok {name}: split-tiled GPU kernels emulated, no race")
print("ok all examples split-tiled")
