# RUN: %python %s
# Runs small programs that use every feature of the reference lowering on the
# CPU and compares them, bit for bit, with numpy computations written
# independently from the compiler.
import sys
import tempfile

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

failures = 0


def run(name, mlir, args, expect, openmp=False):
    """Compile `mlir`, call @name on copies of `args`, compare with `expect`."""
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/{name}.mlir"
        with open(path, "w") as f:
            f.write(mlir)
        lib = StencilLibrary(compile_file(path, openmp=openmp, workdir=tmp))
        arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        lib.call(name, *arrays)
    for i, want in expect.items():
        if not np.array_equal(arrays[i], want):
            failures += 1
            print(f"FAIL {name} (openmp={openmp}) argument {i}:\n{arrays[i]}\nexpected\n{want}")
            return
    print(f"ok {name} (openmp={openmp})")


rng = np.random.default_rng(42)

# stencil.index, a scalar operand, and an apply with two results, one of them
# returned as a plain value.
a = rng.random((6, 5))
o1, o2 = np.zeros((6, 5)), np.zeros((6, 5))
want1, want2 = o1.copy(), o2.copy()
for i in range(0, 6):
    for j in range(0, 5):
        want1[i, j] = a[i, j] * 2.5
        want2[i, j] = float((i + 1) * 10 + (j - 2))
run("index_scalar", """
func.func @index_scalar(%f: !stencil.field<[0,6]x[0,5]xf64>, %o1: !stencil.field<[0,6]x[0,5]xf64>, %o2: !stencil.field<[0,6]x[0,5]xf64>, %k: f64) {
  %t = stencil.load %f : !stencil.field<[0,6]x[0,5]xf64> -> !stencil.temp<?x?xf64>
  %r1, %r2 = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %s = %k : f64) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %c = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %v = arith.mulf %c, %s : f64
    %i = stencil.index 0 <[1, 0]>
    %j = stencil.index 1 <[0, -2]>
    %c10 = arith.constant 10 : index
    %i10 = arith.muli %i, %c10 : index
    %ij = arith.addi %i10, %j : index
    %ii = arith.index_cast %ij : index to i64
    %w = arith.sitofp %ii : i64 to f64
    %r = stencil.store_result %v : !stencil.result<f64>
    stencil.return %r, %w : !stencil.result<f64>, f64
  }
  stencil.store %r1 to %o1(<[0, 0], [6, 5]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,6]x[0,5]xf64>
  stencil.store %r2 to %o2(<[0, 0], [6, 5]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,6]x[0,5]xf64>
  func.return
}
""", [a, o1, o2, 2.5], {1: want1, 2: want2})

# Lower-rank operand (a 1D coefficient in a 2D apply, `_` placeholder),
# dyn_access, an access inside scf.if, and a second result whose empty
# store_result leaves its field untouched.
f = rng.random((12, 6)).astype(np.float32)
coef = rng.random(6).astype(np.float32)
out = np.full((8, 6), -1, np.float32)
untouched = np.full((8, 6), -2, np.float32)
want = out.copy()
for i in range(0, 6):  # grid rows 1..6; f row r is f[r + 3], out row r is out[r + 1]
    for j in range(0, 5):
        p = f[i + 4, j + 1] * coef[j] + f[6, j]
        want[i + 2, j] = p if i + 1 < 4 else f[i + 4, j]
run("lower_rank", """
func.func @lower_rank(%f: !stencil.field<[-3,9]x[0,6]xf32>, %c: !stencil.field<[0,6]xf32>, %o: !stencil.field<[-1,7]x[0,6]xf32>, %u: !stencil.field<[-1,7]x[0,6]xf32>) {
  %t = stencil.load %f : !stencil.field<[-3,9]x[0,6]xf32> -> !stencil.temp<?x?xf32>
  %ct = stencil.load %c : !stencil.field<[0,6]xf32> -> !stencil.temp<?xf32>
  %r, %e = stencil.apply(%x = %t : !stencil.temp<?x?xf32>, %k = %ct : !stencil.temp<?xf32>) -> (!stencil.temp<?x?xf32>, !stencil.temp<?x?xf32>) {
    %v = stencil.access %x[0, 1] : !stencil.temp<?x?xf32>
    %w = stencil.access %k[_, 0] : !stencil.temp<?xf32>
    %p = arith.mulf %v, %w : f32
    %c3 = arith.constant 3 : index
    %j = stencil.index 1 <[0, 0]>
    %d = stencil.dyn_access %x[%c3, %j] in <[-3, 0]> : <[2, 0]> : !stencil.temp<?x?xf32>
    %s = arith.addf %p, %d : f32
    %i = stencil.index 0 <[0, 0]>
    %c4 = arith.constant 4 : index
    %lt = arith.cmpi slt, %i, %c4 : index
    %res = scf.if %lt -> (!stencil.result<f32>) {
      %a = stencil.store_result %s : !stencil.result<f32>
      scf.yield %a : !stencil.result<f32>
    } else {
      %here = stencil.access %x[0, 0] : !stencil.temp<?x?xf32>
      %b = stencil.store_result %here : !stencil.result<f32>
      scf.yield %b : !stencil.result<f32>
    }
    %none = stencil.store_result : !stencil.result<f32>
    stencil.return %res, %none : !stencil.result<f32>, !stencil.result<f32>
  }
  stencil.store %r to %o(<[1, 0], [7, 5]>) : !stencil.temp<?x?xf32> to !stencil.field<[-1,7]x[0,6]xf32>
  stencil.store %e to %u(<[1, 0], [7, 5]>) : !stencil.temp<?x?xf32> to !stencil.field<[-1,7]x[0,6]xf32>
  func.return
}
""", [f, coef, out, untouched], {2: want, 3: untouched})

# `unroll <[1, 2]>`: each iteration computes two points along dimension 1;
# the body reads its own accesses at the shifted offsets.
g = rng.random((4, 10))
o = np.zeros((4, 10))
want = o.copy()
for i in range(0, 4):
    for j in range(1, 9):
        want[i, j] = g[i, j - 1] + g[i, j + 1]
for omp in (False, True):
    run("unrolled", """
func.func @unrolled(%g: !stencil.field<[0,4]x[-1,9]xf64>, %o: !stencil.field<[0,4]x[-1,9]xf64>) {
  %t = stencil.load %g : !stencil.field<[0,4]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %a0 = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %b0 = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    %v0 = arith.addf %a0, %b0 : f64
    %a1 = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %b1 = stencil.access %x[0, 2] : !stencil.temp<?x?xf64>
    %v1 = arith.addf %a1, %b1 : f64
    %r0 = stencil.store_result %v0 : !stencil.result<f64>
    %r1 = stencil.store_result %v1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %r to %o(<[0, 0], [4, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,4]x[-1,9]xf64>
  func.return
}
""", [g, o], {1: want}, openmp=omp)

# Extents that are not multiples of the unroll factors (3x7 with unroll
# <[2, 3]>): the last block of points is cut at the bounds, the field keeps
# its values beyond them.
g = rng.random((4, 9))
o = rng.random((4, 9))
want = o.copy()
want[0:3, 0:7] = g[0:3, 0:7] * 2.0
lines = []
names = []
for p0 in range(2):
    for p1 in range(3):
        lines.append(f"    %a{p0}{p1} = stencil.access %x[{p0}, {p1}] : !stencil.temp<?x?xf64>")
        lines.append(f"    %v{p0}{p1} = arith.mulf %a{p0}{p1}, %two : f64")
        names.append(f"%v{p0}{p1}")
body = "\n".join(lines)
for omp in (False, True):
    run("unroll_remainder", f"""
func.func @unroll_remainder(%g: !stencil.field<[0,4]x[0,9]xf64>, %o: !stencil.field<[0,4]x[0,9]xf64>) {{
  %t = stencil.load %g : !stencil.field<[0,4]x[0,9]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {{
    %two = arith.constant 2.0 : f64
{body}
    stencil.return {", ".join(names)} unroll <[2, 3]> : {", ".join(["f64"] * 6)}
  }}
  stencil.store %r to %o(<[0, 0], [3, 7]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,4]x[0,9]xf64>
  func.return
}}
""", [g, o], {1: want}, openmp=omp)

# The buffer-semantics form (`outs` + `to` bounds) writes fields directly.
h = rng.random((3, 3, 5))
o = np.zeros((3, 3, 5))
want = o.copy()
want[1:3, 0:2, 1:4] = h[1:3, 1:3, 0:3] - h[1:3, 0:2, 2:5]
run("outs_form", """
func.func @outs_form(%h: !stencil.field<[0,3]x[0,3]x[-1,4]xf64>, %o: !stencil.field<[0,3]x[0,3]x[-1,4]xf64>) {
  stencil.apply(%x = %h : !stencil.field<[0,3]x[0,3]x[-1,4]xf64>) outs (%o : !stencil.field<[0,3]x[0,3]x[-1,4]xf64>) {
    %a = stencil.access %x[0, 1, -1] : !stencil.field<[0,3]x[0,3]x[-1,4]xf64>
    %b = stencil.access %x[0, 0, 1] : !stencil.field<[0,3]x[0,3]x[-1,4]xf64>
    %v = arith.subf %a, %b : f64
    %r = stencil.store_result %v : !stencil.result<f64>
    stencil.return %r : !stencil.result<f64>
  } to <[1, 0, 0], [3, 2, 3]>
  func.return
}
""", [h, o], {1: want})

# combine: two applies on the two sides of i = 3, one lowerext result, and a
# buffered intermediate.
c = rng.random(9)
o1, o2 = np.zeros(9), np.zeros(9)
want1, want2 = o1.copy(), o2.copy()
for i in range(1, 8):
    want1[i] = c[i - 1] * 2.0 if i < 3 else c[i + 1] * 3.0
    if i < 3:
        want2[i] = c[i] + 1.0
run("combined", """
func.func @combined(%c: !stencil.field<[0,9]xf64>, %o1: !stencil.field<[0,9]xf64>, %o2: !stencil.field<[0,9]xf64>) {
  %t = stencil.load %c : !stencil.field<[0,9]xf64> -> !stencil.temp<?xf64>
  %lo, %ext = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>, !stencil.temp<?xf64>) {
    %a = stencil.access %x[-1] : !stencil.temp<?xf64>
    %k = arith.constant 2.0 : f64
    %v = arith.mulf %a, %k : f64
    %b = stencil.access %x[0] : !stencil.temp<?xf64>
    %one = arith.constant 1.0 : f64
    %w = arith.addf %b, %one : f64
    stencil.return %v, %w : f64, f64
  }
  %hi = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[1] : !stencil.temp<?xf64>
    %k = arith.constant 3.0 : f64
    %v = arith.mulf %a, %k : f64
    stencil.return %v : f64
  }
  %hb = stencil.buffer %hi : !stencil.temp<?xf64> -> !stencil.temp<?xf64>
  %r, %e = stencil.combine 0 at 3 lower = (%lo : !stencil.temp<?xf64>) upper = (%hb : !stencil.temp<?xf64>) lowerext = %ext : !stencil.temp<?xf64> : !stencil.temp<?xf64>, !stencil.temp<?xf64>
  stencil.store %r to %o1(<[1], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,9]xf64>
  stencil.store %e to %o2(<[1], [3]>) : !stencil.temp<?xf64> to !stencil.field<[0,9]xf64>
  func.return
}
""", [c, o1, o2], {1: want1, 2: want2})

print(f"{failures} failures")
sys.exit(1 if failures else 0)
