# RUN: %python %s %t
# The race check and reversed threads of the GPU emulation, executed. Each
# block of the neighbour kernel copies its row into shared memory and thread
# t then reads the element of thread t + 1: without the barrier between
# them, the check reports the race (kernel, element, the two accesses) as a
# RaceError; with it, nothing. Threads run in reverse order give the same
# results for the race-free kernel; a race through global memory (each
# thread reads its neighbour's element of a field the others write) is
# caught too, and a thread touching its own element twice is no race.
import sys
from pathlib import Path

import numpy as np

from stencil.compiler import compile_module
from stencil.runtime import RaceError, StencilLibrary

workdir = Path(sys.argv[1])
workdir.mkdir(parents=True, exist_ok=True)

NEIGHBOUR = """
module attributes {gpu.container_module} {
  func.func @neighbour(%a: memref<4x32xf32>, %b: memref<4x32xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%row : memref<32xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %a[%bx, %tx] : memref<4x32xf32>
      memref.store %v, %row[%tx] : memref<32xf32, #gpu.address_space<workgroup>> loc("neighbour.mlir":11:7)
      BARRIER
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %c32 : index
      %w = memref.load %row[%j] : memref<32xf32, #gpu.address_space<workgroup>> loc("neighbour.mlir":15:12)
      memref.store %w, %b[%bx, %tx] : memref<4x32xf32>
      gpu.terminator
    } loc("neighbour.mlir":7:5)
    return
  }
}
"""

# Thread t writes b[t] then reads b[t] (its own: fine) and b[t - 1] (its
# neighbour's, written in the same interval: a race through global memory),
# and stores their sum (the pipeline removes loads whose value is unused).
GLOBAL = """
module attributes {gpu.container_module} {
  func.func @shift(%b: memref<16xf64>, %out: memref<16xf64>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f64
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
      memref.store %one, %b[%tx] : memref<16xf64>
      %own = memref.load %b[%tx] : memref<16xf64>
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
      } else {
        %prev = arith.subi %tx, %c1 : index
        %v = memref.load %b[%prev] : memref<16xf64>
        %sum = arith.addf %own, %v : f64
        memref.store %sum, %out[%tx] : memref<16xf64>
      }
      gpu.terminator
    }
    return
  }
}
"""


def build(text, stem, **checks):
    return StencilLibrary(compile_module(text, stem, emulate_gpu=True,
                                         workdir=workdir / stem, **checks))


rng = np.random.default_rng(1)
a = rng.random((4, 32)).astype(np.float32)
want = np.roll(a, -1, axis=1)

# Barrier removed: caught.
racy = build(NEIGHBOUR.replace("BARRIER", ""), "racy", race_check=True)
try:
    racy.call("neighbour", a, np.zeros_like(a))
    raise SystemExit("FAIL: the race without a barrier was not reported")
except RaceError as e:
    report = str(e)
print(report)
for part in ["data race in kernel neighbour_kernel_0 (neighbour.mlir:7:5), block (0, 0, 0)",
             "workgroup buffer 0 (memref<32xf32, #gpu.address_space<workgroup>>)",
             "store by thread (1, 0, 0) at neighbour.mlir:11:7",
             "load by thread (0, 0, 0) at neighbour.mlir:15:12"]:
    assert part in report, (part, report)

# With the barrier: no race, the GPU's result, also with reversed threads
# (alone and with the check).
for stem, checks in [("checked", dict(race_check=True)),
                     ("reversed", dict(reverse_threads=True)),
                     ("both", dict(race_check=True, reverse_threads=True))]:
    lib = build(NEIGHBOUR.replace("BARRIER", "gpu.barrier"), stem, **checks)
    b = np.zeros_like(a)
    lib.call("neighbour", a, b)
    assert np.array_equal(b, want), (stem, b, want)

# Without the barrier, reversed threads expose the race in the results:
# thread t + 1 has not written its element when thread t reads it.
lib = build(NEIGHBOUR.replace("BARRIER", ""), "racy-reversed", reverse_threads=True)
b = np.zeros_like(a)
lib.call("neighbour", a, b)
assert not np.array_equal(b, want)

# Global memory.
lib = build(GLOBAL, "global", race_check=True)
try:
    lib.call("shift", np.zeros(16), np.zeros(16))
    raise SystemExit("FAIL: the race through global memory was not reported")
except RaceError as e:
    report = str(e)
assert "element [0] of argument 0 of @shift (memref<16xf64>)" in report, report
assert "store by thread (0, 0, 0)" in report and "load by thread (1, 0, 0)" in report, report
print("ok race check: races reported, race-free kernels unchanged, reversed threads")
