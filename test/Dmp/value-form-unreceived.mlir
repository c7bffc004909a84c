// RUN: stencil-opt %s --stencil-shape-inference --split-input-file -verify-diagnostics

// xDSL's distribute-stencil exchanges faces only: a stencil reading a corner
// (here [1, 1]) reads, on a rank with a neighbour there, values nobody sent.
func.func @box(%u: !stencil.field<[-1,65]x[-1,65]xf64>, %v: !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[-1,33]x[-1,33]xf64>
  // expected-warning @below {{the stencils read [32, 32] to [33, 33] of this field, beyond the rank's core towards the neighbour at [1, 1], but no exchange of this swap receives it}}
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>, #dmp.exchange<at [0, 32] size [32, 1] source offset [0, -1] to [0, 1]>, #dmp.exchange<at [0, -1] size [32, 1] source offset [0, 1] to [0, -1]>]}> : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
  %r = stencil.apply(%a = %s : !stencil.temp<[-1,33]x[-1,33]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %c = stencil.access %a[0, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
    // expected-note @below {{read here}}
    %d = stencil.access %a[1, 1] : !stencil.temp<[-1,33]x[-1,33]xf64>
    %e = arith.addf %c, %d : f64
    %x = stencil.store_result %e : !stencil.result<f64>
    stencil.return %x : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
  func.return
}

// -----

// The same corner needs no exchange when the grid does not cut the second
// dimension (2x1): there is no neighbour at [1, 1].
func.func @uncut(%u: !stencil.field<[-1,65]x[-1,65]xf64>, %v: !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[-1,33]x[0,65]xf64>
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x1>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 64] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 64] source offset [1, 0] to [-1, 0]>]}> : (!stencil.temp<[-1,33]x[0,65]xf64>) -> !stencil.temp<[-1,33]x[0,65]xf64>
  %r = stencil.apply(%a = %s : !stencil.temp<[-1,33]x[0,65]xf64>) -> (!stencil.temp<[0,32]x[0,64]xf64>) {
    %c = stencil.access %a[0, 0] : !stencil.temp<[-1,33]x[0,65]xf64>
    %d = stencil.access %a[1, 1] : !stencil.temp<[-1,33]x[0,65]xf64>
    %e = arith.addf %c, %d : f64
    %x = stencil.store_result %e : !stencil.result<f64>
    stencil.return %x : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 64]>) : !stencil.temp<[0,32]x[0,64]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
  func.return
}

// -----

// A temp computed beyond the core (fdtd-2d's ey' at row 32, which hz' reads)
// reads the loaded field there too: xDSL sizes the exchange by the loaded
// operand's own accesses ([0, 0]) and receives nothing.
func.func @beyond_core(%u: !stencil.field<[-1,65]x[-1,65]xf64>, %w: !stencil.field<[-1,65]x[-1,65]xf64>, %v: !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[0,33]x[0,32]xf64>
  // expected-warning @below {{the stencils read [32, 0] to [33, 32] of this field, beyond the rank's core towards the neighbour at [1, 0]}}
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = []}> : (!stencil.temp<[0,33]x[0,32]xf64>) -> !stencil.temp<[0,33]x[0,32]xf64>
  %p = stencil.apply(%a = %s : !stencil.temp<[0,33]x[0,32]xf64>) -> (!stencil.temp<[0,33]x[0,32]xf64>) {
    // expected-note @below {{read here}}
    %c = stencil.access %a[0, 0] : !stencil.temp<[0,33]x[0,32]xf64>
    %x = stencil.store_result %c : !stencil.result<f64>
    stencil.return %x : !stencil.result<f64>
  }
  %r = stencil.apply(%b = %p : !stencil.temp<[0,33]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %c = stencil.access %b[1, 0] : !stencil.temp<[0,33]x[0,32]xf64>
    %x = stencil.store_result %c : !stencil.result<f64>
    stencil.return %x : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
  func.return
}

// -----

// A star stencil reads no corner: the faces are all it needs, no warning.
func.func @star(%u: !stencil.field<[-1,65]x[-1,65]xf64>, %v: !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[-1,33]x[-1,33]xf64>
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>, #dmp.exchange<at [0, 32] size [32, 1] source offset [0, -1] to [0, 1]>, #dmp.exchange<at [0, -1] size [32, 1] source offset [0, 1] to [0, -1]>]}> : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
  %r = stencil.apply(%a = %s : !stencil.temp<[-1,33]x[-1,33]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %c = stencil.access %a[-1, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
    %d = stencil.access %a[1, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
    %f = stencil.access %a[0, -1] : !stencil.temp<[-1,33]x[-1,33]xf64>
    %g = stencil.access %a[0, 1] : !stencil.temp<[-1,33]x[-1,33]xf64>
    %e = arith.addf %c, %d : f64
    %h = arith.addf %f, %g : f64
    %i = arith.addf %e, %h : f64
    %x = stencil.store_result %i : !stencil.result<f64>
    stencil.return %x : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
  func.return
}
