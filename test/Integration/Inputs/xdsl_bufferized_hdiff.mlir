// xDSL's stencil-bufferize of examples/hdiff.mlir after shape inference:
//   stencil-opt examples/hdiff.mlir --stencil-shape-inference | xdsl-opt -p stencil-bufferize
// (xDSL 0.74.0): stencil.buffer with field results read by the applies after
// them, the last apply writing its field through outs.
builtin.module {
  func.func @hdiff(%arg0: !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg1: !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg2: !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>) {
    %0 = stencil.apply(%arg3 = %arg0 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>) -> (!stencil.temp<[-1,25]x[-1,21]x[0,16]xf64>) {
      %1 = stencil.access %arg3[0, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %cst = arith.constant 4.000000e+00 : f64
      %2 = arith.mulf %1, %cst : f64
      %3 = stencil.access %arg3[1, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %4 = stencil.access %arg3[-1, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %5 = arith.addf %3, %4 : f64
      %6 = stencil.access %arg3[0, 1, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %7 = arith.addf %5, %6 : f64
      %8 = stencil.access %arg3[0, -1, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %9 = arith.addf %7, %8 : f64
      %10 = arith.subf %2, %9 : f64
      %11 = stencil.store_result %10 : !stencil.result<f64>
      stencil.return %11 : !stencil.result<f64>
    } to <[-1, -1, 0], [25, 21, 16]>
    %1 = stencil.buffer %0 : !stencil.temp<[-1,25]x[-1,21]x[0,16]xf64> -> !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
    %2 = stencil.apply(%arg3 = %arg0 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg4 = %1 : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>) -> (!stencil.temp<[-1,24]x[0,20]x[0,16]xf64>) {
      %3 = stencil.access %arg4[1, 0, 0] : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
      %4 = stencil.access %arg4[0, 0, 0] : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
      %5 = arith.subf %3, %4 : f64
      %cst = arith.constant 0.000000e+00 : f64
      %6 = stencil.access %arg3[1, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %7 = stencil.access %arg3[0, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %8 = arith.subf %6, %7 : f64
      %9 = arith.mulf %5, %8 : f64
      %10 = arith.cmpf ogt, %9, %cst : f64
      %11 = arith.select %10, %cst, %5 : f64
      %12 = stencil.store_result %11 : !stencil.result<f64>
      stencil.return %12 : !stencil.result<f64>
    } to <[-1, 0, 0], [24, 20, 16]>
    %3 = stencil.buffer %0 : !stencil.temp<[-1,25]x[-1,21]x[0,16]xf64> -> !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
    %4 = stencil.apply(%arg3 = %arg0 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg4 = %3 : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>) -> (!stencil.temp<[0,24]x[-1,20]x[0,16]xf64>) {
      %5 = stencil.access %arg4[0, 1, 0] : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
      %6 = stencil.access %arg4[0, 0, 0] : !stencil.field<[-1,25]x[-1,21]x[0,16]xf64>
      %7 = arith.subf %5, %6 : f64
      %cst = arith.constant 0.000000e+00 : f64
      %8 = stencil.access %arg3[0, 1, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %9 = stencil.access %arg3[0, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %10 = arith.subf %8, %9 : f64
      %11 = arith.mulf %7, %10 : f64
      %12 = arith.cmpf ogt, %11, %cst : f64
      %13 = arith.select %12, %cst, %7 : f64
      %14 = stencil.store_result %13 : !stencil.result<f64>
      stencil.return %14 : !stencil.result<f64>
    } to <[0, -1, 0], [24, 20, 16]>
    %5 = stencil.buffer %2 : !stencil.temp<[-1,24]x[0,20]x[0,16]xf64> -> !stencil.field<[-1,24]x[0,20]x[0,16]xf64>
    %6 = stencil.buffer %4 : !stencil.temp<[0,24]x[-1,20]x[0,16]xf64> -> !stencil.field<[0,24]x[-1,20]x[0,16]xf64>
    stencil.apply(%arg3 = %arg0 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg4 = %arg1 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>, %arg5 = %5 : !stencil.field<[-1,24]x[0,20]x[0,16]xf64>, %arg6 = %6 : !stencil.field<[0,24]x[-1,20]x[0,16]xf64>) outs (%arg2 : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>) {
      %7 = stencil.access %arg3[0, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %8 = stencil.access %arg4[0, 0, 0] : !stencil.field<[-2,26]x[-2,22]x[0,16]xf64>
      %9 = stencil.access %arg5[0, 0, 0] : !stencil.field<[-1,24]x[0,20]x[0,16]xf64>
      %10 = stencil.access %arg5[-1, 0, 0] : !stencil.field<[-1,24]x[0,20]x[0,16]xf64>
      %11 = arith.subf %9, %10 : f64
      %12 = stencil.access %arg6[0, 0, 0] : !stencil.field<[0,24]x[-1,20]x[0,16]xf64>
      %13 = arith.addf %11, %12 : f64
      %14 = stencil.access %arg6[0, -1, 0] : !stencil.field<[0,24]x[-1,20]x[0,16]xf64>
      %15 = arith.subf %13, %14 : f64
      %16 = arith.mulf %8, %15 : f64
      %17 = arith.subf %7, %16 : f64
      %18 = stencil.store_result %17 : !stencil.result<f64>
      stencil.return %18 : !stencil.result<f64>
    } to <[0, 0, 0], [24, 20, 16]>
    func.return
  }
}

