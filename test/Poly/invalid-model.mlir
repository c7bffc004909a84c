// A scop whose ops verify one by one but whose statements do not form one
// polyhedral model (different ranks) is refused by the passes that read it.
// RUN: split-file %s %t
// RUN: stencil-opt %t/lower.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/tile.mlir --hex-tile -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/tile.mlir --poly-print-dependences -verify-diagnostics -o /dev/null
// A time loop without space (written by hand: stencils have 1-3 dimensions).
// RUN: stencil-opt %t/nospace.mlir --hex-tile -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/nospace-split.mlir --split-tile -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/tile-split.mlir --split-tile -verify-diagnostics -o /dev/null

//--- lower.mlir
func.func @ranks(%a : !stencil.field<[0,8]xf64>, %b : !stencil.field<[0,8]x[0,8]xf64>) {
  // expected-error @+1 {{'poly.scop' op cannot read the polyhedral form: statements of different ranks}}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !stencil.field<[0,8]xf64>) box [0] to [8] of f64
    poly.array @A1 buffers(%b : !stencil.field<[0,8]x[0,8]xf64>) box [0, 0] to [8, 8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads [] {
    ^bb0(%i: index):
      %c = arith.constant 1.0 : f64
      poly.yield %c : f64
    }
    poly.stmt @S1 domain "{ S1[t, i0, i1] : t = 0 and 0 <= i0 < 8 and 0 <= i1 < 8 }" writes "{ S1[t, i0, i1] -> A1[i0, i1] }" reads [] {
    ^bb0(%i: index, %j: index):
      %c = arith.constant 2.0 : f64
      poly.yield %c : f64
    }
  }
  return
}

//--- tile.mlir
func.func @ranks(%a : !stencil.field<[0,8]xf64>, %b : !stencil.field<[0,8]x[0,8]xf64>) {
  // expected-error @+1 {{cannot read the polyhedral form: statements of different ranks}}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !stencil.field<[0,8]xf64>) box [0] to [8] of f64
    poly.array @A1 buffers(%b : !stencil.field<[0,8]x[0,8]xf64>) box [0, 0] to [8, 8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads [] {
    ^bb0(%i: index):
      %c = arith.constant 1.0 : f64
      poly.yield %c : f64
    }
    poly.stmt @S1 domain "{ S1[t, i0, i1] : t = 0 and 0 <= i0 < 8 and 0 <= i1 < 8 }" writes "{ S1[t, i0, i1] -> A1[i0, i1] }" reads [] {
    ^bb0(%i: index, %j: index):
      %c = arith.constant 2.0 : f64
      poly.yield %c : f64
    }
  }
  return
}

//--- nospace.mlir
func.func @nospace(%a : !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{cannot hex-tile a region without space dimensions}}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t] : 0 <= t < 4 }\" }"} {
    poly.array @A0 buffers(%a : !stencil.field<[0,8]xf64>) box [] to [] of f64
    poly.stmt @S0 domain "{ S0[t] : 0 <= t < 4 }" writes "{ S0[t] -> A0[] }" reads ["{ S0[t] -> A0[] }"] {
    ^bb0(%v: f64):
      poly.yield %v : f64
    }
  }
  return
}

//--- nospace-split.mlir
func.func @nospace(%a : !stencil.field<[0,8]xf64>) {
  // expected-error @+1 {{cannot split-tile a region without space dimensions}}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t] : 0 <= t < 4 }\" }"} {
    poly.array @A0 buffers(%a : !stencil.field<[0,8]xf64>) box [] to [] of f64
    poly.stmt @S0 domain "{ S0[t] : 0 <= t < 4 }" writes "{ S0[t] -> A0[] }" reads ["{ S0[t] -> A0[] }"] {
    ^bb0(%v: f64):
      poly.yield %v : f64
    }
  }
  return
}

//--- tile-split.mlir
func.func @ranks(%a : !stencil.field<[0,8]xf64>, %b : !stencil.field<[0,8]x[0,8]xf64>) {
  // expected-error @+1 {{cannot read the polyhedral form: statements of different ranks}}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !stencil.field<[0,8]xf64>) box [0] to [8] of f64
    poly.array @A1 buffers(%b : !stencil.field<[0,8]x[0,8]xf64>) box [0, 0] to [8, 8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads [] {
    ^bb0(%i: index):
      %c = arith.constant 1.0 : f64
      poly.yield %c : f64
    }
    poly.stmt @S1 domain "{ S1[t, i0, i1] : t = 0 and 0 <= i0 < 8 and 0 <= i1 < 8 }" writes "{ S1[t, i0, i1] -> A1[i0, i1] }" reads [] {
    ^bb0(%i: index, %j: index):
      %c = arith.constant 2.0 : f64
      poly.yield %c : f64
    }
  }
  return
}
