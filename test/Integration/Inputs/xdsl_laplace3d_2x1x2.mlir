// examples/laplace3d.mlir distributed by xDSL 0.74 (not by this project), as its users would
// hand it over:
//   xdsl-opt examples/laplace3d.mlir -p 'distribute-stencil{strategy=3d-grid slices=2,1,2 restrict_domain=true},canonicalize,shape-inference'
builtin.module {
  func.func @laplace3d(%u0: !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>, %u1: !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 10 : index
    %r, %r_1 = scf.for %t = %c0 to %steps step %c1 iter_args(%u_cur = %u0, %u_next = %u1) -> (!stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>, !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>) {
      %u_t = stencil.load %u_cur : !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64> -> !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
      %0 = "dmp.swap"(%u_t) <{strategy = #dmp.grid_slice_3d<#dmp.topo<2x1x2>, false>, swaps = [#dmp.exchange<at [12, 0, 0] size [1, 20, 8] source offset [-1, 0, 0] to [1, 0, 0]>, #dmp.exchange<at [-1, 0, 0] size [1, 20, 8] source offset [1, 0, 0] to [-1, 0, 0]>, #dmp.exchange<at [0, 20, 0] size [12, 1, 8] source offset [0, -1, 0] to [0, 1, 0]>, #dmp.exchange<at [0, -1, 0] size [12, 1, 8] source offset [0, 1, 0] to [0, -1, 0]>, #dmp.exchange<at [0, 0, 8] size [12, 20, 1] source offset [0, 0, -1] to [0, 0, 1]>, #dmp.exchange<at [0, 0, -1] size [12, 20, 1] source offset [0, 0, 1] to [0, 0, -1]>]}> : (!stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>) -> !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
      %u_new = stencil.apply(%u = %0 : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>) -> (!stencil.temp<[0,12]x[0,20]x[0,8]xf64>) {
        %u_0_0 = stencil.access %u[0, 0, 0] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %k = arith.constant 2.500000e-01 : f64
        %v = arith.mulf %u_0_0, %k : f64
        %u_m1_0 = stencil.access %u[-1, 0, 0] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %u_p1_0 = stencil.access %u[1, 0, 0] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %v1 = arith.addf %u_m1_0, %u_p1_0 : f64
        %u_0_m1 = stencil.access %u[0, -1, 0] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %v2 = arith.addf %v1, %u_0_m1 : f64
        %u_0_p1 = stencil.access %u[0, 1, 0] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %v3 = arith.addf %v2, %u_0_p1 : f64
        %u_0_0_m1 = stencil.access %u[0, 0, -1] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %v4 = arith.addf %v3, %u_0_0_m1 : f64
        %u_0_0_p1 = stencil.access %u[0, 0, 1] : !stencil.temp<[-1,13]x[-1,21]x[-1,9]xf64>
        %v5 = arith.addf %v4, %u_0_0_p1 : f64
        %k1 = arith.constant 1.250000e-01 : f64
        %v6 = arith.mulf %v5, %k1 : f64
        %v7 = arith.addf %v, %v6 : f64
        %res = stencil.store_result %v7 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      stencil.store %u_new to %u_next(<[0, 0, 0], [12, 20, 8]>) : !stencil.temp<[0,12]x[0,20]x[0,8]xf64> to !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>
      scf.yield %u_next, %u_cur : !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>, !stencil.field<[-1,25]x[-1,21]x[-1,17]xf64>
    }
    func.return
  }
}

