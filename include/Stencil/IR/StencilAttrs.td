//===- StencilAttrs.td - stencil attributes ----------------*- tablegen -*-===//

#ifndef STENCIL_IR_STENCILATTRS_TD
#define STENCIL_IR_STENCILATTRS_TD

include "Stencil/IR/StencilDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Stencil_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Stencil_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Stencil_IndexAttr : Stencil_Attr<"Index", "index"> {
  let summary = "a point or an offset of the grid: `#stencil.index<[i, j, k]>`";
  let parameters = (ins ArrayRefParameter<"int64_t">:$indices);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t size() const { return getIndices().size(); }
    int64_t operator[](size_t i) const { return getIndices()[i]; }
  }];
}

def Stencil_BoundsAttr : Stencil_Attr<"Bounds", "bounds"> {
  let summary = "a half-open box of the grid: `#stencil.bounds<[lb...], [ub...]>`";
  let parameters = (ins ArrayRefParameter<"int64_t">:$lb,
                        ArrayRefParameter<"int64_t">:$ub);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t getRank() const { return getLb().size(); }
  }];
}

#endif // STENCIL_IR_STENCILATTRS_TD
