# RUN: %python %s
# Random unrolled applies (`stencil.return ... unroll <[u...]>`, the form
# xDSL's stencil-unroll writes) whose extents are mostly not multiples of
# their factors, on fields with exactly the halo the stencil reads: each
# equals the same program without unroll, bit for bit, sequential, with
# OpenMP and through the emulated GPU kernels. Half of them feed a second,
# unrolled apply, so the first is computed on a larger, odd box. The body
# of point p is the stencil's body with its offsets shifted by p, as an
# unrolling frontend writes it; the points of the last block that stick out
# of the bounds must be neither computed nor read.
import itertools
import tempfile

import numpy as np

from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary

rng = np.random.default_rng(2026)


def field_type(lb, ub):
    return "!stencil.field<" + "x".join(f"[{l},{u}]" for l, u in zip(lb, ub)) + "xf64>"


def temp_type(rank):
    return "!stencil.temp<" + "x".join(["?"] * rank) + "xf64>"


def apply_text(name, operand, rank, taps, unroll):
    """An apply of `operand` computing sum(w * x[offset]) at each point, its
    body unrolled by `unroll` (row-major points)."""
    lines = [f"    %{name} = stencil.apply(%x = %{operand} : {temp_type(rank)}) -> ({temp_type(rank)}) {{"]
    results = []
    for p, shift in enumerate(itertools.product(*[range(u) for u in unroll])):
        acc = None
        for k, (offset, weight) in enumerate(taps):
            moved = [o + s for o, s in zip(offset, shift)]
            lines.append(f"      %a{p}_{k} = stencil.access %x[{', '.join(map(str, moved))}] : {temp_type(rank)}")
            lines.append(f"      %w{p}_{k} = arith.constant {weight!r} : f64")
            lines.append(f"      %m{p}_{k} = arith.mulf %a{p}_{k}, %w{p}_{k} : f64")
            if acc is None:
                acc = f"%m{p}_{k}"
            else:
                lines.append(f"      %s{p}_{k} = arith.addf {acc}, %m{p}_{k} : f64")
                acc = f"%s{p}_{k}"
        results.append(acc)
    suffix = f" unroll <[{', '.join(map(str, unroll))}]>" if len(results) > 1 else ""
    lines.append(f"      stencil.return {', '.join(results)}{suffix} : {', '.join(['f64'] * len(results))}")
    lines.append("    }")
    return "\n".join(lines)


def program(name, shape, stages, unrolled):
    """A function of `name` whose applies (one per stage: taps, unroll) read
    the previous one; the fields have the halo the stencils read."""
    rank = len(shape)
    # Halo: the reads of the chain, composed.
    lo, hi = [0] * rank, [0] * rank
    for taps, _ in stages:
        lo = [l + max(0, -min(o[d] for o, _ in taps)) for d, l in enumerate(lo)]
        hi = [h + max(0, max(o[d] for o, _ in taps)) for d, h in enumerate(hi)]
    lb, ub = [-l for l in lo], [n + h for n, h in zip(shape, hi)]
    ftype = field_type(lb, ub)
    body = [f"func.func @{name}(%in : {ftype}, %out : {ftype}) {{",
            f"    %t0 = stencil.load %in : {ftype} -> {temp_type(rank)}"]
    for i, (taps, unroll) in enumerate(stages):
        body.append(apply_text(f"t{i + 1}", f"t{i}", rank, taps,
                               unroll if unrolled else [1] * rank))
    store = f"<[{', '.join(['0'] * rank)}], [{', '.join(map(str, shape))}]>"
    body.append(f"    stencil.store %t{len(stages)} to %out({store}) : {temp_type(rank)} to {ftype}")
    body.append("    func.return")
    body.append("}")
    return "\n".join(body), [u - l for l, u in zip(lb, ub)]


cases = []
for i in range(36):
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 10)) for _ in range(rank)]
    stages = []
    for _ in range(1 + i % 2):
        taps = []
        for _ in range(int(rng.integers(1, 4))):
            offset = tuple(int(rng.integers(-2, 3)) for _ in range(rank))
            taps.append((offset, float(rng.choice([0.5, 0.25, 1.5, -0.75, 0.125]))))
        unroll = [int(rng.integers(1, 4)) for _ in range(rank)]
        if all(u == 1 for u in unroll):
            unroll[-1] = 2
        stages.append((taps, unroll))
    cases.append((f"u{i}", shape, stages))

with tempfile.TemporaryDirectory() as tmp:
    texts, extents = {}, {}
    for unrolled in (False, True):
        parts = []
        for name, shape, stages in cases:
            text, extent = program(name, shape, stages, unrolled)
            parts.append(text)
            extents[name] = extent
        texts[unrolled] = "\n\n".join(parts)
    libraries = {}
    for label, unrolled, options in [("reference", False, {}),
                                     ("unrolled", True, {}),
                                     ("unrolled-openmp", True, {"openmp": True}),
                                     ("unrolled-gpu", True, {"emulate_gpu": True})]:
        path = f"{tmp}/{label}.mlir"
        with open(path, "w") as f:
            f.write(texts[unrolled])
        libraries[label] = StencilLibrary(compile_file(path, workdir=f"{tmp}/{label}", **options))
    failures = 0
    for name, shape, stages in cases:
        source = rng.random(extents[name])
        initial = rng.random(extents[name])
        results = {}
        for label, library in libraries.items():
            out = initial.copy()
            library.call(name, source.copy(), out)
            results[label] = out
        for label in ("unrolled", "unrolled-openmp", "unrolled-gpu"):
            if not np.array_equal(results[label], results["reference"]):
                failures += 1
                print(f"FAIL {name} {label}: shape {shape}, stages {stages}")
    assert failures == 0, f"{failures} mismatches"
    print(f"ok {len(cases)} unrolled programs, 3 builds each")
