// RUN: stencil-opt %s --stencil-shape-inference --convert-stencil-to-loops -split-input-file -verify-diagnostics

// Every rank runs the same swap: a receive from +x with no send towards -x
// of the same size would leave the neighbour waiting forever.
func.func @unpaired(%u : !stencil.field<[-1,33]x[-1,33]xf64>) {
  // expected-error@+1 {{'dmp.swap' op exchange 0 has no opposite exchange of the same size: the neighbour it exchanges with would wait for a message that is never sent}}
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  return
}

// -----

func.func @sizes_differ(%u : !stencil.field<[-2,34]x[-1,33]xf64>) {
  // expected-error@+1 {{'dmp.swap' op exchange 0 has no opposite exchange of the same size}}
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-2, 0] size [2, 32] source offset [2, 0] to [-1, 0]>]}
      : (!stencil.field<[-2,34]x[-1,33]xf64>) -> ()
  return
}

// -----

// xDSL's value form on a temp that is not loaded from a field.
func.func @value_form_not_loaded(%u : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  %a = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    %r = stencil.store_result %v : !stencil.result<f64>
    stencil.return %r : !stencil.result<f64>
  }
  // expected-error@+1 {{'dmp.swap' op exchanges a temp that is not loaded from a field, which the lowering does not support}}
  %s = "dmp.swap"(%a) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = []}> : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  return
}

// -----

func.func @unknown_bounds(%u : !stencil.field<?x?xf64>) {
  // expected-error@+1 {{'dmp.swap' op exchanges the halo of a field of unknown bounds: its boxes are in the domain's coordinates, which need the field's bounds}}
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<?x?xf64>) -> ()
  return
}
