// Regions outside the polyhedral class stay as they are, with a warning that
// says why; the reference lowering still handles them.
// RUN: stencil-opt %s --stencil-to-poly -split-input-file -verify-diagnostics | FileCheck %s

!f = !stencil.field<[-1,17]xf64>
!t = !stencil.temp<[0,16]xf64>
func.func @iv_used(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %ti = arith.index_cast %t : index to i64
    %tf = arith.sitofp %ti : i64 to f64
    %l = stencil.load %x : !f -> !stencil.temp<[-1,17]xf64>
    // expected-warning @+1 {{not converted to the polyhedral form: the body uses the time-loop induction variable}}
    %n = stencil.apply(%u = %l : !stencil.temp<[-1,17]xf64>, %s = %tf : f64) -> (!t) {
      %v = stencil.access %u[-1] : !stencil.temp<[-1,17]xf64>
      %w = arith.addf %v, %s : f64
      stencil.return %w : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !t to !f
    scf.yield %y, %x : !f, !f
  }
  return
}
// CHECK-LABEL: func.func @iv_used
// CHECK: scf.for
// CHECK-NOT: poly.scop

// -----

!f = !stencil.field<[-1,17]xf64>
!t = !stencil.temp<[0,16]xf64>
func.func @aliased_yield(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<[-1,17]xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<[-1,17]xf64>) -> (!t) {
      %v = stencil.access %u[-1] : !stencil.temp<[-1,17]xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !t to !f
    // expected-warning @+1 {{not converted to the polyhedral form: the time loop yields one field for two arguments (they would alias)}}
    scf.yield %y, %y : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
!t = !stencil.temp<[0,16]xf64>
func.func @same_init(%a : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-warning @+1 {{not converted to the polyhedral form: the same field is passed for two time-loop arguments (they would alias)}}
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %a) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<[-1,17]xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<[-1,17]xf64>) -> (!t) {
      %v = stencil.access %u[-1] : !stencil.temp<[-1,17]xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !t to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
!t = !stencil.temp<[0,16]xf64>
func.func @dyn_access(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<[-1,17]xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<[-1,17]xf64>) -> (!t) {
      %i = stencil.index 0 <[0]>
      // expected-warning @+1 {{not converted to the polyhedral form: a dynamic access has no affine access relation}}
      %v = stencil.dyn_access %u[%i] in <[-1]> : <[1]> : !stencil.temp<[-1,17]xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !t to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
!t = !stencil.temp<[0,16]xf64>
func.func private @side_effect()
func.func @call_in_loop(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<[-1,17]xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<[-1,17]xf64>) -> (!t) {
      %v = stencil.access %u[-1] : !stencil.temp<[-1,17]xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !t to !f
    // expected-warning @+1 {{not converted to the polyhedral form: an op with side effects inside the region}}
    func.call @side_effect() : () -> ()
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

// A field without bounds, read directly by an apply (found by the fuzzer).
func.func @unbounded_field(%f : !stencil.field<?xf64>, %o : !stencil.field<[0,8]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = scf.for %t = %c0 to %c2 step %c1 iter_args(%x = %o, %y = %f) -> (!stencil.field<[0,8]xf64>, !stencil.field<?xf64>) {
    // expected-warning @+1 {{not converted to the polyhedral form: a field without bounds is accessed (stencil.cast it to bounds first)}}
    %n = stencil.apply(%u = %y : !stencil.field<?xf64>) -> (!stencil.temp<[0,8]xf64>) {
      %v = stencil.access %u[0] : !stencil.field<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %x(<[0], [8]>) : !stencil.temp<[0,8]xf64> to !stencil.field<[0,8]xf64>
    scf.yield %x, %y : !stencil.field<[0,8]xf64>, !stencil.field<?xf64>
  }
  return
}
