// The forms xDSL's bufferization and unrolling produce: fields allocated with
// stencil.alloc, a stencil.buffer into a field, applies that read fields and
// write `outs` fields on `to` bounds, unrolled returns of plain values.
// RUN: stencil-opt %s | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func @smooth_twice
// CHECK:         %[[TMP:.*]] = stencil.alloc : !stencil.field<[0,32]x[-1,33]xf32>
// CHECK:         stencil.apply(%[[A:.*]] = %{{.*}} : !stencil.field<[-2,34]x[-2,34]xf32>) outs (%[[TMP]] : !stencil.field<[0,32]x[-1,33]xf32>) {
// CHECK-NEXT:      %[[L:.*]] = stencil.access %[[A]][-1, 0] : !stencil.field<[-2,34]x[-2,34]xf32>
// CHECK-NEXT:      %[[R:.*]] = stencil.access %[[A]][1, 0] : !stencil.field<[-2,34]x[-2,34]xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:      stencil.return %[[S]] : f32
// CHECK-NEXT:    } to <[0, -1], [32, 33]>
// CHECK:         stencil.apply(%[[B:.*]] = %[[TMP]] : !stencil.field<[0,32]x[-1,33]xf32>) outs (%{{.*}} : !stencil.field<[-2,34]x[-2,34]xf32>) {
// CHECK-NEXT:      %[[U:.*]] = stencil.access %[[B]][0, -1] : !stencil.field<[0,32]x[-1,33]xf32>
// CHECK-NEXT:      %[[D:.*]] = stencil.access %[[B]][0, 1] : !stencil.field<[0,32]x[-1,33]xf32>
// CHECK-NEXT:      %[[E:.*]] = stencil.access %[[B]][0, 0] : !stencil.field<[0,32]x[-1,33]xf32>
// CHECK-NEXT:      %[[F:.*]] = stencil.access %[[B]][0, 2] : !stencil.field<[0,32]x[-1,33]xf32>
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[U]], %[[D]] : f32
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[E]], %[[F]] : f32
// CHECK-NEXT:      stencil.return %[[S0]], %[[S1]] unroll <[1, 2]> : f32, f32
// CHECK-NEXT:    } to <[0, 0], [32, 32]>
func.func @smooth_twice(%in: !stencil.field<[-2,34]x[-2,34]xf32>, %out: !stencil.field<[-2,34]x[-2,34]xf32>) {
  %tmp = stencil.alloc : !stencil.field<[0,32]x[-1,33]xf32>
  stencil.apply(%a = %in : !stencil.field<[-2,34]x[-2,34]xf32>) outs (%tmp : !stencil.field<[0,32]x[-1,33]xf32>) {
    %l = stencil.access %a[-1, 0] : !stencil.field<[-2,34]x[-2,34]xf32>
    %r = stencil.access %a[1, 0] : !stencil.field<[-2,34]x[-2,34]xf32>
    %s = arith.addf %l, %r : f32
    stencil.return %s : f32
  } to <[0, -1], [32, 33]>
  stencil.apply(%b = %tmp : !stencil.field<[0,32]x[-1,33]xf32>) outs (%out : !stencil.field<[-2,34]x[-2,34]xf32>) {
    %u = stencil.access %b[0, -1] : !stencil.field<[0,32]x[-1,33]xf32>
    %d = stencil.access %b[0, 1] : !stencil.field<[0,32]x[-1,33]xf32>
    %e = stencil.access %b[0, 0] : !stencil.field<[0,32]x[-1,33]xf32>
    %f = stencil.access %b[0, 2] : !stencil.field<[0,32]x[-1,33]xf32>
    %s0 = arith.addf %u, %d : f32
    %s1 = arith.addf %e, %f : f32
    stencil.return %s0, %s1 unroll <[1, 2]> : f32, f32
  } to <[0, 0], [32, 32]>
  func.return
}

// A value kept across an in-place update: the loaded temp is copied into a
// new field before the apply overwrites the field it came from.
// CHECK-LABEL: func.func @shift_in_place
// CHECK:         %[[T:.*]] = stencil.load %[[F:.*]] : !stencil.field<[0,16]xf64> -> !stencil.temp<[0,16]xf64>
// CHECK-NEXT:    %[[C:.*]] = stencil.buffer %[[T]] : !stencil.temp<[0,16]xf64> -> !stencil.field<[0,16]xf64>
// CHECK-NEXT:    stencil.apply(%[[X:.*]] = %[[C]] : !stencil.field<[0,16]xf64>) outs (%[[F]] : !stencil.field<[0,16]xf64>) {
// CHECK-NEXT:      %[[V:.*]] = stencil.access %[[X]][1] : !stencil.field<[0,16]xf64>
// CHECK-NEXT:      stencil.return %[[V]] : f64
// CHECK-NEXT:    } to <[0], [15]>
func.func @shift_in_place(%f: !stencil.field<[0,16]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,16]xf64> -> !stencil.temp<[0,16]xf64>
  %copy = stencil.buffer %t : !stencil.temp<[0,16]xf64> -> !stencil.field<[0,16]xf64>
  stencil.apply(%x = %copy : !stencil.field<[0,16]xf64>) outs (%f : !stencil.field<[0,16]xf64>) {
    %v = stencil.access %x[1] : !stencil.field<[0,16]xf64>
    stencil.return %v : f64
  } to <[0], [15]>
  func.return
}
