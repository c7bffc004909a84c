//===- Passes.td - polyhedral passes ------------------------*- tablegen -*-===//

#ifndef STENCIL_POLY_PASSES_TD
#define STENCIL_POLY_PASSES_TD

include "mlir/Pass/PassBase.td"

def StencilToPoly : Pass<"stencil-to-poly", "::mlir::ModuleOp"> {
  let summary = "Turn stencil regions into poly.scop ops (isl statements, "
                "accesses and the canonical schedule)";
  let description = [{
    Each time loop (an `scf.for` whose `iter_args` are fields) and each run
    of stencil ops outside time loops becomes one `poly.scop`: one statement
    per computed value, one array per group of rotating field buffers and
    per temp that needs storage, and the canonical schedule
    `S_k[t, s...] -> [K*t + k, s...]` with the K statements of a step in
    program order. Temps without bounds are inferred first (as
    `--stencil-shape-inference`). Regions outside the supported class get a
    diagnostic saying why.
  }];
  let dependentDialects = ["::mlir::stencil::poly::PolyDialect",
                           "::mlir::arith::ArithDialect"];
}

def PolyPrintDependences : Pass<"poly-print-dependences", "::mlir::ModuleOp"> {
  let summary = "Print the flow, anti and output dependences of each poly.scop";
  let description = [{
    Computes the dependences of every `poly.scop` with isl under its current
    schedule and prints them, with their distances in the canonical schedule
    space, to the standard error (the IR stays alone on the standard output).
  }];
}

def PolyPrintTiles : Pass<"poly-print-tiles", "::mlir::ModuleOp"> {
  let summary = "Write where each instance of a tiled poly.scop runs, as JSON";
  let description = [{
    For every hex- or split-tiled `poly.scop` (not yet mapped to the GPU),
    writes each statement instance with its phase (hexagonal tiling) or
    color (split tiling) and its tile `[T, tile...]`, read from the schedule
    tree that code generation turns into loops, the position of each
    statement in a step, and the dependence distances in the canonical
    space, as one JSON object. `python3 -m stencil picture` draws it.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the JSON ('-': the standard error, so that the IR "
           "stays alone on the standard output)">,
    Option<"steps", "steps", "int64_t", "0",
           "The number of time steps, for programs whose step count is not a "
           "constant">,
  ];
}

def HexTile : Pass<"hex-tile", "::mlir::ModuleOp"> {
  let summary = "Hybrid hexagonal/parallelogram time tiling";
  let description = [{
    Extracts stencil regions that are not yet `poly.scop` ops (as
    `--stencil-to-poly`), then tiles each one with hybrid hexagonal tiling:
    hexagons on `hex-dim` and time, parallelograms on the other space
    dimensions, two phases per time tile whose tiles run in parallel. The
    slopes come from the dependences; the result is checked against them with
    isl and refused with a diagnostic rather than emitted wrong.
  }];
  let dependentDialects = ["::mlir::stencil::poly::PolyDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"height", "h", "int64_t", "-1",
           "Time tile parameter h: a hexagon spans 2h+2 canonical time steps "
           "(-1: the default for the program)">,
    ListOption<"widths", "widths", "int64_t",
               "Tile widths per space dimension: w0 (the hexagon's minimal "
               "top width) for hex-dim, the parallelogram width for the others "
               "(empty: the defaults)">,
    Option<"hexDim", "hex-dim", "unsigned", "0",
           "The space dimension tiled hexagonally">,
    Option<"target", "target", "std::string", "\"auto\"",
           "What the default sizes suit: 'cpu', 'gpu', or 'auto' (the CPU's "
           "sizes, and poly-to-gpu, e.g. in --convert-to-gpu, tiles again "
           "with the GPU's when neither h nor widths was given; stencil-opt "
           "leaves the tiling to a poly-to-gpu that directly follows)">,
    Option<"isolate", "isolate", "bool", "true",
           "Generate full tiles separately, without boundary conditions "
           "(with several statements per step only when given; on the GPU "
           "only for 1D and 2D steps of one statement of at most 20 "
           "operations unless given)">,
    Option<"offset", "offset", "int64_t", "0",
           "Translation of the parallelogram tiles of the innermost "
           "parallelogram dimension (hybrid paper sec. 4.2.3): tile S starts "
           "`offset` points lower; it places the tiles' loads on cache-line "
           "boundaries (poly-to-gpu's align-loads chooses it for the tilings "
           "it makes)">,
    Option<"unroll", "unroll", "bool", "false",
           "Unroll the intra-tile time loop (when not given: on for GPU "
           "sizes, target=gpu or the GPU's re-tiling in poly-to-gpu; off "
           "for the CPU)">,
    Option<"sizeModel", "model", "bool", "true",
           "Without h and widths, CPU sizes from the tile-size model (the "
           "least memory traffic per update of a full tile, counted with "
           "isl, whose footprint fits cache-kib; the fixed defaults when "
           "none fits); model=false: the fixed defaults of docs/tiling.md">,
    Option<"cacheKiB", "cache-kib", "int64_t", "0",
           "The model's footprint budget per tile in KiB (0: the host's "
           "per-core L2 cache, 1024 when unknown)">,
    Option<"report", "report", "bool", "false",
           "A remark per scop with the model's sizes and figures">,
    Option<"testIgnoreDependences", "test-ignore-dependences", "bool", "false",
           "For testing the verification only: tile with slopes 0, as if "
           "there were no dependences (the check must then refuse)">,
  ];
}

def SplitTile : Pass<"split-tile", "::mlir::ModuleOp"> {
  let summary = "Split time tiling with trapezoidal tiles";
  let description = [{
    Extracts stencil regions that are not yet `poly.scop` ops (as
    `--stencil-to-poly`), then tiles each time loop with split tiling
    (GPGPU'13 sec. 4, rectangular bases): bands of `h` steps run in
    sequence; along every space dimension a band alternates between upright
    and inverted trapezoids, and a color (one per subset of the dimensions
    whose inverted trapezoids it takes: 2^n colors in n dimensions) runs all
    its tiles in parallel, the colors in order. The slopes come from the
    dependences; the tiled schedule is checked against them with isl and
    refused with a diagnostic naming the violated dependence rather than
    emitted wrong.
  }];
  let dependentDialects = ["::mlir::stencil::poly::PolyDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"height", "h", "int64_t", "-1",
           "Band height: canonical time steps per band, a multiple of the "
           "statements per step (-1: the default for the program)">,
    ListOption<"widths", "widths", "int64_t",
               "Tile period per space dimension: one upright and one "
               "inverted trapezoid (empty: the defaults)">,
    Option<"target", "target", "std::string", "\"auto\"",
           "What the default sizes suit: 'cpu', 'gpu', or 'auto' (the CPU's "
           "sizes, and poly-to-gpu, e.g. in --convert-to-gpu, tiles again "
           "with the GPU's when neither h nor widths was given; stencil-opt "
           "leaves the tiling to a poly-to-gpu that directly follows)">,
    Option<"isolate", "isolate", "bool", "true",
           "Generate full tiles separately, without boundary conditions "
           "(with several statements per step only when given; on the GPU "
           "only for 1D and 2D steps of one statement of at most 20 "
           "operations unless given)">,
    Option<"unroll", "unroll", "bool", "false",
           "Unroll the steps of a band within a tile (when not given: on for "
           "GPU sizes, target=gpu or the GPU's re-tiling in poly-to-gpu; off "
           "for the CPU)">,
    Option<"sizeModel", "model", "bool", "true",
           "Without h and widths, CPU sizes from the tile-size model (the "
           "least memory traffic per update of a full tile, counted with "
           "isl, whose footprint fits cache-kib; the fixed defaults when "
           "none fits); model=false: the fixed defaults of docs/tiling.md">,
    Option<"cacheKiB", "cache-kib", "int64_t", "0",
           "The model's footprint budget per tile in KiB (0: the host's "
           "per-core L2 cache, 1024 when unknown)">,
    Option<"report", "report", "bool", "false",
           "A remark per scop with the model's sizes and figures">,
    Option<"testIgnoreDependences", "test-ignore-dependences", "bool", "false",
           "For testing the verification only: tile with slopes 0, as if "
           "there were no dependences (the check must then refuse)">,
  ];
}

def Fuse : Pass<"fuse", "::mlir::ModuleOp"> {
  let summary = "Fuse the statements of each step or sweep by overlapped tiling";
  let description = [{
    Extracts stencil regions that are not yet `poly.scop` ops (time loops
    and single sweeps, as `--stencil-to-poly`), then schedules the
    statements of each step (or sweep) of a scop that is still in its
    canonical, untiled form in rectangular space tiles: inside a tile each
    statement runs right after the producers it needs, and an intermediate
    (a temp whose readers are all fused with its writer) is computed on the
    tile's halo too, redundantly, into a buffer local to the tile instead of
    a full-size array (OverTile, ICS'12; STENCILGEN, Proc. IEEE 2018).
    Statements whose tiles would exchange values through a field array
    start a new loop nest. Time-tiled scops (`--hex-tile`, `--split-tile`)
    are left as they are: their tiles already run the statements of a step
    one after the other. The plan is checked exactly with isl before it
    replaces the schedule.
  }];
  let dependentDialects = ["::mlir::stencil::poly::PolyDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    ListOption<"tile", "tile", "int64_t",
               "Tile size per space dimension (empty: chosen by the model)">,
    Option<"cacheKiB", "cache-kib", "int64_t", "0",
           "The model's budget for one tile's local buffers and field "
           "working set, in KiB (0: half the host's per-core L2 cache, 512 "
           "when it is unknown)">,
    Option<"report", "report", "bool", "false",
           "A remark per scop: the groups, tile sizes, local buffers and the "
           "model's recomputation and footprint">,
  ];
}

def PolyToGpu : Pass<"poly-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Map hybrid-tiled poly.scop ops to host loops and GPU kernels";
  let description = [{
    The GPU mapping of hybrid hexagonal tiling (thesis sec. 5.3.1, hybrid
    paper sec. 4): the time-tile loop runs on the host and launches one
    kernel per phase; the hexagonal tile dimension maps to blocks (a block
    loops over tiles when there are more tiles than blocks); the
    parallelogram tile dimensions and the intra-tile time run sequentially
    in the kernel; the intra-tile space dimensions map to threads (the
    innermost to `x`), cyclically when a tile is wider than the block, with
    a `gpu.barrier` after every time step. Kernel code is generated by isl
    with the block's tile and the thread ids as parameters bounded in the
    context, full tiles separately from partial ones. Untiled scops (the
    canonical schedule, e.g. a time loop of one step) get one launch per
    statement and time step: the outermost dimension over the blocks, the
    innermost over the threads (x only). Scops that are already mapped are
    left as they are.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect"
  ];
  let options = [
    ListOption<"threads", "threads", "int64_t",
               "Threads per block along x (innermost intra-tile dimension), "
               "y, z (default: 32 along x, 4 along y, 2 along z, capped by "
               "the tile extent)">,
    Option<"unroll", "unroll", "bool", "true",
           "Unroll each thread's point loops within a time step (up to 64 "
           "points and unroll-budget operations) and its copy loop of "
           "shared-memory promotion along the innermost dimension (up to 64 "
           "copies per row)">,
    Option<"unrollBudget", "unroll-budget", "int64_t", "1024",
           "Largest step of one thread whose point loops are unrolled, in "
           "operations: the statements' bodies times the thread's points of "
           "a step (a larger step keeps its point loops)">,
    Option<"threadPoints", "thread-points", "std::string", "\"cyclic\"",
           "Which points of a step a thread computes along y and z: cyclic "
           "(rows threads apart) or blocked (consecutive rows, whose shared "
           "neighbours it loads once); along x always cyclic, for "
           "coalescing">,
    Option<"maxBlocks", "max-blocks", "int64_t", "65535",
           "Largest grid; more tiles than this are looped over by the blocks">,
    Option<"promote", "promote", "std::string", "\"auto\"",
           "Shared-memory promotion of hex-tiled kernels (hybrid paper "
           "Table 4): none (every access in global memory), copy (copy-in, "
           "compute in shared memory, copy-out), interleaved (copy-in; "
           "each value also stored to global memory as it is computed), "
           "auto (interleaved in 1D and 2D, none in 3D, where the tiles' "
           "few steps do not pay for the copies)">,
    Option<"alignLoads", "align-loads", "bool", "true",
           "Promotion step (d) of the hybrid paper (sec. 4.2.3): translate "
           "the innermost parallelogram tiles of the tilings poly-to-gpu "
           "makes (--hex-tile with default sizes) so that the loads of the "
           "first array start on 128-byte boundaries of its rows (an "
           "explicit --hex-tile offset is kept)">,
    Option<"interTileReuse", "inter-tile-reuse", "std::string", "\"auto\"",
           "Promotion step (f) of the hybrid paper (sec. 4.2.2): a tile that "
           "follows its predecessor along the innermost parallelogram "
           "dimension on the same block moves what both boxes hold within "
           "shared memory and loads only the rest: true, false, or auto "
           "(with one statement per step)">,
    Option<"tileGrid", "tile-grid", "bool", "true",
           "Split-tiled 3D kernels: the second tile dimension (parallel "
           "within a color) over the grid's y blocks as well as the first "
           "over x; the last stays a stream within a block (inter-tile "
           "reuse). false: only the first tile dimension over the blocks">,
    Option<"sharedBudget", "shared-budget", "int64_t", "49152",
           "Shared memory per block for promoted arrays, in bytes; arrays "
           "that do not fit stay in global memory (a remark names them). "
           "Up to the chip's opt-in maximum (232448 on sm_90, 166912 on "
           "sm_80); past 48 KiB the kernels use dynamic shared memory">,
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "The GPU the kernels are for (the device table: sm_80, sm_90); "
           "scops that --hex-tile left with default sizes get hexagons "
           "narrow enough to give every SM two blocks per phase">,
  ];
}

#endif // STENCIL_POLY_PASSES_TD
