// The Devito-form program damped-wave-o2-16x12-s3 (python/stencil/devito_forms.py:
//   make('damped-wave', 2, (16, 12), 3)), as given to xDSL for xdsl_devito_damped_wave_o2.mlir.
builtin.module {
  func.func @Kernel(%u_vec0 : !stencil.field<[-1,17]x[-1,13]xf32>, %u_vec1 : !stencil.field<[-1,17]x[-1,13]xf32>, %u_vec2 : !stencil.field<[-1,17]x[-1,13]xf32>, %m : !stencil.field<[-1,17]x[-1,13]xf32>, %damp : !stencil.field<[-1,17]x[-1,13]xf32>, %timers : !llvm.ptr) {
    %0 = func.call @timer_start() : () -> f64
    %time_m = arith.constant 0 : index
    %time_M = arith.constant 2 : index
    %1 = arith.constant 1 : index
    %2 = arith.addi %time_M, %1 : index
    %step = arith.constant 1 : index
    %3, %4, %5 = scf.for %time = %time_m to %2 step %step iter_args(%u_t0 = %u_vec0, %u_t1 = %u_vec1, %u_t2 = %u_vec2) -> (!stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>) {
      %m_t0_temp = stencil.load %m : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<?x?xf32>
      %damp_t0_temp = stencil.load %damp : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<?x?xf32>
      %u_t0_temp = stencil.load %u_t0 : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<?x?xf32>
      %u_t2_temp = stencil.load %u_t2 : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<?x?xf32>
      %u_t1_temp = stencil.apply(%m_t0_blk = %m_t0_temp : !stencil.temp<?x?xf32>, %damp_t0_blk = %damp_t0_temp : !stencil.temp<?x?xf32>, %u_t0_blk = %u_t0_temp : !stencil.temp<?x?xf32>, %u_t2_blk = %u_t2_temp : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
        %6 = stencil.access %m_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %dt = arith.constant 1.250000e-01 : f32
        %7 = arith.constant -2 : i64
        %8 = "math.fpowi"(%dt, %7) : (f32, i64) -> f32
        %9 = arith.mulf %6, %8 : f32
        %10 = arith.constant 5.000000e-01 : f32
        %11 = stencil.access %damp_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %dt_1 = arith.constant 1.250000e-01 : f32
        %12 = arith.constant -1 : i64
        %13 = "math.fpowi"(%dt_1, %12) : (f32, i64) -> f32
        %14 = arith.mulf %10, %11 : f32
        %15 = arith.mulf %14, %13 : f32
        %16 = arith.addf %9, %15 : f32
        %17 = arith.constant -1 : i64
        %18 = "math.fpowi"(%16, %17) : (f32, i64) -> f32
        %h_x = arith.constant 5.000000e-01 : f32
        %19 = arith.constant -2 : i64
        %20 = "math.fpowi"(%h_x, %19) : (f32, i64) -> f32
        %21 = arith.constant -2.000000e+00 : f32
        %22 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %23 = arith.mulf %21, %22 : f32
        %24 = stencil.access %u_t0_blk[-1, 0] : !stencil.temp<?x?xf32>
        %25 = stencil.access %u_t0_blk[1, 0] : !stencil.temp<?x?xf32>
        %26 = arith.addf %23, %24 : f32
        %27 = arith.addf %26, %25 : f32
        %28 = arith.mulf %20, %27 : f32
        %h_y = arith.constant 2.500000e-01 : f32
        %29 = arith.constant -2 : i64
        %30 = "math.fpowi"(%h_y, %29) : (f32, i64) -> f32
        %31 = arith.constant -2.000000e+00 : f32
        %32 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %33 = arith.mulf %31, %32 : f32
        %34 = stencil.access %u_t0_blk[0, -1] : !stencil.temp<?x?xf32>
        %35 = stencil.access %u_t0_blk[0, 1] : !stencil.temp<?x?xf32>
        %36 = arith.addf %33, %34 : f32
        %37 = arith.addf %36, %35 : f32
        %38 = arith.mulf %30, %37 : f32
        %39 = stencil.access %m_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %dt_2 = arith.constant 1.250000e-01 : f32
        %40 = arith.constant -2 : i64
        %41 = "math.fpowi"(%dt_2, %40) : (f32, i64) -> f32
        %42 = arith.constant 2.000000e+00 : f32
        %43 = stencil.access %u_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %44 = arith.mulf %42, %43 : f32
        %45 = arith.constant -1.000000e+00 : f32
        %46 = stencil.access %u_t2_blk[0, 0] : !stencil.temp<?x?xf32>
        %47 = arith.mulf %45, %46 : f32
        %48 = arith.addf %44, %47 : f32
        %49 = arith.mulf %39, %41 : f32
        %50 = arith.mulf %49, %48 : f32
        %51 = arith.constant 5.000000e-01 : f32
        %52 = stencil.access %damp_t0_blk[0, 0] : !stencil.temp<?x?xf32>
        %dt_3 = arith.constant 1.250000e-01 : f32
        %53 = arith.constant -1 : i64
        %54 = "math.fpowi"(%dt_3, %53) : (f32, i64) -> f32
        %55 = stencil.access %u_t2_blk[0, 0] : !stencil.temp<?x?xf32>
        %56 = arith.mulf %51, %52 : f32
        %57 = arith.mulf %56, %54 : f32
        %58 = arith.mulf %57, %55 : f32
        %59 = arith.addf %28, %38 : f32
        %60 = arith.addf %59, %50 : f32
        %61 = arith.addf %60, %58 : f32
        %62 = arith.mulf %18, %61 : f32
        stencil.return %62 : f32
      }
      stencil.store %u_t1_temp to %u_t1(<[0, 0], [16, 12]>) : !stencil.temp<?x?xf32> to !stencil.field<[-1,17]x[-1,13]xf32>
      %u_t1_temp_1 = stencil.load %u_t1 : !stencil.field<[-1,17]x[-1,13]xf32> -> !stencil.temp<?x?xf32>
      scf.yield %u_t1, %u_t2, %u_t0 : !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>, !stencil.field<[-1,17]x[-1,13]xf32>
    }
    %63 = func.call @timer_end(%0) : (f64) -> f64
    "llvm.store"(%63, %timers) <{"ordering" = 0 : i64}> : (f64, !llvm.ptr) -> ()
    func.return
  }
  func.func private @timer_start() -> f64
  func.func private @timer_end(f64) -> f64
}
