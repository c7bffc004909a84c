"""Helpers shared by the benchmark scripts of bench/ (a module: the scripts
import it, it runs nothing).

Our code and the C baseline on the CPU (cpu_bench.py, tiling_bench.py,
fusion_bench.py, gpu_bench.py): compiling and calling both implementations
of a benchmark, timing, bit-for-bit comparison. And the runs on a GPU
machine of libraries compiled here (gpu_forms_bench.py, mpi_gpu_bench.py): a
compiled library kept in a prepared directory and loaded there, timed calls
on device arrays, comparison, one measurement in a child process.
"""

import ctypes
import json
import pickle
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

import numpy as np  # noqa: E402

from stencil import benchmarks as B  # noqa: E402
from stencil import cgen  # noqa: E402
from stencil.compiler import CompileError, compile_file  # noqa: E402
from stencil.runtime import StencilLibrary, memref_descriptor, numpy_dtype  # noqa: E402

CFLAGS = ["-O3", "-march=native", "-ffp-contract=off"]


def log(msg=""):
    print(msg, flush=True)


def short_error(e):
    """One line for an exception: the first 'error:' line of a tool's output."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() and not line.endswith("failed:"):
            return f"{lines[0]} {line}" if lines[0].endswith("failed:") else line
    return lines[0] if lines else type(e).__name__


def run_cmd(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise CompileError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n"
                           f"{proc.stderr}{proc.stdout}")
    return proc.stdout


class Variant:
    """A compiled implementation of one benchmark at one size: `call(arrays)`
    runs it on a dict of full-extent arrays (updated in place); `bind(arrays)`
    gives a zero-argument callable with the ctypes arguments built once."""

    def __init__(self, label, fields):
        self.label, self.fields = label, fields


class Ours(Variant):
    def __init__(self, spec, mlir_path, openmp, workdir, extra_passes=(), label="ours"):
        super().__init__(label + (" omp" if openmp else " seq"), spec.fields)
        self.name = spec.name
        self.lib = StencilLibrary(compile_file(str(mlir_path), openmp=openmp, workdir=workdir,
                                               extra_passes=extra_passes))
        self.fn = getattr(self.lib.lib, f"_mlir_ciface_{spec.name}")
        self.fn.restype = None

    def call(self, arrays):
        self.lib.call(self.name, *[arrays[f] for f in self.fields])

    def bind(self, arrays):
        # shape checks as in StencilLibrary.call, done once
        sig = self.lib.signature(self.name)
        descs = []
        for f, spec in zip(self.fields, sig.args):
            a = arrays[f]
            if (tuple(spec.shape) != a.shape or a.dtype != numpy_dtype(spec.dtype)
                    or not a.flags["C_CONTIGUOUS"]):
                raise ValueError(f"{self.name}: field {f} is {a.dtype}{a.shape}, "
                                 f"expected {spec.dtype}{spec.shape}")
            descs.append(memref_descriptor(a))
        args = [ctypes.byref(d) for d in descs]
        fn = self.fn

        def run():
            fn(*args)
        run.keep = (descs, arrays)
        return run


class CVersion(Variant):
    def __init__(self, spec, shape, steps, ety, openmp, workdir, cc, cflags,
                 polybench=False, label="C"):
        super().__init__(label + (" omp" if openmp else " seq"), spec.fields)
        self.spec, self.shape, self.ety = spec, tuple(shape), ety
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        src = workdir / f"{spec.name}.c"
        src.write_text(cgen.generate_c(spec.name, shape, steps, ety, openmp,
                                       polybench=polybench))
        self.library = workdir / f"libc_{spec.name}.so"
        flags = list(cflags) + (["-fopenmp"] if openmp else [])
        run_cmd([cc, *flags, "-fPIC", "-shared", "-o", str(self.library), str(src)])
        self.lib = ctypes.CDLL(str(self.library))
        self.fn = getattr(self.lib, cgen.c_symbol(spec.name))
        self.fn.restype = None
        self.fn.argtypes = [ctypes.c_void_p] * len(spec.fields)
        self.dtype = np.dtype(B.DTYPES[ety])
        self.full = spec.array_shape(shape)

    def _args(self, arrays):
        args = []
        for f in self.fields:
            a = arrays[f]
            if a.shape != self.full or a.dtype != self.dtype or not a.flags["C_CONTIGUOUS"]:
                raise ValueError(f"{self.spec.name}: field {f} is {a.dtype}{a.shape}, "
                                 f"expected {self.dtype}{self.full}")
            args.append(ctypes.c_void_p(a.ctypes.data))
        return args

    def call(self, arrays):
        self.fn(*self._args(arrays))

    def bind(self, arrays):
        args = self._args(arrays)
        fn = self.fn

        def run():
            fn(*args)
        run.keep = arrays
        return run


def bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def differences(got, want, fields):
    """Fields whose arrays are not bit-identical, with a short description."""
    bad = []
    for f in fields:
        if got[f].shape != want[f].shape or not np.array_equal(bits(got[f]), bits(want[f])):
            n = int((bits(got[f]) != bits(want[f])).sum()) if got[f].shape == want[f].shape else -1
            bad.append(f"{f} ({n} of {want[f].size} elements differ)")
    return bad


def written_field(spec, steps):
    if spec.time_loop:
        return next(iter(spec.final_buffers(steps).values()))
    return spec.outputs[0]


def inject(spec, steps, arrays):
    """Flip the last mantissa bit of one interior point of a written field
    (--inject-mismatch: shows that the check catches a difference)."""
    f = written_field(spec, steps)
    idx = tuple(h + n // 2 for h, n in zip(spec.radius, np.array(arrays[f].shape)
                                             - 2 * np.array(spec.radius)))
    bits(arrays[f])[idx] ^= 1


def timed(run, reps):
    """(wall seconds, system CPU seconds of the process) of `reps` calls."""
    sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    t0 = time.perf_counter()
    for _ in range(reps):
        run()
    t1 = time.perf_counter()
    return t1 - t0, resource.getrusage(resource.RUSAGE_SELF).ru_stime - sys0


def check_and_time(spec, variants, pristine, work, runs, points, label):
    """Runs every variant (name -> Variant) once from `pristine` and compares
    its fields bit for bit with the first one's, printing a MISMATCH line per
    difference; then `runs` interleaved timed runs. Returns (mismatches,
    GStencils/s per variant: `points` / median seconds / 1e9)."""
    def reset():
        for f in spec.fields:
            np.copyto(work[f], pristine[f])
    mismatches, golden = 0, None
    for who, v in variants.items():
        reset()
        v.bind(work)()
        if golden is None:
            golden = {f: work[f].copy() for f in spec.fields}
        first = next(iter(variants))
        for d in differences(work, golden, spec.fields):
            mismatches += 1
            print(f"MISMATCH {label}: {who} != {first}: {d}")
    runs_of = {who: v.bind(work) for who, v in variants.items()}
    times = {who: [] for who in variants}
    for _ in range(runs):
        for who in variants:
            reset()
            times[who].append(timed(runs_of[who], 1)[0])
    return mismatches, {who: points / statistics.median(t) / 1e9
                        for who, t in times.items()}


def parse_shape(text):
    return tuple(int(x) for x in re.split(r"[,x]", text) if x)


def work_directory(path, prefix):
    """The directory to build in and what removes it: `path` (created if
    missing) and None, or a temporary directory and its TemporaryDirectory
    (cleanup() removes it)."""
    if path:
        workdir = Path(path)
        workdir.mkdir(parents=True, exist_ok=True)
        return workdir, None
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    return Path(tmp.name), tmp


# --------------------------------------------------------------------------
# Runs on a GPU machine of libraries compiled here


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


def device_differences(got, want):
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


# --- the GPU performance model at sizes the emulation cannot run -----------

def extrapolated_profiles(runs, points, target):
    """The emulation profiles ([kernel entries] per run) of runs at the
    corners of the box `points` (two coordinates per variable; runs in
    itertools.product((0, 1), ...) order), extrapolated to `target`: every
    count of the work multilinear in the variables, per-kernel constants
    (threads, shared bytes, static instructions) as they are."""
    import itertools
    from stencil.profile import KEYS
    counted = [k for k in KEYS if k not in ("kernel", "threads_per_block",
                                            "shared_bytes_per_block", "static_instructions")]
    corners = list(itertools.product((0, 1), repeat=len(points)))

    def at_target(samples):
        total = 0.0
        for corner in corners:
            weight = 1.0
            for c, (a, b), x in zip(corner, points, target):
                t = (x - a) / (b - a)
                weight *= t if c else 1 - t
            total += weight * samples[corner]
        return total

    entries = []
    for per_run in zip(*runs):
        entry = dict(per_run[0])
        for key in counted:
            entry[key] = at_target({c: e[key] for c, e in zip(corners, per_run)})
        entries.append(entry)
    return entries


def kernel_ptx(path, passes, gpu_options, chip):
    """The PTX statistics (gpumodel.ptx_kernel_stats, with ptxas -v) of the
    kernels of the program in `path` after `passes` (stencil-opt flags),
    lowered with --convert-to-gpu=`gpu_options`: ({name: stats}, [stats in
    launch-site order])."""
    from stencil import gpumodel
    from stencil.compiler import find_stencil_opt
    text = subprocess.run([find_stencil_opt(), str(path), *passes,
                           f"--convert-to-gpu=format=isa chip={chip} {gpu_options}"],
                          capture_output=True, text=True, check=True).stdout
    stats, order = {}, []
    for _, ptx in gpumodel.ptx_from_module(text):
        kernel_stats = gpumodel.ptx_kernel_stats(ptx, gpumodel.run_ptxas(ptx, chip))
        stats.update(kernel_stats)
        order.extend(kernel_stats.values())
    return stats, order
