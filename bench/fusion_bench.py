#!/usr/bin/python3
"""CPU benchmark of fusion on the multi-apply benchmarks beyond the caches.

For each benchmark (python/stencil/benchmarks.py; default the single sweeps
hdiff and laplap and the five-statement fdtd-2d step), per dtype and mode
(sequential, OpenMP), in one process and on the same arrays:

  C         the same loop nests in C, cc -O3 -march=native -ffp-contract=off,
            one nest per apply with full-size intermediates (bench/cpu_bench.py's
            baseline; OpenMP on the outer space loop);
  unfused   stencil-opt's reference lowering: one loop nest per apply, the
            intermediates in full-size arrays;
  inlined   after --stencil-inlining: one loop nest, each intermediate
            recomputed at every point that reads it (fusion by recomputation);
  fused     after --fuse (sizes from the model, or --fuse-options): one tiled
            loop nest, the intermediates computed once per tile and its halo
            into tile-local buffers (fusion by scheduling).

Every variant's result is first compared bit for bit with C's; then --runs
interleaved runs give the median time and GStencils/s = interior points x
steps / seconds / 1e9.

    /usr/bin/python3 bench/fusion_bench.py --openmp
    /usr/bin/python3 bench/fusion_bench.py laplap --shape 4096,4096 --fuse-options tile=16,512
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
from benchlib import B, np  # noqa: E402

SHAPES = {"hdiff": (256, 256, 64), "laplap": (4096, 4096), "fdtd2d": (3072, 3072)}
STEPS = {"hdiff": 1, "laplap": 1, "fdtd2d": 8}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("examples", nargs="*", default=list(SHAPES))
    p.add_argument("--dtype", default="f64")
    p.add_argument("--shape", help="interior extent, e.g. 3072,3072")
    p.add_argument("--steps", type=int)
    p.add_argument("--fuse-options", default="", help="--fuse options (default: the model's)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--openmp", action="store_true", help="also the OpenMP variants")
    p.add_argument("--cc", default="cc")
    args = p.parse_args(argv)
    fuse = f"fuse={args.fuse_options}" if args.fuse_options else "fuse"
    workdir = Path(tempfile.mkdtemp(prefix="fusion-bench-"))
    failures = 0
    names = ["C", "unfused", "inlined", "fused"]
    print(f"{'example':8} {'dtype':5} {'shape':>14} {'steps':>5} {'mode':4} "
          + " ".join(f"{n:>8}" for n in names) + "  GStencils/s; "
          + " ".join(f"{n}/unfused" for n in names[2:]))
    for name in args.examples:
        spec = B.BENCHMARKS[name]
        shape = (tuple(map(int, args.shape.split(","))) if args.shape
                 else SHAPES.get(name, (1024,) * spec.rank))
        steps = args.steps or STEPS.get(name, 1)
        for ety in args.dtype.split(","):
            pristine = B.make_inputs(name, shape, ety, seed=1)
            work = {f: np.empty_like(a) for f, a in pristine.items()}
            for openmp in ((False, True) if args.openmp else (False,)):
                mode = "omp" if openmp else "seq"
                wd = workdir / f"{name}-{ety}-{mode}"
                wd.mkdir(parents=True)
                mlir = wd / f"{name}.mlir"
                mlir.write_text(spec.mlir(shape, steps, ety))
                variants = {
                    "C": benchlib.CVersion(spec, shape, steps, ety, openmp, wd / "c", args.cc,
                                     benchlib.CFLAGS),
                    "unfused": benchlib.Ours(spec, mlir, openmp, wd / "unfused"),
                    "inlined": benchlib.Ours(spec, mlir, openmp, wd / "inlined",
                                       ("stencil-inlining",), "inlined"),
                    "fused": benchlib.Ours(spec, mlir, openmp, wd / "fused", (fuse,), "fused"),
                }
                mismatches, g = benchlib.check_and_time(spec, variants, pristine, work, args.runs,
                                                  int(np.prod(shape)) * max(steps, 1),
                                                  f"{name} {ety} {mode}")
                failures += mismatches
                print(f"{name:8} {ety:5} {'x'.join(map(str, shape)):>14} {steps:>5} {mode:4} "
                      + " ".join(f"{g[n]:8.3f}" for n in names) + "  "
                      + " ".join(f"{g[n] / g['unfused']:6.2f}x" for n in names[2:]),
                      flush=True)
    print("all results bit-identical" if not failures else f"{failures} MISMATCHES")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
