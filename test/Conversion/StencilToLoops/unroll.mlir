// RUN: stencil-opt %s --convert-stencil-to-loops --canonicalize --cse | FileCheck %s

// An unrolled apply: its loop steps by the unroll factor and each iteration
// computes the block of points. Where the extent is a multiple of the
// factor, nothing is guarded.
// CHECK-LABEL: func.func @multiple(
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%c2)
// CHECK-NOT:       scf.if
// CHECK:           scf.reduce
func.func @multiple(%in : !stencil.field<[-1,7]xf64>, %out : !stencil.field<[-1,7]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,7]xf64> -> !stencil.temp<[-1,7]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-1,7]xf64>) -> (!stencil.temp<[0,6]xf64>) {
    %a0 = stencil.access %x[-1] : !stencil.temp<[-1,7]xf64>
    %b0 = stencil.access %x[1] : !stencil.temp<[-1,7]xf64>
    %s0 = arith.addf %a0, %b0 : f64
    %a1 = stencil.access %x[0] : !stencil.temp<[-1,7]xf64>
    %b1 = stencil.access %x[2] : !stencil.temp<[-1,7]xf64>
    %s1 = arith.addf %a1, %b1 : f64
    stencil.return %s0, %s1 unroll <[2]> : f64, f64
  }
  stencil.store %r to %out(<[0], [6]>) : !stencil.temp<[0,6]xf64> to !stencil.field<[-1,7]xf64>
  func.return
}

// Five points unrolled by 2 (the form xDSL's stencil-unroll writes for odd
// extents): the last block's second point (5) is outside, so that point's
// loads, arithmetic and store run under a test of the point, and nothing
// past the field (its 7 elements: -1 to 5) is read at base 4.
// CHECK-LABEL: func.func @remainder(
// CHECK-SAME:      %[[IN:.*]]: memref<7xf64>, %[[OUT:.*]]: memref<7xf64>)
// CHECK:         scf.parallel (%[[I:.*]]) = (%c0) to (%c5) step (%c2)
// CHECK:           %[[A0:.*]] = memref.load %[[IN]][%[[I]]]
// CHECK:           %[[J:.*]] = arith.addi %[[I]], %c2
// CHECK:           %[[B0:.*]] = memref.load %[[IN]][%[[J]]]
// CHECK:           %[[S0:.*]] = arith.addf %[[A0]], %[[B0]]
// CHECK:           %[[K:.*]] = arith.addi %[[I]], %c1
// CHECK:           memref.store %[[S0]], %[[OUT]][%[[K]]]
// CHECK:           %[[IN5:.*]] = arith.cmpi slt, %[[K]], %c5
// CHECK:           scf.if %[[IN5]] {
// CHECK:             memref.load %[[IN]][%[[K]]]
// CHECK:             %[[L:.*]] = arith.addi %[[I]], %c3
// CHECK:             memref.load %[[IN]][%[[L]]]
// CHECK:             arith.addf
// CHECK:             memref.store %{{.*}}, %[[OUT]][%[[J]]]
// CHECK:           }
func.func @remainder(%in : !stencil.field<[-1,6]xf64>, %out : !stencil.field<[-1,6]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,6]xf64> -> !stencil.temp<[-1,6]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-1,6]xf64>) -> (!stencil.temp<[0,5]xf64>) {
    %a0 = stencil.access %x[-1] : !stencil.temp<[-1,6]xf64>
    %b0 = stencil.access %x[1] : !stencil.temp<[-1,6]xf64>
    %s0 = arith.addf %a0, %b0 : f64
    %a1 = stencil.access %x[0] : !stencil.temp<[-1,6]xf64>
    %b1 = stencil.access %x[2] : !stencil.temp<[-1,6]xf64>
    %s1 = arith.addf %a1, %b1 : f64
    stencil.return %s0, %s1 unroll <[2]> : f64, f64
  }
  stencil.store %r to %out(<[0], [5]>) : !stencil.temp<[0,5]xf64> to !stencil.field<[-1,6]xf64>
  func.return
}

// A value shared by the block's points (CSE'd by a frontend) is computed
// once, outside the test, when a point inside everywhere needs it.
// CHECK-LABEL: func.func @shared(
// CHECK:         scf.parallel
// CHECK:           math.sqrt
// CHECK:           scf.if
// CHECK-NOT:         math.sqrt
// CHECK:           }
func.func @shared(%in : !stencil.field<[-1,6]xf64>, %out : !stencil.field<[-1,6]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,6]xf64> -> !stencil.temp<[-1,6]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-1,6]xf64>) -> (!stencil.temp<[0,5]xf64>) {
    %c = stencil.access %x[0] : !stencil.temp<[-1,6]xf64>
    %q = math.sqrt %c : f64
    %b1 = stencil.access %x[2] : !stencil.temp<[-1,6]xf64>
    %s1 = arith.addf %q, %b1 : f64
    stencil.return %q, %s1 unroll <[2]> : f64, f64
  }
  stencil.store %r to %out(<[0], [5]>) : !stencil.temp<[0,5]xf64> to !stencil.field<[-1,6]xf64>
  func.return
}

// A value returned for both points of the block (computed where the first
// point needs it) is still stored for the second, under its test.
// CHECK-LABEL: func.func @same_value(
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK:           %[[V:.*]] = math.sqrt
// CHECK:           memref.store %[[V]]
// CHECK:           scf.if
// CHECK:             memref.store %[[V]]
func.func @same_value(%in : !stencil.field<[-1,6]xf64>, %out : !stencil.field<[-1,6]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,6]xf64> -> !stencil.temp<[-1,6]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-1,6]xf64>) -> (!stencil.temp<[0,5]xf64>) {
    %c = stencil.access %x[0] : !stencil.temp<[-1,6]xf64>
    %q = math.sqrt %c : f64
    stencil.return %q, %q unroll <[2]> : f64, f64
  }
  stencil.store %r to %out(<[0], [5]>) : !stencil.temp<[0,5]xf64> to !stencil.field<[-1,6]xf64>
  func.return
}
