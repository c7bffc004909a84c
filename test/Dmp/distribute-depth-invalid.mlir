// RUN: stencil-opt %s --stencil-distribute="grid=2 depth=2" -split-input-file -verify-diagnostics

func.func @dynamic_steps(%u0 : !stencil.field<[-1,33]xf64>, %u1 : !stencil.field<[-1,33]xf64>, %n : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'scf.for' op needs constant bounds and step for halos exchanged every 2 steps}}
  %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
    stencil.store %in to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}

// -----

func.func @aliased(%u0 : !stencil.field<[-1,33]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error@+1 {{'scf.for' op rotates a field that may alias another, which halos exchanged every 2 steps do not support}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u0) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
    stencil.store %in to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}

// -----

func.func @nested(%u0 : !stencil.field<[-1,33]xf64>, %u1 : !stencil.field<[-1,33]xf64>, %c : i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error@+1 {{'scf.for' op stores inside nested regions, which halos exchanged every 2 steps do not support}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    scf.if %c {
      %in = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
      stencil.store %in to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    }
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}

// -----

// Blocks of 4 points cannot feed 2 steps of a radius-3 stencil (6 points).
func.func @too_deep(%u0 : !stencil.field<[-3,11]xf64>, %u1 : !stencil.field<[-3,11]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-3,11]xf64>, !stencil.field<[-3,11]xf64>) {
    // expected-error@+1 {{'stencil.load' op reads 6 points beyond its block in dimension 0, but grid=2 gives some ranks blocks of only 4 points there (use fewer ranks)}}
    %in = stencil.load %a : !stencil.field<[-3,11]xf64> -> !stencil.temp<?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %w = stencil.access %x[-3] : !stencil.temp<?xf64>
      %e = stencil.access %x[3] : !stencil.temp<?xf64>
      %v = arith.addf %w, %e : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-3,11]xf64>
    scf.yield %b, %a : !stencil.field<[-3,11]xf64>, !stencil.field<[-3,11]xf64>
  }
  return
}

// -----

// Stores of different boxes: with deep halos every store writes the domain.
func.func @two_boxes(%u0 : !stencil.field<[-1,33]xf64>, %u1 : !stencil.field<[-1,33]xf64>, %v : !stencil.field<[-1,33]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %res = stencil.store_result %l : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    %w = stencil.apply(%x = %in : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[1] : !stencil.temp<?xf64>
      %res = stencil.store_result %l : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    // expected-error@+1 {{'stencil.store' op writes a box narrower than the function's other stores: deep halos (depth > 1) need every store of a function to write the same box}}
    stencil.store %w to %v(<[0], [16]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
    scf.yield %b, %a : !stencil.field<[-1,33]xf64>, !stencil.field<[-1,33]xf64>
  }
  return
}
