// The verifiers of the poly dialect: malformed scops written by hand are
// refused with a located error, never passed on to isl or the lowering.
// RUN: stencil-opt %s -split-input-file -verify-diagnostics

!f = !stencil.field<[0,8]xf64>
func.func @bad_schedule(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  // expected-error @+1 {{'poly.scop' op has an invalid schedule: }}
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{{ oops S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @result_count(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  // expected-error @+1 {{'poly.scop' op needs one result array and offset per result}}
  poly.scop attributes {result_arrays = [@A0], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @lb_ub(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    // expected-error @+1 {{'poly.array' op needs as many lower as upper bounds}}
    poly.array @A0 buffers(%a : !f) box [0] to [8, 8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @empty_box(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    // expected-error @+1 {{'poly.array' op has an empty box}}
    poly.array @A0 buffers(%a : !f) box [8] to [0] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @buffer_types(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    // expected-error @+1 {{'poly.array' op buffers must all have the same type}}
    poly.array @A0 buffers(%a, %b : !f, !stencil.field<[0,9]xf64>) box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @bad_domain(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op has an invalid domain: }}
    poly.stmt @S0 domain "{ S0[t, i0 : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @domain_name(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op domain tuple must be named S0}}
    poly.stmt @S0 domain "{ S1[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @bad_access(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op has an invalid access: }}
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0 }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @access_names(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op access '{ S0[t, i0] -> [i0] }' must map S0 to a named array}}
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> [i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @body_args(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op body needs one argument per read and one per space dimension, 3 in all}}
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }", "{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @result_temp(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  // expected-error @+1 {{'poly.scop' op result array @T0 is not a field array}}
  %r = poly.scop attributes {result_arrays = [@T0], result_offsets = array<i64: 0>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} -> !f {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    poly.array @T0 box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @result_offset(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  // expected-error @+1 {{'poly.scop' op result offset 1 out of range}}
  %r = poly.scop attributes {result_arrays = [@A0], result_offsets = array<i64: 1>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} -> !f {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @result_type(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  // expected-error @+1 {{'poly.scop' op result type differs from the type of @A0}}
  %r = poly.scop attributes {result_arrays = [@A0], result_offsets = array<i64: 0>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} -> !stencil.field<[0,9]xf64> {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @unknown_array(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op access '{ S0[t, i0] -> B0[i0] }' names no poly.array}}
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> B0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @subscripts(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op access '{ S0[t, i0] -> A0[t mod 2, i0] }' needs 1 subscripts for @A0}}
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[t mod 2, i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @no_time(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[] :  }\" }"} {
    poly.array @A0 buffers(%a : !f) box [0] to [8] of f64
    // expected-error @+1 {{'poly.stmt' op domain needs a time dimension}}
    poly.stmt @S0 domain "{ S0[] }" writes "{ S0[] -> A0[0] }" reads ["{ S0[] -> A0[0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}

// -----

!f = !stencil.field<[0,8]xf64>
func.func @vector_element(%a : !f, %b : !stencil.field<[0,9]xf64>) {
  poly.scop attributes {result_arrays = [], result_offsets = array<i64>, schedule = "{ domain: \"{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }\" }"} {
    // expected-error @+1 {{'poly.array' op element type must be an integer, index or float type, got 'vector<2xf64>'}}
    poly.array @A0 buffers(%a : !f) box [0] to [8] of vector<2xf64>
    poly.stmt @S0 domain "{ S0[t, i0] : t = 0 and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[i0] }" reads ["{ S0[t, i0] -> A0[i0] }"] {
    ^bb0(%v: f64, %i: index):
      poly.yield %v : f64
    }
  }
  return
}
