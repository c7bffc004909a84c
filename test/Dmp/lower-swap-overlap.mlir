// RUN: stencil-opt %s --convert-stencil-to-loops=parallel=false | FileCheck %s

// The exchange overlaps with the apply after it: the messages are posted,
// the points of [0,32)x[0,32) that read no received row (rows 1..30 for a
// radius-1 stencil along the exchanged dimension) are computed, then the
// wait, the unpacking, and the two rows left.
// CHECK-LABEL: func.func @overlap(
// CHECK: call @stencil_mpi_isend(
// CHECK: call @stencil_mpi_isend(
// CHECK-NOT: call @stencil_mpi_waitall
// CHECK: scf.for %{{.*}} = %c1{{.*}} to %c31{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK: call @stencil_mpi_waitall()
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK: scf.for %{{.*}} = %c31{{.*}} to %c32{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NOT: scf.for
// CHECK: return
func.func @overlap(%u : !stencil.field<[-1,33]x[-1,33]xf64>, %v : !stencil.field<[-1,33]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x1>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  %t = stencil.load %u : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<[-1,33]x[0,32]xf64>
  %r = stencil.apply(%a = %t : !stencil.temp<[-1,33]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %w = stencil.access %a[-1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %e = stencil.access %a[1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %s = arith.addf %w, %e : f64
    %o = stencil.store_result %s : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// dmp.blocking: the exchange completes first, then one loop nest over all
// the points.
// CHECK-LABEL: func.func @blocking(
// CHECK: call @stencil_mpi_waitall()
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NOT: scf.for
// CHECK: return
func.func @blocking(%u : !stencil.field<[-1,33]x[-1,33]xf64>, %v : !stencil.field<[-1,33]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x1>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>],
                  dmp.blocking}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  %t = stencil.load %u : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<[-1,33]x[0,32]xf64>
  %r = stencil.apply(%a = %t : !stencil.temp<[-1,33]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %w = stencil.access %a[-1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %e = stencil.access %a[1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %s = arith.addf %w, %e : f64
    %o = stencil.store_result %s : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// A chain: the second apply reads the first's result at offsets -2..2
// along the exchanged dimension, so its early box shrinks by the first's
// (rows 1..30 -> 3..28), and both finish after the wait, in program order.
// CHECK-LABEL: func.func @chain(
// CHECK: call @stencil_mpi_isend(
// CHECK-NOT: call @stencil_mpi_waitall
// CHECK: scf.for %{{.*}} = %c1{{.*}} to %c31{{.*}} step
// CHECK: scf.for %{{.*}} = %c3{{.*}} to %c29{{.*}} step
// CHECK: call @stencil_mpi_waitall()
// CHECK: scf.for %{{.*}} = %c-2{{.*}} to %c1{{.*}} step
// CHECK: scf.for %{{.*}} = %c31{{.*}} to %c34{{.*}} step
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c3{{.*}} step
// CHECK: scf.for %{{.*}} = %c29{{.*}} to %c32{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NOT: scf.for
// CHECK: return
func.func @chain(%u : !stencil.field<[-3,35]x[-1,33]xf64>, %v : !stencil.field<[-3,35]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x1>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [3, 32] source offset [-3, 0] to [1, 0]>,
                           #dmp.exchange<at [-3, 0] size [3, 32] source offset [3, 0] to [-1, 0]>]}
      : (!stencil.field<[-3,35]x[-1,33]xf64>) -> ()
  %t = stencil.load %u : !stencil.field<[-3,35]x[-1,33]xf64> -> !stencil.temp<[-3,35]x[0,32]xf64>
  %m = stencil.apply(%a = %t : !stencil.temp<[-3,35]x[0,32]xf64>) -> (!stencil.temp<[-2,34]x[0,32]xf64>) {
    %w = stencil.access %a[-1, 0] : !stencil.temp<[-3,35]x[0,32]xf64>
    %e = stencil.access %a[1, 0] : !stencil.temp<[-3,35]x[0,32]xf64>
    %s = arith.addf %w, %e : f64
    %o = stencil.store_result %s : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  %r = stencil.apply(%b = %m : !stencil.temp<[-2,34]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %w = stencil.access %b[-2, 0] : !stencil.temp<[-2,34]x[0,32]xf64>
    %e = stencil.access %b[2, 0] : !stencil.temp<[-2,34]x[0,32]xf64>
    %s = arith.mulf %w, %e : f64
    %o = stencil.store_result %s : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-3,35]x[-1,33]xf64>
  return
}

// A load of the field the step has just written ends the overlap there:
// the wait comes before it, and the apply after it runs whole.
// CHECK-LABEL: func.func @ends_at_reload(
// CHECK: scf.for %{{.*}} = %c1{{.*}} to %c31{{.*}} step
// CHECK: call @stencil_mpi_waitall()
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c1{{.*}} step
// CHECK: scf.for %{{.*}} = %c31{{.*}} to %c32{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NEXT: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step
// CHECK-NOT: scf.for
// CHECK: return
func.func @ends_at_reload(%u : !stencil.field<[-1,33]x[-1,33]xf64>, %v : !stencil.field<[-1,33]x[-1,33]xf64>, %w : !stencil.field<[-1,33]x[-1,33]xf64>) {
  "dmp.swap"(%u) {strategy = #dmp.grid_slice_2d<#dmp.topo<2x1>, false>,
                  swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>,
                           #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>]}
      : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  %t = stencil.load %u : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<[-1,33]x[0,32]xf64>
  %r = stencil.apply(%a = %t : !stencil.temp<[-1,33]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %x = stencil.access %a[-1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %y = stencil.access %a[1, 0] : !stencil.temp<[-1,33]x[0,32]xf64>
    %s = arith.addf %x, %y : f64
    %o = stencil.store_result %s : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  stencil.store %r to %v(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  %t2 = stencil.load %v : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<[0,32]x[0,32]xf64>
  %r2 = stencil.apply(%a = %t2 : !stencil.temp<[0,32]x[0,32]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
    %x = stencil.access %a[0, 0] : !stencil.temp<[0,32]x[0,32]xf64>
    %o = stencil.store_result %x : !stencil.result<f64>
    stencil.return %o : !stencil.result<f64>
  }
  stencil.store %r2 to %w(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}
