//===- DmpAttrs.td - process grids and exchanges -----------*- tablegen -*-===//

#ifndef STENCIL_DMP_DMPATTRS_TD
#define STENCIL_DMP_DMPATTRS_TD

include "Stencil/Dmp/DmpDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Dmp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dmp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Dmp_TopoAttr : Dmp_Attr<"Topo", "topo"> {
  let summary = "a process grid, ranks per dimension: `#dmp.topo<2x2>`";
  let description = [{
    Rank `r` sits at grid coordinates `c` with `r = sum(c[d] * stride[d])`,
    the last dimension fastest (row-major).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumRanks() const;
  }];
}

class Dmp_GridSliceAttr<string name, string attrMnemonic>
    : Dmp_Attr<name, attrMnemonic> {
  let summary = "decomposition of the leading dimensions over a process grid";
  let description = [{
    `#dmp.grid_slice_2d<#dmp.topo<2x2>, false>`: the first dimensions of the
    grid (as many as the topology has) are cut into blocks, one per rank;
    the flag says whether edges and corners are exchanged as well as faces.
  }];
  let parameters = (ins Dmp_TopoAttr:$topology, "bool":$diagonals);
  let assemblyFormat = "`<` qualified($topology) `,` $diagonals `>`";
}

def Dmp_GridSlice1dAttr : Dmp_GridSliceAttr<"GridSlice1d", "grid_slice_1d">;
def Dmp_GridSlice2dAttr : Dmp_GridSliceAttr<"GridSlice2d", "grid_slice_2d">;
def Dmp_GridSlice3dAttr : Dmp_GridSliceAttr<"GridSlice3d", "grid_slice_3d">;

def Dmp_ExchangeAttr : Dmp_Attr<"Exchange", "exchange"> {
  let summary = "one halo region received from one neighbour";
  let description = [{
    `#dmp.exchange<at [a...] size [s...] source offset [o...] to [n...]>`:
    the box `[a, a + s)` of the field's buffer (element 0 is the field's
    lower bound) is received from the rank at grid offset `n`, and the box
    `[a + o, a + o + s)` is sent to it (the region that rank receives from
    this one). Dimensions beyond the topology's have offset 0.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$offset,
                        ArrayRefParameter<"int64_t">:$size,
                        ArrayRefParameter<"int64_t">:$sourceOffset,
                        ArrayRefParameter<"int64_t">:$neighbor);
  let assemblyFormat = [{
    `<` `at` ` ` `[` $offset `]` `size` ` ` `[` $size `]` `source` `offset`
    ` ` `[` $sourceOffset `]` `to` ` ` `[` $neighbor `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
}

#endif // STENCIL_DMP_DMPATTRS_TD
