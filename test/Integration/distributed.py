# REQUIRES: mpi
# RUN: %python %s %t
# Programs decomposed over 1, 2, 3, 4 and 6 MPI ranks (mpirun --oversubscribe
# on this machine) as a new user would run them: every example, the
# Devito-form families (acoustic/heat, wave with three buffers, damped,
# coupled, loads after stores, elastic 2D/3D) at orders 2-8, and random
# stencils (random ranks, radii, asymmetric offsets, chained applies, sizes
# that do not divide, f32 and f64), on 1D/2D/3D process grids, sequential,
# OpenMP and through the GPU mapping emulated on the CPU (halos packed by
# kernels), with halos exchanged every step or deep halos every 2 or 3
# steps (some of them hex- or split-tiled inside the ranks), a program
# reading global positions (stencil.index), one with lower-rank
# coefficient fields and one with stores of different boxes: the gathered
# fields equal the single-process run bit for bit. Some programs are compiled once with grid=auto and that one
# library runs on every rank count, on the grid MPI_Dims_create chooses.
# Everything is compiled here first (two at a time); one mpirun per rank
# count runs its cases (this script again, with --worker).
import os
import pickle
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from stencil import compiler, distributed, randomgen
from stencil import devito_forms as df
from stencil.runtime import StencilLibrary, numpy_dtype


def initial(sig, shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.random(s).astype(numpy_dtype(a.dtype)) if s else
            np.zeros(4096, np.uint8) for a, s in zip(sig.args, shapes)]


def worker(cases_file):
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    with open(cases_file, "rb") as f:
        cases = pickle.load(f)
    failed = 0
    for case in cases:
        lib = StencilLibrary(case["compiled"])
        sig = lib.signature(case["func"])
        dec = sig.decomposition
        if comm.rank == 0:
            shapes = [tuple(u - l for l, u in zip(f.lb, f.ub)) if f else None
                      for f in dec.fields]
            values = initial(sig, shapes, case["seed"])
        else:
            values = [None if f else np.zeros(4096, np.uint8) for f in dec.fields]
        distributed.reset_counters()
        distributed.call(lib, sig.name, *values)
        messages = comm.allreduce(distributed.counters()[0])
        if comm.rank == 0:
            reference = np.load(case["reference"])
            same = all(np.array_equal(values[i], reference[f"arg{i}"])
                       for i, f in enumerate(dec.fields) if f)
            # Halos move exactly when there are several ranks and a load
            # reads what a neighbour wrote.
            moved = (messages > 0) == (comm.size > 1 and case["swaps"])
            status = "ok" if same and moved else "FAIL"
            failed += status != "ok"
            grid = "x".join(map(str, dec.for_ranks(comm.size).grid))
            print(f"{status} {case['label']} on {comm.size} ranks, grid "
                  f"{grid}{' (auto)' if dec.grids else ''}"
                  f"{' OpenMP' if case['openmp'] else ''}"
                  f"{' GPU code emulated' if case['emulate_gpu'] else ''}, "
                  f"halo depth {case['depth']}"
                  f"{', ' + case['tiling'] + ' inside ranks' if case['tiling'] else ''}"
                  f"{'' if case['overlap'] else ', no overlap'}: {messages} messages",
                  flush=True)
    if comm.rank == 0 and failed:
        sys.exit(f"{failed} distributed runs differ from the single-process run")


def main(workdir):
    workdir.mkdir(parents=True, exist_ok=True)
    examples = Path(__file__).parents[2] / "examples"
    timers = workdir / "timers.c"
    timers.write_text(df.TIMERS_C)
    programs = []  # (label, path, extra sources, deep halos allowed)
    for path in sorted(examples.glob("*.mlir")):
        programs.append((path.stem, path, (), True))
    n_examples = len(programs)
    for family, order, shape, steps in [
            ("heat", 4, (24, 20), 4), ("wave", 2, (24, 20), 4), ("damped-wave", 4, (24, 20), 3),
            ("coupled", 4, (16, 13, 14), 3), ("coupled-stale", 2, (24, 20), 3),
            ("elastic2d", 8, (24, 20), 3), ("elastic3d", 2, (16, 13, 14), 3),
            ("elastic3d", 8, (16, 13, 14), 2)]:
        prog = df.make(family, order, shape, steps)
        programs.append((prog.name, df.write_program(prog, workdir), (timers,), True))
    n_forms = len(programs) - n_examples
    rng = random.Random(17)
    for i in range(5):
        prog = randomgen.random_program(rng, i)
        prog.extra_store = None  # one store domain per function
        # Blocks at least as wide as the halo on the grids below (up to 6
        # ranks in 1D, 3 per dimension otherwise), and sizes that do not
        # divide.
        most = 6 if prog.rank == 1 else 3
        prog.shape = tuple(max(n, most * max(lo, hi, 1) + 1)
                           for n, lo, hi in zip(prog.shape, prog.halo_lo, prog.halo_hi))
        path = workdir / f"{prog.name}.mlir"
        path.write_text(prog.mlir())
        # Deep halos refuse rotating fields that may alias.
        programs.append((f"random {prog.name} ({prog.dtype}, rank {prog.rank})", path, (),
                         not prog.alias))

    # stencil.index: the positions every rank reads must be global.
    programs.append(("global position", Path(__file__).parent / "Inputs" / "global_position.mlir",
                     (), True))

    grids = {1: {1: "1", 2: "1", 3: "1"}, 2: {1: "2", 2: "1x2", 3: "2"},
             3: {1: "3", 2: "3", 3: "1x3"}, 4: {1: "4", 2: "2x2", 3: "2x1x2"},
             6: {1: "6", 2: "3x2", 3: "1x2x3"}}
    plan = {n: [] for n in grids}

    def domain_rank(path):
        sigs = compiler.signatures_of(compiler.lower_file(str(path)))
        return max(len(a.shape) for s in sigs.values() for a in s.args
                   if isinstance(a, compiler.MemRefArg))

    for k, (label, path, sources, deep_ok) in enumerate(programs):
        rank = domain_rank(path)
        # The Devito forms in 1D/2D and the random programs on two rank
        # counts (4 and another), the examples and the 3D forms on one.
        counts = [4, [1, 2, 3, 6][k % 4]]
        if k < n_examples or (rank == 3 and k < n_examples + n_forms):
            counts = [counts[k % 2]]
        for n in counts:
            depth = 1 + (k + n) % 3 if deep_ok and n > 1 else 1
            # The GPU mapping emulated on some 1D/2D programs (its unrolled
            # deep blocks in 3D take LLVM minutes to compile).
            emulate = k % 4 == 1 and rank < 3
            # Some deep runs of 1D/2D programs tile the steps between
            # exchanges inside each rank.
            tiling = (["hex-tile", "split-tile"][k % 2]
                      if depth > 1 and rank < 3 and (k + n) % 3 == 1 else None)
            plan[n].append(dict(label=label, path=path, sources=sources, tiling=tiling,
                                depth=min(depth, 2) if emulate else depth,
                                grid=grids[n][rank], openmp=(k + n) % 3 == 0, seed=k,
                                emulate_gpu=emulate,
                                # Exchanges overlap with computation by
                                # default; some runs wait first.
                                overlap=(k + n) % 5 != 2))

    # Lower-rank coefficient fields (1D and 2D profiles, cut where they lie
    # along a decomposed dimension).
    column = Path(__file__).parent / "Inputs" / "lower_rank_coefficients.mlir"
    for n, grid, depth, emulate in [(3, "3", 1, False), (4, "2x1x2", 2, False),
                                    (2, "2", 2, True)]:
        plan[n].append(dict(label="lower-rank coefficients", path=column, sources=(),
                            tiling=None, depth=depth, grid=grid, openmp=False,
                            seed=len(programs), emulate_gpu=emulate, overlap=True))

    # Stores of different boxes (the domain is their bounding box).
    narrower = Path(__file__).parent / "Inputs" / "narrower_stores.mlir"
    for n, grid, openmp, emulate in [(2, "2", False, True), (3, "3", True, False),
                                     (4, "2x2", False, False), (6, "6", False, False)]:
        plan[n].append(dict(label="narrower stores", path=narrower, sources=(),
                            tiling=None, depth=1, grid=grid, openmp=openmp,
                            seed=len(programs) + 10, emulate_gpu=emulate, overlap=n != 4))

    # grid=auto: one library per program for every rank count.
    auto = [dict(label="heat3d (grid=auto)", path=examples / "heat3d.mlir", sources=(),
                 tiling=None, depth=1, openmp=False, emulate_gpu=False, overlap=True),
            dict(label="damped-wave-o4 (grid=auto)", path=programs[n_examples + 2][1],
                 sources=(timers,), tiling=None, depth=2, openmp=True, emulate_gpu=False,
                 overlap=True),
            dict(label="global position (grid=auto)", path=programs[-1][1], sources=(),
                 tiling="hex-tile", depth=2, openmp=False, emulate_gpu=False, overlap=False),
            dict(label="lower-rank coefficients (grid=auto)", path=column, sources=(),
                 tiling=None, depth=1, openmp=False, emulate_gpu=True, overlap=True)]
    for i, case in enumerate(auto):
        case.update(grid="auto", seed=len(programs) + 1 + i)
        for cases in plan.values():
            cases.append(case)

    def build(case):
        while True:
            try:
                compiled = compiler.compile_file(str(case["path"]), openmp=case["openmp"],
                                                 emulate_gpu=case["emulate_gpu"],
                                                 extra_sources=case["sources"],
                                                 distribute=case["grid"],
                                                 halo_depth=case["depth"],
                                                 overlap=case["overlap"],
                                                 ranks=list(grids) if case["grid"] == "auto"
                                                 else None,
                                                 extra_passes=[case["tiling"]]
                                                 if case["tiling"] else [])
                break
            except compiler.CompileError as e:
                # A deep halo wider than the smallest block: a shallower one.
                if case["depth"] == 1 or "beyond its block" not in str(e):
                    raise
                case["depth"] -= 1
        case["compiled"] = compiled
        case["func"] = next(iter(compiled.signatures))
        case["swaps"] = "dmp.swap" in compiler.prepare_file(
            str(case["path"]), (f"stencil-distribute=grid={case['grid']} depth={case['depth']}"
                                + (f" ranks={','.join(map(str, grids))}"
                                   if case["grid"] == "auto" else ""),))
        return case

    def reference(case):
        # The global shapes from the decomposition (arguments may be `?`).
        compiled = compiler.compile_file(str(case["path"]), extra_sources=case["sources"])
        dec = case["compiled"].signatures[case["func"]].decomposition
        shapes = [tuple(u - l for l, u in zip(f.lb, f.ub)) if f else None
                  for f in dec.fields]
        lib = StencilLibrary(compiled)
        sig = compiled.signatures[case["func"]]
        values = initial(sig, shapes, case["seed"])
        lib.call(sig.name, *values)
        out = workdir / f"{Path(case['path']).stem}-{case['seed']}-reference.npz"
        np.savez(out, **{f"arg{i}": v for i, v in enumerate(values)})
        return case["label"], out

    with ThreadPoolExecutor(2) as pool:
        for cases in plan.values():
            list(pool.map(build, [c for c in cases if all(c is not a for a in auto)]))
        list(pool.map(build, auto))
        first = {}
        for cases in plan.values():
            for c in cases:
                first.setdefault(c["label"], c)
        serial = dict(pool.map(reference, first.values()))
    for cases in plan.values():
        for c in cases:
            c["reference"] = serial[c["label"]]

    deep = sum(c["depth"] > 1 for cases in plan.values() for c in cases)
    assert deep >= 10, f"only {deep} runs with deep halos"
    tiled = sum(bool(c["tiling"]) and c["depth"] > 1 for cases in plan.values() for c in cases)
    assert tiled >= 3, f"only {tiled} deep runs tiled inside the ranks"
    blocking = sum(not c["overlap"] for cases in plan.values() for c in cases)
    assert 3 <= blocking <= 15, f"{blocking} runs without overlap"
    env = dict(os.environ, OMP_NUM_THREADS="2")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(compiler.__file__).parents[1]),
                                                      env.get("PYTHONPATH")]))
    for n, cases in plan.items():
        cases_file = workdir / f"cases-{n}.pickle"
        with open(cases_file, "wb") as f:
            pickle.dump(cases, f)
        cmd = distributed.mpirun_command(n, [os.path.abspath(__file__), "--worker",
                                             str(cases_file)], timeout=300)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(proc.stdout, end="")
        if proc.returncode:
            print(proc.stderr[-4000:])
            sys.exit(f"mpirun -np {n} failed")


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main(Path(sys.argv[1]))
