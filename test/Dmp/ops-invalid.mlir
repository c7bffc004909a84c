// RUN: stencil-opt %s -split-input-file -verify-diagnostics

func.func @not_a_slice(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op needs a #dmp.grid_slice_1d/2d/3d strategy, not #dmp.topo<2x2>}}
  "dmp.swap"(%a) {strategy = #dmp.topo<2x2>, swaps = []} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @mismatch(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op strategy #dmp.grid_slice_3d<#dmp.topo<2x2>, false> does not match its 2-dimensional topology}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_3d<#dmp.topo<2x2>, false>, swaps = []} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @deep(%a : !stencil.field<[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op decomposes 2 dimensions of a field of rank 1}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = []} : (!stencil.field<[0,8]xf32>) -> ()
  return
}

// -----

func.func @rank(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op exchange 0 has 1 dimensions, the field 2}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0] size [1] source offset [1] to [1]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @far(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op exchange 0 goes to grid offset 2 in dimension 0 (-1, 0 or 1 along the topology's dimensions, 0 beyond)}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0, 0] size [1, 1] source offset [1, 0] to [2, 0]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @outside(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{'dmp.swap' op exchange 0 reaches outside the field in dimension 1: [6, 10) is not within [0, 8)}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0, 6] size [1, 4] source offset [1, 0] to [-1, 0]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @bad_topo(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+2 {{a process grid needs at least one rank per dimension}}
  // expected-error@+1 {{failed to parse Dmp_GridSlice2dAttr parameter 'topology'}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x0>, false>, swaps = []} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @bad_exchange(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{an exchange goes to a neighbour: `to` is all zero}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0, 0] size [1, 1] source offset [1, 0] to [0, 0]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @bad_sizes(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{an exchange needs as many entries in `at`, `size`, `source offset` and `to`}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0, 0] size [1] source offset [1, 0] to [1, 0]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @negative(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+1 {{an exchange has a negative size}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [0, 0] size [1, -1] source offset [1, 0] to [1, 0]>]} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @deep_topo(%a : !stencil.field<[0,8]x[0,8]xf32>) {
  // expected-error@+2 {{a process grid has 1 to 3 dimensions, not 4}}
  // expected-error@+1 {{failed to parse Dmp_GridSlice2dAttr parameter 'topology'}}
  "dmp.swap"(%a) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x2x2x2>, false>, swaps = []} : (!stencil.field<[0,8]x[0,8]xf32>) -> ()
  return
}

// -----

func.func @value_form_without_result(%u : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,33]xf64> -> !stencil.temp<[-1,33]xf64>
  // expected-error@+1 {{'dmp.swap' op on a temp needs a result of the same type (xDSL's value form)}}
  "dmp.swap"(%t) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = []}> : (!stencil.temp<[-1,33]xf64>) -> ()
  return
}

// -----

func.func @field_form_with_result(%u : !stencil.field<[-1,33]xf64>) {
  // expected-error@+1 {{'dmp.swap' op on a field has no result}}
  %s = "dmp.swap"(%u) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = []}> : (!stencil.field<[-1,33]xf64>) -> !stencil.temp<[-1,33]xf64>
  return
}

// -----

func.func @value_form_outside(%u : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]xf64> -> !stencil.temp<[-1,33]xf64>
  // expected-error@+1 {{'dmp.swap' op exchange 0 reaches outside the temp in dimension 0: [33, 34) is not within [-1, 33)}}
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = [#dmp.exchange<at [33] size [1] source offset [-1] to [1]>]}> : (!stencil.temp<[-1,33]xf64>) -> !stencil.temp<[-1,33]xf64>
  return
}
