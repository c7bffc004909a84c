//===- Passes.td - passes on the stencil dialect -----------*- tablegen -*-===//

#ifndef STENCIL_TRANSFORMS_PASSES_TD
#define STENCIL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def StencilShapeInference : Pass<"stencil-shape-inference"> {
  let summary = "Infer the bounds of every temp from the stores backwards";
  let description = [{
    Gives every `!stencil.temp` produced by `stencil.load`, `stencil.apply`,
    `stencil.buffer` and `stencil.combine` its bounds
    (`!stencil.temp<[lb,ub]x...xT>`, upper bounds exclusive). Every block is
    processed on its own (function bodies, `scf.for` time-loop bodies, ...),
    from its last op to its first, nested blocks before the block that holds
    them; ops of other dialects are left alone.

    A temp is needed on the bounding box of what its users need:

    * `stencil.store`: the store bounds;
    * `stencil.apply` operand: the apply's iteration box shifted by the
      offset of every `stencil.access` to the matching region argument (for a
      lower-rank operand, `_` dimensions do not count), and widened by the
      `lb`/`ub` range of every `stencil.dyn_access`. With
      `stencil.return ... unroll <[u0, ...]>` the body is evaluated at the
      base points `lb + k * u` (`< ub`) of the unrolled blocks only, and the
      offsets are relative to them: in a dimension with factor `u > 1` the
      shifted box ends at the last base point + 1 + offset. The apply's own
      box is not rounded to a multiple of `u`;
    * `stencil.buffer`: the box of the buffer's result;
    * `stencil.combine` (dimension `d`, index `x`): the box of the result
      the operand makes (`lower[i]`/`upper[i]`: result `i`; ext operands: the
      results after those), cut to `ub[d] = min(ub[d], x)` for
      `lower`/`lowerext` operands and to `lb[d] = max(lb[d], x)` for
      `upper`/`upperext` operands (a side with no point left needs nothing).

    All results of one `stencil.apply` get the same box, the union of what
    each result is needed on. Each result of a `stencil.combine` gets its own
    box (an unused one the union of the others), widened in dimension `d`
    until it reaches `x`, as the combine verifier requires. A
    `stencil.apply` with `outs` keeps its `to` bounds. The
    region arguments of every apply get the new types of its operands. A
    buffered temp gets the box of its producer, so that buffer operand and
    result types stay equal.

    Bounds that temps already have are ignored and overwritten by the
    inferred box (running the pass twice gives the same IR).

    Errors (located, the pass fails, the IR is not changed into something
    invalid):

    * a `stencil.load` whose box does not fit into its field (with a note at
      each access or store that reads outside);
    * a temp that is never used (`run -canonicalize to remove it`), or used
      but never read at any point (an apply operand without accesses, a
      combine side cut away entirely);
    * a temp used in another block than its own (other than blocks nested
      in it), as across the blocks of a CFG region;
    * a temp used by an op that the pass does not understand (for example
      `func.return` or `scf.yield` of a temp), or a `stencil.dyn_access` to a
      lower-rank operand.
  }];
  let dependentDialects = ["::mlir::stencil::StencilDialect"];
}

def StencilInlining : Pass<"stencil-inlining"> {
  let summary = "Inline producer applies into their consumers";
  let description = [{
    Fusion by recomputation (Open Earth Compiler semantics). A producer
    `stencil.apply` P is inlined into its consumers when

    * every use of every result of P is an operand of another
      `stencil.apply` of the same rank that reads the matching region
      argument only with `stencil.access` (no `stencil.dyn_access`), and
    * P has results (no `outs`), no `unroll` (or one that
      `--stencil-reroll` undoes, which it then does), every operand of its
      `stencil.return` comes straight from a `stencil.store_result` with a
      value in the body, and its body has no memory side effects;
    * when P reads a field operand directly (memory, not a temp), every
      consumer sits in P's block with no op that may write memory between
      P and it, and has no `outs` (the copy must read what P would have).

    Results that are stored, buffered or combined keep their producer. Every
    `stencil.access %p[o]` in a consumer C is replaced by a copy of P's body
    computing the value at offset `o`: P's accesses get `offset + o`, its
    `stencil.index` ops get `offset + o`, its `stencil.dyn_access` ranges
    are shifted by `o`, and the access is replaced by the value stored by the
    matching `stencil.store_result`. Operands of P become operands of C (an
    operand that C already has reuses its region argument); the region
    arguments of C bound to P's results are removed, and P is erased. The
    pass iterates to a fixed point, so chains P1 -> P2 -> C collapse into C.
    Each access gets its own copy: run `-cse` afterwards to share them.

    The pass works before and after shape inference. When a block (with the
    blocks nested in it) that held an inlined producer had temps with
    bounds, all temps of that block are reset to unknown bounds and
    inferred again as `-stencil-shape-inference` does, since the operands
    that consumers take over need other boxes than before.
  }];
  let dependentDialects = ["::mlir::stencil::StencilDialect"];
}

def StencilReroll : Pass<"stencil-reroll"> {
  let summary = "Undo the unrolling of applies whose unrolled points are "
                "shifted copies of one computation";
  let description = [{
    xDSL's `stencil-unroll` writes an apply's body once per point of the
    unroll box (`stencil.return ... unroll <[u0, u1, ...]>`), each copy with
    its `stencil.access` offsets, `stencil.index` offsets and
    `stencil.dyn_access` ranges shifted by the point's offset. When, for
    every result and every point, the returned value is computed by such a
    shifted copy of the computation of point 0 (the same ops, attributes and
    nested regions; shared operands only where they do not depend on the
    point), the apply computes point 0's expression at every point of its
    bounds, also in the last block of an extent that is not a multiple of
    the factor. The pass then returns point 0's values without `unroll` and
    erases the other points' ops. Other unrolled applies stay as they are,
    with a remark.

    `--hex-tile`, `--split-tile`, `--fuse` and `--stencil-to-poly` re-roll
    the applies of the regions they transform in the same way (a tiling
    unrolls its tiles itself), and `--stencil-inlining` the producers it
    inlines.
  }];
}

def StencilHoistOutOfBranches : Pass<"stencil-hoist-out-of-branches"> {
  let summary = "Speculate pure ops out of scf.if when their operands are "
                "defined outside it";
  let description = [{
    The polyhedral code generator emits each point of a tile (and each
    unrolled point of a GPU thread) under its own guard, and every guard
    computes again what depends only on the time step or the tile: the time
    level of each buffer, row offsets, the array to store to. This pass
    moves every op of an `scf.if` branch that has no regions, is pure
    (memory-effect free and speculatable: no division by a possibly zero
    value) and whose operands are all defined outside the `scf.if` right
    before it, inner branches first, so that `-cse` then merges the copies
    of the branches and `-loop-invariant-code-motion` can move them out of
    the loops. Nothing that reads or writes memory moves.
  }];
}

def StencilSharedLoadReuse : Pass<"stencil-shared-load-reuse"> {
  let summary = "Load a workgroup (shared) memory element once per barrier "
                "interval and block";
  let description = [{
    The unrolled points of one GPU thread in one time step read their
    neighbours from shared memory, and neighbouring points read the same
    elements (the hybrid tiling paper's Fig. 2: jacobi 2D needs 3 shared
    loads and 1 store per point instead of 5 and 1 when a thread's points
    are consecutive rows). Within each block of ops inside a `gpu.launch`,
    in order, this pass replaces a `memref.load` from workgroup memory by
    the value an earlier load of the same buffer and indices (the same SSA
    values) gave, or a store there wrote. A store to the buffer forgets
    every element it may touch: all of the buffer's, except those whose
    indices differ from the store's by two different constants in one
    dimension (another time level of a ping-pong buffer), and what is known
    of other buffers unless both are workgroup attributions (a view may
    alias its source). A barrier, an op
    with regions and an op with unknown or other memory effects on the
    buffer forget everything. Values from before a barrier are never
    reused, so in a race-free kernel no other thread can change an element
    between the two accesses.
  }];
}

def StencilDistribute : Pass<"stencil-distribute", "ModuleOp"> {
  let summary = "Decompose a program over a grid of MPI ranks with halo "
                "exchanges";
  let description = [{
    `--stencil-distribute="grid=2x2"` turns every function over fields into
    the program one rank runs on its block of the domain (the smallest box
    holding what the function's stores write; a narrower store writes its
    box's part of each block, which every block must meet). The leading dimensions of the domain (as many
    as `grid` has, 1 to 3) are cut into blocks, rank `r` at row-major grid
    coordinates `c`; a dimension of `N` points over `P` ranks gives the first
    `N mod P` ranks `N / P + 1` points and the others `N / P`. Every local
    field spans its rank's block widened, in each decomposed dimension, by
    `H`, the widest halo (field bounds beyond the domain) of any field of
    the function on either side; the other dimensions keep the global
    field's bounds. The local arrays hold the global values of those
    windows (zeros outside the global field).

    Each distinct block shape gets a private copy `@f_dmp_<sizes>` with the
    local field types (the block keeps the domain's lower corner as its
    origin). `@f` becomes the dispatcher: its fields have unknown bounds and
    a last argument `!llvm.ptr` points to the `MPI_Comm` to use (null for
    `MPI_COMM_WORLD`). It records the decomposition in the attributes
    `dmp.grid`, `dmp.core_lb`/`dmp.core_ub` (the global domain), `dmp.halo`
    (`H`) and `dmp.fields` (per argument, `array<i64: lb..., ub...>` of the
    global field, `unit` for other arguments).

    A `dmp.swap` goes before every load of a field the function may write
    (stored to, rotated with a stored field by a time loop, or used by an op
    outside the stencil dialect); fields that are only read keep the halo
    values the local arrays came with. Its exchanges follow from the bounds
    shape inference gives the loaded temp: a face per side that the temp
    extends beyond the block, an edge or corner only where some access
    reaches diagonally (star stencils exchange no corners). A swap with
    nothing to exchange is removed.

    With `depth=h` (h > 1), every time loop with stores runs in blocks of
    `h` steps (its body unrolled `h` times; the `r < h` steps after the last
    full block one shorter block of `r` steps, a single one exchanging as
    any step): one swap per written field at the
    start of a block, with a halo as deep as the block reads (edges and
    corners included, since steps compose diagonal reach), then `h` steps
    that store on the rank's block widened, towards neighbours only, by
    what the rest of the block reads of that field (the last store of a
    field in the block on the block itself). The widening is a fixpoint of
    shape inference over the block. Ranks at the ends of the grid get their
    own copies (`l`/`h` in the name). `dmp.halo` is then the deepest halo a
    block reads (at least the fields' own). Needs time loops with constant
    bounds, stores directly in their body and rotating fields that cannot
    alias.

    `block-loops=true` rolls the `h` steps of each block back into a time
    loop of `h` steps after the block's swaps, every step storing each
    field on the widest box any step of the block stores it on (what a
    step computes beyond what the block later reads is never read, so the
    core stays exact): a loop with one domain, which `--hex-tile` and
    `--split-tile` tile inside the rank, at the price of more redundant
    points than the shrinking boxes.

    The exchanges overlap with computation when lowered (Devito's "full"
    mode, see `--convert-stencil-to-loops`); `overlap=false` marks every
    swap `dmp.blocking` instead.

    `stencil.index` along a decomposed dimension reads the global
    position: the copies take their block's start per decomposed dimension
    as trailing index arguments and the applies add it.

    A lower-rank field (read only) is held like the full-rank fields along
    the decomposed dimensions its accesses read it along and whole along
    the others; it is never exchanged (`dmp.field_dims` records its
    dimensions).

    `grid=auto` leaves the grid to the run: for each rank count `P` of
    `ranks` (default 1 to 8) the function is distributed over the balanced
    grid MPI_Dims_create gives `P` ranks over `min(3, rank)` dimensions
    (largest first, trailing 1s dropped) into a private dispatcher
    `@f_g<grid>` with its copies, and `@f` calls, through
    `stencil_mpi_grid_code`, the one of the grid MPI_Dims_create chooses
    for the communicator's size. A rank count whose blocks are too small
    for the halo (more ranks than points, or an exchange wider than a
    block) gets no dispatcher (a remark names it); running on it fails
    with a message listing the compiled grids. `@f` records `dmp.grids`
    and `dmp.halos` (per compiled grid) instead of `dmp.grid`/`dmp.halo`.

    Errors (located): a store's box that misses some rank's block; stores
    of different bounds with depth > 1; `outs`
    applies, combines along a decomposed dimension, external loads and
    stores, lower-rank fields read other than by `stencil.access` or with a
    dimension along two, and calls with fields (not supported yet); more ranks than points in a dimension; a halo
    exchange wider than the smallest block (with `grid=auto`: for every
    rank count); a malformed `grid` or `ranks`.
  }];
  let options = [
    Option<"grid", "grid", "std::string", /*default=*/"\"\"",
           "Ranks per decomposed dimension, as 2x2 (1 to 3 dimensions), or "
           "auto: the grid MPI_Dims_create chooses at run time">,
    ListOption<"ranks", "ranks", "int64_t",
               "With grid=auto: the rank counts to compile a decomposition "
               "for (default 1 to 8)">,
    Option<"depth", "depth", "int64_t", /*default=*/"1",
           "Time steps per halo exchange: the halo is deep enough for that "
           "many steps and the overlap is computed redundantly">,
    Option<"overlap", "overlap", "bool", /*default=*/"true",
           "Compute the points that need no received halo while the "
           "messages are in flight (false: mark every swap `dmp.blocking`, "
           "the exchange completes before the step computes)">,
    Option<"blockLoops", "block-loops", "bool", /*default=*/"false",
           "With depth=h: keep the h steps of a block as a time loop after "
           "the block's exchanges, every step on the block's widest boxes, "
           "so that --hex-tile or --split-tile can tile it (default: the "
           "steps unrolled, each on the boxes the rest of the block reads)">,
  ];
  let dependentDialects = ["::mlir::dmp::DmpDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif // STENCIL_TRANSFORMS_PASSES_TD
