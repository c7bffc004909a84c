# RUN: %python %s %t
# Pictures of tilings (python3 -m stencil picture, stencil-opt
# --poly-print-tiles): the tiles the schedule tree assigns are checked
# against the split-tiling paper's trapezoids computed here independently,
# hexagonal tiles against the hybrid paper's promise of the same number of
# points in every full tile, and the SVG read back cell by cell against the
# schedule: one cell per instance, its tile, phase or color and fill, and a
# border exactly between neighbouring cells of different tiles.
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from stencil import benchmarks, picture
from stencil.compiler import CompileError

work = Path(sys.argv[1])
work.mkdir(parents=True, exist_ok=True)


def program(name, shape, steps):
    path = work / f"{name}-{'x'.join(map(str, shape))}.mlir"
    path.write_text(benchmarks.BENCHMARKS[name].mlir(shape, steps, "f64"))
    return path


def check_svg(svg, scop, cells):
    """The SVG's cells are `cells` ({(x, y): point}) with their tiles."""
    rects = re.findall(r'<rect x="(\d+)" y="(\d+)" [^>]*fill="([^"]+)"[^>]*'
                       r'data-instance="([^"]+)" data-color="(\d+)" data-tile="([^"]+)"', svg)
    assert len(rects) == len(cells), (len(rects), len(cells))
    by_instance = {f'{p["statement"]}{p["instance"]}': p for p in cells.values()}
    for _, _, fill, inst, color, tile in rects:
        p = by_instance[inst]
        assert int(color) == p["color"] and tile == str(p["tile"]), (inst, tile, p)
        assert fill == picture.fill(p), inst
    key = lambda p: (p["color"], tuple(p["tile"]))  # noqa: E731
    borders = sum(1 for (x, y), p in cells.items()
                  for q in (cells.get((x + 1, y)), cells.get((x, y + 1)))
                  if q is not None and key(q) != key(p))
    assert svg.count('class="border"') == borders, (svg.count('class="border"'), borders)
    return len(rects)


# Split tiling, 1D Jacobi (slopes 1), bands of h = 4, period W = 16.
h, W, extent, steps = 4, 16, 40, 9
scop = picture.read_tiles(program("jacobi1d_3pt", (extent,), steps),
                          (f"split-tile=h={h} widths={W}",))["scops"][0]
points = scop["points"]
assert len(points) == extent * steps
assert len({tuple(p["instance"]) for p in points}) == len(points)
assert scop["colors"] == 2
for p in points:
    t, s = p["instance"]
    tl = t % h
    upright = tl <= s % W <= W - 1 - tl
    assert p["color"] == (0 if upright else 1), p
    assert p["tile"] == [t // h, s // W if upright else (s + tl) // W], p
svg = picture.time_plane(scop)
cells = {(p["instance"][1], p["instance"][0]): p for p in points}
print(f"ok split 1D: {check_svg(svg, scop, cells)} cells, trapezoids as the paper's")
(work / "split-1d.svg").write_text(svg)
assert svg.count('class="dependence"') == len({(d[0], d[1]) for d in scop["distances"]}) > 0

# Hexagonal tiling, 1D Jacobi, h = 2, w0 = 3: a time tile spans 6 steps; every
# full hexagon (of either phase) holds the same number of points.
scop = picture.read_tiles(program("jacobi1d_3pt", (60,), 13),
                          ("hex-tile=h=2 widths=3",))["scops"][0]
points = scop["points"]
assert len(points) == 60 * 13 and scop["colors"] == 2
sizes = Counter((p["color"], tuple(p["tile"])) for p in points)
assert len(set(sizes.values())) > 1  # partial tiles at the borders
full = max(sizes.values())
assert sum(1 for c in sizes.values() if c == full) >= 4
assert {color for (color, _), c in sizes.items() if c == full} == {0, 1}
svg = picture.time_plane(scop)
cells = {(p["instance"][1], p["instance"][0]): p for p in points}
print(f"ok hex 1D: {check_svg(svg, scop, cells)} cells, full hexagons of {full} points")

# Split tiling in 2D: four colors; the (s0, s1) slice at one time step.
scop = picture.read_tiles(program("jacobi2d", (20, 18), 4),
                          ("split-tile=h=2 widths=8,8",))["scops"][0]
assert scop["colors"] == 4
svg = picture.space_slice(scop, 1)
cells = {(p["instance"][1], p["instance"][2]): p for p in scop["points"]
         if p["instance"][0] == 1}
assert {p["color"] for p in cells.values()} == {0, 1, 2, 3}
print(f"ok split 2D slice: {check_svg(svg, scop, cells)} cells, 4 colors")
svg = picture.time_plane(scop, [5])
cells = {(p["instance"][1], p["instance"][0]): p for p in scop["points"]
         if p["instance"][2] == 5}
check_svg(svg, scop, cells)

# The command line, and its errors.
path = program("jacobi1d_3pt", (extent,), steps)
out = subprocess.run([sys.executable, "-m", "stencil", "picture", str(path),
                      f"--split-tile=h={h} widths={W}", "-o", str(work / "cli.svg")],
                     capture_output=True, text=True)
assert out.returncode == 0 and (work / "cli.svg").read_text().startswith("<svg"), out.stderr
out = subprocess.run([sys.executable, "-m", "stencil", "picture", str(path), "-o",
                      str(work / "none.svg")], capture_output=True, text=True)
assert out.returncode != 0 and "give --hex-tile or --split-tile" in out.stderr, out.stderr
try:
    picture.read_tiles(path, ("stencil-to-poly",))
    raise AssertionError("an untiled scop was drawn")
except CompileError as e:
    assert "is not hex- or split-tiled" in str(e), e
# --fixed takes one value per space dimension not drawn; --steps at least 1;
# picture draws tilings only (no --fuse).
for extra, message in ((["--fixed", "1,2"], "fixed needs 0 values"),
                       (["--steps", "0"], "--steps must be at least 1"),
                       (["--fuse"], "unrecognized arguments: --fuse")):
    out = subprocess.run([sys.executable, "-m", "stencil", "picture", str(path),
                          f"--split-tile=h={h} widths={W}", "-o", str(work / "bad.svg"),
                          *extra], capture_output=True, text=True)
    assert out.returncode != 0 and message in out.stderr, (extra, out.stderr)
print("ok tile pictures")
