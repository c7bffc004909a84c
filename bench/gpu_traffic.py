#!/usr/bin/env python3
"""Memory traffic of the GPU kernels, counted by the emulation's profiler
(docs/gpu.md, "Profiling and race checking the emulation"): for every
time-loop benchmark of python/stencil/benchmarks.py, untiled and hex-tiled
with each shared-memory promotion mode, per update: global load requests
(per warp) and sectors, global store requests, shared load requests,
bank-conflict replays, distinct DRAM bytes. Counted, not timed: no GPU
needed. Prints a Markdown table (docs/performance.md).

    /usr/bin/python3 bench/gpu_traffic.py [NAME ...] [--dtype f32,f64]
        [--variants untiled,none,interleaved,copy]
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from stencil.benchmarks import BENCHMARKS, program_parser, time_loop_names  # noqa: E402
from stencil.profile import profile_file  # noqa: E402

# Sizes small enough for the emulation, large enough for full tiles.
SHAPES = {1: ((4096,), 32), 2: ((128, 128), 16), 3: ((32, 32, 32), 8)}


def per_update(total):
    u = total["updates"]
    sectors = total["global_load_sectors"]
    return {
        "gl req": total["global_load_requests"] / u,
        "gl sectors": sectors / u,
        "gl eff": 100 * total["global_load_bytes_requested"] / (32 * sectors) if sectors else 0,
        "gs req": total["global_store_requests"] / u,
        "sh req": total["shared_load_requests"] / u,
        "replays": total["shared_bank_conflicts"] / u,
        "DRAM B": (total["global_bytes_read"] + total["global_bytes_written"]) / u,
    }


def main(argv=None):
    parser = program_parser(__doc__)
    parser.add_argument("--variants", default="untiled,none,interleaved")
    args = parser.parse_args(argv)
    names = args.names or time_loop_names()
    cols = ("gl req", "gl sectors", "gl eff", "gs req", "sh req", "replays", "DRAM B")
    print("| program | dtype | variant | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---:|" * len(cols))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            bench = BENCHMARKS[name]
            for dtype in args.dtype.split(","):
                shape, steps = SHAPES[bench.rank]
                path = Path(tmp) / f"{name}-{dtype}.mlir"
                path.write_text(bench.mlir(shape, steps, dtype))
                for variant in args.variants.split(","):
                    hex_tile = None if variant == "untiled" else ""
                    options = "" if variant == "untiled" else f"promote={variant}"
                    total = profile_file(path, hex_tile=hex_tile, gpu_options=options)["total"]
                    row = per_update(total)
                    cells = [f"{row[c]:.1f}%" if c == "gl eff" else f"{row[c]:.4f}" for c in cols]
                    print(f"| {name} {'x'.join(map(str, shape))}, {steps} steps | {dtype} | "
                          f"{variant} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
