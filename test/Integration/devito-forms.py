# RUN: %python %s %t
# Programs in exactly the form Devito's xDSL backend emits (see
# python/stencil/devito_forms.py): heat 1D/2D/3D, acoustic and damped wave
# (3 time buffers, velocity model and damping as plain field arguments),
# coupled systems reading a new value through the load after the store (and
# a stale one before it), staggered elastic 2D and 3D, at space orders 2, 4
# and 8. Every program must parse in xDSL (when xdsl-opt is installed),
# compile unchanged (the unused load after the last store of a step
# included), and match its numpy reference bit for bit, sequential and with
# OpenMP.
import os
import sys

from stencil import devito_forms as df

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)

# The references are the PDEs they claim to be (float64 textbook versions).
df.selftest()

covered = set()
paths = []
for family, order, shape, steps in df.SUITE:
    prog = df.make(family, order, shape, steps)
    text = prog.mlir()
    # The form itself: an unused load of the stored field ends every step,
    # and every time buffer rotates through the loop.
    loop_tail = text.split("scf.yield")[0].rstrip().splitlines()[-1]
    assert "= stencil.load" in loop_tail, loop_tail
    assert text.count("stencil.store") == len(prog.equations), prog.name
    assert text.count("stencil.apply") == len(prog.equations), prog.name
    paths.append(df.check_program(prog, workdir, (False, True), seed=3, xdsl=False))
    covered.add((family, order))

for family in df.FAMILIES:
    orders = sorted(o for f, o in covered if f == family)
    assert orders == [2, 4, 8] or family == "coupled-stale", (family, orders)

parsed = df.xdsl_parses(paths)
if parsed is None:
    print("xdsl-opt not installed: xDSL parse check skipped")
else:
    assert parsed[0], parsed[1]
    print(f"ok xdsl-opt parses all {len(paths)} programs")
print("ok all devito forms")
