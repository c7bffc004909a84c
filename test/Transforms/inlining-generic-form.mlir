// RUN: stencil-opt %s --stencil-inlining | FileCheck %s

// xDSL's generic form spells out the identity offset_mapping on every access;
// it must not prevent inlining.
// CHECK-LABEL: func.func @generic
// CHECK-COUNT-1: stencil.apply
// CHECK-NOT: stencil.apply
func.func @generic(%in: !stencil.field<[-2,10]xf64>, %out: !stencil.field<[-2,10]xf64>) {
  %t = "stencil.load"(%in) : (!stencil.field<[-2,10]xf64>) -> !stencil.temp<?xf64>
  %p = "stencil.apply"(%t) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%x: !stencil.temp<?xf64>):
    %a = "stencil.access"(%x) {offset = #stencil.index<[1]>, offset_mapping = #stencil.index<[0]>} : (!stencil.temp<?xf64>) -> f64
    "stencil.return"(%a) : (f64) -> ()
  }) : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  %c = "stencil.apply"(%p) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%y: !stencil.temp<?xf64>):
    %b = "stencil.access"(%y) {offset = #stencil.index<[-1]>, offset_mapping = #stencil.index<[0]>} : (!stencil.temp<?xf64>) -> f64
    "stencil.return"(%b) : (f64) -> ()
  }) : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  "stencil.store"(%c, %out) <{bounds = #stencil.bounds<[0], [8]>}> : (!stencil.temp<?xf64>, !stencil.field<[-2,10]xf64>) -> ()
  func.return
}
