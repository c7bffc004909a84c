// Types and attributes of the stencil dialect, ranks 1 to 3, all the usual
// element types, bounded and `?` forms.
// RUN: stencil-opt %s | stencil-opt | FileCheck %s
// RUN: stencil-opt %s -mlir-print-op-generic | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func private @fields_bounded
// CHECK-SAME: !stencil.field<[0,4]xf16>
// CHECK-SAME: !stencil.field<[-2,2]x[3,7]xf32>
// CHECK-SAME: !stencil.field<[-4,68]x[-4,68]x[-1,61]xf64>
// CHECK-SAME: !stencil.field<[0,1]xi32>
// CHECK-SAME: !stencil.field<[1,2]x[1,2]xi64>
// CHECK-SAME: !stencil.field<[-9,-3]x[0,1]x[5,6]xindex>
func.func private @fields_bounded(!stencil.field<[0,4]xf16>, !stencil.field<[-2,2]x[3,7]xf32>, !stencil.field<[-4,68]x[-4,68]x[-1,61]xf64>, !stencil.field<[0,1]xi32>, !stencil.field<[1, 2]x[ 1 ,2 ]xi64>, !stencil.field<[-9,-3]x[0,1]x[5,6]xindex>)

// CHECK-LABEL: func.func private @fields_dynamic
// CHECK-SAME: !stencil.field<?xf16>, !stencil.field<?x?xf32>, !stencil.field<?x?x?xf64>, !stencil.field<?xi32>, !stencil.field<?x?xi64>, !stencil.field<?x?x?xindex>
func.func private @fields_dynamic(!stencil.field<?xf16>, !stencil.field<?x?xf32>, !stencil.field<?x?x?xf64>, !stencil.field<?xi32>, !stencil.field<?x?xi64>, !stencil.field<?x?x?xindex>)

// CHECK-LABEL: func.func private @temps
// CHECK-SAME: !stencil.temp<[0,64]xf16>, !stencil.temp<[-1,65]x[0,64]xf32>, !stencil.temp<[0,1]x[0,2]x[0,3]xf64>
// CHECK-SAME: !stencil.temp<?xi32>, !stencil.temp<?x?xi64>, !stencil.temp<?x?x?xindex>
func.func private @temps(!stencil.temp<[0,64]xf16>, !stencil.temp<[-1,65]x[0,64]xf32>, !stencil.temp<[0,1]x[0,2]x[0,3]xf64>, !stencil.temp<?xi32>, !stencil.temp<?x?xi64>, !stencil.temp<?x?x?xindex>)

// CHECK-LABEL: func.func private @results
// CHECK-SAME: !stencil.result<f16>, !stencil.result<f32>, !stencil.result<f64>, !stencil.result<i32>, !stencil.result<i64>, !stencil.result<index>
func.func private @results(!stencil.result<f16>, !stencil.result<f32>, !stencil.result<f64>, !stencil.result<i32>, !stencil.result<i64>, !stencil.result<index>)

// CHECK-LABEL: func.func private @attrs
// CHECK-SAME: b1 = #stencil.bounds<[0], [64]>
// CHECK-SAME: b2 = #stencil.bounds<[-1, -2], [3, 4]>
// CHECK-SAME: b3 = #stencil.bounds<[0, 0, 0], [1, 1, 2]>
// CHECK-SAME: i1 = #stencil.index<[5]>
// CHECK-SAME: i2 = #stencil.index<[0, -1]>
// CHECK-SAME: i3 = #stencil.index<[1, 2, -3]>
func.func private @attrs() attributes {i1 = #stencil.index<[5]>, i2 = #stencil.index<[0, -1]>, i3 = #stencil.index<[1,2,-3]>, b1 = #stencil.bounds<[0], [64]>, b2 = #stencil.bounds<[-1, -2], [3, 4]>, b3 = #stencil.bounds<[0,0,0],[1,1,2]>}

