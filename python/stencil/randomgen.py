"""Random stencil programs with an independent numpy reference.

Each program is a time loop (ping-pong over two fields per statement group)
or a single sweep, of rank 1 to 3, with one to three chained applies per step,
random asymmetric offsets (radius up to 3), random weights and sizes. The
reference evaluates the same arithmetic in the same order with numpy, so
results must be equal bit for bit. Used to test the reference lowering now
and every tiled schedule later against it.

The forms frontends emit vary too:
  * fields: static function arguments, dynamic (`?`) arguments cast to
    static bounds before the time loop (the loop's `iter_args` are the cast
    results), or dynamic `iter_args` cast inside the loop body;
  * aliasing: the same field passed for both `iter_args` (every step then
    updates the field from a snapshot of itself);
  * a second store into the output field on a sub-box, before or after the
    main store (stores take effect in order), of the loaded field, of an
    earlier apply, or of a side apply that nothing else uses (the lowering
    would like to write that one straight into the field);
  * loop results used after the loop (a copy of the newest buffer into the
    other one).

    /usr/bin/python3 -m stencil.randomgen --count 20 --seed 1 --outdir DIR

With --hex-tile every time loop is tiled with random tile sizes first (h+1 a
multiple of the statements per step, w0 above the convexity bound of the
radius-3 offsets, odd widths): results must still equal the reference.
With --split-tile they are split-tiled instead (band height a multiple of the
statements per step, periods that keep the trapezoids of radius-3 slopes
apart). Either composes with --emulate-gpu (random threads per block and
shared-memory promotion) and --openmp. With --unroll most applies are
unrolled (`unroll <[...]>`, 1-3 points per dimension, as xDSL's
stencil-unroll writes them), on extents that are mostly not multiples of
the factors.
"""

import argparse
import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64}


@dataclass
class Apply:
    """out = sum_k w_k * in_{src_k}[p + off_k], summed left to right."""
    terms: list  # (source index: 0 = loaded field, j>0 = result of apply j-1, offset tuple, weight)
    unroll: tuple = None  # `unroll <[...]>` factors (the same values, another form)


@dataclass
class RandomProgram:
    name: str
    rank: int
    shape: tuple       # interior extent
    halo_lo: tuple     # halo below the interior, per dimension
    halo_hi: tuple
    steps: int         # 0: single sweep (no time loop)
    dtype: str
    applies: list = field(default_factory=list)
    fields: str = "static"      # "static", "cast" (before the loop), "cast-inside"
    alias: bool = False         # the same field for both iter_args
    extra_store: tuple = None   # (stage, lo, hi, after_main_store); stage -1: the
                                # load, "side": an apply only this store uses
    side: Apply = None          # that apply (reads the load only)
    use_results: bool = False   # copy the newest buffer into the other after the loop

    # ---------------------------------------------------------------- text
    def field_type(self):
        dims = "x".join(f"[{-lo},{n + hi}]" for n, lo, hi in
                        zip(self.shape, self.halo_lo, self.halo_hi))
        return f"!stencil.field<{dims}x{self.dtype}>"

    def temp_type(self):
        return "!stencil.temp<" + "?x" * self.rank + self.dtype + ">"

    def _const(self, w):
        return repr(float(DTYPES[self.dtype](w)))

    def dyn_field_type(self):
        return "!stencil.field<" + "?x" * self.rank + self.dtype + ">"

    def _store(self, lines, value, target, lo, hi, indent="    "):
        tt, ft = self.temp_type(), self.field_type()
        lo, hi = ", ".join(map(str, lo)), ", ".join(map(str, hi))
        lines.append(f"{indent}stencil.store {value} to {target}(<[{lo}], [{hi}]>) : {tt} to {ft}")

    def _apply(self, lines, name, ap, prev):
        tt = self.temp_type()
        sources = sorted({s for s, _, _ in ap.terms})
        header = ", ".join(f"%a{s} = {prev[s]} : {tt}" for s in sources)
        lines.append(f"    {name} = stencil.apply({header}) -> ({tt}) {{")
        # Unrolled as xDSL's stencil-unroll writes it: the body once per
        # point p of the block (row-major), its offsets shifted by p.
        points = list(itertools.product(*[range(u) for u in ap.unroll or [1]]))
        results = []
        for p, shift in enumerate(points):
            acc = None
            for k, (s, off, w) in enumerate(ap.terms):
                offs = ", ".join(str(o + d) for o, d in zip(off, shift + (0,) * len(off)))
                lines.append(f"      %v{p}_{k} = stencil.access %a{s}[{offs}] : {tt}")
                lines.append(f"      %w{p}_{k} = arith.constant {self._const(w)} : {self.dtype}")
                lines.append(f"      %p{p}_{k} = arith.mulf %v{p}_{k}, %w{p}_{k} : {self.dtype}")
                if acc is None:
                    acc = f"%p{p}_{k}"
                else:
                    lines.append(f"      %s{p}_{k} = arith.addf {acc}, %p{p}_{k} : {self.dtype}")
                    acc = f"%s{p}_{k}"
            lines.append(f"      %res{p} = stencil.store_result {acc} : !stencil.result<{self.dtype}>")
            results.append(f"%res{p}")
        unroll = f" unroll <[{', '.join(map(str, ap.unroll))}]>" if len(points) > 1 else ""
        types = ", ".join([f"!stencil.result<{self.dtype}>"] * len(results))
        lines.append(f"      stencil.return {', '.join(results)}{unroll} : {types}")
        lines.append("    }")

    def _body(self, lines, a, b):
        tt, ft = self.temp_type(), self.field_type()
        if self.fields == "cast-inside":
            for v in (a, b):
                lines.append(f"    {v}s = stencil.cast {v} : {self.dyn_field_type()} -> {ft}")
            a, b = a + "s", b + "s"
        lines.append(f"    %in = stencil.load {a} : {ft} -> {tt}")
        prev = ["%in"]
        for j, ap in enumerate(self.applies):
            self._apply(lines, f"%r{j}", ap, prev)
            prev.append(f"%r{j}")
        if self.side:
            self._apply(lines, "%side", self.side, prev)
        stores = [(prev[-1], [0] * self.rank, list(self.shape))]
        if self.extra_store:
            stage, lo, hi, after = self.extra_store
            extra = ("%side" if stage == "side" else prev[stage + 1], lo, hi)
            stores = stores + [extra] if after else [extra] + stores
        for value, lo, hi in stores:
            self._store(lines, value, b, lo, hi)

    def mlir(self):
        ft = self.field_type()
        arg_t = ft if self.fields == "static" else self.dyn_field_type()
        loop_t = self.dyn_field_type() if self.fields == "cast-inside" else ft
        lines = [f"func.func @{self.name}(%u0 : {arg_t}, %u1 : {arg_t}) {{"]
        u0, u1 = "%u0", "%u1"
        if self.fields == "cast":
            lines += [f"  %u0s = stencil.cast %u0 : {arg_t} -> {ft}",
                      f"  %u1s = stencil.cast %u1 : {arg_t} -> {ft}"]
            u0, u1 = "%u0s", "%u1s"
        if self.steps:
            init_b = u0 if self.alias else u1
            lines += ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
                      f"  %steps = arith.constant {self.steps} : index",
                      f"  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = {u0}, %b = {init_b})"
                      f" -> ({loop_t}, {loop_t}) {{"]
            body = []
            self._body(body, "%a", "%b")
            lines += ["  " + l for l in body]
            lines += [f"    scf.yield %b, %a : {loop_t}, {loop_t}", "  }"]
            if self.use_results:
                # %r#0 holds the newest values: copy them into %r#1.
                newest, other = "%r#0", "%r#1"
                if self.fields == "cast-inside":
                    lines += [f"  %n0 = stencil.cast %r#0 : {loop_t} -> {ft}",
                              f"  %n1 = stencil.cast %r#1 : {loop_t} -> {ft}"]
                    newest, other = "%n0", "%n1"
                tt = self.temp_type()
                lines += [f"  %fin = stencil.load {newest} : {ft} -> {tt}",
                          f"  %cp = stencil.apply(%x = %fin : {tt}) -> ({tt}) {{",
                          f"    %v = stencil.access %x[{', '.join('0' * self.rank)}] : {tt}",
                          f"    stencil.return %v : {self.dtype}",
                          "  }"]
                self._store(lines, "%cp", other, [0] * self.rank, list(self.shape), "  ")
        else:
            self._body(lines, u0, u1)
        lines += ["  func.return", "}"]
        return "\n".join(lines) + "\n"

    # ----------------------------------------------------------- reference
    def _need(self):
        """Box each stage is needed on, relative to the interior, as (lo, hi)
        extensions: stage j must be computed on interior - lo .. interior + hi."""
        n = len(self.applies)
        lo = [[0] * self.rank for _ in range(n + 1)]
        hi = [[0] * self.rank for _ in range(n + 1)]
        for j in range(n - 1, -1, -1):
            for s, off, _ in self.applies[j].terms:
                for d in range(self.rank):
                    lo[s][d] = max(lo[s][d], lo[j + 1][d] - off[d])
                    hi[s][d] = max(hi[s][d], hi[j + 1][d] + off[d])
        return lo, hi

    def reference(self, u0, u1):
        dt = DTYPES[self.dtype]
        lo, hi = self._need()
        bufs = [u0.copy(), u1.copy()]
        order = [0, 0] if self.alias else [0, 1]  # which array each iter_arg starts as
        for step in range(max(self.steps, 1)):
            if self.steps:
                a, b = bufs[order[step % 2]], bufs[order[(step + 1) % 2]]
            else:
                a, b = bufs[0], bufs[1]
            # Stage values as (array, origin): array[i] is grid point i + origin.
            # The load is a snapshot: later stores into the same array do not
            # change what this step reads.
            stages = [(a.copy(), tuple(-h for h in self.halo_lo))]
            def evaluate(ap, box_lo, box_hi):
                acc = None
                for s, off, w in ap.terms:
                    arr, org = stages[s]
                    sl = tuple(slice(box_lo[d] + off[d] - org[d], box_hi[d] + off[d] - org[d])
                               for d in range(self.rank))
                    p = arr[sl] * dt(w)
                    acc = p if acc is None else acc + p
                return acc, tuple(box_lo)
            for j, ap in enumerate(self.applies):
                box_lo = [-lo[j + 1][d] for d in range(self.rank)]
                box_hi = [self.shape[d] + hi[j + 1][d] for d in range(self.rank)]
                stages.append(evaluate(ap, box_lo, box_hi))
            if self.side:
                side = evaluate(self.side, [0] * self.rank, list(self.shape))
            stores = [(len(self.applies), [0] * self.rank, list(self.shape))]
            if self.extra_store:
                stage, slo, shi, after = self.extra_store
                extra = ("side" if stage == "side" else stage + 1, slo, shi)
                stores = stores + [extra] if after else [extra] + stores
            for stage, slo, shi in stores:
                out, org = side if stage == "side" else stages[stage]
                dst = tuple(slice(h + l, h + u) for h, l, u in zip(self.halo_lo, slo, shi))
                sel = tuple(slice(l - o, u - o) for l, u, o in zip(slo, shi, org))
                b[dst] = out[sel]
        if self.steps and self.use_results:
            newest, other = bufs[order[self.steps % 2]], bufs[order[(self.steps + 1) % 2]]
            interior = tuple(slice(h, h + n) for h, n in zip(self.halo_lo, self.shape))
            other[interior] = newest[interior].copy()
        return bufs

    def array_shape(self):
        return tuple(n + lo + hi for n, lo, hi in zip(self.shape, self.halo_lo, self.halo_hi))


def random_program(rng, index, unroll=False):
    rank = rng.choice([1, 2, 2, 3])
    napplies = rng.choice([1, 1, 2, 3])
    applies = []
    for j in range(napplies):
        nterms = rng.randint(1, 5)
        terms = []
        for k in range(nterms):
            # The loaded field or any earlier result; the first term reads the
            # previous apply so that every result is used.
            src = j if k == 0 else rng.randint(0, j)
            off = tuple(rng.randint(-3, 3) if rng.random() < 0.7 else 0 for _ in range(rank))
            w = rng.choice([0.5, 0.25, 0.125, -1.0, 0.75, 0.2, 1.5, 0.1])
            terms.append((src, off, w))
        applies.append(Apply(terms))
    prog = RandomProgram(f"rnd{index}", rank, (), (), (), 0, rng.choice(["f32", "f64"]), applies)
    lo, hi = prog._need()
    prog.halo_lo = tuple(lo[0][d] + rng.randint(0, 1) for d in range(rank))
    prog.halo_hi = tuple(hi[0][d] + rng.randint(0, 1) for d in range(rank))
    sizes = {1: (5, 40), 2: (3, 17), 3: (2, 7)}[rank]
    prog.shape = tuple(rng.randint(*sizes) for _ in range(rank))
    prog.steps = rng.choice([0, 1, 2, 3, 5, 7])
    prog.fields = rng.choice(["static", "static", "cast", "cast-inside"])
    if prog.steps:
        prog.alias = rng.random() < 0.2
        prog.use_results = rng.random() < 0.3
    if rng.random() < 0.3:
        # A temp is stored at most once: the second store takes the loaded
        # field (stage -1), an apply before the last, or a side apply.
        stage = rng.choice(["side"] + list(range(-1, len(applies) - 1)))
        if stage == "side":
            # Within the halo the chain already needs.
            offs = [tuple(rng.randint(-prog.halo_lo[d], prog.halo_hi[d]) for d in range(rank))
                    for _ in range(rng.randint(1, 3))]
            prog.side = Apply([(0, off, rng.choice([0.5, -1.0, 0.75])) for off in offs])
        slo = [rng.randint(0, n - 1) for n in prog.shape]
        shi = [rng.randint(l + 1, n) for l, n in zip(slo, prog.shape)]
        prog.extra_store = (stage, slo, shi, rng.random() < 0.5)
    if unroll:
        # Factors of 1 to 3, mostly not dividing the extents.
        for ap in prog.applies + ([prog.side] if prog.side else []):
            if rng.random() < 0.7:
                factors = [rng.randint(1, 3) for _ in range(rank)]
                factors[rng.randrange(rank)] = rng.randint(2, 3)
                ap.unroll = tuple(factors)
    return prog


def _time_loop_statements(path):
    """The statements per step of the time-loop scop of the program in
    `path` (1 without one), and whether --stencil-to-poly makes one."""
    import re
    import subprocess
    from .compiler import find_stencil_opt
    proc = subprocess.run([find_stencil_opt(), "--stencil-to-poly", str(path)],
                          capture_output=True, text=True, check=True)
    # Statements of the time-loop scop (a scop with steps); a sweep after the
    # loop is another scop.
    chunks = proc.stdout.split("poly.scop")[1:]
    scops = [c for c in chunks if c.startswith(" steps(")]
    k = max([len(re.findall(r"poly\.stmt @", c)) for c in scops] + [1])
    return k, bool(scops)


def random_hex_options(rng, path, rank, max_multiple=3):
    """Random --hex-tile options valid for the program in `path`, and whether
    the program has a time loop that --stencil-to-poly accepts."""
    k, has_scop = _time_loop_statements(path)
    h = k * rng.randint(1, max_multiple) - 1
    # Offsets are at most 3 and every dependence advances time by at least
    # one canonical step, so the slopes are at most 3: w0 = 4 is convex.
    widths = [rng.randint(4, 9) if d == 0 else rng.randint(1, 9) for d in range(rank)]
    options = f"h={h} widths={','.join(map(str, widths))}"
    # Isolated full tiles, which multi-statement steps get only when asked
    # for, half the time (chosen by a width, so that the programs and sizes
    # of a seed stay what they were).
    if widths[0] % 2 == 0:
        options += " isolate=true"
    # Translated parallelogram tiles (the translation offset of aligned
    # loads) where there are any.
    if rank > 1:
        options += f" offset={rng.randint(0, widths[-1])}"
    return options, has_scop


def random_split_options(rng, path, rank, max_multiple=3, max_slope=3):
    """Random --split-tile options valid for the program in `path` (the band
    height a multiple of the statements per step), and whether the program
    has a time loop that --stencil-to-poly accepts. `max_slope` bounds the
    dependence slopes (3 for the random programs, see random_hex_options)."""
    k, has_scop = _time_loop_statements(path)
    h = k * rng.randint(1, max_multiple)
    # A period of 2 max_slope (h - 1) keeps the inverted trapezoids of a band
    # apart whatever the slopes are.
    least = 2 * max_slope * (h - 1)
    widths = [rng.randint(max(least, 1), least + 9) for _ in range(rank)]
    isolate = " isolate=true" if widths[0] % 2 == 0 else ""  # as for hex
    return f"h={h} widths={','.join(map(str, widths))}{isolate}", has_scop


def merge_modules(texts):
    """One module holding the functions of several printed modules."""
    bodies = []
    for text in texts:
        begin = text.index("{", text.index("module")) + 1
        bodies.append(text[begin:text.rindex("}")])
    return "module {" + "".join(bodies) + "}\n"


def main(argv=None):
    import tempfile
    from .compiler import compile_loops, compile_module, lower_file, prepare_file
    from .runtime import StencilLibrary

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--outdir")
    parser.add_argument("--openmp", action="store_true")
    parser.add_argument("--inline", action="store_true",
                        help="run --stencil-inlining first (fusion by recomputation)")
    tiling = parser.add_mutually_exclusive_group()
    tiling.add_argument("--hex-tile", action="store_true",
                        help="hex-tile every time loop with random tile sizes")
    tiling.add_argument("--split-tile", action="store_true",
                        help="split-tile every time loop with random tile sizes")
    parser.add_argument("--default-sizes", action="store_true",
                        help="with --hex-tile or --split-tile: no sizes (the tile-size model's "
                             "choice, half the time within a small random cache-kib so that the "
                             "small grids hold several tiles); with --emulate-gpu too: "
                             "poly-to-gpu's defaults (the GPU's sizes, threads and promotion), "
                             "as a user's --hex-tile --convert-to-gpu")
    parser.add_argument("--fuse", action="store_true",
                        help="fuse the applies of every step and sweep (--fuse) with random "
                             "tile sizes or the model's, after the tiling if any")
    parser.add_argument("--unroll", action="store_true",
                        help="unroll most applies (stencil.return ... unroll "
                             "<[...]>, as xDSL's stencil-unroll writes them) by "
                             "1-3 per dimension; time tiling leaves such "
                             "applies alone")
    parser.add_argument("--emulate-gpu", action="store_true",
                        help="lower through the GPU mapping (random threads per block) "
                             "and run the kernels on the CPU")
    parser.add_argument("--promote", choices=("none", "copy", "interleaved"),
                        help="with --hex-tile or --split-tile, and --emulate-gpu: this shared-memory promotion "
                             "(default: a random one per program)")
    parser.add_argument("--race-check", action="store_true",
                        help="with --emulate-gpu: check the kernels for races between the "
                             "threads of a block, and run each block's threads in reverse")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    outdir = Path(args.outdir or tempfile.mkdtemp(prefix="stencil-random-"))
    outdir.mkdir(parents=True, exist_ok=True)
    # Each program is lowered on its own (with its own tile sizes); the loop
    # forms are compiled together into one library, which is much faster.
    progs, loops, notes = [], [], []
    tiled = 0
    for i in range(args.count):
        prog = random_program(rng, i, unroll=args.unroll)
        path = outdir / f"{prog.name}.mlir"
        path.write_text(prog.mlir())
        passes = ("stencil-inlining",) if args.inline else ()
        note = ""
        if args.hex_tile or args.split_tile:
            tiling = "hex-tile" if args.hex_tile else "split-tile"
            random_options = random_hex_options if args.hex_tile else random_split_options
            options, has_scop = random_options(rng, path, prog.rank)
            if args.default_sizes:
                options = "" if args.emulate_gpu or rng.random() < 0.5 else \
                    f"cache-kib={rng.choice((4, 8, 16, 32))}"
            passes = (f"{tiling}={options}" if options else tiling,)
            tiled += has_scop
            note = f", {tiling} {options or 'defaults'}" if has_scop else ", not tiled"
        if args.fuse:
            fuse = "fuse"
            if rng.random() < 0.7:
                fuse += "=tile=" + ",".join(str(rng.randint(1, 9)) for _ in range(prog.rank))
            if args.emulate_gpu and rng.random() < 0.7:
                threads = ",".join(str(rng.randint(1, 8)) for _ in range(min(prog.rank, 2)))
                passes += (fuse, f"poly-to-gpu=threads={threads}")
                note += f", {fuse}, threads {threads}"
            else:
                passes += (fuse,)
                note += f", {fuse}"
        progs.append(prog)
        if args.emulate_gpu:
            if (args.hex_tile or args.split_tile) and args.default_sizes:
                passes += ("poly-to-gpu",)
            elif args.hex_tile or args.split_tile:
                threads = [rng.randint(1, 8) for _ in range(min(prog.rank, 3))]
                # Often threads along x that divide the innermost width: the
                # shift of inter-tile reuse is then a multiple of them.
                inner = int(options.split("widths=")[1].split()[0].split(",")[-1])
                if prog.rank > 1 and rng.random() < 0.5:
                    threads[0] = rng.choice([d for d in range(1, 9) if inner % d == 0])
                threads = ",".join(map(str, threads))
                # Every promotion mode; a small budget leaves some arrays
                # in global memory next to promoted ones.
                promote = args.promote or rng.choice(("none", "copy", "interleaved"))
                budget = rng.choice((49152, 49152, 1024))
                # Inter-tile reuse where the shift is a multiple of the
                # threads (often: the random widths and threads are small).
                reuse = rng.choice(("true", "true", "false"))
                passes += (f"poly-to-gpu=threads={threads} promote={promote} "
                           f"shared-budget={budget} inter-tile-reuse={reuse}",)
                note += (f", threads {threads} promote={promote} budget {budget} "
                         f"reuse {reuse}") if has_scop else ""
            loops.append(prepare_file(path, passes))
        else:
            loops.append(lower_file(path, passes))
        notes.append(note)
    if args.emulate_gpu:
        # Untiled applies: small odd blocks, so that most are partial.
        blocks = ",".join(str(rng.randint(1, 8)) for _ in range(3))
        compiled = compile_module(merge_modules(loops), "random", openmp=args.openmp,
                                  workdir=outdir, emulate_gpu=True,
                                  gpu_options=f"block-sizes={blocks}",
                                  race_check=args.race_check, reverse_threads=args.race_check)
        print(f"random: GPU mapping emulated on the CPU, untiled block sizes {blocks}"
              + (", race check, threads in reverse" if args.race_check else ""))
    else:
        compiled = compile_loops(merge_modules(loops), "random", openmp=args.openmp,
                                 workdir=outdir)
    lib = StencilLibrary(compiled)
    failures = 0
    for i, (prog, note) in enumerate(zip(progs, notes)):
        data = np.random.default_rng(i)
        u0 = data.random(prog.array_shape()).astype(DTYPES[prog.dtype])
        u1 = data.random(prog.array_shape()).astype(DTYPES[prog.dtype])
        want = prog.reference(u0, u1)
        lib.call(prog.name, u0, u1)
        ok = np.array_equal(u0, want[0]) and np.array_equal(u1, want[1])
        failures += not ok
        forms = [prog.fields] + ["alias"] * prog.alias + ["use-results"] * prog.use_results
        if prog.extra_store:
            forms.append("second-store-" + ("after" if prog.extra_store[3] else "before"))
        forms += [f"unroll {'x'.join(map(str, ap.unroll))}" for ap in prog.applies if ap.unroll]
        print(f"{'ok  ' if ok else 'FAIL'} {prog.name}.mlir: rank {prog.rank}, {len(prog.applies)} applies, "
              f"{prog.shape} halo {prog.halo_lo}/{prog.halo_hi}, {prog.steps} steps, {prog.dtype}, "
              f"{' '.join(forms)}{note}")
    if args.hex_tile or args.split_tile:
        print(f"random: {tiled} of {args.count} {'hex' if args.hex_tile else 'split'}-tiled")
    print(f"random: {args.count - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
