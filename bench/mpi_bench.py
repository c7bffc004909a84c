#!/usr/bin/python3
"""Halo traffic and time per step of distributed programs (docs/distributed.md).

This machine has two cores, so it cannot show scaling. For each program it
prints, per grid:

  counted   messages and bytes one rank sends per step, with halos
            exchanged every step (depth 1) and every --depth steps: on 1-2
            ranks libStencilMpi's counters in the real run, beyond that the
            steady state of the most interior rank read off the program
            --stencil-distribute emits (its exchanges and, with deep
            halos, the points it computes redundantly per step);
  measured  seconds per step on 1 and 2 ranks (two processes, one per core:
            the same program in one run each, median of --runs); on 2
            ranks with per-step halos also without overlapping the exchange
            with the interior computation, and with deep halos also with
            the steps between exchanges hex-tiled inside each rank;
  model     seconds per step at 8-512 ranks: the measured single-rank time
            per point times the points of the largest block plus the
            redundant ones, plus the messages times the latency and the
            bytes over the bandwidth (--latency, --bandwidth; defaults for
            a 100 Gb/s InfiniBand-class network). Labeled a model: nothing
            here ran on more than 2 cores.

Each real run is checked bit for bit against the single-process run first.

    /usr/bin/python3 bench/mpi_bench.py
    /usr/bin/python3 bench/mpi_bench.py --benchmarks jacobi2d --shape 2048,2048 --steps 20 --depth 4 --latency 2e-6 --bandwidth 12e9
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from stencil import benchmarks, compiler, distributed  # noqa: E402
from stencil.runtime import StencilLibrary  # noqa: E402


def worker(path):
    """Under mpirun: run the pickled case, print the counters and timing."""
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    with open(path, "rb") as f:
        case = pickle.load(f)
    lib = StencilLibrary(case["compiled"])
    sig = lib.signature(case["func"])
    dec = sig.decomposition
    rng = np.random.default_rng(0)
    if comm.rank == 0:
        values = [rng.random(tuple(u - l for l, u in zip(f.lb, f.ub))) for f in dec.fields]
    else:
        values = [None] * len(dec.fields)
    local = distributed.scatter(dec, values, comm)
    times = []
    for _ in range(case["runs"]):
        run = [a.copy() for a in local]  # every run from the same fields
        comm.Barrier()
        distributed.reset_counters()
        start = time.perf_counter()
        lib.call(sig.name, *run, distributed.comm_pointer(comm))
        comm.Barrier()
        times.append(time.perf_counter() - start)
    counters = comm.gather(distributed.counters())
    distributed.gather(dec, run, values, comm)
    if comm.rank == 0:
        reference = np.load(case["reference"])
        same = all(np.array_equal(v, reference[f"arg{i}"]) for i, v in enumerate(values))
        print(repr(dict(same=same, seconds=float(np.median(times)),
                        messages=max(c[0] for c in counters),
                        bytes=max(c[1] for c in counters),
                        exchanges=max(c[2] for c in counters))))


def run_case(compiled, func, ranks, reference, runs):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.pickle"
        with open(path, "wb") as f:
            pickle.dump(dict(compiled=compiled, func=func, reference=reference, runs=runs), f)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        cmd = distributed.mpirun_command(ranks, [__file__, "--worker", str(path)], timeout=900)
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stdout + out.stderr[-3000:])
        result = eval(out.stdout.strip().splitlines()[-1])
        if not result["same"]:
            raise SystemExit(f"{func} on {ranks} ranks differs from the single-process run")
        return result


def block_points(dec):
    return max(int(np.prod([hi - lo for lo, hi in dec.block(r)]
                           + [u - l for l, u in zip(dec.core_lb[len(dec.grid):],
                                                    dec.core_ub[len(dec.grid):])]))
               for r in range(dec.ranks))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--benchmarks", default="jacobi2d,heat3d")
    ap.add_argument("--shape", help="interior shape (default per benchmark)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--depth", type=int, default=4, help="deep halo: steps per exchange")
    ap.add_argument("--latency", type=float, default=1.5e-6, help="seconds per message")
    ap.add_argument("--bandwidth", type=float, default=12.5e9, help="bytes per second")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    # A single step after the last deep block exchanges on its own and
    # stays untiled: the compiler's warning about it is expected here.
    warnings.simplefilter("ignore", compiler.CompileWarning)
    shapes = {"jacobi2d": (2048, 2048), "heat3d": (160, 160, 160)}
    tmp = Path(tempfile.mkdtemp(prefix="mpi-bench-"))
    print(f"latency {args.latency:g} s, bandwidth {args.bandwidth:g} B/s (model inputs)")
    for name in args.benchmarks.split(","):
        shape = tuple(int(s) for s in args.shape.split(",")) if args.shape else shapes[name]
        path = tmp / f"{name}.mlir"
        path.write_text(benchmarks.BENCHMARKS[name].mlir(shape=shape, steps=args.steps, dtype="f64"))
        serial = compiler.compile_file(str(path))
        func = next(iter(serial.signatures))
        # The single-process reference and time.
        lib = StencilLibrary(serial)
        rng = np.random.default_rng(0)
        values = [rng.random(a.shape) for a in serial.signatures[func].args]
        start = time.perf_counter()
        lib.call(func, *values)
        t1 = time.perf_counter() - start
        ref = tmp / f"{name}-ref.npz"
        np.savez(ref, **{f"arg{i}": v for i, v in enumerate(values)})
        rank = len(shape)
        print(f"\n{name} {'x'.join(map(str, shape))}, {args.steps} steps, f64")
        print(f"{'grid':>8} {'ranks':>5} {'depth':>5} {'msgs/step':>9} {'bytes/step':>10} "
              f"{'points/rank':>11} {'redundant':>9} {'s/step':>10}  source")
        per_point = None
        for ranks in (1, 2, 8, 64, 512):
            grid = "x".join(map(str, distributed.balanced_grid(ranks, min(rank, 3))))
            # On 2 ranks, per-step halos also without overlapping the
            # exchange with the interior (--stencil-distribute overlap=false).
            # and with the steps between deep exchanges hex-tiled inside
            # each rank (block-loops).
            variants = [(1, True, None)] if ranks == 1 else [(1, True, None),
                                                             (args.depth, True, None)]
            if ranks == 2:
                variants.insert(1, (1, False, None))
                variants.append((args.depth, True, "hex-tile"))
            for depth, overlap, tiling in variants:
                compiled = compiler.compile_file(str(path), distribute=grid, halo_depth=depth,
                                                 overlap=overlap,
                                                 extra_passes=[tiling] if tiling else [])
                dec = compiled.signatures[func].decomposition
                points = block_points(dec)
                msgs, sent, redundant = interior_traffic(dec, path, depth, rolled=bool(tiling))
                row = f"{grid:>8} {ranks:>5} {depth:>5} "
                if ranks <= 2:
                    # Measured, and counted by the runtime (the most loaded
                    # rank, remainder steps included).
                    result = run_case(compiled, func, ranks, str(ref), args.runs)
                    seconds = result["seconds"] / args.steps
                    if ranks == 1:
                        per_point = seconds / points
                    print(row + f"{result['messages'] / args.steps:>9.2f} "
                          f"{result['bytes'] / args.steps:>10.0f} {points:>11} "
                          f"{redundant:>9.0f} {seconds:>10.3e}  measured"
                          + (" (2 cores)" if ranks == 2 else "")
                          + ("" if overlap else ", no overlap")
                          + (f", {tiling} inside ranks" if tiling else ""))
                    continue
                seconds = (per_point * (points + redundant) + msgs * args.latency
                           + sent / args.bandwidth)
                print(row + f"{msgs:>9.2f} {sent:>10.0f} {points:>11} {redundant:>9.0f} "
                      f"{seconds:>10.3e}  model (interior rank)")
        print(f"(single process without MPI: {t1 / args.steps:.3e} s/step)")
        # What --halo-depth auto would take with this machine's seconds per
        # point and the network above.
        choices = []
        for ranks in (2, 8, 64, 512):
            grid = "x".join(map(str, distributed.balanced_grid(ranks, min(rank, 3))))
            h, _ = distributed.choose_depth(str(path), grid, latency=args.latency,
                                            bandwidth=args.bandwidth, point_seconds=per_point)
            choices.append(f"{grid}: {h}")
        print(f"(halo depth the model picks: {', '.join(choices)})")


def interior_traffic(dec, path, depth, rolled=False):
    """Steady-state messages, bytes and redundant points per step of the
    most interior rank, from the program --stencil-distribute emits: swaps
    and stores inside a block loop (step = depth) count once per `depth`
    steps, the others every step, the shorter block of the steps left after
    the full ones not at all; an interior rank exchanges every entry.
    `rolled`: the block's steps are a loop (block-loops=true), each step
    storing the block's widest boxes."""
    import re
    grid = "x".join(map(str, dec.grid))
    options = f"grid={grid} depth={depth}" + (" block-loops=true" if rolled else "")
    text = compiler.prepare_file(str(path), (f"stencil-distribute={options}",))
    funcs = re.findall(r"func\.func private @(\w+_dmp_\w+)\(.*?\n  }\n", text, re.S)
    bodies = dict(re.findall(r"func\.func private @(\w+_dmp_\w+)(\(.*?\n  }\n)", text, re.S))
    # The copy without an end of the grid (l/h) in its name, else the first.
    name = next((f for f in funcs if not re.search(r"\d[lh]", f.split("_dmp_")[1])), funcs[0])
    msgs = sent = redundant = 0.0
    in_block = leftover = False
    elem = 4 if "xf32>" in bodies[name] else 8
    for line in bodies[name].splitlines():
        # The time loops are in the function's body (the rolled steps'
        # loop is nested in a block loop).
        if "scf.for" in line and line.startswith("    %"):
            step = re.search(r"step %c(\d+)", line)
            in_block = depth > 1 and step is not None and int(step.group(1)) == depth
            leftover = step is not None and int(step.group(1)) not in (1, depth)
        per_step = 0.0 if leftover else 1.0 / depth if in_block else 1.0
        if rolled and "stencil.store" in line and not leftover:
            per_step = 1.0
        if '"dmp.swap"' in line:
            for size in re.findall(r"size \[([\d, ]+)\]", line):
                msgs += per_step
                sent += per_step * elem * int(np.prod([int(v) for v in size.split(",")]))
        store = re.search(r"stencil\.store .*\(<\[([-\d, ]+)\], \[([-\d, ]+)\]>\)", line)
        if store and in_block:
            lo = [int(v) for v in store.group(1).split(",")]
            hi = [int(v) for v in store.group(2).split(",")]
            block = [b - a for a, b in dec.block(0)] + \
                [u - l for l, u in zip(dec.core_lb[len(dec.grid):], dec.core_ub[len(dec.grid):])]
            redundant += per_step * (np.prod([h - l for l, h in zip(lo, hi)]) - np.prod(block))
    return msgs, sent, redundant


if __name__ == "__main__":
    main()
