# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "STENCIL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.stencil_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%stencil_src", config.stencil_src_root))
config.substitutions.append(("%stencil_obj", config.stencil_obj_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%shlibext", ".so"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Debian's numpy lives with the system interpreter (see docs/getting-started.md).
config.substitutions.append(("%python", "/usr/bin/python3"))
config.environment["PYTHONPATH"] = os.path.join(config.stencil_src_root, "python")
config.environment["STENCIL_BUILD_DIR"] = config.stencil_obj_root

# isl built with IMath by scripts/build-isl.sh (else the system's libisl).
if config.stencil_isl_prefix:
    config.available_features.add("isl-imath")

# xDSL is an optional test peer: tests that cross-check with it need `xdsl-opt`.
if shutil.which("xdsl-opt"):
    config.available_features.add("xdsl")

# Distributed programs: mpirun, mpi4py for Debian's python3 and the
# project's MPI runtime (built when CMake finds MPI).
if (shutil.which("mpirun")
        and os.path.exists(os.path.join(config.stencil_obj_root, "lib", "libStencilMpi.so"))
        and subprocess.run(["/usr/bin/python3", "-c", "import mpi4py"]).returncode == 0):
    config.available_features.add("mpi")
    # A run that hangs (a rank that died while the others wait) fails after
    # the timeout instead of holding the suite.
    mpirun = ["mpirun", "--oversubscribe", "--timeout", "600"] + (
        ["--allow-run-as-root"] if os.geteuid() == 0 else [])
    config.substitutions.append(("%mpirun", " ".join(mpirun)))

# The CUDA toolkit's ptxas: cubins (else convert-to-gpu emits PTX text) and
# the static checks of the generated PTX.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ptxas = shutil.which("ptxas") or os.path.join(cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# The CUDA runtime (lib/Runtime) is built when CMake found the CUDA toolkit:
# `cuda-runtime` tests run without a GPU (driver stub, fake driver).
# `cuda-gpu`: a CUDA driver with a device, to run kernels (probed in a child
# process, so that lit itself never initializes CUDA).
if os.path.exists(os.path.join(config.stencil_obj_root, "lib", "libStencilCudaRuntime.so")):
    config.available_features.add("cuda-runtime")
    import subprocess
    import sys
    probe = ("import ctypes\n"
             "c = ctypes.CDLL('libcuda.so.1'); n = ctypes.c_int(0)\n"
             "ok = c.cuInit(0) == 0 and c.cuDeviceGetCount(ctypes.byref(n)) == 0\n"
             "raise SystemExit(0 if ok and n.value > 0 else 1)\n")
    try:
        if subprocess.run([sys.executable, "-c", probe], capture_output=True,
                          timeout=60).returncode == 0:
            config.available_features.add("cuda-gpu")
    except (OSError, subprocess.TimeoutExpired):
        pass

# bench/gpu_bench.py builds its naive CUDA baseline with nvcc
# (test/Integration/gpu-bench-smoke.test).
if shutil.which("nvcc") or os.access(os.path.join(cuda_home, "bin", "nvcc"), os.X_OK):
    config.available_features.add("nvcc")

tool_dirs = [config.stencil_tools_dir, config.llvm_tools_dir]
tools = [
    "stencil-opt",
    "split-file",
    "not",
    ToolSubst("mlir-runner", unresolved="ignore"),
    ToolSubst("mlir-translate", unresolved="ignore"),
    ToolSubst("llc", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
