// The Devito-form heat 3D program at space order 4 (devito_heat3d_o4.mlir) distributed by xDSL 0.74 (not by this project), as its users would
// hand it over:
//   xdsl-opt devito_heat3d_o4.mlir -p 'distribute-stencil{strategy=3d-grid slices=2,2,1 restrict_domain=true},canonicalize,shape-inference'
builtin.module {
  func.func @Kernel(%u_vec0: !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>, %u_vec1: !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>, %timers: !llvm.ptr) {
    %0 = func.call @timer_start() : () -> f64
    %time_m = arith.constant 0 : index
    %1 = arith.constant 3 : index
    %step = arith.constant 1 : index
    %2, %3 = scf.for %time = %time_m to %1 step %step iter_args(%u_t0 = %u_vec0, %u_t1 = %u_vec1) -> (!stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>, !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>) {
      %u_t0_temp = stencil.load %u_t0 : !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32> -> !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
      %4 = "dmp.swap"(%u_t0_temp) <{strategy = #dmp.grid_slice_3d<#dmp.topo<2x2x1>, false>, swaps = [#dmp.exchange<at [8, 0, 0] size [2, 6, 8] source offset [-2, 0, 0] to [1, 0, 0]>, #dmp.exchange<at [-2, 0, 0] size [2, 6, 8] source offset [2, 0, 0] to [-1, 0, 0]>, #dmp.exchange<at [0, 6, 0] size [8, 2, 8] source offset [0, -2, 0] to [0, 1, 0]>, #dmp.exchange<at [0, -2, 0] size [8, 2, 8] source offset [0, 2, 0] to [0, -1, 0]>, #dmp.exchange<at [0, 0, 8] size [8, 6, 2] source offset [0, 0, -2] to [0, 0, 1]>, #dmp.exchange<at [0, 0, -2] size [8, 6, 2] source offset [0, 0, 2] to [0, 0, -1]>]}> : (!stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>) -> !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
      %u_t1_temp = stencil.apply(%u_t0_blk = %4 : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>) -> (!stencil.temp<[0,8]x[0,6]x[0,8]xf32>) {
        %5 = stencil.access %u_t0_blk[0, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %h_x = arith.constant 5.000000e-01 : f32
        %6 = arith.constant -2 : i64
        %7 = math.fpowi %h_x, %6 : f32, i64
        %8 = arith.constant -2.500000e+00 : f32
        %9 = stencil.access %u_t0_blk[0, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %10 = arith.mulf %8, %9 : f32
        %11 = arith.constant 1.33333337 : f32
        %12 = stencil.access %u_t0_blk[-1, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %13 = arith.mulf %11, %12 : f32
        %14 = arith.constant 1.33333337 : f32
        %15 = stencil.access %u_t0_blk[1, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %16 = arith.mulf %14, %15 : f32
        %17 = arith.constant -0.0833333358 : f32
        %18 = stencil.access %u_t0_blk[-2, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %19 = arith.mulf %17, %18 : f32
        %20 = arith.constant -0.0833333358 : f32
        %21 = stencil.access %u_t0_blk[2, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %22 = arith.mulf %20, %21 : f32
        %23 = arith.addf %10, %13 : f32
        %24 = arith.addf %23, %16 : f32
        %25 = arith.addf %24, %19 : f32
        %26 = arith.addf %25, %22 : f32
        %27 = arith.mulf %7, %26 : f32
        %h_y = arith.constant 2.500000e-01 : f32
        %28 = arith.constant -2 : i64
        %29 = math.fpowi %h_y, %28 : f32, i64
        %30 = arith.constant -2.500000e+00 : f32
        %31 = stencil.access %u_t0_blk[0, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %32 = arith.mulf %30, %31 : f32
        %33 = arith.constant 1.33333337 : f32
        %34 = stencil.access %u_t0_blk[0, -1, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %35 = arith.mulf %33, %34 : f32
        %36 = arith.constant 1.33333337 : f32
        %37 = stencil.access %u_t0_blk[0, 1, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %38 = arith.mulf %36, %37 : f32
        %39 = arith.constant -0.0833333358 : f32
        %40 = stencil.access %u_t0_blk[0, -2, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %41 = arith.mulf %39, %40 : f32
        %42 = arith.constant -0.0833333358 : f32
        %43 = stencil.access %u_t0_blk[0, 2, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %44 = arith.mulf %42, %43 : f32
        %45 = arith.addf %32, %35 : f32
        %46 = arith.addf %45, %38 : f32
        %47 = arith.addf %46, %41 : f32
        %48 = arith.addf %47, %44 : f32
        %49 = arith.mulf %29, %48 : f32
        %h_z = arith.constant 5.000000e-01 : f32
        %50 = arith.constant -2 : i64
        %51 = math.fpowi %h_z, %50 : f32, i64
        %52 = arith.constant -2.500000e+00 : f32
        %53 = stencil.access %u_t0_blk[0, 0, 0] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %54 = arith.mulf %52, %53 : f32
        %55 = arith.constant 1.33333337 : f32
        %56 = stencil.access %u_t0_blk[0, 0, -1] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %57 = arith.mulf %55, %56 : f32
        %58 = arith.constant 1.33333337 : f32
        %59 = stencil.access %u_t0_blk[0, 0, 1] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %60 = arith.mulf %58, %59 : f32
        %61 = arith.constant -0.0833333358 : f32
        %62 = stencil.access %u_t0_blk[0, 0, -2] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %63 = arith.mulf %61, %62 : f32
        %64 = arith.constant -0.0833333358 : f32
        %65 = stencil.access %u_t0_blk[0, 0, 2] : !stencil.temp<[-2,10]x[-2,8]x[-2,10]xf32>
        %66 = arith.mulf %64, %65 : f32
        %67 = arith.addf %54, %57 : f32
        %68 = arith.addf %67, %60 : f32
        %69 = arith.addf %68, %63 : f32
        %70 = arith.addf %69, %66 : f32
        %71 = arith.mulf %51, %70 : f32
        %72 = arith.addf %27, %49 : f32
        %73 = arith.addf %72, %71 : f32
        %74 = arith.constant 0.005859375 : f32
        %75 = arith.mulf %74, %73 : f32
        %76 = arith.addf %5, %75 : f32
        stencil.return %76 : f32
      }
      stencil.store %u_t1_temp to %u_t1(<[0, 0, 0], [8, 6, 8]>) : !stencil.temp<[0,8]x[0,6]x[0,8]xf32> to !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>
      scf.yield %u_t1, %u_t0 : !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>, !stencil.field<[-2,18]x[-2,14]x[-2,10]xf32>
    }
    %5 = func.call @timer_end(%0) : (f64) -> f64
    llvm.store %5, %timers : f64, !llvm.ptr
    func.return
  }
  func.func private @timer_start() -> f64
  func.func private @timer_end(f64) -> f64
}

