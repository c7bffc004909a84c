// Dependences computed by isl under the canonical schedule, through the
// rotating buffers: flow (value), anti (the next write of a location read)
// and output (the next write of a location written), with their distances
// in the canonical schedule space [K*t + k, s...].
// RUN: stencil-opt %s --stencil-to-poly --poly-print-dependences -o /dev/null 2>&1 | FileCheck %s

// Ping-pong 3-point Jacobi: step t+1 reads what step t wrote at s-1..s+1;
// buffer t mod 2 is overwritten at step t+1 after its neighbours read it;
// each buffer is written every second step.
// CHECK-LABEL: scop at
// CHECK-NEXT: flow: { S0[t, s1] -> S0[t' = 1 + t, s1' = 1 + s1] : 0 <= t <= 8 and 0 <= s1 <= 254; S0[t, s1] -> S0[t' = 1 + t, s1' = -1 + s1] : 0 <= t <= 8 and 0 < s1 <= 255 }
// CHECK-NEXT: flow distances: { [1, 1]; [1, -1] }
// CHECK: anti distances: { [1, 1]; [1, -1] }
// CHECK: output distances: { [i0, 0] : (i0) mod 2 = 0 and 2 <= i0 <= 3 }
!f1 = !stencil.field<[-1,257]xf64>
func.func @pingpong(%a : !f1, %b : !f1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %r:2 = scf.for %t = %c0 to %c10 step %c1 iter_args(%x = %a, %y = %b) -> (!f1, !f1) {
    %l = stencil.load %x : !f1 -> !stencil.temp<?xf64>
    %n = stencil.apply(%u = %l : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %v = stencil.access %u[-1] : !stencil.temp<?xf64>
      %w = stencil.access %u[1] : !stencil.temp<?xf64>
      %s = arith.addf %v, %w : f64
      stencil.return %s : f64
    }
    stencil.store %n to %y(<[0], [256]>) : !stencil.temp<?xf64> to !f1
    scf.yield %y, %x : !f1, !f1
  }
  return
}

// Three buffers (wave equation): step t+2 reads what step t wrote (the
// older level), the buffer read as the older level is the next one written.
// CHECK-LABEL: scop at
// CHECK: flow distances: [N] -> { [1, 2] : N >= 2; [2, 0] : N >= 3; [1, -2] : N >= 2 }
// CHECK: anti distances: [N] -> { [2, 2] : N >= 3; [1, 0] : N >= 2; [2, -2] : N >= 3 }
// CHECK: output distances: [N] -> { [i0, 0] : (i0) mod 3 = 0 and N >= 4 and 0 < i0 <= 3 }
!f = !stencil.field<[-2,34]xf32>
func.func @wave(%a : !f, %b : !f, %c : !f, %n : index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:3 = scf.for %t = %c0 to %n step %c1 iter_args(%prev = %a, %cur = %b, %next = %c) -> (!f, !f, !f) {
    %p = stencil.load %prev : !f -> !stencil.temp<?xf32>
    %u = stencil.load %cur : !f -> !stencil.temp<?xf32>
    %w = stencil.apply(%x = %u : !stencil.temp<?xf32>, %y = %p : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
      %l = stencil.access %x[-2] : !stencil.temp<?xf32>
      %q = stencil.access %x[2] : !stencil.temp<?xf32>
      %o = stencil.access %y[0] : !stencil.temp<?xf32>
      %s = arith.addf %l, %q : f32
      %d = arith.subf %s, %o : f32
      stencil.return %d : f32
    }
    stencil.store %w to %next(<[0], [32]>) : !stencil.temp<?xf32> to !f
    scf.yield %cur, %next, %prev : !f, !f, !f
  }
  return
}
