"""Helpers of the CUDA tests that run without a GPU: where the toolkit is, the
toolkit's driver stub and the fake driver (fake-cuda-driver.c) as the
libcuda.so.1 of a child process (LD_LIBRARY_PATH=<dir>)."""
import ctypes
import os
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cuda_root():
    for env in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        if os.environ.get(env) and os.path.isdir(os.environ[env]):
            return Path(os.environ[env])
    ptxas = shutil.which("ptxas")
    if ptxas:
        return Path(ptxas).resolve().parents[1]
    return Path("/usr/local/cuda")


def system_driver():
    """Whether this machine's library path has a libcuda.so.1."""
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def stub_driver(directory):
    """A directory whose libcuda.so.1 is the toolkit's stub (None: no stub)."""
    stub = cuda_root() / "lib64" / "stubs" / "libcuda.so"
    if not stub.exists():
        return None
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    link = directory / "libcuda.so.1"
    if not link.exists():
        os.symlink(stub, link)
    return directory


def fake_driver(directory):
    """A directory whose libcuda.so.1 is the fake driver."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", f"-I{cuda_root() / 'include'}",
                    str(HERE / "fake-cuda-driver.c"), "-Wl,-soname,libcuda.so.1",
                    "-o", str(directory / "libcuda.so.1")], check=True)
    return directory


def driver_env(directory, **extra):
    """The environment of a child process whose libcuda.so.1 comes from
    `directory` (None: no driver), quiet runtime errors unless asked."""
    env = dict(os.environ)
    env.pop("FAKE_CUDA_FAIL", None)
    env["LD_LIBRARY_PATH"] = str(directory) if directory else ""
    env.setdefault("STENCIL_CUDA_QUIET", "1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def symbols(path, defined):
    """Dynamic symbols of a shared library (defined or undefined ones)."""
    out = subprocess.run(["nm", "-D", "--defined-only" if defined else "--undefined-only",
                          str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}
