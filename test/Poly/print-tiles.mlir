// --poly-print-tiles: where each instance of a tiled scop runs, as JSON on
// the standard error (or in a file). A 1D Jacobi on 8 points, 3 steps,
// split-tiled with bands of 2 steps and a period of 4: at t = 1 (t' = 1)
// the upright trapezoids hold s mod 4 in [1, 2], the inverted ones the rest,
// tile floor((s + 1) / 4); t = 2 starts the next band (t' = 0: all upright).
// RUN: split-file %s %t
// (One point per line for FileCheck.)
// RUN: stencil-opt %t/one.mlir --split-tile="h=2 widths=4" --poly-print-tiles -o /dev/null 2>&1 | sed 's/},{/},\n{/g' | FileCheck %s
// RUN: stencil-opt %t/one.mlir --split-tile="h=2 widths=4" --poly-print-tiles=output=%t/tiles.json -o /dev/null
// RUN: sed 's/},{/},\n{/g' %t/tiles.json | FileCheck %s
// A dynamic step count needs steps=.
// RUN: stencil-opt %t/dynamic.mlir --split-tile="h=2 widths=4" --poly-print-tiles="steps=3" -o /dev/null 2>&1 | sed 's/},{/},\n{/g' | FileCheck %s
// RUN: stencil-opt %t/dynamic-error.mlir --split-tile="h=2 widths=4" --poly-print-tiles -verify-diagnostics -o /dev/null
// Only tiled scops, not yet mapped to the GPU.
// RUN: stencil-opt %t/untiled.mlir --stencil-to-poly --poly-print-tiles -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/mapped.mlir --split-tile="h=2 widths=4" --poly-to-gpu --poly-print-tiles -verify-diagnostics -o /dev/null
// A program too large to list.
// RUN: stencil-opt %t/big.mlir --split-tile="h=2 widths=64" --poly-print-tiles -verify-diagnostics -o /dev/null
// An output that cannot be written.
// RUN: not stencil-opt %t/one.mlir --split-tile="h=2 widths=4" --poly-print-tiles=output=%t/no/such/dir/tiles.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=WRITE

// CHECK: {"scops":[{"colors":2,"distances":{{\[\[}}1,1],[1,-1],[2,0]],"location":
// CHECK-DAG: {"color":0,"instance":[0,0],"statement":"S0","tile":[0,0]}
// CHECK-DAG: {"color":0,"instance":[1,1],"statement":"S0","tile":[0,0]}
// CHECK-DAG: {"color":0,"instance":[1,6],"statement":"S0","tile":[0,1]}
// CHECK-DAG: {"color":1,"instance":[1,0],"statement":"S0","tile":[0,0]}
// CHECK-DAG: {"color":1,"instance":[1,3],"statement":"S0","tile":[0,1]}
// CHECK-DAG: {"color":1,"instance":[1,4],"statement":"S0","tile":[0,1]}
// CHECK-DAG: {"color":0,"instance":[2,0],"statement":"S0","tile":[1,0]}
// CHECK: "space_dims":1,"statement_position":{"S0":0},"statements_per_step":1}]}
// WRITE: error: poly-print-tiles: cannot write '{{.*}}tiles.json'

//--- one.mlir
!f1 = !stencil.field<[-1,9]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 3 : index
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [8]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}


//--- dynamic.mlir
!f1 = !stencil.field<[-1,9]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1, %steps : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [8]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}


//--- dynamic-error.mlir
!f1 = !stencil.field<[-1,9]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1, %steps : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{poly-print-tiles: the number of steps is not a constant; give it with steps= (the picture command's --steps)}}
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [8]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}


//--- untiled.mlir
!f1 = !stencil.field<[-1,9]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 3 : index
  // expected-error@+1 {{poly-print-tiles: the scop is not hex- or split-tiled (run --hex-tile or --split-tile first, and no GPU mapping)}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [8]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}


//--- mapped.mlir
!f1 = !stencil.field<[-1,9]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 3 : index
  // expected-error@+1 {{poly-print-tiles: the scop is not hex- or split-tiled (run --hex-tile or --split-tile first, and no GPU mapping)}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [8]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

//--- big.mlir
!f1 = !stencil.field<[-1,600001]xf64>
func.func @jacobi1d(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 2 : index
  // expected-error@+1 {{poly-print-tiles: 1200000 statement instances, more than 1048576; use a smaller program}}
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [600000]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

