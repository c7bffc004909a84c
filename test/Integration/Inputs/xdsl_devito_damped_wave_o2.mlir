// The Devito-form damped wave 2D program (devito_damped_wave_o2.mlir: three time buffers, two read-only coefficient fields) distributed by xDSL 0.74 (not by this project), as its users would
// hand it over:
//   xdsl-opt devito_damped_wave_o2.mlir -p 'distribute-stencil{strategy=2d-grid slices=2,2 restrict_domain=true},canonicalize,shape-inference'
builtin.module {
  func.func @Kernel(%u_vec0: !stencil.field<[-1,17]x[-1,13]xf32>, %u_vec1: !stencil.field<[-1,17]x[-1,13]xf32>, %u_vec2: !stencil.field<[-1,17]x[-1,13]xf32>, %m: !stencil.field<[-1,17]x[-1,13]xf32>, %damp: !stencil.field<[-1,17]x[-1,13]xf32>, %timers: !llvm.ptr) {
    %0 = func.call @timer_start() : () -> f64
    %time_m = arith.constant 0 : index
    %1 = arith.constant 3 : index
    %step = arith.constant 1 : index
    %2, %3, %4 = scf.for %time = %time_m to %1 step %step iter_args(%u_t0 = %u_vec0, %u_t1 = %u_vec1, %u_t2 = %u_vec2) -> (!stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>) {
      %m_t0_temp = stencil.load %m : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<[0,8]x[0,6]xf32>
      %5 = "dmp.swap"(%m_t0_temp) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = []}> : (!stencil.temp<[0,8]x[0,6]xf32>) -> !stencil.temp<[0,8]x[0,6]xf32>
      %damp_t0_temp = stencil.load %damp : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<[0,8]x[0,6]xf32>
      %6 = "dmp.swap"(%damp_t0_temp) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = []}> : (!stencil.temp<[0,8]x[0,6]xf32>) -> !stencil.temp<[0,8]x[0,6]xf32>
      %u_t0_temp = stencil.load %u_t0 : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<[-1,9]x[-1,7]xf32>
      %7 = "dmp.swap"(%u_t0_temp) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [8, 0] size [1, 6] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 6] source offset [1, 0] to [-1, 0]>, #dmp.exchange<at [0, 6] size [8, 1] source offset [0, -1] to [0, 1]>, #dmp.exchange<at [0, -1] size [8, 1] source offset [0, 1] to [0, -1]>]}> : (!stencil.temp<[-1,9]x[-1,7]xf32>) -> !stencil.temp<[-1,9]x[-1,7]xf32>
      %u_t2_temp = stencil.load %u_t2 : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<[0,8]x[0,6]xf32>
      %8 = "dmp.swap"(%u_t2_temp) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = []}> : (!stencil.temp<[0,8]x[0,6]xf32>) -> !stencil.temp<[0,8]x[0,6]xf32>
      %u_t1_temp = stencil.apply(%m_t0_blk = %5 : !stencil.temp<[0,8]x[0,6]xf32>, %damp_t0_blk = %6 : !stencil.temp<[0,8]x[0,6]xf32>, %u_t0_blk = %7 : !stencil.temp<[-1,9]x[-1,7]xf32>, %u_t2_blk = %8 : !stencil.temp<[0,8]x[0,6]xf32>) -> (!stencil.temp<[0,8]x[0,6]xf32>) {
        %9 = stencil.access %m_t0_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %dt = arith.constant 1.250000e-01 : f32
        %10 = arith.constant -2 : i64
        %11 = math.fpowi %dt, %10 : f32, i64
        %12 = arith.mulf %9, %11 : f32
        %13 = arith.constant 5.000000e-01 : f32
        %14 = stencil.access %damp_t0_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %dt_1 = arith.constant 1.250000e-01 : f32
        %15 = arith.constant -1 : i64
        %16 = math.fpowi %dt_1, %15 : f32, i64
        %17 = arith.mulf %13, %14 : f32
        %18 = arith.mulf %17, %16 : f32
        %19 = arith.addf %12, %18 : f32
        %20 = arith.constant -1 : i64
        %21 = math.fpowi %19, %20 : f32, i64
        %h_x = arith.constant 5.000000e-01 : f32
        %22 = arith.constant -2 : i64
        %23 = math.fpowi %h_x, %22 : f32, i64
        %24 = arith.constant -2.000000e+00 : f32
        %25 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %26 = arith.mulf %24, %25 : f32
        %27 = stencil.access %u_t0_blk[-1, 0] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %28 = stencil.access %u_t0_blk[1, 0] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %29 = arith.addf %26, %27 : f32
        %30 = arith.addf %29, %28 : f32
        %31 = arith.mulf %23, %30 : f32
        %h_y = arith.constant 2.500000e-01 : f32
        %32 = arith.constant -2 : i64
        %33 = math.fpowi %h_y, %32 : f32, i64
        %34 = arith.constant -2.000000e+00 : f32
        %35 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %36 = arith.mulf %34, %35 : f32
        %37 = stencil.access %u_t0_blk[0, -1] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %38 = stencil.access %u_t0_blk[0, 1] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %39 = arith.addf %36, %37 : f32
        %40 = arith.addf %39, %38 : f32
        %41 = arith.mulf %33, %40 : f32
        %42 = stencil.access %m_t0_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %dt_2 = arith.constant 1.250000e-01 : f32
        %43 = arith.constant -2 : i64
        %44 = math.fpowi %dt_2, %43 : f32, i64
        %45 = arith.constant 2.000000e+00 : f32
        %46 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<[-1,9]x[-1,7]xf32>
        %47 = arith.mulf %45, %46 : f32
        %48 = arith.constant -1.000000e+00 : f32
        %49 = stencil.access %u_t2_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %50 = arith.mulf %48, %49 : f32
        %51 = arith.addf %47, %50 : f32
        %52 = arith.mulf %42, %44 : f32
        %53 = arith.mulf %52, %51 : f32
        %54 = arith.constant 5.000000e-01 : f32
        %55 = stencil.access %damp_t0_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %dt_3 = arith.constant 1.250000e-01 : f32
        %56 = arith.constant -1 : i64
        %57 = math.fpowi %dt_3, %56 : f32, i64
        %58 = stencil.access %u_t2_blk[0, 0] : !stencil.temp<[0,8]x[0,6]xf32>
        %59 = arith.mulf %54, %55 : f32
        %60 = arith.mulf %59, %57 : f32
        %61 = arith.mulf %60, %58 : f32
        %62 = arith.addf %31, %41 : f32
        %63 = arith.addf %62, %53 : f32
        %64 = arith.addf %63, %61 : f32
        %65 = arith.mulf %21, %64 : f32
        stencil.return %65 : f32
      }
      stencil.store %u_t1_temp to %u_t1(<[0, 0], [8, 6]>) : !stencil.temp<[0,8]x[0,6]xf32> to !stencil.field<[-1,17]x[-1,13]xf32>
      scf.yield %u_t1, %u_t2, %u_t0 : !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>
    }
    %9 = func.call @timer_end(%0) : (f64) -> f64
    llvm.store %9, %timers : f64, !llvm.ptr
    func.return
  }
  func.func private @timer_start() -> f64
  func.func private @timer_end(f64) -> f64
}

