# RUN: %python %s
#
# The halo-depth model (stencil.distributed.depth_model / choose_depth,
# docs/distributed.md §2.1): a model, so what is checked is its shape, not
# numbers. Without latency a deeper halo only adds redundant points (h = 1
# wins); with a slow network the deepest halo the blocks allow wins; a
# block never gets a halo wider than itself; a 27-point stencil exchanges
# its corners every step, a star only its faces; a program without a time
# loop gets 1.
import sys
import tempfile
from pathlib import Path

from stencil import benchmarks, distributed

work = Path(tempfile.mkdtemp(prefix="depth-model-"))


def program(name, shape, steps=20):
    path = work / f"{name}-{'x'.join(map(str, shape))}.mlir"
    path.write_text(benchmarks.BENCHMARKS[name].mlir(shape=shape, steps=steps, dtype="f64"))
    return str(path)


jacobi = program("jacobi2d", (256, 256))
h, model = distributed.choose_depth(jacobi, "4x2", latency=0.0, bandwidth=1e30)
assert h == 1 and all(model[k] < model[k + 1] for k in range(1, len(model))), model
h, model = distributed.choose_depth(jacobi, "4x2", latency=1e-3)
assert h == max(model) == distributed.MAX_DEPTH, model
# 8x8 points per rank: the halo (1 per step) may be at most 8 deep.
small = program("jacobi2d", (64, 64))
h, model = distributed.choose_depth(small, "8x8", latency=1e-3, max_depth=12)
assert max(model) == 8 and h == 8, model

# Messages at h = 1: the star exchanges 4 faces, the 27-point heat 3D its
# 26 boxes (the same terms once h > 1, where both need corners).
dec = distributed.Decomposition(grid=(2, 2, 2), core_lb=(0, 0, 0), core_ub=(64, 64, 64),
                                halo=(1, 1, 1), fields=[None])
star = distributed.depth_model(dec, 1, 8, diagonal=False, latency=1e-6, bandwidth=1e30)
box = distributed.depth_model(dec, 1, 8, diagonal=True, latency=1e-6, bandwidth=1e30)
assert abs((box[1] - star[1]) - 20e-6) < 1e-12, (box[1], star[1])
assert all(box[h] == star[h] for h in box if h > 1), (box, star)
heat = program("heat3d", (64, 64, 64))
laplace = program("laplace3d", (64, 64, 64))
for path, diagonal in ((heat, True), (laplace, False)):
    h, model = distributed.choose_depth(path, "2x2x2", latency=1e-6, bandwidth=1e30)
    assert model[1] == distributed.depth_model(dec, 1, 8, diagonal, latency=1e-6,
                                               bandwidth=1e30)[1], (path, model)

# No time loop: nothing to exchange less often.
laplap = program("laplap", (64, 64))
assert distributed.choose_depth(laplap, "2x2") == (1, {})
print("depth model: OK")
