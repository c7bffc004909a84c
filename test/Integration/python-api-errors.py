# RUN: %python %s
# The Python API refuses what would run wrong (found by a new-user campaign):
# an array of the wrong extent for a `?` field that the program casts to a
# known extent (the Open Earth Compiler's and xDSL's form; the code indexes
# with the cast's shape and wrote past the array), an index scalar that does
# not fit, extra passes that are not pass names, and a path given where a
# compiled module belongs. A string of extra passes is one pass; random
# integer fields are not all zero.
import tempfile

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary, random_field

PROGRAM = """
func.func @shift(%a : !stencil.field<?x?xf64>, %b : !stencil.field<?x?xf64>, %n : index) {
  %0 = stencil.cast %a : !stencil.field<?x?xf64> -> !stencil.field<[-1,9]x[-1,7]xf64>
  %1 = stencil.cast %b : !stencil.field<?x?xf64> -> !stencil.field<[-1,9]x[-1,7]xf64>
  %t = stencil.load %0 : !stencil.field<[-1,9]x[-1,7]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %1(<[0, 0], [8, 6]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,9]x[-1,7]xf64>
  func.return
}
"""


def expect(error, what, call):
    try:
        call()
    except error as e:
        assert what in str(e), f"{what!r} not in {e}"
        print(f"ok: {type(e).__name__}: {e}")
        return
    raise AssertionError(f"no {error.__name__} ({what})")


with tempfile.TemporaryDirectory() as tmp:
    path = f"{tmp}/shift.mlir"
    with open(path, "w") as f:
        f.write(PROGRAM)
    compiled = compile_file(path, workdir=tmp)
    assert [a.shape for a in compiled.signatures["shift"].args[:2]] == [(10, 8), (10, 8)]
    lib = StencilLibrary(compiled)
    a = np.arange(80, dtype=np.float64).reshape(10, 8)
    b = np.zeros((10, 8))
    lib.call("shift", a, b, 3)
    want = np.zeros((10, 8))
    want[1:9, 1:7] = a[1:9, 0:6]
    assert np.array_equal(b, want), b
    expect(ValueError, "shape (4, 8), expected (10, 8)",
           lambda: lib.call("shift", a, np.zeros((4, 8)), 3))
    expect(ValueError, "does not fit in index", lambda: lib.call("shift", a, b, 2**70))
    expect(TypeError, "StencilLibrary takes what compile_file returns",
           lambda: StencilLibrary(compiled.library))
    # One string is one pass; a flag is no pass name.
    tiled = compile_file(path, workdir=tmp, extra_passes="stencil-inlining")
    assert tiled.signatures["shift"].args[0].shape == (10, 8)
    expect(ValueError, "is not a pass name",
           lambda: compile_file(path, workdir=tmp, extra_passes=("--hex-tile",)))

ints = random_field(np.random.default_rng(0), (64,), "i32")
assert ints.dtype == np.int32 and np.count_nonzero(ints) > 32, ints
print("ok: random i32 field", ints[:4])
