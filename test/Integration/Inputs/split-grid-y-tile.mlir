// Found by stencil.randomgen --split-tile --default-sizes --emulate-gpu (seed
// 5806), reduced: see gpu-random-findings.py.
func.func @k(%u0 : !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>, %u1 : !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 2 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>, !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>) {
    %in = stencil.load %a : !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32> -> !stencil.temp<?x?x?xf32>
    %r0 = stencil.apply(%a0 = %in : !stencil.temp<?x?x?xf32>) -> (!stencil.temp<?x?x?xf32>) {
        %v0 = stencil.access %a0[0,0,0] : !stencil.temp<?x?x?xf32>
        %w = arith.constant 0.5 : f32
        %p = arith.mulf %v0, %w : f32
        stencil.return %p : f32
    }
    %r1 = stencil.apply(%a1 = %r0 : !stencil.temp<?x?x?xf32>) -> (!stencil.temp<?x?x?xf32>) {
        %x = stencil.access %a1[0,-1,0] : !stencil.temp<?x?x?xf32>
        stencil.return %x : f32
    }
    stencil.store %r1 to %b(<[0, 0, 0], [1, 2, 1]>) : !stencil.temp<?x?x?xf32> to !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>
    scf.yield %b, %a : !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>, !stencil.field<[-1,2]x[-1,3]x[-1,2]xf32>
  }
  func.return
}
