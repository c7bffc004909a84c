// RUN: stencil-opt %s --convert-stencil-to-loops --canonicalize --cse | FileCheck %s
// RUN: stencil-opt %s --convert-stencil-to-loops | FileCheck %s --check-prefix=CAST

// Dynamic fields are cast to their static extent, an intermediate temp lives
// in a buffer indexed from its own lower bound, the last apply writes straight
// into the output field, and the buffer is freed at the end of the block.

// CHECK-LABEL: func.func @lap_of_lap(
// CHECK-SAME:      %[[IN:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<10x8xf32>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[IN]]
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK:         scf.parallel
// CHECK:           memref.load %[[BUF]]
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK:         memref.dealloc %[[BUF]] : memref<10x8xf32>
// CHECK-NEXT:    return

// CAST-LABEL: func.func @lap_of_lap(
// CAST-SAME:      %[[IN:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CAST-DAG:     %[[I:.*]] = memref.cast %[[IN]] : memref<?x?xf32> to memref<12x12xf32>
// CAST-DAG:     %[[O:.*]] = memref.cast %[[OUT]] : memref<?x?xf32> to memref<12x12xf32>
// CAST:         memref.load %[[I]]
// CAST:         memref.store %{{.*}}, %[[O]]
func.func @lap_of_lap(%in: !stencil.field<?x?xf32>, %out: !stencil.field<?x?xf32>) {
  %a = stencil.cast %in : !stencil.field<?x?xf32> -> !stencil.field<[-2,10]x[-2,10]xf32>
  %b = stencil.cast %out : !stencil.field<?x?xf32> -> !stencil.field<[-2,10]x[-2,10]xf32>
  %t = stencil.load %a : !stencil.field<[-2,10]x[-2,10]xf32> -> !stencil.temp<[-2,9]x[-2,10]xf32>
  %l = stencil.apply(%x = %t : !stencil.temp<[-2,9]x[-2,10]xf32>) -> (!stencil.temp<[-1,9]x[-1,7]xf32>) {
    %n = stencil.access %x[-1, 1] : !stencil.temp<[-2,9]x[-2,10]xf32>
    %s = stencil.access %x[0, -1] : !stencil.temp<[-2,9]x[-2,10]xf32>
    %v = arith.subf %n, %s : f32
    %r = stencil.store_result %v : !stencil.result<f32>
    stencil.return %r : !stencil.result<f32>
  }
  %l2 = stencil.apply(%y = %l : !stencil.temp<[-1,9]x[-1,7]xf32>) -> (!stencil.temp<[0,8]x[0,6]xf32>) {
    %n = stencil.access %y[-1, 1] : !stencil.temp<[-1,9]x[-1,7]xf32>
    %s = stencil.access %y[1, -1] : !stencil.temp<[-1,9]x[-1,7]xf32>
    %v = arith.mulf %n, %s : f32
    %r = stencil.store_result %v : !stencil.result<f32>
    stencil.return %r : !stencil.result<f32>
  }
  stencil.store %l2 to %b(<[0, 0], [8, 6]>) : !stencil.temp<[0,8]x[0,6]xf32> to !stencil.field<[-2,10]x[-2,10]xf32>
  func.return
}

// A store that covers less than the apply bounds, the result's only use:
// the apply writes the field on the store's box, no buffer, no copy.
// CHECK-LABEL: func.func @partial_store(
// CHECK-SAME:      %[[IN:.*]]: memref<8xf64>, %[[OUT:.*]]: memref<8xf64>)
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-NOT:     memref.alloc
// CHECK:         scf.parallel (%[[X:.*]]) =
// CHECK:           %[[V:.*]] = memref.load %[[IN]]
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[X]], %[[C2]]
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[C5]]
// CHECK:           %[[IN_BOX:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK:           scf.if %[[IN_BOX]] {
// CHECK:             memref.store %[[V]], %[[OUT]][%{{.*}}] {stencil.update} : memref<8xf64>
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @partial_store(%in: !stencil.field<[-1,7]xf64>, %out: !stencil.field<[-1,7]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,7]xf64> -> !stencil.temp<[0,6]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[0,6]xf64>) -> (!stencil.temp<[0,6]xf64>) {
    %c = stencil.access %x[0] : !stencil.temp<[0,6]xf64>
    %s = stencil.store_result %c : !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  stencil.store %r to %out(<[2], [5]>) : !stencil.temp<[0,6]xf64> to !stencil.field<[-1,7]xf64>
  func.return
}

// Loading and storing the same field in one block: the apply reads the
// field, so it computes into a buffer that the store then copies; the load
// needs no snapshot, as nothing writes the field while the apply reads it.
// CHECK-LABEL: func.func @in_place(
// CHECK-SAME:      %[[F:.*]]: memref<10xf64>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[F]]
// CHECK:           memref.load %[[F]]
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK:         scf.parallel
// CHECK:           memref.load %[[BUF]]
// CHECK:           memref.store %{{.*}}, %[[F]]
// CHECK:         memref.dealloc %[[BUF]]
func.func @in_place(%f: !stencil.field<[0,10]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,10]xf64> -> !stencil.temp<[0,10]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[0,10]xf64>) -> (!stencil.temp<[1,9]xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<[0,10]xf64>
    %h = stencil.access %x[1] : !stencil.temp<[0,10]xf64>
    %v = arith.addf %l, %h : f64
    %s = stencil.store_result %v : !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  stencil.store %r to %f(<[1], [9]>) : !stencil.temp<[1,9]xf64> to !stencil.field<[0,10]xf64>
  func.return
}

// A store under a condition is not a direct write: the apply fills a buffer
// and the copy into the field happens inside the scf.if.
// CHECK-LABEL: func.func @conditional_store(
// CHECK-SAME:      %[[IN:.*]]: memref<8xf64>, %[[OUT:.*]]: memref<8xf64>, %[[C:.*]]: i1)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK:         scf.if %[[C]] {
// CHECK:           scf.parallel
// CHECK:             memref.load %[[BUF]]
// CHECK:             memref.store %{{.*}}, %[[OUT]]
// CHECK:         }
// CHECK:         memref.dealloc %[[BUF]]
func.func @conditional_store(%in: !stencil.field<[0,8]xf64>, %out: !stencil.field<[0,8]xf64>, %c: i1) {
  %t = stencil.load %in : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
    stencil.return %v : f64
  }
  scf.if %c {
    stencil.store %r to %out(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  }
  func.return
}

// A field written under a condition later in the block is still written in
// the block: its load takes a snapshot, so the second apply reads the values
// of the time of the load.
// CHECK-LABEL: func.func @conditional_in_place(
// CHECK-SAME:      %[[F:.*]]: memref<8xf64>, %[[O:.*]]: memref<8xf64>, %[[C:.*]]: i1)
// CHECK:         %[[SNAP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[F]]
// CHECK:           memref.store %{{.*}}, %[[SNAP]]
// CHECK:         scf.if %[[C]]
// CHECK:         scf.parallel
// CHECK:           memref.load %[[SNAP]]
// CHECK:           memref.store %{{.*}}, %[[O]]
func.func @conditional_in_place(%f: !stencil.field<[0,8]xf64>, %o: !stencil.field<[0,8]xf64>, %c: i1) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
    %two = arith.constant 2.0 : f64
    %w = arith.mulf %v, %two : f64
    stencil.return %w : f64
  }
  scf.if %c {
    stencil.store %r to %f(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  }
  %s = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
    stencil.return %v : f64
  }
  stencil.store %s to %o(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// A result stored and read by a later apply on a larger box (fdtd-2d's ex
// and ey): the apply writes a buffer, which the later apply reads, and the
// field on the store's box in the same loop; no copy loop.
// CHECK-LABEL: func.func @stored_and_read(
// CHECK-SAME:      %[[IN:.*]]: memref<8xf64>, %[[A:.*]]: memref<8xf64>, %[[B:.*]]: memref<8xf64>)
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<7xf64>
// CHECK:         scf.parallel (%[[X:.*]]) =
// CHECK:           memref.store %[[V:.*]], %[[BUF]][%[[X]]] {stencil.update}
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %[[X]], %[[C6]]
// CHECK:           scf.if %[[LT]] {
// CHECK:             memref.store %[[V]], %[[A]][%{{.*}}] : memref<8xf64>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[BUF]]
// CHECK:           memref.load %[[BUF]]
// CHECK:           memref.store %{{.*}}, %[[B]]
// CHECK-NOT:     scf.parallel
// CHECK:         memref.dealloc %[[BUF]]
func.func @stored_and_read(%in: !stencil.field<[-1,7]xf64>, %a: !stencil.field<[-1,7]xf64>, %b: !stencil.field<[-1,7]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,7]xf64> -> !stencil.temp<[0,7]xf64>
  %x = stencil.apply(%u = %t : !stencil.temp<[0,7]xf64>) -> (!stencil.temp<[0,7]xf64>) {
    %c = stencil.access %u[0] : !stencil.temp<[0,7]xf64>
    %s = stencil.store_result %c : !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  %y = stencil.apply(%v = %x : !stencil.temp<[0,7]xf64>) -> (!stencil.temp<[0,6]xf64>) {
    %c = stencil.access %v[0] : !stencil.temp<[0,7]xf64>
    %n = stencil.access %v[1] : !stencil.temp<[0,7]xf64>
    %d = arith.subf %n, %c : f64
    %s = stencil.store_result %d : !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  stencil.store %x to %a(<[0], [6]>) : !stencil.temp<[0,7]xf64> to !stencil.field<[-1,7]xf64>
  stencil.store %y to %b(<[0], [6]>) : !stencil.temp<[0,6]xf64> to !stencil.field<[-1,7]xf64>
  func.return
}

// xDSL's bufferized form: a buffer with a field result is the memory of
// its operand (the apply writes it, the next apply reads it), not a copy.
// CHECK-LABEL: func.func @field_buffer(
// CHECK-SAME:      %[[IN:.*]]: memref<10xf64>, %[[OUT:.*]]: memref<10xf64>)
// CHECK:         %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf64>
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.*}}, %[[BUF]]
// CHECK:         scf.parallel
// CHECK:           memref.load %[[BUF]]
// CHECK:           memref.store %{{.*}}, %[[OUT]]
// CHECK-NOT:     memref.copy
func.func @field_buffer(%in : !stencil.field<[-1,9]xf64>, %out : !stencil.field<[-1,9]xf64>) {
  %a = stencil.apply(%x = %in : !stencil.field<[-1,9]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %l = stencil.access %x[-1] : !stencil.field<[-1,9]xf64>
    %r = stencil.access %x[1] : !stencil.field<[-1,9]xf64>
    %s = arith.addf %l, %r : f64
    stencil.return %s : f64
  }
  %f = stencil.buffer %a : !stencil.temp<[0,8]xf64> -> !stencil.field<[0,8]xf64>
  stencil.apply(%y = %f : !stencil.field<[0,8]xf64>) outs (%out : !stencil.field<[-1,9]xf64>) {
    %v = stencil.access %y[0] : !stencil.field<[0,8]xf64>
    stencil.return %v : f64
  } to <[0], [8]>
  func.return
}
