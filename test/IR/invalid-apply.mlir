// Verifier and parser errors of stencil.apply and the ops of its body:
// access, dyn_access, index, store_result, return.
// RUN: stencil-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

//===----------------------------------------------------------------------===//
// apply
//===----------------------------------------------------------------------===//

func.func @apply_arg_count(%t: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.apply' op has 1 operands but 2 region arguments}}
  %r = "stencil.apply"(%t) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%a: !stencil.temp<?xf64>, %b: !stencil.temp<?xf64>):
    %v = stencil.access %a[0] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }) : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @apply_arg_type(%t: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.apply' op type '!stencil.temp<[0,4]xf64>' of region argument #0 differs from operand type '!stencil.temp<?xf64>'}}
  %r = "stencil.apply"(%t) <{operandSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%a: !stencil.temp<[0,4]xf64>):
    %v = stencil.access %a[0] : !stencil.temp<[0,4]xf64>
    stencil.return %v : f64
  }) : (!stencil.temp<?xf64>) -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @apply_results_and_outs(%f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.apply' op has both results and `outs` destinations}}
  %r = "stencil.apply"(%f) <{bounds = #stencil.bounds<[0], [4]>, operandSegmentSizes = array<i32: 0, 1>}> ({
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  }) : (!stencil.field<[0,4]xf64>) -> !stencil.temp<?xf64>
  func.return
}

// -----

func.func @apply_no_result() {
  // expected-error @+1 {{'stencil.apply' op needs at least one result}}
  stencil.apply() -> () {
    %c = arith.constant 0.0 : f64
    "stencil.return"() : () -> ()
  }
  func.return
}

// -----

func.func @apply_outs_without_bounds(%f: !stencil.field<[0,4]xf64>) {
  // expected-error @+1 {{'stencil.apply' op with `outs` destinations needs `to` bounds}}
  stencil.apply() outs (%f : !stencil.field<[0,4]xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  }
  func.return
}

// -----

func.func @apply_result_rank() {
  // expected-error @+1 {{'stencil.apply' op result #1 has rank 1, expected 2}}
  %r:2 = stencil.apply() -> (!stencil.temp<?x?xf64>, !stencil.temp<?xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c, %c : f64, f64
  }
  func.return
}

// -----

func.func @apply_result_bounds() {
  // expected-error @+1 {{'stencil.apply' op result #1 has bounds '!stencil.temp<[0,64]xf64>' that differ from result #0 '!stencil.temp<?xf64>'}}
  %r:2 = stencil.apply() -> (!stencil.temp<?xf64>, !stencil.temp<[0,64]xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c, %c : f64, f64
  }
  func.return
}

// -----

func.func @apply_to_rank(%f: !stencil.field<[0,4]x[0,4]xf64>) {
  // expected-error @+1 {{'stencil.apply' op `to` bounds have rank 1, expected 2}}
  stencil.apply() outs (%f : !stencil.field<[0,4]x[0,4]xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  } to <[0], [4]>
  func.return
}

// -----

func.func @apply_operand_rank(%t: !stencil.temp<?x?x?xf64>) {
  // expected-error @+1 {{'stencil.apply' op operand #0 has rank 3, above the apply rank 2}}
  %r = stencil.apply(%a = %t : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  }
  func.return
}

// -----

func.func @apply_to_and_results() {
  // expected-error @+1 {{'stencil.apply' op `to` bounds [0] to [8] differ from the result bounds [0] to [4]}}
  %r = stencil.apply() -> (!stencil.temp<[0,4]xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  } to <[0], [8]>
  func.return
}

// -----

func.func @apply_outs_unbounded(%f: !stencil.field<?xf64>) {
  // expected-error @+1 {{'stencil.apply' op `outs` field #0 must have known bounds}}
  stencil.apply() outs (%f : !stencil.field<?xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c : f64
  } to <[0], [4]>
  func.return
}

// -----

func.func @apply_outs_outside(%f: !stencil.field<[0,4]x[0,4]xf64>, %g: !stencil.field<[-1,5]x[-1,5]xf64>) {
  // expected-error @+1 {{'stencil.apply' op `to` bounds [0, 0] to [5, 4] lie outside the bounds [0, 0] to [4, 4] of `outs` field #1}}
  stencil.apply() outs (%g : !stencil.field<[-1,5]x[-1,5]xf64>, %f : !stencil.field<[0,4]x[0,4]xf64>) {
    %c = arith.constant 0.0 : f64
    stencil.return %c, %c : f64, f64
  } to <[0, 0], [5, 4]>
  func.return
}

// -----

func.func @apply_no_return() {
  // expected-error @+1 {{'stencil.apply' op body must end with stencil.return}}
  %r = stencil.apply() -> (!stencil.temp<?xf64>) {
    "some.terminator"() : () -> ()
  }
  func.return
}

// -----

// An offset whose reads overflow int64 is refused (not wrapped around).
func.func @access_offset_overflow(%f: !stencil.field<[-1,9]xf64>, %g: !stencil.field<[-1,9]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  stencil.apply(%a = %f : !stencil.field<[-1,9]xf64>) outs (%g : !stencil.field<[-1,9]xf64>) {
    // expected-error @+1 {{'stencil.access' op offset 9223372036854775807 in dimension 0 on the apply bounds [0] to [8] reads outside the 64-bit index range}}
    %v = stencil.access %a[9223372036854775807] : !stencil.field<[-1,9]xf64>
    stencil.return %v : f64
  } to <[0], [8]>
  func.return
}

// -----

func.func @access_out_of_bounds(%t: !stencil.temp<[0,8]x[-1,9]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<[0,8]x[-1,9]xf64>) -> (!stencil.temp<[0,8]x[0,8]xf64>) {
    %n = stencil.access %a[0, -1] : !stencil.temp<[0,8]x[-1,9]xf64>
    // expected-error @+1 {{'stencil.access' op reads -1 to 7 in dimension 0 (offset -1 on the apply bounds [0, 0] to [8, 8]), outside the bounds 0 to 8 of apply operand #0}}
    %w = stencil.access %a[-1, 0] : !stencil.temp<[0,8]x[-1,9]xf64>
    %s = arith.addf %n, %w : f64
    stencil.return %s : f64
  }
  func.return
}

// -----

// A lower-rank operand: dimension 2 of the apply is dimension 0 of %z.
func.func @access_out_of_bounds_mapped(%z: !stencil.temp<[0,4]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %z : !stencil.temp<[0,4]xf64>) -> (!stencil.temp<[0,8]x[0,8]x[0,4]xf64>) {
    // expected-error @+1 {{'stencil.access' op reads 1 to 5 in dimension 2 (offset 1 on the apply bounds [0, 0, 0] to [8, 8, 4]), outside the bounds 0 to 4 of apply operand #0}}
    %v = stencil.access %a[_, _, 1] : !stencil.temp<[0,4]xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

// Unrolled by 2 in dimension 1: the body runs at points 0, 2, 4, 6 and its
// accesses reach one point further than without unrolling, no more.
func.func @access_unrolled(%t: !stencil.temp<[0,8]x[0,9]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<[0,8]x[0,9]xf64>) -> (!stencil.temp<[0,8]x[0,8]xf64>) {
    %x = stencil.access %a[0, 1] : !stencil.temp<[0,8]x[0,9]xf64>
    %y = stencil.access %a[0, 2] : !stencil.temp<[0,8]x[0,9]xf64>
    // expected-error @+1 {{'stencil.access' op reads 3 to 10 in dimension 1}}
    %z = stencil.access %a[0, 3] : !stencil.temp<[0,8]x[0,9]xf64>
    stencil.return %x, %y unroll <[1, 2]> : f64, f64
  }
  func.return
}

// -----

// Unrolled by 2 on [0,5): the last block (base 4) sticks out, its point 4
// is computed there, so the access point 4's result needs reads at base 4.
func.func @access_unrolled_remainder(%t: !stencil.temp<[0,6]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<[0,6]xf64>) -> (!stencil.temp<[0,5]xf64>) {
    // expected-error @+1 {{'stencil.access' op reads 2 to 7 in dimension 0}}
    %x = stencil.access %a[2] : !stencil.temp<[0,6]xf64>
    %y = stencil.access %a[1] : !stencil.temp<[0,6]xf64>
    stencil.return %x, %y unroll <[2]> : f64, f64
  }
  func.return
}

// -----

// The same reads for the block's second point stop at base 2: its point 5
// at base 4 is outside [0,5) and is not computed.
func.func @access_unrolled_remainder_second(%t: !stencil.temp<[0,6]xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<[0,6]xf64>) -> (!stencil.temp<[0,5]xf64>) {
    %x = stencil.access %a[1] : !stencil.temp<[0,6]xf64>
    %y = stencil.access %a[3] : !stencil.temp<[0,6]xf64>
    stencil.return %x, %y unroll <[2]> : f64, f64
  }
  func.return
}

//===----------------------------------------------------------------------===//
// access
//===----------------------------------------------------------------------===//

// -----

func.func @access_only_placeholders(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{expected at least one offset}}
    %v = stencil.access %a[_] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_scalar_type(%s: f64) {
  %r = stencil.apply(%a = %s : f64) -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{expected a stencil field or temp type}}
    %v = stencil.access %a[0] : f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_result_type(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{'stencil.access' op result type 'f32' differs from the element type 'f64' of the operand}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[0]>} : (!stencil.temp<?xf64>) -> f32
    %e = arith.extf %v : f32 to f64
    stencil.return %e : f64
  }
  func.return
}

// -----

func.func @access_offset_count(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{'stencil.access' op has 2 offsets for an operand of rank 1}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[-1, 0]>} : (!stencil.temp<?xf64>) -> f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_mapping_size(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    // expected-error @+1 {{'stencil.access' op offset mapping has 2 entries for 1 offsets}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[0]>, offset_mapping = #stencil.index<[0, 1]>} : (!stencil.temp<?xf64>) -> f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_mapping_range(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    // expected-error @+1 {{'stencil.access' op offset mapping entry 2 is outside the apply rank 2}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[0]>, offset_mapping = #stencil.index<[2]>} : (!stencil.temp<?xf64>) -> f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_mapping_order(%t: !stencil.temp<?x?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
    // expected-error @+1 {{'stencil.access' op offset mapping must be strictly increasing}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[0, 0]>, offset_mapping = #stencil.index<[2, 0]>} : (!stencil.temp<?x?xf64>) -> f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_rank_without_placeholders(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    // expected-error @+1 {{'stencil.access' op operand of rank 1 in an apply of rank 2 needs `_` placeholders for the missing dimensions}}
    %v = "stencil.access"(%a) {offset = #stencil.index<[0]>} : (!stencil.temp<?xf64>) -> f64
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @access_placeholder_count(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    // expected-error @+1 {{'stencil.access' op has 2 offsets for an operand of rank 1}}
    %v = stencil.access %a[0, 1] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

// An apply nested in an apply body (the lowering used to crash on it).
func.func @apply_in_apply(%t: !stencil.temp<?xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{'stencil.apply' op is not allowed in the body of a stencil.apply; the body may only use stencil.access, stencil.dyn_access, stencil.index, stencil.store_result and stencil.return}}
    %inner = stencil.apply(%b = %a : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %b[0] : !stencil.temp<?xf64>
      stencil.return %v : f64
    }
    %w = stencil.access %inner[0] : !stencil.temp<?xf64>
    stencil.return %w : f64
  }
  func.return
}

// -----

func.func @access_outside_apply(%t: !stencil.temp<?xf64>) {
  // expected-error @+1 {{'stencil.access' op failed to verify that is nested in a stencil.apply}}
  %v = "stencil.access"(%t) {offset = #stencil.index<[0]>} : (!stencil.temp<?xf64>) -> f64
  func.return
}

//===----------------------------------------------------------------------===//
// dyn_access, index
//===----------------------------------------------------------------------===//

// -----

func.func @dyn_access_count(%t: !stencil.temp<?x?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 0 <[0, 0]>
    // expected-error @+1 {{'stencil.dyn_access' op has 1 indices for an operand of rank 2}}
    %v = stencil.dyn_access %a[%i] in <[-1, -1]> : <[1, 1]> : !stencil.temp<?x?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @dyn_access_range_rank(%t: !stencil.temp<?x?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 0 <[0, 0]>
    // expected-error @+1 {{'stencil.dyn_access' op access range <[-1]> : <[1, 1]> must have the apply rank 2}}
    %v = stencil.dyn_access %a[%i, %i] in <[-1]> : <[1, 1]> : !stencil.temp<?x?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @dyn_access_range_order(%t: !stencil.temp<?x?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 0 <[0, 0]>
    // expected-error @+1 {{'stencil.dyn_access' op access range lower bound 2 exceeds upper bound 1 in dimension 1}}
    %v = stencil.dyn_access %a[%i, %i] in <[-1, 2]> : <[1, 1]> : !stencil.temp<?x?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @load_in_apply(%f: !stencil.field<[0,4]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply() -> (!stencil.temp<?xf64>) {
    // expected-error @+1 {{'stencil.load' op is not allowed in the body of a stencil.apply}}
    %t = stencil.load %f : !stencil.field<[0,4]xf64> -> !stencil.temp<?xf64>
    %i = stencil.index 0 <[0]>
    %v = stencil.dyn_access %t[%i] in <[0]> : <[0]> : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @dyn_access_result_type(%t: !stencil.temp<?xf64>) {
  %r = stencil.apply(%a = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %i = stencil.index 0 <[0]>
    // expected-error @+1 {{'stencil.dyn_access' op failed to verify that result type is the element type of the operand}}
    %v = "stencil.dyn_access"(%a, %i) <{lb = #stencil.index<[0]>, ub = #stencil.index<[0]>}> : (!stencil.temp<?xf64>, index) -> f32
    %e = arith.extf %v : f32 to f64
    stencil.return %e : f64
  }
  func.return
}

// -----

func.func @index_dim() {
  %r = stencil.apply() -> (!stencil.temp<?x?xindex>) {
    // expected-error @+1 {{'stencil.index' op dimension 2 is out of range for an apply of rank 2}}
    %i = stencil.index 2 <[0, 0]>
    stencil.return %i : index
  }
  func.return
}

// -----

func.func @index_offset() {
  %r = stencil.apply() -> (!stencil.temp<?x?xindex>) {
    // expected-error @+1 {{'stencil.index' op offset has 3 entries, expected 2}}
    %i = stencil.index 1 <[0, 0, 1]>
    stencil.return %i : index
  }
  func.return
}

// -----

func.func @index_outside_apply() {
  // expected-error @+1 {{'stencil.index' op failed to verify that is nested in a stencil.apply}}
  %i = stencil.index 0 <[0]>
  func.return
}

//===----------------------------------------------------------------------===//
// store_result, return
//===----------------------------------------------------------------------===//

// -----

func.func @store_result_type() {
  %r = stencil.apply() -> (!stencil.temp<?xf64>) {
    %c = arith.constant 0.0 : f64
    // expected-error @+1 {{expected !stencil.result type}}
    %s = stencil.store_result %c : f64
    stencil.return %s : f64
  }
  func.return
}

// -----

func.func @store_result_operand_custom() {
  %r = stencil.apply() -> (!stencil.temp<?xf64>) {
    // expected-note @+1 {{prior use here}}
    %c = arith.constant 0.0 : f32
    // expected-error @+1 {{use of value '%c' expects different type than prior uses: 'f64' vs 'f32'}}
    %s = stencil.store_result %c : !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  func.return
}

// -----

func.func @store_result_operand() {
  %r = stencil.apply() -> (!stencil.temp<?xf64>) {
    %c = arith.constant 0.0 : f32
    // expected-error @+1 {{'stencil.store_result' op operand type 'f32' differs from the result element type 'f64'}}
    %s = "stencil.store_result"(%c) : (f32) -> !stencil.result<f64>
    stencil.return %s : !stencil.result<f64>
  }
  func.return
}

// -----

func.func @store_result_outside_apply(%c: f64) {
  // expected-error @+1 {{'stencil.store_result' op failed to verify that is nested in a stencil.apply}}
  %s = stencil.store_result %c : !stencil.result<f64>
  func.return
}

// -----

func.func @return_unroll_rank() {
  %r = stencil.apply() -> (!stencil.temp<?x?xf64>) {
    %c = arith.constant 0.0 : f64
    // expected-error @+1 {{'stencil.return' op unroll has 1 factors, expected 2}}
    stencil.return %c, %c unroll <[2]> : f64, f64
  }
  func.return
}

// -----

func.func @return_unroll_positive() {
  %r = stencil.apply() -> (!stencil.temp<?x?xf64>) {
    %c = arith.constant 0.0 : f64
    // expected-error @+1 {{'stencil.return' op unroll factors must be positive}}
    stencil.return %c unroll <[1, 0]> : f64
  }
  func.return
}

// -----

func.func @return_count() {
  %r:2 = stencil.apply() -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %c = arith.constant 0.0 : f64
    // expected-error @+1 {{'stencil.return' op expected 4 operands to match the apply results (unroll factor 2), got 2}}
    stencil.return %c, %c unroll <[2, 1]> : f64, f64
  }
  func.return
}

// -----

func.func @return_element() {
  %r:2 = stencil.apply() -> (!stencil.temp<?xf64>, !stencil.temp<?xf32>) {
    %c = arith.constant 0.0 : f64
    %s = stencil.store_result %c : !stencil.result<f64>
    // expected-error @+1 {{'stencil.return' op operand #1 has element type 'f64', but apply result #1 has element type 'f32'}}
    stencil.return %s, %s : !stencil.result<f64>, !stencil.result<f64>
  }
  func.return
}

// -----

func.func @return_element_outs(%f: !stencil.field<[0,4]xi32>) {
  stencil.apply() outs (%f : !stencil.field<[0,4]xi32>) {
    %c = arith.constant 0 : i64
    // expected-error @+1 {{'stencil.return' op operand #0 has element type 'i64', but apply result #0 has element type 'i32'}}
    stencil.return %c : i64
  } to <[0], [4]>
  func.return
}

// -----

func.func @return_outside_apply() {
  // expected-error @+1 {{'stencil.return' op expects parent op 'stencil.apply'}}
  "stencil.return"() : () -> ()
}

// -----

// Field and temp ops inside an scf.if of an apply body.
func.func @store_in_nested_region(%f: !stencil.field<[0,4]xf64>, %t: !stencil.temp<[0,4]xf64>, %c: i1) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<[0,4]xf64>) -> (!stencil.temp<[0,4]xf64>) {
    %v = stencil.access %a[0] : !stencil.temp<[0,4]xf64>
    scf.if %c {
      // expected-error @+1 {{'stencil.store' op is not allowed in the body of a stencil.apply}}
      stencil.store %a to %f(<[0], [4]>) : !stencil.temp<[0,4]xf64> to !stencil.field<[0,4]xf64>
    }
    stencil.return %v : f64
  }
  func.return
}

// -----

func.func @cast_in_apply(%f: !stencil.field<?xf64>, %t: !stencil.temp<[0,4]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  %r = stencil.apply(%a = %t : !stencil.temp<[0,4]xf64>, %g = %f : !stencil.field<?xf64>) -> (!stencil.temp<[0,4]xf64>) {
    // expected-error @+1 {{'stencil.cast' op is not allowed in the body of a stencil.apply}}
    %h = stencil.cast %g : !stencil.field<?xf64> -> !stencil.field<[0,4]xf64>
    %v = stencil.access %a[0] : !stencil.temp<[0,4]xf64>
    stencil.return %v : f64
  }
  func.return
}

// -----

// An `outs` apply writes in place: it may read the field it writes only at
// the point it writes (xDSL's bufferization keeps such reads in a temp).
func.func @outs_reads_written_neighbour(%a: !stencil.field<[-1,33]x[-1,17]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  stencil.apply(%f = %a : !stencil.field<[-1,33]x[-1,17]xf64>) outs (%a : !stencil.field<[-1,33]x[-1,17]xf64>) {
    %c = stencil.access %f[0, 0] : !stencil.field<[-1,33]x[-1,17]xf64>
    // expected-error @+1 {{'stencil.access' op reads `outs` field #0 at offset [-1, 0]: the apply writes that field in place, so it may read it only at the point it writes (load it into a temp to read its neighbours)}}
    %l = stencil.access %f[-1, 0] : !stencil.field<[-1,33]x[-1,17]xf64>
    %s = arith.addf %c, %l : f64
    stencil.return %s : f64
  } to <[0, 0], [32, 16]>
  func.return
}

// -----

// Through a cast, as the second of two `outs` fields, and with a dynamic
// access.
func.func @outs_reads_written_cast(%a: !stencil.field<?xf64>, %b: !stencil.field<[0,8]xf64>) {
  %c = stencil.cast %a : !stencil.field<?xf64> -> !stencil.field<[0,8]xf64>
  // expected-note @+1 {{in this stencil.apply}}
  stencil.apply(%f = %a : !stencil.field<?xf64>) outs (%b : !stencil.field<[0,8]xf64>, %c : !stencil.field<[0,8]xf64>) {
    %i = stencil.index 0 <[0]>
    // expected-error @+1 {{'stencil.dyn_access' op reads `outs` field #1 at dynamic indices}}
    %v = stencil.dyn_access %f[%i] in <[0]> : <[0]> : !stencil.field<?xf64>
    stencil.return %v, %v : f64, f64
  } to <[0], [8]>
  func.return
}

// -----

// Unrolled: each point may read the element it writes, at its own offset,
// and no other.
func.func @outs_reads_written_unrolled(%a: !stencil.field<[0,8]xf64>) {
  // expected-note @+1 {{in this stencil.apply}}
  stencil.apply(%f = %a : !stencil.field<[0,8]xf64>) outs (%a : !stencil.field<[0,8]xf64>) {
    %v0 = stencil.access %f[0] : !stencil.field<[0,8]xf64>
    // expected-error @+1 {{'stencil.access' op reads `outs` field #0 at offset [0]}}
    %v1 = stencil.access %f[0] : !stencil.field<[0,8]xf64>
    stencil.return %v0, %v1 unroll <[2]> : f64, f64
  } to <[0], [8]>
  func.return
}
