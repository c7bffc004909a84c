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

Every function whose arguments are fields gets a C entry point
``_mlir_ciface_<name>`` taking memref descriptors (see runtime.py).
"""

import os
import re
import shutil
import subprocess
import tempfile
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


def _run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr}")
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


_FUNC_RE = re.compile(r"func\.func\s+@([\w$.]+)\((.*?)\)\s*(->|attributes|\{)", re.S)


def _parse_signatures(lowered_text):
    """Signatures of the functions of a module after convert-stencil-to-loops."""
    sigs = {}
    for name, args, after in _FUNC_RE.findall(lowered_text):
        sig = Signature(name, returns=after == "->")
        for arg in filter(None, (a.strip() for a in args.split(","))):
            ty = arg.split(":", 1)[1].strip().split(" ")[0] if ":" in arg else arg
            m = re.fullmatch(r"memref<((?:[?\d]+x)*)(\w+)>", ty)
            if m:
                dims = [d for d in m.group(1).split("x") if d]
                sig.args.append(MemRefArg(tuple(None if d == "?" else int(d) for d in dims),
                                          m.group(2)))
            else:
                sig.args.append(ScalarArg(ty))
        sigs[name] = sig
    return sigs


@dataclass
class CompiledModule:
    library: str
    signatures: dict
    openmp: bool


def default_cpu():
    """The CPU that code is compiled for: $STENCIL_CPU, else the host."""
    return os.environ.get("STENCIL_CPU") or "native"


def compile_file(path, openmp=False, workdir=None, extra_passes=(), extra_sources=(),
                 cpu=None):
    """Compile the stencil program in `path` to a shared library.

    Returns a CompiledModule with the library path and the lowered signature
    of every function. `extra_passes` run before the CPU pipeline (for example
    "stencil-inlining"); `extra_sources` are C files linked into the library
    (for example the definitions of timer functions a frontend calls); `cpu`
    is the LLVM CPU name to optimize for (default: default_cpu()).
    """
    return compile_loops(lower_file(path, extra_passes), Path(path).stem, openmp=openmp,
                         workdir=workdir, extra_sources=extra_sources, cpu=cpu)


def lower_file(path, extra_passes=()):
    """The loop form of the program in `path` (after `extra_passes`)."""
    pre = [f"--{p}" for p in extra_passes]
    return _run([find_stencil_opt(), *pre, "--stencil-shape-inference",
                 "--convert-stencil-to-loops", "--mlir-print-local-scope", str(path)])


def compile_loops(loops, stem, openmp=False, workdir=None, extra_sources=(), cpu=None):
    """Compile a module in the loop form (lower_file) to a shared library."""
    cpu = cpu or default_cpu()
    check_cpu(cpu)
    opt = find_stencil_opt()
    workdir = Path(workdir or tempfile.mkdtemp(prefix="stencil-"))
    workdir.mkdir(parents=True, exist_ok=True)
    signatures = _parse_signatures(loops)
    pipeline = "--stencil-cpu-pipeline=openmp=true" if openmp else "--stencil-cpu-pipeline"
    # The loop form is already shape-inferred and lowered: the pipeline's
    # stencil passes find nothing left and the rest goes down to LLVM.
    llvm_dialect = _run([opt, pipeline], stdin=loops)
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
    _run(link)
    return CompiledModule(str(lib), signatures, openmp)
