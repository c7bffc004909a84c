"""Pictures of a tiling: which tile runs each statement instance, as SVG.

`stencil-opt --poly-print-tiles` reads the tiled schedule tree of every
hex- or split-tiled time loop and writes, for each instance, its phase
(hexagonal tiling) or color (split tiling) and its tile; this module draws
that, like the hybrid-tiling paper's Figure 5 and the split-tiling paper's
figures:

  * the time plane: canonical time t (K*t + k for statement k of K per step)
    upward against the first space dimension s0, the other dimensions fixed
    (`fixed`, default their lowest value), with the dependence distances
    drawn as arrows into one point;
  * a space slice: s0 across and s1 upward at one canonical time.

Each cell is one instance, filled with its phase's or color's hue, lighter
and darker on alternate tiles; thick lines separate different tiles. Every
cell carries `data-instance` and `data-tile` attributes, so that a test can
read the picture back and compare it with the schedule.

    python3 -m stencil picture examples/jacobi1d_3pt.mlir --split-tile="h=4 widths=16" -o split.svg
"""

import json
import re
import subprocess
import tempfile
from pathlib import Path

from .compiler import CompileError, find_stencil_opt

# One hue per phase or color (up to the eight colors of 3D split tiling),
# each as (lighter, darker) for alternate tiles.
PALETTE = [("#9ecae1", "#4292c6"), ("#a1d99b", "#41ab5d"), ("#fdae6b", "#f16913"),
           ("#bcbddc", "#807dba"), ("#fc9272", "#ef3b2c"), ("#d9d9d9", "#969696"),
           ("#fdd0a2", "#d94801"), ("#c7e9c0", "#238b45")]
CELL = 14


def read_tiles(path, passes, steps=0):
    """Run stencil-opt on `path` with `passes` (as for compile_file's
    extra_passes, e.g. ("split-tile=h=4 widths=16",)) and
    --poly-print-tiles; return its JSON (a dict with "scops")."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tiles.json"
        proc = subprocess.run([find_stencil_opt(), str(path)] + [f"--{p}" for p in passes]
                              + [f"--poly-print-tiles=output={out} steps={steps}",
                                 "-o", "/dev/null"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(proc.stderr)
        return json.loads(out.read_text())


def canonical_time(scop, point):
    """K*t + k of an instance."""
    k = scop["statement_position"][point["statement"]]
    return scop["statements_per_step"] * point["instance"][0] + k


def fill(point):
    """The cell colour of an instance: its phase or color, lighter or darker
    by the parity of its tile."""
    light, dark = PALETTE[point["color"] % len(PALETTE)]
    return dark if sum(point["tile"]) % 2 else light


def _where(scop):
    """The time loop's location without directories: file:line:column."""
    return re.sub(r'^loc\("(?:[^"]*/)?([^"]*)":(\d+):(\d+)\)$', r"\1:\2:\3",
                  scop["location"])


def _tile_key(point):
    return (point["color"], tuple(point["tile"]))


def _svg(width, height, body, title):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
            f'<title>{title}</title>\n'
            '<defs><marker id="arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" '
            'markerHeight="6" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="black"/></marker>'
            '</defs>\n' + "\n".join(body) + "\n</svg>\n")


def _grid(cells, title, xlabel, ylabel):
    """SVG of `cells`: {(x, y): point}, y upward, with tile borders."""
    xs = sorted({x for x, _ in cells})
    ys = sorted({y for _, y in cells})
    x0, y1 = xs[0], ys[-1]
    margin = 40
    width = margin + CELL * (xs[-1] - x0 + 1) + 10
    height = margin + CELL * (y1 - ys[0] + 1) + 10

    def corner(x, y):
        return margin + CELL * (x - x0), 10 + CELL * (y1 - y)

    body = []
    for (x, y), p in sorted(cells.items()):
        px, py = corner(x, y)
        body.append(f'<rect x="{px}" y="{py}" width="{CELL}" height="{CELL}" '
                    f'fill="{fill(p)}" stroke="white" stroke-width="0.5" '
                    f'data-instance="{p["statement"]}{p["instance"]}" '
                    f'data-color="{p["color"]}" data-tile="{p["tile"]}"/>')
    # Tile borders: between neighbouring cells of different tiles.
    for (x, y), p in sorted(cells.items()):
        px, py = corner(x, y)
        right, up = cells.get((x + 1, y)), cells.get((x, y + 1))
        if right is not None and _tile_key(right) != _tile_key(p):
            body.append(f'<line class="border" x1="{px + CELL}" y1="{py}" '
                        f'x2="{px + CELL}" y2="{py + CELL}" stroke="black" stroke-width="2"/>')
        if up is not None and _tile_key(up) != _tile_key(p):
            body.append(f'<line class="border" x1="{px}" y1="{py}" x2="{px + CELL}" '
                        f'y2="{py}" stroke="black" stroke-width="2"/>')
    body.append(f'<text x="{margin}" y="{height - 4}">{xlabel} from {x0} to {xs[-1]}</text>')
    body.append(f'<text x="12" y="{10 + CELL * (y1 - ys[0] + 1)}" '
                f'transform="rotate(-90 12 {10 + CELL * (y1 - ys[0] + 1)})">'
                f'{ylabel} from {ys[0]} to {y1}</text>')
    return body, corner, width, height


def time_plane(scop, fixed=None, arrows_at=None):
    """SVG of the (s0, canonical t) plane of `scop` (one entry of
    read_tiles()["scops"]), the other space dimensions at `fixed` (a list,
    default their lowest values); the dependence distances as arrows from
    their sources into the instance `arrows_at` ((s0, t), default the
    middle of the plane)."""
    n = scop["space_dims"]
    points = scop["points"]
    if fixed is None:
        fixed = [min(p["instance"][1 + d] for p in points) for d in range(1, n)]
    if len(fixed) != n - 1:
        raise ValueError(f"fixed needs {n - 1} values (s1...: the space dimensions "
                         f"not drawn), got {len(fixed)}")
    cells = {}
    for p in points:
        if list(p["instance"][2:]) == list(fixed):
            cells[(p["instance"][1], canonical_time(scop, p))] = p
    if not cells:
        raise ValueError(f"no instance with s1... = {fixed}")
    title = f"tiles of the time loop at {_where(scop)} in the (s0, t) plane" + (
        f" at s1... = {fixed}" if fixed else "")
    body, corner, width, height = _grid(cells, title, "s0", "canonical time t")
    xs = sorted({x for x, _ in cells})
    ys = sorted({y for _, y in cells})
    ax, at = arrows_at or (xs[len(xs) // 2], ys[len(ys) // 2])
    seen = set()
    for d in scop["distances"]:
        key = (d[0], d[1])
        if key in seen:
            continue
        seen.add(key)
        sx, sy = corner(ax - d[1], at - d[0])
        tx, ty = corner(ax, at)
        body.append(f'<line class="dependence" x1="{sx + CELL / 2}" y1="{sy + CELL / 2}" '
                    f'x2="{tx + CELL / 2}" y2="{ty + CELL / 2}" stroke="black" '
                    f'stroke-width="1" marker-end="url(#arrow)"/>')
    return _svg(width, height, body, title)


def space_slice(scop, time, fixed=None):
    """SVG of the (s0, s1) plane of a scop of 2 or more space dimensions at
    canonical time `time`, the others at `fixed` (default their lowest)."""
    n = scop["space_dims"]
    if n < 2:
        raise ValueError("a space slice needs two space dimensions")
    points = scop["points"]
    if fixed is None:
        fixed = [min(p["instance"][1 + d] for p in points) for d in range(2, n)]
    cells = {}
    for p in points:
        if canonical_time(scop, p) == time and list(p["instance"][3:]) == list(fixed):
            cells[(p["instance"][1], p["instance"][2])] = p
    if not cells:
        raise ValueError(f"no instance at canonical time {time}")
    title = f"tiles of the time loop at {_where(scop)} at canonical time {time}"
    body, _, width, height = _grid(cells, title, "s0", "s1")
    return _svg(width, height, body, title)
