"""stencil: compile and run programs of the MLIR `stencil` dialect.

Modules: `compiler` (build a shared library with stencil-opt and LLVM),
`runtime` (call it on numpy arrays), `benchmarks` (generate the benchmark
programs of examples/ and their independent numpy references).
"""
