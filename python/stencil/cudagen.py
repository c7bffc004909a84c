"""Naive CUDA versions of the benchmark kernels (the GPU baseline).

The kernels of benchmarks.py are written once as Python code over an abstract
backend; cgen.py prints them as C loop nests, this module as the CUDA a
person would write first, with the same operations in the same order:

- one kernel per apply (so one launch per time step, and one per statement
  for fdtd2d), one thread per point of the apply's domain, 1D/2D/3D thread
  blocks whose x runs along the contiguous (last) array dimension, y along
  the one before, z along the first (3D); default block sizes 256 (1D),
  32x8 (2D), 32x4x4 (3D), the defaults of `stencil-parallel-to-gpu`;
- the body of every apply is cgen's recording of the kernel (cgen._CBuilder:
  one `const T v = a <op> b;` per arith op, the same binary tree, constants
  rounded to the dtype and printed as exact hex-floats), in a
  `__host__ __device__` point function that the kernel calls; compiled with
  `nvcc --fmad=false` (no FMA contraction) and without fast math (IEEE
  division, no flush to zero) the results are the bits of the numpy
  reference;
- domains are those of shape inference (as in cgen.py): an apply whose
  result is only stored and whose domain is the interior writes straight
  into the next buffer; an apply that a later apply reads (fdtd2d's ey' and
  ex', hdiff's lap/flx/fly, laplap's lap) writes its whole domain into a
  temporary array that the reader reads, and its interior points also into
  the field it is stored into (nothing of a step reads the next buffers, so
  storing early is the MLIR program's semantics);
- the time loop launches the kernels of a step in program order on one
  stream and swaps the ping-pong pointers; halos are never written.
  Temporaries are allocated once, by the caller.

The generated text is a header (`generate_cuda`) that bench/gpu_driver.cu is
compiled with (`nvcc --pre-include`): it defines the sizes, the fields, the
kernels, `sb_naive_run` (the time loop on the device), `sb_host_run` (the
same point functions in plain loops on the host: the CPU check of the very
source the GPU runs, usable without a GPU) and `sb_call_ciface` (calls the
`_mlir_ciface_<name>` entry point of a library compiled by stencil-opt with
memref descriptors of device arrays).  `hash_inputs` is the numpy mirror of
the driver's deterministic initialisation (`sb_init_value`).

Command line (run from python/):

    /usr/bin/python3 -m stencil.cudagen NAME [--shape 3072,3072] [--steps 512]
                                             [--dtype f32|f64] [--block 32,8] [-o out.cuh]
"""

import argparse
import sys

import numpy as np

from . import benchmarks as B
from . import cgen

CUDA_TYPES = cgen.C_TYPES
BITS_TYPES = {"f32": "unsigned int", "f64": "unsigned long long"}
DEFAULT_BLOCKS = {1: (256,), 2: (32, 8), 3: (32, 4, 4)}

# nvcc flags of the naive code and the driver: no FMA contraction, IEEE
# division and square root, no flush to zero (all nvcc's defaults except
# --fmad, spelled out); the host side (sb_host_run) without contraction too.
NVCC_FLAGS = ["-O3", "-std=c++17", "--fmad=false", "--prec-div=true", "--prec-sqrt=true",
              "--ftz=false", "-Xcompiler", "-O3,-ffp-contract=off"]
DEFAULT_ARCH = "sm_90"

INIT_SEED = 0x5eed


def launches_per_step(name):
    """Kernels per time step of the naive version: the applies of one step
    (the statements per step of the polyhedral form)."""
    spec = B.BENCHMARKS[name]
    return len(_analyse(spec, spec.default_shape, "f64")[0])


def bytes_per_point_step(spec, ety):
    """Bytes a code that does not tile in time moves per interior point and
    time step at best: one read and one write of every state field, one read
    of every read-only input (single sweep: one read per input, one write per
    output)."""
    size = np.dtype(B.DTYPES[ety]).itemsize
    if spec.time_loop:
        return size * (2 * len(spec.states) + len(spec.inputs))
    return size * (len(spec.inputs) + len(spec.outputs))


# --------------------------------------------------------------------------
# Deterministic initialisation, the same on the device, the host and in numpy


def _splitmix64(z):
    """splitmix64's finaliser on a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def hash_inputs(name, shape=None, dtype="f64", seed=INIT_SEED):
    """Full-extent arrays of every field, as the driver fills them without
    --init: element `idx` (row-major, halo included) of field number `f` is
    (splitmix64(seed << 48 ^ f << 40 ^ idx) >> 11) * 2^-53, a double in
    [0, 1), rounded to the dtype."""
    spec = B.BENCHMARKS[name]
    T = B.DTYPES[B._ety(dtype)]
    full = spec.array_shape(shape)
    n = int(np.prod(full))
    idx = np.arange(n, dtype=np.uint64)
    out = {}
    for f, field in enumerate(spec.fields):
        key = np.uint64(((seed << 48) ^ (f << 40)) & 0xFFFFFFFFFFFFFFFF)
        v = (_splitmix64(idx ^ key) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
        out[field] = v.astype(T).reshape(full)
    return out


# --------------------------------------------------------------------------
# Code generation


def _analyse(spec, shape, ety):
    """Record the kernel with cgen's C backend and infer every apply's domain
    (the same inference as cgen._Program.gen): (live applies, targets)."""
    rank = spec.rank
    K = cgen._CBuilder(ety, rank)
    temps = {s: cgen._Field(s, True) for s in spec.states} if spec.time_loop else {}
    temps.update({f: cgen._Field(f, False) for f in spec.inputs})
    results = spec._step(K, temps)
    targets = spec.states if spec.time_loop else spec.outputs
    if set(results) != set(targets):
        raise AssertionError(f"{spec.name}: step returns {sorted(results)}, expected {targets}")
    interior_lo, interior_hi = [0] * rank, list(shape)
    for t in targets:
        node = results[t]
        if not isinstance(node, cgen._Apply):
            raise AssertionError(f"{spec.name}: {t} is not computed by an apply")
        node.stored.append(t)
        node.lo, node.hi = cgen._union(node.lo, node.hi, interior_lo, interior_hi)
    for node in reversed(K.applies):
        if node.lo is None:
            continue
        for k, op in enumerate(node.operands):
            offs = node.body.offsets[k]
            if not offs:
                continue
            lo = [node.lo[d] + min(o[d] for o in offs) for d in range(rank)]
            hi = [node.hi[d] + max(o[d] for o in offs) for d in range(rank)]
            if isinstance(op, cgen._Apply):
                op.readers += 1
                op.lo, op.hi = cgen._union(op.lo, op.hi, lo, hi)
            elif any(lo[d] < -spec.radius[d] or hi[d] > shape[d] + spec.radius[d]
                     for d in range(rank)):
                raise AssertionError(f"{spec.name}: apply {node.name} reads {op.name} "
                                     "outside its halo")
    live = [n for n in K.applies if n.lo is not None]
    for n in live:
        n.direct = (len(n.stored) == 1 and n.readers == 0
                    and n.lo == interior_lo and n.hi == interior_hi)
        n.ext = [h - l for l, h in zip(n.lo, n.hi)]
    return live, targets


class _CudaProgram:
    def __init__(self, spec, shape, steps, ety, block):
        self.spec, self.shape, self.steps, self.ety = spec, tuple(shape), steps, ety
        self.rank = spec.rank
        self.T = CUDA_TYPES[ety]
        self.halo = spec.radius
        self.full = spec.array_shape(shape)
        block = tuple(block or DEFAULT_BLOCKS[self.rank])
        if len(block) != self.rank or any(b < 1 for b in block) or np.prod(block) > 1024:
            raise ValueError(f"block {block}: {self.rank} positive sizes, at most 1024 threads")
        self.block = block
        # 32-bit index arithmetic when every array fits (it does at the papers' sizes)
        self.I = "int" if int(np.prod(self.full)) < 2 ** 31 - 1 else "long long"
        self.lines = []

    def emit(self, text=""):
        self.lines.append(text)

    def lin(self, ext, var_shifts):
        """Row-major linear index of (i_d + shift_d) in an array of extent ext."""
        expr = None
        for d, (var, s) in enumerate(var_shifts):
            term = cgen._index(var, s)
            if expr is None:
                expr = f"({term})" if self.rank > 1 else term
            else:
                expr = f"({expr} * {ext[d]} + ({term}))" if d < self.rank - 1 \
                    else f"{expr} * {ext[d]} + ({term})"
        return expr

    def ivars(self):
        return [f"i{d}" for d in range(self.rank)]

    def gen(self):
        spec, T, rank = self.spec, self.T, self.rank
        live, targets = _analyse(spec, self.shape, self.ety)
        temps = [n for n in live if not n.direct]
        self.temps = temps
        size = "x".join(map(str, self.shape))
        what = f"{self.steps} time steps" if spec.time_loop else "one sweep"
        e = self.emit
        e("/* Generated by python/stencil/cudagen.py from the kernel in python/stencil/"
          "benchmarks.py: */")
        e(f"/* {spec.name}: {spec.summary} */")
        e(f"/* interior {size}, halo {'x'.join(map(str, self.halo))}, {what}, {self.ety}; "
          f"arguments ({', '.join(spec.fields)}); blocks {'x'.join(map(str, self.block))} */")
        e("#include <stdint.h>")
        e("#include <cuda_runtime.h>")
        e()
        e(f"#define SB_NAME \"{spec.name}\"")
        e(f"#define SB_SYMBOL \"_mlir_ciface_{spec.name}\"")
        e(f"#define SB_DTYPE \"{self.ety}\"")
        e(f"#define SB_RANK {rank}")
        e(f"#define SB_NFIELDS {len(spec.fields)}")
        e(f"#define SB_NTEMPS {len(temps)}")
        e(f"#define SB_TIME_LOOP {1 if spec.time_loop else 0}")
        e(f"#define SB_STEPS {self.steps if spec.time_loop else 1}LL")
        e(f"#define SB_ELEMS {int(np.prod(self.full))}LL")
        e(f"#define SB_POINTS {int(np.prod(self.shape))}LL")
        e(f"#define SB_LAUNCHES_PER_STEP {len(live)}")
        e(f"#define SB_BLOCK \"{'x'.join(map(str, self.block))}\"")
        e(f"typedef {T} sb_real;")
        e(f"typedef {BITS_TYPES[self.ety]} sb_bits;")
        e(f"static const long long sb_shape[SB_RANK] = {{{', '.join(map(str, self.shape))}}};")
        e(f"static const long long sb_full[SB_RANK] = {{{', '.join(map(str, self.full))}}};")
        names = ", ".join(f'"{f}"' for f in spec.fields)
        e(f"static const char *const sb_fields[SB_NFIELDS] = {{{names}}};")
        sizes = ", ".join(f"{int(np.prod(n.ext))}LL" for n in temps) or "0LL"
        e(f"static const long long sb_temp_elems[SB_NTEMPS > 0 ? SB_NTEMPS : 1] = {{{sizes}}};")
        e()
        for n in live:
            self.gen_apply(n)
        self.gen_run(live, device=True)
        self.gen_run(live, device=False)
        self.gen_ciface()
        return "\n".join(self.lines) + "\n"

    # -- one apply: point function and kernel ---------------------------------
    def apply_params(self, n):
        """[(param declaration, kind, what)] of apply n: the operands it reads,
        then its outputs (temporary, fields)."""
        T = self.T
        params = []
        for k, op in enumerate(n.operands):
            if n.body.offsets[k]:
                params.append((f"const {T} *__restrict__ in{k}", "in", (k, op)))
        if not n.direct:
            params.append((f"{T} *__restrict__ tmp", "tmp", n))
        for t in n.stored:
            params.append((f"{T} *__restrict__ out_{t}", "out", t))
        return params

    def gen_apply(self, n):
        e, T, I = self.emit, self.T, self.I
        k_ = n.index
        params = self.apply_params(n)
        iv = self.ivars()
        reads = ", ".join(sorted({f"{op.name}" if isinstance(op, cgen._Field)
                                  else f"apply {op.name}" for k, op in enumerate(n.operands)
                                  if n.body.offsets[k]}))
        dom = " x ".join(f"[{l}, {h})" for l, h in zip(n.lo, n.hi))
        dest = []
        if not n.direct:
            dest.append("a temporary")
        dest += [f"{t} (interior points)" if not n.direct else t for t in n.stored]
        e(f"/* apply {n.name}: points {dom}; reads {reads}; writes {', '.join(dest)} */")
        decl = ", ".join([f"{I} {v}" for v in iv] + [p[0] for p in params])
        e(f"static __host__ __device__ __forceinline__ void sb_point_{k_}({decl}) {{")
        bases = {}
        for k, op in enumerate(n.operands):
            if isinstance(op, cgen._Field):
                bases[k] = (self.full, list(self.halo))
            else:
                bases[k] = (op.ext, [-l for l in op.lo])
        used = {n.body.result}
        for st in n.body.stmts:
            used.update(x for x in st[2:] if isinstance(x, str))
        for st in n.body.stmts:
            kind, var = st[0], st[1]
            if kind == "read" and var not in used:
                continue  # read but unused (laplace2d's centre): the load is dead
            if kind == "read":
                k, off = st[2], st[3]
                ext, base = bases[k]
                idx = self.lin(ext, [(v, b + o) for v, b, o in zip(iv, base, off)])
                e(f"  const {T} {var} = in{k}[{idx}];")
            elif kind == "const":
                e(f"  const {T} {var} = {st[2]};")
            elif kind == "bin":
                e(f"  const {T} {var} = {st[2]} {st[3]} {st[4]};")
            elif kind == "gt":
                e(f"  const bool {var} = {st[2]} > {st[3]};")
            elif kind == "select":
                e(f"  const {T} {var} = {st[2]} ? {st[3]} : {st[4]};")
        res = n.body.result
        if not n.direct:
            e(f"  tmp[{self.lin(n.ext, [(v, -l) for v, l in zip(iv, n.lo)])}] = {res};")
        conds = []
        for d, v in enumerate(iv):
            if n.lo[d] < 0:
                conds.append(f"{v} >= 0")
            if n.hi[d] > self.shape[d]:
                conds.append(f"{v} < {self.shape[d]}")
        for t in n.stored:
            store = f"out_{t}[{self.lin(self.full, list(zip(iv, self.halo)))}] = {res};"
            e(f"  if ({' && '.join(conds)}) {store}" if conds else f"  {store}")
        e("}")
        # the kernel: x along the last dimension
        nthreads = int(np.prod(self.block))
        e(f"__global__ void __launch_bounds__({nthreads}) sb_kernel_{k_}("
          f"{', '.join(p[0] for p in params)}) {{")
        axes = ["x", "y", "z"]
        checks = []
        for a, d in enumerate(reversed(range(self.rank))):
            b = self.block[a]
            e(f"  const {I} i{d} = ({I})blockIdx.{axes[a]} * {b} + ({I})threadIdx.{axes[a]}"
              + (f" + {n.lo[d]}" if n.lo[d] > 0 else (f" - {-n.lo[d]}" if n.lo[d] < 0 else ""))
              + ";")
            checks.append(f"i{d} < {n.hi[d]}")
        args = ", ".join(iv + [p[0].rsplit(" ", 1)[1].lstrip("*") for p in params])
        e(f"  if ({' && '.join(checks)}) sb_point_{k_}({args});")
        e("}")
        e()

    def grid(self, n):
        g = []
        for a, d in enumerate(reversed(range(self.rank))):
            g.append(-(-n.ext[d] // self.block[a]))
        while len(g) < 3:
            g.append(1)
        if g[1] > 65535 or g[2] > 65535:
            raise ValueError(f"{self.spec.name}: grid {g} exceeds 65535 blocks in y or z: "
                             "use larger blocks")
        return g

    # -- the time loop -----------------------------------------------------------
    def gen_run(self, live, device):
        spec, T, I, e = self.spec, self.T, self.I, self.emit
        if device:
            e("/* All steps on the device: the kernels of a step in program order on "
              "`stream`; tmp: the temporaries (sb_temp_elems). */")
            e("static void sb_naive_run(sb_real *const *arg, sb_real *const *tmp, "
              "cudaStream_t stream) {")
        else:
            e("/* The same point functions in loops on the host (the CPU check of the "
              "kernel source). */")
            e("static void sb_host_run(sb_real *const *arg, sb_real *const *tmp) {")
        e("  (void)tmp;")
        idx = {f: i for i, f in enumerate(spec.fields)}
        if spec.time_loop:
            for s, (a, b) in zip(spec.states, spec.pingpong):
                e(f"  {T} *{s}_cur = arg[{idx[a]}], *{s}_next = arg[{idx[b]}];")
        for f in spec.inputs:
            e(f"  const {T} *f_{f} = arg[{idx[f]}];")
        for f in spec.outputs:
            e(f"  {T} *f_{f} = arg[{idx[f]}];")
        pad = "  "
        if spec.time_loop:
            e("  for (long long t = 0; t < SB_STEPS; ++t) {")
            pad = "    "
        tmp_index = {n.index: i for i, n in enumerate(self.temps)}
        for n in live:
            args = []
            for decl, kind, what in self.apply_params(n):
                if kind == "in":
                    k, op = what
                    if isinstance(op, cgen._Field):
                        args.append(f"{op.name}_cur" if op.state else f"f_{op.name}")
                    else:
                        args.append(f"tmp[{tmp_index[op.index]}]")
                elif kind == "tmp":
                    args.append(f"tmp[{tmp_index[n.index]}]")
                else:
                    args.append(f"{what}_next" if spec.time_loop else f"f_{what}")
            if device:
                g = self.grid(n)
                b = list(self.block) + [1] * (3 - self.rank)
                e(f"{pad}sb_kernel_{n.index}<<<dim3({g[0]}, {g[1]}, {g[2]}), "
                  f"dim3({b[0]}, {b[1]}, {b[2]}), 0, stream>>>({', '.join(args)});")
            else:
                loops = "".join(f"for ({I} i{d} = {n.lo[d]}; i{d} < {n.hi[d]}; ++i{d}) "
                                for d in range(self.rank))
                e(f"{pad}{loops}sb_point_{n.index}({', '.join(self.ivars() + args)});")
        if spec.time_loop:
            for s in spec.states:
                e(f"    {{ {T} *swap = {s}_cur; {s}_cur = {s}_next; {s}_next = swap; }}")
            e("  }")
        e("}")
        e()

    def gen_ciface(self):
        r = self.rank
        e = self.emit
        e("/* The lowered ABI of a compiled stencil function: one memref descriptor per "
          "field. */")
        e("struct sb_memref {")
        e("  void *allocated;")
        e("  void *aligned;")
        e("  int64_t offset;")
        e(f"  int64_t sizes[{r}];")
        e(f"  int64_t strides[{r}];")
        e("};")
        nf = len(self.spec.fields)
        e("/* Calls _mlir_ciface_<name>(&desc[0], ..., &desc[SB_NFIELDS-1]). */")
        e("static void sb_call_ciface(void *fn, sb_memref *desc) {")
        e(f"  typedef void (*fn_t)({', '.join(['sb_memref *'] * nf)});")
        e(f"  ((fn_t)fn)({', '.join(f'&desc[{i}]' for i in range(nf))});")
        e("}")


def generate_cuda(name, shape=None, steps=None, dtype="f64", block=None):
    """The CUDA header of benchmark `name` (see the module docstring)."""
    spec = B.BENCHMARKS[name]
    shape = spec._shape(shape)
    steps = spec._steps(steps)
    ety = B._ety(dtype)
    return _CudaProgram(spec, shape, steps, ety, block).gen()


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m stencil.cudagen",
                                description="Print a benchmark kernel as naive CUDA.")
    p.add_argument("name", choices=sorted(B.BENCHMARKS))
    p.add_argument("--shape", type=B._parse_shape, help="interior sizes, e.g. 3072,3072")
    p.add_argument("--steps", type=int, help="time steps (iterative benchmarks)")
    p.add_argument("--dtype", default="f64", choices=sorted(B.DTYPES))
    p.add_argument("--block", type=B._parse_shape,
                   help="threads per block, x (innermost dimension) first, e.g. 32,8")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    args = p.parse_args(argv)
    B._write(generate_cuda(args.name, args.shape, args.steps, args.dtype, args.block),
             args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
