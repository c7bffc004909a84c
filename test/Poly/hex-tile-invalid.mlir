// Tile sizes and options that hybrid hexagonal tiling cannot use are refused
// with a diagnostic at the time loop; nothing is tiled.
// RUN: split-file %s %t
// RUN: stencil-opt %t/widths.mlir --hex-tile="h=2 widths=3,4" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/hexdim.mlir --hex-tile="hex-dim=1" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/zero.mlir --hex-tile="h=1 widths=0" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/negative.mlir --hex-tile="h=-2" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/target.mlir --hex-tile="target=tpu" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/cache.mlir --hex-tile="model=true cache-kib=-1" -verify-diagnostics -o /dev/null
// The convexity condition (1) on w0 for slopes 3 (radius-3 reads) and h = 2.
// RUN: stencil-opt %t/convex.mlir --hex-tile="h=2 widths=1" -verify-diagnostics -o /dev/null
// The check against the dependences: tiles built as if there were none
// (a testing option) violate them, and the schedule is refused.
// RUN: stencil-opt %t/verify.mlir --hex-tile="test-ignore-dependences h=2 widths=3" -verify-diagnostics -o /dev/null
// The translation offset needs parallelogram tiles (none in 1D).
// RUN: stencil-opt %t/offset.mlir --hex-tile="offset=3" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/hugeoffset.mlir --hex-tile="offset=9223372036854775807 h=1 widths=4,4" -verify-diagnostics -o /dev/null
// Two statements per step: h+1 must be a multiple of 2.
// RUN: stencil-opt %t/two.mlir --hex-tile="h=2 widths=8" -verify-diagnostics -o /dev/null

//--- widths.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{widths needs 1 values (one per space dimension), got 2}}
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

//--- hexdim.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{hex-dim 1 is not a space dimension of this 1-dimensional region}}
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
  // expected-error @+1 {{invalid tile sizes: tile width w0 must be at least 1, got 0}}
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
  // expected-error @+1 {{h must be at least 0 (or -1 for the default), got -2}}
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
  // expected-error @+1 {{target must be 'cpu', 'gpu' or 'auto', got 'tpu'}}
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

//--- convex.mlir
!f1 = !stencil.field<[-3,259]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{invalid tile sizes: w0 = 1 violates the convexity condition (1) w0 >= max(delta0 + {delta0*h}, delta1 + {delta1*h}) - 1 for delta0 = 3, delta1 = 3, h = 2: the minimum is w0 = 2}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-3] : !stencil.temp<?xf64>
      %w = stencil.access %u[3] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
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
  // expected-error @+1 {{invalid tile sizes: h+1 must be a multiple of the number of statements per step (K = 2), got h = 2}}
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
  // expected-error-re @+1 {{the tiled schedule violates a dependence, not applied: dependence S0[{{[0-9]+}}, {{[0-9]+}}] -> S0[{{[0-9]+}}, {{[0-9]+}}] is not respected: its target is not scheduled after its source}}
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

//--- offset.mlir
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{offset translates parallelogram tiles, which a 1-dimensional region does not have}}
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
  // expected-error @+1 {{cache-kib must be at least 0, got -1}}
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

//--- hugeoffset.mlir
!f2 = !stencil.field<[-1,17]x[-1,17]xf64>
func.func @pingpong2d(%a : !f2, %b : !f2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{offset must be at most 2^31 in magnitude, got 9223372036854775807}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f2, !f2) {
    %l = stencil.load %x : !f2 -> !stencil.temp<?x?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %u[-1, 0] : !stencil.temp<?x?xf64>
      %w = stencil.access %u[0, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !f2
    scf.yield %y, %x : !f2, !f2
  }
  return
}
