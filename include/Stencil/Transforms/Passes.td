//===- Passes.td - passes on the stencil dialect -----------*- tablegen -*-===//

#ifndef STENCIL_TRANSFORMS_PASSES_TD
#define STENCIL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def StencilShapeInference : Pass<"stencil-shape-inference"> {
  let summary = "Infer the bounds of every temp from the stores backwards";
  let description = [{
    Gives every `!stencil.temp` its bounds: a temp is needed on the union of
    the store bounds of its stores and of the points its consumers read
    (apply bounds shifted by every access offset, buffers, combines), and a
    load needs those points from its field. Reports a program that reads
    outside a field, and a temp that is neither stored nor used.
  }];
  let dependentDialects = ["::mlir::stencil::StencilDialect"];
}

def StencilInlining : Pass<"stencil-inlining"> {
  let summary = "Inline producer applies into their consumers";
  let description = [{
    Replaces an apply whose results are used only by other applies by
    recomputing its body at every access point of the consumers (the fusion
    by recomputation of the Open Earth Compiler). Producers whose results are
    stored or buffered are kept. Run before shape inference or again after.
  }];
  let dependentDialects = ["::mlir::stencil::StencilDialect"];
}

#endif // STENCIL_TRANSFORMS_PASSES_TD
