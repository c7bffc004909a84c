// Fields that view external memory, as frontends that start from arrays
// (Fortran through PSyclone, memrefs of a host program) write them:
// stencil.external_load into a field, stencil.external_store back.
// RUN: stencil-opt %s | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func @heat_row
// CHECK-SAME:      (%[[SRC:.*]]: memref<130xf64>, %[[DST:.*]]: memref<130xf64>, %[[K:.*]]: f64)
// CHECK:         %[[FI:.*]] = stencil.external_load %[[SRC]] : memref<130xf64> -> !stencil.field<[-1,129]xf64>
// CHECK-NEXT:    %[[FO:.*]] = stencil.external_load %[[DST]] : memref<130xf64> -> !stencil.field<[-1,129]xf64>
// CHECK-NEXT:    %[[T:.*]] = stencil.load %[[FI]] : !stencil.field<[-1,129]xf64> -> !stencil.temp<?xf64>
// CHECK-NEXT:    %[[R:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<?xf64>, %[[KK:.*]] = %[[K]] : f64) -> (!stencil.temp<?xf64>) {
// CHECK:         stencil.store %[[R]] to %[[FO]](<[0], [128]>) : !stencil.temp<?xf64> to !stencil.field<[-1,129]xf64>
// CHECK-NEXT:    stencil.external_store %[[FO]] to %[[DST]] : !stencil.field<[-1,129]xf64> to memref<130xf64>
func.func @heat_row(%src: memref<130xf64>, %dst: memref<130xf64>, %k: f64) {
  %fi = stencil.external_load %src : memref<130xf64> -> !stencil.field<[-1,129]xf64>
  %fo = stencil.external_load %dst : memref<130xf64> -> !stencil.field<[-1,129]xf64>
  %t = stencil.load %fi : !stencil.field<[-1,129]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>, %kk = %k : f64) -> (!stencil.temp<?xf64>) {
    %w = stencil.access %x[-1] : !stencil.temp<?xf64>
    %c = stencil.access %x[0] : !stencil.temp<?xf64>
    %e = stencil.access %x[1] : !stencil.temp<?xf64>
    %two = arith.constant 2.0 : f64
    %c2 = arith.mulf %c, %two : f64
    %we = arith.addf %w, %e : f64
    %lap = arith.subf %we, %c2 : f64
    %d = arith.mulf %lap, %kk : f64
    %n = arith.addf %c, %d : f64
    stencil.return %n : f64
  }
  stencil.store %r to %fo(<[0], [128]>) : !stencil.temp<?xf64> to !stencil.field<[-1,129]xf64>
  stencil.external_store %fo to %dst : !stencil.field<[-1,129]xf64> to memref<130xf64>
  func.return
}

// Dynamically sized memory: the field stays `?` until a cast gives bounds.
// CHECK-LABEL: func.func @dynamic_memory
// CHECK:         %[[D:.*]] = stencil.external_load %{{.*}} : memref<?x?xf32> -> !stencil.field<?x?xf32>
// CHECK-NEXT:    %[[C:.*]] = stencil.cast %[[D]] : !stencil.field<?x?xf32> -> !stencil.field<[0,8]x[0,8]xf32>
// CHECK-NEXT:    stencil.external_store %[[C]] to %{{.*}} : !stencil.field<[0,8]x[0,8]xf32> to memref<?x?xf32>
func.func @dynamic_memory(%m: memref<?x?xf32>) {
  %d = stencil.external_load %m : memref<?x?xf32> -> !stencil.field<?x?xf32>
  %c = stencil.cast %d : !stencil.field<?x?xf32> -> !stencil.field<[0,8]x[0,8]xf32>
  stencil.external_store %c to %m : !stencil.field<[0,8]x[0,8]xf32> to memref<?x?xf32>
  func.return
}
