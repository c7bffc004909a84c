"""Helpers shared by the benchmarks that compile programs here and run them
on a GPU machine (bench/mpi_gpu_bench.py, bench/gpu_forms_bench.py): a
compiled library kept in a prepared directory and loaded there, timed calls
on device arrays, bit-for-bit comparison, one measurement in a child
process."""

import json
import pickle
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np


def keep(compiled, out, stem):
    """Copies a compiled library into `out`/lib (its CUDA runtime expected
    there too) and pickles its CompiledModule as `out`/STEM.pickle, with
    paths relative to `out`; returns the pickle's name."""
    out = Path(out)
    shutil.copy(compiled.library, out / "lib" / f"{stem}.so")
    compiled.library = f"lib/{stem}.so"
    if compiled.target == "cuda":
        compiled.runtime = "lib/libStencilCudaRuntime.so"
    with open(out / f"{stem}.pickle", "wb") as f:
        pickle.dump(compiled, f)
    return f"{stem}.pickle"


def load(root, pickled):
    with open(root / pickled, "rb") as f:
        compiled = pickle.load(f)
    compiled.library = str(root / compiled.library)
    if compiled.runtime:
        compiled.runtime = str(root / compiled.runtime)
    return compiled


def on_device(values):
    """The arrays as CuPy device arrays when CuPy is there (no copies inside
    the timed calls), else as they are."""
    try:
        import cupy
    except ImportError:
        return values, None
    return [cupy.asarray(v) for v in values], cupy


def timed_calls(lib, func, values, is_field, extra=(), runs=3, barrier=lambda: None):
    """Median seconds of `runs` calls (after one more, untimed), each from a
    copy of the fields in `values`; the fields after the last call (numpy)."""
    times, result = [], None
    for _ in range(runs + 1):
        fields, cupy = on_device([v.copy() for v, f in zip(values, is_field) if f])
        it = iter(fields)
        args = [next(it) if f else v for v, f in zip(values, is_field)]
        if cupy:
            cupy.cuda.Device().synchronize()
        barrier()
        start = time.perf_counter()
        lib.call(func, *args, *extra)
        barrier()
        times.append(time.perf_counter() - start)
        result = [cupy.asnumpy(f) if cupy else f for f in fields]
    return float(np.median(times[1:] or times)), result, cupy is not None


def same(got, want):
    """Bit for bit, except that any NaN equals any NaN (x86 and the GPU
    write different NaN bit patterns)."""
    return all(np.array_equal(g, w, equal_nan=True) and
               np.array_equal(np.where(np.isnan(g), 0, g).view(np.uint8),
                              np.where(np.isnan(w), 0, w).view(np.uint8))
               for g, w in zip(got, want))


def differences(got, want):
    """Per differing field: how many elements differ, the first of them and
    both values, the largest difference."""
    report = {}
    for i, (g, w) in enumerate(zip(got, want)):
        bad = ~((g == w) | (np.isnan(g) & np.isnan(w)))
        if bad.any():
            first = tuple(int(v) for v in np.argwhere(bad)[0])
            report[f"arg{i}"] = {"count": int(bad.sum()), "first": first,
                                 "got": float(g[first]), "want": float(w[first]),
                                 "max": float(np.nanmax(np.abs(g - w)))}
    return report


def child(cmd, env, timeout):
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode or not lines:
        return {"error": f"exit {out.returncode}: {(out.stderr or out.stdout)[-1500:]}"}
    return json.loads(lines[-1])
