// RUN: stencil-opt %s --convert-stencil-to-loops --canonicalize --cse | FileCheck %s
// RUN: stencil-opt %s --convert-stencil-to-loops=parallel=false --canonicalize | FileCheck %s --check-prefix=SEQ
// RUN: stencil-opt %s --convert-stencil-to-loops=emit-c-interface=false | FileCheck %s --check-prefix=NOCI

// Fields become memrefs of their full extent (6x5 for [-1,5]x[-1,4]), the
// time loop carries the memrefs, and the apply writes straight into the
// stored field at index point - lb.

// CHECK-LABEL: func.func @laplace2d(
// CHECK-SAME:      %[[U0:.*]]: memref<6x5xf64>, %[[U1:.*]]: memref<6x5xf64>) attributes {llvm.emit_c_interface}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %{{.*}} = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[A:.*]] = %[[U0]], %[[B:.*]] = %[[U1]]) -> (memref<6x5xf64>, memref<6x5xf64>) {
// Only the outermost dimension is parallel; the inner loop stays a plain
// loop for the vectorizer.
// CHECK:           scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[C4]]) step (%[[C1]]) {
// CHECK:             scf.for %[[J:.*]] = %[[C0]] to %[[C3]] step %[[C1]] {
// CHECK:             %[[I1:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK:             %[[J2:.*]] = arith.addi %[[J]], %[[C2]] : index
// CHECK:             %[[N:.*]] = memref.load %[[A]][%[[I1]], %[[J2]]] : memref<6x5xf64>
// CHECK:             %[[S:.*]] = memref.load %[[A]][%[[I1]], %[[J]]] : memref<6x5xf64>
// CHECK:             %[[SUM:.*]] = arith.addf %[[N]], %[[S]] : f64
// CHECK:             %[[J1:.*]] = arith.addi %[[J]], %[[C1]] : index
// CHECK:             memref.store %[[SUM]], %[[B]][%[[I1]], %[[J1]]] {stencil.update} : memref<6x5xf64>
// CHECK:           scf.yield %[[B]], %[[A]] : memref<6x5xf64>, memref<6x5xf64>
// CHECK-NOT:     {{stencil\.[a-tv-z_]}}
// CHECK-NOT:     unrealized_conversion_cast

// SEQ-LABEL: func.func @laplace2d(
// SEQ:         scf.for
// SEQ:           scf.for
// SEQ:             scf.for
// SEQ-NOT:     scf.parallel

// NOCI-LABEL: func.func @laplace2d(
// NOCI-NOT:    llvm.emit_c_interface
// NOCI-SAME:   {

func.func @laplace2d(%u0 : !stencil.field<[-1,5]x[-1,4]xf64>, %u1 : !stencil.field<[-1,5]x[-1,4]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,5]x[-1,4]xf64>, !stencil.field<[-1,5]x[-1,4]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,5]x[-1,4]xf64> -> !stencil.temp<[0,4]x[-1,4]xf64>
    %out = stencil.apply(%x = %in : !stencil.temp<[0,4]x[-1,4]xf64>) -> (!stencil.temp<[0,4]x[0,3]xf64>) {
      %n = stencil.access %x[0, 1] : !stencil.temp<[0,4]x[-1,4]xf64>
      %s = stencil.access %x[0, -1] : !stencil.temp<[0,4]x[-1,4]xf64>
      %v = arith.addf %n, %s : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %out to %b(<[0, 0], [4, 3]>) : !stencil.temp<[0,4]x[0,3]xf64> to !stencil.field<[-1,5]x[-1,4]xf64>
    scf.yield %b, %a : !stencil.field<[-1,5]x[-1,4]xf64>, !stencil.field<[-1,5]x[-1,4]xf64>
  }
  func.return
}
