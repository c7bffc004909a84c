// RUN: stencil-opt %s --stencil-distribute="grid=2x2" -split-input-file | FileCheck %s

// A 5-point star over 64x48 on a 2x2 grid: one block shape (32x24), halo 1;
// the swap before the time loop's load exchanges the four faces only (no
// access reaches diagonally); the read-only coefficient field gets no swap.
// CHECK-LABEL: func.func private @star_dmp_32x24(
// CHECK-SAME: !stencil.field<[-1,33]x[-1,25]xf64>
// CHECK: scf.for
// CHECK-NEXT: "dmp.swap"(%{{.*}}) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [
// CHECK-SAME: #dmp.exchange<at [-1, 0] size [1, 24] source offset [1, 0] to [-1, 0]>,
// CHECK-SAME: #dmp.exchange<at [0, -1] size [32, 1] source offset [0, 1] to [0, -1]>,
// CHECK-SAME: #dmp.exchange<at [0, 24] size [32, 1] source offset [0, -1] to [0, 1]>,
// CHECK-SAME: #dmp.exchange<at [32, 0] size [1, 24] source offset [-1, 0] to [1, 0]>]}>
// CHECK-NEXT: stencil.load
// CHECK-NOT: dmp.swap
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0, 0], [32, 24]>)
// The dispatcher: fields of unknown bounds and the communicator, the layout.
// CHECK-LABEL: func.func @star(%{{.*}}: !stencil.field<?x?xf64>, %{{.*}}: !stencil.field<?x?xf64>, %{{.*}}: !stencil.field<?x?xf64>, %{{.*}}: !llvm.ptr)
// CHECK-SAME: dmp.core_lb = array<i64: 0, 0>, dmp.core_ub = array<i64: 64, 48>
// CHECK-SAME: dmp.fields = [array<i64: -1, -1, 65, 49>, array<i64: -1, -1, 65, 49>, array<i64: -1, -1, 65, 49>]
// CHECK-SAME: dmp.grid = array<i64: 2, 2>, dmp.halo = array<i64: 1, 1>
// CHECK: call @stencil_mpi_enter(%{{.*}}, %c4_i64)
// CHECK: scf.index_switch
// CHECK: stencil.cast %{{.*}} : !stencil.field<?x?xf64> -> !stencil.field<[-1,33]x[-1,25]xf64>
// CHECK: call @star_dmp_32x24(
func.func @star(%u0 : !stencil.field<[-1,65]x[-1,49]xf64>, %u1 : !stencil.field<[-1,65]x[-1,49]xf64>, %c : !stencil.field<[-1,65]x[-1,49]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,65]x[-1,49]xf64> -> !stencil.temp<?x?xf64>
    %k = stencil.load %c : !stencil.field<[-1,65]x[-1,49]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>, %y = %k : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %w = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %e = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
      %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
      %nn = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %kk = stencil.access %y[0, 0] : !stencil.temp<?x?xf64>
      %v1 = arith.addf %w, %e : f64
      %v2 = arith.addf %s, %nn : f64
      %v3 = arith.addf %v1, %v2 : f64
      %v4 = arith.mulf %v3, %kk : f64
      %res = stencil.store_result %v4 : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [64, 48]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,49]xf64>
    scf.yield %b, %a : !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>
  }
  return
}

// -----

// Sizes that do not divide (65 = 33 + 32, 47 = 24 + 23): four block shapes,
// numbered with the first dimension's choice slowest; an asymmetric
// diagonal access (+1, -1) exchanges that corner and its opposite (both
// partners post it), and every width is the larger side's both ways (2 in
// dimension 0, 1 in dimension 1, where only -1 is read).
// CHECK-LABEL: func.func private @diag_dmp_33x24(
// CHECK-SAME: !stencil.field<[-2,35]x[-1,25]xf32>
// CHECK: "dmp.swap"{{.*}}#dmp.grid_slice_2d<#dmp.topo<2x2>, true>
// CHECK-SAME: #dmp.exchange<at [-2, 0] size [2, 24] source offset [2, 0] to [-1, 0]>
// CHECK-SAME: #dmp.exchange<at [-2, 24] size [2, 1] source offset [2, -1] to [-1, 1]>
// CHECK-SAME: #dmp.exchange<at [0, -1] size [33, 1] source offset [0, 1] to [0, -1]>
// CHECK-SAME: #dmp.exchange<at [0, 24] size [33, 1] source offset [0, -1] to [0, 1]>
// CHECK-SAME: #dmp.exchange<at [33, -1] size [2, 1] source offset [-2, 1] to [1, -1]>
// CHECK-SAME: #dmp.exchange<at [33, 0] size [2, 24] source offset [-2, 0] to [1, 0]>]
// CHECK-NOT: to [-1, -1]
// CHECK-NOT: to [1, 1]
// CHECK-LABEL: func.func private @diag_dmp_33x23(
// CHECK-LABEL: func.func private @diag_dmp_32x24(
// CHECK-LABEL: func.func private @diag_dmp_32x23(
// CHECK-LABEL: func.func @diag(
// CHECK: arith.cmpi uge
// CHECK: arith.select %{{.*}}, %c2
// CHECK: arith.cmpi uge
// CHECK: arith.select %{{.*}}, %c1
// CHECK: scf.index_switch
// CHECK: case 3 {
// CHECK: call @diag_dmp_32x23(
func.func @diag(%u0 : !stencil.field<[-2,67]x[-1,48]xf32>, %u1 : !stencil.field<[-2,67]x[-1,48]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-2,67]x[-1,48]xf32>, !stencil.field<[-2,67]x[-1,48]xf32>) {
    %in = stencil.load %a : !stencil.field<[-2,67]x[-1,48]xf32> -> !stencil.temp<?x?xf32>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
      %p = stencil.access %x[1, -1] : !stencil.temp<?x?xf32>
      %q = stencil.access %x[-2, 0] : !stencil.temp<?x?xf32>
      %v = arith.addf %p, %q : f32
      %res = stencil.store_result %v : !stencil.result<f32>
      stencil.return %res : !stencil.result<f32>
    }
    stencil.store %o to %b(<[0, 0], [65, 47]>) : !stencil.temp<?x?xf32> to !stencil.field<[-2,67]x[-1,48]xf32>
    scf.yield %b, %a : !stencil.field<[-2,67]x[-1,48]xf32>, !stencil.field<[-2,67]x[-1,48]xf32>
  }
  return
}

// -----

// A single sweep reads only its inputs: no exchange at all.
// CHECK-LABEL: func.func private @sweep_dmp_16x16(
// CHECK-NOT: dmp.swap
// CHECK: return
func.func @sweep(%in : !stencil.field<[-1,33]x[-1,33]xf64>, %out : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %w = stencil.access %x[-1, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %w : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

// Lower-rank coefficients: a vertical profile %c along dimension 2, which
// grid=2x2 does not cut, keeps its global type in every copy; %p along
// dimension 0 (cut) is held like the full-rank fields there, the rank's
// block widened by the halo, which its own halo of 2 widens; neither is
// exchanged (read only). dmp.field_dims records the dimension each of their
// dimensions lies along.
// CHECK-LABEL: func.func private @profile_dmp_8x8(
// CHECK-SAME: %{{.*}}: !stencil.field<[-2,10]x[-1,9]x[0,4]xf64>, %{{.*}}: !stencil.field<[-2,10]x[-1,9]x[0,4]xf64>, %[[C:.*]]: !stencil.field<[-1,5]xf64>, %[[P:.*]]: !stencil.field<[-2,10]xf64>)
// CHECK-NOT: "dmp.swap"(%[[C]])
// CHECK-NOT: "dmp.swap"(%[[P]])
// CHECK: stencil.load %[[C]] : !stencil.field<[-1,5]xf64>
// CHECK-LABEL: func.func @profile(
// CHECK-SAME: %{{.*}}: !stencil.field<?xf64>
// CHECK-SAME: dmp.field_dims = [unit, unit, array<i64: 2>, array<i64: 0>]
// CHECK-SAME: dmp.fields = [array<i64: -1, -1, 0, 17, 17, 4>, array<i64: -1, -1, 0, 17, 17, 4>, array<i64: -1, 5>, array<i64: -2, 18>]
// CHECK-SAME: dmp.halo = array<i64: 2, 1>
func.func @profile(%a : !stencil.field<[-1,17]x[-1,17]x[0,4]xf64>, %b : !stencil.field<[-1,17]x[-1,17]x[0,4]xf64>, %c : !stencil.field<[-1,5]xf64>, %p : !stencil.field<[-2,18]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,17]x[-1,17]x[0,4]xf64> -> !stencil.temp<?x?x?xf64>
  %ct = stencil.load %c : !stencil.field<[-1,5]xf64> -> !stencil.temp<?xf64>
  %pt = stencil.load %p : !stencil.field<[-2,18]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?x?xf64>, %w = %ct : !stencil.temp<?xf64>, %q = %pt : !stencil.temp<?xf64>) -> (!stencil.temp<?x?x?xf64>) {
    %v = stencil.access %x[-1, 0, 0] : !stencil.temp<?x?x?xf64>
    %k = stencil.access %w[_, _, 1] : !stencil.temp<?xf64>
    %l = stencil.access %q[-2, _, _] : !stencil.temp<?xf64>
    %m = arith.mulf %v, %k : f64
    %n = arith.mulf %m, %l : f64
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0, 0, 0], [16, 16, 4]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-1,17]x[-1,17]x[0,4]xf64>
  return
}
