// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=3" -split-input-file | FileCheck %s
// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=3 block-loops=true" -split-input-file | FileCheck %s --check-prefix=LOOPS
// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=3 block-loops=true" --hex-tile -split-input-file 2>&1 | FileCheck %s --check-prefix=TILED

// A 3-point star over 32 points, 8 steps, on 2 ranks with halos 3 steps
// deep: two blocks of 3 unrolled steps (one exchange each, halo 3 wide),
// each step storing its block widened towards the neighbour by what the
// rest of the block reads (2, 1, 0 points), then the 2 steps left as one
// shorter block (an exchange 2 deep, stores widened by 1, 0). Rank 0 (`l`, the low end) widens upwards, rank 1 (`h`) downwards.
// CHECK-LABEL: func.func private @star_dmp_16l(
// CHECK-SAME: !stencil.field<[-3,19]xf64>
// CHECK: scf.for %{{.*}} = %c0 to %c6 step %c3
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = [#dmp.exchange<at [-3] size [3] source offset [3] to [-1]>, #dmp.exchange<at [16] size [3] source offset [-3] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [18]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [17]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [16]>)
// CHECK-NOT: dmp.swap
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %c6{{.*}} to %c8 step %c2
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{{.*}}#dmp.exchange<at [-2] size [2] source offset [2] to [-1]>, #dmp.exchange<at [16] size [2] source offset [-2] to [1]>]}>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [17]>)
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0], [16]>)
// CHECK-NOT: dmp.swap
// CHECK: scf.yield
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

// block-loops=true: after the block's exchange, a time loop of 3 steps, each
// storing on the widest box of the block (rank 0: [0, 18), rank 1: [-2, 16));
// the exchange stays as deep.
// LOOPS-LABEL: func.func private @star_dmp_16l(
// LOOPS: scf.for %[[B:.*]] = %c0 to %c6 step %c3 iter_args
// LOOPS-NEXT: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = [#dmp.exchange<at [-3] size [3] source offset [3] to [-1]>, #dmp.exchange<at [16] size [3] source offset [-3] to [1]>]}>
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[N:.*]] = %{{.*}})
// LOOPS-NEXT: stencil.load %[[A]]
// LOOPS: stencil.store %{{.*}} to %[[N]](<[0], [18]>)
// LOOPS-NEXT: scf.yield %[[N]], %[[A]]
// LOOPS-NOT: stencil.store
// The 2 steps left: a loop of 2 steps after their exchange, on [0, 17).
// LOOPS: scf.for %{{.*}} = %c6{{.*}} to %c8 step %c2
// LOOPS-NEXT: "dmp.swap"
// LOOPS: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// LOOPS: stencil.store %{{.*}} to %{{.*}}(<[0], [17]>)
// LOOPS-NEXT: scf.yield
// LOOPS-LABEL: func.func private @star_dmp_16h(
// LOOPS: stencil.store %{{.*}} to %{{.*}}(<[-2], [16]>)
// LOOPS-NEXT: scf.yield
// LOOPS-NOT: stencil.store %{{.*}} to %{{.*}}(<[-1], [16]>)
// LOOPS: scf.for %{{.*}} = %c6{{.*}} to %c8 step %c2
// LOOPS: stencil.store %{{.*}} to %{{.*}}(<[-1], [16]>)
// LOOPS-NEXT: scf.yield

// --hex-tile then tiles each block's loop of steps (a scop inside the loop
// over blocks, after the exchange), the shorter last block's too: nothing
// exchanges every step, so nothing is left untiled.
// TILED-NOT: warning
// TILED-LABEL: func.func private @star_dmp_16l(
// TILED: scf.for %{{.*}} = %c0 to %c6 step %c3
// TILED-NEXT: "dmp.swap"
// TILED: poly.scop
// TILED: scf.for %{{.*}} = %c6{{.*}} to %c8 step %c2
// TILED-NEXT: "dmp.swap"
// TILED: poly.scop
// TILED-LABEL: func.func private @star_dmp_16h(
// TILED: poly.scop
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
