// Spellings that xDSL prints or accepts and that must parse unchanged:
// `builtin.module`, a space before access offsets, an access attribute
// dictionary before the offsets (where xDSL prints it), xDSL's spacing of an
// apply attribute dictionary, and xDSL's generic form (access offsets and the
// combine segment sizes as attributes, the rest as properties).
// RUN: stencil-opt %s -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @spaced
// CHECK:         %{{.*}} = stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<[-1,9]xf64>) -> (!stencil.temp<[0,8]xf64>) attributes {tag} {
// CHECK-NEXT:      %{{.*}} = stencil.access %[[X]][-1] : !stencil.temp<[-1,9]xf64>
// CHECK-NEXT:      %{{.*}} = stencil.access %[[X]][1] attributes {kept = 1 : i64} : !stencil.temp<[-1,9]xf64>
builtin.module {
  func.func @spaced(%0: !stencil.field<[-1,9]xf64>, %1: !stencil.field<[-1,9]xf64>) {
    %2 = stencil.load %0 : !stencil.field<[-1,9]xf64> -> !stencil.temp<[-1,9]xf64>
    %3 = stencil.apply(%4 = %2 : !stencil.temp<[-1,9]xf64>) -> (!stencil.temp<[0,8]xf64>)  attributes {tag}{
      %5 = stencil.access %4 [-1] : !stencil.temp<[-1,9]xf64>
      %6 = stencil.access %4 attributes {kept = 1 : i64} [1] : !stencil.temp<[-1,9]xf64>
      %7 = arith.addf %5, %6 : f64
      stencil.return %7 : f64
    }
    stencil.store %3 to %1 (<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[-1,9]xf64>
    func.return
  }
}

// -----

// CHECK-LABEL: func.func @xdsl_generic
// CHECK:         %{{.*}} = stencil.apply(%[[A:.*]] = %{{.*}} : !stencil.temp<?x?xf64>, %[[B:.*]] = %{{.*}} : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
// CHECK-NEXT:      %{{.*}} = stencil.access %[[A]][0, -1] : !stencil.temp<?x?xf64>
// CHECK-NEXT:      %{{.*}} = stencil.access %[[B]][_, 3] : !stencil.temp<?xf64>
// CHECK-NEXT:      %{{.*}} = stencil.index 1 <[0, 0]>
// CHECK:           stencil.return %{{.*}} unroll <[1, 1]> : !stencil.result<f64>
// CHECK:         %{{.*}}:2 = stencil.combine 1 at 4 lower = (%{{.*}} : !stencil.temp<?x?xf64>) upper = (%{{.*}} : !stencil.temp<?x?xf64>) lowerext = %{{.*}} : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
// CHECK:         stencil.store %{{.*}} to %{{.*}}(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,8]x[0,8]xf64>
"builtin.module"() ({
  "func.func"() <{sym_name = "xdsl_generic", function_type = (!stencil.temp<?x?xf64>, !stencil.temp<?xf64>, !stencil.field<[0,8]x[0,8]xf64>) -> ()}> ({
  ^bb0(%t: !stencil.temp<?x?xf64>, %c: !stencil.temp<?xf64>, %f: !stencil.field<[0,8]x[0,8]xf64>):
    %r = "stencil.apply"(%t, %c) <{operandSegmentSizes = array<i32: 2, 0>}> ({
    ^bb1(%a: !stencil.temp<?x?xf64>, %b: !stencil.temp<?xf64>):
      %v = "stencil.access"(%a) {offset = #stencil.index<[0, -1]>, offset_mapping = #stencil.index<[0, 1]>} : (!stencil.temp<?x?xf64>) -> f64
      %w = "stencil.access"(%b) {offset = #stencil.index<[3]>, offset_mapping = #stencil.index<[1]>} : (!stencil.temp<?xf64>) -> f64
      %i = "stencil.index"() <{dim = 1 : index, offset = #stencil.index<[0, 0]>}> : () -> index
      %s = "arith.addf"(%v, %w) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      %x = "stencil.store_result"(%s) : (f64) -> !stencil.result<f64>
      "stencil.return"(%x) <{unroll = #stencil.index<[1, 1]>}> : (!stencil.result<f64>) -> ()
    }) : (!stencil.temp<?x?xf64>, !stencil.temp<?xf64>) -> !stencil.temp<?x?xf64>
    %k:2 = "stencil.combine"(%r, %t, %r) <{dim = 1 : index, index = 4 : index}> {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>)
    "stencil.store"(%k#0, %f) <{bounds = #stencil.bounds<[0, 0], [8, 8]>}> : (!stencil.temp<?x?xf64>, !stencil.field<[0,8]x[0,8]xf64>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// Store bounds in the older `([lb] : [ub])` form (xDSL before 2024, the Open
// Earth Compiler) parse and print in the current form.
// CHECK-LABEL: func.func @legacy_store_bounds
// CHECK:         stencil.store %{{.*}} to %{{.*}}(<[0, -1], [8, 7]>) : !stencil.temp<?x?xf32> to !stencil.field<[-1,9]x[-1,9]xf32>
func.func @legacy_store_bounds(%t: !stencil.temp<?x?xf32>, %f: !stencil.field<[-1,9]x[-1,9]xf32>) {
  stencil.store %t to %f([0, -1] : [8, 7]) : !stencil.temp<?x?xf32> to !stencil.field<[-1,9]x[-1,9]xf32>
  func.return
}
