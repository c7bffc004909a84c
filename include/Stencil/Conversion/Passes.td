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
    "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect"
  ];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Emit scf.parallel for the points of an apply (else scf.for)">,
    Option<"emitCInterface", "emit-c-interface", "bool", "true",
           "Mark converted functions with llvm.emit_c_interface so that C "
           "callers get a `_mlir_ciface_<name>` entry point">
  ];
}

#endif // STENCIL_CONVERSION_PASSES_TD
