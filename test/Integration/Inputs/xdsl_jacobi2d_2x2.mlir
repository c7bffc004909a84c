// examples/jacobi2d.mlir distributed by xDSL 0.74 (not by this project), as
// its users would hand it over:
//   xdsl-opt examples/jacobi2d.mlir -p 'distribute-stencil{strategy=2d-grid slices=2,2 restrict_domain=true},canonicalize,shape-inference'
// Per rank: the global fields' types, the domain restricted to the rank's
// 32x32 core, value-form dmp.swap with boxes in the domain's coordinates.
builtin.module {
  func.func @jacobi2d(%u0: !stencil.field<[-1,65]x[-1,65]xf64>, %u1: !stencil.field<[-1,65]x[-1,65]xf64>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 11 : index
    %r, %r_1 = scf.for %t = %c0 to %steps step %c1 iter_args(%u_cur = %u0, %u_next = %u1) -> (!stencil.field<[-1,65]x[-1,65]xf64>, !stencil.field<[-1,65]x[-1,65]xf64>) {
      %u_t = stencil.load %u_cur : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[-1,33]x[-1,33]xf64>
      %0 = "dmp.swap"(%u_t) <{strategy = #dmp.grid_slice_2d<#dmp.topo<2x2>, false>, swaps = [#dmp.exchange<at [32, 0] size [1, 32] source offset [-1, 0] to [1, 0]>, #dmp.exchange<at [-1, 0] size [1, 32] source offset [1, 0] to [-1, 0]>, #dmp.exchange<at [0, 32] size [32, 1] source offset [0, -1] to [0, 1]>, #dmp.exchange<at [0, -1] size [32, 1] source offset [0, 1] to [0, -1]>]}> : (!stencil.temp<[-1,33]x[-1,33]xf64>) -> !stencil.temp<[-1,33]x[-1,33]xf64>
      %u_new = stencil.apply(%u = %0 : !stencil.temp<[-1,33]x[-1,33]xf64>) -> (!stencil.temp<[0,32]x[0,32]xf64>) {
        %u_0 = stencil.access %u[0, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
        %u_0_m1 = stencil.access %u[0, -1] : !stencil.temp<[-1,33]x[-1,33]xf64>
        %v = arith.addf %u_0, %u_0_m1 : f64
        %u_0_p1 = stencil.access %u[0, 1] : !stencil.temp<[-1,33]x[-1,33]xf64>
        %v1 = arith.addf %v, %u_0_p1 : f64
        %u_p1 = stencil.access %u[1, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
        %v2 = arith.addf %v1, %u_p1 : f64
        %u_m1 = stencil.access %u[-1, 0] : !stencil.temp<[-1,33]x[-1,33]xf64>
        %v3 = arith.addf %v2, %u_m1 : f64
        %k = arith.constant 2.000000e-01 : f64
        %v4 = arith.mulf %v3, %k : f64
        %res = stencil.store_result %v4 : !stencil.result<f64>
        stencil.return %res : !stencil.result<f64>
      }
      stencil.store %u_new to %u_next(<[0, 0], [32, 32]>) : !stencil.temp<[0,32]x[0,32]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
      scf.yield %u_next, %u_cur : !stencil.field<[-1,65]x[-1,65]xf64>, !stencil.field<[-1,65]x[-1,65]xf64>
    }
    func.return
  }
}

