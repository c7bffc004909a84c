//===- StencilDialect.td - stencil dialect definition ------*- tablegen -*-===//
//
// The `stencil` dialect of the Open Earth Compiler / xDSL family: fields in
// memory, temps with value semantics and apply ops that compute one point of
// their results from neighbouring points of their operands.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_IR_STENCILDIALECT_TD
#define STENCIL_IR_STENCILDIALECT_TD

include "mlir/IR/OpBase.td"

def Stencil_Dialect : Dialect {
  let name = "stencil";
  let cppNamespace = "::mlir::stencil";
  let summary = "Stencil computations on structured grids";
  let description = [{
    Fields (`!stencil.field`) are memory; temps (`!stencil.temp`) are values
    defined on a box of the grid. `stencil.load` turns a field into a temp,
    `stencil.apply` computes new temps point by point, and `stencil.store`
    writes a temp back into a field on explicit bounds. The textual form is
    the one xDSL prints, so programs from xDSL, Devito, PSyclone and the Open
    Earth Compiler parse unchanged.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasCanonicalizer = 0;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Stencil_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stencil_Dialect, mnemonic, traits>;

#endif // STENCIL_IR_STENCILDIALECT_TD
