# RUN: %python %s %t
# A program in the form Devito emits through xDSL: a time loop over fields,
# func.call to timer functions, an !llvm.ptr argument written with a
# generic-form llvm.store, and math.fpowi in the apply. It must parse, lower
# and run unchanged, and match numpy bit for bit.
import os
import sys

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

workdir = sys.argv[1]
os.makedirs(workdir, exist_ok=True)
program = """
builtin.module {
  func.func @Kernel(%u_vec_0 : !stencil.field<[-2,18]x[-2,14]xf32>, %u_vec_1 : !stencil.field<[-2,18]x[-2,14]xf32>, %timers : !llvm.ptr) {
    %0 = func.call @timer_start() : () -> f64
    %time_m = arith.constant 0 : index
    %time_M = arith.constant 6 : index
    %1 = arith.constant 1 : index
    %2 = arith.addi %time_M, %1 : index
    %step = arith.constant 1 : index
    %3, %4 = scf.for %time = %time_m to %2 step %step iter_args(%t0 = %u_vec_0, %t1 = %u_vec_1) -> (!stencil.field<[-2,18]x[-2,14]xf32>, !stencil.field<[-2,18]x[-2,14]xf32>) {
      %t0_temp = stencil.load %t0 : !stencil.field<[-2,18]x[-2,14]xf32> -> !stencil.temp<?x?xf32>
      %t1_result = stencil.apply(%t0_blk = %t0_temp : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %h = arith.constant 5.000000e-01 : f32
        %m2 = arith.constant -2 : i32
        %ih2 = math.fpowi %h, %m2 : f32, i32
        %c = stencil.access %t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %e = stencil.access %t0_blk[1, 0] : !stencil.temp<?x?xf32>
        %w = stencil.access %t0_blk[-2, 0] : !stencil.temp<?x?xf32>
        %n = stencil.access %t0_blk[0, 2] : !stencil.temp<?x?xf32>
        %dt = arith.constant 1.250000e-02 : f32
        %s1 = arith.addf %e, %w : f32
        %s2 = arith.addf %s1, %n : f32
        %tc = arith.constant 3.000000e+00 : f32
        %c3 = arith.mulf %tc, %c : f32
        %lap = arith.subf %s2, %c3 : f32
        %k = arith.mulf %dt, %ih2 : f32
        %d = arith.mulf %k, %lap : f32
        %r = arith.addf %c, %d : f32
        stencil.return %r : f32
      }
      stencil.store %t1_result to %t1(<[0, 0], [16, 12]>) : !stencil.temp<?x?xf32> to !stencil.field<[-2,18]x[-2,14]xf32>
      scf.yield %t1, %t0 : !stencil.field<[-2,18]x[-2,14]xf32>, !stencil.field<[-2,18]x[-2,14]xf32>
    }
    %5 = func.call @timer_end(%0) : (f64) -> f64
    "llvm.store"(%5, %timers) <{"ordering" = 0 : i64}> : (f64, !llvm.ptr) -> ()
    func.return
  }
  func.func private @timer_start() -> f64
  func.func private @timer_end(f64) -> f64
}
"""
timers_c = """
double timer_start(void) { return 1.0; }
double timer_end(double start) { return start + 41.0; }
"""
with open(f"{workdir}/devito.mlir", "w") as f:
    f.write(program)
with open(f"{workdir}/timers.c", "w") as f:
    f.write(timers_c)

rng = np.random.default_rng(7)
u = [rng.random((20, 16)).astype(np.float32) for _ in range(2)]
ref = [a.copy() for a in u]
f32 = np.float32
for step in range(7):
    a, b = ref[step % 2], ref[(step + 1) % 2]
    c = a[2:18, 2:14]
    lap = ((a[3:19, 2:14] + a[0:16, 2:14]) + a[2:18, 4:16]) - f32(3.0) * c
    b[2:18, 2:14] = c + (f32(0.0125) * f32(4.0)) * lap

timers = np.zeros(1, np.float64)
for openmp in (False, True):
    lib = StencilLibrary(compile_file(f"{workdir}/devito.mlir", openmp=openmp, workdir=workdir,
                                      extra_sources=[f"{workdir}/timers.c"]))
    got = [a.copy() for a in u]
    lib.call("Kernel", got[0], got[1], timers)
    assert timers[0] == 42.0, timers
    for i in range(2):
        assert np.array_equal(got[i], ref[i]), f"field {i} differs (openmp={openmp})"
    print(f"ok Kernel (openmp={openmp})")
