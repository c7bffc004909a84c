#!/usr/bin/python3
"""CPU benchmark of time tiling (hybrid hexagonal, split) beyond the caches.

For each benchmark with a time loop (python/stencil/benchmarks.py), per dtype
and mode (sequential, OpenMP), in one process and on the same arrays:

  C         the same loop nest in C, cc -O3 -march=native -ffp-contract=off
            (bench/cpu_bench.py's baseline; OpenMP on the outer space loop);
  untiled   stencil-opt's reference lowering (compile_file);
  hex-tiled the same program after --hex-tile (default or given sizes);
  split     the same program after --split-tile (default or given sizes);
  hex0, split0
            with --fixed: the same after --hex-tile=model=false and
            --split-tile=model=false (the fixed default sizes instead of
            the tile-size model's);
  polly     with --polly: the same loop nests in PolyBench's form (two steps
            per iteration on fixed buffers, static sizes; cgen.py
            polybench=True) compiled by clang-22 -O3 -march=native
            -ffp-contract=off -mllvm -polly (OpenMP: -mllvm -polly-parallel
            -fopenmp, no pragmas: Polly parallelizes), the polyhedral peer.

Every variant's result is first compared bit for bit with C's; then --runs
interleaved runs give the median time and GStencils/s = interior points x
steps / seconds / 1e9.

    /usr/bin/python3 bench/tiling_bench.py                          # defaults
    /usr/bin/python3 bench/tiling_bench.py jacobi2d --shape 3072,3072 --steps 64
    /usr/bin/python3 bench/tiling_bench.py heat2d --hex "h=7 widths=32,1024"
    /usr/bin/python3 bench/tiling_bench.py heat2d --split "h=8 widths=64,1024"
    /usr/bin/python3 bench/tiling_bench.py --polly --openmp      # with Polly (apt-get install clang-22)
    /usr/bin/python3 bench/tiling_bench.py --fixed               # the model's sizes and the fixed ones
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
from benchlib import B, np  # noqa: E402
from stencil.compiler import find_stencil_opt  # noqa: E402

SHAPES = {1: (1 << 22,), 2: (3072, 3072), 3: (256, 256, 256)}
STEPS = {1: 64, 2: 32, 3: 16}
EXAMPLES = ["jacobi1d_3pt", "jacobi2d", "heat2d", "fdtd2d", "laplace3d", "heat3d"]


def model_choice(mlir, tiling, options):
    """The sizes the tile-size model chose (its `report` remark), the fixed
    defaults when no tile fits its budget, or ''."""
    run = subprocess.run([find_stencil_opt(), str(mlir),
                          f"--{tiling}-tile={' '.join(filter(None, (options, 'report')))}",
                          "-o", "/dev/null"],
                         capture_output=True, text=True)
    found = re.search(r"sizes (h=\S+ widths=\S+) \(model\): (\S+)", run.stderr)
    if found:
        return f"{found.group(1)} ({found.group(2)} loads+stores/update)"
    return "fixed defaults (no tile within the budget)" if "no tile within" in run.stderr else ""


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("examples", nargs="*", default=EXAMPLES)
    p.add_argument("--dtype", default="f64")
    p.add_argument("--shape", help="interior extent, e.g. 3072,3072")
    p.add_argument("--steps", type=int)
    p.add_argument("--hex", default="", help="--hex-tile options (default: the pass's)")
    p.add_argument("--split", default="", help="--split-tile options (default: the pass's)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--openmp", action="store_true", help="also the OpenMP variants")
    p.add_argument("--fixed", action="store_true",
                   help="also the tilings with the fixed default sizes (model=false)")
    p.add_argument("--cc", default="cc")
    p.add_argument("--polly", action="store_true",
                   help="also the loop nests compiled by clang-22 with Polly")
    p.add_argument("--clang", default="clang-22", help="the clang with Polly (--polly)")
    args = p.parse_args(argv)
    if args.polly and not shutil.which(args.clang):
        p.error(f"--polly needs {args.clang} (apt-get install clang-22)")
    args.cflags = benchlib.CFLAGS
    hex_pass = f"hex-tile={args.hex}" if args.hex else "hex-tile"
    split_pass = f"split-tile={args.split}" if args.split else "split-tile"
    workdir = Path(tempfile.mkdtemp(prefix="tiling-bench-"))
    failures = 0
    names = (["C", "untiled", "hex", "split"] + (["hex0", "split0"] if args.fixed else [])
             + (["polly"] if args.polly else []))
    print(f"{'example':14} {'dtype':5} {'shape':>16} {'steps':>5} {'mode':4} "
          + " ".join(f"{n:>8}" for n in names) + "  GStencils/s; "
          + " ".join(f"{n}/untiled" for n in names[2:]))
    for name in args.examples:
        spec = B.BENCHMARKS[name]
        rank = spec.rank
        shape = tuple(map(int, args.shape.split(","))) if args.shape else SHAPES[rank]
        steps = args.steps or STEPS[rank]
        for ety in args.dtype.split(","):
            pristine = B.make_inputs(name, shape, ety, seed=1)
            work = {f: np.empty_like(a) for f, a in pristine.items()}
            for openmp in ((False, True) if args.openmp else (False,)):
                mode = "omp" if openmp else "seq"
                wd = workdir / f"{name}-{ety}-{mode}"
                wd.mkdir(parents=True)
                mlir = wd / f"{name}.mlir"
                mlir.write_text(spec.mlir(shape, steps, ety))
                if not openmp:
                    for tiling, options in (("hex", args.hex), ("split", args.split)):
                        choice = model_choice(mlir, tiling, options)
                        if choice:
                            print(f"# {name} {ety} {tiling}: "
                                  + (choice if choice.startswith("fixed") else f"the model's {choice}"))
                variants = {
                    "C": benchlib.CVersion(spec, shape, steps, ety, openmp, wd / "c", args.cc,
                                     args.cflags),
                    "untiled": benchlib.Ours(spec, mlir, openmp, wd / "untiled"),
                    "hex": benchlib.Ours(spec, mlir, openmp, wd / "hex", (hex_pass,), "hex"),
                    "split": benchlib.Ours(spec, mlir, openmp, wd / "split", (split_pass,), "split"),
                }
                if args.fixed:
                    for tiling in ("hex", "split"):
                        variants[tiling + "0"] = benchlib.Ours(spec, mlir, openmp, wd / (tiling + "0"),
                                                         (f"{tiling}-tile=model=false",),
                                                         tiling + "0")
                if args.polly:
                    polly = ["-mllvm", "-polly"] + (["-mllvm", "-polly-parallel", "-fopenmp"]
                                                    if openmp else [])
                    variants["polly"] = benchlib.CVersion(spec, shape, steps, ety, False,
                                                    wd / "polly", args.clang,
                                                    args.cflags + polly, polybench=True,
                                                    label="polly")
                mismatches, g = benchlib.check_and_time(spec, variants, pristine, work, args.runs,
                                                  int(np.prod(shape)) * steps,
                                                  f"{name} {ety} {mode}")
                failures += mismatches
                print(f"{name:14} {ety:5} {'x'.join(map(str, shape)):>16} {steps:>5} {mode:4} "
                      + " ".join(f"{g[n]:8.3f}" for n in names) + "  "
                      + " ".join(f"{g[n] / g['untiled']:6.2f}x" for n in names[2:]),
                      flush=True)
    print("all results bit-identical" if not failures else f"{failures} MISMATCHES")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
