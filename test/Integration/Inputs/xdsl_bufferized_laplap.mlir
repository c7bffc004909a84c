// xDSL's stencil-bufferize of examples/laplap.mlir after shape inference:
//   stencil-opt examples/laplap.mlir --stencil-shape-inference | xdsl-opt -p stencil-bufferize
// (xDSL 0.74.0).
builtin.module {
  func.func @laplap(%arg0: !stencil.field<[-2,66]x[-2,50]xf64>, %arg1: !stencil.field<[-2,66]x[-2,50]xf64>) {
    %0 = stencil.apply(%arg2 = %arg0 : !stencil.field<[-2,66]x[-2,50]xf64>) -> (!stencil.temp<[-1,65]x[-1,49]xf64>) {
      %1 = stencil.access %arg2[0, 0] : !stencil.field<[-2,66]x[-2,50]xf64>
      %cst = arith.constant 4.000000e+00 : f64
      %2 = arith.mulf %1, %cst : f64
      %3 = stencil.access %arg2[1, 0] : !stencil.field<[-2,66]x[-2,50]xf64>
      %4 = stencil.access %arg2[-1, 0] : !stencil.field<[-2,66]x[-2,50]xf64>
      %5 = arith.addf %3, %4 : f64
      %6 = stencil.access %arg2[0, 1] : !stencil.field<[-2,66]x[-2,50]xf64>
      %7 = arith.addf %5, %6 : f64
      %8 = stencil.access %arg2[0, -1] : !stencil.field<[-2,66]x[-2,50]xf64>
      %9 = arith.addf %7, %8 : f64
      %10 = arith.subf %2, %9 : f64
      %11 = stencil.store_result %10 : !stencil.result<f64>
      stencil.return %11 : !stencil.result<f64>
    } to <[-1, -1], [65, 49]>
    %1 = stencil.buffer %0 : !stencil.temp<[-1,65]x[-1,49]xf64> -> !stencil.field<[-1,65]x[-1,49]xf64>
    stencil.apply(%arg2 = %1 : !stencil.field<[-1,65]x[-1,49]xf64>) outs (%arg1 : !stencil.field<[-2,66]x[-2,50]xf64>) {
      %2 = stencil.access %arg2[0, 0] : !stencil.field<[-1,65]x[-1,49]xf64>
      %cst = arith.constant 4.000000e+00 : f64
      %3 = arith.mulf %2, %cst : f64
      %4 = stencil.access %arg2[1, 0] : !stencil.field<[-1,65]x[-1,49]xf64>
      %5 = stencil.access %arg2[-1, 0] : !stencil.field<[-1,65]x[-1,49]xf64>
      %6 = arith.addf %4, %5 : f64
      %7 = stencil.access %arg2[0, 1] : !stencil.field<[-1,65]x[-1,49]xf64>
      %8 = arith.addf %6, %7 : f64
      %9 = stencil.access %arg2[0, -1] : !stencil.field<[-1,65]x[-1,49]xf64>
      %10 = arith.addf %8, %9 : f64
      %11 = arith.subf %3, %10 : f64
      %12 = stencil.store_result %11 : !stencil.result<f64>
      stencil.return %12 : !stencil.result<f64>
    } to <[0, 0], [64, 48]>
    func.return
  }
}

