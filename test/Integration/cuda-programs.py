# REQUIRES: cuda-runtime
# RUN: %python %s %t
#
# Stencil programs compiled for CUDA from the command line, checked without a
# GPU: `compile --gpu` (untiled, hex-tiled, PTX) writes a library that
# exports _mlir_ciface_jacobi2d and needs nothing but libStencilCudaRuntime
# (whose run path it carries) and the C library; `run --gpu` with the
# toolkit's stub as the driver fails cleanly naming cuInit and
# CUDA_ERROR_STUB_LIBRARY, without a driver says there is none, and with the
# fake driver goes through the whole call (launches checked by the fake),
# with dynamic shared memory past 48 KiB opted into, and the host waits for
# the device once per time loop; invalid option combinations are refused.
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "Inputs"))
from cuda_testing import (driver_env, fake_driver, stub_driver, symbols,  # noqa: E402
                          system_driver)

SRC = Path(os.environ.get("STENCIL_SRC", Path(__file__).resolve().parents[2]))
JACOBI = SRC / "examples" / "jacobi2d.mlir"


def stencil(*args, env=None):
    return subprocess.run([sys.executable, "-m", "stencil", *map(str, args)], env=env,
                          capture_output=True, text=True)


# Compiles the program for CUDA with the given --gpu-options (and passes),
# runs it once on numpy arrays, prints the fake driver's counts of stream
# waits, event waits and launches.
WAIT_COUNTER = """
import ctypes, sys
import numpy as np
from stencil.compiler import compile_file
from stencil.runtime import StencilLibrary
path, options, workdir, passes = sys.argv[1], sys.argv[2], sys.argv[3], tuple(sys.argv[4:])
lib = StencilLibrary(compile_file(path, workdir=workdir, extra_passes=passes, target="cuda",
                                  gpu_options=options))
fake = ctypes.CDLL("libcuda.so.1")
before = [fake.fakeCudaCalls(n) for n in (b"cuStreamSynchronize", b"cuEventSynchronize")]
launches = fake.fakeCudaCalls(b"cuLaunchKernelEx") + fake.fakeCudaCalls(b"cuLaunchKernel")
lib.call("jacobi2d", np.zeros((66, 66)), np.zeros((66, 66)))
after = [fake.fakeCudaCalls(n) for n in (b"cuStreamSynchronize", b"cuEventSynchronize")]
launches = fake.fakeCudaCalls(b"cuLaunchKernelEx") + fake.fakeCudaCalls(b"cuLaunchKernel") - launches
print(after[0] - before[0], after[1] - before[1], launches)
"""


def check(cond, what, proc=None):
    if not cond:
        extra = f"\n{proc.stdout}\n{proc.stderr}" if proc is not None else ""
        sys.exit(f"FAILED: {what}{extra}")
    print(f"ok: {what}")


def main(work):
    work = Path(work)
    subprocess.run(["rm", "-rf", str(work)], check=True)
    work.mkdir(parents=True)
    fake = fake_driver(work / "fake")
    runtime = None
    variants = {"plain": [], "hex": ["--hex-tile"],
                "hex-ptx": ["--hex-tile", "--gpu-options=format=isa threads=16,4"],
                "ptx-blocks": ["--gpu-options=format=isa block-sizes=16,8"]}
    for name, options in variants.items():
        lib = work / f"lib{name}.so"
        proc = stencil("compile", JACOBI, "--gpu", *options, "-o", lib)
        check(proc.returncode == 0 and "_mlir_ciface_jacobi2d" in proc.stdout
              and "device pointers" in proc.stdout, f"{name}: compile --gpu", proc)
        runtime = proc.stdout.split(" it links ")[1].split(" ")[0]
        check(Path(runtime).name == "libStencilCudaRuntime.so", f"{name}: links {runtime}")
        check("_mlir_ciface_jacobi2d" in symbols(lib, True), f"{name}: exports the entry point")
        rt = symbols(runtime, True)
        mgpu = {s for s in symbols(lib, False) if s.startswith("mgpu")}
        check({"mgpuLaunchKernel", "mgpuModuleGetFunction"} <= mgpu <= rt,
              f"{name}: its {len(mgpu)} mgpu functions are the runtime's")
        dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True).stdout
        check("libStencilCudaRuntime.so" in dyn and os.path.dirname(runtime) in dyn,
              f"{name}: needs libStencilCudaRuntime.so, run path to it")
        # Every undefined symbol resolves (the fake driver stands for libcuda).
        ldd = subprocess.run(["ldd", "-r", lib], env=driver_env(fake), capture_output=True,
                             text=True)
        check(ldd.returncode == 0 and "undefined symbol" not in ldd.stdout + ldd.stderr
              and "not found" not in ldd.stdout, f"{name}: ldd -r resolves every symbol", ldd)

    # Running: with the stub, without a driver, with the fake driver.
    stub = stub_driver(work / "stub")
    if stub:
        proc = stencil("run", JACOBI, "--gpu", env=driver_env(stub))
        check(proc.returncode == 1 and "cuInit" in proc.stderr
              and "CUDA_ERROR_STUB_LIBRARY" in proc.stderr and "Traceback" not in proc.stderr,
              "run --gpu with the stub: a clean error naming cuInit", proc)
    if not system_driver():
        proc = stencil("run", JACOBI, "--gpu", env=driver_env(None))
        check(proc.returncode == 1 and "no CUDA driver on this machine" in proc.stderr,
              "run --gpu without a driver: says so", proc)
    for options in ([], ["--hex-tile"]):
        proc = stencil("run", JACOBI, "--gpu", *options, env=driver_env(fake))
        check(proc.returncode == 0 and "on CUDA device 0 (Fake GPU 0, sm_86)" in proc.stdout,
              f"run --gpu {' '.join(options)} with the fake driver", proc)
    proc = stencil("run", JACOBI, "--gpu", env=driver_env(fake, FAKE_CUDA_FAIL="cuLaunchKernel=719"))
    check(proc.returncode == 1 and "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED"
          in proc.stderr and "Traceback" not in proc.stderr, "a failing launch is reported", proc)

    # Shared memory past 48 KiB: the launch passes the dynamic size, and the
    # runtime opts the kernel in (cuFuncSetAttribute) before launching it.
    wide = work / "wide.mlir"
    wide.write_text(subprocess.run(
        [sys.executable, "-c", "from stencil import benchmarks as b; "
         "print(b.BENCHMARKS['jacobi2d'].mlir((64, 1024), 4, 'f32'))"],
        capture_output=True, text=True, check=True).stdout)
    wide_args = ["--gpu", "--hex-tile=h=3 widths=1,768", "--gpu-options=shared-budget=100000"]
    proc = stencil("run", wide, *wide_args, env=driver_env(fake))
    check(proc.returncode == 0, "run --gpu with 61840 bytes of shared memory per block", proc)
    proc = stencil("run", wide, *wide_args, env=driver_env(fake, FAKE_CUDA_FAIL="cuFuncSetAttribute=1"))
    check(proc.returncode == 1 and "cuFuncSetAttribute" in proc.stderr
          and "61840 bytes of dynamic shared memory" in proc.stderr,
          "the runtime opts the kernel into 61840 bytes of dynamic shared memory", proc)

    # Host waits: one for the whole time loop (stencil-gpu-async-loops), one
    # per step with async-loops=0; never an event wait on a carried stream.
    waits = {}
    for options in ("", "async-loops=0"):
        for tiling in ((), ("hex-tile",)):
            proc = subprocess.run([sys.executable, "-c", WAIT_COUNTER, str(JACOBI), options,
                                   str(work / f"waits-{options or 'default'}-{len(tiling)}"),
                                   *tiling], env=driver_env(fake), capture_output=True, text=True)
            check(proc.returncode == 0, f"jacobi2d {tiling} {options} under the fake driver", proc)
            waits[options, tiling] = dict(zip(("stream", "event", "launches"),
                                              map(int, proc.stdout.split())))
    for tiling in ((), ("hex-tile",)):
        one, each = waits["", tiling], waits["async-loops=0", tiling]
        check(one["event"] == 0 and each["event"] == 0 and one["launches"] == each["launches"],
              f"{tiling}: the same launches, no event waits ({one}, {each})")
        # The example has 11 steps (untiled: 11 loop iterations; hex-tiled: 2).
        iterations = 11 if not tiling else 2
        check(each["stream"] - one["stream"] == iterations - 1,
              f"{tiling}: one stream wait per loop instead of one per iteration "
              f"({one['stream']} vs {each['stream']})")

    # Option combinations.
    for args, message in (
            (["--gpu", "--openmp"], "--openmp is for CPU code"),
            (["--gpu", "--emulate-gpu"], "choose one"),
            (["--gpu-options=format=isa"], "--gpu-options needs --gpu or --emulate-gpu"),
            (["--emulate-gpu", "--gpu-options=format=isa"],
             "the GPU emulation takes only the options block-sizes, threads")):
        proc = stencil("run", JACOBI, *args)
        check(proc.returncode == 1 and message in proc.stderr, f"refused: {' '.join(args)}", proc)
    print("PASS")


if __name__ == "__main__":
    main(sys.argv[1])
