// A 3D kernel in the style of the Open Earth Compiler weather kernels (as
// xDSL writes them): vertical 1D coefficients and a 2D surface field used in
// 3D applies through `_` placeholders, a domain split with stencil.combine,
// dynamic accesses and a branch in the apply body.
// RUN: stencil-opt %s | stencil-opt | FileCheck %s
// RUN: stencil-opt %s -mlir-print-op-generic | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func @column_physics
// CHECK:         %[[CT:.*]] = stencil.load %{{.*}} : !stencil.field<[-2,34]xf64> -> !stencil.temp<?xf64>
// CHECK:         %[[ST:.*]] = stencil.load %{{.*}} : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
// CHECK:         %[[LO:.*]]:2 = stencil.apply(%[[U:.*]] = %{{.*}} : !stencil.temp<?x?x?xf64>, %[[C:.*]] = %[[CT]] : !stencil.temp<?xf64>, %[[S:.*]] = %[[ST]] : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) {
// CHECK-NEXT:      %{{.*}} = stencil.access %[[U]][0, 0, -1] : !stencil.temp<?x?x?xf64>
// CHECK-NEXT:      %{{.*}} = stencil.access %[[C]][_, _, 0] : !stencil.temp<?xf64>
// CHECK-NEXT:      %{{.*}} = stencil.access %[[C]][_, _, 1] : !stencil.temp<?xf64>
// CHECK-NEXT:      %{{.*}} = stencil.access %[[S]][1, -1, _] : !stencil.temp<?x?xf64>
// CHECK:           scf.if %{{.*}} -> (f64) {
// CHECK:           stencil.return %{{.*}}, %{{.*}} : f64, f64
// CHECK:         %[[UP:.*]]:2 = stencil.apply(%[[U2:.*]] = %{{.*}} : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) {
// CHECK-NEXT:      %[[K:.*]] = stencil.index 2 <[0, 0, 0]>
// CHECK-NEXT:      %[[I:.*]] = stencil.index 0 <[-1, 0, 0]>
// CHECK-NEXT:      %[[J:.*]] = stencil.index 1 <[0, 0, 0]>
// CHECK-NEXT:      %{{.*}} = stencil.dyn_access %[[U2]][%[[I]], %[[J]], %[[K]]] in <[-1, 0, 0]> : <[-1, 0, 0]> : !stencil.temp<?x?x?xf64>
// CHECK:         %[[CB:.*]]:2 = stencil.combine 2 at 16 lower = (%[[LO]]#0, %[[LO]]#1 : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) upper = (%[[UP]]#0, %[[UP]]#1 : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>
// CHECK:         stencil.store %[[CB]]#0 to %{{.*}}(<[0, 0, 0], [32, 32, 32]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
// CHECK:         stencil.store %[[CB]]#1 to %{{.*}}(<[0, 0, 0], [32, 32, 32]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
func.func @column_physics(%u_in: !stencil.field<?x?x?xf64>, %coef_in: !stencil.field<?xf64>, %surf_in: !stencil.field<?x?xf64>, %a_out: !stencil.field<?x?x?xf64>, %b_out: !stencil.field<?x?x?xf64>) attributes {stencil.program} {
  %u = stencil.cast %u_in : !stencil.field<?x?x?xf64> -> !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
  %coef = stencil.cast %coef_in : !stencil.field<?xf64> -> !stencil.field<[-2,34]xf64>
  %surf = stencil.cast %surf_in : !stencil.field<?x?xf64> -> !stencil.field<[-2,34]x[-2,34]xf64>
  %a = stencil.cast %a_out : !stencil.field<?x?x?xf64> -> !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
  %b = stencil.cast %b_out : !stencil.field<?x?x?xf64> -> !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
  %ut = stencil.load %u : !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?x?xf64>
  %ct = stencil.load %coef : !stencil.field<[-2,34]xf64> -> !stencil.temp<?xf64>
  %st = stencil.load %surf : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  // Below the cut: implicit vertical mixing weighted by the column profile.
  %lo:2 = stencil.apply(%uu = %ut : !stencil.temp<?x?x?xf64>, %cc = %ct : !stencil.temp<?xf64>, %ss = %st : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) {
    %below = stencil.access %uu[0, 0, -1] : !stencil.temp<?x?x?xf64>
    %w0 = stencil.access %cc[_, _, 0] : !stencil.temp<?xf64>
    %w1 = stencil.access %cc[_, _, 1] : !stencil.temp<?xf64>
    %h = stencil.access %ss[1, -1, _] : !stencil.temp<?x?xf64>
    %zero = arith.constant 0.0 : f64
    %wet = arith.cmpf ogt, %h, %zero : f64
    %mix = scf.if %wet -> (f64) {
      %p = arith.mulf %below, %w0 : f64
      scf.yield %p : f64
    } else {
      %q = arith.mulf %below, %w1 : f64
      scf.yield %q : f64
    }
    %grad = arith.subf %w1, %w0 : f64
    stencil.return %mix, %grad : f64, f64
  }
  // Above the cut: a semi-Lagrangian style lookup at a computed index.
  %up:2 = stencil.apply(%uv = %ut : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) {
    %k = stencil.index 2 <[0, 0, 0]>
    %i = stencil.index 0 <[-1, 0, 0]>
    %j = stencil.index 1 <[0, 0, 0]>
    %v = stencil.dyn_access %uv[%i, %j, %k] in <[-1, 0, 0]> : <[-1, 0, 0]> : !stencil.temp<?x?x?xf64>
    %r0 = stencil.store_result %v : !stencil.result<f64>
    %r1 = stencil.store_result : !stencil.result<f64>
    stencil.return %r0, %r1 : !stencil.result<f64>, !stencil.result<f64>
  }
  %cb:2 = stencil.combine 2 at 16 lower = (%lo#0, %lo#1 : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) upper = (%up#0, %up#1 : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>) : !stencil.temp<?x?x?xf64>, !stencil.temp<?x?x?xf64>
  stencil.store %cb#0 to %a(<[0, 0, 0], [32, 32, 32]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
  stencil.store %cb#1 to %b(<[0, 0, 0], [32, 32, 32]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-2,34]x[-2,34]x[-2,34]xf64>
  func.return
}
