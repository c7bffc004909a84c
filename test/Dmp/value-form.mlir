// RUN: stencil-opt %S/../Integration/Inputs/xdsl_jacobi2d_2x2.mlir --stencil-shape-inference | FileCheck %s
// The lowering takes the value form as it is (its temps have their bounds
// already): the same loops as after shape inference, also after a tiling
// pass that leaves the loop alone.
// RUN: stencil-opt %S/../Integration/Inputs/xdsl_jacobi2d_2x2.mlir --stencil-shape-inference --convert-stencil-to-loops > %t.inferred
// RUN: stencil-opt %S/../Integration/Inputs/xdsl_jacobi2d_2x2.mlir --convert-stencil-to-loops > %t.direct
// RUN: diff %t.inferred %t.direct
// RUN: stencil-opt %S/../Integration/Inputs/xdsl_jacobi2d_2x2.mlir --hex-tile --convert-stencil-to-loops 2>/dev/null | FileCheck %s --check-prefix=LOOPS
// RUN: stencil-opt %S/../Integration/Inputs/xdsl_jacobi2d_2x2.mlir --split-tile --convert-stencil-to-loops 2>/dev/null | FileCheck %s --check-prefix=LOOPS
// LOOPS: call @stencil_mpi_isend

// xDSL's value form (a loaded temp in, the exchanged temp out) becomes the
// field form before the load, and the apply reads the load: the program
// xDSL distributed, lowered here as it is.
// CHECK-LABEL: func.func @jacobi2d
// CHECK: scf.for %{{.*}} iter_args(%[[CUR:.*]] = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK-NEXT: "dmp.swap"(%[[CUR]]) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, {{.*}}]}> : (!stencil.field<[-1,65]x[-1,65]xf64>) -> ()
// CHECK-NEXT: %[[T:.*]] = stencil.load %[[CUR]]
// CHECK-NEXT: stencil.apply(%{{.*}} = %[[T]] :
// CHECK-NOT: dmp.swap
