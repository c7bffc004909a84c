// Invalid GPU mappings: poly-to-gpu options that cannot be used, GPU launch
// configurations on poly.scop that CUDA cannot run, and mapped schedules that
// the code generator cannot lower. Each is a located error.
// RUN: split-file %s %t
// RUN: stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8,2" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/block.mlir --hex-tile="h=3 widths=8,8" --poly-to-gpu="threads=64,32" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/negative.mlir --hex-tile="h=3 widths=8,8" --poly-to-gpu="threads=8,-1" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/untiled.mlir --stencil-to-poly --poly-to-gpu="threads=2000" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/barrier-outside-kernel.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/nested-kernels.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/grid-y-depths.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8,8,8,8" 2>&1 | FileCheck %s --check-prefix=FOUR --implicit-check-not="see current operation"
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="max-blocks=0" 2>&1 | FileCheck %s --check-prefix=BLOCKS --implicit-check-not="see current operation"
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="unroll-budget=-1" 2>&1 | FileCheck %s --check-prefix=UNROLL-BUDGET --implicit-check-not="see current operation"
// RUN: stencil-opt %t/zero-threads.mlir -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/four-threads.mlir -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/too-many-threads.mlir -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/max-blocks.mlir -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/kernel-without-config.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/threads-outside-kernel.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/grid-y-outside-kernel.mlir --convert-stencil-to-loops -verify-diagnostics -o /dev/null

// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="promote=all" 2>&1 | FileCheck %s --check-prefix=PROMOTE --implicit-check-not="see current operation"
// Thread errors of a region name the pass, without the region's IR.
// RUN: not stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile --convert-to-gpu=threads=8,2 2>&1 | FileCheck %s --check-prefix=THREADS-1D --implicit-check-not="see current operation"
// THREADS-1D: jacobi1d_3pt.mlir:{{[0-9]+}}:{{[0-9]+}}: error: poly-to-gpu: threads has 2 sizes
// Without a region to map, at the first op of the module.
// RUN: not stencil-opt %stencil_src/examples/hdiff.mlir --convert-to-gpu="promote=all" 2>&1 | FileCheck %s --check-prefix=PROMOTE-UNTILED --implicit-check-not="see current operation"
// PROMOTE-UNTILED: hdiff.mlir:{{[1-9][0-9]*}}:1: error: poly-to-gpu: promote must be none, copy, interleaved or auto, got 'all'
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="shared-budget=-1" 2>&1 | FileCheck %s --check-prefix=BUDGET --implicit-check-not="see current operation"
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="shared-budget=232449" 2>&1 | FileCheck %s --check-prefix=BUDGET-SM90 --implicit-check-not="see current operation"
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="shared-budget=200000 chip=sm_80" 2>&1 | FileCheck %s --check-prefix=BUDGET-SM80 --implicit-check-not="see current operation"
// RUN: stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 shared-budget=232448" -o /dev/null
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="thread-points=diagonal" 2>&1 | FileCheck %s --check-prefix=POINTS --implicit-check-not="see current operation"
// RUN: not stencil-opt %t/options.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="inter-tile-reuse=always" 2>&1 | FileCheck %s --check-prefix=REUSE --implicit-check-not="see current operation"
// A promoted scop whose buffers do not match its tree, or are malformed:
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" | sed 's/kernel = 1 : i64/kernel = 7 : i64/' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=SHARED-KERNEL
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" | sed 's/, shape = array<i64: 2, 17>//' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=SHARED-ENTRY
// RUN: stencil-opt %stencil_src/examples/jacobi1d_3pt.mlir --hex-tile="h=3 widths=8" --poly-to-gpu="threads=8 promote=copy" | sed 's/-> A0\[(0), (-13 + 24i1)\]/-> A0[(0)]/' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=SHARED-OFFSET
// RUN: stencil-opt %stencil_src/examples/jacobi2d.mlir --hex-tile="h=3 widths=8,16" --poly-to-gpu="threads=16,4" | sed 's/reuse = array<i64: 0, 0, 16>/reuse = array<i64: 16>/' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=SHARED-REUSE

// Located at the region (not at the module's line 0).
// PROMOTE: options.mlir:{{[1-9][0-9]*}}:{{[0-9]+}}: error: poly-to-gpu: promote must be none, copy, interleaved or auto, got 'all'
// BUDGET: error: poly-to-gpu: shared-budget must not be negative
// POINTS: error: poly-to-gpu: thread-points must be blocked or cyclic, got 'diagonal'
// REUSE: error: poly-to-gpu: inter-tile-reuse must be true, false or auto, got 'always'
// BUDGET-SM90: error: poly-to-gpu: shared-budget 232449 exceeds the 232448 bytes of shared memory a block of sm_90 can have
// BUDGET-SM80: error: poly-to-gpu: shared-budget 200000 exceeds the 166912 bytes of shared memory a block of sm_80 can have
// SHARED-KERNEL: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: 'poly.scop' op gpu_shared names kernel 7 but the schedule has 2 'shared' mark(s)
// SHARED-ENTRY: error: 'poly.scop' op invalid gpu_shared: gpu_shared entries need array, kernel, offset and shape
// SHARED-REUSE: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: 'poly.scop' op invalid gpu_shared: gpu_shared reuse of @A0 must be an array<i64> with one shift per dimension
// SHARED-OFFSET: error: 'poly.scop' op invalid gpu_shared: gpu_shared offset of @A0 must map into the array with one value per dimension
// FOUR: error: poly-to-gpu: threads takes at most 3 sizes (x, y, z), got 4
// BLOCKS: error: poly-to-gpu: max-blocks must be positive
// UNROLL-BUDGET: error: poly-to-gpu: unroll-budget must not be negative, got -1
//--- options.mlir
func.func @f(%u0 : !stencil.field<[-1,9]xf64>, %u1 : !stencil.field<[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{poly-to-gpu: threads has 2 sizes but this 1-dimensional region maps 1 dimension(s) to threads}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) {
    %u = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
    %n = stencil.apply(%x = %u : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %r = stencil.access %x[1] : !stencil.temp<?xf64>
      %s = arith.addf %l, %r : f64
      %v = stencil.store_result %s : !stencil.result<f64>
      stencil.return %v : !stencil.result<f64>
    }
    stencil.store %n to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>
  }
  func.return
}
//--- block.mlir
func.func @f(%u0 : !stencil.field<[-1,9]x[-1,9]xf64>, %u1 : !stencil.field<[-1,9]x[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{poly-to-gpu: threads asks for 2048 threads per block (at most 1024)}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>) {
    %u = stencil.load %a : !stencil.field<[-1,9]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
    %n = stencil.apply(%x = %u : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %l, %r : f64
      %v = stencil.store_result %s : !stencil.result<f64>
      stencil.return %v : !stencil.result<f64>
    }
    stencil.store %n to %b(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,9]x[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>
  }
  func.return
}
//--- negative.mlir
func.func @f(%u0 : !stencil.field<[-1,9]x[-1,9]xf64>, %u1 : !stencil.field<[-1,9]x[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{poly-to-gpu: threads must be positive, got -1}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>) {
    %u = stencil.load %a : !stencil.field<[-1,9]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
    %n = stencil.apply(%x = %u : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
      %r = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %s = arith.addf %l, %r : f64
      %v = stencil.store_result %s : !stencil.result<f64>
      stencil.return %v : !stencil.result<f64>
    }
    stencil.store %n to %b(<[0, 0], [8, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,9]x[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]x[-1,9]xf64>, !stencil.field<[-1,9]x[-1,9]xf64>
  }
  func.return
}
//--- zero-threads.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op gpu_threads needs 1 to 3 positive sizes}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 0>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22parallel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- four-threads.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op gpu_threads needs 1 to 3 positive sizes}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 1, 1, 1, 1>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22parallel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- too-many-threads.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op gpu_threads asks for 2048 threads per block (at most 1024)}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 64, 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22parallel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- max-blocks.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op gpu_max_blocks must be positive}}
  %r:2 = poly.scop steps(%n) attributes {gpu_max_blocks = 0, gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22parallel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- kernel-without-config.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: 'kernel' mark without a GPU launch configuration}}
  %r:2 = poly.scop steps(%n) attributes {result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22kernel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- threads-outside-kernel.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: 'threads' mark outside a kernel}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22threads\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- grid-y-outside-kernel.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: 'grid_y_4' mark outside a kernel}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22grid_y_4\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- untiled.mlir
func.func @f(%u0 : !stencil.field<[-1,9]xf64>, %u1 : !stencil.field<[-1,9]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{poly-to-gpu: threads must be in [1, 1024], got 2000}}
  %r:2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) {
    %u = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
    %n = stencil.apply(%x = %u : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-1] : !stencil.temp<?xf64>
      %r = stencil.access %x[1] : !stencil.temp<?xf64>
      %s = arith.addf %l, %r : f64
      %v = stencil.store_result %s : !stencil.result<f64>
      stencil.return %v : !stencil.result<f64>
    }
    stencil.store %n to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
    scf.yield %b, %a : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>
  }
  func.return
}
//--- barrier-outside-kernel.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: barrier outside a kernel}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { extension: \22[N] -> { [i0] -> barrier[i0] : 0 <= i0 < N }\22, child: { sequence: [ { filter: \22[N] -> { S0[t, i0] }\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } }, { filter: \22[N] -> { barrier[i0] }\22 } ] } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
//--- nested-kernels.mlir
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: nested 'kernel' marks}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { mark: \22kernel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22kernel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}

//--- grid-y-depths.mlir
// The blocks along y take the band member below the "grid_y_N" marks; they
// must be at one schedule depth in the tree.
func.func @f(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>, %n : index) {
  // expected-error @+1 {{'poly.scop' op code generation failed: grid_y marks at different schedule depths}}
  %r:2 = poly.scop steps(%n) attributes {gpu_threads = array<i64: 32>, result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>, schedule = "{ domain: \22[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 <= 7 }\22, child: { sequence: [ { filter: \22[N] -> { S0[t, i0] : i0 <= 3 }\22, child: { mark: \22kernel\22, child: { mark: \22grid_y_2\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }, { S0[t, s1] -> [(s1)] }]\22 } } } }, { filter: \22[N] -> { S0[t, i0] : i0 >= 4 }\22, child: { mark: \22kernel\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(t)] }]\22, child: { mark: \22grid_y_2\22, child: { schedule: \22[N] -> [{ S0[t, s1] -> [(s1)] }]\22 } } } } } ] } }"} -> !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64> {
    poly.array @A0 buffers(%a, %b : !stencil.field<[-1,9]xf64>, !stencil.field<[-1,9]xf64>) box [-1] to [9] of f64
    poly.stmt @S0 domain "[N] -> { S0[t, i0] : 0 <= t < N and 0 <= i0 < 8 }" writes "{ S0[t, i0] -> A0[(t + 1) mod 2, i0] }" reads ["{ S0[t, i0] -> A0[t mod 2, i0 - 1] }", "{ S0[t, i0] -> A0[t mod 2, i0 + 1] }"] {
    ^bb0(%x: f64, %y: f64, %i: index):
      %s = arith.addf %x, %y : f64
      poly.yield %s : f64
    }
  }
  func.return
}
