// Sizes that split tiling cannot use are refused with a diagnostic at the
// time loop, and so is a tiling that violates the dependences; nothing is
// tiled.
// RUN: split-file %s %t
// RUN: stencil-opt %t/widths.mlir --split-tile="h=2 widths=8,8" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/zero.mlir --split-tile="h=2 widths=0" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/negative.mlir --split-tile="h=-2" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/flat.mlir --split-tile="h=0" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/target.mlir --split-tile="target=tpu" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/cache.mlir --split-tile="model=true cache-kib=-1" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/narrow.mlir --split-tile="h=4 widths=11" -verify-diagnostics -o /dev/null
// Reads at -1 and +3 (the narrow case): flow and anti dependences make the
// trapezoids lose 3 points per step on each side.
// Two statements per step: the band height must be a multiple of 2.
// RUN: stencil-opt %t/two.mlir --split-tile="h=3 widths=8" -verify-diagnostics -o /dev/null
// The check against the dependences: tiles built as if there were none
// (a testing option) violate them, and the schedule is refused.
// RUN: stencil-opt %t/verify.mlir --split-tile="test-ignore-dependences h=4 widths=16" -verify-diagnostics -o /dev/null

//--- widths.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{invalid tile sizes: widths needs 1 values (one per space dimension), got 2}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- zero.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{invalid tile sizes: width 0 must be between 1 and 16777216, got 0}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- negative.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{h must be at least 1 (or -1 for the default), got -2}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- flat.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{invalid tile sizes: h must be between 1 and 16777216, got 0}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- narrow.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{invalid tile sizes: width 0 must be at least ceil(3 * (h-1)) + ceil(3 * (h-1)) = 18 so that the inverted trapezoids of a band do not overlap, got 11}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[3] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [254]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- two.mlir
!f = !stencil.field<[-1,65]xf64>
func.func @two(%a : !f, %b : !f, %c : !f, %d : !f) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{invalid tile sizes: h must be a multiple of the 2 statements per time step, got 3}}
  %r:4 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %xn = %b, %y = %c, %yn = %d) -> (!f, !f, !f, !f) {
    %l = stencil.load %x : !f -> !stencil.temp<?xf64>
    %m = stencil.load %y : !f -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>, %v = %m : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %p = stencil.access %u[-1] : !stencil.temp<?xf64>
      %q = stencil.access %v[1] : !stencil.temp<?xf64>
      %s = arith.addf %p, %q : f64
      stencil.return %s : f64
    }
    stencil.store %n to %xn(<[0], [64]>) : !stencil.temp<?xf64> to !f
    %o = stencil.apply(%u = %m : !stencil.temp<?xf64>, %v = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %p = stencil.access %u[0] : !stencil.temp<?xf64>
      %q = stencil.access %v[1] : !stencil.temp<?xf64>
      %s = arith.subf %p, %q : f64
      stencil.return %s : f64
    }
    stencil.store %o to %yn(<[0], [64]>) : !stencil.temp<?xf64> to !f
    scf.yield %xn, %x, %yn, %y : !f, !f, !f, !f
  }
  return
}

//--- verify.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error-re@+1 {{the tiled schedule violates a dependence, not applied: dependence S0[{{[0-9]+}}, {{[0-9]+}}] -> S0[{{[0-9]+}}, {{[0-9]+}}] {{.*}}}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- target.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{target must be 'cpu', 'gpu' or 'auto', got 'tpu'}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- cache.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error@+1 {{cache-kib must be at least 0, got -1}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}
