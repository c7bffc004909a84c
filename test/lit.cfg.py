# -*- Python -*-
import os
import shutil

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

# xDSL is an optional test peer: tests that cross-check with it need `xdsl-opt`.
if shutil.which("xdsl-opt"):
    config.available_features.add("xdsl")

# The CUDA toolkit's ptxas: cubins (else convert-to-gpu emits PTX text) and
# the static checks of the generated PTX.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ptxas = shutil.which("ptxas") or os.path.join(cuda_home, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

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
