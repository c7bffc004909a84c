#!/usr/bin/env python3
"""The performance model (python/stencil/gpumodel.py) at the papers' 2D size,
3072^2 x 512 steps, untiled against the headline command's hex-tiled
kernels (docs/performance.md, "Kernels sized for the device"). A model,
not a measurement.

The emulation cannot count 4.8 G updates, so the counts come from a run on
3072 x 64 points for 8 steps, which has the paper's grid along the
hexagonal dimension s0 (the same blocks per phase and the same tiles) but
one parallelogram tile along s1 instead of 48, and one time tile instead of
64. The counts are then scaled: x64 launches; for the hex-tiled kernels
x48 work per block (each block walks its parallelogram tiles along s1 in
sequence: requests, bytes, barriers and updates grow with their number);
for the untiled kernels x48 blocks per launch. The halo along s1 of the
small run is charged 48 times, so the hex-tiled DRAM bytes are an upper
bound.

    /usr/bin/python3 bench/gpu_model_paper.py [NAME ...] [--dtype f32] [--chip sm_90]
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from stencil import gpumodel  # noqa: E402
from stencil.benchmarks import BENCHMARKS, PAPER_SIZES, time_loop_names  # noqa: E402
from stencil.compiler import find_stencil_opt  # noqa: E402
from stencil.profile import KEYS, profile_file  # noqa: E402

((PAPER, _), PAPER_STEPS) = PAPER_SIZES[2]
SMALL_S1, SMALL_STEPS = 64, 8
COUNTED = [k for k in KEYS if k not in ("kernel", "launches", "blocks", "threads_per_block")]


def scaled(entry, work, launches, blocks):
    """A profile entry with `launches` times the launches, `blocks` times the
    blocks per launch and `work` times the work per block."""
    out = dict(entry)
    for key in COUNTED:
        out[key] = entry[key] * work * launches * blocks
    out["launches"] = entry["launches"] * launches
    out["blocks"] = entry["blocks"] * launches * blocks
    return out


def model(path, hex_tile, chip):
    profile = profile_file(path, hex_tile=hex_tile)
    passes = ["--hex-tile"] if hex_tile is not None else []
    text = subprocess.run([find_stencil_opt(), str(path), *passes,
                           f"--convert-to-gpu=format=isa chip={chip}"],
                          capture_output=True, text=True, check=True).stdout
    stats, order = {}, []
    for _, ptx in gpumodel.ptx_from_module(text):
        kernel_stats = gpumodel.ptx_kernel_stats(ptx, gpumodel.run_ptxas(ptx, chip))
        stats.update(kernel_stats)
        order.extend(kernel_stats.values())
    s1 = PAPER / SMALL_S1
    launches = PAPER_STEPS / SMALL_STEPS
    entries = [scaled(e, s1 if hex_tile is not None else 1, launches,
                      1 if hex_tile is not None else s1) for e in profile["kernels"]]
    return gpumodel.model_program(entries, chip, ptx_stats=stats, steps=PAPER_STEPS,
                                  ptx_order=order)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--dtype", default="f32")
    parser.add_argument("--chip", default="sm_90")
    args = parser.parse_args(argv)
    names = args.names or time_loop_names(rank=2)
    print(f"Model ({gpumodel.device(args.chip).name}), {PAPER}^2 x {PAPER_STEPS} steps\n")
    print("| program | dtype | variant | model GStencils/s | bound | blocks/launch | "
          "resident blocks/SM | thread instructions/update | DRAM B/update |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            bench = BENCHMARKS[name]
            if bench.rank != 2:
                parser.error(f"{name} is not 2D")
            for dtype in args.dtype.split(","):
                path = Path(tmp) / f"{name}-{dtype}.mlir"
                path.write_text(bench.mlir((PAPER, SMALL_S1), SMALL_STEPS, dtype))
                for variant, hex_tile in (("untiled", None), ("hex-tiled", "")):
                    result = model(path, hex_tile, args.chip)
                    kernels = result["kernels"]
                    updates = sum(k["updates"] for k in kernels)
                    instructions = sum(k["instructions_per_thread"] * k["blocks_per_launch"]
                                       * k["launches"] * k["threads_per_block"] for k in kernels)
                    print(f"| {name} | {dtype} | {variant} | "
                          f"{result['model_gstencils_per_s']:.0f} | "
                          f"{', '.join(sorted({k['model_bound'] for k in kernels}))} | "
                          f"{', '.join(str(int(k['blocks_per_launch'])) for k in kernels[:2])} | "
                          f"{', '.join(str(k['resident_blocks_per_sm']) for k in kernels[:2])} | "
                          f"{instructions / updates:.0f} | "
                          f"{sum(k['dram_bytes'] for k in kernels) / updates:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
