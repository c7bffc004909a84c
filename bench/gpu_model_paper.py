#!/usr/bin/env python3
"""The performance model (python/stencil/gpumodel.py) at the papers' 2D size,
3072^2 x 512 steps, untiled against the headline command's hex-tiled
kernels (docs/performance.md, "Kernels sized for the device"). A model,
not a measurement.

The emulation cannot count 4.8 G updates, so the counts come from runs on
3072 x 64 points, which have the paper's grid along the hexagonal
dimension s0 (the same blocks per phase and the same tiles) but one
parallelogram tile along s1 instead of 48. Two runs, of 16 and 32 steps,
give the steady state: their difference is the cost of 16 steps of whole
time tiles, extrapolated to 512 steps from the 16-step run (the first time
tiles, partly empty, are counted once, as in the long run). Then, for the
hex-tiled kernels, x48 work per block (each block walks its parallelogram
tiles along s1 in sequence: requests, bytes, barriers, updates and
instructions grow with their number); for the untiled kernels x48 blocks
per launch. The halo along s1 of the small run is charged 48 times, so the
hex-tiled DRAM bytes are an upper bound. Instructions per update are the
emulation's dynamic counts scaled to each kernel's PTX
(gpumodel.model_warp_instructions).

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
SMALL_S1, SHORT, LONG = 64, 16, 32
# Counts that grow with the work of a block (not per-kernel constants).
COUNTED = [k for k in KEYS if k not in ("kernel", "launches", "blocks", "threads_per_block",
                                        "static_instructions")]


def extrapolated(short, long, work, blocks):
    """The profile entry of a kernel at the paper's step count from its
    entries of the SHORT- and LONG-step runs, with `blocks` times the
    blocks per launch and `work` times the work per block."""
    out = dict(short)
    repeats = (PAPER_STEPS - SHORT) / (LONG - SHORT)
    for key in COUNTED + ["launches", "blocks"]:
        out[key] = short[key] + repeats * (long[key] - short[key])
    for key in COUNTED:
        out[key] *= work * blocks
    out["blocks"] *= blocks
    return out


def model(paths, hex_tile, chip, gpu_options=""):
    short, long = (profile_file(p, hex_tile=hex_tile, gpu_options=gpu_options)["kernels"]
                   for p in paths)
    if [e["kernel"] for e in short] != [e["kernel"] for e in long]:
        raise RuntimeError(f"{paths[0]} and {paths[1]} launch different kernels")
    passes = [f"--hex-tile={hex_tile}" if hex_tile else "--hex-tile"] \
        if hex_tile is not None else []
    text = subprocess.run([find_stencil_opt(), str(paths[1]), *passes,
                           f"--convert-to-gpu=format=isa chip={chip} {gpu_options}"],
                          capture_output=True, text=True, check=True).stdout
    stats, order = {}, []
    for _, ptx in gpumodel.ptx_from_module(text):
        kernel_stats = gpumodel.ptx_kernel_stats(ptx, gpumodel.run_ptxas(ptx, chip))
        stats.update(kernel_stats)
        order.extend(kernel_stats.values())
    s1 = PAPER / SMALL_S1
    entries = [extrapolated(a, b, s1 if hex_tile is not None else 1,
                            1 if hex_tile is not None else s1) for a, b in zip(short, long)]
    return gpumodel.model_program(entries, chip, ptx_stats=stats, steps=PAPER_STEPS,
                                  ptx_order=order)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--dtype", default="f32")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--hex-tile", default="", metavar="OPTIONS",
                        help="options of --hex-tile, e.g. 'h=3 widths=16,64' (default: none, "
                             "the headline command's sizes)")
    parser.add_argument("--gpu-options", default="", metavar="OPTIONS",
                        help="options of --convert-to-gpu for the hex-tiled kernels, e.g. "
                             "'threads=64,4'")
    parser.add_argument("--variants", default="untiled,hex-tiled",
                        help="which of untiled,hex-tiled to model")
    args = parser.parse_args(argv)
    names = args.names or time_loop_names(rank=2)
    print(f"Model ({gpumodel.device(args.chip).name}), {PAPER}^2 x {PAPER_STEPS} steps\n")
    print("| program | dtype | variant | model GStencils/s | bound | blocks/launch | "
          "resident blocks/SM | thread instructions/update | issue slots/update | "
          "DRAM B/update |")
    print("|---|---|---|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            bench = BENCHMARKS[name]
            if bench.rank != 2:
                parser.error(f"{name} is not 2D")
            for dtype in args.dtype.split(","):
                paths = [Path(tmp) / f"{name}-{dtype}-{steps}.mlir" for steps in (SHORT, LONG)]
                for path, steps in zip(paths, (SHORT, LONG)):
                    path.write_text(bench.mlir((PAPER, SMALL_S1), steps, dtype))
                for variant, hex_tile in (("untiled", None), ("hex-tiled", args.hex_tile)):
                    if variant not in args.variants.split(","):
                        continue
                    result = model(paths, hex_tile, args.chip,
                                   args.gpu_options if hex_tile is not None else "")
                    kernels = result["kernels"]
                    updates = sum(k["updates"] for k in kernels)
                    instructions = sum(k["instructions_per_thread"] * k["blocks_per_launch"]
                                       * k["launches"] * k["threads_per_block"] for k in kernels)
                    issued = sum(32 * k["warp_instructions_per_launch"] * k["launches"]
                                 for k in kernels)
                    print(f"| {name} | {dtype} | {variant} | "
                          f"{result['model_gstencils_per_s']:.0f} | "
                          f"{', '.join(sorted({k['model_bound'] for k in kernels}))} | "
                          f"{', '.join(str(int(k['blocks_per_launch'])) for k in kernels[:2])} | "
                          f"{', '.join(str(k['resident_blocks_per_sm']) for k in kernels[:2])} | "
                          f"{instructions / updates:.0f} | {issued / updates:.0f} | "
                          f"{sum(k['dram_bytes'] for k in kernels) / updates:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
