"""C backend for the benchmark kernels of `stencil.benchmarks`.

The kernels of benchmarks.py are written once as Python code over an abstract
backend (`K.apply`, `K.c`, `K.gt`, `K.select`, + - * /).  The MLIR backend
prints them as `stencil.apply` regions, the numpy backend evaluates them; this
module prints the same operations, in the same order, as plain C loop nests:

- every arith op of an apply body becomes one C statement
  `const T v = a <op> b;` (the same binary tree, so with
  `-ffp-contract=off` and without -ffast-math the results are the same bits);
  `K.gt` is `a > b` (ordered, like `cmpf ogt`), `K.select` is `c ? a : b`;
- constants are rounded to the dtype first (as the MLIR backend does) and
  printed as exact hex-floats, with an `f` suffix for f32;
- the program has the semantics of the MLIR program: a time loop that swaps
  ping-pong buffer pointers, every apply evaluated on the domain shape
  inference gives it (the stored interior, grown by what later applies read),
  all reads of a step from the current buffers and the applies of the same
  step (intermediate results, e.g. fdtd2d's ey'/ex' that hz' reads, go to
  temporary arrays allocated once, outside the time loop), and the new values
  stored into the other buffers; halos are never written.  Single-sweep
  programs (hdiff, laplap) chain applies through temporary arrays and store
  the last one into the output field (`polybench=True`: the time loop runs two
  steps per iteration on fixed buffers instead of swapping pointers, the
  form PolyBench uses and polyhedral compilers such as Polly can analyze);
- an apply whose result is only stored (not read by another apply) and whose
  domain is the stored interior writes straight into the output field; the
  others are computed into a temporary and copied into the field after every
  apply of the step (the stores of the MLIR program come last too).

The generated function is `void cbench_<name>(T *field, ...)` taking the
fields in the order of the MLIR function's arguments, each the full
row-major array, halo included (the same arrays `stencil.runtime` passes to
the compiled MLIR).  Sizes and the step count are compile-time constants, as
in the MLIR program.  With `openmp=True` the outermost space loop of every
loop nest gets `#pragma omp parallel for` (compile with -fopenmp).

Command line (run from python/):

    /usr/bin/python3 -m stencil.cgen NAME [--shape 4096,4096] [--steps 10]
                                          [--dtype f32|f64] [--openmp] [-o out.c]
"""

import argparse
import sys

import numpy as np

from . import benchmarks as B

C_TYPES = {"f32": "float", "f64": "double"}


def c_float(value, ety):
    """Exact C literal of `value` rounded to `ety` (hex-float, `f` for f32)."""
    v = float(B.DTYPES[ety](value))
    if not np.isfinite(v):
        raise ValueError(f"constant {value!r} is not finite in {ety}")
    text = v.hex()
    return text + ("f" if ety == "f32" else "")


def c_symbol(name):
    """Name of the C function generated for benchmark `name`."""
    return f"cbench_{name}"


# --------------------------------------------------------------------------
# Recording the kernel: values, apply bodies, applies


class _CVal(B.KernelValue):
    """A value inside one apply body (a C local variable)."""
    __slots__ = ()
    OPS = {"+": "+", "-": "-", "*": "*", "/": "/"}


class _CApplyBody:
    """Records the statements of one apply body.  Statements are kept as
    tuples so that reads can be rendered once the domains are known:
    ("read", var, operand, offset), ("const", var, literal),
    ("bin", var, a, op, b), ("gt", var, a, b), ("select", var, c, a, b)."""

    def __init__(self, ety, rank, n_operands):
        self.ety, self.rank = ety, rank
        self.stmts = []
        self.offsets = [set() for _ in range(n_operands)]
        self.consts = {}
        self.count = 0

    def _fresh(self, hint):
        self.count += 1
        return f"{hint}{self.count}"

    def accessor(self, k):
        cache = {}

        def acc(*off):
            if len(off) != self.rank or not all(isinstance(o, int) for o in off):
                raise ValueError(f"access {off} needs {self.rank} integer offsets")
            if off not in cache:
                var = self._fresh(f"a{k}_")
                self.stmts.append(("read", var, k, tuple(off)))
                self.offsets[k].add(tuple(off))
                cache[off] = _CVal(self, var, self.ety)
            return cache[off]
        return acc

    def c(self, value):
        lit = c_float(value, self.ety)
        if lit not in self.consts:
            var = self._fresh("k")
            self.stmts.append(("const", var, lit))
            self.consts[lit] = _CVal(self, var, self.ety)
        return self.consts[lit]

    def _check(self, *vals, type_=None):
        for v in vals:
            if not isinstance(v, _CVal) or v.ctx is not self:
                raise TypeError(f"{v!r} is not a value of this apply")
            if v.type != (type_ or self.ety):
                raise TypeError(f"{v.name} has type {v.type}, expected {type_ or self.ety}")

    def binop(self, op, a, b):
        self._check(a, b)
        var = self._fresh("v")
        self.stmts.append(("bin", var, a.name, op, b.name))
        return _CVal(self, var, self.ety)

    def gt(self, a, b):
        self._check(a, b)
        var = self._fresh("p")
        self.stmts.append(("gt", var, a.name, b.name))
        return _CVal(self, var, "i1")

    def select(self, cond, a, b):
        self._check(cond, type_="i1")
        self._check(a, b)
        var = self._fresh("v")
        self.stmts.append(("select", var, cond.name, a.name, b.name))
        return _CVal(self, var, self.ety)


class _Field:
    """A loaded field: a state (read from its current buffer) or a read-only
    input."""

    def __init__(self, name, state):
        self.name, self.state = name, state


class _Apply:
    def __init__(self, index, name, operands, body):
        self.index, self.name = index, name
        self.operands, self.body = operands, body
        self.lo = self.hi = None  # domain, logical (interior) coordinates
        self.readers = 0          # applies reading this one
        self.stored = []          # fields it is stored into


class _CBuilder:
    """The backend object a step function is called with (`K`)."""

    def __init__(self, ety, rank):
        self.ety, self.rank = ety, rank
        self.applies = []

    def apply(self, body, *temps, name="r"):
        if not temps:
            raise ValueError("an apply needs at least one operand")
        for t in temps:
            if not isinstance(t, (_Field, _Apply)) or (isinstance(t, _Apply)
                                                       and t not in self.applies):
                raise TypeError(f"operand {t!r} of apply {name} is not a temp of this program")
        inner = _CApplyBody(self.ety, self.rank, len(temps))
        value = body(inner, *[inner.accessor(k) for k in range(len(temps))])
        inner._check(value)
        inner.result = value.name
        node = _Apply(len(self.applies), name, list(temps), inner)
        self.applies.append(node)
        return node


# --------------------------------------------------------------------------
# Code generation


def _union(a_lo, a_hi, b_lo, b_hi):
    if a_lo is None:
        return list(b_lo), list(b_hi)
    return [min(x, y) for x, y in zip(a_lo, b_lo)], [max(x, y) for x, y in zip(a_hi, b_hi)]


def _index(var, shift):
    return var if shift == 0 else (f"{var} + {shift}" if shift > 0 else f"{var} - {-shift}")


class _Program:
    def __init__(self, spec, shape, steps, ety, openmp, polybench=False):
        self.spec, self.shape, self.steps, self.ety = spec, shape, steps, ety
        self.openmp, self.polybench = openmp, polybench
        self.T = C_TYPES[ety]
        self.rank = spec.rank
        self.halo = spec.radius
        self.full = spec.array_shape(shape)
        self.lines = []

    def emit(self, depth, text):
        self.lines.append("  " * depth + text)

    # pointer-to-row types for indexing a[i][j][k] on a flat array
    def row_decl(self, ext, var, const):
        q = "const " if const else ""
        tail = "".join(f"[{n}]" for n in ext[1:])
        if self.rank == 1:
            return f"{q}{self.T} *restrict {var}"
        return f"{q}{self.T} (*restrict {var}){tail}"

    def row_cast(self, ext, const):
        q = "const " if const else ""
        tail = "".join(f"[{n}]" for n in ext[1:])
        return f"({q}{self.T} *)" if self.rank == 1 else f"({q}{self.T} (*){tail})"

    def subscript(self, var, shifts):
        ivars = [f"i{d}" for d in range(self.rank)]
        return var + "".join(f"[{_index(v, s)}]" for v, s in zip(ivars, shifts))

    def loop_nest(self, depth, lo, hi, body_lines):
        """for i0 in [lo0, hi0) ... with the OpenMP pragma on i0."""
        for d in range(self.rank):
            if d == 0 and self.openmp:
                self.emit(depth + d, "#pragma omp parallel for")
            self.emit(depth + d, f"for (long i{d} = {lo[d]}; i{d} < {hi[d]}; ++i{d})"
                      + (" {" if d == self.rank - 1 else ""))
        for line in body_lines:
            self.emit(depth + self.rank, line)
        self.emit(depth + self.rank - 1, "}")

    def field_ptr(self, f):
        """C expression of the current array of field operand f."""
        return f"{f.name}_cur" if f.state else f"f_{f.name}"

    def gen(self):
        spec, rank, T = self.spec, self.rank, self.T
        K = _CBuilder(self.ety, rank)
        if spec.time_loop:
            temps = {s: _Field(s, True) for s in spec.states}
        else:
            temps = {}
        temps.update({f: _Field(f, False) for f in spec.inputs})
        results = spec._step(K, temps)
        targets = spec.states if spec.time_loop else spec.outputs
        if set(results) != set(targets):
            raise AssertionError(f"{spec.name}: step returns {sorted(results)}, expected {targets}")

        # shape inference: stored domain, grown by what later applies read
        interior_lo, interior_hi = [0] * rank, list(self.shape)
        for t in targets:
            node = results[t]
            if not isinstance(node, _Apply):
                raise AssertionError(f"{spec.name}: {t} is not computed by an apply")
            node.stored.append(t)
            node.lo, node.hi = _union(node.lo, node.hi, interior_lo, interior_hi)
        for node in reversed(K.applies):
            if node.lo is None:
                continue  # dead apply (never in these benchmarks)
            for k, op in enumerate(node.operands):
                offs = node.body.offsets[k]
                if not offs:
                    continue
                lo = [node.lo[d] + min(o[d] for o in offs) for d in range(rank)]
                hi = [node.hi[d] + max(o[d] for o in offs) for d in range(rank)]
                if isinstance(op, _Apply):
                    op.readers += 1
                    op.lo, op.hi = _union(op.lo, op.hi, lo, hi)
                else:
                    for d in range(rank):
                        if lo[d] < -self.halo[d] or hi[d] > self.shape[d] + self.halo[d]:
                            raise AssertionError(f"{spec.name}: apply {node.name} reads "
                                                 f"{op.name} outside its halo")
        live = [n for n in K.applies if n.lo is not None]
        for n in live:
            n.direct = (len(n.stored) == 1 and n.readers == 0
                        and n.lo == interior_lo and n.hi == interior_hi)
            n.ext = [h - l for l, h in zip(n.lo, n.hi)]
        temps_needed = [n for n in live if not n.direct]

        # the function
        sym = c_symbol(spec.name)
        name_list = ", ".join(spec.fields)
        what = (f"{self.steps} time steps" if spec.time_loop else "one sweep")
        self.emit(0, f"/* {spec.name}: {spec.summary} */")
        self.emit(0, f"/* interior {'x'.join(map(str, self.shape))}, halo "
                  f"{'x'.join(map(str, self.halo))}, {what}, {self.ety}"
                  f"{', OpenMP' if self.openmp else ''}; arguments ({name_list}) */")
        # PolyBench's arrays never alias: say so (else Polly guards its code
        # with run-time alias checks).
        qualifier = " *restrict " if self.polybench else " *"
        args = ", ".join(f"{T}{qualifier}arg_{f}" for f in spec.fields)
        self.emit(0, f"void {sym}({args}) {{")
        for f in spec.inputs:
            self.emit(1, f"const {T} *f_{f} = arg_{f};")
        for f in spec.outputs:
            self.emit(1, f"{T} *f_{f} = arg_{f};")
        for n in temps_needed:
            size = int(np.prod(n.ext))
            self.emit(1, f"/* temporary of apply {n.name}: points "
                      f"{n.lo} to {n.hi} (upper bounds exclusive) */")
            self.emit(1, f"{T} *t_{n.index} = ({T} *)malloc(sizeof({T}) * {size}UL);")
            self.emit(1, f"if (!t_{n.index}) abort();")
        def emit_step(depth):
            """One time step (or the sweep) at nesting `depth`."""
            def out_field(t):
                return f"{t}_next" if spec.time_loop else f"f_{t}"

            for n in live:
                self.emit(depth, f"{{ /* apply {n.name} */")
                decls, reads = [], []
                for k, op in enumerate(n.operands):
                    if not n.body.offsets[k]:
                        continue
                    if isinstance(op, _Field):
                        ext, src = self.full, self.field_ptr(op)
                        base = list(self.halo)
                    else:
                        ext, src = op.ext, f"t_{op.index}"
                        base = [-l for l in op.lo]
                    decls.append(f"{self.row_decl(ext, f'in{k}', True)} = "
                                 f"{self.row_cast(ext, True)}{src};")
                    reads.append(base)
                if n.direct:
                    ext, dst, obase = self.full, out_field(n.stored[0]), list(self.halo)
                else:
                    ext, dst, obase = n.ext, f"t_{n.index}", [-l for l in n.lo]
                decls.append(f"{self.row_decl(ext, 'out', False)} = {self.row_cast(ext, False)}{dst};")
                for line in decls:
                    self.emit(depth + 1, line)
                body = []
                read_base = {}
                j = 0
                for k in range(len(n.operands)):
                    if n.body.offsets[k]:
                        read_base[k] = reads[j]
                        j += 1
                for st in n.body.stmts:
                    kind, var = st[0], st[1]
                    if kind == "read":
                        k, off = st[2], st[3]
                        shifts = [b + o for b, o in zip(read_base[k], off)]
                        body.append(f"const {T} {var} = {self.subscript(f'in{k}', shifts)};")
                    elif kind == "const":
                        body.append(f"const {T} {var} = {st[2]};")
                    elif kind == "bin":
                        body.append(f"const {T} {var} = {st[2]} {st[3]} {st[4]};")
                    elif kind == "gt":
                        body.append(f"const int {var} = {st[2]} > {st[3]};")
                    elif kind == "select":
                        body.append(f"const {T} {var} = {st[2]} ? {st[3]} : {st[4]};")
                body.append(f"{self.subscript('out', obase)} = {n.body.result};")
                self.loop_nest(depth + 1, n.lo, n.hi, body)
                self.emit(depth, "}")
            # stores of applies computed into temporaries
            for n in live:
                if n.direct:
                    continue
                for t in n.stored:
                    self.emit(depth, f"{{ /* store {n.name} into {t} */")
                    self.emit(depth + 1, f"{self.row_decl(n.ext, 'src', True)} = "
                              f"{self.row_cast(n.ext, True)}t_{n.index};")
                    self.emit(depth + 1, f"{self.row_decl(self.full, 'dst', False)} = "
                              f"{self.row_cast(self.full, False)}{out_field(t)};")
                    self.loop_nest(depth + 1, interior_lo, interior_hi,
                                   [f"{self.subscript('dst', self.halo)} = "
                                    f"{self.subscript('src', [-l for l in n.lo])};"])
                    self.emit(depth, "}")

        if spec.time_loop and self.polybench:
            # PolyBench's form: two steps per iteration, each with its own
            # fixed buffers (no pointer swap, which hides the arrays from a
            # polyhedral compiler), and a last step when the count is odd;
            # every buffer receives the values the swapping loop gives it.
            def half(depth, swapped):
                self.emit(depth, "{")
                for st, (a_, b_) in zip(spec.states, spec.pingpong):
                    cur, nxt = (b_, a_) if swapped else (a_, b_)
                    self.emit(depth + 1, f"{T} *{st}_cur = arg_{cur}, *{st}_next = arg_{nxt};")
                emit_step(depth + 1)
                self.emit(depth, "}")
            self.emit(1, f"for (long t = 0; t < {self.steps // 2}; ++t) {{")
            half(2, False)
            half(2, True)
            self.emit(1, "}")
            if self.steps % 2:
                half(1, False)
        elif spec.time_loop:
            for st, (a_, b_) in zip(spec.states, spec.pingpong):
                self.emit(1, f"{T} *{st}_cur = arg_{a_}, *{st}_next = arg_{b_};")
            self.emit(1, f"for (long t = 0; t < {self.steps}; ++t) {{")
            emit_step(2)
            for st in spec.states:
                self.emit(2, f"{{ {T} *swap = {st}_cur; {st}_cur = {st}_next; {st}_next = swap; }}")
            self.emit(1, "}")
        else:
            emit_step(1)

        for n in temps_needed:
            self.emit(1, f"free(t_{n.index});")
        self.emit(0, "}")
        return "\n".join(self.lines) + "\n"


def generate_c(name, shape=None, steps=None, dtype="f64", openmp=False, header=True,
               polybench=False):
    """C source of benchmark `name` (see the module docstring); with
    `polybench`, the time loop in PolyBench's form (two steps per iteration
    on fixed buffers, no pointer swap), for polyhedral compilers."""
    spec = B.BENCHMARKS[name]
    shape = spec._shape(shape)
    steps = spec._steps(steps)
    ety = B._ety(dtype)
    text = _Program(spec, shape, steps, ety, openmp, polybench).gen()
    if header:
        text = ("/* Generated by python/stencil/cgen.py from the kernel in "
                "python/stencil/benchmarks.py. */\n#include <stdlib.h>\n\n" + text)
    return text


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m stencil.cgen",
                                description="Print a benchmark kernel as a C loop nest.")
    p.add_argument("name", choices=sorted(B.BENCHMARKS))
    p.add_argument("--shape", type=B._parse_shape, help="interior sizes, e.g. 4096,4096")
    p.add_argument("--steps", type=int, help="time steps (iterative benchmarks)")
    p.add_argument("--dtype", default="f64", choices=sorted(B.DTYPES))
    p.add_argument("--openmp", action="store_true", help="add #pragma omp parallel for")
    p.add_argument("--polybench", action="store_true",
                   help="the time loop in PolyBench's form (two steps per iteration on "
                        "fixed buffers), for polyhedral compilers such as Polly")
    p.add_argument("-o", "--output", help="output file (default: stdout)")
    args = p.parse_args(argv)
    B._write(generate_c(args.name, args.shape, args.steps, args.dtype, args.openmp,
                        polybench=args.polybench), args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
