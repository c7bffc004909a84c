// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=3" -split-input-file | FileCheck %s

// A 3-point star over 32 points, 8 steps, on 2 ranks with halos 3 steps
// deep: two blocks of 3 unrolled steps (one exchange each, halo 3 wide),
// each step storing its block widened towards the neighbour by what the
// rest of the block reads (2, 1, 0 points), then 2 steps exchanging every
// step. Rank 0 (`l`, the low end) widens upwards, rank 1 (`h`) downwards.
// CHECK-LABEL: func.func private @star_dmp_16l(
// CHECK-SAME: !stencil.field<[-3,19]xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c3
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = [#dmp.exchange<at [-3] size [3] source offset [3] to [-1]>, #dmp.exchange<at [16] size [3] source offset [-3] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [18]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [17]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [16]>)
// CHECK-NOT: dmp.swap
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c6{{.*}} to %c8 step %c1
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{{.*}}#dmp.exchange<at [-1] size [1] source offset [1] to [-1]>, #dmp.exchange<at [16] size [1] source offset [-1] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [16]>)
// CHECK-LABEL: func.func private @star_dmp_16h(
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[-2], [16]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[-1], [16]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [16]>)
// The dispatcher picks the copy of the rank's end of the grid.
// CHECK-LABEL: func.func @star(
// CHECK-SAME: dmp.halo = array<i64: 3>
// CHECK: arith.cmpi eq
// CHECK: scf.index_switch
// CHECK: call @star_dmp_16l(
// CHECK: call @star_dmp_16h(
func.func @star(%u0 : !stencil.field<[-1,33]xf64>, %u1 : !stencil.field<[-1,33]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %w = stencil.access %x[-1] : !stencil.temp<?xf64>
      %e = stencil.access %x[1] : !stencil.temp<?xf64>
      %v = arith.addf %w, %e : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}
