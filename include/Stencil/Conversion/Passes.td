//===- Passes.td - lowerings of the stencil dialect --------*- tablegen -*-===//

#ifndef STENCIL_CONVERSION_PASSES_TD
#define STENCIL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertStencilToLoops : Pass<"convert-stencil-to-loops", "::mlir::ModuleOp"> {
  let summary = "Lower stencil programs to memref and scf loops (the reference lowering)";
  let description = [{
    Every `!stencil.field` becomes a `memref` of the field's full extent
    whose element 0 is the field's lower bound (a `?` field stays dynamic);
    function names are kept. Each apply becomes a loop nest over its bounds
    (`scf.parallel`, or `scf.for` with `parallel=false`) that writes straight
    into the stored field when that is safe and into a buffer otherwise.
    Time loops (`scf.for` over fields in `iter_args`) are converted with
    their bodies. Requires shape-inferred input.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect",
    // Scops mapped by poly-to-gpu lower to gpu.launch.
    "::mlir::gpu::GPUDialect"
  ];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Emit scf.parallel for the points of an apply (else scf.for)">,
    Option<"parallelAllDims", "parallel-all-dims", "bool", "false",
           "Make every dimension of an apply's points parallel (one "
           "scf.parallel over all of them, as the GPU mapping needs); by "
           "default only the outermost is, and the inner loops stay scf.for "
           "for the CPU's vectorizer">,
    Option<"emitCInterface", "emit-c-interface", "bool", "true",
           "Mark converted functions with llvm.emit_c_interface so that C "
           "callers get a `_mlir_ciface_<name>` entry point">
  ];
}

def StencilParallelToGpu : Pass<"stencil-parallel-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Map the parallel point loops of the reference lowering to "
                "GPU kernels (gpu.launch)";
  let description = [{
    Every outermost `scf.parallel` outside a `gpu.launch` (one per apply and
    time step after `convert-stencil-to-loops`) becomes one `gpu.launch`
    with one thread per iteration: the innermost loop dimension maps to `x`
    (coalesced accesses), the next ones to `y` and `z`, further outer
    dimensions become a loop in the kernel; a guard drops the threads past
    the loop bounds (none where the block size divides a static extent).
    The grid is computed on the host; where it may exceed CUDA's limits
    (dynamic bounds, or more than 2^31-1 blocks along x, 65535 along y or z)
    it is clamped and the blocks loop over the rest. Existing launches are
    left as they are. In functions that launch kernels, host
    `memref.alloc`/`memref.dealloc` become `gpu.alloc`/`gpu.dealloc`, since
    the kernels read and write device memory; host code that still reads or
    writes memref elements, and `memref.alloca` buffers used by a kernel,
    are errors, as are parallel loops with reductions. The module is marked
    `gpu.container_module`.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"
  ];
  let options = [
    ListOption<"blockSizes", "block-sizes", "int64_t",
               "Threads per block along x (innermost dimension), y, z; "
               "missing entries are 1, entries past the mapped dimensions "
               "are unused; default 256 (1D), 32,8 (2D), 32,4,4 (3D)">
  ];
}

def StencilGpuEmulate : Pass<"stencil-gpu-emulate", "::mlir::ModuleOp"> {
  let summary = "Run GPU-mapped code on the CPU: gpu.launch to loops";
  let description = [{
    The CPU executor of the mapped form. Each `gpu.launch` becomes a loop
    nest over its blocks (`scf.parallel` with `parallel-blocks`, else
    `scf.for`); inside a block, the threads run one after the other between
    barriers: in every straight-line stretch of the body between
    `gpu.barrier` ops, the ops that differ between threads (they depend on a
    thread id, touch memory or contain such ops) move into loops over the
    thread ids, and control flow that contains a barrier is kept and entered
    once per block, which requires its bounds and conditions to be the same
    for all threads (else: an error). A per-thread value used after a
    barrier is computed again when it is a pure computation of thread ids
    and uniform values (an index), and is an error otherwise. This gives the
    GPU's results for race-free kernels. Block/thread ids and dimensions
    become the loop indices and the launch sizes. Memory stays where it is:
    `gpu.alloc`/`gpu.dealloc` become `memref.alloc`/`memref.dealloc`.
    Workgroup memory attributions (static shapes) become one buffer per
    block in the default memory space (an alloca at the start of the
    function for sequential blocks, a heap buffer per block with
    `parallel-blocks`). Private attributions, dynamic shared memory,
    clusters or async tokens are errors.

    `race-check` and `profile` instrument the kernels with calls into
    libStencilEmulation (Stencil/Runtime/EmulationRuntime.h), which the
    program must then link: every global and shared `memref.load`/`store`
    of the threads, the barriers, the blocks and the launches. The race
    check reports two different threads of a block touching one element
    between two barriers, one of them writing; the profile counts requests
    per warp, sectors, bank conflicts, distinct bytes, barriers and updates
    (stores marked `stencil.update`) per launch site. Both run the blocks
    one after the other. `reverse-threads` runs the threads of each block in
    reverse order (race-free kernels give the same results).
  }];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect"
  ];
  let options = [
    Option<"parallelBlocks", "parallel-blocks", "bool", "false",
           "Run the blocks of a launch as scf.parallel (OpenMP)">,
    Option<"raceCheck", "race-check", "bool", "false",
           "Report races between the threads of a block at run time "
           "(calls libStencilEmulation; blocks run sequentially)">,
    Option<"reverseThreads", "reverse-threads", "bool", "false",
           "Run the threads of each block in reverse order">,
    Option<"profile", "profile", "bool", "false",
           "Count memory requests, sectors, bank conflicts, bytes, barriers "
           "and updates per kernel at run time (calls libStencilEmulation; "
           "blocks run sequentially)">
  ];
}

def StencilGpuExactMath : Pass<"stencil-gpu-exact-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Keep kernel arithmetic bit-exact with the CPU reference";
  let description = [{
    Runs on outlined kernels before `convert-gpu-to-nvvm`. `math.sqrt`
    becomes `llvm.intr.sqrt`, which NVPTX compiles to the correctly rounded
    `sqrt.rn` (libdevice's `__nv_sqrtf`, the default lowering, is
    approximate unless precise square roots are requested). Floating-point
    arithmetic without fastmath flags stays uncontracted: NVPTX then emits
    `mul.rn`/`add.rn`, which ptxas does not fuse either. With `fma`, the
    `contract` flag is added to `arith.mulf`/`addf`/`subf` so that
    multiply-adds become FMA instructions (faster, not bit-exact).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"contract", "fma", "bool", "false",
           "Allow contraction into FMA (results may differ from the CPU)">
  ];
}

#endif // STENCIL_CONVERSION_PASSES_TD
