#!/usr/bin/python3
"""CPU benchmark: the project's compiled code against the same loop nest in C.

For every benchmark of python/stencil/benchmarks.py, in f32 and f64:

  ours   the MLIR program (Benchmark.mlir) compiled by stencil.compiler.compile_file,
         sequential and with openmp=True;
  C      the same kernel printed as C by stencil.cgen (same operations in the
         same order, same constants, same time loop and temporaries), compiled
         by the system compiler with  cc -O3 -march=native -ffp-contract=off
         (-fopenmp for the OpenMP variant: `#pragma omp parallel for` on the
         outermost space loop of every loop nest).

Both are shared libraries called through ctypes from this process on the same
numpy arrays.  Per example and dtype:

 1. bit-exact check at a small size: ours (seq, OpenMP), C (seq, OpenMP) and
    the numpy reference of benchmarks.py, every field compared bit for bit;
 2. at the benchmark size: one untimed run of each variant, also compared bit
    for bit (C seq against ours seq, ours OpenMP, C OpenMP);
 3. timing: --runs interleaved runs (C, ours, C, ours, ...) of the sequential
    pair, then of the OpenMP pair; every run starts from the same input arrays
    (copied in, untimed); the median time gives
        GStencils/s = interior points x steps (x --reps for one-sweep
                      programs) / seconds / 1e9
    and the ratio ours / C (above 1: ours is faster).
 4. with --callgrind: instructions per point of ONE time step, measured by
    valgrind's callgrind around the kernel function only (--toggle-collect),
    ours against C.  valgrind 3.19 cannot decode AVX-512, so the C library for
    this measurement is built with -march=native -mno-avx512f (AVX2); if ours
    contains instructions valgrind cannot decode, the row says so.

Run from the repository root:

    /usr/bin/python3 bench/cpu_bench.py                      # everything, f32 and f64
    /usr/bin/python3 bench/cpu_bench.py --quick              # tiny sizes, smoke run
    /usr/bin/python3 bench/cpu_bench.py heat2d fdtd2d --dtype f64 --runs 7
    /usr/bin/python3 bench/cpu_bench.py --callgrind --markdown results.md

See bench/README.md and docs/performance.md.  Exits 1 when a result differs
(or something fails to build), 0 otherwise; the speed targets do not change
the exit status.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import (CFLAGS, REPO, B, CompileError, CVersion, Ours, cgen, compile_file,
                      differences, inject, log, np, parse_shape, run_cmd, short_error, timed,
                      work_directory)
from stencil.compiler import LLVM_BIN, check_cpu  # noqa: E402 (benchlib puts python/ on the path)

DEFAULT_SHAPES = {1: (1 << 24,), 2: (4096, 4096), 3: (256, 256, 256)}
QUICK_SHAPES = {1: (4099,), 2: (67, 61), 3: (19, 17, 15)}
CHECK_SHAPES = {1: (257,), 2: (37, 29), 3: (13, 11, 9)}
CHECK_STEPS = 5
# Time steps (or calls, for the one-sweep programs) per timed run at the
# default sizes, chosen so a sequential run takes about 0.2-1 s on the machine
# of docs/performance.md.
DEFAULT_STEPS = {
    "jacobi1d_3pt": 24, "jacobi1d_5pt": 20, "jacobi1d_7pt": 16,
    "laplace2d": 20, "heat2d": 16, "gradient2d": 16, "jacobi2d": 20,
    "poisson2d": 16, "fdtd2d": 4,
    "laplace3d": 16, "heat3d": 8, "gradient3d": 12,
    "hdiff": 2, "laplap": 4,
}
CALLGRIND_EXAMPLES = ["heat2d", "jacobi2d", "fdtd2d", "laplace3d"]
CALLGRIND_SHAPES = {1: (1 << 18,), 2: (512, 512), 3: (64, 64, 64)}
CALLGRIND_EXTRA_CFLAGS = ["-mno-avx512f"]


# --------------------------------------------------------------------------
# The two implementations


def build_pair(spec, shape, steps, ety, openmp, workdir, args):
    """(ours, C) for one size and one mode; the MLIR file goes to workdir."""
    mode = "omp" if openmp else "seq"
    wd = Path(workdir) / f"{spec.name}-{ety}-{'x'.join(map(str, shape))}-{mode}"
    wd.mkdir(parents=True, exist_ok=True)
    mlir = wd / f"{spec.name}.mlir"
    mlir.write_text(spec.mlir(shape, steps, ety))
    ours = Ours(spec, mlir, openmp, wd / "ours")
    c = CVersion(spec, shape, steps, ety, openmp, wd / "c", args.cc, args.cflags)
    return ours, c


# --------------------------------------------------------------------------
# Comparison


def small_check(spec, ety, args, workdir):
    """Bit-exact check at a small size of all four variants and numpy."""
    shape = CHECK_SHAPES[spec.rank]
    steps = CHECK_STEPS if spec.time_loop else None
    inputs = B.make_inputs(spec.name, shape, ety, seed=args.seed)
    want = spec.reference(inputs, steps)
    problems = []
    results = {}
    for openmp in ((False, True) if args.openmp else (False,)):
        ours, c = build_pair(spec, shape, steps, ety, openmp, workdir, args)
        for v in (c, ours):
            got = {f: a.copy() for f, a in inputs.items()}
            v.call(got)
            if args.inject_mismatch and isinstance(v, CVersion):
                inject(spec, steps, got)
            results[v.label] = got
    for label, got in results.items():
        for d in differences(got, want, spec.fields):
            problems.append(f"{label} != numpy: {d}")
    for label, got in results.items():
        if label != "C seq":
            for d in differences(got, results["C seq"], spec.fields):
                problems.append(f"{label} != C seq: {d}")
    size = "x".join(map(str, shape)) + (f", {steps} steps" if spec.time_loop else "")
    return size, list(results), problems


# --------------------------------------------------------------------------
# Timing


def bench_one(spec, ety, shape, steps, args, workdir):
    """Full-size bit check and interleaved timing. Returns a result dict."""
    res = {"example": spec.name, "dtype": ety, "shape": list(shape),
           "steps": steps if spec.time_loop else None, "problems": []}
    reps = 1 if spec.time_loop else steps  # one-sweep: call it `steps` times per run
    points = int(np.prod(shape)) * (steps if spec.time_loop else 1) * reps
    res["reps"] = reps
    res["load_before"] = round(os.getloadavg()[0], 2)
    res["points"] = points
    pristine = B.make_inputs(spec.name, shape, ety, seed=args.seed)
    work = {f: np.empty_like(a) for f, a in pristine.items()}
    golden = None

    def reset():
        for f in spec.fields:
            np.copyto(work[f], pristine[f])

    modes = (False, True) if args.openmp else (False,)
    for openmp in modes:
        mode = "omp" if openmp else "seq"
        t0 = time.perf_counter()
        ours, c = build_pair(spec, shape, steps if spec.time_loop else None, ety, openmp,
                             workdir, args)
        res[f"compile_{mode}_s"] = round(time.perf_counter() - t0, 2)
        # untimed first run of each (warm-up, page faults), checked bit for bit
        for v in (c, ours):
            reset()
            v.bind(work)()
            if args.inject_mismatch and isinstance(v, CVersion):
                inject(spec, steps if spec.time_loop else None, work)
            if golden is None:  # the first run is C seq
                golden = {f: work[f].copy() for f in spec.fields}
            else:
                for d in differences(work, golden, spec.fields):
                    res["problems"].append(f"{spec.name} {ety} full size: {v.label} != C seq: {d}")
        # interleaved timed runs
        times = {"C": [], "ours": []}
        systimes = {"C": [], "ours": []}
        runs = {"C": c.bind(work), "ours": ours.bind(work)}
        for _ in range(args.runs):
            for who in ("C", "ours"):
                reset()
                if openmp and args.cooldown > 0:
                    time.sleep(args.cooldown)  # let the other runtime's threads stop spinning
                wall, systime = timed(runs[who], reps)
                times[who].append(wall)
                systimes[who].append(systime)
        for who in ("C", "ours"):
            med = statistics.median(times[who])
            res[f"{who}_{mode}_times"] = [round(t, 5) for t in times[who]]
            res[f"{who}_{mode}_sys_s"] = [round(t, 3) for t in systimes[who]]
            res[f"{who}_{mode}_gsts"] = points / med / 1e9
            res[f"{who}_{mode}_best_gsts"] = points / min(times[who]) / 1e9
        res[f"ratio_{mode}"] = res[f"ours_{mode}_gsts"] / res[f"C_{mode}_gsts"]
        res[f"load_after_{mode}"] = round(os.getloadavg()[0], 2)
        del ours, c, runs
    return res


# --------------------------------------------------------------------------
# Instruction counts (callgrind)


DRIVER_C = r"""
/* Calls one stencil function once on deterministic arrays, for callgrind.
   driver LIB SYMBOL mlir|c ELEMSIZE NFIELDS RANK D0 [D1 [D2]] */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*fn_t)(void *, void *, void *, void *, void *, void *, void *, void *);

int main(int argc, char **argv) {
  if (argc < 8) { fprintf(stderr, "usage: driver LIB SYMBOL mlir|c ELEMSIZE NFIELDS RANK DIMS\n"); return 2; }
  int mlir = argv[3][0] == 'm';
  int es = atoi(argv[4]), nf = atoi(argv[5]), rank = atoi(argv[6]);
  if (nf < 1 || nf > 8 || rank < 1 || rank > 3 || argc != 7 + rank) return 2;
  int64_t dims[3];
  size_t n = 1;
  for (int d = 0; d < rank; ++d) { dims[d] = atoll(argv[7 + d]); n *= (size_t)dims[d]; }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  fn_t fn = (fn_t)dlsym(h, argv[2]);
  if (!fn) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  void *args[8] = {0};
  int64_t desc[8][9];
  uint64_t s = 0x9e3779b97f4a7c15ULL;
  double check = 0;
  for (int a = 0; a < nf; ++a) {
    void *p = malloc(n * es);
    if (!p) return 3;
    for (size_t i = 0; i < n; ++i) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      double v = (double)(s >> 11) * 0x1.0p-53;
      if (es == 4) ((float *)p)[i] = (float)v; else ((double *)p)[i] = v;
    }
    if (mlir) {
      desc[a][0] = (int64_t)(intptr_t)p;
      desc[a][1] = (int64_t)(intptr_t)p;
      desc[a][2] = 0;
      int64_t stride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        desc[a][3 + d] = dims[d];
        desc[a][3 + rank + d] = stride;
        stride *= dims[d];
      }
      args[a] = desc[a];
    } else {
      args[a] = p;
    }
  }
  fn(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7]);
  for (int a = 0; a < nf; ++a) {
    void *p = mlir ? (void *)(intptr_t)desc[a][1] : args[a];
    check += es == 4 ? ((float *)p)[n / 2] : ((double *)p)[n / 2];
  }
  printf("checksum %.17g\n", check);
  return 0;
}
"""


def callgrind_count(driver, lib, symbol, kind, spec, shape, ety, workdir):
    """Instructions executed inside `symbol` (and what it calls), or a string
    saying why there is no count."""
    full = spec.array_shape(shape)
    out = Path(workdir) / f"callgrind.{symbol}.{kind}.{ety}.out"
    cmd = ["valgrind", "--tool=callgrind", f"--toggle-collect={symbol}",
           f"--callgrind-out-file={out}", str(driver), str(lib), symbol, kind,
           str(np.dtype(B.DTYPES[ety]).itemsize), str(len(spec.fields)), str(spec.rank),
           *map(str, full)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if "unhandled instruction" in proc.stderr:
            return "valgrind cannot decode its instructions (AVX-512?)"
        return f"valgrind failed ({proc.returncode})"
    text = out.read_text()
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    if not m:
        return "no count in the callgrind output"
    return int(m.group(1))


def host_has_avx512():
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


def callgrind_cpu(args):
    """The LLVM CPU name ours is built for under callgrind: valgrind 3.19
    cannot decode AVX-512, so on a host that has it use the CPU that
    `cc -march=native` reports (gcc 12 calls this Zen 4 'znver3', whose
    AVX2-only feature set LLVM's znver3 matches), else x86-64-v3."""
    if args.callgrind_cpu:
        return args.callgrind_cpu
    if not host_has_avx512():
        return "native"
    try:
        out = subprocess.run([args.cc, "-march=native", "-Q", "--help=target"],
                             capture_output=True, text=True).stdout
        m = re.search(r"^\s*-march=\s+(\S+)", out, re.M)
        if m:
            check_cpu(m.group(1))
            return m.group(1)
    except (OSError, CompileError):
        pass
    return "x86-64-v3"


def compile_ours(path, openmp, workdir, cpu=None):
    """compile_file, with `cpu` when given (and when compile_file takes it)."""
    if cpu is None:
        return compile_file(str(path), openmp=openmp, workdir=workdir)
    return compile_file(str(path), openmp=openmp, workdir=workdir, cpu=cpu)


def callgrind_table(args, workdir):
    rows = []
    if not shutil.which("valgrind"):
        log("callgrind: valgrind not found (apt-get install -y valgrind); skipped")
        return rows
    workdir = Path(workdir) / "callgrind"
    workdir.mkdir(parents=True, exist_ok=True)
    driver = workdir / "driver"
    (workdir / "driver.c").write_text(DRIVER_C)
    run_cmd([args.cc, "-O1", "-o", str(driver), str(workdir / "driver.c"), "-ldl"])
    cflags = list(args.cflags) + CALLGRIND_EXTRA_CFLAGS
    args.cg_cpu = callgrind_cpu(args)
    log(f"ours built with cpu={args.cg_cpu}, C with {' '.join(cflags)}")
    for name in args.callgrind_examples:
        spec = B.BENCHMARKS[name]
        shape = args.cg_shapes[spec.rank]
        steps = 1 if spec.time_loop else None
        points = int(np.prod(shape))
        for ety in args.dtypes:
            wd = workdir / f"{name}-{ety}"
            wd.mkdir(parents=True, exist_ok=True)
            mlir = wd / f"{name}.mlir"
            mlir.write_text(spec.mlir(shape, steps, ety))
            row = {"example": name, "dtype": ety, "shape": list(shape), "steps": steps}
            try:
                ours = compile_ours(mlir, False, wd / "ours",
                                    None if args.cg_cpu == "native" else args.cg_cpu)
                c = CVersion(spec, shape, steps, ety, False, wd / "c", args.cc, cflags)
            except (CompileError, OSError) as e:
                row["error"] = short_error(e)
                rows.append(row)
                log(f"callgrind {name} {ety}: build failed: {row['error']}")
                continue
            n_ours = callgrind_count(driver, ours.library, f"_mlir_ciface_{name}", "mlir",
                                     spec, shape, ety, wd)
            n_c = callgrind_count(driver, c.library, cgen.c_symbol(name), "c",
                                  spec, shape, ety, wd)
            row["ours_ir"] = n_ours if isinstance(n_ours, int) else f"ours: {n_ours}"
            row["C_ir"] = n_c if isinstance(n_c, int) else f"C: {n_c}"
            if isinstance(n_ours, int) and isinstance(n_c, int):
                row["ours_ir_per_pt"] = n_ours / points
                row["C_ir_per_pt"] = n_c / points
                row["ratio"] = n_ours / n_c
            rows.append(row)
            log(format_cg_row(row))
    return rows


def format_cg_row(r):
    size = "x".join(map(str, r["shape"]))
    if "ratio" in r:
        return (f"{r['example']:14s} {r['dtype']:4s} {size:>10s}  ours {r['ours_ir_per_pt']:8.2f}"
                f"  C {r['C_ir_per_pt']:8.2f}  ours/C {r['ratio']:6.2f}")
    why = r.get("error") or next(v for v in (r.get("ours_ir"), r.get("C_ir")) if isinstance(v, str))
    return f"{r['example']:14s} {r['dtype']:4s} {size:>10s}  n/a: {why}"


# --------------------------------------------------------------------------
# Reporting


def machine_info(args):
    info = {}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for key in ("Model name", "CPU family", "Model", "CPU(s)", "Thread(s) per core", "Core(s) per socket",
                    "L1d cache", "L2 cache", "L3 cache", "Hypervisor vendor"):
            m = re.search(rf"^{re.escape(key)}:\s*(.+)$", lscpu, re.M)
            if m:
                info[key] = m.group(1).strip()
        flags = re.search(r"^Flags:\s*(.+)$", lscpu, re.M)
        if flags:
            have = flags.group(1).split()
            info["vector ISA"] = " ".join(f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f")
                                          if f in have)
    except OSError:
        pass
    def first_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "n/a"
    info["cc"] = first_line([args.cc, "--version"])
    llc = subprocess.run([str(LLVM_BIN / "llc"), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"LLVM version (\S+)", llc)
    info["llc"] = f"{LLVM_BIN / 'llc'}: LLVM {m.group(1) if m else '?'}"
    info["valgrind"] = first_line(["valgrind", "--version"]) if shutil.which("valgrind") else "n/a"
    info["python / numpy"] = f"{platform.python_version()} / {np.__version__}"
    try:
        info["commit"] = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    info["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS", f"unset ({os.cpu_count()} CPUs)")
    info["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY", "unset (runtime defaults)")
    return info


def fmt_g(x):
    return f"{x:.3f}"


def text_table(rows, openmp):
    head = f"{'example':14s} {'dtype':5s} {'size':>14s} {'steps':>5s}  {'ours seq':>8s} {'C seq':>8s} {'ours/C':>6s}"
    if openmp:
        head += f"  {'ours omp':>8s} {'C omp':>8s} {'ours/C':>6s}"
    lines = [head + "   (GStencils/s)", "-" * len(head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['example']:14s} {r['dtype']:5s} ERROR: {r['error']}")
            continue
        size = "x".join(map(str, r["shape"]))
        steps = str(r["steps"]) if r["steps"] is not None else f"{r['reps']}x1"
        line = (f"{r['example']:14s} {r['dtype']:5s} {size:>14s} {steps:>5s}  "
                f"{r['ours_seq_gsts']:8.3f} {r['C_seq_gsts']:8.3f} {r['ratio_seq']:6.2f}")
        if openmp:
            line += f"  {r['ours_omp_gsts']:8.3f} {r['C_omp_gsts']:8.3f} {r['ratio_omp']:6.2f}"
        lines.append(line)
    return "\n".join(lines)


def markdown(rows, cg_rows, checks, info, args, started, elapsed):
    out = []
    out.append(f"Run of `bench/cpu_bench.py {' '.join(args.argv)}` on {started} "
               f"({elapsed:.0f} s).\n")
    out.append("| machine | |\n|---|---|")
    for k, v in info.items():
        out.append(f"| {k} | {v} |")
    out.append("")
    out.append(f"C flags: `{args.cc} {' '.join(args.cflags)} -fPIC -shared` (`-fopenmp` added "
               "for the OpenMP columns). Ours: `stencil.compiler.compile_file(..., "
               "openmp=False/True)`. Median of "
               f"{args.runs} interleaved runs per cell. `load`: the highest 1-minute load "
               "average seen while the row ran (the machine has "
               f"{os.cpu_count()} CPUs; other work on it slows the runs down).\n")
    bad = [c for c in checks if c["problems"]]
    if checks:
        out.append(f"Bit-exact check: **{'PASS' if not bad else 'FAIL'}** — "
                   f"{len(checks) - len(bad)} of {len(checks)} example/dtype pairs identical "
                   "bit for bit (ours seq/OpenMP, C seq/OpenMP and the numpy reference at a "
                   "small size; ours and C at the benchmark size).\n")
        for c in bad:
            out.append(f"- {c['example']} {c['dtype']}: {'; '.join(c['problems'])}")
        if bad:
            out.append("")
    if rows:
        omp = args.openmp
        head = "| example | dtype | size | steps | ours seq GSt/s | C seq GSt/s | ours/C seq |"
        sep = "|---|---|---|---:|---:|---:|---:|"
        if omp:
            head += " ours OMP GSt/s | C OMP GSt/s | ours/C OMP |"
            sep += "---:|---:|---:|"
        head += " load |"
        sep += "---:|"
        out += [head, sep]
        for r in rows:
            if "error" in r:
                out.append(f"| {r['example']} | {r['dtype']} | error: {r['error']} |")
                continue
            size = "x".join(map(str, r["shape"]))
            steps = str(r["steps"]) if r["steps"] is not None else f"1 sweep x {r['reps']}"
            line = (f"| {r['example']} | {r['dtype']} | {size} | {steps} | "
                    f"{fmt_g(r['ours_seq_gsts'])} | {fmt_g(r['C_seq_gsts'])} | "
                    f"{r['ratio_seq']:.2f} |")
            if omp:
                line += (f" {fmt_g(r['ours_omp_gsts'])} | {fmt_g(r['C_omp_gsts'])} | "
                         f"{r['ratio_omp']:.2f} |")
            loads = [r["load_before"]] + [r[k] for k in ("load_after_seq", "load_after_omp")
                                           if k in r]
            line += f" {max(loads):.1f} |"
            out.append(line)
        ok = [r for r in rows if "error" not in r]
        if ok:
            def geo(key):
                return float(np.exp(np.mean([np.log(r[key]) for r in ok])))
            s = (f"\nGeometric mean of ours/C: sequential {geo('ratio_seq'):.2f}")
            if omp:
                s += f", OpenMP {geo('ratio_omp'):.2f}"
            n_seq = sum(r["ratio_seq"] >= 0.9 for r in ok)
            s += f". Rows meeting the 0.9x target: sequential {n_seq} of {len(ok)}"
            if omp:
                s += f", OpenMP {sum(r['ratio_omp'] >= 0.9 for r in ok)} of {len(ok)}"
            out.append(s + ".\n")
    if cg_rows:
        out.append("Instructions per point, one time step, callgrind "
                   "(`--toggle-collect` on the kernel function; C built with "
                   f"`{' '.join(args.cflags + CALLGRIND_EXTRA_CFLAGS)}`, ours with "
                   f"`compile_file(..., cpu=\"{getattr(args, 'cg_cpu', '?')}\")`: "
                   "valgrind 3.19 cannot decode AVX-512):\n")
        out.append("| example | dtype | size | ours instr/point | C instr/point | ours/C |")
        out.append("|---|---|---|---:|---:|---:|")
        for r in cg_rows:
            size = "x".join(map(str, r["shape"]))
            if "ratio" in r:
                out.append(f"| {r['example']} | {r['dtype']} | {size} | "
                           f"{r['ours_ir_per_pt']:.2f} | {r['C_ir_per_pt']:.2f} | "
                           f"{r['ratio']:.2f} |")
            else:
                why = r.get("error") or next(v for v in (r.get("ours_ir"), r.get("C_ir"))
                                             if isinstance(v, str))
                out.append(f"| {r['example']} | {r['dtype']} | {size} | n/a | n/a | {why} |")
        ok = [r for r in cg_rows if "ratio" in r]
        if ok:
            out.append(f"\nRows meeting the <= 1.5x instruction target: "
                       f"{sum(r['ratio'] <= 1.5 for r in ok)} of {len(ok)}.\n")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Command line


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(prog="bench/cpu_bench.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("examples", nargs="*", help=f"benchmarks to run (default: all of "
                   f"{', '.join(B.BENCHMARKS)})")
    p.add_argument("--dtype", default="f32,f64", help="f32, f64 or f32,f64 (default)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: tiny sizes, 4 steps, 3 runs")
    p.add_argument("--shape-1d", type=parse_shape, help="1D interior size (default 16777216)")
    p.add_argument("--shape-2d", type=parse_shape, help="2D interior sizes (default 4096,4096)")
    p.add_argument("--shape-3d", type=parse_shape, help="3D interior sizes (default 256,256,256)")
    p.add_argument("--steps", type=int, help="time steps per run for every iterative example, "
                   "calls per run for the one-sweep ones (default: a table in this file)")
    p.add_argument("--runs", type=int, help="timed runs per variant (default 5, --quick 3)")
    p.add_argument("--no-openmp", dest="openmp", action="store_false",
                   help="sequential variants only")
    p.add_argument("--threads", type=int, help="OMP_NUM_THREADS (default: the runtimes' own)")
    p.add_argument("--omp-wait-policy", choices=["passive", "active", "default"],
                   help="OMP_WAIT_POLICY for both OpenMP runtimes (libomp for ours, libgomp "
                        "for C); 'default' leaves each runtime its own policy (default: "
                        "$OMP_WAIT_POLICY if set, else passive)")
    p.add_argument("--cooldown", type=float, default=None,
                   help="seconds to sleep before each OpenMP run so the idle threads of the "
                        "other runtime stop spinning (default 0 with the passive policy, "
                        "else 0.3: libomp's threads spin for 200 ms after a parallel region)")
    p.add_argument("--no-check", dest="check", action="store_false",
                   help="skip the small-size check against numpy (the full-size ours == C "
                        "check still runs)")
    p.add_argument("--check-only", action="store_true",
                   help="only the small-size bit-exact check, no timing")
    p.add_argument("--callgrind", action="store_true",
                   help="also count instructions per point with valgrind --tool=callgrind")
    p.add_argument("--callgrind-only", action="store_true", help="only the callgrind table")
    p.add_argument("--callgrind-examples", default=",".join(CALLGRIND_EXAMPLES))
    p.add_argument("--cg-shape-2d", type=parse_shape, default=CALLGRIND_SHAPES[2])
    p.add_argument("--cg-shape-3d", type=parse_shape, default=CALLGRIND_SHAPES[3])
    p.add_argument("--callgrind-cpu",
                   help="LLVM CPU name ours is compiled for under callgrind (default: the "
                        "host's if it has no AVX-512, else the CPU `cc -march=native` names, "
                        "e.g. znver3, which has no AVX-512)")
    p.add_argument("--cc", default="cc", help="C compiler (default cc)")
    p.add_argument("--cflags", default=" ".join(CFLAGS),
                   help=f"C flags (default: {' '.join(CFLAGS)})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", help="where to build (default: a temporary directory, removed)")
    p.add_argument("--markdown", help="write the tables as Markdown to this file")
    p.add_argument("--json", help="write every measurement (all run times) as JSON")
    p.add_argument("--inject-mismatch", action="store_true",
                   help="testing the checker: flip one bit of one C result, which must make "
                        "the check FAIL")
    args = p.parse_args(argv)
    args.argv = argv
    args.cflags = args.cflags.split()
    args.dtypes = [d for d in args.dtype.split(",") if d]
    for d in args.dtypes:
        if d not in B.DTYPES:
            p.error(f"unknown dtype {d}")
    names = args.examples or list(B.BENCHMARKS)
    for n in names:
        if n not in B.BENCHMARKS:
            p.error(f"unknown example {n}; have {', '.join(B.BENCHMARKS)}")
    args.callgrind_examples = [n for n in args.callgrind_examples.split(",") if n]
    for n in args.callgrind_examples:
        if n not in B.BENCHMARKS:
            p.error(f"unknown example {n} in --callgrind-examples")
    shapes = dict(QUICK_SHAPES if args.quick else DEFAULT_SHAPES)
    for rank, opt in ((1, args.shape_1d), (2, args.shape_2d), (3, args.shape_3d)):
        if opt:
            if len(opt) != rank:
                p.error(f"--shape-{rank}d needs {rank} sizes")
            shapes[rank] = opt
    args.cg_shapes = {1: CALLGRIND_SHAPES[1], 2: args.cg_shape_2d, 3: args.cg_shape_3d}
    if args.runs is None:
        args.runs = 3 if args.quick else 5
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    # before any OpenMP runtime is loaded (they read the environment then)
    if args.omp_wait_policy is None:
        args.omp_wait_policy = os.environ.get("OMP_WAIT_POLICY", "passive").lower()
    if args.omp_wait_policy == "default":
        os.environ.pop("OMP_WAIT_POLICY", None)
    else:
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait_policy
    if args.cooldown is None:
        args.cooldown = 0.0 if args.omp_wait_policy == "passive" else 0.3

    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    t_start = time.perf_counter()
    workdir, tmp = work_directory(args.workdir, "stencil-bench-")
    info = machine_info(args)
    log(f"machine: {info.get('Model name', '?')}, {info.get('CPU(s)', '?')} CPUs, "
        f"L2 {info.get('L2 cache', '?')}, L3 {info.get('L3 cache', '?')}; {info['cc']}; "
        f"{info['llc']}; load average {os.getloadavg()[0]:.2f}")
    log(f"C flags: {' '.join(args.cflags)} (+ -fopenmp); {args.runs} interleaved runs, median; "
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}, "
        f"cooldown {args.cooldown} s")

    checks, rows, cg_rows = [], [], []
    if not args.callgrind_only:
        for name in names:
            spec = B.BENCHMARKS[name]
            for ety in args.dtypes:
                check = {"example": name, "dtype": ety, "problems": []}
                checks.append(check)
                try:
                    if args.check:
                        size, labels, problems = small_check(spec, ety, args, workdir / "check")
                        check["problems"] += problems
                        verdict = "PASS" if not problems else "FAIL"
                        log(f"check {name} {ety} {size}: {' == '.join(labels + ['numpy'])}: "
                            f"{verdict}")
                        for pr in problems:
                            log(f"  MISMATCH {pr}")
                    if args.check_only:
                        continue
                    shape = shapes[spec.rank]
                    steps = args.steps or (4 if args.quick else DEFAULT_STEPS[name])
                    if not spec.time_loop and args.quick:
                        steps = 2
                    r = bench_one(spec, ety, shape, steps, args, workdir / "bench")
                    check["problems"] += r["problems"]
                    for pr in r["problems"]:
                        log(f"  MISMATCH {pr}")
                    rows.append(r)
                    line = (f"time  {name} {ety} {'x'.join(map(str, shape))}: "
                            f"seq ours {r['ours_seq_gsts']:.3f} C {r['C_seq_gsts']:.3f} "
                            f"GSt/s (x{r['ratio_seq']:.2f})")
                    if args.openmp:
                        line += (f"; omp ours {r['ours_omp_gsts']:.3f} C {r['C_omp_gsts']:.3f} "
                                 f"(x{r['ratio_omp']:.2f})")
                    line += ("; full-size ours == C: "
                             + ("PASS" if not r["problems"] else "FAIL"))
                    log(line)
                except (CompileError, OSError, ValueError) as e:
                    msg = short_error(e)
                    check["problems"].append(f"error: {msg}")
                    rows.append({"example": name, "dtype": ety, "error": msg})
                    log(f"ERROR {name} {ety}: {msg}")
        if rows:
            log("")
            log(text_table(rows, args.openmp))
        bad = [c for c in checks if c["problems"]]
        log("")
        log(f"bit-exact check: {'PASS' if not bad else 'FAIL'} "
            f"({len(checks) - len(bad)} of {len(checks)} example/dtype pairs identical)")
    if args.callgrind or args.callgrind_only:
        log("")
        log("instructions per point, one time step (callgrind):")
        cg_rows = callgrind_table(args, workdir)
    elapsed = time.perf_counter() - t_start
    if args.markdown:
        Path(args.markdown).write_text(markdown(rows, cg_rows, checks, info, args, started,
                                                elapsed))
        log(f"wrote {args.markdown}")
    if args.json:
        Path(args.json).write_text(json.dumps({"info": info, "started": started,
                                               "argv": argv, "checks": checks,
                                               "rows": rows, "callgrind": cg_rows},
                                              indent=1, default=str))
        log(f"wrote {args.json}")
    log(f"done in {elapsed:.0f} s, load average {os.getloadavg()[0]:.2f}")
    if tmp is not None:
        tmp.cleanup()
    failures = [c for c in checks if c["problems"]]
    failures += [r for r in cg_rows if "error" in r]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
