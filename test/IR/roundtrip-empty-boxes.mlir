// Empty boxes (upper bound equal to the lower bound) are accepted, though
// xDSL rejects them (it wants ub > lb).
// RUN: stencil-opt %s | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func private @empty_boxes
// CHECK-SAME: !stencil.field<[0,0]xi32>, !stencil.temp<[3,3]x[0,4]xf64>
// CHECK-SAME: b = #stencil.bounds<[0, 0], [0, 4]>
func.func private @empty_boxes(!stencil.field<[0,0]xi32>, !stencil.temp<[3,3]x[0,4]xf64>) attributes {b = #stencil.bounds<[0, 0], [0, 4]>}
