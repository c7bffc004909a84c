// RUN: stencil-opt %s --convert-stencil-to-loops -split-input-file -verify-diagnostics -allow-unregistered-dialect

func.func @no_shapes(%f: !stencil.field<[0,8]xf64>, %o: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.load' op has a temp with unknown bounds; run --stencil-shape-inference first}}
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<?xf64>
  stencil.store %t to %o(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @apply_no_shapes(%f: !stencil.field<[0,8]xf64>, %o: !stencil.field<[0,8]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  // expected-error @+1 {{'stencil.apply' op has unknown bounds; run --stencil-shape-inference first}}
  %r = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
    stencil.return %v : f64
  }
  stencil.store %r to %o(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @selected_field(%a: !stencil.field<[0,8]xf64>, %b: !stencil.field<[0,8]xf64>, %c: i1) {
  %f = arith.select %c, %a, %b : !stencil.field<[0,8]xf64>
  // expected-error @+1 {{'stencil.load' op cannot lower: the field operand is not a function argument, time-loop argument or stencil.cast result}}
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  stencil.store %t to %a(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @selected_cast(%a: !stencil.field<?xf64>, %b: !stencil.field<?xf64>, %c: i1) {
  %f = arith.select %c, %a, %b : !stencil.field<?xf64>
  // expected-error @+1 {{'stencil.cast' op cannot lower: the input is not a function argument, time-loop argument or stencil.cast result}}
  %g = stencil.cast %f : !stencil.field<?xf64> -> !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @dynamic_field_operand(%f: !stencil.field<?xf64>, %o: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.apply' op cannot lower a field without known bounds}}
  %r = stencil.apply(%x = %f : !stencil.field<?xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %x[0] : !stencil.field<?xf64>
    stencil.return %v : f64
  }
  stencil.store %r to %o(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @temp_argument(%t: !stencil.temp<[0,8]xf64>, %o: !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{'stencil.apply' op cannot lower: operand temp was not lowered}}
  %r = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>) -> (!stencil.temp<[0,8]xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
    stencil.return %v : f64
  }
  stencil.store %r to %o(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @nested_empty_result(%f: !stencil.field<[0,8]xf64>, %o: !stencil.field<[0,8]xf64>, %c: i1) {
  %t = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[0,8]xf64>, %k = %c : i1) -> (!stencil.temp<[0,8]xf64>) {
    %res = scf.if %k -> (!stencil.result<f64>) {
      %v = stencil.access %x[0] : !stencil.temp<[0,8]xf64>
      %a = stencil.store_result %v : !stencil.result<f64>
      scf.yield %a : !stencil.result<f64>
    } else {
      // expected-error @+1 {{'stencil.store_result' op without a value is only supported directly in the apply body}}
      %e = stencil.store_result : !stencil.result<f64>
      scf.yield %e : !stencil.result<f64>
    }
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %o(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
  func.return
}

// -----

func.func @alloc() {
  // expected-error @+1 {{'stencil.alloc' op is not supported by --convert-stencil-to-loops}}
  %f = stencil.alloc : !stencil.field<[0,8]xf64>
  func.return
}

// -----

// An op of another dialect that uses a temp (xDSL's tests use "test.op").
func.func @foreign_temp_user(%f : !stencil.field<[0,8]xf64>) {
  %l = stencil.load %f : !stencil.field<[0,8]xf64> -> !stencil.temp<[0,8]xf64>
  // expected-error @+1 {{'test.op' op uses a stencil temp, which --convert-stencil-to-loops cannot lower}}
  "test.op"(%l) : (!stencil.temp<[0,8]xf64>) -> ()
  return
}
