// Regions outside the polyhedral class stay as they are, with a warning that
// says why; the reference lowering still handles them.
// RUN: stencil-opt %s --stencil-to-poly -split-input-file -verify-diagnostics -allow-unregistered-dialect | FileCheck %s

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

// -----

!f = !stencil.field<[-1,17]xf64>
func.func @scalar_iter_arg(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f64
  // expected-warning @+1 {{not converted to the polyhedral form: the time loop carries a value that is not a field}}
  %r:3 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b, %s = %z) -> (!f, !f, f64) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x, %s : !f, !f, f64
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
func.func @yield_outer_field(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    // expected-warning @+1 {{not converted to the polyhedral form: the time loop must yield a permutation of its field arguments}}
    scf.yield %y, %a : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
func.func @init_used_directly(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    // expected-warning @+1 {{not converted to the polyhedral form: a field is used both directly and as a time-loop argument (they would alias)}}
    %l = stencil.load %a : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[-1,17]x[-1,17]xf64>
func.func @unrolled(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?x?xf64>
    // Point 1 reads [-1, 2], not point 0's [-1, 0] shifted by (0, 1): the
    // unrolling cannot be undone (it can in Integration/xdsl-unrolled.test).
    // expected-warning @+1 {{not converted to the polyhedral form: an unrolled apply whose points are not shifted copies of one computation is not supported}}
    %n = stencil.apply(%u = %l : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      %w = stencil.access %u[-1, 2] : !stencil.temp<?x?xf64>
      stencil.return %v, %w unroll <[1, 2]> : f64, f64
    }
    stencil.store %n to %y(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f1 = !stencil.field<[-1,17]xf64>
!f2 = !stencil.field<[-1,17]x[-1,17]xf64>
func.func @ranks(%a : !f1, %b : !f1, %c : !f2, %d : !f2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:4 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b, %p = %c, %q = %d) -> (!f1, !f1, !f2, !f2) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f1
    %m = stencil.load %p : !f2 -> !stencil.temp<?x?xf64>
    // expected-warning @+1 {{not converted to the polyhedral form: applies of different ranks in one region}}
    %o = stencil.apply(%u = %m : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      stencil.return %v : f64
    }
    stencil.store %o to %q(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !f2
    scf.yield %y, %x, %q, %p : !f1, !f1, !f2, !f2
  }
  return
}

// -----

!f = !stencil.field<[-1,17]xf64>
func.func @copy_only(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-warning @+1 {{not converted to the polyhedral form: the region computes nothing}}
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    stencil.store %l to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[0,16]xf64>
func.func @combine_in_loop(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = scf.for %t = %c0 to %c8 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %lo = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[0] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    %hi = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[0] : !stencil.temp<?xf64>
      %w = arith.addf %v, %v : f64
      stencil.return %w : f64
    }
    // expected-warning @+1 {{not converted to the polyhedral form: 'stencil.combine' is not supported in the polyhedral form}}
    %c = stencil.combine 0 at 8 lower = (%lo : !stencil.temp<?xf64>) upper = (%hi : !stencil.temp<?xf64>) : !stencil.temp<?xf64>
    stencil.store %c to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

!f = !stencil.field<[0,16]xf64>
func.func @temp_used_outside(%a : !f, %b : !f) {
  %l = stencil.load %a : !f -> !stencil.temp<[0,16]xf64>
  %n = stencil.apply(%u = %l : !stencil.temp<[0,16]xf64>) -> (!stencil.temp<[0,16]xf64>) {
    %v = stencil.access %u[0] : !stencil.temp<[0,16]xf64>
    stencil.return %v : f64
  }
  stencil.store %n to %b(<[0], [16]>) : !stencil.temp<[0,16]xf64> to !f
  // expected-warning @+1 {{not converted to the polyhedral form: a temp of the region is used outside it}}
  "test.use"(%n) : (!stencil.temp<[0,16]xf64>) -> ()
  return
}

// -----

// A time loop that exchanges halos every step (--stencil-distribute without
// deep halos) is not a region; with depth=h block-loops=true the steps
// between exchanges are.
!f = !stencil.field<[-1,17]xf64>
func.func @exchange_every_step(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    // expected-warning @+1 {{not converted to the polyhedral form: a halo exchange every step (--stencil-distribute with depth=h block-loops=true leaves h steps between exchanges to tile)}}
    "dmp.swap"(%x) <{strategy = #dmp.grid_slice_1d<#dmp.topo<2>, false>, swaps = [#dmp.exchange<at [-1] size [1] source offset [1] to [-1]>, #dmp.exchange<at [16] size [1] source offset [-1] to [1]>]}> : (!f) -> ()
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}

// -----

// A step of zero (or below): the tilings would divide by it.
!f = !stencil.field<[-1,17]xf64>
func.func @zero_step(%a : !f, %b : !f) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-warning @+1 {{not converted to the polyhedral form: the time loop's step is 0, not positive}}
  %r:2 = scf.for %t = %c0 to %c8 step %c0 iter_args(%x = %a, %y = %b) -> (!f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    stencil.store %n to %y(<[0], [16]>) : !stencil.temp<?xf64> to !f
    scf.yield %y, %x : !f, !f
  }
  return
}
