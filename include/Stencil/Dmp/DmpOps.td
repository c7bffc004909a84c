//===- DmpOps.td - halo exchange ---------------------------*- tablegen -*-===//

#ifndef STENCIL_DMP_DMPOPS_TD
#define STENCIL_DMP_DMPOPS_TD

include "Stencil/Dmp/DmpAttrs.td"
include "Stencil/IR/StencilTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Dmp_SwapOp : Dmp_Op<"swap"> {
  let summary = "exchange the halo of a field with the neighbouring ranks";
  let description = [{
    ```mlir
    "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                    swaps = [#dmp.exchange<at [0, 1] size [1, 32] source offset [1, 0] to [-1, 0]>]}
        : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
    ```
    Every exchange receives its region from its neighbour and sends the
    neighbour the region at its source offset; a rank without a neighbour
    in that direction (the edge of the grid) keeps its halo. All ranks of
    the topology execute the same swaps in the same order.
  }];
  let arguments = (ins Arg<Stencil_FieldType, "", [MemRead, MemWrite]>:$field,
                       AnyAttr:$strategy,
                       TypedArrayAttrBase<Dmp_ExchangeAttr, "exchanges">:$swaps);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The process grid of the strategy.
    TopoAttr getTopology();
  }];
}

#endif // STENCIL_DMP_DMPOPS_TD
