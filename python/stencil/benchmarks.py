"""The benchmark stencil programs: MLIR generator and numpy references.

Every benchmark is one `func.func` in the `stencil` dialect (the text form
xDSL prints).  Its arguments are fields with static bounds that include the
halo: a field of interior shape (n0, n1, ...) and halo (h0, h1, ...) has the
type `!stencil.field<[-h0,n0+h0]x[-h1,n1+h1]x...xT>` and is passed as an
array of shape (n0+2*h0, n1+2*h1, ...) whose element 0 is the lower bound.

Iterative benchmarks have a time loop in the form Devito emits: an `scf.for`
whose `iter_args` ping-pong the two buffers of every state field.  Each step
loads the current buffers (and any read-only field), computes the interior
[0, n) with one `stencil.apply` per new value and stores it into the other
buffer, then swaps them (`scf.yield %next, %cur`).  Halo points are never
written, so both buffers keep their initial halo (a fixed boundary), and after
N steps the newest state is in buffer 0 when N is even, buffer 1 when N is
odd (`Benchmark.final_buffers`).  Single-sweep benchmarks (hdiff, laplap) load
their inputs, chain several applies and store the last into an output field.

The arithmetic of every kernel is an explicit chain of binary arith ops
(addf, subf, mulf, divf, and cmpf+select for the hdiff limiter).  A kernel is
written once as Python code over an abstract backend; the MLIR backend prints
it, the numpy backend evaluates the same operations in the same order on
arrays of the program's dtype, so a correct compiler matches the reference
bit for bit.  Constants are rounded to the dtype first and printed so that
MLIR's parser gives back exactly that value.  `Benchmark.naive` is a third,
separately written version (pure Python loops over points, numpy scalars),
used by `selftest` to check the numpy reference.

Command line (run from python/):

    /usr/bin/python3 -m stencil.benchmarks list
    /usr/bin/python3 -m stencil.benchmarks gen NAME [--shape 3072,3072] [--steps 512]
                                                    [--dtype f32|f64] [-o out.mlir]
    /usr/bin/python3 -m stencil.benchmarks gen-all [--outdir ../examples] [--dtype f64]
                                                    [--paper]
    /usr/bin/python3 -m stencil.benchmarks selftest
    /usr/bin/python3 -m stencil.benchmarks check FILE [--openmp] [--seed N]

`check` compiles FILE with the project's tools (stencil.compiler), runs it on
`make_inputs` and compares every field bit for bit with the reference; the
benchmark, sizes, steps and dtype are read from the program text itself.
"""

import argparse
import itertools
import re
import sys
from pathlib import Path

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64}

PAPER_SIZES = {
    # rank: (interior shape, time steps) used in the paper's evaluation
    2: ((3072, 3072), 512),
    3: ((384, 384, 384), 128),
}


def program_parser(description, dtypes="f32,f64"):
    """The command line the benchmark scripts share: benchmark names
    (default: every time-loop one, `time_loop_names`) and `--dtype`, a
    comma-separated list."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="benchmarks (default: every time-loop one)")
    parser.add_argument("--dtype", default=dtypes, help=f"element types (default {dtypes})")
    return parser


def time_loop_names(rank=None):
    """The benchmarks with a time loop (of one rank when given), in table order."""
    return [name for name, spec in BENCHMARKS.items()
            if spec.time_loop and (rank is None or spec.rank == rank)]


def _ety(dtype):
    """'f32' or 'f64' for a dtype given as a string, numpy type or dtype."""
    if isinstance(dtype, str) and dtype in DTYPES:
        return dtype
    d = np.dtype(dtype)
    for name, t in DTYPES.items():
        if d == np.dtype(t):
            return name
    raise ValueError(f"unsupported dtype {dtype!r}: use f32 or f64")


def _mlir_float(value, ety):
    """The MLIR literal of `value` rounded to `ety`.

    The printed decimal is the shortest one that gives back the rounded value
    as a double; MLIR parses float literals to double, then converts to the
    element type, so it recovers the rounded value exactly (and numpy's
    `dtype(value)` is that same value).
    """
    v = float(DTYPES[ety](value))
    if not np.isfinite(v):
        raise ValueError(f"constant {value!r} is not finite in {ety}")
    s = repr(v)
    mantissa, e, exponent = s.partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # MLIR float literals need a '.'
    return mantissa + (e + exponent if e else "")


# --------------------------------------------------------------------------
# Backends a kernel is evaluated on.  A kernel is `step(K, temps) -> dict`
# (temps: name -> loaded temp) that calls `K.apply(body, *temps, name=...)`;
# an apply body is `body(K, *accessors) -> value`, where `acc(di, dj, ...)`
# reads an operand at an offset, `K.c(x)` is a constant of the program's
# dtype, `K.gt(a, b)` / `K.select(cond, a, b)` the limiter ops, and values
# combine with + - * / only.


class _Names:
    def __init__(self):
        self.used = set()

    def reserve(self, name):
        if name in self.used:
            raise ValueError(f"SSA name %{name} used twice")
        self.used.add(name)
        return name

    def child(self):
        """A scope for one apply region: it sees the names used so far, and
        the names it adds are free again for the next region."""
        scope = _Names()
        scope.used = set(self.used)
        return scope

    def fresh(self, hint):
        name, n = hint, 0
        while name in self.used:
            n += 1
            name = f"{hint}{n}"
        self.used.add(name)
        return name


class KernelValue:
    """A value inside one apply body of a backend that prints kernels (MLIR
    here, C in cgen.py): Python's arithmetic operators record the backend's
    op, named in OPS, through the body's `binop`."""
    __slots__ = ("ctx", "name", "type")
    OPS = {}

    def __init__(self, ctx, name, type_):
        self.ctx, self.name, self.type = ctx, name, type_

    def _bin(self, op, other):
        if not isinstance(other, type(self)):
            raise TypeError(f"operand {other!r} of {op} is not a value of the apply: "
                            "write constants as K.c(value)")
        return self.ctx.binop(self.OPS[op], self, other)

    def __add__(self, other):
        return self._bin("+", other)

    def __sub__(self, other):
        return self._bin("-", other)

    def __mul__(self, other):
        return self._bin("*", other)

    def __truediv__(self, other):
        return self._bin("/", other)


class _MVal(KernelValue):
    """An SSA value inside a stencil.apply of the MLIR backend."""
    __slots__ = ()
    OPS = {"+": "addf", "-": "subf", "*": "mulf", "/": "divf"}


def _offset_suffix(off):
    return "_".join("0" if o == 0 else (f"p{o}" if o > 0 else f"m{-o}") for o in off)


class _MlirApplyBody:
    """Prints the region of one stencil.apply."""

    def __init__(self, names, ety, rank, indent):
        self.names, self.ety, self.rank = names, ety, rank
        self.temp_type = _temp_type(rank, ety)
        self.pad = " " * indent
        self.lines = []
        self.consts = {}

    def emit(self, text):
        self.lines.append(self.pad + text)

    def accessor(self, arg):
        cache = {}

        def acc(*off):
            if len(off) != self.rank or not all(isinstance(o, int) for o in off):
                raise ValueError(f"access {off} needs {self.rank} integer offsets")
            if off not in cache:
                name = self.names.fresh(f"{arg}_{_offset_suffix(off)}")
                self.emit(f"%{name} = stencil.access %{arg}[{', '.join(map(str, off))}] : "
                          f"{self.temp_type}")
                cache[off] = _MVal(self, name, self.ety)
            return cache[off]
        return acc

    def c(self, value):
        lit = _mlir_float(value, self.ety)
        if lit not in self.consts:
            name = self.names.fresh("k")
            self.emit(f"%{name} = arith.constant {lit} : {self.ety}")
            self.consts[lit] = _MVal(self, name, self.ety)
        return self.consts[lit]

    def _check(self, *vals, type_=None):
        for v in vals:
            if not isinstance(v, _MVal) or v.ctx is not self:
                raise TypeError(f"{v!r} is not a value of this apply")
            if v.type != (type_ or self.ety):
                raise TypeError(f"%{v.name} has type {v.type}, expected {type_ or self.ety}")

    def binop(self, op, a, b):
        self._check(a, b)
        name = self.names.fresh("v")
        self.emit(f"%{name} = arith.{op} %{a.name}, %{b.name} : {self.ety}")
        return _MVal(self, name, self.ety)

    def gt(self, a, b):
        self._check(a, b)
        name = self.names.fresh("p")
        self.emit(f"%{name} = arith.cmpf ogt, %{a.name}, %{b.name} : {self.ety}")
        return _MVal(self, name, "i1")

    def select(self, cond, a, b):
        self._check(cond, type_="i1")
        self._check(a, b)
        name = self.names.fresh("v")
        self.emit(f"%{name} = arith.select %{cond.name}, %{a.name}, %{b.name} : {self.ety}")
        return _MVal(self, name, self.ety)


class _MlirBuilder:
    """MLIR backend: temps are SSA names (str) of !stencil.temp values."""

    def __init__(self, names, ety, rank, indent):
        self.names, self.ety, self.rank = names, ety, rank
        self.temp_type = _temp_type(rank, ety)
        self.indent = indent
        self.lines = []

    def apply(self, body, *temps, name="r"):
        if not temps:
            raise ValueError("an apply needs at least one operand")
        local = self.names.child()
        args = [local.fresh(re.sub(r"_t$", "", t)) for t in temps]
        inner = _MlirApplyBody(local, self.ety, self.rank, self.indent + 2)
        value = body(inner, *[inner.accessor(a) for a in args])
        inner._check(value)
        res = local.fresh("res")
        inner.emit(f"%{res} = stencil.store_result %{value.name} : !stencil.result<{self.ety}>")
        inner.emit(f"stencil.return %{res} : !stencil.result<{self.ety}>")
        out = self.names.fresh(name)
        pad = " " * self.indent
        operands = ", ".join(f"%{a} = %{t} : {self.temp_type}" for a, t in zip(args, temps))
        self.lines.append(f"{pad}%{out} = stencil.apply({operands}) -> ({self.temp_type}) {{")
        self.lines.extend(inner.lines)
        self.lines.append(f"{pad}}}")
        return out


class _Box:
    """A temp of the numpy backend: `data` holds the points [lo, lo + shape)
    of the field arrays' index space (array coordinates, halo included)."""
    __slots__ = ("data", "lo")

    def __init__(self, data, lo):
        self.data, self.lo = data, tuple(lo)


class _NumpyBackend:
    """Numpy backend: an apply is evaluated on the largest box where every
    read of every operand is defined (so a program whose halo is too small
    leaves part of the stored interior uncomputed, which is reported)."""

    def __init__(self, dtype):
        self.T = np.dtype(dtype).type

    def c(self, value):
        return self.T(value)

    def gt(self, a, b):
        return np.greater(a, b)

    def select(self, cond, a, b):
        return np.where(cond, a, b)

    def apply(self, body, *temps, name=None):
        boxes = [t if isinstance(t, _Box) else _Box(t, (0,) * t.ndim) for t in temps]
        rank = boxes[0].data.ndim
        # pass 1: which offsets does the body read?
        offsets = [set() for _ in boxes]

        def probe(k):
            def acc(*off):
                if len(off) != rank:
                    raise ValueError(f"access {off} needs {rank} offsets")
                offsets[k].add(tuple(off))
                return self.T(1)
            return acc
        with np.errstate(all="ignore"):
            body(self, *[probe(k) for k in range(len(boxes))])
        lo = [-(1 << 62)] * rank
        hi = [1 << 62] * rank
        for box, offs in zip(boxes, offsets):
            for off in offs:
                for d in range(rank):
                    lo[d] = max(lo[d], box.lo[d] - off[d])
                    hi[d] = min(hi[d], box.lo[d] + box.data.shape[d] - off[d])
        if any(h <= l for l, h in zip(lo, hi)):
            raise AssertionError(f"apply {name}: no point has all its reads inside the fields")
        shape = tuple(h - l for l, h in zip(lo, hi))

        # pass 2: evaluate on views of the operands
        def view(box):
            def acc(*off):
                return box.data[tuple(slice(l + o - b, h + o - b)
                                      for l, h, o, b in zip(lo, hi, off, box.lo))]
            return acc
        value = np.asarray(body(self, *[view(b) for b in boxes]))
        if value.dtype != self.T:
            raise TypeError(f"apply {name}: result is {value.dtype}, expected {np.dtype(self.T)}")
        if value.shape != shape:
            value = np.broadcast_to(value, shape).copy()
        return _Box(value, lo)


def _temp_type(rank, ety):
    return f"!stencil.temp<{'?x' * rank}{ety}>"


class _Grid:
    """A field for the naive version: logical coordinates, bounds checked."""

    def __init__(self, array, lower):
        self.a, self.lower = array, lower
        self.lo = [None] * array.ndim  # smallest / largest coordinate read
        self.hi = [None] * array.ndim

    def __call__(self, *p):
        idx = tuple(x - lb for x, lb in zip(p, self.lower))
        if len(p) != self.a.ndim or any(not 0 <= i < n for i, n in zip(idx, self.a.shape)):
            raise IndexError(f"read at {p} outside the field (lower bound {self.lower}, "
                             f"extent {self.a.shape})")
        for d, x in enumerate(p):
            self.lo[d] = x if self.lo[d] is None else min(self.lo[d], x)
            self.hi[d] = x if self.hi[d] is None else max(self.hi[d], x)
        return self.a[idx]


# --------------------------------------------------------------------------
# Benchmark specification


class Benchmark:
    """One benchmark program.

    Attributes: name, rank, radius (halo width per dimension: how far one
    time step, or the whole single-sweep program, reaches; also the halo of
    every field), fields (argument names in order), pingpong (pairs of
    buffers of each state), inputs (read-only fields), outputs (fields a
    single-sweep program writes), time_loop, default_shape, default_steps,
    summary.
    """

    def __init__(self, name, rank, radius, step, naive_point, *, states=(), inputs=(),
                 outputs=(), default_shape, default_steps=None, summary, notes=""):
        self.name, self.rank = name, rank
        self.radius = tuple(radius)
        assert len(self.radius) == rank
        self.states = list(states)
        self.pingpong = [(f"{s}0", f"{s}1") for s in self.states]
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.fields = [f for pair in self.pingpong for f in pair] + self.inputs + self.outputs
        self.time_loop = bool(self.states)
        assert self.time_loop != bool(self.outputs)
        self.default_shape = tuple(default_shape)
        self.default_steps = default_steps if self.time_loop else None
        self.summary, self.notes = summary, notes
        self._step, self._naive_point = step, naive_point
        self.reach = None  # (lowest, highest) coordinates the last naive() run read

    # -- sizes -------------------------------------------------------------
    def _shape(self, shape):
        shape = tuple(int(n) for n in (self.default_shape if shape is None else shape))
        if len(shape) != self.rank or any(n < 1 for n in shape):
            raise ValueError(f"{self.name}: shape {shape} must be {self.rank} positive sizes")
        return shape

    def _steps(self, steps):
        if not self.time_loop:
            return None
        steps = self.default_steps if steps is None else int(steps)
        if steps < 0:
            raise ValueError(f"{self.name}: steps must be >= 0")
        return steps

    def bounds(self, shape=None):
        """[(lb, ub)] per dimension (ub exclusive) of every field."""
        return [(-h, n + h) for n, h in zip(self._shape(shape), self.radius)]

    def array_shape(self, shape=None):
        """The numpy shape of every field argument (interior plus halo)."""
        return tuple(n + 2 * h for n, h in zip(self._shape(shape), self.radius))

    def field_type(self, shape=None, dtype="f64"):
        dims = "x".join(f"[{lb},{ub}]" for lb, ub in self.bounds(shape))
        return f"!stencil.field<{dims}x{_ety(dtype)}>"

    def final_buffers(self, steps=None):
        """For each state, the argument that holds its newest value after
        `steps` time steps: buffer 0 for an even count, buffer 1 for odd."""
        steps = self._steps(steps)
        return {s: pair[steps % 2] for s, pair in zip(self.states, self.pingpong)}

    def _interior_shape(self, arrays):
        names = set(arrays)
        if names != set(self.fields):
            raise ValueError(f"{self.name}: fields {sorted(names)}, expected {self.fields}")
        first = arrays[self.fields[0]]
        shape = tuple(n - 2 * h for n, h in zip(first.shape, self.radius))
        for f in self.fields:
            a = arrays[f]
            if a.shape != first.shape or a.dtype != first.dtype or a.ndim != self.rank:
                raise ValueError(f"{self.name}: field {f} is {a.dtype}{a.shape}, expected "
                                 f"{first.dtype}{first.shape}")
        _ety(first.dtype)
        return self._shape(shape)

    # -- MLIR --------------------------------------------------------------
    def mlir(self, shape=None, steps=None, dtype="f64"):
        """The program as MLIR text (one func.func named after the benchmark)."""
        shape, steps, ety = self._shape(shape), self._steps(steps), _ety(dtype)
        ftype = self.field_type(shape, ety)
        ttype = _temp_type(self.rank, ety)
        names = _Names()
        for f in self.fields:
            names.reserve(f)
        lo = ", ".join("0" for _ in shape)
        hi = ", ".join(str(n) for n in shape)
        out = []
        sizes = "x".join(map(str, shape))
        halo = "x".join(map(str, self.radius))
        out.append(f"// {self.name}: {self.summary}")
        if self.notes:
            out.extend(f"// {line}" for line in self.notes.splitlines())
        args = (f"--shape {','.join(map(str, shape))}"
                + (f" --steps {steps}" if self.time_loop else "") + f" --dtype {ety}")
        what = f"interior {sizes}, halo {halo}" + (f", {steps} time steps" if self.time_loop
                                                   else ", one sweep") + f", {ety}"
        out.append(f"// Generated by python/stencil/benchmarks.py ({what}):")
        out.append(f"//   cd python && /usr/bin/python3 -m stencil.benchmarks gen {self.name} {args}")
        if self.time_loop:
            fin = ", ".join(f"{s} in %{b}" for s, b in self.final_buffers(steps).items())
            out.append(f"// Ping-pong buffers {', '.join('%' + a + '/%' + b for a, b in self.pingpong)}"
                       f"; after {steps} steps the result is {fin}.")
        sig = ", ".join(f"%{f} : {ftype}" for f in self.fields)
        out.append(f"func.func @{self.name}({sig}) {{")
        store = f"(<[{lo}], [{hi}]>) : {ttype} to {ftype}"
        if self.time_loop:
            for n in ("c0", "c1", "steps", "r", "t"):
                names.reserve(n)
            cur = {s: names.reserve(f"{s}_cur") for s in self.states}
            nxt = {s: names.reserve(f"{s}_next") for s in self.states}
            n_iter = 2 * len(self.states)
            types = ", ".join([ftype] * n_iter)
            iter_args = ", ".join(f"%{cur[s]} = %{a}, %{nxt[s]} = %{b}"
                                  for s, (a, b) in zip(self.states, self.pingpong))
            out += ["  %c0 = arith.constant 0 : index",
                    "  %c1 = arith.constant 1 : index",
                    f"  %steps = arith.constant {steps} : index",
                    f"  %r:{n_iter} = scf.for %t = %c0 to %steps step %c1 iter_args({iter_args})"
                    f" -> ({types}) {{"]
            builder = _MlirBuilder(names, ety, self.rank, 4)
            temps = {}
            for s in self.states:
                temps[s] = names.reserve(f"{s}_t")
                out.append(f"    %{temps[s]} = stencil.load %{cur[s]} : {ftype} -> {ttype}")
            for f in self.inputs:
                temps[f] = names.reserve(f"{f}_t")
                out.append(f"    %{temps[f]} = stencil.load %{f} : {ftype} -> {ttype}")
            results = self._step(builder, temps)
            out += builder.lines
            for s in self.states:
                out.append(f"    stencil.store %{results[s]} to %{nxt[s]}{store}")
            yields = ", ".join(f"%{nxt[s]}, %{cur[s]}" for s in self.states)
            out.append(f"    scf.yield {yields} : {types}")
            out.append("  }")
            if set(results) != set(self.states):
                raise AssertionError(f"{self.name}: step returns {sorted(results)}")
        else:
            builder = _MlirBuilder(names, ety, self.rank, 2)
            temps = {}
            for f in self.inputs:
                temps[f] = names.reserve(f"{f}_t")
                out.append(f"  %{temps[f]} = stencil.load %{f} : {ftype} -> {ttype}")
            results = self._step(builder, temps)
            out += builder.lines
            for f in self.outputs:
                out.append(f"  stencil.store %{results[f]} to %{f}{store}")
            if set(results) != set(self.outputs):
                raise AssertionError(f"{self.name}: step returns {sorted(results)}")
        out.append("  func.return")
        out.append("}")
        return "\n".join(out) + "\n"

    # -- references --------------------------------------------------------
    def _run(self, arrays, steps, one_step):
        """The program's driver, shared by the numpy and the naive version:
        `one_step(current: name -> array) -> name -> new interior values`."""
        shape = self._interior_shape(arrays)
        steps = self._steps(steps)
        res = {f: np.array(a, copy=True) for f, a in arrays.items()}
        interior = tuple(slice(h, h + n) for n, h in zip(shape, self.radius))
        if self.time_loop:
            cur = {s: a for s, (a, _) in zip(self.states, self.pingpong)}
            nxt = {s: b for s, (_, b) in zip(self.states, self.pingpong)}
            for _ in range(steps):
                src = {s: res[cur[s]] for s in self.states}
                src.update({f: res[f] for f in self.inputs})
                new = one_step(src, shape, interior)
                # all loads happened above; now the stores
                for s in self.states:
                    res[nxt[s]][interior] = new[s]
                cur, nxt = nxt, cur
        else:
            new = one_step({f: res[f] for f in self.inputs}, shape, interior)
            for f in self.outputs:
                res[f][interior] = new[f]
        return res

    def reference(self, arrays, steps=None):
        """Numpy reference: full-extent arrays (halo included) of every field
        -> the final arrays of every field (inputs are not modified)."""
        dtype = arrays[self.fields[0]].dtype
        backend = _NumpyBackend(dtype)

        def one_step(src, shape, interior):
            new = self._step(backend, dict(src))
            out = {}
            for name, box in new.items():
                if not isinstance(box, _Box):
                    box = _Box(box, (0,) * self.rank)
                part = tuple(slice(i.start - lo, i.stop - lo) for i, lo in zip(interior, box.lo))
                if any(p.start < 0 or p.stop > n for p, n in zip(part, box.data.shape)):
                    raise AssertionError(f"{self.name}: {name} reads outside the fields "
                                         "(halo too small)")
                out[name] = box.data[part]
            return out
        return self._run(arrays, steps, one_step)

    def naive(self, arrays, steps=None):
        """The same as reference(), with pure Python loops over the points
        and a separately written scalar kernel (for selftest, tiny sizes)."""
        T = arrays[self.fields[0]].dtype.type
        lower = tuple(-h for h in self.radius)
        self.reach = None

        def one_step(src, shape, interior):
            grids = {f: _Grid(a, lower) for f, a in src.items()}
            new = {}
            for p in itertools.product(*(range(n) for n in shape)):
                for name, v in self._naive_point(grids, p, T).items():
                    if type(v) is not T:
                        raise TypeError(f"{self.name}: naive {name}{p} is {type(v).__name__}")
                    new.setdefault(name, np.empty(shape, T))[p] = v
            lo = [min(g.lo[d] for g in grids.values() if g.lo[d] is not None)
                  for d in range(self.rank)]
            hi = [max(g.hi[d] for g in grids.values() if g.hi[d] is not None)
                  for d in range(self.rank)]
            self.reach = (lo, hi)
            return new
        return self._run(arrays, steps, one_step)


def make_inputs(name, shape=None, dtype="f64", seed=0):
    """Deterministic random full-extent arrays in [0, 1) for every field
    argument of benchmark `name`, keyed by argument name (in argument order)."""
    spec = BENCHMARKS[name]
    T = DTYPES[_ety(dtype)]
    rng = np.random.default_rng(seed)
    full = spec.array_shape(shape)
    return {f: rng.random(full, dtype=T) for f in spec.fields}


# --------------------------------------------------------------------------
# Kernels.  `_k_*` are the kernels (MLIR + numpy), `_n_*` the separately
# written naive scalar versions: g maps field names to _Grid, p is the point,
# c makes a constant of the dtype.


def _single(body, extra=()):
    """A step with one state u (and read-only inputs `extra`) and one apply."""
    def step(K, t):
        return {"u": K.apply(body, t["u"], *[t[f] for f in extra], name="u_new")}
    return step


# 1D: weighted averages with binomial weights (sum 1, exact in binary)

def _k_jacobi1d_3pt(K, x):
    return x(-1) * K.c(0.25) + x(0) * K.c(0.5) + x(1) * K.c(0.25)


def _n_jacobi1d_3pt(g, p, c):
    u, (i,) = g["u"], p
    return {"u": u(i - 1) * c(0.25) + u(i) * c(0.5) + u(i + 1) * c(0.25)}


def _k_jacobi1d_5pt(K, x):
    return (x(-2) * K.c(0.0625) + x(-1) * K.c(0.25) + x(0) * K.c(0.375)
            + x(1) * K.c(0.25) + x(2) * K.c(0.0625))


def _n_jacobi1d_5pt(g, p, c):
    u, (i,) = g["u"], p
    a = u(i - 2) * c(0.0625)
    a = a + u(i - 1) * c(0.25)
    a = a + u(i) * c(0.375)
    a = a + u(i + 1) * c(0.25)
    a = a + u(i + 2) * c(0.0625)
    return {"u": a}


_W7 = (0.015625, 0.09375, 0.234375, 0.3125, 0.234375, 0.09375, 0.015625)  # (1 6 15 20 15 6 1)/64


def _k_jacobi1d_7pt(K, x):
    acc = x(-3) * K.c(_W7[0])
    for o in range(-2, 4):
        acc = acc + x(o) * K.c(_W7[o + 3])
    return acc


def _n_jacobi1d_7pt(g, p, c):
    u, (i,) = g["u"], p
    a = u(i - 3) * c(1 / 64)
    a = a + u(i - 2) * c(6 / 64)
    a = a + u(i - 1) * c(15 / 64)
    a = a + u(i) * c(20 / 64)
    a = a + u(i + 1) * c(15 / 64)
    a = a + u(i + 2) * c(6 / 64)
    a = a + u(i + 3) * c(1 / 64)
    return {"u": a}


# 2D

def _k_laplace2d(K, x):
    x(0, 0)  # the centre is read but unused (5-point form of the Laplace Jacobi sweep)
    return (x(0, 1) + x(0, -1) + x(1, 0) + x(-1, 0)) * K.c(0.25)


def _n_laplace2d(g, p, c):
    u, (i, j) = g["u"], p
    u(i, j)
    s = u(i, j + 1) + u(i, j - 1)
    s = s + u(i + 1, j)
    s = s + u(i - 1, j)
    return {"u": s * c(0.25)}


def _k_heat2d(K, x):
    return (x(0, 0) * K.c(0.25)
            + (x(-1, 0) + x(1, 0) + x(0, -1) + x(0, 1)) * K.c(0.125)
            + (x(-1, -1) + x(-1, 1) + x(1, -1) + x(1, 1)) * K.c(0.0625))


def _n_heat2d(g, p, c):
    u, (i, j) = g["u"], p
    centre = u(i, j) * c(0.25)
    edges = ((u(i - 1, j) + u(i + 1, j)) + u(i, j - 1)) + u(i, j + 1)
    corners = ((u(i - 1, j - 1) + u(i - 1, j + 1)) + u(i + 1, j - 1)) + u(i + 1, j + 1)
    return {"u": (centre + edges * c(0.125)) + corners * c(0.0625)}


def _gradient_kernel(rank):
    def body(K, x):
        zero = (0,) * rank
        g = None
        for d in range(rank):
            plus = tuple(1 if k == d else 0 for k in range(rank))
            minus = tuple(-1 if k == d else 0 for k in range(rank))
            diff = x(*plus) - x(*minus)
            sq = diff * diff
            g = sq if g is None else g + sq
        return x(*zero) / (g * K.c(0.25) + K.c(1.0))
    return body


def _n_gradient2d(g, p, c):
    u, (i, j) = g["u"], p
    dx = u(i + 1, j) - u(i - 1, j)
    dy = u(i, j + 1) - u(i, j - 1)
    s = dx * dx + dy * dy
    return {"u": u(i, j) / (s * c(0.25) + c(1.0))}


def _k_jacobi2d(K, x):
    return (x(0, 0) + x(0, -1) + x(0, 1) + x(1, 0) + x(-1, 0)) * K.c(0.2)


def _n_jacobi2d(g, p, c):
    u, (i, j) = g["u"], p
    s = u(i, j)
    for di, dj in ((0, -1), (0, 1), (1, 0), (-1, 0)):
        s = s + u(i + di, j + dj)
    return {"u": s * c(0.2)}


def _k_poisson2d(K, x, f):
    return ((x(-1, 0) + x(1, 0) + x(0, -1) + x(0, 1)) * K.c(0.2)
            + (x(-1, -1) + x(-1, 1) + x(1, -1) + x(1, 1)) * K.c(0.05)
            - f(0, 0) * K.c(0.0625))


def _n_poisson2d(g, p, c):
    u, f, (i, j) = g["u"], g["f"], p
    edges = u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1)
    corners = u(i - 1, j - 1) + u(i - 1, j + 1) + u(i + 1, j - 1) + u(i + 1, j + 1)
    return {"u": (edges * c(0.2) + corners * c(0.05)) - f(i, j) * c(0.0625)}


def _k_fdtd2d(K, t):
    ey = K.apply(lambda K, ey, hz: ey(0, 0) - (hz(0, 0) - hz(-1, 0)) * K.c(0.5),
                 t["ey"], t["hz"], name="ey_new")
    ex = K.apply(lambda K, ex, hz: ex(0, 0) - (hz(0, 0) - hz(0, -1)) * K.c(0.5),
                 t["ex"], t["hz"], name="ex_new")
    hz = K.apply(lambda K, hz, ex, ey:
                 hz(0, 0) - (ex(0, 1) - ex(0, 0) + ey(1, 0) - ey(0, 0)) * K.c(0.7),
                 t["hz"], ex, ey, name="hz_new")
    return {"ex": ex, "ey": ey, "hz": hz}


def _n_fdtd2d(g, p, c):
    ex, ey, hz, (i, j) = g["ex"], g["ey"], g["hz"], p

    def ey_new(i, j):
        return ey(i, j) - c(0.5) * (hz(i, j) - hz(i - 1, j))

    def ex_new(i, j):
        return ex(i, j) - c(0.5) * (hz(i, j) - hz(i, j - 1))
    hz_new = hz(i, j) - c(0.7) * (ex_new(i, j + 1) - ex_new(i, j) + ey_new(i + 1, j) - ey_new(i, j))
    return {"ex": ex_new(i, j), "ey": ey_new(i, j), "hz": hz_new}


# 3D

def _k_laplace3d(K, x):
    return (x(0, 0, 0) * K.c(0.25)
            + (x(-1, 0, 0) + x(1, 0, 0) + x(0, -1, 0) + x(0, 1, 0) + x(0, 0, -1) + x(0, 0, 1))
            * K.c(0.125))


def _n_laplace3d(g, p, c):
    u, (i, j, k) = g["u"], p
    s = u(i - 1, j, k) + u(i + 1, j, k)
    s = s + u(i, j - 1, k) + u(i, j + 1, k)
    s = s + u(i, j, k - 1) + u(i, j, k + 1)
    return {"u": u(i, j, k) * c(0.25) + s * c(0.125)}


_BOX27_WEIGHTS = (0.125, 0.0625, 0.03125, 0.015625)  # by number of non-zero offsets; sum 1


def _k_heat3d(K, x):
    acc = None
    for dist, w in enumerate(_BOX27_WEIGHTS):
        s = None
        for off in itertools.product((-1, 0, 1), repeat=3):
            if sum(map(abs, off)) == dist:
                s = x(*off) if s is None else s + x(*off)
        term = s * K.c(w)
        acc = term if acc is None else acc + term
    return acc


def _n_heat3d(g, p, c):
    u, (i, j, k) = g["u"], p
    parts = []
    for nonzero, weight in ((0, 8), (1, 16), (2, 32), (3, 64)):
        s = None
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                for dk in (-1, 0, 1):
                    if (di != 0) + (dj != 0) + (dk != 0) == nonzero:
                        v = u(i + di, j + dj, k + dk)
                        s = v if s is None else s + v
        parts.append(s * c(1 / weight))
    return {"u": ((parts[0] + parts[1]) + parts[2]) + parts[3]}


def _n_gradient3d(g, p, c):
    u, (i, j, k) = g["u"], p
    dx = u(i + 1, j, k) - u(i - 1, j, k)
    dy = u(i, j + 1, k) - u(i, j - 1, k)
    dz = u(i, j, k + 1) - u(i, j, k - 1)
    s = dx * dx + dy * dy + dz * dz
    return {"u": u(i, j, k) / (s * c(0.25) + c(1.0))}


# Single sweep: COSMO horizontal diffusion and Laplacian of the Laplacian

def _laplacian(rank):
    """4*c - (e + w + n + s) in the first two dimensions."""
    def body(K, x):
        z = (0,) * (rank - 2)
        return x(0, 0, *z) * K.c(4.0) - (x(1, 0, *z) + x(-1, 0, *z) + x(0, 1, *z) + x(0, -1, *z))
    return body


def _k_hdiff(K, t):
    z = (0,)
    lap = K.apply(_laplacian(3), t["in"], name="lap")

    def flux(d):
        e = (1, 0) if d == 0 else (0, 1)

        def body(K, x, l):
            f = l(*e, *z) - l(0, 0, *z)
            zero = K.c(0.0)
            return K.select(K.gt(f * (x(*e, *z) - x(0, 0, *z)), zero), zero, f)
        return body
    flx = K.apply(flux(0), t["in"], lap, name="flx")
    fly = K.apply(flux(1), t["in"], lap, name="fly")
    out = K.apply(lambda K, x, cf, fx, fy:
                  x(0, 0, 0) - cf(0, 0, 0) * (fx(0, 0, 0) - fx(-1, 0, 0) + fy(0, 0, 0) - fy(0, -1, 0)),
                  t["in"], t["coeff"], flx, fly, name="out_new")
    return {"out": out}


def _n_hdiff(g, p, c):
    inp, coeff, (i, j, k) = g["in"], g["coeff"], p

    def lap(i, j):
        return c(4.0) * inp(i, j, k) - (inp(i + 1, j, k) + inp(i - 1, j, k)
                                        + inp(i, j + 1, k) + inp(i, j - 1, k))

    def flx(i, j):
        f = lap(i + 1, j) - lap(i, j)
        return c(0.0) if f * (inp(i + 1, j, k) - inp(i, j, k)) > c(0.0) else f

    def fly(i, j):
        f = lap(i, j + 1) - lap(i, j)
        return c(0.0) if f * (inp(i, j + 1, k) - inp(i, j, k)) > c(0.0) else f
    fluxes = flx(i, j) - flx(i - 1, j) + fly(i, j) - fly(i, j - 1)
    return {"out": inp(i, j, k) - coeff(i, j, k) * fluxes}


def _k_laplap(K, t):
    lap = K.apply(_laplacian(2), t["in"], name="lap")
    return {"out": K.apply(_laplacian(2), lap, name="laplap")}


def _n_laplap(g, p, c):
    inp, (i, j) = g["in"], p

    def lap(i, j):
        return inp(i, j) * c(4.0) - (inp(i + 1, j) + inp(i - 1, j) + inp(i, j + 1) + inp(i, j - 1))
    return {"out": lap(i, j) * c(4.0) - (lap(i + 1, j) + lap(i - 1, j)
                                          + lap(i, j + 1) + lap(i, j - 1))}


_FDTD_NOTES = """\
PolyBench fdtd-2d without its _fict_ boundary driver: each step computes, on
the whole interior and in this order, ey' = ey - 0.5*(hz - hz[i-1]),
ex' = ex - 0.5*(hz - hz[j-1]), hz' = hz - 0.7*(ex'[j+1] - ex' + ey'[i+1] - ey')
(hz' reads the new ex', ey' temps, at i+1/j+1 also in the halo). The fixed
halo of width 1 is the boundary: ey row 0 is updated like the others."""

_HDIFF_NOTES = """\
lap = 4*in - (in[i+1] + in[i-1] + in[j+1] + in[j-1]);
flx = lap[i+1] - lap, set to 0 where flx*(in[i+1] - in) > 0 (fly likewise in j);
out = in - coeff*(flx - flx[i-1] + fly - fly[j-1]). Acts in i, j; k is independent."""


BENCHMARKS = {b.name: b for b in [
    Benchmark("jacobi1d_3pt", 1, (1,), _single(_k_jacobi1d_3pt), _n_jacobi1d_3pt,
              states=["u"], default_shape=(256,), default_steps=10,
              summary="1D 3-point weighted average (1 2 1)/4"),
    Benchmark("jacobi1d_5pt", 1, (2,), _single(_k_jacobi1d_5pt), _n_jacobi1d_5pt,
              states=["u"], default_shape=(256,), default_steps=11,
              summary="1D 5-point weighted average (1 4 6 4 1)/16"),
    Benchmark("jacobi1d_7pt", 1, (3,), _single(_k_jacobi1d_7pt), _n_jacobi1d_7pt,
              states=["u"], default_shape=(256,), default_steps=10,
              summary="1D 7-point weighted average (1 6 15 20 15 6 1)/64"),
    Benchmark("laplace2d", 2, (1, 1), _single(_k_laplace2d), _n_laplace2d,
              states=["u"], default_shape=(64, 64), default_steps=10,
              summary="2D 5-point Laplace Jacobi sweep 0.25*(n + s + e + w)"),
    Benchmark("heat2d", 2, (1, 1), _single(_k_heat2d), _n_heat2d,
              states=["u"], default_shape=(64, 48), default_steps=11,
              summary="2D 9-point heat (3x3 box, weights 1/4 centre, 1/8 edges, 1/16 corners)"),
    Benchmark("gradient2d", 2, (1, 1), _single(_gradient_kernel(2)), _n_gradient2d,
              states=["u"], default_shape=(64, 48), default_steps=10,
              summary="2D gradient-magnitude smoothing c / (1 + 0.25*(dx*dx + dy*dy)), "
                      "central differences dx = e - w, dy = n - s"),
    Benchmark("jacobi2d", 2, (1, 1), _single(_k_jacobi2d), _n_jacobi2d,
              states=["u"], default_shape=(64, 64), default_steps=11,
              summary="2D 5-point Jacobi 0.2*(c + w + e + s + n) (PolyBench jacobi-2d)"),
    Benchmark("poisson2d", 2, (1, 1), _single(_k_poisson2d, extra=["f"]), _n_poisson2d,
              states=["u"], inputs=["f"], default_shape=(64, 48), default_steps=10,
              summary="2D 9-point Poisson Jacobi 0.2*edges + 0.05*corners - 0.0625*f "
                      "(read-only right-hand side f)"),
    Benchmark("fdtd2d", 2, (1, 1), _k_fdtd2d, _n_fdtd2d,
              states=["ex", "ey", "hz"], default_shape=(64, 48), default_steps=11,
              summary="2D FDTD (PolyBench fdtd-2d), three applies per step",
              notes=_FDTD_NOTES),
    Benchmark("laplace3d", 3, (1, 1, 1), _single(_k_laplace3d), _n_laplace3d,
              states=["u"], default_shape=(24, 20, 16), default_steps=10,
              summary="3D 7-point 0.25*c + 0.125*(sum of the 6 neighbours)"),
    Benchmark("heat3d", 3, (1, 1, 1), _single(_k_heat3d), _n_heat3d,
              states=["u"], default_shape=(24, 20, 16), default_steps=11,
              summary="3D 27-point heat (3x3x3 box, weights 1/8, 1/16, 1/32, 1/64 by "
                      "distance class)"),
    Benchmark("gradient3d", 3, (1, 1, 1), _single(_gradient_kernel(3)), _n_gradient3d,
              states=["u"], default_shape=(24, 20, 16), default_steps=11,
              summary="3D gradient-magnitude smoothing c / (1 + 0.25*(dx*dx + dy*dy + dz*dz))"),
    Benchmark("hdiff", 3, (2, 2, 0), _k_hdiff, _n_hdiff,
              inputs=["in", "coeff"], outputs=["out"], default_shape=(24, 20, 16),
              summary="COSMO horizontal diffusion, 4 applies (laplacian, limited fluxes "
                      "x and y, update), one sweep",
              notes=_HDIFF_NOTES),
    Benchmark("laplap", 2, (2, 2), _k_laplap, _n_laplap,
              inputs=["in"], outputs=["out"], default_shape=(64, 48),
              summary="Laplacian of the Laplacian, lap = 4*c - (e + w + n + s), two "
                      "chained applies, one sweep"),
]}


# --------------------------------------------------------------------------
# Reading a generated program back, compiling and checking it


def parse_program(text):
    """(name, shape, steps, dtype) of a benchmark program, read from its
    text: the function name, the first field type and the %steps constant."""
    m = re.search(r"func\.func\s+@([\w$.]+)\s*\(", text)
    if not m or m.group(1) not in BENCHMARKS:
        raise ValueError(f"no function named after a benchmark ({', '.join(BENCHMARKS)})")
    spec = BENCHMARKS[m.group(1)]
    m = re.search(r"!stencil\.field<((?:\[-?\d+,\s*-?\d+\]x)+)(f32|f64)>", text)
    if not m:
        raise ValueError("no static f32/f64 !stencil.field type")
    ety = m.group(2)
    bounds = [tuple(map(int, b)) for b in re.findall(r"\[(-?\d+),\s*(-?\d+)\]", m.group(1))]
    if len(bounds) != spec.rank or any(lb != -h for (lb, _), h in zip(bounds, spec.radius)):
        raise ValueError(f"{spec.name}: field bounds {bounds} do not have halo {spec.radius}")
    shape = tuple(ub - lb - 2 * h for (lb, ub), h in zip(bounds, spec.radius))
    steps = None
    if spec.time_loop:
        m = re.search(r"%steps\s*=\s*arith\.constant\s+(\d+)\s*:\s*index", text)
        if not m:
            raise ValueError(f"{spec.name}: no '%steps = arith.constant N : index'")
        steps = int(m.group(1))
    return spec.name, shape, steps, ety


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def compare(got, want, fields, verbose=True, label=""):
    """Bitwise comparison of two dicts of arrays; prints one line per field."""
    bad = 0
    for f in fields:
        diff = _bits(got[f]) != _bits(want[f])
        if diff.any():
            bad += 1
            if verbose:
                first = tuple(int(i) for i in np.argwhere(diff)[0])
                err = np.nanmax(np.abs(got[f].astype(np.float64) - want[f].astype(np.float64)))
                print(f"  MISMATCH {label}{f}: {int(diff.sum())} of {diff.size} elements differ "
                      f"(max abs diff {err:.3g}), first at array index {first}: "
                      f"{got[f][first]!r} != {want[f][first]!r}")
        elif verbose:
            print(f"  ok {label}{f}")
    return bad


def check_file(path, openmp=False, verbose=True, seed=0, extra_passes=(), describe=None,
               **target):
    """Compile and run a benchmark program with the project's tools, compare
    every field bit for bit with the numpy reference. Returns 0 when equal.
    `target` holds compile_file's target, emulate_gpu and gpu_options;
    `describe(library)` says how it ran, for the summary line."""
    import tempfile

    from .compiler import compile_file
    from .runtime import StencilLibrary

    text = Path(path).read_text()
    name, shape, steps, ety = parse_program(text)
    spec = BENCHMARKS[name]
    inputs = make_inputs(name, shape, ety, seed)
    with tempfile.TemporaryDirectory() as tmp:
        lib = StencilLibrary(compile_file(path, openmp=openmp, workdir=tmp,
                                          extra_passes=extra_passes, **target))
        got = {f: a.copy() for f, a in inputs.items()}
        lib.call(name, *[got[f] for f in spec.fields])
        how = describe(lib) if describe else (" (OpenMP)" if openmp else "")
    want = spec.reference(inputs, steps)
    if verbose:
        result = (f", {steps} steps, result in "
                  + ", ".join(spec.final_buffers(steps).values()) if spec.time_loop else "")
        print(f"{path}: @{name} {'x'.join(map(str, shape))} {ety}{result}{how}, seed {seed}")
    bad = compare(got, want, spec.fields, verbose)
    if verbose:
        print("PASS: bit-identical to the numpy reference" if not bad
              else f"FAIL: {bad} field(s) differ from the numpy reference")
    return 1 if bad else 0


# --------------------------------------------------------------------------
# Self test: numpy reference == naive loops, exactly


SELFTEST_SHAPES = {1: (8,), 2: (5, 4), 3: (4, 3, 3)}


def selftest(verbose=True):
    failures = 0
    for name, spec in BENCHMARKS.items():
        shape = SELFTEST_SHAPES[spec.rank]
        step_counts = (0, 1, 2, 3) if spec.time_loop else (None,)
        for ety in DTYPES:
            for steps in step_counts:
                inputs = make_inputs(name, shape, ety, seed=7)
                ref = spec.reference(inputs, steps)
                nai = spec.naive(inputs, steps)
                problems = []
                if compare(ref, nai, spec.fields, verbose=False):
                    problems.append("numpy reference != naive loops")
                interior = tuple(slice(h, h + n) for n, h in zip(shape, spec.radius))
                for f in spec.fields:
                    if ref[f].dtype != inputs[f].dtype or ref[f].shape != inputs[f].shape:
                        problems.append(f"{f} changed dtype/shape")
                    halo = np.ones(inputs[f].shape, bool)
                    halo[interior] = False
                    if not np.array_equal(ref[f][halo], inputs[f][halo]):
                        problems.append(f"halo of {f} written")
                    if np.isnan(ref[f]).any():
                        problems.append(f"NaN in {f}")
                written = (set(spec.final_buffers(steps).values()) if spec.time_loop
                           else set(spec.outputs))
                if steps == 0:
                    written = set()
                for f in spec.fields:
                    same = np.array_equal(ref[f][interior], inputs[f][interior])
                    if f in written and same:
                        problems.append(f"{f} should hold the result but is unchanged")
                    if f not in written and not spec.time_loop and not same:
                        problems.append(f"read-only {f} modified")
                if steps == 1 and spec.time_loop:
                    for a, b in spec.pingpong:
                        if not np.array_equal(ref[a], inputs[a]):
                            problems.append(f"{a} modified by one step")
                if spec.time_loop:
                    for f in spec.inputs:
                        if not np.array_equal(ref[f], inputs[f]):
                            problems.append(f"read-only {f} modified")
                if spec.reach is not None:  # the declared halo is exactly what is read
                    lo, hi = spec.reach
                    want = ([-h for h in spec.radius], [n - 1 + h for n, h in zip(shape, spec.radius)])
                    if (lo, hi) != want:
                        problems.append(f"reads span {lo}..{hi}, declared halo gives {want}")
                text = spec.mlir(shape, steps, ety)
                if parse_program(text) != (name, shape, steps, ety):
                    problems.append(f"parse_program gives {parse_program(text)}")
                label = f"{name} {ety} {'x'.join(map(str, shape))}" + (
                    f" steps={steps}" if spec.time_loop else "")
                if problems:
                    failures += 1
                    print(f"FAIL {label}: {'; '.join(problems)}")
                elif verbose:
                    print(f"ok   {label}")
    # constants print in a form that gives back the dtype-rounded value
    for v in (0.2, 0.05, 0.7, 1 / 3, 1e-5, 4.0, 1e20):
        for ety, T in DTYPES.items():
            lit = _mlir_float(v, ety)
            if "." not in lit or T(float(lit)) != T(v):
                failures += 1
                print(f"FAIL constant {v} {ety}: {lit}")
    print("selftest: " + ("PASS" if not failures else f"{failures} FAILURE(S)"))
    return 1 if failures else 0


# --------------------------------------------------------------------------
# Command line


def _parse_shape(text):
    return tuple(int(x) for x in re.split(r"[,x]", text) if x)


def _write(text, path):
    if path in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m stencil.benchmarks",
        description="Generate the benchmark stencil programs; check their numpy references.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the benchmarks")
    p = sub.add_parser("gen", help="write one benchmark as MLIR")
    p.add_argument("name", choices=sorted(BENCHMARKS))
    p.add_argument("--shape", type=_parse_shape, help="interior sizes, e.g. 3072,3072")
    p.add_argument("--steps", type=int, help="time steps (iterative benchmarks)")
    p.add_argument("--dtype", default="f64", choices=sorted(DTYPES))
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    p = sub.add_parser("gen-all", help="write every benchmark at its default size")
    p.add_argument("--outdir", default="../examples")
    p.add_argument("--dtype", default="f64", choices=sorted(DTYPES))
    p.add_argument("--paper", action="store_true",
                   help="the paper's sizes instead (2D 3072x3072, 512 steps; 3D 384^3, "
                        "128 steps); 1D benchmarks are skipped")
    sub.add_parser("selftest", help="numpy references against naive loops, exactly")
    p = sub.add_parser("check", help="compile, run and compare a program with its reference")
    p.add_argument("file")
    p.add_argument("--openmp", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    if args.command == "list":
        for name, spec in BENCHMARKS.items():
            size = "x".join(map(str, spec.default_shape))
            when = f"{spec.default_steps} steps" if spec.time_loop else "1 sweep"
            print(f"{name:14s} {spec.rank}D  halo {'x'.join(map(str, spec.radius)):6s} "
                  f"args ({', '.join(spec.fields)})  default {size}, {when}")
            print(f"{'':14s} {spec.summary}")
        return 0
    if args.command == "gen":
        spec = BENCHMARKS[args.name]
        if args.steps is not None and not spec.time_loop:
            parser.error(f"{args.name} has no time loop: --steps does not apply")
        _write(spec.mlir(args.shape, args.steps, args.dtype), args.output)
        return 0
    if args.command == "gen-all":
        for name, spec in BENCHMARKS.items():
            shape = steps = None
            if args.paper:
                if spec.rank not in PAPER_SIZES:
                    continue
                shape, steps = PAPER_SIZES[spec.rank]
            path = Path(args.outdir) / f"{name}.mlir"
            _write(spec.mlir(shape, steps, args.dtype), path)
            print(path)
        return 0
    if args.command == "selftest":
        return selftest()
    if args.command == "check":
        return check_file(args.file, openmp=args.openmp, seed=args.seed)
    return 2


if __name__ == "__main__":
    sys.exit(main())
