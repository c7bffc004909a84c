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
                    swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>]}
        : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
    %t2 = "dmp.swap"(%t) <{strategy = ..., swaps = [...]}>
        : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
    ```
    Every exchange receives the box at `at` (of size `size`, in the
    coordinates of the stencil domain, as the field's bounds are) from its
    neighbour at grid offset `to`, and sends the neighbour the box at `at +
    source offset`; a rank without a neighbour in that direction (the edge
    of the grid) keeps its halo. All ranks of the topology execute the same
    swaps in the same order.

    Two forms, as in xDSL: on a field (no result; it updates the field's
    halo in place) and on a temp (xDSL's value form after its
    distribute-stencil: the result is the temp with its halo exchanged).
    Shape inference rewrites the value form of a loaded temp into the field
    form before the load.
  }];
  let arguments = (ins Arg<Stencil_AnyFieldOrTemp, "", [MemRead, MemWrite]>:$field,
                       AnyAttr:$strategy,
                       TypedArrayAttrBase<Dmp_ExchangeAttr, "exchanges">:$swaps);
  let results = (outs Optional<Stencil_TempType>:$swapped);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The process grid of the strategy.
    TopoAttr getTopology();
  }];
}

#endif // STENCIL_DMP_DMPOPS_TD
