// Verifier errors of the ops outside apply bodies: cast, load, store, buffer,
// combine, alloc, external_load, external_store.
// RUN: stencil-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @cast_element(%f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.cast' op element type 'f32' of the result differs from 'f64' of the input}}
  %a = stencil.cast %f : !stencil.field<?xf64> -> !stencil.field<[0,4]xf32>
  func.return
}

// -----

func.func @cast_rank(%f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.cast' op result rank 2 differs from input rank 1}}
  %a = stencil.cast %f : !stencil.field<?xf64> -> !stencil.field<[0,4]x[0,4]xf64>
  func.return
}

// -----

func.func @cast_unbounded(%f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.cast' op result must have known bounds}}
  %a = stencil.cast %f : !stencil.field<?xf64> -> !stencil.field<?xf64>
  func.return
}

// -----

func.func @cast_rebound(%f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.cast' op input bounds are known and differ from the result's: '!stencil.field<[0,4]xf64>' vs '!stencil.field<[-1,5]xf64>'}}
  %a = stencil.cast %f : !stencil.field<[0,4]xf64> -> !stencil.field<[-1,5]xf64>
  func.return
}

// -----

func.func @load_element(%f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.load' op element type 'f32' of the temp differs from 'f64' of the field}}
  %t = stencil.load %f : !stencil.field<[0,4]xf64> -> !stencil.temp<?xf32>
  func.return
}

// -----

func.func @load_rank(%f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.load' op rank 2 of the temp differs from rank 1 of the field}}
  %t = stencil.load %f : !stencil.field<[0,4]xf64> -> !stencil.temp<?x?xf64>
  func.return
}

// -----

func.func @load_unbounded_field(%f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.load' op field must have known bounds (use stencil.cast to give them)}}
  %t = stencil.load %f : !stencil.field<?xf64> -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @load_outside(%f: !stencil.field<[0,4]x[0,4]xf64>) {
  // expected-error @+1 {{'stencil.load' op reads [0, -1] to [4, 4], outside the field bounds [0, 0] to [4, 4]}}
  %t = stencil.load %f : !stencil.field<[0,4]x[0,4]xf64> -> !stencil.temp<[0,4]x[-1,4]xf64>
  func.return
}

// -----

func.func @store_element(%t: !stencil.temp<?xf32>, %f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.store' op element type 'f32' of the temp differs from 'f64' of the field}}
  stencil.store %t to %f(<[0], [4]>) : !stencil.temp<?xf32> to !stencil.field<[0,4]xf64>
  func.return
}

// -----

func.func @store_rank(%t: !stencil.temp<?x?xf64>, %f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.store' op rank 2 of the temp differs from rank 1 of the field}}
  stencil.store %t to %f(<[0], [4]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,4]xf64>
  func.return
}

// -----

func.func @store_unbounded_field(%t: !stencil.temp<?xf64>, %f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.store' op field must have known bounds}}
  stencil.store %t to %f(<[0], [4]>) : !stencil.temp<?xf64> to !stencil.field<?xf64>
  func.return
}

// -----

func.func @store_bounds_rank(%t: !stencil.temp<?x?xf64>, %f: !stencil.field<[0,8]x[0,8]xf64>) {
  // expected-error @+1 {{'stencil.store' op bounds have rank 1 but the field has rank 2}}
  stencil.store %t to %f(<[0], [8]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,8]x[0,8]xf64>
  func.return
}

// -----

func.func @store_outside_field(%t: !stencil.temp<?x?xf64>, %f: !stencil.field<[0,64]x[0,68]xf64>) {
  // expected-error @+1 {{'stencil.store' op bounds [0, 0] to [65, 68] lie outside the field bounds [0, 0] to [64, 68]}}
  stencil.store %t to %f(<[0, 0], [65, 68]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,64]x[0,68]xf64>
  func.return
}

// -----

func.func @store_outside_temp(%t: !stencil.temp<[1,8]xf64>, %f: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.store' op bounds [0] to [8] lie outside the temp bounds [1] to [8]}}
  stencil.store %t to %f(<[0], [8]>) : !stencil.temp<[1,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @store_twice(%t: !stencil.temp<?xf64>, %f: !stencil.field<[0,8]xf64>, %g: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.store' op stores a temp that is stored more than once}}
  stencil.store %t to %f(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  // expected-note @+1 {{other store of the temp}}
  stencil.store %t to %g(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @buffer_type(%f: !stencil.field<[0,8]xf64>) {
  %t = stencil.apply() -> (!stencil.temp<[0,8]xf64>) {
    %c = arith.constant 1.0 : f64
    stencil.return %c : f64
  }
  // expected-error @+1 {{'stencil.buffer' op result type '!stencil.temp<?xf64>' differs from operand type '!stencil.temp<[0,8]xf64>'}}
  %b = stencil.buffer %t : !stencil.temp<[0,8]xf64> -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @buffer_block_argument(%t: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.buffer' op operand must be a result of stencil.apply or stencil.combine, got a block argument}}
  %b = stencil.buffer %t : !stencil.temp<?xf64> -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @buffer_of_load(%f: !stencil.field<[0,8]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<?xf64>
  // expected-error @+1 {{'stencil.buffer' op operand must be a result of stencil.apply or stencil.combine, got a result of stencil.load}}
  %b = stencil.buffer %t : !stencil.temp<?xf64> -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @buffer_other_users(%f: !stencil.field<[0,8]xf64>) {
  %t = stencil.apply() -> (!stencil.temp<?xf64>) {
    %c = arith.constant 1.0 : f64
    stencil.return %c : f64
  }
  // expected-error @+1 {{'stencil.buffer' op buffered temp has other users; use the buffer's result instead}}
  %b = stencil.buffer %t : !stencil.temp<?xf64> -> !stencil.temp<?xf64>
  // expected-note @+1 {{other user of the buffered temp: stencil.store}}
  stencil.store %t to %f(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @buffer_to_field_bounds(%f: !stencil.field<[0,8]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  // expected-error @+1 {{'stencil.buffer' op result field '!stencil.field<[0,9]xf64>' must have the element type, rank and bounds of the operand '!stencil.temp<[0,8]xf64>'}}
  %b = stencil.buffer %t : !stencil.temp<[0,8]xf64> -> !stencil.field<[0,9]xf64>
  func.return
}

// -----

func.func @buffer_to_field_unbounded(%f: !stencil.field<[0,8]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<?xf64>
  // expected-error @+1 {{'stencil.buffer' op result field must have known bounds}}
  %b = stencil.buffer %t : !stencil.temp<?xf64> -> !stencil.field<?xf64>
  func.return
}

// -----

func.func @combine_counts(%a: !stencil.temp<?xf64>, %b: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.combine' op has 2 lower but 1 upper operands}}
  %c = stencil.combine 0 at 4 lower = (%a, %b : !stencil.temp<?xf64>, !stencil.temp<?xf64>) upper = (%b : !stencil.temp<?xf64>) : !stencil.temp<?xf64>
  func.return
}

// -----

func.func @combine_results(%a: !stencil.temp<?xf64>, %b: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.combine' op expected 2 results, got 1}}
  %c = stencil.combine 0 at 4 lower = (%a : !stencil.temp<?xf64>) upper = (%b : !stencil.temp<?xf64>) lowerext = %a : !stencil.temp<?xf64> : !stencil.temp<?xf64>
  func.return
}

// -----

func.func @combine_empty(%a: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.combine' op needs at least one lower/upper pair}}
  %c = "stencil.combine"(%a) <{dim = 0 : index, index = 4 : index, operandSegmentSizes = array<i32: 0, 0, 1, 0>}> : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @combine_dim(%a: !stencil.temp<?x?xf64>, %b: !stencil.temp<?x?xf64>) {
  // expected-error @+1 {{'stencil.combine' op dimension 2 is out of range for rank 2}}
  %c = stencil.combine 2 at 4 lower = (%a : !stencil.temp<?x?xf64>) upper = (%b : !stencil.temp<?x?xf64>) : !stencil.temp<?x?xf64>
  func.return
}

// -----

func.func @combine_rank(%a: !stencil.temp<?x?xf64>, %b: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.combine' op operands and results must all have rank 2 (the rank of the first lower operand), but result #0 is '!stencil.temp<?x?xf64>' with operand '!stencil.temp<?xf64>'}}
  %c = stencil.combine 0 at 4 lower = (%a : !stencil.temp<?x?xf64>) upper = (%b : !stencil.temp<?xf64>) : !stencil.temp<?x?xf64>
  func.return
}

// -----

func.func @combine_element(%a: !stencil.temp<?xf64>, %b: !stencil.temp<?xf32>) {
  // expected-error @+1 {{'stencil.combine' op element type 'f64' of result #0 differs from 'f32' of its operand}}
  %c = stencil.combine 0 at 4 lower = (%a : !stencil.temp<?xf64>) upper = (%b : !stencil.temp<?xf32>) : !stencil.temp<?xf64>
  func.return
}

// -----

func.func @combine_index(%a: !stencil.temp<[0,8]xf64>, %b: !stencil.temp<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.combine' op index 9 lies outside the result bounds 0 to 8 of dimension 0}}
  %c = stencil.combine 0 at 9 lower = (%a : !stencil.temp<[0,8]xf64>) upper = (%b : !stencil.temp<[0,8]xf64>) : !stencil.temp<[0,8]xf64>
  func.return
}

// -----

func.func @alloc_unbounded() {
  // expected-error @+1 {{'stencil.alloc' op needs a field type with known bounds, got '!stencil.field<?x?xf64>'}}
  %f = stencil.alloc : !stencil.field<?x?xf64>
  func.return
}

// -----

func.func @external_element(%m: memref<4xf32>) {
  // expected-error @+1 {{'stencil.external_load' op element type 'f32' of the memref differs from 'f64' of the field}}
  %f = stencil.external_load %m : memref<4xf32> -> !stencil.field<[0,4]xf64>
  func.return
}

// -----

func.func @external_rank(%m: memref<4x4xf64>) {
  // expected-error @+1 {{'stencil.external_load' op memref rank 2 differs from field rank 1}}
  %f = stencil.external_load %m : memref<4x4xf64> -> !stencil.field<?xf64>
  func.return
}

// -----

func.func @external_size(%f: !stencil.field<[-1,5]x[0,4]xf64>, %m: memref<6x5xf64>) {
  // expected-error @+1 {{'stencil.external_store' op memref size 5 differs from the field extent 4 in dimension 1}}
  stencil.external_store %f to %m : !stencil.field<[-1,5]x[0,4]xf64> to memref<6x5xf64>
  func.return
}

// -----

func.func @store_legacy_bounds(%t: !stencil.temp<?xf64>, %f: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{bounds have 1 lower and 2 upper values}}
  stencil.store %t to %f([0] : [8, 8]) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @reduce_init_type(%a: f64, %b: i32) {
  // expected-error @+1 {{'stencil.reduce' op failed to verify that all of {acc, init} have same type}}
  "stencil.reduce"(%a, %b) ({
  ^bb0(%x: f64, %y: f64):
    stencil.yield %x : f64
  }) : (f64, i32) -> ()
  func.return
}

// -----

func.func @reduce_arguments(%a: f64, %b: f64) {
  // expected-error @+1 {{'stencil.reduce' op body must take two values of the accumulator's type 'f64'}}
  stencil.reduce %a init %b {
  ^bb0(%x: f64):
    stencil.yield %x : f64
  } : f64
  func.return
}

// -----

func.func @reduce_argument_type(%a: f64, %b: f64) {
  // expected-error @+1 {{'stencil.reduce' op body must take two values of the accumulator's type 'f64'}}
  stencil.reduce %a init %b {
  ^bb0(%x: f64, %y: f32):
    stencil.yield %x : f64
  } : f64
  func.return
}

// -----

func.func @reduce_yield_type(%a: f64, %b: f64) {
  // expected-error @+1 {{'stencil.reduce' op yields 'i32', but the accumulator's type is 'f64'}}
  stencil.reduce %a init %b {
  ^bb0(%x: f64, %y: f64):
    %c = arith.constant 0 : i32
    stencil.yield %c : i32
  } : f64
  func.return
}

// -----

func.func @reduce_no_yield(%a: f64, %b: f64) {
  // expected-error @+1 {{'stencil.reduce' op body must end with stencil.yield}}
  stencil.reduce %a init %b {
  ^bb0(%x: f64, %y: f64):
    "test.terminator"() : () -> ()
  } : f64
  func.return
}

// -----

func.func @yield_outside(%a: f64) {
  // expected-error @+1 {{'stencil.yield' op expects parent op 'stencil.reduce'}}
  stencil.yield %a : f64
}
