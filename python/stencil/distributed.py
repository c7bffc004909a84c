"""Stencil programs decomposed over MPI ranks (`--stencil-distribute`).

A distributed function @f takes, on every rank, that rank's local fields and
a pointer to the MPI communicator (null: MPI_COMM_WORLD). `Decomposition`
(the `dmp.*` attributes the pass records on @f) says which block of the
global grid each rank computes and which window of each global field its
local array holds; `scatter` and `gather` move global numpy arrays to the
ranks and back with mpi4py, and `call` does all three around one call:

    from mpi4py import MPI
    from stencil import compile_file, StencilLibrary, distributed
    lib = StencilLibrary(compile_file("heat2d.mlir", distribute="2x2"))
    distributed.call(lib, "heat2d", u0, u1)   # global arrays, on rank 0

Run it with `mpirun -np 4 python3 script.py`, or `python3 -m stencil run
FILE --mpi 4`. A program compiled with `distribute="auto"` runs on any rank
count it was compiled for; its Decomposition holds every compiled grid and
`for_ranks(size)` picks the one MPI_Dims_create chooses. The decomposition (docs/distributed.md): dimension d of the
domain (the box the stores write), of N points over P ranks, gives the first
N mod P ranks N // P + 1 points and the others N // P; rank r sits at
row-major grid coordinates; every local field is the rank's block widened by
`halo[d]` on both sides in each decomposed dimension (the global field's
bounds in the others), zeros where that leaves the global field.
"""

import ctypes
import re
from dataclasses import dataclass

import numpy as np

_ATTRS_RE = re.compile(r"func\.func\s+@[\w$.]+\(([^{]*?)\)\s*attributes\s*\{([^{}]*)\}", re.S)
_ARRAY_RE = r"array<i64(?::\s*([-\d,\s]*))?>"


def _ints(text):
    return tuple(int(v) for v in re.findall(r"-?\d+", text or ""))


@dataclass
class FieldLayout:
    """A field argument of the global program: bounds (exclusive upper) and
    element type; for a field of lower rank than the domain, the domain
    dimension each of its dimensions is read along (-1: none)."""
    lb: tuple
    ub: tuple
    dtype: str
    dims: tuple = None

    def along(self, rank):
        """Per dimension of the field, the domain dimension it lies along."""
        return self.dims if self.dims is not None else tuple(range(rank))


@dataclass
class Decomposition:
    grid: tuple      # ranks per decomposed dimension (None: grid=auto)
    core_lb: tuple   # the global domain, the box the stores write
    core_ub: tuple
    halo: tuple      # local halo width per decomposed dimension
    fields: list     # per argument: FieldLayout, or None (not a field)
    # grid=auto: {grid: halo} of every compiled grid, chosen at run time
    grids: dict = None

    @classmethod
    def parse(cls, text, arg_dtypes=None):
        """The decomposition in the attributes of the function that `text`
        starts with (None when it is not distributed); `arg_dtypes`: the
        element type of each argument."""
        m = _ATTRS_RE.match(text)
        if not m or not re.search(r"dmp\.grids? = ", m.group(2)):
            return None
        attrs = m.group(2)

        def array(name):
            return _ints(re.search(name + r" = " + _ARRAY_RE, attrs).group(1))

        def arrays(name):
            listed = re.search(name + r" = \[(.*?)\]", attrs, re.S)
            return [_ints(item.partition(":")[2])
                    for item in re.findall(r"array<i64(?::[-\d,\s]*)?>", listed.group(1))]

        def per_argument(name):
            listed = re.search(name + r" = \[(.*?)\]", attrs, re.S)
            if not listed:
                return None
            return [None if item == "unit" else _ints(item.partition(":")[2])
                    for item in re.findall(r"array<i64(?::[-\d,\s]*)?>|unit", listed.group(1))]

        dims = per_argument(r"dmp\.field_dims")
        fields = []
        for i, box in enumerate(per_argument(r"dmp\.fields")):
            if box is None:
                fields.append(None)
                continue
            n = len(box) // 2
            fields.append(FieldLayout(box[:n], box[n:], (arg_dtypes or {}).get(i),
                                      tuple(dims[i]) if dims and dims[i] is not None else None))
        core = array(r"dmp\.core_lb"), array(r"dmp\.core_ub")
        if "dmp.grids = " in attrs:
            grids = dict(zip(arrays(r"dmp\.grids"), arrays(r"dmp\.halos")))
            return cls(None, *core, None, fields, grids)
        return cls(array(r"dmp\.grid"), *core, array(r"dmp\.halo"), fields)

    @property
    def ranks(self):
        return int(np.prod(self.grid))

    def for_ranks(self, size):
        """The decomposition over `size` ranks: this one (checked), or for a
        program distributed with grid=auto the compiled grid MPI_Dims_create
        chooses for `size` ranks (ValueError when there is none)."""
        if self.grids is None:
            self.check_ranks(size)
            return self
        ndims = min(3, len(self.core_lb))
        try:  # the runtime asks MPI_Dims_create: so does this
            from mpi4py import MPI
            grid = _without_trailing_ones(MPI.Compute_dims(size, ndims))
        except ImportError:
            grid = balanced_grid(size, ndims)
        if grid not in self.grids:
            compiled = ", ".join("x".join(map(str, g)) for g in self.grids)
            raise ValueError(f"the program was distributed with grid=auto for the grids "
                             f"{compiled}, not for the {'x'.join(map(str, grid))} grid "
                             f"MPI_Dims_create chooses for {size} ranks: run it on one of "
                             f"those rank counts, or distribute it again (ranks={size})")
        return self.over(grid)

    def over(self, grid):
        """grid=auto: the decomposition over `grid`, one of `grids`."""
        return Decomposition(tuple(grid), self.core_lb, self.core_ub, self.grids[tuple(grid)],
                             self.fields)

    def coords(self, rank):
        """Grid coordinates of `rank` (row-major, the last dimension fastest)."""
        coords = []
        for p in reversed(self.grid):
            coords.append(rank % p)
            rank //= p
        return tuple(reversed(coords))

    def block(self, rank):
        """The [lo, hi) range of the domain `rank` computes, per decomposed
        dimension."""
        ranges = []
        for d, (p, c) in enumerate(zip(self.grid, self.coords(rank))):
            n = self.core_ub[d] - self.core_lb[d]
            base, rem = divmod(n, p)
            lo = self.core_lb[d] + c * base + min(c, rem)
            ranges.append((lo, lo + base + (c < rem)))
        return ranges

    def read_only(self, arg):
        """Whether field argument `arg` is of lower rank than the domain (a
        coefficient profile): never written, so never gathered."""
        return len(self.fields[arg].lb) < len(self.core_lb)

    def window(self, rank, arg):
        """Global bounds [lb, ub) of the local array of field argument `arg`:
        along each decomposed dimension the rank's block widened by the
        halo, the global bounds along the others."""
        f = self.fields[arg]
        lb, ub = list(f.lb), list(f.ub)
        block = self.block(rank)
        for j, d in enumerate(f.along(len(lb))):
            if 0 <= d < len(block):
                lo, hi = block[d]
                lb[j], ub[j] = lo - self.halo[d], hi + self.halo[d]
        return lb, ub

    def local_shape(self, rank, arg):
        lb, ub = self.window(rank, arg)
        return tuple(u - l for l, u in zip(lb, ub))

    def owned(self, rank, arg):
        """The global box of field `arg` that `rank` returns in a gather: its
        block, extended to the field's bounds at the edges of the grid."""
        f = self.fields[arg]
        lb, ub = list(f.lb), list(f.ub)
        for d, ((lo, hi), c) in enumerate(zip(self.block(rank), self.coords(rank))):
            if c > 0:
                lb[d] = lo
            if c < self.grid[d] - 1:
                ub[d] = hi
        return lb, ub

    def _slices(self, box, origin):
        lb, ub = box
        return tuple(slice(l - o, u - o) for l, u, o in zip(lb, ub, origin))

    def local_array(self, rank, arg, global_array):
        """The local array of `rank` for field `arg`, cut from the global one."""
        f = self.fields[arg]
        lb, ub = self.window(rank, arg)
        local = np.zeros(self.local_shape(rank, arg), dtype=global_array.dtype)
        inner = ([max(a, b) for a, b in zip(lb, f.lb)], [min(a, b) for a, b in zip(ub, f.ub)])
        local[self._slices(inner, lb)] = global_array[self._slices(inner, f.lb)]
        return local

    def owned_part(self, rank, arg, local):
        """What `rank` returns of field `arg`: its owned box of `local`."""
        return np.ascontiguousarray(local[self._slices(self.owned(rank, arg),
                                                       self.window(rank, arg)[0])])

    def put(self, rank, arg, part, global_array):
        """Writes a rank's owned part back into the global array."""
        global_array[self._slices(self.owned(rank, arg), self.fields[arg].lb)] = part

    def check_ranks(self, size):
        if size != self.ranks:
            grid = "x".join(map(str, self.grid))
            raise ValueError(f"the program is distributed over a {grid} grid "
                             f"({self.ranks} ranks), but MPI has {size} ranks: run it "
                             f"with {self.ranks} (mpirun -np {self.ranks}) or "
                             f"distribute it again")


def _without_trailing_ones(dims):
    dims = list(dims)
    while len(dims) > 1 and dims[-1] == 1:  # nothing to exchange there
        dims.pop()
    return tuple(dims)


def balanced_grid(ranks, ndims):
    """The grid `run --mpi` and grid=auto decompose `ranks` ranks over:
    dims_create's, trailing 1s dropped."""
    return _without_trailing_ones(dims_create(ranks, ndims))


def dims_create(ranks, ndims):
    """A balanced grid of `ranks` over `ndims` dimensions, largest first (the
    choice MPI_Dims_create makes)."""
    dims = [1] * ndims
    n = ranks
    factors = []
    f = 2
    while f * f <= n:
        while n % f == 0:
            factors.append(f)
            n //= f
        f += 1
    if n > 1:
        factors.append(n)
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return tuple(sorted(dims, reverse=True))


# Defaults of the halo-depth model: a 100 Gb/s InfiniBand-class network
# (the inputs of bench/mpi_bench.py's model) and a memory-bound stencil
# step on one core.
LATENCY, BANDWIDTH, POINT_SECONDS, MAX_DEPTH = 1.5e-6, 12.5e9, 1e-9, 8


def depth_model(dec, fields, element_bytes, diagonal=False, latency=LATENCY,
                bandwidth=BANDWIDTH, point_seconds=POINT_SECONDS, max_depth=MAX_DEPTH):
    """Modeled seconds per step of an interior rank (a model: nothing is
    measured) for each halo depth h from 1 to `max_depth` that the blocks
    allow, {h: seconds}: the points a step computes, the redundant ones of
    a block of h steps included, times `point_seconds`, plus one exchange
    every h steps of `fields` fields: a message per neighbour (faces only
    for h = 1 unless the stencils reach `diagonal`ly, edges and corners
    beyond, as h steps do) times `latency`, their bytes over `bandwidth`.
    `dec` is the decomposition of the program distributed with h = 1: its
    halo is the reach of one step."""
    cut = [d for d, p in enumerate(dec.grid) if p > 1]
    block = [hi - lo for lo, hi in dec.block(0)]
    rest = int(np.prod([u - l for l, u in zip(dec.core_lb[len(dec.grid):],
                                              dec.core_ub[len(dec.grid):])]))
    model = {}
    for h in range(1, max_depth + 1):
        if any(h * dec.halo[d] > block[d] for d in cut):
            break
        # Step j of a block computes its box widened by what the h - 1 - j
        # steps after it read, on both sides (an interior rank).
        widened = [int(np.prod([block[d] + (2 * (h - 1 - j) * dec.halo[d] if d in cut else 0)
                                for d in range(len(block))])) * rest for j in range(h)]
        compute = point_seconds * sum(widened) / h
        messages = volume = 0
        for direction in np.ndindex(*(3,) * len(cut)):
            offsets = [o - 1 for o in direction]
            moved = [d for d, o in zip(cut, offsets) if o]
            if not moved or (h == 1 and len(moved) > 1 and not diagonal):
                continue
            messages += fields
            volume += fields * element_bytes * rest * int(np.prod(
                [h * dec.halo[d] if d in moved else block[d] for d in range(len(block))]))
        model[h] = compute + (messages * latency + volume / bandwidth) / h
    return model


def choose_depth(path, grid, extra_passes=(), **model_options):
    """The halo depth that minimizes depth_model for the program in `path`
    distributed over `grid`, and the model ({h: seconds}). Programs without
    a time loop get 1."""
    import re
    from .compiler import prepare_file, signatures_of
    text = prepare_file(path, (f"stencil-distribute=grid={grid}", *extra_passes))
    copy = re.search(r"func\.func private @\w+_dmp_\w+\(.*?\n  }\n", text, re.S)
    if not copy or "scf.for" not in copy.group(0):
        return 1, {}
    dec = next(s.decomposition for s in signatures_of(text).values() if s.decomposition)
    fields = copy.group(0).count('"dmp.swap"')
    # A swap lists faces only for star stencils (one per side of each cut
    # dimension), edges and corners too for stencils reaching diagonally.
    cut = sum(p > 1 for p in dec.grid)
    diagonal = copy.group(0).count("#dmp.exchange<") > 2 * cut * fields
    element_bytes = max((4 if f.dtype == "f32" else 8) for f in dec.fields if f)
    model = depth_model(dec, fields, element_bytes, diagonal, **model_options)
    return min(model, key=model.get), model


def _comm(comm):
    from mpi4py import MPI
    return MPI.COMM_WORLD if comm is None else comm


def comm_pointer(comm):
    """The pointer to an mpi4py communicator's MPI_Comm handle that a
    distributed function takes."""
    from mpi4py import MPI
    return ctypes.c_void_p(MPI._addressof(_comm(comm)))


def scatter(decomposition, args, comm=None, root=0):
    """This rank's arguments: for field arguments the local arrays cut from
    the global arrays `args` holds on `root` (other ranks may pass None);
    other arguments as given on each rank."""
    comm = _comm(comm)
    decomposition = decomposition.for_ranks(comm.Get_size())
    rank = comm.Get_rank()
    local = []
    for i, f in enumerate(decomposition.fields):
        if f is None:
            local.append(args[i])
            continue
        if rank == root:
            array = np.asarray(args[i])
            for r in range(comm.Get_size()):
                part = decomposition.local_array(r, i, array)
                if r == root:
                    local.append(part)
                else:
                    comm.Send(part, dest=r, tag=i)
        else:
            part = np.empty(decomposition.local_shape(rank, i),
                            dtype=_dtype_of(f.dtype))
            comm.Recv(part, source=root, tag=i)
            local.append(part)
    return local


def gather(decomposition, local, args, comm=None, root=0):
    """Writes every rank's owned part of each local field into the global
    arrays `args` on `root`."""
    comm = _comm(comm)
    decomposition = decomposition.for_ranks(comm.Get_size())
    rank = comm.Get_rank()
    for i, f in enumerate(decomposition.fields):
        if f is None or decomposition.read_only(i):
            continue
        if rank != root:
            comm.Send(decomposition.owned_part(rank, i, local[i]), dest=root, tag=i)
            continue
        for r in range(comm.Get_size()):
            if r == root:
                part = decomposition.owned_part(r, i, local[i])
            else:
                lb, ub = decomposition.owned(r, i)
                part = np.empty(tuple(u - l for l, u in zip(lb, ub)), dtype=local[i].dtype)
                comm.Recv(part, source=r, tag=i)
            decomposition.put(r, i, part, args[i])


def call(lib, name, *args, comm=None, root=0):
    """Calls the distributed function @name on global arrays: scatters them
    from `root`, runs every rank's block, gathers the fields back into
    `args` on `root` (in place). Every rank of `comm` must call it."""
    sig = lib.signature(name)
    if sig.decomposition is None:
        raise ValueError(f"@{name} is not distributed (compile with distribute=...)")
    dec = sig.decomposition
    if len(args) != len(dec.fields):
        raise TypeError(f"@{name} takes {len(dec.fields)} arguments (and the "
                        f"communicator), got {len(args)}")
    local = scatter(dec, args, comm, root)
    lib.call(name, *local, comm_pointer(comm))
    gather(dec, local, args, comm, root)


def _dtype_of(mlir_type):
    from .runtime import numpy_dtype
    return numpy_dtype(mlir_type)


def counters():
    """(messages, bytes, exchanges) this process has sent / done since the
    last reset_counters() (libStencilMpi.so's counters)."""
    from .compiler import find_mpi_runtime
    lib = ctypes.CDLL(find_mpi_runtime())
    values = [ctypes.c_int64() for _ in range(3)]
    lib.stencil_mpi_counters(*map(ctypes.byref, values))
    return tuple(v.value for v in values)


def staged_bytes():
    """Bytes of halo buffers a GPU program of this process staged through
    host memory since the last reset_counters() (0 on the CPU, and with
    $STENCIL_MPI_CUDA_AWARE=1)."""
    from .compiler import find_mpi_runtime
    lib = ctypes.CDLL(find_mpi_runtime())
    lib.stencil_mpi_staged_bytes.restype = ctypes.c_int64
    return lib.stencil_mpi_staged_bytes()


def select_device(comm=None):
    """Before a GPU library is loaded: the CUDA device of this rank, its
    rank among the ranks of its node modulo the node's devices, unless
    $STENCIL_CUDA_DEVICE names one. Returns the ordinal (None without a
    driver: loading the library then reports it)."""
    import os
    if os.environ.get("STENCIL_CUDA_DEVICE"):
        return int(os.environ["STENCIL_CUDA_DEVICE"])
    from mpi4py import MPI
    local = _comm(comm).Split_type(MPI.COMM_TYPE_SHARED)
    local_rank = local.Get_rank()
    local.Free()
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or not count.value:
        return None
    device = local_rank % count.value
    os.environ["STENCIL_CUDA_DEVICE"] = str(device)
    return device


def reset_counters():
    from .compiler import find_mpi_runtime
    ctypes.CDLL(find_mpi_runtime()).stencil_mpi_reset_counters()


def mpirun_command(ranks, argv, timeout=None):
    """The mpirun command line that runs `argv` (a Python module's argv, as
    ["-m", "stencil", ...]) on `ranks` processes of this machine, under
    mpi4py's runner (an exception on one rank aborts them all)."""
    import os
    import shutil
    import sys
    mpirun = shutil.which("mpirun")
    if not mpirun:
        raise FileNotFoundError("mpirun not found: install an MPI runtime "
                                "(Debian: openmpi-bin libopenmpi-dev python3-mpi4py)")
    cmd = [mpirun, "-np", str(ranks)]
    if "Open MPI" in _mpirun_version(mpirun):
        cmd += ["--oversubscribe"]
        if os.geteuid() == 0:
            cmd += ["--allow-run-as-root"]
        if timeout:
            cmd += ["--timeout", str(int(timeout))]
    return cmd + [sys.executable, "-m", "mpi4py", *argv]


def _mpirun_version(mpirun):
    import subprocess
    proc = subprocess.run([mpirun, "--version"], capture_output=True, text=True)
    return proc.stdout + proc.stderr
