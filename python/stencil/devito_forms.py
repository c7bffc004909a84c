"""PDE programs in the exact form Devito's xDSL backend emits, with numpy references.

Devito's xDSL backend (the xdslproject/devito fork) lowers an Operator's
equations to one `func.func @Kernel` in the `stencil` dialect.  This module
writes programs of several PDE families in that form, and an independent numpy
reference for each that performs the same f32 operations in the same order, so
that a correct compiler matches it bit for bit.

The form (what this module reproduces):

* Arguments: one `!stencil.field` per time buffer of every TimeFunction
  (`%u_vec0, %u_vec1[, %u_vec2]`, functions in order of first appearance in
  the equations), then every plain Function (`%m`, a velocity model or a
  damping mask), then `%timers : !llvm.ptr`.  Elements are f32, every field
  has the bounds `[-h, n+h]` per dimension with h = space order / 2.
* Body: `func.call @timer_start`, the bounds `%time_m`/`%time_M` (the loop
  runs time_m..time_M inclusive, hence `arith.addi %time_M, %1`), and an
  `scf.for` whose iter_args are all time buffers (`%u_t0, %u_t1, ...`).
* In the loop, each equation becomes: a `stencil.load` of every (function,
  buffer) it reads that was not loaded before in this step, one
  `stencil.apply` whose block returns a plain f32 (`stencil.return %v : f32`),
  a `stencil.store` of the interior `<[0, ...], [n0, ...]>` into the written
  buffer, and right after the store a `stencil.load` of that buffer which
  replaces it in the table of loaded values: a later equation reading the
  new value sees the stored interior and the field's untouched halo.  The
  load after the last store of a step is usually never used.
* The expression tree follows sympy: Add and Mul are n-ary and lowered as a
  left fold of their arguments, a - b is Add(a, Mul(-1, b)), a / b is
  Mul(a, Pow(b, -1)), integer powers become `"math.fpowi"(x, n : i64)`, and
  symbols (dt, h_x, material constants) are `arith.constant`s of f32 emitted
  where they are used.
* `scf.yield` rotates the buffers of every time function (position i gets
  buffer (i+1) mod k), then `func.call @timer_end` and a generic-form
  `"llvm.store"` of the elapsed time into `%timers`.

Semantics encoded by the references: every read of a load happens at the
load; an apply computes the interior [0, n) from the loaded values; a store
writes the interior only (halos are a fixed boundary); the physical buffer at
iter_arg position i in step s is buffer (i + s) mod k.  `math.fpowi` follows
MLIR's math-to-funcs expansion (binary exponentiation from the low bit, then
1/x for a negative exponent); spacings and dt are powers of two, so their
powers are exact, and reciprocals of field values are single f32 divisions.

Families: heat (1D/2D/3D, 2 buffers), wave (acoustic, u with 3 buffers and a
velocity model m), damped-wave (3 buffers, m and a damping Function), coupled
(two time functions, the second equation reads the first's new value),
coupled-stale (the same with the equations swapped: the first reads u(t+1)
before this step stored it, the second reads v's new value),
elastic2d (vx, vz, txx, tzz, txz on a staggered grid, plus Functions lam, mu,
b) and elastic3d (vx, vy, vz, txx, tyy, tzz, txy, txz, tyz).

Command line (PYTHONPATH=python):

    /usr/bin/python3 -m stencil.devito_forms list
    /usr/bin/python3 -m stencil.devito_forms selftest
    /usr/bin/python3 -m stencil.devito_forms gen FAMILY --order N --shape 13x11 --steps K -o FILE
    /usr/bin/python3 -m stencil.devito_forms check [FAMILY ...] [--order N] [--shape S]
                                                   [--steps K] [--openmp|--both] [--no-xdsl]

`--steps K` is the number of time steps (time_M = K - 1).  `selftest`
compares every reference of the suite with a textbook float64 version of its
PDE (plain formulas, not the expression trees) to a relative 1e-5.  `check`
with no family runs the default suite (`SUITE`); with families it runs each
at the given orders/shapes/steps.  It writes each program, compiles it with
stencil.compiler.compile_file (sequential by default; `--openmp`, or `--both`
for both builds), runs it on random inputs (fixed seed, random halos),
compares every field with the reference using np.array_equal, and parses
all programs with `xdsl-opt` when it is installed.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

F32 = np.float32
DIM_NAMES = ("x", "y", "z")
# Grid spacings and time steps are powers of two: their integer powers are exact.
SPACING = {"x": 0.5, "y": 0.25, "z": 0.5}

TIMERS_C = """\
/* Timer functions called by Devito-form kernels (func.call @timer_start/@timer_end). */
double timer_start(void) { return 1.0; }
double timer_end(double start) { return start + 41.0; }
"""


# --------------------------------------------------------------------------
# Finite-difference weights (Fornberg's algorithm, exact rationals)

def fd_weights(deriv, points):
    """Weights of the `deriv`-th derivative at 0 from values at `points`."""
    pts = [Fraction(p) for p in points]
    n = len(pts)
    c = [[Fraction(0)] * (deriv + 1) for _ in range(n)]
    c[0][0] = Fraction(1)
    c1 = Fraction(1)
    c4 = pts[0]
    for i in range(1, n):
        mn = min(i, deriv)
        c2 = Fraction(1)
        c5 = c4
        c4 = pts[i]
        for j in range(i):
            c3 = pts[i] - pts[j]
            c2 *= c3
            if j == i - 1:
                for k in range(mn, 0, -1):
                    c[i][k] = c1 * (k * c[i - 1][k - 1] - c5 * c[i - 1][k]) / c2
                c[i][0] = -c1 * c5 * c[i - 1][0] / c2
            for k in range(mn, 0, -1):
                c[j][k] = (c4 * c[j][k] - k * c[j][k - 1]) / c3
            c[j][0] = c4 * c[j][0] / c3
        c1 = c2
    return [c[i][deriv] for i in range(n)]


def second_derivative_weights(order):
    """[w0, w1, ..., wr]: d2f/dx2 ~ w0 f(0) + sum_k wk (f(-k) + f(k)), r = order/2."""
    r = order // 2
    w = fd_weights(2, range(-r, r + 1))
    return [w[r + k] for k in range(r + 1)]


def staggered_weights(order):
    """[c1, ..., cr]: df/dx at 0 ~ sum_k ck (f(k-1/2) - f(-(k-1/2))), r = order/2."""
    r = order // 2
    pts = [Fraction(2 * k - 1, 2) for k in range(1, r + 1)]
    pts = [-p for p in reversed(pts)] + pts
    w = fd_weights(1, pts)
    return [w[r + k - 1] for k in range(1, r + 1)]


# --------------------------------------------------------------------------
# f32 constants as xDSL prints them

def f32_text(value):
    """The text xDSL prints for an f32 FloatAttr of `value` (already an f32)."""
    value = float(F32(value))
    s = f"{value:.5e}"
    i = s.find("e")
    s = s[:i] + "0" + s[i:]
    if float(F32(float(s))) == value:
        return s
    s = f"{value:.9g}"
    if "." not in s and "e" not in s:
        s += ".0"
    return s


def f32_const(value):
    """The f32 that MLIR's parser gives for the printed constant."""
    text = f32_text(value)
    parsed = F32(float(text))
    assert float(parsed) == float(F32(value)), (value, text)
    return parsed


# --------------------------------------------------------------------------
# Expression trees (a small sympy-like subset)

class Node:
    pass


@dataclass(frozen=True)
class Acc(Node):
    """fn[t + time, x + off[0], ...]: `t` is the buffer (time offset mod time size)."""
    fn: str
    t: int
    off: tuple


@dataclass(frozen=True)
class Num(Node):
    """A sympy Float or Integer coefficient: an f32 constant."""
    value: float


@dataclass(frozen=True)
class Sym(Node):
    """A scalar symbol (dt, h_x, a material constant) with its value."""
    name: str
    value: float


@dataclass(frozen=True)
class Add(Node):
    args: tuple


@dataclass(frozen=True)
class Mul(Node):
    args: tuple


@dataclass(frozen=True)
class Pow(Node):
    base: Node
    exp: int


def _flat(cls, args):
    out = []
    for a in args:
        if isinstance(a, cls):
            out.extend(a.args)
        else:
            out.append(a)
    return tuple(out)


def add(*args):
    args = _flat(Add, args)
    return args[0] if len(args) == 1 else Add(args)


def mul(*args):
    args = _flat(Mul, args)
    return args[0] if len(args) == 1 else Mul(args)


def neg(x):
    return mul(Num(-1), x)


def scaled(w, x):
    """w * x as sympy writes it (1*x is x, -1*x is Mul(-1, x))."""
    w = Fraction(w)
    if w == 1:
        return x
    return mul(Num(float(w)), x)


def walk_accesses(node):
    if isinstance(node, Acc):
        yield node
    elif isinstance(node, (Add, Mul)):
        for a in node.args:
            yield from walk_accesses(a)
    elif isinstance(node, Pow):
        yield from walk_accesses(node.base)


# --------------------------------------------------------------------------
# Programs

@dataclass
class Function:
    name: str
    time_size: int  # 0 for a plain Function
    low: float = 0.0  # random values in [low, high), halo included
    high: float = 1.0


@dataclass
class Equation:
    fn: str
    t: int  # written buffer
    rhs: Node


class Program:
    def __init__(self, family, order, shape, steps, functions, equations):
        self.family = family
        self.order = order
        self.shape = tuple(shape)
        self.steps = steps
        self.halo = order // 2
        self.rank = len(self.shape)
        self.equations = equations
        by_name = {f.name: f for f in functions}
        # Arguments: functions in order of first appearance (lhs, then rhs).
        seen = []
        for eq in equations:
            for name in [eq.fn] + [a.fn for a in walk_accesses(eq.rhs)]:
                if name not in seen:
                    seen.append(name)
        self.functions = [by_name[n] for n in seen]
        self.time_functions = [f for f in self.functions if f.time_size]
        self.plain_functions = [f for f in self.functions if not f.time_size]
        for eq in equations:
            for a in walk_accesses(eq.rhs):
                assert len(a.off) == self.rank, a
                assert all(abs(o) <= self.halo for o in a.off), a
                assert a.t < max(1, by_name[a.fn].time_size), a

    @property
    def name(self):
        return (f"{self.family}-o{self.order}-{'x'.join(map(str, self.shape))}"
                f"-s{self.steps}")

    # ---- MLIR

    def field_type(self):
        dims = "x".join(f"[{-self.halo},{n + self.halo}]" for n in self.shape)
        return f"!stencil.field<{dims}xf32>"

    def temp_type(self):
        return f"!stencil.temp<{'x'.join('?' * self.rank)}xf32>"

    def mlir(self):
        return _Emitter(self).module()

    # ---- numpy

    def make_inputs(self, seed=0):
        """{name: [buffer arrays]} (plain Functions: a list of one array)."""
        rng = np.random.default_rng(seed)
        full = tuple(n + 2 * self.halo for n in self.shape)
        inputs = {}
        for f in self.functions:
            count = f.time_size or 1
            inputs[f.name] = [(f.low + (f.high - f.low) * rng.random(full)).astype(F32)
                              for _ in range(count)]
        return inputs

    def arguments(self, arrays):
        """The arrays in the order of the kernel's field arguments."""
        return ([a for f in self.time_functions for a in arrays[f.name]]
                + [arrays[f.name][0] for f in self.plain_functions])

    def reference(self, inputs):
        """The fields after the kernel ran, computed with numpy."""
        bufs = {name: [a.copy() for a in arrs] for name, arrs in inputs.items()}
        h = self.halo
        interior = tuple(slice(h, h + n) for n in self.shape)
        sizes = {f.name: f.time_size for f in self.functions}

        def physical(name, t, step):
            k = sizes[name]
            return bufs[name][(t + step) % k] if k else bufs[name][0]

        for step in range(self.steps):
            loaded = {}
            for eq in self.equations:
                reads = []
                for a in walk_accesses(eq.rhs):
                    if (a.fn, a.t) not in reads:
                        reads.append((a.fn, a.t))
                for key in reads:
                    if key not in loaded:
                        loaded[key] = physical(*key, step).copy()
                value = _evaluate(eq.rhs, loaded, self.shape, h)
                target = physical(eq.fn, eq.t, step)
                target[interior] = value
                loaded[(eq.fn, eq.t)] = target.copy()
        return bufs


def _fpowi(x, n):
    """MLIR math-to-funcs fpowi: x^|n| by squaring from the low bit, 1/r if n < 0."""
    if n == 0:
        return F32(1.0) if np.isscalar(x) else np.ones_like(x)
    negative, n = n < 0, abs(n)
    result, base = None, x
    while True:
        if n & 1:
            result = base if result is None else result * base
        n >>= 1
        if n == 0:
            break
        base = base * base
    if negative:
        result = F32(1.0) / result
    return result


def _evaluate(node, loaded, shape, h):
    if isinstance(node, Acc):
        arr = loaded[(node.fn, node.t)]
        return arr[tuple(slice(h + o, h + o + n) for o, n in zip(node.off, shape))]
    if isinstance(node, (Num, Sym)):
        return f32_const(node.value)
    if isinstance(node, (Add, Mul)):
        vals = [_evaluate(a, loaded, shape, h) for a in node.args]
        carry = vals[0]
        for v in vals[1:]:
            carry = carry + v if isinstance(node, Add) else carry * v
            assert carry.dtype == F32
        return carry
    if isinstance(node, Pow):
        return _fpowi(_evaluate(node.base, loaded, shape, h), node.exp)
    raise TypeError(node)


class _Emitter:
    """Prints a Program the way xDSL prints the fork's output."""

    def __init__(self, prog):
        self.p = prog
        self.used = set()
        self.counter = 0

    def name(self, hint=None):
        if hint is None:
            while f"%{self.counter}" in self.used:
                self.counter += 1
            n = f"%{self.counter}"
            self.counter += 1
        else:
            n, i = f"%{hint}", 0
            while n in self.used:
                i += 1
                n = f"%{hint}_{i}"
        self.used.add(n)
        return n

    def module(self):
        p = self.p
        ft, tt = p.field_type(), p.temp_type()
        ind = "  "
        args, vec = [], {}
        for f in p.time_functions:
            for t in range(f.time_size):
                vec[(f.name, t)] = self.name(f"{f.name}_vec{t}")
                args.append(f"{vec[(f.name, t)]} : {ft}")
        fields = {}
        for f in p.plain_functions:
            fields[(f.name, 0)] = self.name(f.name)
            args.append(f"{fields[(f.name, 0)]} : {ft}")
        timers = self.name("timers")
        args.append(f"{timers} : !llvm.ptr")
        out = ["builtin.module {", f"{ind}func.func @Kernel({', '.join(args)}) {{"]
        body = []
        start = self.name()
        body.append(f"{start} = func.call @timer_start() : () -> f64")
        time_m, time_M = self.name("time_m"), self.name("time_M")
        body.append(f"{time_m} = arith.constant 0 : index")
        body.append(f"{time_M} = arith.constant {p.steps - 1} : index")
        one = self.name()
        body.append(f"{one} = arith.constant 1 : index")
        ub = self.name()
        body.append(f"{ub} = arith.addi {time_M}, {one} : index")
        step = self.name("step")
        body.append(f"{step} = arith.constant 1 : index")
        keys = [(f.name, t) for f in p.time_functions for t in range(f.time_size)]
        results = [self.name() for _ in keys]
        time = self.name("time")
        iters = {k: self.name(f"{k[0]}_t{k[1]}") for k in keys}
        fields.update(iters)
        loop = []
        loaded = {}
        for eq in p.equations:
            reads = []
            for a in walk_accesses(eq.rhs):
                if (a.fn, a.t) not in reads:
                    reads.append((a.fn, a.t))
            for key in reads:
                if key not in loaded:
                    v = self.name(f"{key[0]}_t{key[1]}_temp")
                    loop.append(f"{v} = stencil.load {fields[key]} : {ft} -> {tt}")
                    loaded[key] = v
            res = self.name(f"{eq.fn}_t{eq.t}_temp")
            blk = {key: self.name(f"{key[0]}_t{key[1]}_blk") for key in reads}
            operands = ", ".join(f"{blk[k]} = {loaded[k]} : {tt}" for k in reads)
            loop.append(f"{res} = stencil.apply({operands}) -> ({tt}) {{")
            inner = []
            value = self.expr(eq.rhs, blk, inner)
            inner.append(f"stencil.return {value} : f32")
            loop.extend(ind + line for line in inner)
            loop.append("}")
            lb = ", ".join("0" for _ in p.shape)
            ubs = ", ".join(map(str, p.shape))
            target = fields[(eq.fn, eq.t)]
            loop.append(f"stencil.store {res} to {target}(<[{lb}], [{ubs}]>) : {tt} to {ft}")
            v = self.name(f"{eq.fn}_t{eq.t}_temp")
            loop.append(f"{v} = stencil.load {target} : {ft} -> {tt}")
            loaded[(eq.fn, eq.t)] = v
        yields = [iters[(f.name, (t + 1) % f.time_size)]
                  for f in p.time_functions for t in range(f.time_size)]
        loop.append(f"scf.yield {', '.join(yields)} : {', '.join([ft] * len(yields))}")
        iter_text = ", ".join(f"{iters[k]} = {vec[k]}" for k in keys)
        body.append(f"{', '.join(results)} = scf.for {time} = {time_m} to {ub} step {step} "
                    f"iter_args({iter_text}) -> ({', '.join([ft] * len(keys))}) {{")
        body.extend(ind + line for line in loop)
        body.append("}")
        end = self.name()
        body.append(f"{end} = func.call @timer_end({start}) : (f64) -> f64")
        body.append(f'"llvm.store"({end}, {timers}) <{{"ordering" = 0 : i64}}> : '
                    f"(f64, !llvm.ptr) -> ()")
        body.append("func.return")
        out.extend(2 * ind + line for line in body)
        out.append(f"{ind}}}")
        out.append(f"{ind}func.func private @timer_start() -> f64")
        out.append(f"{ind}func.func private @timer_end(f64) -> f64")
        out.append("}")
        return "\n".join(out) + "\n"

    def expr(self, node, blk, lines):
        tt = self.p.temp_type()
        if isinstance(node, Acc):
            v = self.name()
            off = ", ".join(map(str, node.off))
            lines.append(f"{v} = stencil.access {blk[(node.fn, node.t)]}[{off}] : {tt}")
            return v
        if isinstance(node, Num):
            v = self.name()
            lines.append(f"{v} = arith.constant {f32_text(node.value)} : f32")
            return v
        if isinstance(node, Sym):
            v = self.name(node.name)
            lines.append(f"{v} = arith.constant {f32_text(node.value)} : f32")
            return v
        if isinstance(node, (Add, Mul)):
            vals = [self.expr(a, blk, lines) for a in node.args]
            op = "arith.addf" if isinstance(node, Add) else "arith.mulf"
            carry = vals[0]
            for v in vals[1:]:
                r = self.name()
                lines.append(f"{r} = {op} {carry}, {v} : f32")
                carry = r
            return carry
        if isinstance(node, Pow):
            base = self.expr(node.base, blk, lines)
            e = self.name()
            lines.append(f"{e} = arith.constant {node.exp} : i64")
            r = self.name()
            lines.append(f'{r} = "math.fpowi"({base}, {e}) : (f32, i64) -> f32')
            return r
        raise TypeError(node)


# --------------------------------------------------------------------------
# Families

def _unit(rank, d, k):
    off = [0] * rank
    off[d] = k
    return tuple(off)


def _h(name):
    return Sym(f"h_{name}", SPACING[name])


def laplacian(fn, t, rank, order):
    """sum over dims of h^-2 * (w0 u + w1 u[-1] + w1 u[+1] + ...), Devito-like."""
    w = second_derivative_weights(order)
    terms = []
    for d in range(rank):
        inner = [scaled(w[0], Acc(fn, t, (0,) * rank))]
        for k in range(1, len(w)):
            inner.append(scaled(w[k], Acc(fn, t, _unit(rank, d, -k))))
            inner.append(scaled(w[k], Acc(fn, t, _unit(rank, d, k))))
        terms.append(mul(Pow(_h(DIM_NAMES[d]), -2), add(*inner)))
    return add(*terms)


def staggered_derivative(fn, t, rank, order, d, forward, dim_name):
    """d/dx_d at a half point: forward (x+1/2) reads [-(r-1), r], backward [-r, r-1]."""
    c = staggered_weights(order)
    terms = []
    for k, ck in enumerate(c, start=1):
        hi, lo = (k, 1 - k) if forward else (k - 1, -k)
        terms.append(scaled(-ck, Acc(fn, t, _unit(rank, d, lo))))
        terms.append(scaled(ck, Acc(fn, t, _unit(rank, d, hi))))
    return mul(Pow(_h(dim_name), -1), add(*terms))


def heat(order, shape, steps):
    rank = len(shape)
    dt, a = Sym("dt", 2.0 ** -7), Sym("a", 0.75)
    u = Acc("u", 0, (0,) * rank)
    eqs = [Equation("u", 1, add(u, mul(dt, a, laplacian("u", 0, rank, order))))]
    return Program("heat", order, shape, steps, [Function("u", 2)], eqs)


def wave(order, shape, steps):
    """m u_tt = lap u: u(t+1) = dt^2 m^-1 (lap u - m (-2 u dt^-2 + u(t-1) dt^-2))."""
    rank = len(shape)
    dt = Sym("dt", 0.125)
    c = (0,) * rank
    u, u_prev, m = Acc("u", 0, c), Acc("u", 2, c), Acc("m", 0, c)
    inner = add(mul(Num(-2.0), Pow(dt, -2), u), mul(Pow(dt, -2), u_prev))
    rhs = mul(Pow(dt, 2), Pow(m, -1), add(laplacian("u", 0, rank, order), neg(mul(m, inner))))
    eqs = [Equation("u", 1, rhs)]
    funcs = [Function("u", 3), Function("m", 0, 1.0, 2.0)]
    return Program("wave", order, shape, steps, funcs, eqs)


def damped_wave(order, shape, steps):
    """m u_tt + damp u_t = lap u, u_t centred: solved for u(t+1)."""
    rank = len(shape)
    dt = Sym("dt", 0.125)
    c = (0,) * rank
    u, u_prev = Acc("u", 0, c), Acc("u", 2, c)
    m, damp = Acc("m", 0, c), Acc("damp", 0, c)
    denom = add(mul(m, Pow(dt, -2)), mul(Num(0.5), damp, Pow(dt, -1)))
    numer = add(laplacian("u", 0, rank, order),
                mul(m, Pow(dt, -2), add(mul(Num(2), u), neg(u_prev))),
                mul(Num(0.5), damp, Pow(dt, -1), u_prev))
    eqs = [Equation("u", 1, mul(Pow(denom, -1), numer))]
    funcs = [Function("u", 3), Function("m", 0, 1.0, 2.0), Function("damp", 0, 0.0, 1.0)]
    return Program("damped-wave", order, shape, steps, funcs, eqs)


def coupled(order, shape, steps):
    """u' = a lap u - v; v' = b lap v + c lap u(t+1) - u(t): v reads u's new value."""
    rank = len(shape)
    dt = Sym("dt", 2.0 ** -7)
    c = (0,) * rank
    u, v = Acc("u", 0, c), Acc("v", 0, c)
    eq_u = add(u, mul(dt, add(mul(Sym("a", 0.75), laplacian("u", 0, rank, order)), neg(v))))
    eq_v = add(v, mul(dt, add(mul(Sym("b", 0.5), laplacian("v", 0, rank, order)),
                              mul(Sym("c", 1.25), laplacian("u", 1, rank, order)),
                              neg(u))))
    eqs = [Equation("u", 1, eq_u), Equation("v", 1, eq_v)]
    return Program("coupled", order, shape, steps, [Function("u", 2), Function("v", 2)], eqs)


def coupled_stale(order, shape, steps):
    """coupled with the equations the other way round: v's equation reads
    u(t+1) before u's equation of this step stored it, that is the buffer as
    the previous rotation left it (u two steps ago, or the initial buffer 1);
    u's equation then reads v's new value through the load after v's store."""
    rank = len(shape)
    dt = Sym("dt", 2.0 ** -7)
    c = (0,) * rank
    u, v = Acc("u", 0, c), Acc("v", 0, c)
    eq_v = add(v, mul(dt, add(mul(Sym("b", 0.5), laplacian("v", 0, rank, order)),
                              mul(Sym("c", 1.25), laplacian("u", 1, rank, order)),
                              neg(u))))
    eq_u = add(u, mul(dt, add(mul(Sym("a", 0.75), laplacian("u", 0, rank, order)),
                              neg(laplacian("v", 1, rank, order)))))
    eqs = [Equation("v", 1, eq_v), Equation("u", 1, eq_u)]
    return Program("coupled-stale", order, shape, steps,
                   [Function("u", 2), Function("v", 2)], eqs)


def elastic(order, shape, steps):
    """Velocity-stress elastic wave on a staggered grid (2D or 3D).

    Velocity v_i lives at x + e_i/2, normal stresses at x, shear t_ij at
    x + (e_i + e_j)/2.  Velocities are updated first; the stresses read the
    velocities stored in the same step (buffer 1)."""
    rank = len(shape)
    assert rank in (2, 3), "elastic needs a 2D or 3D shape"
    dims = DIM_NAMES[:rank] if rank == 3 else ("x", "z")
    dt = Sym("dt", 0.0625)
    c = (0,) * rank

    def D(fn, t, d, forward):
        return staggered_derivative(fn, t, rank, order, d, forward, dims[d])

    def shear(i, j):
        i, j = sorted((i, j))
        return f"t{dims[i]}{dims[j]}"

    b, lam, mu = Acc("b", 0, c), Acc("lam", 0, c), Acc("mu", 0, c)
    eqs = []
    for i in range(rank):
        v = f"v{dims[i]}"
        terms = [D(f"t{dims[i]}{dims[i]}" if j == i else shear(i, j), 0, j, j == i)
                 for j in range(rank)]
        eqs.append(Equation(v, 1, add(Acc(v, 0, c), mul(dt, b, add(*terms)))))
    for i in range(rank):
        tii = f"t{dims[i]}{dims[i]}"
        div_other = [D(f"v{dims[j]}", 1, j, False) for j in range(rank) if j != i]
        rhs = add(Acc(tii, 0, c),
                  mul(dt, add(mul(add(lam, mul(Num(2), mu)), D(f"v{dims[i]}", 1, i, False)),
                              mul(lam, add(*div_other)))))
        eqs.append(Equation(tii, 1, rhs))
    for i in range(rank):
        for j in range(i + 1, rank):
            tij = shear(i, j)
            rhs = add(Acc(tij, 0, c),
                      mul(dt, mu, add(D(f"v{dims[i]}", 1, j, True),
                                      D(f"v{dims[j]}", 1, i, True))))
            eqs.append(Equation(tij, 1, rhs))
    names = [e.fn for e in eqs]
    funcs = [Function(n, 2) for n in names]
    funcs += [Function("b", 0, 0.5, 1.5), Function("lam", 0, 0.5, 1.5),
              Function("mu", 0, 0.5, 1.5)]
    family = f"elastic{rank}d"
    return Program(family, order, shape, steps, funcs, eqs)


def _fixed_rank(gen, rank):
    def make(order, shape, steps):
        if len(shape) != rank:
            raise ValueError(f"this family needs a {rank}D shape, got {len(shape)}D")
        return gen(order, shape, steps)
    return make


FAMILIES = {
    "heat": heat,
    "wave": wave,
    "damped-wave": damped_wave,
    "coupled": coupled,
    "coupled-stale": coupled_stale,
    "elastic2d": _fixed_rank(elastic, 2),
    "elastic3d": _fixed_rank(elastic, 3),
}

# (family, order, shape, steps): the default `check` suite and the lit test's.
SUITE = [
    ("heat", 2, (13,), 3),
    ("heat", 4, (13, 11), 4),
    ("heat", 8, (9, 7, 5), 3),
    ("wave", 2, (13, 11), 4),
    ("wave", 4, (9, 7, 5), 3),
    ("wave", 8, (13, 11), 5),
    ("damped-wave", 2, (15,), 4),
    ("damped-wave", 4, (13, 11), 3),
    ("damped-wave", 8, (9, 7, 5), 4),
    ("coupled", 2, (13, 11), 3),
    ("coupled", 8, (15,), 4),
    ("coupled", 4, (9, 7, 5), 4),
    ("coupled-stale", 4, (13, 11), 4),
    ("coupled-stale", 2, (9, 7, 5), 3),
    ("elastic2d", 2, (13, 11), 3),
    ("elastic2d", 4, (13, 11), 4),
    ("elastic2d", 8, (13, 11), 3),
    ("elastic3d", 2, (9, 7, 5), 4),
    ("elastic3d", 4, (9, 7, 5), 3),
    ("elastic3d", 8, (9, 7, 5), 3),
]


def make(family, order, shape, steps):
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family}; have {', '.join(FAMILIES)}")
    if order < 2 or order % 2:
        raise ValueError("the space order must be even and >= 2")
    if steps < 1:
        raise ValueError("steps must be >= 1")
    if not 1 <= len(shape) <= 3 or any(n < 0 for n in shape):
        raise ValueError(f"the shape must have 1 to 3 extents, none negative; got "
                         f"{'x'.join(map(str, shape))}")
    return FAMILIES[family](order, tuple(shape), steps)


# --------------------------------------------------------------------------
# Textbook float64 versions: check that each expression tree is the PDE it
# claims to be (to rounding), independently of the trees.

def _shifted(a, h, shape, d, o):
    return a[tuple(slice(h + (o if e == d else 0), h + (o if e == d else 0) + n)
                   for e, n in enumerate(shape))]


def _lap64(a, h, shape, order, dims):
    w = [float(x) for x in second_derivative_weights(order)]
    out = 0.0
    for d, name in enumerate(dims):
        acc = w[0] * _shifted(a, h, shape, d, 0)
        for k in range(1, len(w)):
            acc = acc + w[k] * (_shifted(a, h, shape, d, -k) + _shifted(a, h, shape, d, k))
        out = out + acc / SPACING[name] ** 2
    return out


def _dstag64(a, h, shape, order, d, forward, name):
    out = 0.0
    for k, ck in enumerate((float(c) for c in staggered_weights(order)), start=1):
        hi, lo = (k, 1 - k) if forward else (k - 1, -k)
        out = out + ck * (_shifted(a, h, shape, d, hi) - _shifted(a, h, shape, d, lo))
    return out / SPACING[name]


def textbook(prog, inputs):
    """The program's PDE in float64 with plain formulas, buffers as the kernel leaves them."""
    f = {n: [a.astype(np.float64) for a in arrs] for n, arrs in inputs.items()}
    h, n, order, rank = prog.halo, prog.shape, prog.order, prog.rank
    inner = tuple(slice(h, h + m) for m in n)
    dims = DIM_NAMES[:rank]
    lap = lambda a: _lap64(a, h, n, order, dims)
    fam = prog.family
    for s in range(prog.steps):
        def buf(name, t):
            k = len(f[name])
            return f[name][(t + s) % k]
        if fam == "heat":
            u = buf("u", 0)
            buf("u", 1)[inner] = u[inner] + 2.0 ** -7 * 0.75 * lap(u)
        elif fam in ("wave", "damped-wave"):
            dt, u, up = 0.125, buf("u", 0), buf("u", 2)
            m = f["m"][0][inner]
            damp = f["damp"][0][inner] if fam == "damped-wave" else 0.0
            # m (u+ - 2u + u-)/dt^2 + damp (u+ - u-)/(2 dt) = lap u
            rhs = lap(u) + m * (2 * u[inner] - up[inner]) / dt ** 2 + damp * up[inner] / (2 * dt)
            buf("u", 1)[inner] = rhs / (m / dt ** 2 + damp / (2 * dt))
        elif fam == "coupled":
            dt, u, v = 2.0 ** -7, buf("u", 0), buf("v", 0)
            buf("u", 1)[inner] = u[inner] + dt * (0.75 * lap(u) - v[inner])
            buf("v", 1)[inner] = v[inner] + dt * (0.5 * lap(v) + 1.25 * lap(buf("u", 1))
                                                  - u[inner])
        elif fam == "coupled-stale":
            dt, u, v = 2.0 ** -7, buf("u", 0), buf("v", 0)
            buf("v", 1)[inner] = v[inner] + dt * (0.5 * lap(v) + 1.25 * lap(buf("u", 1))
                                                  - u[inner])
            buf("u", 1)[inner] = u[inner] + dt * (0.75 * lap(u) - lap(buf("v", 1)))
        elif fam.startswith("elastic"):
            dt = 0.0625
            names = dims if rank == 3 else ("x", "z")
            b, lam, mu = (f[k][0][inner] for k in ("b", "lam", "mu"))

            def D(field, t, d, forward):
                return _dstag64(buf(field, t), h, n, order, d, forward, names[d])

            def stress(i, j):
                i, j = sorted((i, j))
                return f"t{names[i]}{names[j]}"
            for i in range(rank):
                v = f"v{names[i]}"
                div = sum(D(stress(i, j), 0, j, i == j) for j in range(rank))
                buf(v, 1)[inner] = buf(v, 0)[inner] + dt * b * div
            for i in range(rank):
                t = stress(i, i)
                own = D(f"v{names[i]}", 1, i, False)
                rest = sum(D(f"v{names[j]}", 1, j, False) for j in range(rank) if j != i)
                buf(t, 1)[inner] = buf(t, 0)[inner] + dt * ((lam + 2 * mu) * own + lam * rest)
            for i in range(rank):
                for j in range(i + 1, rank):
                    t = stress(i, j)
                    buf(t, 1)[inner] = buf(t, 0)[inner] + dt * mu * (
                        D(f"v{names[i]}", 1, j, True) + D(f"v{names[j]}", 1, i, True))
        else:
            raise ValueError(fam)
    return f


def selftest(runs=None, log=print):
    """Each reference (f32, tree order) against the textbook float64 version."""
    for fam, order, shape, steps in runs or SUITE:
        prog = make(fam, order, shape, steps)
        inputs = prog.make_inputs(1)
        ref, exact = prog.reference(inputs), textbook(prog, inputs)
        for name in ref:
            for r, e in zip(ref[name], exact[name]):
                scale = max(1.0, float(np.max(np.abs(e))))
                err = float(np.max(np.abs(r.astype(np.float64) - e))) / scale
                assert err < 1e-5, f"{prog.name}: {name} differs from the textbook by {err}"
                moved = any(not np.array_equal(r, a) for r, a in zip(ref[name], inputs[name]))
                assert moved or not any(f.name == name and f.time_size
                                        for f in prog.functions), (prog.name, name)
        log(f"ok selftest {prog.name}")


# --------------------------------------------------------------------------
# Checking

def xdsl_parses(paths):
    """Parse the files with xdsl-opt in one run (--split-input-file).

    None when xdsl-opt is not installed, else (ok, stderr)."""
    exe = shutil.which("xdsl-opt")
    if not exe:
        return None
    paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    text = "\n// -----\n".join(p.read_text() for p in paths)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        proc = subprocess.run([exe, "--split-input-file", f.name], capture_output=True,
                              text=True)
    finally:
        Path(f.name).unlink()
    ok = proc.returncode == 0 and "error" not in proc.stdout.lower()
    return ok, proc.stderr + (proc.stdout if not ok else "")


def write_program(prog, workdir):
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{prog.name}.mlir"
    path.write_text(prog.mlir())
    return path


def check_program(prog, workdir, openmp_modes=(False, True), seed=0, xdsl=True, log=print,
                  extra_passes=(), **target):
    """Generate, compile and run `prog`; raise AssertionError on any difference.
    `target` holds compile_file's target, emulate_gpu and gpu_options.

    Returns the path of the program written to `workdir`."""
    from .compiler import compile_file
    from .runtime import StencilLibrary

    workdir = Path(workdir)
    path = write_program(prog, workdir)
    timers_c = workdir / "devito_timers.c"
    if not timers_c.exists():
        timers_c.write_text(TIMERS_C)
    if xdsl:
        parsed = xdsl_parses(path)
        if parsed is not None:
            ok, err = parsed
            assert ok, f"xdsl-opt rejects {path}:\n{err}"
            log(f"ok xdsl-opt parses {prog.name}")
    inputs = prog.make_inputs(seed)
    ref = prog.reference(inputs)
    for openmp in openmp_modes:
        sub = workdir / f"{prog.name}-{'omp' if openmp else 'seq'}"
        lib = StencilLibrary(compile_file(path, openmp=openmp, workdir=sub,
                                          extra_sources=[timers_c],
                                          extra_passes=extra_passes, **target))
        got = {n: [a.copy() for a in arrs] for n, arrs in inputs.items()}
        timers = np.zeros(1, np.float64)
        lib.call("Kernel", *prog.arguments(got), timers)
        assert timers[0] == 42.0, f"{prog.name}: timers {timers}"
        for name in got:
            for i, (g, r) in enumerate(zip(got[name], ref[name])):
                if not np.array_equal(g, r):
                    diff = np.argwhere(g != r)
                    raise AssertionError(
                        f"{prog.name} (openmp={openmp}): field {name} buffer {i} differs "
                        f"at {len(diff)} points, first {tuple(diff[0])}: "
                        f"got {g[tuple(diff[0])]!r}, expected {r[tuple(diff[0])]!r}")
        log(f"ok {prog.name} (openmp={openmp})")
    return path


def _shape(text):
    return tuple(int(s) for s in text.replace(",", "x").split("x") if s)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m stencil.devito_forms",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the families and the default suite")
    sub.add_parser("selftest", help="references against textbook float64 versions")
    p = sub.add_parser("gen", help="write one program")
    p.add_argument("family", choices=sorted(FAMILIES))
    p.add_argument("--order", type=int, default=2)
    p.add_argument("--shape", type=_shape, default=(13, 11))
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("-o", "--output")
    p = sub.add_parser("check", help="compile, run and compare with numpy")
    p.add_argument("families", nargs="*", choices=[[]] + sorted(FAMILIES), default=[])
    p.add_argument("--order", type=int, action="append",
                   help="space order (repeatable; default 2, 4 and 8)")
    p.add_argument("--shape", type=_shape, action="append",
                   help="interior shape such as 13x11 (repeatable; default 13x11, "
                        "9x7x5 for elastic3d)")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--openmp", action="store_true", help="OpenMP build only")
    p.add_argument("--both", action="store_true", help="sequential and OpenMP builds")
    p.add_argument("--no-xdsl", action="store_true", help="skip the xdsl-opt parse check")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir")
    args = parser.parse_args(argv)

    if args.command == "list":
        print("families:", ", ".join(FAMILIES))
        for fam, order, shape, steps in SUITE:
            print(f"  {fam} --order {order} --shape {'x'.join(map(str, shape))} --steps {steps}")
        return 0
    if args.command == "selftest":
        selftest()
        return 0
    if args.command == "gen":
        try:
            text = make(args.family, args.order, args.shape, args.steps).mlir()
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        if args.output:
            Path(args.output).write_text(text)
        else:
            sys.stdout.write(text)
        return 0

    from .compiler import CompileError
    if args.families:
        runs = [(f, o, s, args.steps) for f in args.families
                for o in (args.order or [2, 4, 8])
                for s in (args.shape or [(9, 7, 5) if f == "elastic3d" else (13, 11)])]
    else:
        runs = SUITE
    modes = (False, True) if args.both else ((True,) if args.openmp else (False,))
    workdir = args.workdir or tempfile.mkdtemp(prefix="devito-forms-")
    failures, paths = 0, []
    for fam, order, shape, steps in runs:
        try:
            prog = make(fam, order, shape, steps)
            paths.append(write_program(prog, workdir))
            check_program(prog, workdir, modes, seed=args.seed, xdsl=False)
        except (AssertionError, CompileError, ValueError) as e:
            failures += 1
            print(f"FAIL {fam} order {order} shape {shape} steps {steps}: {e}")
    if not args.no_xdsl and paths:
        parsed = xdsl_parses(paths)
        if parsed is None:
            print("xdsl-opt not found: parse check skipped")
        elif parsed[0]:
            print(f"ok xdsl-opt parses all {len(paths)} programs")
        else:
            failures += 1
            print(f"FAIL xdsl-opt:\n{parsed[1]}")
    print(f"{len(runs) - failures}/{len(runs)} programs pass (files in {workdir})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
