# RUN: %python %s %t
# Workgroup (shared) memory in the GPU emulation, executed: each block
# copies its row into shared memory, waits at a barrier, and thread t stores
# the element of its neighbour (t + 1) % n; a 2-D shared tile is transposed
# the same way. Blocks one after the other and in parallel (OpenMP, one
# buffer per block).
import sys
from pathlib import Path

import numpy as np

from stencil.compiler import compile_module
from stencil.runtime import StencilLibrary

workdir = Path(sys.argv[1])
workdir.mkdir(parents=True, exist_ok=True)

NEIGHBOUR = """
module attributes {gpu.container_module} {
  func.func @neighbour(%a: memref<64x32xf32>, %b: memref<64x32xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c64, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%row : memref<32xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %a[%bx, %tx] : memref<64x32xf32>
      memref.store %v, %row[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %c32 : index
      %w = memref.load %row[%j] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %w, %b[%bx, %tx] : memref<64x32xf32>
      gpu.terminator
    }
    return
  }
}
"""

# Blocks of 8x4 threads transpose 8x8 tiles of a 32x16 f64 array through a
# shared 8x9 tile (the padding column as on a GPU); each thread moves two
# elements.
TRANSPOSE = """
module attributes {gpu.container_module} {
  func.func @transpose(%a: memref<32x16xf64>, %b: memref<16x32xf64>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c4, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c4, %sz = %c1)
               workgroup(%tile : memref<8x9xf64, #gpu.address_space<workgroup>>) {
      %col0 = arith.muli %bx, %c8 : index
      %row0 = arith.muli %by, %c8 : index
      %col = arith.addi %col0, %tx : index
      %r1 = arith.addi %row0, %ty : index
      %ty2 = arith.addi %ty, %c4 : index
      %r2 = arith.addi %row0, %ty2 : index
      %v1 = memref.load %a[%r1, %col] : memref<32x16xf64>
      %v2 = memref.load %a[%r2, %col] : memref<32x16xf64>
      memref.store %v1, %tile[%ty, %tx] : memref<8x9xf64, #gpu.address_space<workgroup>>
      memref.store %v2, %tile[%ty2, %tx] : memref<8x9xf64, #gpu.address_space<workgroup>>
      gpu.barrier
      %w1 = memref.load %tile[%tx, %ty] : memref<8x9xf64, #gpu.address_space<workgroup>>
      %w2 = memref.load %tile[%tx, %ty2] : memref<8x9xf64, #gpu.address_space<workgroup>>
      %oc = arith.addi %row0, %tx : index
      %o1 = arith.addi %col0, %ty : index
      %o2 = arith.addi %col0, %ty2 : index
      memref.store %w1, %b[%o1, %oc] : memref<16x32xf64>
      memref.store %w2, %b[%o2, %oc] : memref<16x32xf64>
      gpu.terminator
    }
    return
  }
}
"""

rng = np.random.default_rng(0)
for openmp in (False, True):
    lib = StencilLibrary(compile_module(NEIGHBOUR, "neighbour", openmp=openmp,
                                        emulate_gpu=True,
                                        workdir=workdir / f"neighbour-{openmp}"))
    a = rng.random((64, 32)).astype(np.float32)
    b = np.zeros_like(a)
    lib.call("neighbour", a, b)
    assert np.array_equal(b, np.roll(a, -1, axis=1)), (openmp, a, b)

    lib = StencilLibrary(compile_module(TRANSPOSE, "transpose", openmp=openmp,
                                        emulate_gpu=True,
                                        workdir=workdir / f"transpose-{openmp}"))
    a = rng.random((32, 16))
    b = np.zeros((16, 32))
    lib.call("transpose", a, b)
    assert np.array_equal(b, a.T), (openmp, a, b)
print("ok workgroup memory: neighbour exchange and tiled transpose")
