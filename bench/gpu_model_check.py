#!/usr/bin/env python3
"""The performance model (python/stencil/gpumodel.py) against the times a
lent GPU measured (docs/performance.md, "The model against the leases'
measurements").

For every row of a `bench/gpu_bench.py --json` file (by default the H100
run of the fifth lease, docs/data/h100-2026-11-28/gpu-f32.json) and each
chosen variant (untiled, defaults = the headline command, split, hex = the
harness's tiles), the kernels are built with the options that run used,
profiled by the emulation, modeled at the run's size on `sm_90`, and the
modeled GStencils/s are printed beside the measured ones.

The emulation cannot count billions of updates, so each count comes from
runs at reduced sizes, extrapolated as a multilinear function of the
reduced extents and the steps (the runs have the row's extent along the
outermost dimension s0, so the same blocks per phase and the same tiles):

    1D: N in (2^16, 2^17), steps in (32, 64)
    2D: s1 in (128, 256), steps in (16, 32)
    3D: s1 in (16, 32), s2 in (64, 128), steps in (4, 8)

whole tiles repeat, and the partial tiles at the borders are counted as in
a run of the row's size as long as they have the same shape. Time tiles
taller than about half the reduced steps (the `hex` variant's h=8) do not
extrapolate: such a row launches its kernels a different number of times
than the measured run, is flagged, and left out of the mean. Instructions
are the emulation's dynamic counts scaled to the PTX of the kernels built
at the row's size (gpumodel.model_warp_instructions).

    /usr/bin/python3 bench/gpu_model_check.py [NAME ...] [--measured FILE.json]
        [--variants untiled,defaults,split] [--jobs 2] [--json OUT.json]
    /usr/bin/python3 bench/gpu_model_check.py --remodel OUT.json   # the model again
"""
import argparse
import itertools
import json
import math
import shlex
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from benchlib import extrapolated_profiles, kernel_ptx  # noqa: E402
from stencil import gpumodel  # noqa: E402
from stencil.benchmarks import BENCHMARKS  # noqa: E402
from stencil.profile import profile_file  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MEASURED = REPO / "docs/data/h100-2026-11-28/gpu-f32.json"
# Per rank: the reduced (dimension, two extents) and the two step counts.
REDUCED = {
    1: ([(0, (1 << 16, 1 << 17))], (32, 64)),
    2: ([(1, (128, 256))], (16, 32)),
    3: ([(1, (16, 32)), (2, (64, 128))], (4, 8)),
}


def variant_passes(options):
    """The --hex-tile/--split-tile pass and the --convert-to-gpu options of
    a variant's command line as gpu_bench.py records it."""
    tiling, gpu = None, ""
    for word in shlex.split(options):
        flag, _, value = word.partition("=")
        if flag in ("--hex-tile", "--split-tile"):
            tiling = (flag[2:], value)
        elif flag == "--convert-to-gpu":
            gpu = value
    return tiling, gpu


def profile_run(args):
    path, tiling, gpu = args
    extra = (f"{tiling[0]}={tiling[1]}" if tiling[1] else tiling[0],) if tiling else ()
    # Hex tiling through profile_file's own option, other passes as given.
    if tiling and tiling[0] == "hex-tile":
        return profile_file(path, hex_tile=tiling[1], gpu_options=f"chip=sm_90 {gpu}")["kernels"]
    return profile_file(path, extra_passes=extra, gpu_options=f"chip=sm_90 {gpu}")["kernels"]


def check(row, variant, tmp, pool):
    name, dtype, shape, steps = row["example"], row["dtype"], tuple(row["shape"]), row["steps"]
    bench = BENCHMARKS[name]
    tiling, gpu = variant_passes(row["variant_options"][variant])
    dims, step_pair = REDUCED[len(shape)]
    points = [extents for _, extents in dims] + [step_pair]
    corners = list(itertools.product((0, 1), repeat=len(points)))
    jobs = []
    for corner in corners:
        reduced = list(shape)
        for (d, extents), c in zip(dims, corner):
            reduced[d] = extents[c]
        n = step_pair[corner[-1]]
        path = Path(tmp) / f"{name}-{dtype}-{variant}-{'x'.join(map(str, reduced))}-{n}.mlir"
        path.write_text(bench.mlir(tuple(reduced), n, dtype))
        jobs.append((path, tiling, gpu))
    runs = list(pool.map(profile_run, jobs))
    if len({tuple(e["kernel"] for e in r) for r in runs}) != 1:
        raise RuntimeError(f"{name} {dtype} {variant}: the reduced runs launch different kernels")
    target = [shape[d] for d, _ in dims] + [steps]
    entries = extrapolated_profiles(runs, points, target)
    full = Path(tmp) / f"{name}-{dtype}-full.mlir"
    full.write_text(bench.mlir(shape, steps, dtype))
    passes = [f"--{tiling[0]}={tiling[1]}" if tiling[1] else f"--{tiling[0]}"] if tiling else []
    _, order = kernel_ptx(full, passes, gpu, "sm_90")
    return checked({"example": name, "dtype": dtype, "variant": variant,
                    "shape": list(shape), "steps": steps,
                    "options": row["variant_options"][variant],
                    "measured_gstencils_per_s": row[f"{variant}_gsts"],
                    # The launches of the measured kernels (an older commit):
                    # a different count means different kernels.
                    "measured_launches": row.get(f"{variant}_launches"),
                    # What the model reads: the extrapolated profiles and the
                    # PTX statistics in launch order (--remodel reads them).
                    "profiles": entries, "ptx": order})


def checked(row):
    """`row` with the model of its profiles and PTX, against the measured.
    GStencils/s as gpu_bench.py counts them: grid points x steps / time
    (fdtd-2d's three statements per point and step count once)."""
    result = gpumodel.model_program(row["profiles"], "sm_90", steps=row["steps"],
                                    ptx_order=row["ptx"])
    modeled = math.prod(row["shape"]) * row["steps"] / result["model_time_s"] / 1e9
    return {**row,
            "model_gstencils_per_s": modeled,
            "model_over_measured": modeled / row["measured_gstencils_per_s"],
            "launches": round(sum(k["launches"] for k in row["profiles"])),
            "bounds": [k["model_bound"] for k in result["kernels"]],
            "kernels": result["kernels"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="examples (default: every row of the file)")
    parser.add_argument("--measured", action="append", default=[],
                        help=f"gpu_bench.py --json output (repeatable; default {MEASURED})")
    parser.add_argument("--variants", default="untiled,defaults,split")
    parser.add_argument("--jobs", type=int, default=2, help="emulation runs in parallel")
    parser.add_argument("--json", help="write every modeled row here")
    parser.add_argument("--remodel", metavar="FILE.json",
                        help="model again the rows an earlier --json wrote (no emulation)")
    args = parser.parse_args(argv)
    rows = [r for f in (args.measured or [MEASURED]) for r in json.loads(Path(f).read_text())["rows"]
            if not args.names or r["example"] in args.names]
    print("| example | dtype | variant | measured GStencils/s | model GStencils/s "
          "| model / measured | launches (measured) | model bound (per kernel) |")
    print("|---|---|---|---:|---:|---:|---:|---|")

    def show(r):
        print(f"| {r['example']} | {r['dtype']} | {r['variant']} "
              f"| {r['measured_gstencils_per_s']:.1f} | {r['model_gstencils_per_s']:.1f} "
              f"| {r['model_over_measured']:.2f} | {r['launches']} ({r['measured_launches']}) "
              f"| {', '.join(sorted(set(r['bounds'])))} |",
              flush=True)
        return r

    variants = args.variants.split(",")
    if args.remodel:
        out = [show(checked(r)) for r in json.loads(Path(args.remodel).read_text())
               if (not args.names or r["example"] in args.names) and r["variant"] in variants]
    else:
        out = []
        with tempfile.TemporaryDirectory() as tmp, ProcessPoolExecutor(args.jobs) as pool:
            for row in rows:
                for variant in variants:
                    if f"{variant}_gsts" in row:
                        out.append(show(check(row, variant, tmp, pool)))
    # A row whose kernels launch a different number of times than the
    # measured ones is not the same computation (e.g. tiles taller than the
    # reduced runs' steps, whose partial time tiles do not extrapolate).
    differing = [r for r in out if r["measured_launches"] not in (None, r["launches"])]
    for r in differing:
        print(f"{r['example']} {r['variant']}: {r['launches']} launches modeled, "
              f"{r['measured_launches']} measured: left out of the mean", file=sys.stderr)
    ratios = [r["model_over_measured"] for r in out if r not in differing]
    if ratios:
        print(f"\nmodel / measured over {len(ratios)} rows: geometric mean "
              f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}, "
              f"range {min(ratios):.2f}-{max(ratios):.2f}")
    if args.json:
        # Without the per-kernel model: --remodel computes it again.
        Path(args.json).write_text(json.dumps([{k: v for k, v in r.items() if k != "kernels"}
                                               for r in out], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
