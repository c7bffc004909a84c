#!/usr/bin/python3
"""Programs of Devito's forms (python/stencil/devito_forms.py) on a GPU:
untiled, the headline command (`--hex-tile --convert-to-gpu`), the same
with LLVM's loop strength reduction in the kernels
(`loop-strength-reduction=true`) and with full tiles isolated
(`--hex-tile=isolate=true`),
and `--split-tile --convert-to-gpu`, each checked bit for bit against the CPU
code of the same program on the form's own inputs (any NaN equals any NaN)
and timed (median of --runs calls after a warm-up, fields on the device
through CuPy when it is there).

Like bench/gpu_bench.py it splits in two, so that the GPU machine needs no
LLVM/MLIR:

    # here: compile every form and variant into DIR
    /usr/bin/python3 bench/gpu_forms_bench.py --prepare DIR
    # there: run them
    PYTHONPATH=python python3 bench/gpu_forms_bench.py --prepared DIR --json out.json

`--prepare DIR --emulate` compiles the GPU variants for the CPU emulation
instead (the same mapping, run here), to try the bench without a GPU.
Exits 1 when a variant differs from the CPU or fails.
"""

import argparse
import json
import os
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
from stencil import compiler, devito_forms  # noqa: E402
from stencil.runtime import StencilLibrary  # noqa: E402

# (family, space order, shape, steps): the 2D forms at 1024^2 and 2048^2,
# the 3D ones at 128^3 (elastic 3D: 9 fields; the hex kernels at order 4
# and 8 spill under two blocks per SM).
FORMS = [
    ("wave", 4, (2048, 2048), 32),
    ("elastic2d", 4, (1024, 1024), 16),
    ("elastic2d", 8, (1024, 1024), 16),
    ("heat", 8, (128, 128, 128), 16),
    ("elastic3d", 2, (128, 128, 128), 12),
    ("elastic3d", 4, (128, 128, 128), 12),
    ("elastic3d", 8, (128, 128, 128), 12),
]

# name -> (tiling passes, --convert-to-gpu options)
VARIANTS = {
    "untiled": ((), ""),
    "hex": (("hex-tile",), ""),
    # What the defaults replaced, for the next GPU to judge: LLVM's loop
    # strength reduction in the kernels (before session 45), and full
    # tiles isolated in the 2D forms (before session 44).
    "hex-lsr": (("hex-tile",), "loop-strength-reduction=true"),
    "hex-iso": (("hex-tile=isolate=true",), ""),
    "split": (("split-tile",), ""),
}


def form_name(family, order):
    return f"{family}-o{order}"


def prepare(out, emulate, forms):
    out = Path(out)
    (out / "lib").mkdir(parents=True, exist_ok=True)
    if not emulate:
        shutil.copy(compiler.find_cuda_runtime(), out / "lib")
    # The CPU reference runs with OpenMP there too; the GPU machine may lack
    # LLVM's OpenMP runtime (run_prepared puts DIR/lib on the library path).
    shutil.copy(Path(compiler.LLVM_LIB) / "libomp.so.5", out / "lib")
    work = Path(tempfile.mkdtemp(prefix="gpu-forms-bench-"))
    timers = work / "timers.c"
    timers.write_text(devito_forms.TIMERS_C)
    warnings.simplefilter("ignore", compiler.CompileWarning)
    plan = {"emulate": emulate, "forms": []}
    target = {"emulate_gpu": True} if emulate else {"target": "cuda"}
    for family, order, shape, steps in forms:
        name = form_name(family, order)
        path = work / f"{name}.mlir"
        path.write_text(devito_forms.make(family, order, shape, steps).mlir())
        cpu = compiler.compile_file(str(path), extra_sources=[str(timers)], openmp=True,
                                    cpu="x86-64-v2")
        entry = {"name": name, "family": family, "order": order, "shape": list(shape),
                 "steps": steps, "func": next(iter(cpu.signatures)),
                 "cpu": benchlib.keep(cpu, out, f"{name}-cpu"), "variants": {}}
        for variant, (passes, options) in VARIANTS.items():
            if emulate:  # the emulation takes the mapping's options only
                options = " ".join(o for o in options.split()
                                   if o.split("=")[0] in compiler.EMULATION_OPTIONS)
            compiled = compiler.compile_file(str(path), extra_sources=[str(timers)],
                                             extra_passes=passes, gpu_options=options,
                                             **target)
            entry["variants"][variant] = benchlib.keep(compiled, out, f"{name}-{variant}")
        plan["forms"].append(entry)
        print(f"prepared {name}", flush=True)
    (out / "plan.json").write_text(json.dumps(plan, indent=1))
    shutil.rmtree(work, ignore_errors=True)


def worker(root, index, runs, inject=False):
    """One form: the CPU reference, then every variant; prints a JSON line."""
    entry = json.loads((root / "plan.json").read_text())["forms"][index]
    form = devito_forms.make(entry["family"], entry["order"], tuple(entry["shape"]),
                             entry["steps"])
    cpu = StencilLibrary(load(root, entry["cpu"]))
    sig = cpu.signature(entry["func"])
    is_field = [isinstance(a, compiler.MemRefArg) for a in sig.args]
    fields = form.arguments(form.make_inputs(0))
    values = fields + [np.zeros(4096, np.uint8) for f in is_field[len(fields):] if not f]
    want = [v.copy() for v in values]  # host arrays: the CPU code
    start = time.perf_counter()
    cpu.call(entry["func"], *want)
    cpu_seconds = time.perf_counter() - start
    want = [w for w, f in zip(want, is_field) if f]
    points = int(np.prod(entry["shape"])) * entry["steps"]
    result = {"cpu_seconds": cpu_seconds, "points": points, "variants": {}}
    for variant, pickled in entry["variants"].items():
        try:
            lib = StencilLibrary(load(root, pickled))
            seconds, got, cupy = timed_calls(lib, entry["func"], values, is_field, runs=runs)
        except Exception as e:  # noqa: BLE001 -- reported, the others still run
            result["variants"][variant] = {"error": str(e)[-800:]}
            continue
        if inject and variant == list(entry["variants"])[-1]:
            got[0].view(np.uint8).flat[0] ^= 1  # --inject-mismatch: one bit flipped
        r = {"seconds": seconds, "gstencils": points / seconds / 1e9, "cupy": cupy,
             "same_cpu": same(got, want)}
        if not r["same_cpu"]:
            r["differences"] = device_differences(got, want)
        result["variants"][variant] = r
    print(json.dumps(result))


def run_prepared(args):
    root = Path(args.prepared).resolve()
    plan = json.loads((root / "plan.json").read_text())
    env = dict(os.environ, STENCIL_CUDA_RUNTIME=str(root / "lib" / "libStencilCudaRuntime.so"))
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(root / "lib"),
                                                           env.get("LD_LIBRARY_PATH")]))
    results, ok = {}, True
    for i, entry in enumerate(plan["forms"]):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", f"{root}:{i}:{args.runs}"]
        if args.inject_mismatch:
            cmd.append("--inject-mismatch")
        r = child(cmd, env, args.timeout)
        results[entry["name"]] = r
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
        ok &= "error" not in r and all(v.get("same_cpu") for v in r["variants"].values())
        print(f"{entry['name']} {'x'.join(map(str, entry['shape']))} x {entry['steps']}: "
              + (r["error"] if "error" in r else "  ".join(
                  f"{v} " + (f"{x['gstencils']:.2f} GSt/s {'equal' if x['same_cpu'] else 'DIFFERS'}"
                             if "error" not in x else "ERROR")
                  for v, x in r["variants"].items())), flush=True)
    print(table(plan, results))
    return 0 if ok else 1


def table(plan, results):
    names = list(VARIANTS)
    lines = ["| form | size | CPU (OpenMP) s | " + " | ".join(f"{n} GStencils/s" for n in names)
             + " | equal to the CPU |", "|---|---|---:|" + "---:|" * len(names) + "---|"]
    for entry in plan["forms"]:
        r = results.get(entry["name"], {})
        if "error" in r or not r:
            lines.append(f"| {entry['name']} | | | {r.get('error', 'not run')[:80]} |")
            continue
        v = r["variants"]
        cells = [f"{v[n]['gstencils']:.2f}" if "gstencils" in v.get(n, {}) else "error"
                 for n in names]
        equal = [n for n in names if v.get(n, {}).get("same_cpu")]
        lines.append(f"| {entry['name']} | {'x'.join(map(str, entry['shape']))} x "
                     f"{entry['steps']} | {r['cpu_seconds']:.3f} | " + " | ".join(cells)
                     + f" | {', '.join(equal) if len(equal) < len(names) else 'all'} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--prepare", metavar="DIR")
    p.add_argument("--emulate", action="store_true",
                   help="with --prepare: the GPU variants for the CPU emulation")
    p.add_argument("--forms", help="comma-separated FAMILY-oORDER of FORMS (default: all)")
    p.add_argument("--shrink", type=int, default=1,
                   help="with --prepare: divide every size by this (a quick try)")
    p.add_argument("--prepared", metavar="DIR")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--timeout", type=int, default=240, help="seconds per form")
    p.add_argument("--json")
    p.add_argument("--inject-mismatch", action="store_true",
                   help="flip one bit of the last variant's result (the run must fail)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        root, index, runs = args.worker.rsplit(":", 2)
        worker(Path(root), int(index), int(runs), args.inject_mismatch)
        return 0
    if args.prepare:
        forms = [(f, o, tuple(max(8, s // args.shrink) for s in shape), steps)
                 for f, o, shape, steps in FORMS
                 if not args.forms or form_name(f, o) in args.forms.split(",")]
        prepare(args.prepare, args.emulate, forms)
        return 0
    if args.prepared:
        return run_prepared(args)
    p.error("give --prepare DIR or --prepared DIR")


if __name__ == "__main__":
    sys.exit(main())
