# RUN: %python %s %t
# Blocked thread points (`thread-points=blocked`) on a hex-tiled 2D time loop
# whose step count is a run-time value, in the GPU emulation with the race
# check: the two hexagonal phases' intra-tile coordinates start at different
# values (one at 5, the other at 0), and each phase's threads must take
# their rows from its own start. With the offset of all phases together, the
# threads of one phase covered none of its points, which kept their old
# values (found by a new-user campaign). Equal to the untiled code for
# several step counts and grids.
import sys
from pathlib import Path

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

work = Path(sys.argv[1])
work.mkdir(parents=True, exist_ok=True)
libs = {}
for nx, ny in ((2, 2), (13, 11)):
    src = work / f"shift_{nx}x{ny}.mlir"
    f = f"!stencil.field<[-1,{nx + 1}]x[-1,{ny + 1}]xf32>"
    src.write_text(f"""
func.func @shift(%a : {f}, %b : {f}, %n : index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> ({f}, {f}) {{
    %u = stencil.load %x : {f} -> !stencil.temp<?x?xf32>
    %o = stencil.apply(%v = %u : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {{
      %w = stencil.access %v[-1, 0] : !stencil.temp<?x?xf32>
      %e = stencil.access %v[1, 0] : !stencil.temp<?x?xf32>
      %s = stencil.access %v[0, 1] : !stencil.temp<?x?xf32>
      %p = arith.addf %w, %e : f32
      %q = arith.addf %p, %s : f32
      stencil.return %q : f32
    }}
    stencil.store %o to %y(<[0, 0], [{nx}, {ny}]>) : !stencil.temp<?x?xf32> to {f}
    scf.yield %y, %x : {f}, {f}
  }}
  return
}}
""")
    for name, options in (("untiled", {}),
                          ("blocked", dict(extra_passes=("hex-tile",), emulate_gpu=True,
                                           race_check=True, gpu_options="thread-points=blocked")),
                          ("blocked-small", dict(extra_passes=("hex-tile=h=1 widths=2,4",),
                                                 emulate_gpu=True, race_check=True,
                                                 gpu_options="thread-points=blocked threads=4,2"))):
        libs[(nx, ny, name)] = StencilLibrary(
            compile_file(src, workdir=work / f"{nx}x{ny}-{name}", **options))
rng = np.random.default_rng(0)
for nx, ny in ((2, 2), (13, 11)):
    inputs = [rng.random((nx + 2, ny + 2)).astype(np.float32) for _ in range(2)]
    for steps in (1, 2, 3, 8, 11):
        results = {}
        for name in ("untiled", "blocked", "blocked-small"):
            arrays = [x.copy() for x in inputs]
            libs[(nx, ny, name)].call("shift", *arrays, steps)
            results[name] = arrays
        for name, arrays in results.items():
            for i, (x, y) in enumerate(zip(arrays, results["untiled"])):
                assert np.array_equal(x, y), (nx, ny, steps, name, i, x, y)
        print(f"ok {nx}x{ny}, {steps} steps")
print("ok blocked thread points, dynamic steps")
