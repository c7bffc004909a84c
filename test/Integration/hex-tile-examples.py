# RUN: %python %s
# Every example hex-tiled with the default sizes (OpenMP) and with small
# random sizes (sequential), checked bit for bit against its numpy
# reference, which the untiled lowering also matches.
import random
import subprocess
from pathlib import Path

from stencil import benchmarks
from stencil.compiler import find_stencil_opt
from stencil.randomgen import random_hex_options

# The examples with a time loop (hdiff and laplap are single sweeps).
examples = [p for p in sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))
            if "iter_args" in p.read_text()]
assert len(examples) == 12, examples
rng = random.Random(3)
for path in examples:
    out = subprocess.run([find_stencil_opt(), str(path), "--hex-tile"],
                         capture_output=True, text=True, check=True)
    assert "sequence" in out.stdout and "warning" not in out.stderr, (path, out.stderr)
    rank = out.stdout.split("poly.stmt @S0")[1].split("]")[0].count(",")
    options, _ = random_hex_options(rng, path, rank)
    for passes, openmp in ((("hex-tile",), True), ((f"hex-tile={options}",), False)):
        status = benchmarks.check_file(str(path), openmp=openmp, verbose=False,
                                       extra_passes=passes)
        assert status == 0, (path, passes)
    print(f"ok {path.name}: hex-tiled (defaults, and {options})")
print("ok all examples hex-tiled")
