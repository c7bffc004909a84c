# RUN: %python %s %t
# The C loop nests in PolyBench's form (cgen.py polybench=True: two steps per
# iteration on fixed buffers, the form Polly analyzes, used by
# bench/tiling_bench.py --polly) compute the same bits as the pointer-swapping
# form bench/cpu_bench.py times and checks against our code: every time-loop
# benchmark, f32 and f64, even and odd step counts.
import ctypes
import subprocess
import sys
from pathlib import Path

import numpy as np

from stencil import benchmarks as B
from stencil import cgen

work = Path(sys.argv[1])
work.mkdir(parents=True, exist_ok=True)


def run(name, shape, steps, ety, polybench):
    src = work / f"{name}-{ety}-{steps}-{int(polybench)}.c"
    src.write_text(cgen.generate_c(name, shape, steps, ety, polybench=polybench))
    lib = src.with_suffix(".so")
    subprocess.run(["cc", "-O2", "-ffp-contract=off", "-fPIC", "-shared", "-o", str(lib),
                    str(src)], check=True)
    fields = B.make_inputs(name, shape, ety, seed=3)
    spec = B.BENCHMARKS[name]
    fn = getattr(ctypes.CDLL(str(lib)), cgen.c_symbol(name))
    fn.restype = None
    fn(*[ctypes.c_void_p(fields[f].ctypes.data) for f in spec.fields])
    return fields


count = 0
for name, spec in sorted(B.BENCHMARKS.items()):
    if not spec.time_loop:
        continue
    shape = (13,) * spec.rank
    for ety in ("f32", "f64"):
        for steps in (4, 5):
            swap = run(name, shape, steps, ety, False)
            poly = run(name, shape, steps, ety, True)
            for f in spec.fields:
                assert np.array_equal(swap[f], poly[f]), (name, ety, steps, f)
            count += 1
print(f"ok {count} programs: PolyBench form == swapping form")
