// RUN: stencil-opt %s | stencil-opt | FileCheck %s
// RUN: stencil-opt %s --mlir-print-op-generic | stencil-opt | FileCheck %s

// xDSL's text form of dmp.swap (attributes in the dictionary) parses and
// prints back with them as properties.
// CHECK-LABEL: func.func @swaps
// CHECK: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [4, 0] size [100, 4] source offset [0, 4] to [-1, 0]>, #dmp.exchange<at [4, 104] size [100, 4] source offset [0, -4] to [1, 0]>]}> : (!stencil.field<[0,108]x[0,108]xf32>) -> ()
// CHECK: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_3d<#dmp.topo<1x2x3>, true>, swaps = []}> : (!stencil.field<[-1,9]x[-1,9]x[-1,9]xf64>) -> ()
// CHECK: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<4>, false>, swaps = [#dmp.exchange<at [0] size [2] source offset [2] to [-1]>]}> : (!stencil.field<[-2,10]xf64>) -> ()
func.func @swaps(%a : !stencil.field<[0,108]x[0,108]xf32>, %b : !stencil.field<[-1,9]x[-1,9]x[-1,9]xf64>, %c : !stencil.field<[-2,10]xf64>) {
  "dmp.swap"(%a) {
      strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>,
      swaps = [
          #dmp.exchange<at [4, 0] size [100, 4] source offset [0, 4] to [-1, 0]>,
          #dmp.exchange<at [4, 104] size [100, 4] source offset [0, -4] to [1, 0]>
      ]
  } : (!stencil.field<[0,108]x[0,108]xf32>) -> ()
  "dmp.swap"(%b) {strategy = #dmp.grid_slice_3d<#dmp.topo<1x2x3>, true>, swaps = []} : (!stencil.field<[-1,9]x[-1,9]x[-1,9]xf64>) -> ()
  "dmp.swap"(%c) {strategy = #dmp.grid_slice_1d<#dmp.topo<4>, false>, swaps = [#dmp.exchange<at [0] size [2] source offset [2] to [-1]>]} : (!stencil.field<[-2,10]xf64>) -> ()
  return
}

// xDSL's value form (its distribute-stencil and shape inference since 2024):
// a temp in, the exchanged temp out, boxes in the domain's coordinates.
// CHECK-LABEL: func.func @value_form
// CHECK: %[[T:.*]] = stencil.load
// CHECK: %{{.*}} = "dmp.swap"(%[[T]]) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}> : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
func.func @value_form(%u : !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %u : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[-1,33]x[-1,33]xf64>
  %s = "dmp.swap"(%t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}> : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
  return
}
