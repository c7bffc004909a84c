#!/usr/bin/python3
"""GPU benchmark: hex-tiled and untiled compiled code against naive CUDA.

For every benchmark with a time loop of python/stencil/benchmarks.py (1D
jacobi 3/5/7-point, 2D laplace/heat/gradient/jacobi/poisson/fdtd2d, 3D
laplace/heat27/gradient), in f32 and f64, four measurements on one GPU:

  hex       the MLIR program compiled by stencil.compiler.compile_file(...,
            target="cuda", extra_passes=("hex-tile=OPTS",),
            gpu_options="threads=X,Y[,Z] ...") -- `stencil-opt --hex-tile=OPTS
            --convert-to-gpu=threads=...`; tile sizes from GPU_TILES below
            or --hex / --threads;
  untiled   the same without --hex-tile (one kernel per apply and step,
            `--convert-to-gpu=block-sizes=...`);
  naive     hand-written-style CUDA generated from the same kernel definitions
            by python/stencil/cudagen.py: one launch per apply and time step,
            one thread per point, the same arithmetic in the same order,
            nvcc -O3 -arch=sm_90 --fmad=false (no FMA contraction, no fast
            math), so all three compute the same bits;
  copy      device copy bandwidth over one field (cudaMemcpyDeviceToDevice
            and a copy kernel, the better of the two), which gives the
            roofline of code that does not tile in time:
                GStencils/s <= copy bandwidth / bytes per point and step,
            counting one read and one write of the element type per state
            field (plus one read per read-only input) per point and step.

bench/gpu_driver.cu, compiled with the generated kernels, runs all of them
in one process for one kernel, dtype and size: device arrays, deterministic
initial values, the compiled libraries loaded with dlopen and called through
_mlir_ciface_<name> with descriptors of device arrays; cudaEvent timing, a
warm-up, the median of --runs interleaved runs, each from the same initial
arrays; GStencils/s = interior points x steps / seconds / 1e9.

Per kernel and dtype:
 1. check at a reduced size (a few hundred points per dimension, a step
    count that is not a multiple of the hex tile's time span): every GPU
    variant against the numpy reference, bit for bit;
 2. at the benchmark size (default: the papers' 3072^2 x 512 steps in 2D,
    384^3 x 128 in 3D; 2^24 points x 512 steps in 1D), the first, untimed
    run of each variant is compared bit for bit with the naive one's on the
    device, then the timed runs.

--check-only is what runs without a GPU: it generates and nvcc-compiles the
naive/copy code at both sizes, runs the naive kernels' source on the host
(the point functions the kernels call, compiled for the CPU) against numpy,
builds the CUDA libraries (ptxas) at the benchmark size, and checks our GPU
code through its CPU emulation (compile_file(..., emulate_gpu=True)) against
numpy at the reduced size.

    /usr/bin/python3 bench/gpu_bench.py                        # everything, on a GPU machine
    /usr/bin/python3 bench/gpu_bench.py --quick                # small sizes, smoke run
    /usr/bin/python3 bench/gpu_bench.py --check-only --quick   # no GPU needed
    /usr/bin/python3 bench/gpu_bench.py --kernels heat2d --dtypes f32 \\
        --hex "heat2d=h=5 widths=24,128" --threads heat2d=128,8

See bench/README.md.  Exits 1 when a result differs or something fails to
build or run, 0 otherwise (a missing nvcc only skips the naive code).
"""

import argparse
import datetime
import inspect
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402
from benchlib import B, CompileError, differences, log, np, run_cmd, short_error  # noqa: E402

from stencil import compiler as SC  # noqa: E402
from stencil import cudagen as G  # noqa: E402
from stencil.runtime import StencilLibrary  # noqa: E402

REPO = benchlib.REPO
DRIVER = REPO / "bench" / "gpu_driver.cu"

# (interior shape, time steps) per rank
BENCH_SIZES = {1: ((1 << 24,), 512), 2: ((3072, 3072), 512), 3: ((384, 384, 384), 128)}
QUICK_SIZES = {1: ((65539,), 24), 2: ((259, 131), 24), 3: ((37, 45, 70), 12)}
# reduced sizes of the check against numpy; the step count is raised until it
# is not a multiple of the hex tile's time span
CHECK_SIZES = {1: ((1021,), 71), 2: ((293, 307), 37), 3: ((77, 69, 131), 23)}
QUICK_CHECK_SIZES = {1: ((301,), 37), 2: ((61, 137), 23), 3: ((19, 23, 70), 13)}

# Hex tile sizes (--hex-tile options) and threads per block of the tiled
# kernels (--convert-to-gpu=threads=x,y,z; x along the innermost, contiguous
# dimension) per kernel, for an H100 (--hex, --threads override them). A time
# tile spans 2h+2 canonical steps, one per statement of a time step (fdtd2d
# has 5, so h+1 must be a multiple of 5); `widths` is w0 (the hexagon's top
# width) for the outermost dimension, then the parallelogram widths. 2D and
# 3D are the best of the sweep on an H100 of 2026-11-27 (docs/performance.md,
# "Tile sizes on the H100"): h=8 beat h=4 by 9% on jacobi2d and 3% on heat2d,
# w0=2 beat w0=4 by 23% on laplace3d and 26% on heat3d.
_T1 = ("h=7 widths=256", "256")
_T2 = ("h=8 widths=16,128", "128,4")
_T3 = ("h=2 widths=2,8,64", "64,4,2")
GPU_TILES = {
    "jacobi1d_3pt": _T1, "jacobi1d_5pt": _T1, "jacobi1d_7pt": _T1,
    "laplace2d": _T2, "heat2d": _T2, "gradient2d": _T2, "jacobi2d": _T2, "poisson2d": _T2,
    "fdtd2d": ("h=9 widths=16,128", "128,4"),
    "laplace3d": _T3, "heat3d": _T3, "gradient3d": _T3,
}
HEX_OPTIONS = {"h", "widths", "hex-dim", "isolate", "unroll"}
# --hex-tile's own defaults of h (docs/tiling.md), for the time span of a
# tile given without h=
DEFAULT_H = {1: 15, 2: 7, 3: 3}
# Threads per block of the naive kernels and of the untiled compiled kernels
BLOCKS = dict(G.DEFAULT_BLOCKS)


def size_label(shape, steps):
    return "x".join(map(str, shape)) + f", {steps} steps"


def find_nvcc(explicit):
    """nvcc from --nvcc, $NVCC, PATH, $CUDA_HOME/bin or /usr/local/cuda/bin;
    (path, None) or (None, why not)."""
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit, None
        return None, f"nvcc not found: --nvcc {explicit} is not an executable"
    candidates = [os.environ.get("NVCC"), shutil.which("nvcc")]
    for env in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(env):
            candidates.append(os.path.join(os.environ[env], "bin", "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c, None
    return None, "nvcc not found (set --nvcc, $NVCC or $CUDA_HOME)"


def find_ptxas():
    """Whether --convert-to-gpu (format=auto) finds ptxas and builds a cubin:
    the same places GpuPipeline.cpp looks (else it embeds PTX)."""
    for env in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env) and os.access(os.path.join(os.environ[env], "bin", "ptxas"),
                                             os.X_OK):
            return True
    return os.access("/usr/local/cuda/bin/ptxas", os.X_OK) or bool(shutil.which("ptxas"))


def statements_per_step(spec):
    """Statements per time step of the polyhedral form (--stencil-to-poly): a
    hex tile spans 2h+2 of them (fdtd2d: 5, its three applies and the stores
    of ey' and ex'); the applies per step if stencil-opt cannot say."""
    with tempfile.TemporaryDirectory(prefix="gpu-bench-poly-") as tmp:
        path = Path(tmp) / f"{spec.name}.mlir"
        path.write_text(spec.mlir(None, 2, "f64"))
        try:
            n = SC.prepare_file(str(path), ("stencil-to-poly",)).count("poly.stmt ")
        except (CompileError, AttributeError, OSError):
            n = 0
    return n or G.launches_per_step(spec.name)


def runtime_missing(e):
    return "libStencilCudaRuntime.so not found" in str(e)


class Config:
    """One kernel with its tile sizes and thread blocks."""

    def __init__(self, name, hex_opts, threads, block, extra=None):
        self.name = name
        self.spec = B.BENCHMARKS[name]
        self.hex, self.threads, self.block = hex_opts, threads, tuple(block)
        self.extra = dict(extra or {})
        k = statements_per_step(self.spec)
        m = re.search(r"(?:^|\s)h=(\d+)", hex_opts)
        if m:
            h = int(m.group(1))
        else:  # the pass's default, h+1 rounded up to a multiple of k
            h = -(-(DEFAULT_H[self.spec.rank] + 1) // k) * k - 1
        # time steps one tile spans (2h+2 canonical steps, k per time step)
        self.span = max(1, (2 * h + 2) // k)

    def variants(self):
        """untiled, hex, then the --variant ones."""
        return ["untiled", "hex", *self.extra]

    def hex_passes(self, variant="hex"):
        """The tiling passes of a variant: none for untiled and for a
        --variant whose HEX is '-'."""
        hex_opts = self.extra[variant][0] if variant in self.extra else self.hex
        if variant == "untiled" or hex_opts == "-":
            return ()
        if hex_opts == "=":  # the kernel's own tile sizes
            hex_opts = self.hex
        tiling = "hex-tile"
        if hex_opts.startswith("split:"):  # split tiling instead
            tiling, hex_opts = "split-tile", hex_opts[len("split:"):].strip()
        return (f"{tiling}={hex_opts}" if hex_opts else tiling,)

    def gpu_options(self, variant):
        opts = [f"block-sizes={','.join(map(str, self.block))}"]
        if variant in self.extra:
            opts.insert(0, self.extra[variant][1])
        own_tiles = variant == "hex" or self.extra.get(variant, ("",))[0] == "="
        if own_tiles and self.threads:
            opts.insert(0, f"threads={self.threads}")
        return " ".join(o for o in opts if o)

    def describe(self, variant):
        gpu = f'--convert-to-gpu="{self.gpu_options(variant)}"'
        if not self.hex_passes(variant):
            return gpu
        tiling, _, opts = self.hex_passes(variant)[0].partition("=")
        return (f'--{tiling}="{opts}" ' if opts else f"--{tiling} ") + gpu


def check_steps(steps, span):
    while steps % span == 0:
        steps += 1
    return steps


# --------------------------------------------------------------------------
# Building


def build_driver(spec, shape, steps, ety, block, wd, args):
    """The driver for one kernel/dtype/size: the generated header and
    bench/gpu_driver.cu, compiled by nvcc. Returns the executable."""
    wd = Path(wd)
    wd.mkdir(parents=True, exist_ok=True)
    header = wd / f"{spec.name}.cuh"
    header.write_text(G.generate_cuda(spec.name, shape, steps, ety, block))
    exe = wd / "gpu_driver"
    run_cmd([args.nvcc, f"-arch={args.arch}", *G.NVCC_FLAGS, f"-I{REPO / 'include'}",
             "--pre-include", str(header), "-o", str(exe), str(DRIVER), "-ldl"])
    return exe


def compile_ours(cfg, variant, mlir, wd, emulate):
    """A library of our GPU code: target="cuda" (cubin by ptxas, linked with
    the CUDA runtime; called with device pointers) or emulate_gpu=True (the
    same mapped code run on the CPU; called with host arrays)."""
    params = inspect.signature(SC.compile_file).parameters
    kw = {}
    if emulate:
        if "emulate_gpu" not in params:
            raise CompileError("stencil.compiler.compile_file has no emulate_gpu= parameter: "
                               "the GPU path of python/stencil/compiler.py is not there")
        kw["emulate_gpu"] = True
    else:
        if "target" not in params:
            raise CompileError("stencil.compiler.compile_file has no target= parameter: "
                               "the GPU path of python/stencil/compiler.py is not there")
        kw["target"] = "cuda"
    if "gpu_options" not in params:
        raise CompileError("stencil.compiler.compile_file has no gpu_options= parameter")
    kw["gpu_options"] = cfg.gpu_options(variant)
    if emulate:  # options of the real GPU code alone do not change the emulated kernels
        kw["gpu_options"] = " ".join(o for o in kw["gpu_options"].split()
                                     if o.partition("=")[0] in SC.EMULATION_OPTIONS)
    return SC.compile_file(str(mlir), workdir=str(wd), extra_passes=cfg.hex_passes(variant),
                           **kw)


def write_inputs(spec, arrays, path):
    np.concatenate([arrays[f].ravel() for f in spec.fields]).tofile(path)


def read_fields(spec, shape, ety, path):
    full = spec.array_shape(shape)
    a = np.fromfile(path, dtype=B.DTYPES[ety])
    if a.size != len(spec.fields) * int(np.prod(full)):
        raise ValueError(f"{path}: {a.size} elements, expected {len(spec.fields)} fields of "
                         f"{full}")
    a = a.reshape(len(spec.fields), *full)
    return {f: a[i].copy() for i, f in enumerate(spec.fields)}


def run_driver(exe, argv, timeout=None):
    proc = subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=timeout)
    if proc.returncode == 3:
        raise CompileError(f"{exe.name}: no CUDA device: {proc.stderr.strip()} "
                           "(use --check-only on a machine without a GPU)")
    if proc.returncode != 0:
        raise CompileError(f"{exe} {' '.join(argv)} failed ({proc.returncode}):\n"
                           f"{proc.stderr}{proc.stdout}")
    return proc


def find_sanitizer():
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for c in (shutil.which("compute-sanitizer"), os.path.join(cuda, "bin", "compute-sanitizer")):
        if c and os.access(c, os.X_OK):
            return c
    return None


def sanitize(exe, argv, args):
    """The check run again under compute-sanitizer, once per --sanitize tool
    (memcheck, racecheck, ...): all variants' kernels, naive and ours."""
    lines = []
    for tool in filter(None, (args.sanitize or "").split(",")):
        label = f"compute-sanitizer --tool {tool}"
        sanitizer = find_sanitizer()
        if not sanitizer:
            lines.append((label, "SKIP", "compute-sanitizer not found"))
            continue
        try:
            proc = subprocess.run([sanitizer, "--tool", tool, "--error-exitcode", "9",
                                   str(exe), *argv], capture_output=True, text=True,
                                  timeout=getattr(args, "sanitize_timeout", None))
        except subprocess.TimeoutExpired:
            lines.append((label, "TIMEOUT", f"over {args.sanitize_timeout} s"))
            continue
        summary = (proc.stdout.strip().splitlines() or [""])[-1]
        lines.append((label, "PASS" if proc.returncode == 0 else "FAIL",
                      summary if proc.returncode == 0 else (proc.stdout + proc.stderr)[-2000:]))
    return lines


# --------------------------------------------------------------------------
# 1. Check at a reduced size


def small_check(cfg, ety, args, wd):
    """Every GPU variant against numpy, bit for bit. Returns (header line,
    [(label, verdict, detail)], problems)."""
    spec = cfg.spec
    shape, steps = (QUICK_CHECK_SIZES if args.quick else CHECK_SIZES)[spec.rank]
    steps = check_steps(steps, cfg.span)
    wd = Path(wd)
    wd.mkdir(parents=True, exist_ok=True)
    inputs = B.make_inputs(spec.name, shape, ety, seed=args.seed)
    want = spec.reference(inputs, steps)
    mlir = wd / f"{spec.name}.mlir"
    mlir.write_text(spec.mlir(shape, steps, ety))
    results, lines = {}, []

    def failed(label, e):
        lines.append((label, "FAIL", f"error: {short_error(e)}"))

    if args.nvcc:
        label = ("naive CUDA (nvcc; its source run on the host)" if args.check_only
                 else "naive CUDA")
        try:
            exe = build_driver(spec, shape, steps, ety, cfg.block, wd / "naive", args)
            init = wd / "init.bin"
            write_inputs(spec, inputs, init)
            prefix = str(wd / "out.")
            if args.check_only:
                run_driver(exe, ["--host-emulate", "--init", str(init), "--dump", prefix,
                                 "--json", str(wd / "host.json")])
                results[label] = read_fields(spec, shape, ety, prefix + "naive.bin")
            else:
                libs = []
                for variant in cfg.variants():
                    lib = compile_ours(cfg, variant, mlir, wd / variant, emulate=False)
                    libs += ["--lib", f"{variant}={lib.library}"]
                check_argv = ["--init", str(init), "--dump", prefix, *libs, "--runs", "1",
                              "--warmup", "0", "--copy-reps", "1",
                              "--json", str(wd / "check.json")]
                run_driver(exe, check_argv)
                results[label] = read_fields(spec, shape, ety, prefix + "naive.bin")
                lines += sanitize(exe, check_argv, args)
                for variant in cfg.variants():
                    results[variant] = read_fields(spec, shape, ety, f"{prefix}{variant}.bin")
        except (CompileError, OSError, ValueError, subprocess.SubprocessError) as e:
            failed(label, e)
    else:
        lines.append(("naive CUDA", "SKIP", args.nvcc_missing))
        if not args.check_only:
            lines.append(("untiled, hex on the GPU", "SKIP", "the driver needs nvcc"))
    if args.check_only:
        for variant in cfg.variants():
            label = f"{variant} (GPU code emulated on the CPU)"
            try:
                lib = StencilLibrary(compile_ours(cfg, variant, mlir, wd / f"emu-{variant}",
                                                  emulate=True))
                got = {f: a.copy() for f, a in inputs.items()}
                lib.call(spec.name, *[got[f] for f in spec.fields])
                results[label] = got
            except (CompileError, OSError, ValueError, TypeError) as e:
                failed(label, e)
    if args.inject_mismatch:
        for got in results.values():
            benchlib.inject(spec, steps, got)
    problems = [f"{label}: {detail}" for label, verdict, detail in lines if verdict == "FAIL"]
    for label, got in results.items():
        bad = differences(got, want, spec.fields)
        lines.append((f"{label} == numpy", "FAIL" if bad else "PASS",
                      "; ".join(f"MISMATCH {d}" for d in bad)))
        problems += [f"{label} != numpy: {d}" for d in bad]
    order = {"naive": 0, "untiled": 1, "hex": 2}
    lines.sort(key=lambda x: next((v for k, v in order.items() if x[0].startswith(k)), 3))
    return size_label(shape, steps), lines, problems


# --------------------------------------------------------------------------
# 2. Benchmark size: build, run, compare, time


def bench_sizes(spec, args):
    shape, steps = (QUICK_SIZES if args.quick else BENCH_SIZES)[spec.rank]
    shape = args.shapes.get(spec.rank, shape)
    return tuple(shape), args.steps or steps


def build_bench(cfg, ety, args, wd):
    """Driver (nvcc) and CUDA libraries (ptxas) at the benchmark size.
    Returns (driver or None, {variant: library}, [(label, verdict, detail)],
    problems)."""
    spec = cfg.spec
    shape, steps = bench_sizes(spec, args)
    wd = Path(wd)
    wd.mkdir(parents=True, exist_ok=True)
    mlir = wd / f"{spec.name}.mlir"
    mlir.write_text(spec.mlir(shape, steps, ety))
    lines, problems, libs, exe = [], [], {}, None
    if args.nvcc:
        label = f"naive CUDA and copy driver (nvcc -arch={args.arch})"
        t0 = time.perf_counter()
        try:
            exe = build_driver(spec, shape, steps, ety, cfg.block, wd / "naive", args)
            lines.append((label, "OK", f"{time.perf_counter() - t0:.1f} s"))
        except (CompileError, OSError) as e:
            lines.append((label, "FAIL", f"error: {short_error(e)}"))
    else:
        lines.append(("naive CUDA and copy driver", "SKIP", args.nvcc_missing))
    kernels = "cubin by ptxas" if args.ptxas else "PTX: no ptxas found"
    for variant in cfg.variants():
        label = f"{variant} {cfg.describe(variant)} ({kernels})"
        t0 = time.perf_counter()
        try:
            libs[variant] = compile_ours(cfg, variant, mlir, wd / variant, emulate=False).library
            lines.append((label, "OK", f"{time.perf_counter() - t0:.1f} s"))
        except (CompileError, OSError, ValueError) as e:
            # without the CUDA toolkit the project has no CUDA runtime to link
            skip = args.check_only and runtime_missing(e) and not args.nvcc
            lines.append((label, "SKIP" if skip else "FAIL",
                          short_error(e) if skip else f"error: {short_error(e)}"))
    problems = [f"build {label}: {detail}" for label, v, detail in lines if v == "FAIL"]
    return exe, libs, lines, problems


def measure(cfg, ety, exe, libs, args, wd, shape=None, steps=None, timeout=None):
    """Runs the driver at the benchmark size; returns the result row."""
    spec = cfg.spec
    if shape is None:
        shape, steps = bench_sizes(spec, args)
    out = Path(wd) / "result.json"
    argv = ["--json", str(out), "--runs", str(args.runs), "--warmup", str(args.warmup),
            "--copy-reps", str(args.copy_reps)]
    for variant, lib in libs.items():
        argv += ["--lib", f"{variant}={lib}"]
    if args.inject_mismatch:
        argv.append("--inject-mismatch")
    run_driver(exe, argv, timeout=timeout)
    raw = json.loads(out.read_text())
    points = int(np.prod(shape)) * steps
    row = {"example": spec.name, "dtype": ety, "shape": list(shape), "steps": steps,
           "points": points, "hex_options": cfg.hex, "threads": cfg.threads,
           "block": list(cfg.block), "device": raw["device"], "problems": [],
           "variant_options": {v: cfg.describe(v) for v in libs}}
    for variant, d in raw["variants"].items():
        med = statistics.median(d["ms"])
        row[f"{variant}_ms"] = d["ms"]
        row[f"{variant}_wall_ms"] = d["wall_ms"]
        row[f"{variant}_gsts"] = points / (med * 1e-3) / 1e9
        if "launches" in d:
            row[f"{variant}_launches"] = d["launches"]
        for f, (n, first) in d.get("differ", {}).items():
            if n:
                row["problems"].append(f"{spec.name} {ety} full size: {variant} != naive: "
                                       f"{f} ({n} of {raw['elems_per_field']} elements "
                                       f"differ, first at flat index {first})")
    copy = raw["copy"]
    row["memcpy_gbs"] = 2 * copy["bytes"] / (statistics.median(copy["memcpy_ms"]) * 1e-3) / 1e9
    row["copy_kernel_gbs"] = (2 * copy["bytes"] / (statistics.median(copy["kernel_ms"]) * 1e-3)
                              / 1e9)
    row["copy_gbs"] = max(row["memcpy_gbs"], row["copy_kernel_gbs"])
    row["bytes_per_point_step"] = G.bytes_per_point_step(spec, ety)
    row["roofline_gsts"] = row["copy_gbs"] / row["bytes_per_point_step"]
    for a, b in (("hex", "untiled"), ("hex", "naive"), ("untiled", "naive")):
        if f"{a}_gsts" in row and f"{b}_gsts" in row:
            row[f"{a}_over_{b}"] = row[f"{a}_gsts"] / row[f"{b}_gsts"]
    for v in ("hex", "untiled", "naive"):
        if f"{v}_gsts" in row:
            row[f"{v}_of_roofline"] = row[f"{v}_gsts"] / row["roofline_gsts"]
    row["raw"] = raw
    return row


def record_measurement(cfg, ety, check, rows, run):
    """Appends the row run() measures (measure()) to `rows` and its problems
    to `check`; on a failure an error row instead. Returns the row or None."""
    try:
        r = run()
    except (CompileError, OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
        msg = short_error(e)
        check["problems"].append(f"run: {msg}")
        rows.append({"example": cfg.name, "dtype": ety, "error": msg})
        log(f"ERROR {cfg.name} {ety}: {msg}")
        return None
    rows.append(r)
    check["problems"] += r["problems"]
    return r


# --------------------------------------------------------------------------
# 3. Prepared runs: everything built here, run where only the GPU is
#
# A lent GPU machine has CUDA but not the compiler (LLVM/MLIR), and its time
# is short. --prepare DIR builds on this machine what the run needs -- the
# drivers (nvcc), our libraries with their cubins (ptxas),
# libStencilCudaRuntime.so -- and writes DIR/plan.json; --prepared DIR runs
# them there with numpy alone (which also makes the check's inputs and
# reference results there).

PLAN = "plan.json"


def prepare(configs, args, workdir):
    """Builds every configuration into args.prepare; returns the problems."""
    out = Path(args.prepare).resolve()
    out.mkdir(parents=True, exist_ok=True)
    lib_dir = out / "lib"
    lib_dir.mkdir(exist_ok=True)
    shutil.copy2(SC.find_cuda_runtime(), lib_dir / "libStencilCudaRuntime.so")

    def keep(src, dst):
        dst = out / dst
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        return str(dst.relative_to(out))

    entries, problems = [], []
    for cfg in configs:
        spec = cfg.spec
        for ety in args.dtypes:
            tag = f"{cfg.name}-{ety}"
            wd = workdir / tag
            t0 = time.perf_counter()
            try:
                shape, steps = (QUICK_CHECK_SIZES if args.quick else CHECK_SIZES)[spec.rank]
                steps = check_steps(steps, cfg.span)
                cw = wd / "check"
                cw.mkdir(parents=True, exist_ok=True)
                mlir = cw / f"{spec.name}.mlir"
                mlir.write_text(spec.mlir(shape, steps, ety))
                # the inputs and numpy's results are made where the check runs:
                # they are larger than everything else together
                check = {"size": size_label(shape, steps), "shape": list(shape),
                         "steps": steps, "seed": args.seed,
                         "driver": keep(build_driver(spec, shape, steps, ety, cfg.block,
                                                     cw / "naive", args),
                                        f"{tag}/check/gpu_driver"), "libs": {}}
                for variant in cfg.variants():
                    lib = compile_ours(cfg, variant, mlir, cw / variant, emulate=False).library
                    check["libs"][variant] = keep(lib, f"{tag}/check/{variant}/{Path(lib).name}")
                exe, libs, lines, bproblems = build_bench(cfg, ety, args, wd / "bench")
                if bproblems or exe is None:
                    raise CompileError("; ".join(bproblems) or "no driver (nvcc missing)")
                shape, steps = bench_sizes(spec, args)
                bench = {"shape": list(shape), "steps": steps,
                         "driver": keep(exe, f"{tag}/bench/gpu_driver"),
                         "libs": {v: keep(lib, f"{tag}/bench/{v}/{Path(lib).name}")
                                  for v, lib in libs.items()}}
            except (CompileError, OSError, ValueError) as e:
                problems.append(f"{tag}: {short_error(e)}")
                log(f"prepare {tag}: FAIL {short_error(e)}")
                continue
            entries.append({"example": cfg.name, "dtype": ety, "hex_options": cfg.hex,
                            "threads": cfg.threads, "block": list(cfg.block),
                            "options": {v: cfg.describe(v) for v in cfg.variants()},
                            "check": check, "bench": bench})
            log(f"prepare {tag}: OK ({time.perf_counter() - t0:.0f} s)")
    info = tool_info(args)
    (out / PLAN).write_text(json.dumps({"info": info, "argv": args.argv, "arch": args.arch,
                                        "entries": entries}, indent=1))
    log(f"wrote {out / PLAN}: {len(entries)} configurations; run it with "
        f"bench/gpu_bench.py --prepared {out}")
    return problems


def platform_line():
    """The host's processor, from lscpu."""
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return "?"
    m = re.search(r"^Model name:\s*(.+)$", lscpu, re.M)
    return m.group(1).strip() if m else "?"


class PreparedConfig:
    """What measure() and markdown() need of a Config, from plan.json."""

    def __init__(self, entry):
        self.name = entry["example"]
        self.spec = B.BENCHMARKS[self.name]
        self.hex, self.threads, self.block = (entry["hex_options"], entry["threads"],
                                              tuple(entry["block"]))
        self.options = entry.get("options", {})

    def describe(self, variant):
        return self.options.get(variant, "")


def run_prepared(args):
    """Runs a --prepare'd directory: per configuration the check (every
    variant against numpy, bit for bit), the timed run at the benchmark size,
    then compute-sanitizer over the checks. Stops starting work after
    --deadline seconds; writes --json/--markdown after every configuration so
    that a killed run still leaves its results."""
    root = Path(args.prepared).resolve()
    plan = json.loads((root / PLAN).read_text())
    os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(root / "lib"), os.environ.get("LD_LIBRARY_PATH")]))
    info = plan["info"]
    info["built on"] = info.pop("Model name", "?")
    info["Model name"] = platform_line()
    args.arch = plan["arch"]
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    t_start = time.perf_counter()
    entries = plan["entries"]
    if args.kernels_pos or args.kernels:
        want_names = set(args.kernels_pos) | set(filter(None, (args.kernels or "").split(",")))
        entries = [e for e in entries if e["example"] in want_names]
    entries = [e for e in entries if e["dtype"] in args.dtypes]
    checks, rows = [], []

    def left():
        return args.deadline - (time.perf_counter() - t_start) if args.deadline else 1e9

    def save():
        elapsed = time.perf_counter() - t_start
        if args.json:
            Path(args.json).write_text(json.dumps(
                {"info": info, "started": started, "argv": args.argv, "checks": checks,
                 "rows": rows}, indent=1, default=str))
        if args.markdown:
            Path(args.markdown).write_text(markdown(rows, checks, info, args, started, elapsed))

    pending_sanitize = []
    for e in entries:
        if left() <= 0:
            log(f"deadline: {e['example']} {e['dtype']} and later not run")
            break
        cfg, ety = PreparedConfig(e), e["dtype"]
        spec = cfg.spec
        check = {"example": cfg.name, "dtype": ety, "problems": [], "skipped": []}
        checks.append(check)
        wd = Path(tempfile.mkdtemp(prefix=f"gpu-bench-{cfg.name}-{ety}-"))
        c = e["check"]
        prefix = str(wd / "out.")
        inputs = B.make_inputs(spec.name, c["shape"], ety, seed=c["seed"])
        want = spec.reference(inputs, c["steps"])
        write_inputs(spec, inputs, wd / "init.bin")
        check_argv = ["--init", str(wd / "init.bin"), "--dump", prefix, "--runs", "1",
                      "--warmup", "0", "--copy-reps", "1", "--json", str(wd / "check.json")]
        for variant, lib in c["libs"].items():
            check_argv += ["--lib", f"{variant}={root / lib}"]
        exe = root / c["driver"]
        log(f"check {cfg.name} {ety} {c['size']}:")
        try:
            run_driver(exe, check_argv, timeout=120)
            for variant in ("naive", *c["libs"]):
                got = read_fields(spec, c["shape"], ety, f"{prefix}{variant}.bin")
                if args.inject_mismatch:
                    benchlib.inject(spec, c["steps"], got)
                bad = differences(got, want, spec.fields)
                log(f"  {variant} == numpy: {'FAIL' if bad else 'PASS'}"
                    + (f" ({'; '.join(bad)})" if bad else ""))
                check["problems"] += [f"{variant} != numpy: {d}" for d in bad]
            pending_sanitize.append((check, exe, check_argv))
        except (CompileError, OSError, ValueError, subprocess.SubprocessError) as err:
            check["problems"].append(f"check: {short_error(err)}")
            log(f"  FAIL {short_error(err)}")
        b = e["bench"]
        libs = {v: str(root / lib) for v, lib in b["libs"].items()}
        r = record_measurement(cfg, ety, check, rows, lambda: measure(
            cfg, ety, root / b["driver"], libs, args, wd, tuple(b["shape"]), b["steps"],
            timeout=max(30, min(300, left()))))
        if r is None:
            save()
            continue
        log_timing(r)
        save()
    # f32 first: with little time left every kernel is still covered once
    pending_sanitize.sort(key=lambda x: x[0]["dtype"] != "f32")
    for check, exe, check_argv in pending_sanitize if args.sanitize else ():
        if left() <= 0:
            log(f"deadline: compute-sanitizer not run from {check['example']} {check['dtype']} on")
            break
        log(f"compute-sanitizer {check['example']} {check['dtype']}:")
        for label, verdict, detail in sanitize(exe, check_argv, args):
            log(f"  {label}: {verdict}" + (f" ({detail})" if detail else ""))
            check.setdefault("sanitizer", []).append([label, verdict, detail])
            if verdict == "FAIL":
                check["problems"].append(f"{label}: {detail}")
        save()
    log_tables(rows)
    bad = [c for c in checks if c["problems"]]
    log(f"\nbit-exact checks: {'PASS' if not bad else 'FAIL'} "
        f"({len(checks) - len(bad)} of {len(checks)} example/dtype pairs)")
    for c in bad:
        for pr in c["problems"]:
            log(f"  FAIL {c['example']} {c['dtype']}: {pr}")
    save()
    log(f"done in {time.perf_counter() - t_start:.0f} s")
    return 1 if bad else 0


# --------------------------------------------------------------------------
# Reporting


def fmt(x, spec="8.2f"):
    return format(x, spec) if isinstance(x, (int, float)) else f"{'n/a':>8s}"


def text_table(rows):
    head = (f"{'example':14s} {'dtype':5s} {'size':>14s} {'steps':>5s}  {'hex':>8s} "
            f"{'untiled':>8s} {'naive':>8s} {'roofline':>8s}  {'hex/unt':>7s} {'hex/nai':>7s} "
            f"{'hex/roof':>8s}")
    lines = [head + "   (GStencils/s)", "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['example']:14s} {r['dtype']:5s} ERROR: {r['error']}")
            continue
        lines.append(f"{r['example']:14s} {r['dtype']:5s} {'x'.join(map(str, r['shape'])):>14s} "
                     f"{r['steps']:5d}  {fmt(r.get('hex_gsts'))} {fmt(r.get('untiled_gsts'))} "
                     f"{fmt(r.get('naive_gsts'))} {fmt(r['roofline_gsts'])}  "
                     f"{fmt(r.get('hex_over_untiled'), '7.2f')} "
                     f"{fmt(r.get('hex_over_naive'), '7.2f')} "
                     f"{fmt(r.get('hex_of_roofline'), '8.2f')}")
    return "\n".join(lines)


def variant_table(rows, markdown=False):
    """GSt/s of every variant of every row (with --variant), and its ratio to
    the naive kernels."""
    names = []
    for r in rows:
        names += [n for n in r.get("raw", {}).get("variants", {}) if n not in names]
    if not any(n not in ("naive", "untiled", "hex") for n in names):
        return ""
    lines = []
    for r in rows:
        if "error" in r:
            continue
        for n in names:
            if f"{n}_gsts" not in r:
                continue
            ratio = r[f"{n}_gsts"] / r["naive_gsts"] if r.get("naive_gsts") else None
            cells = [r["example"], r["dtype"], n, f"{r[f'{n}_gsts']:.2f}",
                     f"{ratio:.2f}" if ratio else "n/a", r.get("variant_options", {}).get(n, "")]
            lines.append("| " + " | ".join(cells) + " |" if markdown else
                         f"{cells[0]:14s} {cells[1]:5s} {cells[2]:14s} {cells[3]:>8s} "
                         f"{cells[4]:>6s}  {cells[5]}")
    head = ("| example | dtype | variant | GSt/s | / naive | options |\n|---|---|---|---:|---:|---|"
            if markdown else f"{'example':14s} {'dtype':5s} {'variant':14s} {'GSt/s':>8s} "
            f"{'/naive':>6s}  options")
    return head + "\n" + "\n".join(lines)


def log_timing(r):
    """The one-line summary of a row of measure()."""
    log(f"time  {r['example']} {r['dtype']} {size_label(r['shape'], r['steps'])}: hex "
        f"{r.get('hex_gsts', 0):.2f} untiled {r.get('untiled_gsts', 0):.2f} naive "
        f"{r.get('naive_gsts', 0):.2f} roofline {r['roofline_gsts']:.2f} GSt/s "
        f"(copy {r['copy_gbs']:.0f} GB/s); full-size hex == untiled == naive: "
        + ("PASS" if not r["problems"] else "FAIL"))


def log_tables(rows):
    """The device, the main table and, with --variant, every variant's."""
    if not rows:
        return
    dev = next((r["device"] for r in rows if "device" in r), None)
    log("")
    if dev:
        log(f"GPU: {device_line(dev)}")
    log(text_table(rows))
    table = variant_table(rows)
    if table:
        log("\n" + table)


def device_line(dev):
    peak = (f", {dev['peak_gbs']:.0f} GB/s peak DRAM bandwidth from the memory clock and bus "
            "width" if dev.get("peak_gbs") else "")
    return (f"{dev['name']} (compute capability {dev['cc']}, {dev['sms']} SMs, "
            f"{dev['global_mem_gib']} GiB, L2 {dev['l2_mib']:.0f} MiB{peak}); "
            f"CUDA driver {dev['driver'] // 1000}.{dev['driver'] % 1000 // 10}, "
            f"runtime {dev['runtime'] // 1000}.{dev['runtime'] % 1000 // 10}")


def markdown(rows, checks, info, args, started, elapsed):
    out = [f"Run of `bench/gpu_bench.py {' '.join(args.argv)}` on {started} "
           f"({elapsed:.0f} s), commit `{info.get('commit', '?')}`.\n"]
    dev = next((r["device"] for r in rows if "device" in r), None)
    out.append(f"GPU: {device_line(dev) if dev else 'n/a'}. nvcc: {info.get('nvcc', 'n/a')}; "
               f"naive code and driver built with `nvcc -arch={args.arch} "
               f"{' '.join(G.NVCC_FLAGS)}`. Host: {info.get('Model name', '?')}"
               + (f" (built with --prepare on {info['built on']})" if "built on" in info
                  else "") + ".\n")
    out.append(f"GStencils/s = interior points x steps / median time of {args.runs} "
               "interleaved runs (cudaEvents; after a checked run and "
               f"{args.warmup} warm-up run(s); every run from the same initial arrays) / 1e9. "
               "Roofline = best device copy bandwidth (cudaMemcpyDeviceToDevice or a copy "
               "kernel over one field of the benchmark's size, counting its read and its "
               "write) / bytes per point and step, counting one read and one write of the "
               "element type per state field (fdtd2d: 3 fields) and one read per read-only "
               "input (poisson2d's f): the bound of code that does not tile in time. "
               "`hex/roofline` above 1 is only possible with reuse across time steps.\n")
    bad = [c for c in checks if c["problems"]]
    out.append(f"Bit-exact check: **{'PASS' if not bad else 'FAIL'}** — "
               f"{len(checks) - len(bad)} of {len(checks)} example/dtype pairs: every GPU "
               "variant equal to the numpy reference at the reduced size, and hex, untiled "
               "and naive equal to each other at the benchmark size.\n")
    for c in bad:
        out.append(f"- {c['example']} {c['dtype']}: {'; '.join(c['problems'])}")
    if bad:
        out.append("")
    out.append("| example | dtype | size | steps | hex GSt/s | untiled GSt/s | naive GSt/s | "
               "roofline GSt/s | hex/untiled | hex/naive | hex/roofline | naive/roofline | "
               "copy GB/s | hex tiles; threads |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")

    def g(r, k, spec=".2f"):
        return format(r[k], spec) if k in r else "n/a"
    for r in rows:
        if "error" in r:
            out.append(f"| {r['example']} | {r['dtype']} | error: {r['error']} |")
            continue
        out.append(f"| {r['example']} | {r['dtype']} | {'x'.join(map(str, r['shape']))} | "
                   f"{r['steps']} | {g(r, 'hex_gsts')} | {g(r, 'untiled_gsts')} | "
                   f"{g(r, 'naive_gsts')} | {g(r, 'roofline_gsts')} | "
                   f"{g(r, 'hex_over_untiled')} | {g(r, 'hex_over_naive')} | "
                   f"{g(r, 'hex_of_roofline')} | {g(r, 'naive_of_roofline')} | "
                   f"{g(r, 'copy_gbs', '.0f')} | `{r['hex_options']}`; {r['threads']} |")
    sanitized = [c for c in checks if c.get("sanitizer")]
    if sanitized:
        tools = list(dict.fromkeys(label for c in sanitized for label, _, _ in c["sanitizer"]))
        out.append("\n`compute-sanitizer` over the reduced-size check run (every variant's "
                   "kernels: naive, untiled, hex, and the copy kernel):\n")
        out.append("| example | dtype | " + " | ".join(t.replace("compute-sanitizer ", "")
                                                       for t in tools) + " |")
        out.append("|---|---|" + "---|" * len(tools))
        for c in sanitized:
            got = {label: (v, d) for label, v, d in c["sanitizer"]}
            cells = []
            for t in tools:
                v, d = got.get(t, ("not run", ""))
                cells.append(f"{v}: {d.splitlines()[-1][:80]}" if v == "FAIL" and d else v)
            out.append(f"| {c['example']} | {c['dtype']} | " + " | ".join(cells) + " |")
    ok = [r for r in rows if "hex_over_untiled" in r and "hex_over_naive" in r]
    if ok:
        def geo(k):
            return float(np.exp(np.mean([np.log(r[k]) for r in ok])))
        out.append(f"\nGeometric means: hex/untiled {geo('hex_over_untiled'):.2f}, "
                   f"hex/naive {geo('hex_over_naive'):.2f}.\n")
    table = variant_table(rows, markdown=True)
    if table:
        out.append("\nEvery variant (`--variant`), side by side in the same process:\n")
        out.append(table)
    return "\n".join(out) + "\n"


def tool_info(args):
    info = {}
    try:
        info["commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    info["Model name"] = platform_line()
    if args.nvcc:
        out = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"release (\S+), (V\S+)", out)
        info["nvcc"] = f"{args.nvcc} ({m.group(1)} {m.group(2)})" if m else args.nvcc
    try:
        info["stencil-opt"] = SC.find_stencil_opt()
    except CompileError as e:
        info["stencil-opt"] = str(e)
    return info


# --------------------------------------------------------------------------
# Command line


def parse_overrides(values, kind, p):
    """--hex / --threads values: 'KERNEL=VALUE' for one kernel, else VALUE
    for all. Returns ({kernel: value}, value for all or None)."""
    per, every = {}, None
    for v in values or []:
        k, sep, rest = v.partition("=")
        if sep and k in B.BENCHMARKS:
            per[k] = rest
        elif sep and (kind == "--threads" or k not in HEX_OPTIONS):
            p.error(f"{kind} {v}: unknown kernel {k}")
        else:
            every = v
    return per, every


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    time_loop = B.time_loop_names()
    p = argparse.ArgumentParser(prog="bench/gpu_bench.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kernels_pos", nargs="*", metavar="KERNEL",
                   help="kernels to run (also --kernels; default: all with a time loop)")
    p.add_argument("--kernels", help=f"comma-separated subset of {', '.join(time_loop)}")
    p.add_argument("--dtypes", "--dtype", default="f32,f64", help="f32, f64 or f32,f64")
    p.add_argument("--quick", action="store_true",
                   help="small sizes (1D 65539 x 24 steps, 2D 259x131 x 24, 3D 37x45x70 x 12; "
                        "checks at 301 x 37, 61x137 x 23, 19x23x70 x 13), 3 runs")
    p.add_argument("--check-only", action="store_true",
                   help="no GPU needed: build everything (nvcc, ptxas), run the naive kernels' "
                        "source on the host and our GPU code in its CPU emulation against numpy")
    p.add_argument("--no-check", dest="check", action="store_false",
                   help="skip the reduced-size check against numpy")
    p.add_argument("--shape-1d", type=benchlib.parse_shape)
    p.add_argument("--shape-2d", type=benchlib.parse_shape)
    p.add_argument("--shape-3d", type=benchlib.parse_shape)
    p.add_argument("--steps", type=int, help="time steps at the benchmark size (default: 512 "
                   "in 1D and 2D, 128 in 3D)")
    p.add_argument("--hex", action="append", metavar="[KERNEL=]OPTS",
                   help="--hex-tile options, e.g. 'h=5 widths=24,128' for every kernel or "
                        "'heat2d=h=5 widths=24,128' for one (repeatable; default: GPU_TILES "
                        "in this file)")
    p.add_argument("--threads", action="append", metavar="[KERNEL=]X,Y,Z",
                   help="threads per block of the hex-tiled kernels (convert-to-gpu threads=)")
    p.add_argument("--variant", action="append", metavar="[KERNEL=]NAME|HEX|GPU",
                   help="one more variant to build, check and time beside untiled and hex: "
                        "--hex-tile options HEX (empty: the pass's defaults; '-': untiled; "
                        "'split:OPTS': --split-tile=OPTS instead) and "
                        "--convert-to-gpu options GPU, e.g. 'blocked|h=4 widths=16,128|"
                        "threads=128,4 thread-points=blocked' (repeatable; for every kernel "
                        "or one)")
    p.add_argument("--block-1d", type=benchlib.parse_shape, default=BLOCKS[1])
    p.add_argument("--block-2d", type=benchlib.parse_shape, default=BLOCKS[2])
    p.add_argument("--block-3d", type=benchlib.parse_shape, default=BLOCKS[3],
                   help="threads per block (x innermost) of the naive kernels and of the "
                        "untiled compiled kernels (defaults 256; 32,8; 32,4,4)")
    p.add_argument("--runs", type=int, help="timed runs per variant (default 5, --quick 3)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs after the checked one")
    p.add_argument("--copy-reps", type=int, default=10, help="copies per timed copy run")
    p.add_argument("--nvcc", help="nvcc (default: $NVCC, PATH, $CUDA_HOME/bin, "
                                  "/usr/local/cuda/bin)")
    p.add_argument("--arch", default=G.DEFAULT_ARCH, help="nvcc -arch (default sm_90)")
    p.add_argument("--stencil-opt", help="the compiler (sets $STENCIL_OPT)")
    p.add_argument("--seed", type=int, default=0, help="seed of the check's inputs")
    p.add_argument("--workdir", help="where to build (default: a temporary directory, removed)")
    p.add_argument("--markdown", help="write the results as Markdown (docs/performance.md)")
    p.add_argument("--json", help="write every measurement as JSON")
    p.add_argument("--sanitize", metavar="TOOLS",
                   help="also run the reduced-size check under compute-sanitizer with "
                        "these tools, e.g. memcheck,racecheck (GPU only)")
    p.add_argument("--sanitize-timeout", type=float, default=120,
                   help="seconds per compute-sanitizer run (default 120)")
    p.add_argument("--prepare", metavar="DIR",
                   help="no GPU needed: build the drivers, our CUDA libraries, the check's "
                        "inputs and numpy's results into DIR (DIR/plan.json) for a later "
                        "--prepared DIR on a GPU machine that has CUDA but not the compiler")
    p.add_argument("--prepared", metavar="DIR",
                   help="run what --prepare built in DIR: the checks, the timed runs and "
                        "--sanitize, with numpy and the CUDA driver alone")
    p.add_argument("--deadline", type=float,
                   help="with --prepared: start no configuration or sanitizer run after "
                        "this many seconds (results so far are written)")
    p.add_argument("--inject-mismatch", action="store_true",
                   help="testing the checker: flip one bit of every GPU result of the "
                        "reduced-size check and of the last variant at the benchmark size, "
                        "which must make the checks FAIL")
    args = p.parse_args(argv)
    args.argv = argv
    names = list(args.kernels_pos)
    if args.kernels:
        names += [n for n in args.kernels.split(",") if n]
    names = names or time_loop
    for n in names:
        if n not in B.BENCHMARKS:
            p.error(f"unknown kernel {n}; have {', '.join(time_loop)}")
        if not B.BENCHMARKS[n].time_loop:
            p.error(f"{n} has no time loop: the GPU benchmark covers {', '.join(time_loop)}")
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    for d in args.dtypes:
        if d not in B.DTYPES:
            p.error(f"unknown dtype {d}")
    args.shapes = {}
    for rank, opt in ((1, args.shape_1d), (2, args.shape_2d), (3, args.shape_3d)):
        if opt:
            if len(opt) != rank:
                p.error(f"--shape-{rank}d needs {rank} sizes")
            args.shapes[rank] = opt
    blocks = {1: args.block_1d, 2: args.block_2d, 3: args.block_3d}
    for rank, b in blocks.items():
        if len(b) != rank:
            p.error(f"--block-{rank}d needs {rank} sizes")
    if args.runs is None:
        args.runs = 3 if args.quick else 5
    if args.prepared:
        return run_prepared(args)
    if args.stencil_opt:
        os.environ["STENCIL_OPT"] = str(Path(args.stencil_opt).resolve())
    hex_per, hex_all = parse_overrides(args.hex, "--hex", p)
    thr_per, thr_all = parse_overrides(args.threads, "--threads", p)
    extra = {n: {} for n in names}
    for v in args.variant or []:
        k, sep, rest = v.partition("=")
        targets = [k] if sep and k in B.BENCHMARKS and "|" not in k else names
        spec_text = rest if targets == [k] else v
        parts = spec_text.split("|")
        if len(parts) != 3 or not re.fullmatch(r"[A-Za-z0-9_.-]+", parts[0]) or \
                parts[0] in ("naive", "untiled", "hex"):
            p.error(f"--variant {v}: expected [KERNEL=]NAME|HEX-TILE OPTIONS|GPU OPTIONS "
                    "with a new NAME of letters, digits, '_', '.', '-'")
        for n in targets:
            if n in extra:
                extra[n][parts[0]] = (parts[1].strip(), parts[2].strip())
    configs = []
    for n in names:
        hex_opts, threads = GPU_TILES.get(n, ("", ""))
        hex_opts = hex_per.get(n, hex_all if hex_all is not None else hex_opts)
        threads = thr_per.get(n, thr_all if thr_all is not None else threads)
        configs.append(Config(n, hex_opts, threads, blocks[B.BENCHMARKS[n].rank], extra[n]))
    args.nvcc, args.nvcc_missing = find_nvcc(args.nvcc)
    args.ptxas = find_ptxas()

    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    t_start = time.perf_counter()
    workdir, tmp = benchlib.work_directory(args.workdir, "stencil-gpu-bench-")
    info = tool_info(args)
    log(f"gpu_bench: {'check only (no GPU needed)' if args.check_only else 'benchmark'}; "
        f"nvcc: {info.get('nvcc', 'not found')}; stencil-opt: {info['stencil-opt']}")
    if not args.nvcc:
        log(f"naive CUDA: SKIP everywhere: {args.nvcc_missing}")

    if args.prepare:
        problems = prepare(configs, args, workdir)
        if tmp is not None:
            tmp.cleanup()
        log(f"done in {time.perf_counter() - t_start:.0f} s")
        return 1 if problems else 0
    checks, rows = [], []
    for cfg in configs:
        spec = cfg.spec
        for ety in args.dtypes:
            check = {"example": cfg.name, "dtype": ety, "problems": [], "skipped": []}
            checks.append(check)
            wd = workdir / f"{cfg.name}-{ety}"
            tiles = f"hex {cfg.hex or 'defaults'}; threads {cfg.threads or 'default'}"
            if args.check:
                size, lines, problems = small_check(cfg, ety, args, wd / "check")
                check["problems"] += problems
                log(f"check {cfg.name} {ety} {size} ({tiles}):")
                for label, verdict, detail in lines:
                    log(f"  {label}: {verdict}" + (f" ({detail})" if detail else ""))
                    if verdict == "SKIP":
                        check["skipped"].append(f"{label}: {detail}")
            shape, steps = bench_sizes(spec, args)
            exe, libs, lines, problems = build_bench(cfg, ety, args, wd / "bench")
            check["problems"] += problems
            log(f"build {cfg.name} {ety} {size_label(shape, steps)}:")
            for label, verdict, detail in lines:
                log(f"  {label}: {verdict}" + (f" ({detail})" if detail else ""))
            if args.check_only:
                continue
            if exe is None or problems:
                rows.append({"example": cfg.name, "dtype": ety,
                             "error": "build failed" if args.nvcc else args.nvcc_missing})
                if not args.nvcc:
                    check["problems"].append(f"no timing: {args.nvcc_missing}")
                continue
            r = record_measurement(cfg, ety, check, rows,
                                   lambda: measure(cfg, ety, exe, libs, args, wd / "bench"))
            if r is None:
                continue
            for pr in r["problems"]:
                log(f"  MISMATCH {pr}")
            log_timing(r)
    log_tables(rows)
    bad = [c for c in checks if c["problems"]]
    log("")
    what = ("checks (numpy at a reduced size; builds at the benchmark size)" if args.check_only
            else "checks")
    log(f"bit-exact {what}: {'PASS' if not bad else 'FAIL'} "
        f"({len(checks) - len(bad)} of {len(checks)} example/dtype pairs)")
    for c in bad:
        for pr in c["problems"]:
            log(f"  FAIL {c['example']} {c['dtype']}: {pr}")
    elapsed = time.perf_counter() - t_start
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows, checks, info, args, started, elapsed))
        log(f"wrote {args.markdown}")
    if args.json:
        Path(args.json).write_text(json.dumps({"info": info, "started": started, "argv": argv,
                                               "checks": checks, "rows": rows},
                                              indent=1, default=str))
        log(f"wrote {args.json}")
    log(f"done in {elapsed:.0f} s")
    if tmp is not None:
        tmp.cleanup()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
