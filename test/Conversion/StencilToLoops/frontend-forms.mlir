// RUN: stencil-opt %s --stencil-shape-inference --convert-stencil-to-loops --canonicalize --cse -split-input-file | FileCheck %s

// Forms that frontends emit and the lowering takes as they are.

// Dynamic field arguments cast to static bounds before the time loop (the
// loop's iter_args are the cast results), loop results unused: the loop
// carries the memref casts.
// CHECK-LABEL: func.func @cast_iter_args(
// CHECK-SAME:      %[[A:.*]]: memref<?x?xf64>, %[[B:.*]]: memref<?x?xf64>)
// CHECK-DAG:     %[[CA:.*]] = memref.cast %[[A]] : memref<?x?xf64> to memref<10x10xf64>
// CHECK-DAG:     %[[CB:.*]] = memref.cast %[[B]] : memref<?x?xf64> to memref<10x10xf64>
// CHECK:         scf.for {{.*}} iter_args(%[[X:.*]] = %[[CA]], %[[Y:.*]] = %[[CB]]) -> (memref<10x10xf64>, memref<10x10xf64>)
// CHECK:           memref.load %[[X]]
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-NOT:     unrealized_conversion_cast
// CHECK-NOT:     {{stencil\.[a-tv-z_]}}
func.func @cast_iter_args(%a : !stencil.field<?x?xf64>, %b : !stencil.field<?x?xf64>) {
  %a0 = stencil.cast %a : !stencil.field<?x?xf64> -> !stencil.field<[-1,9]x[-1,9]xf64>
  %b0 = stencil.cast %b : !stencil.field<?x?xf64> -> !stencil.field<[-1,9]x[-1,9]xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a0, %y = %b0) -> (!stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>) {
    %l = stencil.load %x : !stencil.field<[-1,9]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%u = %l : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      %w = stencil.access %u[1, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %o to %y(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,9]x[-1,9]xf64>
    scf.yield %y, %x : !stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>
  }
  func.return
}

// -----

// The same with the loop results used after the loop.
// CHECK-LABEL: func.func @cast_iter_args_results_used(
// CHECK:         %[[R:.*]]:2 = scf.for
// CHECK:         scf.parallel
// CHECK:           memref.load %[[R]]#0
// CHECK:           memref.store %{{.*}}, %[[R]]#1
func.func @cast_iter_args_results_used(%a : !stencil.field<?xf32>, %b : !stencil.field<?xf32>) {
  %a0 = stencil.cast %a : !stencil.field<?xf32> -> !stencil.field<[-1,9]xf32>
  %b0 = stencil.cast %b : !stencil.field<?xf32> -> !stencil.field<[-1,9]xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a0, %y = %b0) -> (!stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>) {
    %l = stencil.load %x : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %o = stencil.apply(%u = %l : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf32>
      stencil.return %v : f32
    }
    stencil.store %o to %y(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
    scf.yield %y, %x : !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>
  }
  %l = stencil.load %r#0 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
  stencil.store %l to %r#1(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
  func.return
}

// -----

// Casts inside the loop body, of dynamic iter_args (the canonicalizer folds
// the memref casts into the loads and stores).
// CHECK-LABEL: func.func @cast_in_body(
// CHECK:         scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (memref<?xf32>, memref<?xf32>)
// CHECK:           memref.load %[[X]]
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-NOT:     unrealized_conversion_cast
func.func @cast_in_body(%a : !stencil.field<?xf32>, %b : !stencil.field<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (!stencil.field<?xf32>, !stencil.field<?xf32>) {
    %xs = stencil.cast %x : !stencil.field<?xf32> -> !stencil.field<[-1,9]xf32>
    %ys = stencil.cast %y : !stencil.field<?xf32> -> !stencil.field<[-1,9]xf32>
    %l = stencil.load %xs : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %o = stencil.apply(%u = %l : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %v = stencil.access %u[1] : !stencil.temp<?xf32>
      stencil.return %v : f32
    }
    stencil.store %o to %ys(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
    scf.yield %y, %x : !stencil.field<?xf32>, !stencil.field<?xf32>
  }
  func.return
}

// -----

// Devito's form: a load after every store, the last one unused. The used
// load (after the store of %u1) sees the stored values: it is a view of %u1
// read by the second apply, and nothing is copied or allocated.
// CHECK-LABEL: func.func @devito_load_after_store(
// CHECK-SAME:      %[[U0:[^:]*]]: memref<10xf32>, %[[U1:[^:]*]]: memref<10xf32>, %[[V0:[^:]*]]: memref<10xf32>, %[[V1:[^:]*]]: memref<10xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         scf.for {{.*}} iter_args(%[[A:[^ ]*]] = %[[U0]], %[[B:[^ ]*]] = %[[U1]], %[[C:[^ ]*]] = %[[V0]], %[[D:[^ ]*]] = %[[V1]])
// CHECK:           scf.parallel
// CHECK:             memref.load %[[A]]
// CHECK:             memref.store %{{.*}}, %[[B]]
// CHECK:           scf.parallel
// CHECK:             memref.load %[[B]]
// CHECK:             memref.load %[[C]]
// CHECK:             memref.store %{{.*}}, %[[D]]
// CHECK-NOT:     memref.alloc
// CHECK:         return
func.func @devito_load_after_store(%u_vec0 : !stencil.field<[-1,9]xf32>, %u_vec1 : !stencil.field<[-1,9]xf32>, %v_vec0 : !stencil.field<[-1,9]xf32>, %v_vec1 : !stencil.field<[-1,9]xf32>) {
  %time_m = arith.constant 0 : index
  %time_M = arith.constant 3 : index
  %0 = arith.constant 1 : index
  %1 = arith.addi %time_M, %0 : index
  %step = arith.constant 1 : index
  %2, %3, %4, %5 = scf.for %time = %time_m to %1 step %step iter_args(%u_t0 = %u_vec0, %u_t1 = %u_vec1, %v_t0 = %v_vec0, %v_t1 = %v_vec1) -> (!stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>) {
    %u_t0_temp = stencil.load %u_t0 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %u_t1_temp = stencil.apply(%u_t0_blk = %u_t0_temp : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %6 = stencil.access %u_t0_blk[-1] : !stencil.temp<?xf32>
      %7 = stencil.access %u_t0_blk[1] : !stencil.temp<?xf32>
      %8 = arith.addf %6, %7 : f32
      stencil.return %8 : f32
    }
    stencil.store %u_t1_temp to %u_t1(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
    %u_t1_temp_1 = stencil.load %u_t1 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %v_t0_temp = stencil.load %v_t0 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %v_t1_temp = stencil.apply(%u_t1_blk = %u_t1_temp_1 : !stencil.temp<?xf32>, %v_t0_blk = %v_t0_temp : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %6 = stencil.access %u_t1_blk[1] : !stencil.temp<?xf32>
      %7 = stencil.access %v_t0_blk[0] : !stencil.temp<?xf32>
      %8 = arith.addf %6, %7 : f32
      stencil.return %8 : f32
    }
    stencil.store %v_t1_temp to %v_t1(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
    %v_t1_temp_1 = stencil.load %v_t1 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    scf.yield %u_t1, %u_t0, %v_t1, %v_t0 : !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>
  }
  func.return
}

// -----

// Devito's source injection: its own cast of a field iter_arg to a memref,
// written with memref.atomic_rmw in an scf.parallel of the time step. The
// cast disappears and the atomic writes the loop's memref.
// CHECK-LABEL: func.func @devito_injection(
// CHECK:         scf.for {{.*}} iter_args(%[[A:[^ ]*]] = %{{.*}}, %[[B:[^ ]*]] = %{{.*}})
// CHECK:           memref.atomic_rmw addf %{{.*}}, %[[B]]
// CHECK-NOT:     unrealized_conversion_cast
func.func @devito_injection(%u_vec0 : !stencil.field<[-1,9]xf32>, %u_vec1 : !stencil.field<[-1,9]xf32>, %src : memref<3xf32>) {
  %time_m = arith.constant 0 : index
  %time_M = arith.constant 2 : index
  %one = arith.constant 1 : index
  %ub = arith.addi %time_M, %one : index
  %r0, %r1 = scf.for %time = %time_m to %ub step %one iter_args(%u_t0 = %u_vec0, %u_t1 = %u_vec1) -> (!stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>) {
    %u_t0_temp = stencil.load %u_t0 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %u_t1_temp = stencil.apply(%u_t0_blk = %u_t0_temp : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %a = stencil.access %u_t0_blk[-1] : !stencil.temp<?xf32>
      %b = stencil.access %u_t0_blk[1] : !stencil.temp<?xf32>
      %s = arith.addf %a, %b : f32
      stencil.return %s : f32
    }
    stencil.store %u_t1_temp to %u_t1(<[0], [8]>) : !stencil.temp<?xf32> to !stencil.field<[-1,9]xf32>
    %u_t1_temp_1 = stencil.load %u_t1 : !stencil.field<[-1,9]xf32> -> !stencil.temp<?xf32>
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    scf.parallel (%p) = (%c0) to (%c3) step (%one) {
      %u_t1_mem = builtin.unrealized_conversion_cast %u_t1 : !stencil.field<[-1,9]xf32> to memref<10xf32>
      %v = memref.load %src[%p] : memref<3xf32>
      %i = arith.addi %p, %c3 : index
      %old = memref.atomic_rmw addf %v, %u_t1_mem[%i] : (f32, memref<10xf32>) -> f32
      scf.reduce
    }
    scf.yield %u_t1, %u_t0 : !stencil.field<[-1,9]xf32>, !stencil.field<[-1,9]xf32>
  }
  func.return
}
