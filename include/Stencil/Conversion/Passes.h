//===- Passes.h - lowerings of the stencil dialect --------------*- C++ -*-===//

#ifndef STENCIL_CONVERSION_PASSES_H
#define STENCIL_CONVERSION_PASSES_H

#include "Stencil/IR/StencilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::stencil {

#define GEN_PASS_DECL
#include "Stencil/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Stencil/Conversion/Passes.h.inc"

/// Options of the pipeline that takes a stencil program to the LLVM dialect
/// for the CPU.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> openmp{*this, "openmp",
                      llvm::cl::desc("Run the points of each apply in "
                                     "parallel with OpenMP"),
                      llvm::cl::init(false)};
  Option<bool> emulateGpu{
      *this, "emulate-gpu",
      llvm::cl::desc("Lower through the GPU mapping (tiled scops with "
                     "poly-to-gpu, the rest with stencil-parallel-to-gpu) and "
                     "run the kernels on the CPU (stencil-gpu-emulate): the "
                     "CPU executor of the GPU code"),
      llvm::cl::init(false)};
  ListOption<int64_t> blockSizes{
      *this, "block-sizes",
      llvm::cl::desc("With emulate-gpu: stencil-parallel-to-gpu block sizes")};
  ListOption<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu threads per block")};
  Option<bool> raceCheck{
      *this, "race-check",
      llvm::cl::desc("With emulate-gpu: report races between the threads of "
                     "a block at run time (links libStencilEmulation)"),
      llvm::cl::init(false)};
  Option<bool> reverseThreads{
      *this, "reverse-threads",
      llvm::cl::desc("With emulate-gpu: run the threads of each block in "
                     "reverse order"),
      llvm::cl::init(false)};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("With emulate-gpu: count the memory traffic of each "
                     "kernel at run time (links libStencilEmulation)"),
      llvm::cl::init(false)};
  Option<std::string> promote{
      *this, "promote",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu shared-memory promotion "
                     "(none, copy, interleaved, auto)"),
      llvm::cl::init("auto")};
  Option<int64_t> sharedBudget{
      *this, "shared-budget",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu shared memory per block "
                     "in bytes"),
      llvm::cl::init(49152)};
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("With emulate-gpu: the GPU whose device table sizes the "
                     "re-tiled hexagons (poly-to-gpu chip), so that the "
                     "emulated kernels are the ones convert-to-gpu builds for "
                     "it"),
      llvm::cl::init("sm_90")};
  Option<std::string> threadPoints{
      *this, "thread-points",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu thread-points (cyclic, "
                     "blocked)"),
      llvm::cl::init("cyclic")};
  Option<bool> unroll{
      *this, "unroll",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu unroll (a thread's points "
                     "of a step and its copies of a promoted row)"),
      llvm::cl::init(true)};
  Option<int64_t> unrollBudget{
      *this, "unroll-budget",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu unroll-budget"),
      llvm::cl::init(1024)};
  Option<std::string> interTileReuse{
      *this, "inter-tile-reuse",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu inter-tile-reuse "
                     "(promotion step f: true, false or auto)"),
      llvm::cl::init("auto")};
  Option<bool> tileGrid{
      *this, "tile-grid",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu tile-grid (split-tiled "
                     "3D: the second tile dimension over the grid's y)"),
      llvm::cl::init(true)};
  Option<bool> alignLoads{
      *this, "align-loads",
      llvm::cl::desc("With emulate-gpu: poly-to-gpu align-loads (promotion "
                     "step d)"),
      llvm::cl::init(true)};
};

/// Options of `convert-to-gpu`, the pipeline from a stencil program (untiled
/// or tiled) to a module whose kernels are a cubin and whose host code is in
/// the LLVM dialect.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the NVVM target (without the "
                     "option: +ptx80, or the chip's minimum where newer)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel format: 'bin' (cubin, needs ptxas), 'isa' (PTX "
                     "text), 'auto' (a cubin when ptxas is found, else PTX)"),
      llvm::cl::init("auto")};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("Optimization level of the kernels"),
                            llvm::cl::init(3)};
  Option<bool> contract{
      *this, "fma",
      llvm::cl::desc("Allow contracting multiplies and adds into FMA in the "
                     "kernels (results then differ from the CPU reference)"),
      llvm::cl::init(false)};
  ListOption<int64_t> blockSizes{
      *this, "block-sizes",
      llvm::cl::desc("Threads per block (x = innermost dimension, y, z) of "
                     "the kernels of untiled applies")};
  ListOption<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block (x, y, z) of hex-tiled kernels")};
  Option<std::string> promote{
      *this, "promote",
      llvm::cl::desc("Shared-memory promotion of hex-tiled kernels: none, "
                     "copy (copy-in, compute, copy-out), interleaved "
                     "(copy-in; values stored as they are computed), auto "
                     "(interleaved in 1D and 2D, none in 3D)"),
      llvm::cl::init("auto")};
  Option<int64_t> sharedBudget{
      *this, "shared-budget",
      llvm::cl::desc("Shared memory per block for promoted arrays, in bytes "
                     "(up to the chip's opt-in maximum; past 48 KiB the "
                     "kernels use dynamic shared memory)"),
      llvm::cl::init(49152)};
  Option<bool> unroll{
      *this, "unroll",
      llvm::cl::desc("Unroll each thread's point loops in hex-tiled kernels "
                     "and its copy loops of shared-memory promotion"),
      llvm::cl::init(true)};
  Option<int64_t> unrollBudget{
      *this, "unroll-budget",
      llvm::cl::desc("Largest step of one thread whose point loops are "
                     "unrolled, in operations (the statements' bodies times "
                     "the thread's points of a step)"),
      llvm::cl::init(1024)};
  Option<std::string> threadPoints{
      *this, "thread-points",
      llvm::cl::desc("Points of a step per thread along y and z in "
                     "hex-tiled kernels: cyclic or blocked (consecutive "
                     "rows, shared neighbours loaded once)"),
      llvm::cl::init("cyclic")};
  Option<std::string> interTileReuse{
      *this, "inter-tile-reuse",
      llvm::cl::desc("Promotion step (f): a tile that follows its predecessor "
                     "along the innermost parallelogram dimension moves what "
                     "both hold within shared memory instead of loading it: "
                     "true, false, or auto (with one statement per step)"),
      llvm::cl::init("auto")};
  Option<bool> tileGrid{
      *this, "tile-grid",
      llvm::cl::desc("Split-tiled 3D kernels: the second tile dimension "
                     "(parallel within a color) over the grid's y blocks "
                     "as well as the first over x"),
      llvm::cl::init(true)};
  Option<bool> alignLoads{
      *this, "align-loads",
      llvm::cl::desc("Promotion step (d): translate the innermost "
                     "parallelogram tiles of the default tiling so that the "
                     "first array's loads start on 128-byte boundaries"),
      llvm::cl::init(true)};
  Option<unsigned> blocksPerSM{
      *this, "blocks-per-sm",
      llvm::cl::desc("Resident blocks per SM that tiled kernels (barriers or "
                     "shared memory) are compiled for (nvvm.minctasm), at "
                     "most what the device table allows: 2 caps a block of "
                     "256 threads at 128 registers, 1 lets ptxas use every "
                     "register a thread needs"),
      llvm::cl::init(2)};
  Option<bool> relieveSpills{
      *this, "relieve-spills",
      llvm::cl::desc("A kernel that ptxas finds spilling at blocks-per-sm is "
                     "compiled for one block fewer, down to one (needs "
                     "ptxas; stencil-gpu-module-to-binary)"),
      llvm::cl::init(true)};
  Option<bool> loopStrengthReduction{
      *this, "loop-strength-reduction",
      llvm::cl::desc("Run LLVM's loop strength reduction in the kernels' "
                     "code generation (off: fewer registers, no spill in "
                     "the tiled kernels of many fields; "
                     "stencil-gpu-module-to-binary)"),
      llvm::cl::init(false)};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Width of the index arithmetic in the kernels: 0 "
                     "(default) for 32 when every kernel memref, grid size "
                     "and index argument provably fits in 31 bits, else "
                     "64; or 32, or 64"),
      llvm::cl::init(0)};
  Option<bool> shortSharedPointers{
      *this, "short-shared-pointers",
      llvm::cl::desc("32-bit shared-memory addresses in the PTX (NVPTX's "
                     "short pointers): no 64-bit address arithmetic per "
                     "shared access"),
      llvm::cl::init(true)};
  Option<bool> readOnlyLoads{
      *this, "read-only-loads",
      llvm::cl::desc("Kernel operands that are only read and alias no "
                     "written operand are loaded through the read-only "
                     "data cache (noalias + readonly, ld.global.nc)"),
      llvm::cl::init(true)};
  Option<bool> addressOffsets{
      *this, "address-offsets",
      llvm::cl::desc("The kernels' accesses at constant offsets from one "
                     "point share one base address; the offsets become "
                     "immediates of the loads and stores "
                     "(stencil-kernel-address-offsets)"),
      llvm::cl::init(true)};
  Option<bool> asyncLoops{
      *this, "async-loops",
      llvm::cl::desc("Host loops of launches carry the GPU's async token: "
                     "the host waits once after a time loop instead of "
                     "after every step (stencil-gpu-async-loops)"),
      llvm::cl::init(true)};
  Option<bool> hostToLLVM{
      *this, "host-to-llvm",
      llvm::cl::desc("Lower to NVVM, build the cubin and lower the host "
                     "code to the LLVM dialect (else stop after kernel "
                     "outlining, to inspect the mapped kernels)"),
      llvm::cl::init(true)};
};

/// shape inference -> poly-to-gpu / convert-stencil-to-loops ->
/// stencil-parallel-to-gpu -> kernel outlining -> NVVM -> cubin -> host code
/// to the LLVM dialect.
void buildStencilGpuPipeline(OpPassManager &pm,
                             const GpuPipelineOptions &options);
/// What both the GPU pipeline and the emulation run on the mapped kernels
/// before outlining (emulating) them: the canonicalizer (bottom-up) and CSE,
/// pure ops hoisted out of the guards of the points, then CSE and
/// loop-invariant code motion.
void addKernelCleanupPasses(OpPassManager &pm);

/// Registers `convert-to-gpu`.
void registerStencilGpuPipeline();

/// shape inference -> convert-stencil-to-loops -> LLVM dialect.
void buildStencilCpuPipeline(OpPassManager &pm,
                             const CpuPipelineOptions &options);

/// Registers `stencil-cpu-pipeline`.
/// The number and suffix of an NVIDIA chip name: "sm_90a" -> (90, "a");
/// none for a name not of the form sm_<number><suffix>.
std::optional<std::pair<unsigned, StringRef>> parseSmChip(StringRef chip);

/// Whether LLVM's NVPTX back end knows `chip` as a processor (the `chip`
/// values --convert-to-gpu and the CPU pipeline's GPU emulation take).
bool isNvptxProcessor(StringRef chip);

void registerStencilCpuPipeline();

} // namespace mlir::stencil

#endif // STENCIL_CONVERSION_PASSES_H
