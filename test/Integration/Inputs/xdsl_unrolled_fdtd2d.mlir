// xDSL's stencil-unroll of examples/fdtd2d.mlir, written by
//   xdsl-opt -p 'stencil-unroll{unroll-factor=2,2}' examples/fdtd2d.mlir
// (xDSL 0.74.0). hz reads ey one row and ex one column further, so ey is
// computed on 65 x 48 points and ex on 64 x 49: the last block of 2x2
// points sticks out of the fields.
builtin.module {
  func.func @fdtd2d(%ex0: !stencil.field<[-1,65]x[-1,49]xf64>, %ex1: !stencil.field<[-1,65]x[-1,49]xf64>, %ey0: !stencil.field<[-1,65]x[-1,49]xf64>, %ey1: !stencil.field<[-1,65]x[-1,49]xf64>, %hz0: !stencil.field<[-1,65]x[-1,49]xf64>, %hz1: !stencil.field<[-1,65]x[-1,49]xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 11 : index
    %r, %r_1, %r_2, %r_3, %r_4, %r_5 = scf.for %t = %c0 to %steps step %c1 iter_args(%ex_cur = %ex0, %ex_next = %ex1, %ey_cur = %ey0, %ey_next = %ey1, %hz_cur = %hz0, %hz_next = %hz1) -> (!stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>) {
      %ex_t = stencil.load %ex_cur : !stencil.field<[-1,65]x[-1,49]xf64> -> !stencil.temp<?x?xf64>
      %ey_t = stencil.load %ey_cur : !stencil.field<[-1,65]x[-1,49]xf64> -> !stencil.temp<?x?xf64>
      %hz_t = stencil.load %hz_cur : !stencil.field<[-1,65]x[-1,49]xf64> -> !stencil.temp<?x?xf64>
      %ey_new = stencil.apply(%ey = %ey_t : !stencil.temp<?x?xf64>, %hz = %hz_t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
        %ey_1 = stencil.access %ey[0, 0] : !stencil.temp<?x?xf64>
        %hz_1 = stencil.access %hz[0, 0] : !stencil.temp<?x?xf64>
        %hz_m1 = stencil.access %hz[-1, 0] : !stencil.temp<?x?xf64>
        %v = arith.subf %hz_1, %hz_m1 : f64
        %k = arith.constant 5.000000e-01 : f64
        %v1 = arith.mulf %v, %k : f64
        %v2 = arith.subf %ey_1, %v1 : f64
        %res = stencil.store_result %v2 : !stencil.result<f64>
        %ey_2 = stencil.access %ey[0, 1] : !stencil.temp<?x?xf64>
        %hz_2 = stencil.access %hz[0, 1] : !stencil.temp<?x?xf64>
        %hz_m1_1 = stencil.access %hz[-1, 1] : !stencil.temp<?x?xf64>
        %v_1 = arith.subf %hz_2, %hz_m1_1 : f64
        %k_1 = arith.constant 5.000000e-01 : f64
        %v1_1 = arith.mulf %v_1, %k_1 : f64
        %v2_1 = arith.subf %ey_2, %v1_1 : f64
        %res_1 = stencil.store_result %v2_1 : !stencil.result<f64>
        %ey_3 = stencil.access %ey[1, 0] : !stencil.temp<?x?xf64>
        %hz_3 = stencil.access %hz[1, 0] : !stencil.temp<?x?xf64>
        %hz_m1_2 = stencil.access %hz[0, 0] : !stencil.temp<?x?xf64>
        %v_2 = arith.subf %hz_3, %hz_m1_2 : f64
        %k_2 = arith.constant 5.000000e-01 : f64
        %v1_2 = arith.mulf %v_2, %k_2 : f64
        %v2_2 = arith.subf %ey_3, %v1_2 : f64
        %res_2 = stencil.store_result %v2_2 : !stencil.result<f64>
        %ey_4 = stencil.access %ey[1, 1] : !stencil.temp<?x?xf64>
        %hz_4 = stencil.access %hz[1, 1] : !stencil.temp<?x?xf64>
        %hz_m1_3 = stencil.access %hz[0, 1] : !stencil.temp<?x?xf64>
        %v_3 = arith.subf %hz_4, %hz_m1_3 : f64
        %k_3 = arith.constant 5.000000e-01 : f64
        %v1_3 = arith.mulf %v_3, %k_3 : f64
        %v2_3 = arith.subf %ey_4, %v1_3 : f64
        %res_3 = stencil.store_result %v2_3 : !stencil.result<f64>
        stencil.return %res, %res_1, %res_2, %res_3 unroll <[2, 2]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
      }
      %ex_new = stencil.apply(%ex = %ex_t : !stencil.temp<?x?xf64>, %hz = %hz_t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
        %ex_1 = stencil.access %ex[0, 0] : !stencil.temp<?x?xf64>
        %hz_1 = stencil.access %hz[0, 0] : !stencil.temp<?x?xf64>
        %hz_0_m1 = stencil.access %hz[0, -1] : !stencil.temp<?x?xf64>
        %v = arith.subf %hz_1, %hz_0_m1 : f64
        %k = arith.constant 5.000000e-01 : f64
        %v1 = arith.mulf %v, %k : f64
        %v2 = arith.subf %ex_1, %v1 : f64
        %res = stencil.store_result %v2 : !stencil.result<f64>
        %ex_2 = stencil.access %ex[0, 1] : !stencil.temp<?x?xf64>
        %hz_2 = stencil.access %hz[0, 1] : !stencil.temp<?x?xf64>
        %hz_0_m1_1 = stencil.access %hz[0, 0] : !stencil.temp<?x?xf64>
        %v_1 = arith.subf %hz_2, %hz_0_m1_1 : f64
        %k_1 = arith.constant 5.000000e-01 : f64
        %v1_1 = arith.mulf %v_1, %k_1 : f64
        %v2_1 = arith.subf %ex_2, %v1_1 : f64
        %res_1 = stencil.store_result %v2_1 : !stencil.result<f64>
        %ex_3 = stencil.access %ex[1, 0] : !stencil.temp<?x?xf64>
        %hz_3 = stencil.access %hz[1, 0] : !stencil.temp<?x?xf64>
        %hz_0_m1_2 = stencil.access %hz[1, -1] : !stencil.temp<?x?xf64>
        %v_2 = arith.subf %hz_3, %hz_0_m1_2 : f64
        %k_2 = arith.constant 5.000000e-01 : f64
        %v1_2 = arith.mulf %v_2, %k_2 : f64
        %v2_2 = arith.subf %ex_3, %v1_2 : f64
        %res_2 = stencil.store_result %v2_2 : !stencil.result<f64>
        %ex_4 = stencil.access %ex[1, 1] : !stencil.temp<?x?xf64>
        %hz_4 = stencil.access %hz[1, 1] : !stencil.temp<?x?xf64>
        %hz_0_m1_3 = stencil.access %hz[1, 0] : !stencil.temp<?x?xf64>
        %v_3 = arith.subf %hz_4, %hz_0_m1_3 : f64
        %k_3 = arith.constant 5.000000e-01 : f64
        %v1_3 = arith.mulf %v_3, %k_3 : f64
        %v2_3 = arith.subf %ex_4, %v1_3 : f64
        %res_3 = stencil.store_result %v2_3 : !stencil.result<f64>
        stencil.return %res, %res_1, %res_2, %res_3 unroll <[2, 2]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
      }
      %hz_new = stencil.apply(%hz = %hz_t : !stencil.temp<?x?xf64>, %ex_new1 = %ex_new : !stencil.temp<?x?xf64>, %ey_new1 = %ey_new : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
        %hz_1 = stencil.access %hz[0, 0] : !stencil.temp<?x?xf64>
        %ex_new1_0_p1 = stencil.access %ex_new1[0, 1] : !stencil.temp<?x?xf64>
        %ex_new1_1 = stencil.access %ex_new1[0, 0] : !stencil.temp<?x?xf64>
        %v = arith.subf %ex_new1_0_p1, %ex_new1_1 : f64
        %ey_new1_p1 = stencil.access %ey_new1[1, 0] : !stencil.temp<?x?xf64>
        %v1 = arith.addf %v, %ey_new1_p1 : f64
        %ey_new1_1 = stencil.access %ey_new1[0, 0] : !stencil.temp<?x?xf64>
        %v2 = arith.subf %v1, %ey_new1_1 : f64
        %k = arith.constant 7.000000e-01 : f64
        %v3 = arith.mulf %v2, %k : f64
        %v4 = arith.subf %hz_1, %v3 : f64
        %res = stencil.store_result %v4 : !stencil.result<f64>
        %hz_2 = stencil.access %hz[0, 1] : !stencil.temp<?x?xf64>
        %ex_new1_0_p1_1 = stencil.access %ex_new1[0, 2] : !stencil.temp<?x?xf64>
        %ex_new1_2 = stencil.access %ex_new1[0, 1] : !stencil.temp<?x?xf64>
        %v_1 = arith.subf %ex_new1_0_p1_1, %ex_new1_2 : f64
        %ey_new1_p1_1 = stencil.access %ey_new1[1, 1] : !stencil.temp<?x?xf64>
        %v1_1 = arith.addf %v_1, %ey_new1_p1_1 : f64
        %ey_new1_2 = stencil.access %ey_new1[0, 1] : !stencil.temp<?x?xf64>
        %v2_1 = arith.subf %v1_1, %ey_new1_2 : f64
        %k_1 = arith.constant 7.000000e-01 : f64
        %v3_1 = arith.mulf %v2_1, %k_1 : f64
        %v4_1 = arith.subf %hz_2, %v3_1 : f64
        %res_1 = stencil.store_result %v4_1 : !stencil.result<f64>
        %hz_3 = stencil.access %hz[1, 0] : !stencil.temp<?x?xf64>
        %ex_new1_0_p1_2 = stencil.access %ex_new1[1, 1] : !stencil.temp<?x?xf64>
        %ex_new1_3 = stencil.access %ex_new1[1, 0] : !stencil.temp<?x?xf64>
        %v_2 = arith.subf %ex_new1_0_p1_2, %ex_new1_3 : f64
        %ey_new1_p1_2 = stencil.access %ey_new1[2, 0] : !stencil.temp<?x?xf64>
        %v1_2 = arith.addf %v_2, %ey_new1_p1_2 : f64
        %ey_new1_3 = stencil.access %ey_new1[1, 0] : !stencil.temp<?x?xf64>
        %v2_2 = arith.subf %v1_2, %ey_new1_3 : f64
        %k_2 = arith.constant 7.000000e-01 : f64
        %v3_2 = arith.mulf %v2_2, %k_2 : f64
        %v4_2 = arith.subf %hz_3, %v3_2 : f64
        %res_2 = stencil.store_result %v4_2 : !stencil.result<f64>
        %hz_4 = stencil.access %hz[1, 1] : !stencil.temp<?x?xf64>
        %ex_new1_0_p1_3 = stencil.access %ex_new1[1, 2] : !stencil.temp<?x?xf64>
        %ex_new1_4 = stencil.access %ex_new1[1, 1] : !stencil.temp<?x?xf64>
        %v_3 = arith.subf %ex_new1_0_p1_3, %ex_new1_4 : f64
        %ey_new1_p1_3 = stencil.access %ey_new1[2, 1] : !stencil.temp<?x?xf64>
        %v1_3 = arith.addf %v_3, %ey_new1_p1_3 : f64
        %ey_new1_4 = stencil.access %ey_new1[1, 1] : !stencil.temp<?x?xf64>
        %v2_3 = arith.subf %v1_3, %ey_new1_4 : f64
        %k_3 = arith.constant 7.000000e-01 : f64
        %v3_3 = arith.mulf %v2_3, %k_3 : f64
        %v4_3 = arith.subf %hz_4, %v3_3 : f64
        %res_3 = stencil.store_result %v4_3 : !stencil.result<f64>
        stencil.return %res, %res_1, %res_2, %res_3 unroll <[2, 2]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
      }
      stencil.store %ex_new to %ex_next(<[0, 0], [64, 48]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,49]xf64>
      stencil.store %ey_new to %ey_next(<[0, 0], [64, 48]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,49]xf64>
      stencil.store %hz_new to %hz_next(<[0, 0], [64, 48]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,49]xf64>
      scf.yield %ex_next, %ex_cur, %ey_next, %ey_cur, %hz_next, %hz_cur : !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>, !stencil.field<[-1,65]x[-1,49]xf64>
    }
    func.return
  }
}

