"""Compile stencil programs to shared libraries with the project's tools.

The pipeline is the documented CPU path:

    stencil-opt --stencil-cpu-pipeline[=openmp=true] in.mlir
      | mlir-translate --mlir-to-llvmir
      | opt -O3 -mcpu=CPU | llc -O3 -mcpu=CPU -relocation-model=pic
      | cc -shared [-lomp]

LLVM's optimizer vectorizes the inner loops for the target CPU: by default
the machine that compiles (`native`); pass `cpu="x86-64-v2"` (or another
LLVM CPU name, or set $STENCIL_CPU) for a library that runs on other
machines. Neither reassociates nor fuses multiplies and adds (no fast-math),
so results stay bit-identical to the reference.

Two more targets go through the GPU mapping (docs/gpu-runtime.md):

  * `target="cuda"`: `stencil-opt --convert-to-gpu[=gpu_options]` builds the
    kernels (a cubin, or PTX without ptxas) and host code that calls
    libStencilCudaRuntime.so; the library links that runtime (run path to
    where it was found: find_cuda_runtime) and takes DEVICE pointers.
  * `emulate_gpu=True` (CPU target): `--stencil-cpu-pipeline=emulate-gpu=true`
    maps the program to kernels as for the GPU, then runs the kernels on the
    CPU (the blocks in parallel with `openmp=True`): the CPU executor of the
    GPU code, which must give the reference's results bit for bit.

Both start from the program after `extra_passes` (prepare_file): the GPU
mapping needs the stencil ops or the tiled `poly.scop` ops, not loops.

Every function whose arguments are fields gets a C entry point
``_mlir_ciface_<name>`` taking memref descriptors (see runtime.py). The
signatures come from the reference loop form of the same program.
"""

import os
import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
LLVM_LIB = Path("/usr/lib/llvm-22/lib")
REPO_ROOT = Path(__file__).resolve().parents[2]


def host_triple():
    """The host's target triple. mlir-translate leaves the module without a
    target, and the optimizer needs one to know the vector units."""
    global _HOST_TRIPLE
    if _HOST_TRIPLE is None:
        _HOST_TRIPLE = _run([str(LLVM_BIN / "llvm-config"), "--host-target"]).strip()
    return _HOST_TRIPLE


_HOST_TRIPLE = None
_KNOWN_CPUS = None


def check_cpu(cpu):
    """Reject a CPU name LLVM does not know (it would only warn, then fail
    or silently use a generic CPU)."""
    global _KNOWN_CPUS
    if cpu == "native":
        return
    if _KNOWN_CPUS is None:
        proc = subprocess.run([str(LLVM_BIN / "llc"), f"-mtriple={host_triple()}", "-mcpu=help"],
                              input="", capture_output=True, text=True)
        listing = proc.stdout + proc.stderr
        section = listing.split("Available CPUs for this target:", 1)[-1]
        section = section.split("Available features", 1)[0]
        _KNOWN_CPUS = {line.split()[0] for line in section.splitlines() if line.strip()}
    if cpu not in _KNOWN_CPUS:
        raise CompileError(f"unknown CPU '{cpu}' for {host_triple()}: use 'native' or one of "
                           f"{', '.join(sorted(_KNOWN_CPUS))}")


class CompileError(RuntimeError):
    """A tool of the pipeline failed; the message holds its diagnostics."""


class CompileWarning(UserWarning):
    """stencil-opt succeeded with warnings (the message holds them)."""


def find_stencil_opt():
    """stencil-opt from $STENCIL_OPT, $STENCIL_BUILD_DIR/bin, build/bin or PATH."""
    candidates = [os.environ.get("STENCIL_OPT")]
    if os.environ.get("STENCIL_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["STENCIL_BUILD_DIR"], "bin", "stencil-opt"))
    candidates.append(str(REPO_ROOT / "build" / "bin" / "stencil-opt"))
    candidates.append(shutil.which("stencil-opt"))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise CompileError("stencil-opt not found: build the project (scripts/build.sh) "
                       "or set STENCIL_OPT")


def _find_runtime(name, env, hint):
    """The runtime library `name` from $`env` (the file), $STENCIL_BUILD_DIR/lib,
    the lib/ directory next to stencil-opt's bin/ (a build or install tree)
    or build/lib; CompileError with `hint` when none exists."""
    candidates = [os.environ.get(env)]
    if os.environ.get("STENCIL_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["STENCIL_BUILD_DIR"], "lib", name))
    try:
        candidates.append(str(Path(find_stencil_opt()).resolve().parents[1] / "lib" / name))
    except CompileError:
        pass
    candidates.append(str(REPO_ROOT / "build" / "lib" / name))
    for c in candidates:
        if c and os.path.isfile(c):
            return str(Path(c).resolve())
    raise CompileError(f"{name} not found: {hint} or set {env} to the library")


def find_cuda_runtime():
    """libStencilCudaRuntime.so (see _find_runtime; $STENCIL_CUDA_RUNTIME)."""
    return _find_runtime("libStencilCudaRuntime.so", "STENCIL_CUDA_RUNTIME",
                         "build the project where the CUDA toolkit is installed "
                         "(scripts/build.sh builds lib/Runtime when CMake finds it)")


def find_emulation_runtime():
    """libStencilEmulation.so, the race check and profile of the GPU
    emulation (see _find_runtime; $STENCIL_EMULATION_RUNTIME)."""
    return _find_runtime("libStencilEmulation.so", "STENCIL_EMULATION_RUNTIME",
                         "build the project (scripts/build.sh)")


def find_mpi_runtime():
    """libStencilMpi.so, the halo exchanges of distributed programs (see
    _find_runtime; $STENCIL_MPI_RUNTIME)."""
    return _find_runtime("libStencilMpi.so", "STENCIL_MPI_RUNTIME",
                         "install MPI (Debian: libopenmpi-dev) and build the project "
                         "(scripts/build.sh builds lib/Runtime/MpiRuntime.cpp when CMake "
                         "finds MPI)")


# Options of the emulation that instrument or reorder the kernels (keyword
# arguments of compile_file and the rest, pipeline options of
# --stencil-cpu-pipeline).
EMULATION_CHECKS = {"race_check": "race-check", "reverse_threads": "reverse-threads",
                    "profile": "profile"}


def _emulation_checks(emulate_gpu, checks):
    """The pipeline options of the checks that are on; they need emulate_gpu."""
    unknown = set(checks) - set(EMULATION_CHECKS)
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(sorted(unknown))}")
    on = [EMULATION_CHECKS[k] for k, v in checks.items() if v]
    if on and not emulate_gpu:
        raise CompileError(f"{', '.join(on)} check(s) the emulated GPU code: use them with "
                           "emulate_gpu=True")
    return [f"{option}=true" for option in on]


# The passes that tile time loops (what a rank's blocks of steps need to be
# rolled into loops for).
TIME_TILINGS = ("hex-tile", "split-tile")


def _process(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr}")
    return proc


def _run(cmd, stdin=None):
    return _process(cmd, stdin).stdout


# The first line of an MLIR diagnostic: "LOCATION: SEVERITY: message".
_DIAGNOSTIC_RE = re.compile(r"^\S[^\n]*?: (error|warning|remark|note): ", re.M)


def _warnings_of(stderr):
    """The warnings among stencil-opt's diagnostics, each with its notes but
    without the operation MLIR prints after one ("see current operation");
    remarks (what promotion chose, for instance) are information, not
    warnings, and left out."""
    starts = [m.start() for m in _DIAGNOSTIC_RE.finditer(stderr)]
    kept, keeping = [], False
    for start, end in zip(starts, starts[1:] + [len(stderr)]):
        text = stderr[start:end].rstrip()
        severity = _DIAGNOSTIC_RE.match(text).group(1)
        if severity != "note":
            keeping = severity == "warning"
            if keeping:
                kept.append(text)
        elif keeping and "see current operation" not in text.partition("\n")[0]:
            kept[-1] += "\n" + text
    return kept


def _stencil_opt(args, stdin=None):
    """stencil-opt's output; its warnings (a program that runs untiled, a
    halo exchange that misses what a stencil reads) reach the caller as
    CompileWarning."""
    proc = _process([find_stencil_opt(), *args], stdin)
    for warning in _warnings_of(proc.stderr):
        warnings.warn(warning, CompileWarning, stacklevel=3)
    return proc.stdout


@dataclass
class MemRefArg:
    """A memref argument of the lowered function: its shape and element type."""
    shape: tuple
    dtype: str  # MLIR element type: f32, f64, i32, i64, index, ...


@dataclass
class ScalarArg:
    dtype: str


@dataclass
class Signature:
    name: str
    args: list = field(default_factory=list)
    returns: bool = False  # the function returns values (not callable from Python)
    # A function distributed by --stencil-distribute: its blocks and halos
    # (stencil.distributed.Decomposition); its last argument is the
    # communicator.
    decomposition: object = None


_FUNC_RE = re.compile(r"func\.func\s+@([\w$.]+)\((.*?)\)\s*(->|attributes|\{)", re.S)


_CAST_RE = re.compile(r"memref\.cast (%arg\d+) : memref<[?\dx]*\w+> to memref<((?:[?\d]+x)*)\w+>")


def _parse_dims(text):
    """"72x?x" -> (72, None)."""
    return tuple(None if d == "?" else int(d) for d in text.split("x") if d)


def _parse_signatures(lowered_text):
    """Signatures of the functions of a module after convert-stencil-to-loops.
    An argument of unknown extent that the function casts to one known
    extent (a `stencil.cast` of a `?` field, the Open Earth Compiler's and
    xDSL's form) has that extent: its code indexes with the cast's shape."""
    from .distributed import Decomposition
    sigs = {}
    matches = list(_FUNC_RE.finditer(lowered_text))
    for k, match in enumerate(matches):
        name, args, after = match.groups()
        sig = Signature(name, returns=after == "->")
        names = []
        for arg in filter(None, (a.strip() for a in args.split(","))):
            names.append(arg.split(":", 1)[0].strip())
            ty = arg.split(":", 1)[1].strip().split(" ")[0] if ":" in arg else arg
            m = re.fullmatch(r"memref<((?:[?\d]+x)*)(\w+)>", ty)
            if m:
                sig.args.append(MemRefArg(_parse_dims(m.group(1)), m.group(2)))
            else:
                sig.args.append(ScalarArg(ty))
        body = lowered_text[match.end():matches[k + 1].start() if k + 1 < len(matches) else None]
        casts = {}
        for cast in _CAST_RE.finditer(body):
            casts.setdefault(cast.group(1), set()).add(_parse_dims(cast.group(2)))
        for arg_name, shapes in casts.items():
            arg = sig.args[names.index(arg_name)] if arg_name in names else None
            # Several shapes: the code picks one at run time (a distributed
            # program's blocks of different sizes).
            if isinstance(arg, MemRefArg) and len(shapes) == 1:
                known = next(iter(shapes))
                if len(known) == len(arg.shape):
                    arg.shape = tuple(a if a is not None else c
                                      for a, c in zip(arg.shape, known))
        sig.decomposition = Decomposition.parse(
            lowered_text[match.start():],
            {i: a.dtype for i, a in enumerate(sig.args) if isinstance(a, MemRefArg)})
        sigs[name] = sig
    return sigs


@dataclass
class CompiledModule:
    library: str
    signatures: dict
    openmp: bool
    target: str = "cpu"        # "cpu" or "cuda"
    emulate_gpu: bool = False  # CPU target: the GPU mapping, run on the CPU
    runtime: str = None        # cuda: the libStencilCudaRuntime.so it links
    # Emulation instrumented for the race check / the profile: the
    # libStencilEmulation.so it links (find_emulation_runtime).
    race_check: bool = False
    profile: bool = False
    emulation_runtime: str = None
    # A distributed program: the steps per halo exchange it was compiled for.
    halo_depth: int = None


def default_cpu():
    """The CPU that code is compiled for: $STENCIL_CPU, else the host."""
    return os.environ.get("STENCIL_CPU") or "native"


TARGETS = ("cpu", "cuda")
# The options of --convert-to-gpu that the CPU emulation also takes (the
# same mapping); the others only concern the real GPU code.
EMULATION_OPTIONS = ("block-sizes", "threads", "promote", "shared-budget", "chip",
                     "thread-points", "unroll", "unroll-budget", "inter-tile-reuse",
                     "align-loads", "tile-grid")


def _split_options(options):
    """"a=1 b=2,3" -> [("a", "1"), ("b", "2,3")] (pipeline option syntax)."""
    pairs = []
    for item in (options or "").split():
        key, _, value = item.partition("=")
        pairs.append((key, value))
    return pairs


def _check_target(target, emulate_gpu, openmp, gpu_options):
    if target not in TARGETS:
        raise CompileError(f"unknown target '{target}': use one of {', '.join(TARGETS)}")
    if target == "cuda" and emulate_gpu:
        raise CompileError("emulate_gpu runs the GPU code on the CPU: use it with "
                           "target='cpu', or target='cuda' for the GPU")
    if target == "cuda" and openmp:
        raise CompileError("openmp is for CPU code: with target='cuda' the kernels run on "
                           "the GPU (emulate_gpu=True with openmp=True runs the GPU code's "
                           "blocks in parallel on the CPU)")
    if gpu_options and target == "cpu" and not emulate_gpu:
        raise CompileError("gpu_options apply to target='cuda' or emulate_gpu=True")
    if emulate_gpu:
        bad = [k for k, _ in _split_options(gpu_options) if k not in EMULATION_OPTIONS]
        if bad:
            raise CompileError(f"the GPU emulation takes only the options "
                               f"{', '.join(EMULATION_OPTIONS)} of convert-to-gpu, "
                               f"not {', '.join(bad)}")


def compile_file(path, openmp=False, workdir=None, extra_passes=(), extra_sources=(),
                 cpu=None, target="cpu", emulate_gpu=False, gpu_options="", distribute=None,
                 halo_depth=1, overlap=True, ranks=None, **checks):
    """Compile the stencil program in `path` to a shared library.

    Returns a CompiledModule with the library path and the lowered signature
    of every function. `extra_passes` run first (for example
    "stencil-inlining", "hex-tile=h=3"); `extra_sources` are C files linked
    into the library (for example the definitions of timer functions a
    frontend calls); `cpu` is the LLVM CPU to optimize (host) code for
    (default: default_cpu()).

    `target="cuda"` builds GPU kernels and host code for libStencilCudaRuntime
    (`gpu_options`: options of --convert-to-gpu, as "chip=sm_80 format=isa").
    `emulate_gpu=True` (CPU target) runs the GPU mapping's kernels on the CPU
    (`gpu_options`: block-sizes/threads of the mapping; `openmp`: the blocks
    in parallel).

    With emulate_gpu, `race_check=True` reports races between the threads
    of a block (the call raises runtime.RaceError), `reverse_threads=True`
    runs the threads of each block in reverse order, `profile=True` counts
    the memory traffic of each kernel (StencilLibrary.profile(), see
    stencil.profile); the first and the last link libStencilEmulation.so
    and run the blocks one after the other.

    `distribute="2x2"` decomposes the program over that grid of MPI ranks
    (--stencil-distribute, before `extra_passes`); the library links
    libStencilMpi.so and is called through stencil.distributed.
    `distribute="auto"` leaves the grid to the run: one decomposition per
    rank count of `ranks` (default 1 to 8), the one of the grid
    MPI_Dims_create chooses picked when the program is called.
    `halo_depth=h` exchanges halos deep enough for h steps every h steps;
    `halo_depth="auto"` takes the h of stencil.distributed.choose_depth (a
    model of message latency against redundant work, with its default
    network; the result's `halo_depth` says which)
    `overlap=False` completes each exchange before the step computes
    (by default the points that need no received halo are computed while
    the messages are in flight). With halo_depth > 1 and a time tiling
    among `extra_passes` (hex-tile, split-tile), the steps between two
    exchanges are tiled inside each rank (block-loops=true).
    """
    extra_passes = pass_list(extra_passes)
    _check_target(target, emulate_gpu, openmp, gpu_options)
    if ranks and distribute != "auto":
        raise ValueError("ranks= goes with distribute='auto' (a fixed grid has its rank count)")
    if distribute == "auto" and halo_depth == "auto":
        raise ValueError("halo_depth='auto' weighs the messages of one grid: give "
                         "distribute a fixed grid, or halo_depth a number")
    if distribute and halo_depth == "auto":
        from .distributed import choose_depth
        halo_depth = choose_depth(path, distribute)[0]
    if distribute:
        options = f"grid={distribute}" + (f" depth={halo_depth}" if halo_depth != 1 else "")
        options += "" if overlap else " overlap=false"
        options += f" ranks={','.join(map(str, ranks))}" if ranks else ""
        # Time tiling inside a rank tiles the steps between deep exchanges.
        if halo_depth > 1 and any(p.split("=")[0] in TIME_TILINGS for p in extra_passes):
            options += " block-loops=true"
        extra_passes = (f"stencil-distribute={options}", *extra_passes)
    _emulation_checks(emulate_gpu, checks)
    if target == "cpu" and not emulate_gpu:
        compiled = compile_loops(lower_file(path, extra_passes), Path(path).stem,
                                 openmp=openmp, workdir=workdir,
                                 extra_sources=extra_sources, cpu=cpu)
    else:
        instrumented = checks.get("race_check") or checks.get("profile")
        compiled = compile_module(prepare_file(path, extra_passes, debuginfo=instrumented),
                                  Path(path).stem, openmp=openmp,
                                  workdir=workdir, extra_sources=extra_sources, cpu=cpu,
                                  target=target, emulate_gpu=emulate_gpu,
                                  gpu_options=gpu_options, **checks)
    compiled.halo_depth = halo_depth if distribute else None
    return compiled


def pass_list(extra_passes):
    """`extra_passes` as a tuple of pass names with options ("hex-tile=h=7");
    one string is one pass."""
    if isinstance(extra_passes, str):
        return (extra_passes,)
    passes = tuple(extra_passes)
    for p in passes:
        if not isinstance(p, str) or not re.fullmatch(r"[a-z][\w.-]*(=.*)?", p, re.S):
            raise ValueError(f"extra_passes: {p!r} is not a pass name with options "
                             "(e.g. 'hex-tile=h=7 widths=32,512', without the leading --)")
    return passes


def prepare_file(path, extra_passes=(), debuginfo=False):
    """The program in `path` after `extra_passes` (still stencil and poly ops:
    what the GPU mapping starts from); with `debuginfo`, with the locations
    in `path` (which the race check and the profile report)."""
    pre = [f"--{p}" for p in pass_list(extra_passes)]
    if debuginfo:
        pre.append("--mlir-print-debuginfo")
    return _stencil_opt([*pre, str(path)])


def lower_file(path, extra_passes=()):
    """The loop form of the program in `path` (after `extra_passes`)."""
    pre = [f"--{p}" for p in pass_list(extra_passes)]
    return _stencil_opt([*pre, "--stencil-shape-inference",
                 "--convert-stencil-to-loops", "--mlir-print-local-scope", str(path)])


def signatures_of(module):
    """The lowered signatures of a module of stencil (and poly) ops."""
    loops = _stencil_opt(["--stencil-shape-inference", "--convert-stencil-to-loops",
                  "--mlir-print-local-scope"], stdin=module)
    return _parse_signatures(loops)


def gpu_lowering(module, target="cuda", emulate_gpu=False, openmp=False, gpu_options="",
                 **checks):
    """The LLVM dialect of a prepared module (prepare_file) through the GPU
    mapping: for the GPU (`--convert-to-gpu`) or emulated on the CPU
    (`checks`: race_check, reverse_threads, profile)."""
    _check_target(target, emulate_gpu, openmp, gpu_options)
    check_options = _emulation_checks(emulate_gpu, checks)
    if target == "cuda":
        pipeline = "--convert-to-gpu" + (f"={gpu_options}" if gpu_options else "")
    else:
        options = ["emulate-gpu=true"] + (["openmp=true"] if openmp else [])
        options += [f"{k}={v}" for k, v in _split_options(gpu_options)]
        options += check_options
        pipeline = "--stencil-cpu-pipeline=" + " ".join(options)
    return _stencil_opt([pipeline], stdin=module)


def compile_module(module, stem, openmp=False, workdir=None, extra_sources=(), cpu=None,
                   target="cpu", emulate_gpu=False, gpu_options="", **checks):
    """Compile a prepared module (stencil or poly ops, prepare_file) through
    the GPU mapping: for CUDA, or emulated on the CPU (`checks`: race_check,
    reverse_threads, profile, as for compile_file)."""
    if target == "cpu" and not emulate_gpu:
        return compile_loops(_stencil_opt(["--stencil-shape-inference",
                                   "--convert-stencil-to-loops"], stdin=module),
                             stem, openmp=openmp, workdir=workdir,
                             extra_sources=extra_sources, cpu=cpu)
    signatures = signatures_of(module)
    llvm_dialect = gpu_lowering(module, target, emulate_gpu, openmp, gpu_options, **checks)
    compiled = compile_llvm_dialect(llvm_dialect, stem, signatures, target=target,
                                    openmp=openmp, workdir=workdir,
                                    extra_sources=extra_sources, cpu=cpu,
                                    emulate_gpu=emulate_gpu,
                                    emulation_runtime=checks.get("race_check")
                                    or checks.get("profile"))
    compiled.race_check = bool(checks.get("race_check"))
    compiled.profile = bool(checks.get("profile"))
    return compiled


def compile_loops(loops, stem, openmp=False, workdir=None, extra_sources=(), cpu=None):
    """Compile a module in the loop form (lower_file) to a shared library."""
    signatures = _parse_signatures(loops)
    pipeline = "--stencil-cpu-pipeline=openmp=true" if openmp else "--stencil-cpu-pipeline"
    # The loop form is already shape-inferred and lowered: the pipeline's
    # stencil passes find nothing left and the rest goes down to LLVM.
    llvm_dialect = _stencil_opt([pipeline], stdin=loops)
    return compile_llvm_dialect(llvm_dialect, stem, signatures, openmp=openmp, workdir=workdir,
                                extra_sources=extra_sources, cpu=cpu)


def compile_llvm_dialect(llvm_dialect, stem, signatures, target="cpu", openmp=False,
                         workdir=None, extra_sources=(), cpu=None, emulate_gpu=False,
                         emulation_runtime=False):
    """The common end of every path: a module in the LLVM dialect (with a
    gpu.binary of kernels for target="cuda") to a shared library. For CUDA
    the library links libStencilCudaRuntime.so (find_cuda_runtime) with a run
    path to its directory; `signatures` are those of the C entry points.
    `emulation_runtime`: the code calls libStencilEmulation.so (an
    instrumented emulation), linked the same way."""
    cpu = cpu or default_cpu()
    check_cpu(cpu)
    runtime = find_cuda_runtime() if target == "cuda" else None
    emulation = find_emulation_runtime() if emulation_runtime else None
    mpi = find_mpi_runtime() if "@stencil_mpi_" in llvm_dialect else None
    workdir = Path(workdir or tempfile.mkdtemp(prefix="stencil-"))
    workdir.mkdir(parents=True, exist_ok=True)
    llvm_ir = _run([str(LLVM_BIN / "mlir-translate"), "--mlir-to-llvmir"], stdin=llvm_dialect)
    optimized = _run([str(LLVM_BIN / "opt"), "-O3", f"-mtriple={host_triple()}", f"-mcpu={cpu}", "-S"],
                     stdin=llvm_ir)
    obj = workdir / f"{stem}.o"
    _run([str(LLVM_BIN / "llc"), "-O3", f"-mcpu={cpu}", "-filetype=obj",
          "-relocation-model=pic", "-o", str(obj)], stdin=optimized)
    lib = workdir / f"lib{stem}.so"
    link = ["cc", "-shared", "-fPIC", "-O2", "-o", str(lib), str(obj), *map(str, extra_sources)]
    if openmp:
        link += [f"-L{LLVM_LIB}", f"-Wl,-rpath,{LLVM_LIB}", "-lomp"]
    if runtime:
        # libcuda.so.1 is the runtime's dependency, found at load time.
        link += [runtime, f"-Wl,-rpath,{os.path.dirname(runtime)}"]
    if emulation:
        link += [emulation, f"-Wl,-rpath,{os.path.dirname(emulation)}"]
    if mpi:
        link += [mpi, f"-Wl,-rpath,{os.path.dirname(mpi)}"]
    _run(link)
    return CompiledModule(str(lib), signatures, openmp, target=target, emulate_gpu=emulate_gpu,
                          runtime=runtime, emulation_runtime=emulation)
