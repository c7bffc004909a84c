// RUN: stencil-opt %s --stencil-distribute="grid=2x2" -split-input-file -verify-diagnostics

// A store narrower than the domain (the bounding box of the stores) that
// the blocks of the ranks at dimension 0's coordinate 1 miss.
func.func @missed_by_a_block(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>, %c : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %u = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  // expected-error@+1 {{'stencil.store' op writes [0, 8) in dimension 0, which misses the blocks of some ranks of grid=2x2: every rank's block must meet every store's box (use fewer ranks)}}
  stencil.store %u to %c(<[0, 0], [8, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

// expected-error@+1 {{'func.func' op stores nothing: there is nothing to distribute}}
func.func @no_store(%a : !stencil.field<[-1,33]x[-1,33]xf64>) {
  return
}

// -----

// expected-error@+1 {{'func.func' op is over a 1-dimensional domain: grid=2x2 decomposes 2 dimensions}}
func.func @grid_too_deep(%a : !stencil.field<[-1,33]xf64>, %b : !stencil.field<[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]xf64> -> !stencil.temp<?xf64>
  stencil.store %t to %b(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-1,33]xf64>
  return
}

// -----

// expected-error@+1 {{'func.func' op cannot give 2 ranks a block each of the 1 points of dimension 1}}
func.func @too_many_ranks(%a : !stencil.field<[-1,33]x[0,1]xf64>, %b : !stencil.field<[-1,33]x[0,1]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[0,1]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 1]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[0,1]xf64>
  return
}

// -----

func.func @outs(%in : !stencil.field<[-1,33]x[-1,33]xf64>, %o : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %o(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  // expected-error@+1 {{'stencil.apply' op writes fields directly (`outs`), which --stencil-distribute does not support yet}}
  stencil.apply(%f = %in : !stencil.field<[-1,33]x[-1,33]xf64>) outs (%o : !stencil.field<[-1,33]x[-1,33]xf64>) {
    %w = stencil.access %f[-1, 0] : !stencil.field<[-1,33]x[-1,33]xf64>
    stencil.return %w : f64
  } to <[0, 0], [32, 32]>
  return
}

// -----

func.func private @helper(!stencil.field<[-1,33]x[-1,33]xf64>)
func.func @calls(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  // expected-error@+1 {{'func.call' op passes a field to another function, which --stencil-distribute does not support}}
  func.call @helper(%b) : (!stencil.field<[-1,33]x[-1,33]xf64>) -> ()
  return
}

// -----

// A lower-rank field's dimension must lie along one dimension of the
// domain (here its only dimension is read along both).
func.func @lower_rank_two_dims(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>, %c : !stencil.field<[0,32]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %ct = stencil.load %c : !stencil.field<[0,32]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %w = %ct : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    // expected-error@+1 {{'stencil.access' op reads dimension 0 of a lower-rank field along dimension 0, and another access along dimension 1: --stencil-distribute needs one dimension of the domain per dimension of the field}}
    %k = stencil.access %w[0, _] : !stencil.temp<?xf64>
    %l = stencil.access %w[_, 0] : !stencil.temp<?xf64>
    %m = arith.mulf %v, %k : f64
    %n = arith.mulf %m, %l : f64
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

// expected-error@+1 {{'func.func' op argument 2 is a lower-rank field of unknown bounds that is never cast to bounds: --stencil-distribute cannot tell its global size}}
func.func @lower_rank_unknown(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>, %c : !stencil.field<?xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

// expected-error@+1 {{'func.func' op returns values: --stencil-distribute needs a function that updates its fields in place}}
func.func @returns(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>) -> index {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  %c = arith.constant 0 : index
  return %c : index
}

// -----

// expected-error@+1 {{'func.func' op argument 0 is a field of unknown bounds and the function's fields have several bounds: --stencil-distribute cannot tell its global size}}
func.func @unknown_size(%a : !stencil.field<?x?xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>, %c : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %b : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %c(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  return
}

// -----

// Blocks of 2 points (5 = 3 + 2) and a halo of 3 read in every step.
func.func @narrow_blocks(%u0 : !stencil.field<[-3,8]x[-3,8]xf64>, %u1 : !stencil.field<[-3,8]x[-3,8]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %c1 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-3,8]x[-3,8]xf64>, !stencil.field<[-3,8]x[-3,8]xf64>) {
    // expected-error@+1 {{'stencil.load' op reads 3 points beyond its block in dimension 0, but grid=2x2 gives some ranks blocks of only 2 points there (use fewer ranks)}}
    %in = stencil.load %a : !stencil.field<[-3,8]x[-3,8]xf64> -> !stencil.temp<?x?xf64>
    %o = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %v = stencil.access %x[-3, 0] : !stencil.temp<?x?xf64>
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %o to %b(<[0, 0], [5, 5]>) : !stencil.temp<?x?xf64> to !stencil.field<[-3,8]x[-3,8]xf64>
    scf.yield %b, %a : !stencil.field<[-3,8]x[-3,8]xf64>, !stencil.field<[-3,8]x[-3,8]xf64>
  }
  return
}

// -----

func.func @external(%src : memref<34x34xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>) {
  // expected-error@+1 {{'stencil.external_load' op copies between a field and global memory, which --stencil-distribute does not support}}
  %f = stencil.external_load %src : memref<34x34xf64> -> !stencil.field<[-1,33]x[-1,33]xf64>
  %t = stencil.load %f : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  stencil.store %t to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

func.func @split_domain(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %lo = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %hi = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{'stencil.combine' op splits a decomposed dimension at a global index, which --stencil-distribute does not support yet}}
  %c = stencil.combine 0 at 16 lower = (%lo : !stencil.temp<?x?xf64>) upper = (%hi : !stencil.temp<?x?xf64>) : !stencil.temp<?x?xf64>
  stencil.store %c to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

// expected-error@+1 {{'func.func' op has an apply with bounds other than its stores', which --stencil-distribute does not support}}
func.func @apply_bounds(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  } to <[0, 0], [40, 32]>
  stencil.store %o to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}

// -----

func.func @lower_rank_dyn(%a : !stencil.field<[-1,33]x[-1,33]xf64>, %b : !stencil.field<[-1,33]x[-1,33]xf64>, %c : !stencil.field<[0,32]xf64>) {
  %t = stencil.load %a : !stencil.field<[-1,33]x[-1,33]xf64> -> !stencil.temp<?x?xf64>
  %ct = stencil.load %c : !stencil.field<[0,32]xf64> -> !stencil.temp<?xf64>
  %o = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %w = %ct : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %i = stencil.index 1 <[0, 0]>
    // expected-error@+1 {{'stencil.dyn_access' op reads a lower-rank field other than by stencil.access, which --stencil-distribute does not support}}
    %k = stencil.dyn_access %w[%i] in <[0, 0]> : <[0, 0]> : !stencil.temp<?xf64>
    %m = arith.mulf %v, %k : f64
    %res = stencil.store_result %m : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %o to %b(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,33]x[-1,33]xf64>
  return
}
