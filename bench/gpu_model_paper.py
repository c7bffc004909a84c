#!/usr/bin/env python3
"""The performance model (python/stencil/gpumodel.py) at the papers' 2D size,
3072^2 x 512 steps, untiled against the headline command's hex-tiled
kernels (docs/performance.md, "Kernels sized for the device"). A model,
not a measurement.

The emulation cannot count 4.8 G updates, so the counts come from four
runs on 3072 x S1 points for N steps, with S1 in (128, 256) and N in (16,
32): they have the paper's grid along the hexagonal dimension s0 (the same
blocks per phase and the same tiles), and every count is extrapolated to
S1 = 3072, N = 512 as the bilinear function a + b S1 + c N + d S1 N that
the four runs determine: whole tiles along s1 and whole time tiles repeat,
and the partial tiles at the borders are counted once, as in the full run.
Instructions per update are the emulation's dynamic counts scaled to each
kernel's PTX (gpumodel.model_warp_instructions).

    /usr/bin/python3 bench/gpu_model_paper.py [NAME ...] [--dtype f32] [--chip sm_90]
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from benchlib import extrapolated_profiles, kernel_ptx  # noqa: E402
from stencil import gpumodel  # noqa: E402
from stencil.benchmarks import BENCHMARKS, PAPER_SIZES, program_parser, time_loop_names  # noqa: E402
from stencil.profile import profile_file  # noqa: E402

((PAPER, _), PAPER_STEPS) = PAPER_SIZES[2]
WIDTHS, STEPS = (128, 256), (16, 32)
RUNS = [(w, n) for w in WIDTHS for n in STEPS]


def model(paths, hex_tile, chip, gpu_options=""):
    # The emulation maps for the same chip as the PTX (its device table sizes
    # re-tiled hexagons).
    runs = [profile_file(p, hex_tile=hex_tile, gpu_options=f"chip={chip} {gpu_options}")["kernels"]
            for p in paths]
    if len({tuple(e["kernel"] for e in r) for r in runs}) != 1:
        raise RuntimeError(f"the runs {', '.join(map(str, paths))} launch different kernels")
    passes = [f"--hex-tile={hex_tile}" if hex_tile else "--hex-tile"] \
        if hex_tile is not None else []
    stats, order = kernel_ptx(paths[-1], passes, gpu_options, chip)
    # Bilinear in the width and the steps through the four RUNS.
    entries = extrapolated_profiles(runs, (WIDTHS, STEPS), (PAPER, PAPER_STEPS))
    return gpumodel.model_program(entries, chip, ptx_stats=stats, steps=PAPER_STEPS,
                                  ptx_order=order)


def main(argv=None):
    parser = program_parser(__doc__, "f32")
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
                paths = [Path(tmp) / f"{name}-{dtype}-{w}-{n}.mlir" for w, n in RUNS]
                for path, (w, n) in zip(paths, RUNS):
                    path.write_text(bench.mlir((PAPER, w), n, dtype))
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
