#!/usr/bin/env python3
"""Resources of the GPU kernels at the papers' sizes (docs/performance.md,
"Kernels sized for the device"): for every time-loop benchmark of
python/stencil/benchmarks.py, in f32 and f64, the headline command
`--hex-tile --convert-to-gpu` (or other passes) is run; per kernel the
table gives the blocks per phase, the launch bound (.minnctapersm), the
registers, spill stores and shared memory from `ptxas -v`, the resident
blocks per SM these allow (the occupancy calculator of
python/stencil/gpumodel.py) and the compile time. Static: no GPU needed,
ptxas (CUDA toolkit) is.

    /usr/bin/python3 bench/gpu_resources.py [NAME ...] [--dtype f32,f64]
        [--chip sm_90] [--passes "--hex-tile --convert-to-gpu=format=isa"]

(--passes must lower to PTX text: --convert-to-gpu=format=isa.)
"""
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from stencil import gpumodel  # noqa: E402
from stencil.benchmarks import BENCHMARKS, PAPER_SIZES, program_parser, time_loop_names  # noqa: E402
from stencil.compiler import find_stencil_opt  # noqa: E402

# The papers' sizes (benchmarks.PAPER_SIZES); 1D, which they do not time,
# at 4M points.
PAPER = {1: ((1 << 22,), 512), **PAPER_SIZES}


def grid_blocks(path, passes):
    """Blocks per launch of each kernel (known_grid_size after outlining)."""
    mapped = [p.replace("format=isa", "host-to-llvm=false") for p in passes]
    text = subprocess.run([find_stencil_opt(), str(path), *mapped], capture_output=True,
                          text=True, check=True).stdout
    return [int(x) * int(y) * int(z) for x, y, z in
            re.findall(r"known_grid_size = array<i32: (\d+), (\d+), (\d+)>", text)]


def main(argv=None):
    parser = program_parser(__doc__)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--passes", default="--hex-tile --convert-to-gpu=format=isa")
    args = parser.parse_args(argv)
    names = args.names or time_loop_names()
    passes = shlex.split(args.passes)
    if not any(p.startswith("--convert-to-gpu=") and "format=isa" in p for p in passes):
        parser.error("--passes must contain --convert-to-gpu=format=isa")
    passes = [p + f" chip={args.chip}" if p.startswith("--convert-to-gpu=") else p
              for p in passes]
    dev = gpumodel.device(args.chip)
    opt = find_stencil_opt()
    print(f"Device: {dev.name}; passes: `{' '.join(passes)}`\n")
    print("| program | dtype | kernel | blocks/phase | .minnctapersm | registers | "
          "spill stores (B) | shared (B) | resident blocks/SM | compile (s) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            bench = BENCHMARKS[name]
            shape, steps = PAPER[bench.rank]
            for dtype in args.dtype.split(","):
                path = Path(tmp) / f"{name}-{dtype}.mlir"
                path.write_text(bench.mlir(shape, steps, dtype))
                start = time.perf_counter()
                out = subprocess.run([opt, str(path), *passes], capture_output=True, text=True)
                seconds = time.perf_counter() - start
                if out.returncode:
                    print(f"| {name} | {dtype} | failed: {out.stderr.strip().splitlines()[-1]} |")
                    continue
                grids = grid_blocks(path, passes)
                for i, (_, ptx) in enumerate(gpumodel.ptx_from_module(out.stdout)):
                    report = gpumodel.parse_ptxas_report(gpumodel.run_ptxas(ptx, args.chip))
                    bound = re.search(r"\.minnctapersm (\d+)", ptx)
                    threads = 1
                    for size in re.search(r"\.maxntid ([\d, ]+)", ptx).group(1).split(","):
                        threads *= int(size)
                    for stats in report.values():
                        resident = gpumodel.occupancy(dev, threads, stats["registers"],
                                                      stats["shared_bytes"])
                        print(f"| {name} | {dtype} | phase {i} | "
                              f"{grids[i] if i < len(grids) else '?'} | "
                              f"{bound.group(1) if bound else '-'} | {stats['registers']} | "
                              f"{stats['spill_stores']} | {stats['shared_bytes']} | "
                              f"{resident} | {seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
