// RUN: stencil-opt %s --stencil-shape-inference --convert-stencil-to-loops=parallel=false --canonicalize --cse -split-input-file | FileCheck %s

// Forms whose meaning depends on program order: stores take effect in the
// order they are written, and a load is a snapshot of its field at the load.

// Two stores into one field: the second (%a) wins. %a cannot be written
// straight into %out at its apply (the store of %b comes in between), so it
// goes through a buffer that is copied at its own store; %b is written in
// place.
// CHECK-LABEL: func.func @store_order(
// CHECK-SAME:      %[[IN:.*]]: memref<8xf64>, %[[OUT:.*]]: memref<8xf64>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.for
// CHECK:           %[[A:.*]] = memref.load %[[IN]]
// CHECK:           memref.store %[[A]], %[[BUF]]
// CHECK:         scf.for
// CHECK:           arith.addf
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:         scf.for
// CHECK:           %[[C:.*]] = memref.load %[[BUF]]
// CHECK:           memref.store %[[C]], %[[OUT]]
// CHECK:         memref.dealloc %[[BUF]]
func.func @store_order(%in : !stencil.field<[0,8]xf64>, %out : !stencil.field<[0,8]xf64>) {
  %t = stencil.load %in : !stencil.field<[0,8]xf64> -> !stencil.temp<?xf64>
  %a = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  %b = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    %w = arith.addf %v, %v : f64
    stencil.return %w : f64
  }
  stencil.store %b to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  stencil.store %a to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

// The same field for both iter_args: the apply reads the field it updates,
// so its result goes to a buffer (allocated once, outside the time loop) and
// is copied into the field after the sweep.
// CHECK-LABEL: func.func @aliased_iter_args(
// CHECK-SAME:      %[[F:.*]]: memref<10xf64>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             memref.load %[[F]]
// CHECK:             memref.load %[[F]]
// CHECK:             memref.store %{{.*}}, %[[BUF]]
// CHECK:           scf.for
// CHECK:             memref.load %[[BUF]]
// CHECK:             memref.store %{{.*}}, %[[F]]
// CHECK:         memref.dealloc %[[BUF]]
func.func @aliased_iter_args(%f : !stencil.field<[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %f, %b = %f) -> (!stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) {
    %t = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
    %o = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %h = stencil.access %x[1] : !stencil.temp<?xf64>
      %s = arith.addf %l, %h : f64
      stencil.return %s : f64
    }
    stencil.store %o to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>
  }
  func.return
}

// -----

// A yield that hands one buffer to both iter_args makes them alias from the
// second step on: the load of %a, read after the apply into %b, must be a
// snapshot.
// CHECK-LABEL: func.func @aliased_by_yield(
// CHECK:         %[[SNAP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<10xf64>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %[[SNAP]]
func.func @aliased_by_yield(%f : !stencil.field<[-1,9]xf64>, %g : !stencil.field<[-1,9]xf64>, %o : !stencil.field<[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %f, %b = %g) -> (!stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) {
    %t = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
    %n = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %x[1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    %m = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %x[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %m to %o(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    scf.yield %b, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>
  }
  func.return
}

// -----

// Ping-pong buffers never alias: the load stays a view and the apply writes
// straight into the other buffer.
// CHECK-LABEL: func.func @ping_pong(
// CHECK-NOT:     memref.alloc
// CHECK:         scf.for
// CHECK-NOT:     memref.alloc
// CHECK:         return
func.func @ping_pong(%f : !stencil.field<[-1,9]xf64>, %g : !stencil.field<[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %f, %b = %g) -> (!stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) {
    %t = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
    %n = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %h = stencil.access %x[1] : !stencil.temp<?xf64>
      %s = arith.addf %l, %h : f64
      stencil.return %s : f64
    }
    stencil.store %n to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>
  }
  func.return
}
