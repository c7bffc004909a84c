"""The lines mpi_heat2d.c prints, from a single-process run of heat2d on the
same initial fields: heat2d_block_sums.py P Q"""
import sys

import numpy as np

from stencil import compiler
from stencil.runtime import StencilLibrary

p, q = int(sys.argv[1]), int(sys.argv[2])
path = sys.argv[3]
i, j = np.meshgrid(np.arange(-1, 65), np.arange(-1, 49), indexing="ij")
u = [((i * 31 + j * 17 + w * 7 + 1000) % 101) / 101.0 for w in range(2)]
StencilLibrary(compiler.compile_file(path)).call("heat2d", *u)


def block(n, ranks, c):
    base, rem = divmod(n, ranks)
    lo = c * base + min(c, rem)
    return lo, lo + base + (c < rem)


lines = []
for c0 in range(p):
    for c1 in range(q):
        (a, b), (e, f) = block(64, p, c0), block(48, q, c1)
        bits = u[1][a + 1:b + 1, e + 1:f + 1].view(np.uint64).sum(dtype=np.uint64)
        lines.append(f"block {a}:{b} x {e}:{f} bits {bits}")
print("\n".join(sorted(lines)))
