#!/usr/bin/python3
"""Distributed programs on GPUs: every rank's block runs on a CUDA device.

Each case is a program compiled with `compile_file(..., target="cuda",
distribute=GRID, halo_depth=H)` (the halo buffers staged through host
memory by libStencilMpi, docs/distributed.md "On GPUs"). On the GPU
machine it runs under mpirun; the gathered fields must equal, bit for bit,
the single-process CPU run of the same program on the same inputs (its
library built for x86-64-v2 where the cases were compiled, run on the GPU
machine), which the single-process GPU run must equal too. Times per
step: the single-process GPU run against the distributed one (all ranks of
this machine share its GPUs: on one GPU this shows the cost of the
exchanges and the staging, not scaling). With CuPy the fields stay on the
device between calls and the times are the calls alone; without it the
copies of the fields to the device and back are timed too.

A GPU machine may have CUDA, numpy and mpi4py but no LLVM/MLIR, so the
run splits in two, as bench/gpu_bench.py's does:

    # here (no GPU): compile every case, run the CPU references
    /usr/bin/python3 bench/mpi_gpu_bench.py --prepare DIR
    # there (CUDA driver, mpirun, python3 with numpy and mpi4py):
    PYTHONPATH=python python3 bench/mpi_gpu_bench.py --prepared DIR --json out.json

`--cuda-aware` also runs the first case with device pointers handed to MPI
($STENCIL_MPI_CUDA_AWARE=1; needs an MPI built with CUDA support),
`--sanitize` the smallest case under compute-sanitizer memcheck.
"""

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import benchlib  # noqa: E402
from benchlib import child, device_differences, load, same, timed_calls  # noqa: E402
from stencil import benchmarks, compiler, devito_forms, distributed, randomgen  # noqa: E402
from stencil.runtime import StencilLibrary, numpy_dtype  # noqa: E402

# (program, grid, halo depth, extra passes, overlap)
CASES = [
    ("jacobi2d-f32", "2", 1, (), True),
    ("jacobi2d-f32", "2", 1, (), False),
    ("jacobi2d-f32", "2", 4, (), True),
    ("jacobi2d-f32", "2", 5, ("hex-tile",), True),  # 6 blocks, then one of 2
    ("jacobi2d-f32", "2x2", 1, (), True),
    ("heat3d-f64", "2", 1, (), True),
    ("heat3d-f64", "2x2", 2, (), True),
    ("fdtd2d-f64", "2", 1, (), True),
    ("wave-o4", "2x1", 1, (), True),
    ("elastic2d-o4", "1x2", 2, (), True),
    ("random-7", "3", 1, (), True),
]


# Variants of the single-process GPU run (--convert-to-gpu options), each
# checked against the CPU too: which part of the GPU lowering a difference
# comes from.
GPU_VARIANTS = {"plain-loads": "read-only-loads=0", "upstream-addresses": "address-offsets=0",
                "sync-loops": "async-loops=0", "index64": "index-bitwidth=64", "O0": "O=0"}


STEPS, STEPS_DEVITO = 32, 16


def devito_form(name):
    """(family, order, shape) of a Devito form of CASES (FAMILY-oORDER, 2D),
    else None."""
    if "-o" not in name:
        return None
    family, order = name.rsplit("-o", 1)
    return family, int(order), (1024, 1024) if family == "wave" else (512, 512)


def program(name, workdir):
    """(path of the .mlir, C sources to link) of a program of CASES."""
    path = Path(workdir) / f"{name}.mlir"
    sources = []
    if name.startswith("random-"):
        # A random program of 2 or 3 dimensions at sizes no grid divides.
        rng = random.Random(int(name[7:]))
        prog = randomgen.random_program(rng, 0)
        while prog.rank == 1:
            prog = randomgen.random_program(rng, 0)
        prog.extra_store = None  # one store domain per function
        prog.shape = (301, 277) if prog.rank == 2 else (67, 61, 53)
        text = prog.mlir()
    elif devito_form(name):
        family, order, shape = devito_form(name)
        text = devito_forms.make(family, order, shape, STEPS_DEVITO).mlir()
        sources = [Path(workdir) / "timers.c"]
        sources[0].write_text(devito_forms.TIMERS_C)
    else:
        bench, dtype = name.split("-")
        shape = {"jacobi2d": (4096, 4096), "heat3d": (256, 256, 256),
                 "fdtd2d": (2048, 2048)}[bench]
        text = benchmarks.BENCHMARKS[bench].mlir(shape=shape, steps=STEPS, dtype=dtype)
    path.write_text(text)
    return path, [str(s) for s in sources]


def inputs_of(sig, seed=0):
    """Random fields, and a zeroed buffer for a frontend's pointer argument
    (Devito's timers)."""
    rng = np.random.default_rng(seed)
    return [rng.random(a.shape).astype(numpy_dtype(a.dtype))
            if isinstance(a, compiler.MemRefArg) else np.zeros(4096, np.uint8)
            for a in sig.args]


def prepare(out):
    """Compiles every case, and the single-process CPU and GPU runs of every
    program, into `out`."""
    out = Path(out)
    (out / "lib").mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="mpi-gpu-bench-"))
    for runtime in (compiler.find_cuda_runtime(), compiler.find_mpi_runtime()):
        shutil.copy(runtime, out / "lib")
    plan = {"programs": {}, "cases": []}
    # The steps after the last deep block exchange every step: expected.
    warnings.simplefilter("ignore", compiler.CompileWarning)

    def keep(compiled, stem):
        return benchlib.keep(compiled, out, stem)

    for name in dict.fromkeys(c[0] for c in CASES):
        path, sources = program(name, work)
        # The reference runs there too: for any x86-64 with SSE4.2.
        cpu = compiler.compile_file(str(path), extra_sources=sources, cpu="x86-64-v2")
        serial = compiler.compile_file(str(path), target="cuda", extra_sources=sources)
        variants = {v: keep(compiler.compile_file(str(path), target="cuda",
                                                  extra_sources=sources, gpu_options=o),
                            f"{name}-{v}")
                    for v, o in GPU_VARIANTS.items()}
        plan["programs"][name] = {"func": next(iter(cpu.signatures)),
                                  "cpu": keep(cpu, f"{name}-cpu"), "serial": keep(serial, name),
                                  "variants": variants, "form": devito_form(name),
                                  "steps": STEPS_DEVITO if devito_form(name) else STEPS}
        print(f"prepared {name}", flush=True)
    for i, (name, grid, depth, passes, overlap) in enumerate(CASES):
        path, sources = program(name, work)
        compiled = compiler.compile_file(str(path), target="cuda", extra_sources=sources,
                                         distribute=grid, halo_depth=depth,
                                         extra_passes=passes, overlap=overlap)
        ranks = int(np.prod([int(n) for n in grid.split("x")]))
        plan["cases"].append({"program": name, "grid": grid, "ranks": ranks, "depth": depth,
                              "passes": list(passes), "overlap": overlap,
                              "compiled": keep(compiled, f"case{i}")})
        print(f"prepared case {i}: {name} grid {grid} depth {depth} {' '.join(passes)}",
              flush=True)
    (out / "plan.json").write_text(json.dumps(plan, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def worker(root, kind, index, runs):
    """One measurement, in a child process (under mpirun for a case)."""
    plan = json.loads((root / "plan.json").read_text())
    if kind == "serial":
        # The single-process runs: the CPU reference and the GPU, on the same
        # inputs (kept in DIR/data for the distributed runs).
        name = list(plan["programs"])[index]
        entry = plan["programs"][name]
        cpu = StencilLibrary(load(root, entry["cpu"]))
        sig = cpu.signature(entry["func"])
        values = inputs_of(sig)
        if entry["form"]:  # a Devito form's own fields (no overflow), then its timers
            family, order, shape = entry["form"]
            form = devito_forms.make(family, order, tuple(shape), STEPS_DEVITO)
            fields = form.arguments(form.make_inputs(0))
            values = fields + values[len(fields):]
        data = root / "data"
        data.mkdir(exist_ok=True)
        np.savez(data / f"{name}-in.npz", *values)
        want = [v.copy() for v in values]
        start = time.perf_counter()
        cpu.call(entry["func"], *want)
        cpu_seconds = time.perf_counter() - start
        is_field = [isinstance(a, compiler.MemRefArg) for a in sig.args]
        want = [w for w, f in zip(want, is_field) if f]
        np.savez(data / f"{name}-want.npz", *want)
        lib = StencilLibrary(load(root, entry["serial"]))
        seconds, got, cupy = timed_calls(lib, entry["func"], values, is_field, runs=runs)
        result = {"same_cpu": same(got, want), "seconds": seconds, "cupy": cupy,
                  "cpu_seconds": cpu_seconds}
        if not result["same_cpu"]:
            result["differences"] = device_differences(got, want)
            for variant, pickled in entry.get("variants", {}).items():
                lib = StencilLibrary(load(root, pickled))
                _, got, _ = timed_calls(lib, entry["func"], values, is_field, runs=0)
                result[variant] = same(got, want) or device_differences(got, want)
        print(json.dumps(result))
        return
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    case = plan["cases"][index]
    name = case["program"]
    entry = plan["programs"][name]
    compiled = load(root, case["compiled"])
    distributed.select_device(comm)
    lib = StencilLibrary(compiled)
    dec = lib.signature(entry["func"]).decomposition
    values = list(np.load(root / "data" / f"{name}-in.npz").values())
    if comm.rank:
        values = [None if f else v for f, v in zip(dec.fields, values)]
    local = distributed.scatter(dec, values, comm)
    is_field = [f is not None for f in dec.fields]
    distributed.reset_counters()
    seconds, got, cupy = timed_calls(lib, entry["func"], local, is_field,
                                     [distributed.comm_pointer(comm)], runs, comm.Barrier)
    staged = comm.gather(distributed.staged_bytes())
    sent = comm.gather(distributed.counters())
    it = iter(got)
    local = [next(it) if f else v for v, f in zip(local, is_field)]
    distributed.gather(dec, local, values, comm)
    if comm.rank == 0:
        fields = [v for v, f in zip(values, is_field) if f]
        want = list(np.load(root / "data" / f"{name}-want.npz").values())
        print(json.dumps({"same_cpu": same(fields, want),
                          "seconds": seconds, "cupy": cupy,
                          "messages": max(s[0] for s in sent) // (runs + 1),
                          "bytes": max(s[1] for s in sent) // (runs + 1),
                          "staged": max(staged) // (runs + 1)}))


def run_prepared(args):
    root = Path(args.prepared).resolve()
    plan = json.loads((root / "plan.json").read_text())
    env = dict(os.environ, STENCIL_MPI_RUNTIME=str(root / "lib" / "libStencilMpi.so"),
               STENCIL_CUDA_RUNTIME=str(root / "lib" / "libStencilCudaRuntime.so"))
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(root / "lib"),
                                                           env.get("LD_LIBRARY_PATH")]))
    me = [sys.executable, str(Path(__file__).resolve())]
    results = {"programs": {}, "cases": []}

    def save():
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))

    for i, name in enumerate(plan["programs"]):
        r = child(me + ["--worker", f"{root}:serial:{i}:{args.runs}"], env, 300)
        results["programs"][name] = r
        print(f"{name}: single GPU {r}", flush=True)
        save()
    steps = {n: p["steps"] for n, p in plan["programs"].items()}
    extra = []
    if args.cuda_aware:
        extra.append((0, {"STENCIL_MPI_CUDA_AWARE": "1"}, "cuda-aware", []))
    if args.sanitize:
        extra.append((0, {}, "memcheck", ["compute-sanitizer", "--tool", "memcheck",
                                          "--error-exitcode", "3"]))
    jobs = [(i, {}, "", []) for i in range(len(plan["cases"]))] + extra
    failed = False
    for i, more, label, wrap in jobs:
        case = plan["cases"][i]
        runs, timeout = (1, 2 * args.timeout) if wrap else (args.runs, args.timeout)
        cmd = distributed.mpirun_command(case["ranks"], [me[1], "--worker",
                                                         f"{root}:case:{i}:{runs}"],
                                         timeout=timeout)
        if wrap:  # mpirun ... compute-sanitizer python3 -m mpi4py script
            at = cmd.index(sys.executable)
            cmd = cmd[:at] + wrap + cmd[at:]
        r = child(cmd, dict(env, **more), timeout + 30)
        r.update(case, label=label)
        single = results["programs"][case["program"]].get("seconds")
        if "seconds" in r:
            r["ms_per_step"] = 1e3 * r["seconds"] / steps[case["program"]]
            r["single_ms_per_step"] = single and 1e3 * single / steps[case["program"]]
        ok = r.get("same_cpu") and results["programs"][case["program"]].get("same_cpu")
        failed |= not ok and label != "cuda-aware"
        print(f"case {i} {label} {case['program']} grid {case['grid']} depth {case['depth']} "
              f"{' '.join(case['passes'])}{'' if case['overlap'] else ' no-overlap'}: "
              f"{'PASS' if ok else 'FAIL'} {r}", flush=True)
        results["cases"].append(r)
        save()
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prepare", metavar="DIR")
    ap.add_argument("--prepared", metavar="DIR")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=120, help="seconds per case")
    ap.add_argument("--json")
    ap.add_argument("--cuda-aware", action="store_true")
    ap.add_argument("--sanitize", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        root, kind, index, runs = args.worker.rsplit(":", 3)
        return worker(Path(root), kind, int(index), int(runs))
    if args.prepare:
        return prepare(args.prepare)
    if args.prepared:
        return run_prepared(args)
    ap.error("--prepare DIR or --prepared DIR")


if __name__ == "__main__":
    sys.exit(main())
