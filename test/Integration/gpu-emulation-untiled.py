# RUN: %python %s %t
# The GPU mapping of untiled programs (stencil-parallel-to-gpu), run on the
# CPU by stencil-gpu-emulate, gives the reference lowering's results bit for
# bit: every example (f64 as committed, f32 generated at odd sizes) and a few
# Devito forms, with the default block sizes and sequential blocks, and with
# small odd block sizes (many blocks, partial last block) and blocks run in
# parallel with OpenMP. The library under test is exactly what
# `--stencil-cpu-pipeline=emulate-gpu=true` compiles (checked on the LLVM
# dialect). A hand-written kernel checks barriers: the threads of each block
# exchange values through a buffer, in a time loop inside the kernel.
import subprocess
import sys
from pathlib import Path

import numpy as np

from stencil import benchmarks
from stencil import devito_forms as df
from stencil.compiler import compile_file, compile_loops, find_stencil_opt
from stencil.runtime import StencilLibrary

workdir = Path(sys.argv[1])
workdir.mkdir(parents=True, exist_ok=True)
OPT = find_stencil_opt()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# (block sizes, blocks in parallel with OpenMP)
VARIANTS = [("", False), ("3", True)]


def opt(*args, stdin=None):
    proc = subprocess.run([OPT, *args], input=stdin, capture_output=True, text=True)
    assert proc.returncode == 0, f"stencil-opt {' '.join(args)}:\n{proc.stderr}"
    return proc.stdout


def emulated_loops(path, block_sizes, openmp):
    """The loop form the emulate-gpu CPU pipeline compiles: its passes up to
    the emulation, checked against the pipeline itself."""
    mapping = f"--stencil-parallel-to-gpu=block-sizes={block_sizes}" if block_sizes \
        else "--stencil-parallel-to-gpu"
    loops = opt(str(path), "--stencil-shape-inference",
                "--convert-stencil-to-loops=parallel-all-dims=true", mapping,
                "--canonicalize", "--cse", "--stencil-hoist-out-of-branches", "--cse",
                "--loop-invariant-code-motion",
                f"--stencil-gpu-emulate=parallel-blocks={str(openmp).lower()}",
                "--canonicalize", "--cse", "--mlir-print-local-scope")
    assert "gpu." not in loops, path
    options = f"emulate-gpu=true openmp={str(openmp).lower()}"
    if block_sizes:
        options += f" block-sizes={block_sizes}"
    pipeline = opt(str(path), f"--stencil-cpu-pipeline={options}")
    rest = opt(f"--stencil-cpu-pipeline=openmp={str(openmp).lower()}", stdin=loops)
    assert pipeline == rest, f"{path}: the pipeline does not compile these loops"
    return loops


def bits(array):
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def same(got, want, what):
    for name in want:
        assert np.array_equal(bits(got[name]), bits(want[name])), \
            f"{what}: {name} differs from the reference"


def run_variants(path, tag, call, extra_sources=()):
    """`call(lib)` runs a library on fresh inputs and returns its outputs."""
    reference = StencilLibrary(compile_file(path, workdir=workdir / tag / "ref",
                                            extra_sources=extra_sources))
    want = call(reference)
    for block_sizes, openmp in VARIANTS:
        loops = emulated_loops(path, block_sizes, openmp)
        if not openmp:
            # Every parallel loop went through a launch.
            assert "scf.parallel" not in loops, path
        sub = workdir / tag / f"gpu{block_sizes}-{'omp' if openmp else 'seq'}"
        lib = StencilLibrary(compile_loops(loops, path.stem, openmp=openmp, workdir=sub,
                                           extra_sources=extra_sources))
        same(call(lib), want, f"{tag} (block-sizes '{block_sizes}', openmp={openmp})")
    print(f"ok {tag}")


def check_benchmark(path, tag):
    name, shape, _, ety = benchmarks.parse_program(path.read_text())
    spec = benchmarks.BENCHMARKS[name]
    inputs = benchmarks.make_inputs(name, shape, ety, seed=1)

    def call(lib):
        arrays = {f: a.copy() for f, a in inputs.items()}
        lib.call(name, *[arrays[f] for f in spec.fields])
        return arrays
    run_variants(path, tag, call)


examples = sorted(EXAMPLES.glob("*.mlir"))
assert len(examples) == 14, examples
for path in examples:
    check_benchmark(path, f"{path.stem}-f64")
    # The same program in f32, at a size that no block size divides.
    spec = benchmarks.BENCHMARKS[path.stem]
    shape = tuple(s - 3 for s in spec.default_shape)
    steps = 3 if spec.time_loop else None
    f32 = workdir / f"{path.stem}-f32.mlir"
    f32.write_text(spec.mlir(shape, steps, "f32"))
    check_benchmark(f32, f"{path.stem}-f32")

# Devito's form: rotating time buffers, several applies per step, a stale
# read (a snapshot copy), timers in host code.
timers_c = workdir / "devito_timers.c"
timers_c.write_text(df.TIMERS_C)
for family, order, shape, steps in [("heat", 4, (13, 11), 4), ("wave", 4, (9, 7, 5), 3),
                                    ("damped-wave", 2, (15,), 4),
                                    ("coupled-stale", 2, (9, 7, 5), 3),
                                    ("elastic2d", 2, (13, 11), 3)]:
    prog = df.make(family, order, shape, steps)
    path = df.write_program(prog, workdir)
    inputs = prog.make_inputs(3)

    def call(lib, prog=prog, inputs=inputs):
        arrays = {n: [a.copy() for a in arrs] for n, arrs in inputs.items()}
        timers = np.zeros(1, np.float64)
        lib.call("Kernel", *prog.arguments(arrays), timers)
        return {f"{n}[{i}]": a for n, arrs in arrays.items() for i, a in enumerate(arrs)}
    run_variants(path, f"devito-{prog.name}", call, extra_sources=[timers_c])

# Barriers: each block rotates its segment of `a` by one place per step,
# `steps` times. Thread t copies a[base + t] to tmp, all threads wait, then
# thread t reads tmp[base + (t + 1) % n], the value of its neighbour, and
# stores it into a[base + t]; a second barrier keeps the next step's copy
# from overwriting tmp before everyone has read it. The index a[base + t]
# is shared across the first barrier (the emulation computes it again).
ROTATE = """
func.func @rotate(%a: memref<?xf32>, %tmp: memref<?xf32>, %blocks: index,
                  %threads: index, %steps: index) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    scf.for %s = %c0 to %steps step %c1 {
      %v = memref.load %a[%i] : memref<?xf32>
      memref.store %v, %tmp[%i] : memref<?xf32>
      gpu.barrier
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %sx : index
      %k = arith.addi %base, %j : index
      %w = memref.load %tmp[%k] : memref<?xf32>
      memref.store %w, %a[%i] : memref<?xf32>
      gpu.barrier
    }
    gpu.terminator
  }
  return
}
"""
rotate = workdir / "rotate.mlir"
rotate.write_text(ROTATE)
for openmp in (False, True):
    lib = StencilLibrary(compile_loops(emulated_loops(rotate, "", openmp), "rotate",
                                       openmp=openmp,
                                       workdir=workdir / f"rotate-{openmp}"))
    for blocks, threads, steps in [(3, 8, 1), (2, 5, 7), (4, 1, 3), (1, 32, 33)]:
        a = np.arange(blocks * threads, dtype=np.float32)
        tmp = np.zeros_like(a)
        lib.call("rotate", a, tmp, blocks, threads, steps)
        want = np.concatenate([np.roll(seg, -steps) for seg in
                               np.arange(blocks * threads, dtype=np.float32).reshape(blocks, threads)])
        assert np.array_equal(a, want), (openmp, blocks, threads, steps, a, want)
print("ok rotate: threads exchange values through a barrier")
print("ok gpu emulation of all examples and devito forms")
