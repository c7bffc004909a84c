// RUN: stencil-opt %s -stencil-shape-inference -split-input-file -verify-diagnostics

// A load that would need points outside its field: the error is at the
// load, a note at each access that reads outside.
func.func @load_outside_field(%in : !stencil.field<[0,64]x[0,64]xf64>, %out : !stencil.field<[0,64]x[0,64]xf64>) {
  // expected-error@+1 {{'stencil.load' op needs points [0, -1] to [64, 65] (upper bounds exclusive), outside the field bounds [0, 0] to [64, 64]}}
  %t = stencil.load %in : !stencil.field<[0,64]x[0,64]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    // expected-note@+1 {{points [0, 1] to [64, 65] are read here}}
    %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    // expected-note@+1 {{points [0, -1] to [64, 63] are read here}}
    %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %c = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %v = arith.addf %n, %s : f64
    %w = arith.addf %v, %c : f64
    %res = stencil.store_result %w : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,64]x[0,64]xf64>
  func.return
}

// -----

// The same inside a time loop, where the point that reads outside is a store
// to a larger field.
func.func @load_outside_field_store(%a : !stencil.field<[0,10]xf32>, %b : !stencil.field<[0,20]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    // expected-error@+1 {{'stencil.load' op needs points [0] to [20] (upper bounds exclusive), outside the field bounds [0] to [10]}}
    %t = stencil.load %a : !stencil.field<[0,10]xf32> -> !stencil.temp<?xf32>
    // expected-note@+1 {{points [0] to [20] are read here}}
    stencil.store %t to %b(<[0], [20]>) : !stencil.temp<?xf32> to !stencil.field<[0,20]xf32>
  }
  func.return
}

// -----

// A temp that leaves the stencil ops.
func.func @returned(%in : !stencil.field<[-1,65]xf64>) -> !stencil.temp<?xf64> {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  // expected-error@+1 {{'func.return' op uses a stencil temp; shape inference supports temps used by stencil.store, stencil.apply, stencil.buffer and stencil.combine only}}
  func.return %t : !stencil.temp<?xf64>
}

// -----

// A region argument of an apply used by something else than an access.
func.func @arg_escapes(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error@+1 {{'builtin.unrealized_conversion_cast' op uses a temp argument of stencil.apply; shape inference only supports stencil.access and stencil.dyn_access to temp arguments}}
    %v = builtin.unrealized_conversion_cast %x : !stencil.temp<?xf64> to f64
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// -----

func.func @dyn_access_lower_rank(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 1 <[0, 0]>
    // expected-error@+1 {{'stencil.dyn_access' op on an operand of rank 1 in an apply of rank 2 is not supported by shape inference}}
    %v = stencil.dyn_access %x[%i] in <[0, -1]> : <[0, 1]> : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
  func.return
}

// -----

// Errors in separate functions are all reported.
func.func @first(%in : !stencil.field<[0,65]xf64>, %out : !stencil.field<[-1,66]xf64>) {
  // expected-error@+1 {{'stencil.load' op needs points [0] to [66]}}
  %t = stencil.load %in : !stencil.field<[0,65]xf64> -> !stencil.temp<?xf64>
  // expected-note@+1 {{are read here}}
  stencil.store %t to %out(<[0], [66]>) : !stencil.temp<?xf64> to !stencil.field<[-1,66]xf64>
  func.return
}
func.func @second(%in : !stencil.field<[0,65]xf64>, %out : !stencil.field<[-1,66]xf64>) {
  // expected-error@+1 {{'stencil.load' op needs points [-1] to [65]}}
  %t = stencil.load %in : !stencil.field<[0,65]xf64> -> !stencil.temp<?xf64>
  // expected-note@+1 {{are read here}}
  stencil.store %t to %out(<[-1], [65]>) : !stencil.temp<?xf64> to !stencil.field<[-1,66]xf64>
  func.return
}

// -----

// Temps do not cross blocks of a CFG region.
func.func @other_block(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  // expected-error@+1 {{'stencil.load' op defines a temp that is used in another block; shape inference supports temps used in their own block and in blocks nested in it}}
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  cf.br ^next
^next:
  // expected-note@+1 {{used here}}
  stencil.store %t to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// -----

// An offset whose box does not fit in 64 bits is an error, not a wrapped
// bound (which would read far outside the field).
func.func @offset_overflow(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error@+1 {{'stencil.access' op offset 9223372036854775807 moves the apply's iteration box out of the 64-bit index range}}
    %v = stencil.access %x[9223372036854775807] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// -----

func.func @dyn_offset_overflow(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %i = stencil.index 0 <[0]>
    // expected-error@+1 {{'stencil.dyn_access' op offset 9223372036854775807 moves the apply's iteration box out of the 64-bit index range}}
    %v = stencil.dyn_access %x[%i] in <[0]> : <[9223372036854775807]> : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}
