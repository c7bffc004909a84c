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
    Option<"isolate", "isolate", "bool", "true",
           "Generate full tiles separately, without boundary conditions">,
    Option<"unroll", "unroll", "bool", "false",
           "Unroll the intra-tile time loop">,
    Option<"testIgnoreDependences", "test-ignore-dependences", "bool", "false",
           "For testing the verification only: tile with slopes 0, as if "
           "there were no dependences (the check must then refuse)">,
  ];
}

#endif // STENCIL_POLY_PASSES_TD
