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

    A run of consecutive `dmp.swap`s is one round of MPI messages. Unless a
    swap is marked `dmp.blocking`, the round overlaps with computation: the
    messages are posted at the swaps; the applies that follow (up to the
    first op that could observe the reordering: another swap, a loop, a
    store that copies, a load of a field written since the swaps, a write
    of a field loaded since them) compute the box of their points that
    reads no received value, directly or through earlier applies, and
    writes no halo point; then the round is waited for and unpacked, and
    the applies compute the rest of their points, in slabs.
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
    becomes NVVM's correctly rounded `sqrt.rn` intrinsic
    (`llvm.nvvm.sqrt.rn.f`/`.d`; f16 and bf16 through f32, which is exact).
    libdevice's `__nv_sqrtf`, the default lowering, is approximate unless
    precise square roots are requested, and upstream's conversion refuses
    `llvm.intr.sqrt`. Floating-point
    arithmetic without fastmath flags stays uncontracted: NVPTX then emits
    `mul.rn`/`add.rn`, which ptxas does not fuse either. With `fma`, the
    `contract` flag is added to `arith.mulf`/`addf`/`subf` so that
    multiply-adds become FMA instructions (faster, not bit-exact).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"contract", "fma", "bool", "false",
           "Allow contraction into FMA (results may differ from the CPU)">
  ];
}

def StencilGpuAsyncLoops : Pass<"stencil-gpu-async-loops", "::mlir::func::FuncOp"> {
  let summary = "Carry the GPU's async token through host loops instead of "
                "waiting for the device at the end of every iteration";
  let description = [{
    Runs after `gpu-async-region`, which chains the GPU ops of a block on a
    token that starts with `gpu.wait async` and ends with a blocking
    `gpu.wait` before the block's terminator: in a time loop, the host
    waits for every step's kernels before it launches the next step's, and
    the device idles for a launch latency per step. For an `scf.for` whose
    body holds only such a chain (one `gpu.wait async` without
    dependencies, launches and other asynchronous GPU ops, side-effect-free
    host arithmetic, inner loops of the same kind) and ends with a blocking
    `gpu.wait`, the token becomes an iteration argument: the chain of one
    iteration starts where the previous one ended, and the host waits once,
    after the loop. Inner loops first, so a tiled program's nest of loops
    waits once. Loops with anything else in their body, or whose chain
    joins several tokens, are left as they are. Upstream's gpu-to-llvm
    lowers a carried token to the stream it stands for but the `gpu.wait`
    on it as if it were an event: `stencil-gpu-carried-streams` repairs
    that after the lowering.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect"];
}

def StencilGpuCarriedStreams : Pass<"stencil-gpu-carried-streams", "::mlir::ModuleOp"> {
  let summary = "Wait for a loop-carried async token as the stream it is";
  let description = [{
    Runs on host code that upstream's gpu-to-llvm lowered. It lowers an
    async token to the stream its chain runs on (`mgpuStreamCreate`'s
    result, which launches use), but a blocking `gpu.wait` on a token that
    is a block argument (a token carried by a loop, after
    stencil-gpu-async-loops and scf-to-cf) to `mgpuEventSynchronize` and
    `mgpuEventDestroy`, as if that argument were an event. Where every
    value a block argument can hold is a stream (a result of
    `mgpuStreamCreate`, through any number of branches), those calls become
    `mgpuStreamSynchronize` and `mgpuStreamDestroy`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StencilKernelIndexWidth : Pass<"stencil-kernel-index-width", "::mlir::ModuleOp"> {
  let summary = "Lower the GPU kernels with 32-bit index arithmetic when "
                "their sizes allow it";
  let description = [{
    Runs on a module with outlined kernels, before upstream's NVVM lowering.
    With 32-bit indices, the device modules are lowered to the LLVM dialect
    here, by a pipeline of their own (lower-affine, scf-to-cf,
    expand-strided-metadata, convert-gpu-to-nvvm with 32-bit indices); the
    kernel parameters that come from `index` (memref descriptor offsets,
    sizes and strides, index arguments) are widened back to i64 and
    truncated on entry, so the host, lowered with 64-bit indices, passes
    what the kernels expect; with 64-bit indices the device modules are
    lowered here as well. 32 bits are chosen (`index-bitwidth=0`) when
    every memref a kernel sees has a static layout whose largest element
    offset is below 2^31, every grid size is below 2^31 and every index
    argument of a launch lies in int32 by integer range analysis on the
    host. `index-bitwidth=32` with a static size that does not fit is an
    error at that size's location; with unknown sizes it is accepted.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "0",
           "0 (automatic: 32 when the sizes provably fit, else 64), 32 or "
           "64">
  ];
}

def StencilKernelLaunchBounds : Pass<"stencil-kernel-launch-bounds", "::mlir::ModuleOp"> {
  let summary = "Give each kernel with barriers or shared memory the "
                "resident blocks per SM it is compiled for (nvvm.minctasm)";
  let description = [{
    ptxas sizes a kernel's registers from its launch bounds. With only
    `.maxntid` (from the known block size) it guesses an occupancy and may
    spill to reach it; `nvvm.minctasm` (PTX `.minnctapersm`) states the
    occupancy the kernel is meant for: `blocks-per-sm` (two: one block's
    barriers then overlap with the other's work), capped by the block's
    threads and shared memory and by the grid's blocks per SM (from the
    device table, Stencil/Poly/GpuDevice.h; a chip outside it gets one).
    One block per SM lets ptxas use up to 255 registers (no spills where
    two would cap a kernel at 128, but a kernel may then take more than it
    needs). Kernels without a known block size, with the attribute
    already, or without barriers and shared memory (one point per thread,
    which ptxas keeps at full occupancy, as for nvcc's
    `__launch_bounds__(N)`) are left alone.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "GPU architecture whose device table entry caps the occupancy">,
    Option<"blocksPerSM", "blocks-per-sm", "unsigned", "2",
           "Resident blocks per SM the kernels with barriers or shared "
           "memory are compiled for">
  ];
}

def StencilKernelReadOnlyOperands : Pass<"stencil-kernel-read-only-operands", "::mlir::ModuleOp"> {
  let summary = "Load the kernels' read-only, unaliased operands through the "
                "read-only data cache (llvm.noalias + llvm.readonly)";
  let description = [{
    What nvcc gets from `const T *__restrict__`: a pointer the kernel only
    reads and no written pointer aliases is loaded with `ld.global.nc`.
    Runs after stencil-kernel-index-width, on device modules in the LLVM
    dialect and host code whose launches still pass memrefs. A memref
    operand of a kernel gets `llvm.noalias` and `llvm.readonly` on its
    aligned pointer when the kernel only loads through that pointer (and
    never uses the allocated one) and, at every launch of the kernel, the
    operand is provably a different buffer from every operand the kernel
    stores to. Two operands are different buffers when, looking through
    views, they are different arguments of the entry function (the fields
    of a stencil program do not overlap, as for `restrict`), different
    allocations, or iteration arguments of one loop whose yields permute
    them (ping-pong and three-buffer rotations) and whose initial values are
    different buffers. Anything else is left as it is.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StencilKernelAddressOffsets : Pass<"stencil-kernel-address-offsets", "::mlir::ModuleOp"> {
  let summary = "One base address per point and a constant offset per "
                "access in the kernels' address arithmetic";
  let description = [{
    Runs on device modules in the LLVM dialect (after
    stencil-kernel-index-width). The index of every `nuw` getelementptr of
    an element of 2 bytes or more, in a kernel that uses no shared memory,
    is written as its linear part over the
    values it combines, summed in one canonical order, plus a constant;
    a constant C > 0 becomes a second getelementptr. Accesses at constant
    offsets from one point then share one base address and NVPTX folds
    the offsets into the loads' immediates (`ld [%rd+imm]`), as nvcc does.
    Exact: the index x of such a GEP is non-negative, so x - C >= -C fits
    the index type and sign-extends to x - C.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StencilKernelDynamicShared : Pass<"stencil-kernel-dynamic-shared", "::mlir::ModuleOp"> {
  let summary = "Put the shared memory of kernels past the static limit into "
                "dynamic shared memory";
  let description = [{
    A kernel may declare at most 48 KiB of static shared memory; up to the
    device's opt-in maximum (227 KiB on sm_90, 163 KiB on sm_80) it must use
    dynamic shared memory, sized at the launch, and opt in at run time (the
    project's CUDA runtime does that for launches above 48 KiB). For every
    kernel whose workgroup attributions together exceed the chip's static
    limit, this pass replaces them by `memref.view`s at 16-byte aligned
    offsets into `gpu.dynamic_shared_memory` and gives every `gpu.launch_func`
    of the kernel that many bytes as `dynamic_shared_memory_size`. Kernels
    within the limit keep static shared memory. A kernel beyond the opt-in
    maximum of the chip is an error at its location. Runs after outlining
    and `stencil-kernel-launch-bounds` (which counts the attributions).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "GPU architecture whose device table gives the static and opt-in "
           "limits (a chip outside the table: 48 KiB static, no check of "
           "the opt-in maximum)">
  ];
}

def StencilGpuModuleToBinary : Pass<"stencil-gpu-module-to-binary", ""> {
  let summary = "Serialize the GPU modules to binaries, the modules in "
                "parallel";
  let description = [{
    Upstream's gpu-module-to-binary with the same options and result (a
    `gpu.binary` per `gpu.module`, one object per target), except that the
    modules are serialized concurrently on the context's threads: each
    outlined kernel has a module of its own, and LLVM's NVPTX code
    generation and ptxas take most of a kernel's compile time
    (docs/performance.md, "Compile time of the headline command"). The
    `--convert-to-gpu` pipeline runs it in place of upstream's pass.

    Spill relief (`relieve-spills`, on by default): for the NVVM target in
    the assembly and binary formats, when ptxas is found, the PTX of a
    module is assembled with `ptxas -v` (with the arguments upstream's
    target passes) and a kernel that spills registers while it is compiled
    for several resident blocks per SM (`.minnctapersm` above 1, from
    stencil-kernel-launch-bounds) is compiled for one block fewer, down to
    one, which gives it the registers that occupancy allows. The binary is
    the cubin of that ptxas run. A kernel that still spills at one block
    gets a remark.

    LLVM's loop strength reduction (`loop-strength-reduction`, off by
    default) is left out of the kernels' code generation: in the tiled
    kernels it turns the address arithmetic of every access into induction
    variables of the loops over a block's tiles, live across the whole
    tile, which took the split-tiled elastic 3D kernels to 255 registers
    and spills; without it those of orders 4 and 8 take 94-242 and spill
    nothing. LLVM's switch for it is
    process-wide (`-disable-lsr`): it is set for the duration of this pass
    and restored after.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "Path to the CUDA toolkit (empty: the target's default)">,
    ListOption<"linkFiles", "l", "std::string",
               "Extra files to link to">,
    Option<"cmdOptions", "opts", "std::string", "\"\"",
           "Command line options for the downstream compiler">,
    Option<"compilationTarget", "format", "std::string", "\"fatbin\"",
           "The object format: offloading (llvm), assembly (isa), binary "
           "(bin) or fatbinary (fatbin)">,
    Option<"elfSection", "section", "std::string", "\"\"",
           "ELF section where the binary is placed">,
    Option<"relieveSpills", "relieve-spills", "bool", "true",
           "Compile a kernel that ptxas finds spilling for fewer resident "
           "blocks per SM (.minnctapersm), down to one">,
    Option<"loopStrengthReduction", "loop-strength-reduction", "bool",
           "false",
           "Run LLVM's loop strength reduction in the kernels' code "
           "generation">
  ];
}

#endif // STENCIL_CONVERSION_PASSES_TD
