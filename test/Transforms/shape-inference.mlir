// RUN: stencil-opt %s -stencil-shape-inference | FileCheck %s
// Running the pass on its own output changes nothing.
// RUN: stencil-opt %s -stencil-shape-inference | stencil-opt -stencil-shape-inference | FileCheck %s

// 1D, f32: a 3-point stencil needs one more point on each side.
// CHECK-LABEL: func.func @jacobi1d
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} : !stencil.field<[-2,66]xf32> -> !stencil.temp<[-1,65]xf32>
// CHECK:         %[[R:.*]] = stencil.apply(%[[X:.*]] = %[[T]] : !stencil.temp<[-1,65]xf32>) -> (!stencil.temp<[0,64]xf32>) {
// CHECK:           stencil.access %[[X]][-1] : !stencil.temp<[-1,65]xf32>
// CHECK:         stencil.store %[[R]] to %{{.*}}(<[0], [64]>) : !stencil.temp<[0,64]xf32> to !stencil.field<[-2,66]xf32>
func.func @jacobi1d(%a : !stencil.field<[-2,66]xf32>, %b : !stencil.field<[-2,66]xf32>) {
  %t = stencil.load %a : !stencil.field<[-2,66]xf32> -> !stencil.temp<?xf32>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf32>
    %c = stencil.access %x[0] : !stencil.temp<?xf32>
    %u = stencil.access %x[1] : !stencil.temp<?xf32>
    %s0 = arith.addf %l, %c : f32
    %s1 = arith.addf %s0, %u : f32
    %res = stencil.store_result %s1 : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  stencil.store %r to %b(<[0], [64]>) : !stencil.temp<?xf32> to !stencil.field<[-2,66]xf32>
  func.return
}

// 2D time loop (the ping-pong form): only the accessed dimension grows.
// CHECK-LABEL: func.func @laplace2d
// CHECK:         scf.for
// CHECK:           %[[IN:.*]] = stencil.load %{{.*}} : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<[0,64]x[-1,65]xf64>
// CHECK:           %[[OUT:.*]] = stencil.apply(%[[X:.*]] = %[[IN]] : !stencil.temp<[0,64]x[-1,65]xf64>) -> (!stencil.temp<[0,64]x[0,64]xf64>) {
// CHECK:             stencil.access %[[X]][0, 1] : !stencil.temp<[0,64]x[-1,65]xf64>
// CHECK:             stencil.access %[[X]][0, -1] : !stencil.temp<[0,64]x[-1,65]xf64>
// CHECK:           stencil.store %[[OUT]] to %{{.*}}(<[0, 0], [64, 64]>) : !stencil.temp<[0,64]x[0,64]xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
// CHECK:           scf.yield
func.func @laplace2d(%u0 : !stencil.field<[-1,65]x[-1,65]xf64>, %u1 : !stencil.field<[-1,65]x[-1,65]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 10 : index
  %r:2 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %u0, %b = %u1) -> (!stencil.field<[-1,65]x[-1,65]xf64>, !stencil.field<[-1,65]x[-1,65]xf64>) {
    %in = stencil.load %a : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<?x?xf64>
    %out = stencil.apply(%x = %in : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
      %v = arith.addf %n, %s : f64
      %res = stencil.store_result %v : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %out to %b(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf64> to !stencil.field<[-1,65]x[-1,65]xf64>
    scf.yield %b, %a : !stencil.field<[-1,65]x[-1,65]xf64>, !stencil.field<[-1,65]x[-1,65]xf64>
  }
  func.return
}

// Three buffers in rotation (wave equation): a step reads two time levels,
// each on its own box.
// CHECK-LABEL: func.func @wave1d
// CHECK:         scf.for
// CHECK:           %[[U0:.*]] = stencil.load %{{.*}} : !stencil.field<[-4,36]xf64> -> !stencil.temp<[-2,34]xf64>
// CHECK:           %[[U1:.*]] = stencil.load %{{.*}} : !stencil.field<[-4,36]xf64> -> !stencil.temp<[0,32]xf64>
// CHECK:           stencil.apply(%{{.*}} = %[[U0]] : !stencil.temp<[-2,34]xf64>, %{{.*}} = %[[U1]] : !stencil.temp<[0,32]xf64>) -> (!stencil.temp<[0,32]xf64>)
func.func @wave1d(%f0 : !stencil.field<[-4,36]xf64>, %f1 : !stencil.field<[-4,36]xf64>, %f2 : !stencil.field<[-4,36]xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 100 : index
  %r:3 = scf.for %t = %c0 to %steps step %c1 iter_args(%a = %f0, %b = %f1, %c = %f2) -> (!stencil.field<[-4,36]xf64>, !stencil.field<[-4,36]xf64>, !stencil.field<[-4,36]xf64>) {
    %u0 = stencil.load %a : !stencil.field<[-4,36]xf64> -> !stencil.temp<?xf64>
    %u1 = stencil.load %b : !stencil.field<[-4,36]xf64> -> !stencil.temp<?xf64>
    %u2 = stencil.apply(%x = %u0 : !stencil.temp<?xf64>, %y = %u1 : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
      %l = stencil.access %x[-2] : !stencil.temp<?xf64>
      %h = stencil.access %x[2] : !stencil.temp<?xf64>
      %p = stencil.access %y[0] : !stencil.temp<?xf64>
      %s = arith.addf %l, %h : f64
      %d = arith.subf %s, %p : f64
      %res = stencil.store_result %d : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    stencil.store %u2 to %c(<[0], [32]>) : !stencil.temp<?xf64> to !stencil.field<[-4,36]xf64>
    scf.yield %b, %c, %a : !stencil.field<[-4,36]xf64>, !stencil.field<[-4,36]xf64>, !stencil.field<[-4,36]xf64>
  }
  func.return
}

// 3D with asymmetric offsets.
// CHECK-LABEL: func.func @asym3d
// CHECK:         stencil.load %{{.*}} : !stencil.field<[-2,68]x[-2,68]x[-2,68]xf64> -> !stencil.temp<[-1,65]x[0,66]x[-1,64]xf64>
// CHECK:         stencil.apply({{.*}}) -> (!stencil.temp<[0,64]x[0,64]x[0,64]xf64>)
func.func @asym3d(%a : !stencil.field<[-2,68]x[-2,68]x[-2,68]xf64>, %b : !stencil.field<[-2,68]x[-2,68]x[-2,68]xf64>) {
  %t = stencil.load %a : !stencil.field<[-2,68]x[-2,68]x[-2,68]xf64> -> !stencil.temp<?x?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?x?xf64>) -> (!stencil.temp<?x?x?xf64>) {
    %0 = stencil.access %x[1, 0, 0] : !stencil.temp<?x?x?xf64>
    %1 = stencil.access %x[-1, 0, 0] : !stencil.temp<?x?x?xf64>
    %2 = stencil.access %x[0, 2, 0] : !stencil.temp<?x?x?xf64>
    %3 = stencil.access %x[0, 0, -1] : !stencil.temp<?x?x?xf64>
    %4 = arith.addf %0, %1 : f64
    %5 = arith.addf %2, %3 : f64
    %6 = arith.addf %4, %5 : f64
    %res = stencil.store_result %6 : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %b(<[0, 0, 0], [64, 64, 64]>) : !stencil.temp<?x?x?xf64> to !stencil.field<[-2,68]x[-2,68]x[-2,68]xf64>
  func.return
}

// A chain of applies: each stage adds the halo of its consumer.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[-1,65]x[-1,65]xf64>
// CHECK:         %[[A:.*]] = stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-1,65]x[-1,65]xf64>) -> (!stencil.temp<[0,64]x[-1,65]xf64>)
// CHECK:         %[[B:.*]] = stencil.apply(%{{.*}} = %[[A]] : !stencil.temp<[0,64]x[-1,65]xf64>) -> (!stencil.temp<[0,64]x[0,64]xf64>)
// CHECK:         stencil.store %[[B]] to %{{.*}}(<[0, 0], [64, 64]>) : !stencil.temp<[0,64]x[0,64]xf64>
func.func @chain(%in : !stencil.field<[-2,66]x[-2,66]xf64>, %out : !stencil.field<[-2,66]x[-2,66]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,66]x[-2,66]xf64> -> !stencil.temp<?x?xf64>
  %a = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
    %r = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %l, %r : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %b = stencil.apply(%y = %a : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %d = stencil.access %y[0, -1] : !stencil.temp<?x?xf64>
    %u = stencil.access %y[0, 1] : !stencil.temp<?x?xf64>
    %s = arith.addf %d, %u : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %b to %out(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,66]x[-2,66]xf64>
  func.return
}

// A temp read by two consumers gets the union of both needs; a consumer that
// is stored on a larger box than the other widens its own operand only.
// CHECK-LABEL: func.func @two_consumers
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[-3,20]xf64>
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-3,20]xf64>) -> (!stencil.temp<[0,10]xf64>)
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-3,20]xf64>) -> (!stencil.temp<[5,20]xf64>)
func.func @two_consumers(%in : !stencil.field<[-4,24]xf64>, %o1 : !stencil.field<[-4,24]xf64>, %o2 : !stencil.field<[-4,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,24]xf64> -> !stencil.temp<?xf64>
  %a = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[-3] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %b = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[0] : !stencil.temp<?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %a to %o1(<[0], [10]>) : !stencil.temp<?xf64> to !stencil.field<[-4,24]xf64>
  stencil.store %b to %o2(<[5], [20]>) : !stencil.temp<?xf64> to !stencil.field<[-4,24]xf64>
  func.return
}

// A lower-rank operand: only its own dimensions count (`_` dims do not).
// CHECK-LABEL: func.func @lower_rank
// CHECK:         %[[C:.*]] = stencil.load %{{.*}} : !stencil.field<[-4,20]xf64> -> !stencil.temp<[-1,18]xf64>
// CHECK:         %[[R:.*]] = stencil.load %{{.*}} : !stencil.field<[-4,20]xf64> -> !stencil.temp<[2,10]xf64>
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} : !stencil.field<[0,8]x[0,16]xf64> -> !stencil.temp<[0,8]x[0,16]xf64>
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[0,8]x[0,16]xf64>, %[[XC:.*]] = %[[C]] : !stencil.temp<[-1,18]xf64>, %[[XR:.*]] = %[[R]] : !stencil.temp<[2,10]xf64>) -> (!stencil.temp<[0,8]x[0,16]xf64>)
// CHECK:           stencil.access %[[XC]][_, 2] : !stencil.temp<[-1,18]xf64>
// CHECK:           stencil.access %[[XC]][_, -1] : !stencil.temp<[-1,18]xf64>
// CHECK:           stencil.access %[[XR]][2, _] : !stencil.temp<[2,10]xf64>
func.func @lower_rank(%f2 : !stencil.field<[0,8]x[0,16]xf64>, %col : !stencil.field<[-4,20]xf64>, %row : !stencil.field<[-4,20]xf64>, %out : !stencil.field<[0,8]x[0,16]xf64>) {
  %c = stencil.load %col : !stencil.field<[-4,20]xf64> -> !stencil.temp<?xf64>
  %r = stencil.load %row : !stencil.field<[-4,20]xf64> -> !stencil.temp<?xf64>
  %t = stencil.load %f2 : !stencil.field<[0,8]x[0,16]xf64> -> !stencil.temp<?x?xf64>
  %a = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %xc = %c : !stencil.temp<?xf64>, %xr = %r : !stencil.temp<?xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %k1 = stencil.access %xc[_, 2] : !stencil.temp<?xf64>
    %k2 = stencil.access %xc[_, -1] : !stencil.temp<?xf64>
    %k3 = stencil.access %xr[2, _] : !stencil.temp<?xf64>
    %s0 = arith.addf %v, %k1 : f64
    %s1 = arith.addf %s0, %k2 : f64
    %s2 = arith.addf %s1, %k3 : f64
    %res = stencil.store_result %s2 : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %a to %out(<[0, 0], [8, 16]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,8]x[0,16]xf64>
  func.return
}

// dyn_access widens the box by its lb/ub range.
// CHECK-LABEL: func.func @dyn
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[-1,11]x[-2,22]xf64>
// CHECK:         stencil.apply({{.*}}) -> (!stencil.temp<[0,10]x[0,20]xf64>)
// CHECK:           stencil.dyn_access %{{.*}}[%{{.*}}, %{{.*}}] in <[-1, -2]> : <[1, 2]> : !stencil.temp<[-1,11]x[-2,22]xf64>
func.func @dyn(%in : !stencil.field<[-4,24]x[-4,24]xf64>, %out : !stencil.field<[-4,24]x[-4,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,24]x[-4,24]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %i = stencil.index 0 <[0, 0]>
    %j = stencil.index 1 <[0, 0]>
    %v = stencil.dyn_access %x[%i, %j] in <[-1, -2]> : <[1, 2]> : !stencil.temp<?x?xf64>
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0, 0], [10, 20]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,24]x[-4,24]xf64>
  func.return
}

// A buffer: the buffered apply gets the buffer's box, widened by the needs
// of its other result; buffer operand and result types stay equal.
// CHECK-LABEL: func.func @buffer
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[-1,12]x[0,10]xf64>
// CHECK:         %[[A:.*]]:2 = stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-1,12]x[0,10]xf64>) -> (!stencil.temp<[-1,12]x[0,10]xf64>, !stencil.temp<[-1,12]x[0,10]xf64>)
// CHECK:         %[[B:.*]] = stencil.buffer %[[A]]#0 : !stencil.temp<[-1,12]x[0,10]xf64> -> !stencil.temp<[-1,12]x[0,10]xf64>
// CHECK:         stencil.apply(%{{.*}} = %[[B]] : !stencil.temp<[-1,12]x[0,10]xf64>) -> (!stencil.temp<[0,10]x[0,10]xf64>)
func.func @buffer(%in : !stencil.field<[-4,24]x[-4,24]xf64>, %o1 : !stencil.field<[-4,24]x[-4,24]xf64>, %o2 : !stencil.field<[-4,24]x[-4,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,24]x[-4,24]xf64> -> !stencil.temp<?x?xf64>
  %a:2 = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %r0 = stencil.store_result %v : !stencil.result<f64>
    %r1 = stencil.store_result %v : !stencil.result<f64>
    stencil.return %r0, %r1 : !stencil.result<f64>, !stencil.result<f64>
  }
  %b = stencil.buffer %a#0 : !stencil.temp<?x?xf64> -> !stencil.temp<?x?xf64>
  %c = stencil.apply(%y = %b : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %l = stencil.access %y[-1, 0] : !stencil.temp<?x?xf64>
    %u = stencil.access %y[1, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %l, %u : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %c to %o1(<[0, 0], [10, 10]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,24]x[-4,24]xf64>
  stencil.store %a#1 to %o2(<[0, 0], [12, 10]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,24]x[-4,24]xf64>
  func.return
}

// Combine: lower operands are needed below the cut, upper ones from it on;
// the ext operands follow their side; each result has its own box.
// CHECK-LABEL: func.func @combine
// CHECK:         %[[L:.*]] = stencil.apply{{.*}} -> (!stencil.temp<[0,5]x[0,10]xf64>)
// CHECK:         %[[U:.*]] = stencil.apply{{.*}} -> (!stencil.temp<[5,10]x[0,10]xf64>)
// CHECK:         %[[LE:.*]] = stencil.apply{{.*}} -> (!stencil.temp<[0,5]x[0,10]xf64>)
// CHECK:         %[[C:.*]]:2 = stencil.combine 0 at 5 lower = (%[[L]] : !stencil.temp<[0,5]x[0,10]xf64>) upper = (%[[U]] : !stencil.temp<[5,10]x[0,10]xf64>) lowerext = %[[LE]] : !stencil.temp<[0,5]x[0,10]xf64> : !stencil.temp<[0,10]x[0,10]xf64>, !stencil.temp<[0,5]x[0,10]xf64>
func.func @combine(%out : !stencil.field<[-4,24]x[-4,24]xf64>, %out2 : !stencil.field<[-4,24]x[-4,24]xf64>) {
  %cst = arith.constant 1.0 : f64
  %l = stencil.apply(%v = %cst : f64) -> (!stencil.temp<?x?xf64>) {
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %u = stencil.apply(%v = %cst : f64) -> (!stencil.temp<?x?xf64>) {
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %le = stencil.apply(%v = %cst : f64) -> (!stencil.temp<?x?xf64>) {
    %res = stencil.store_result %v : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %c:2 = stencil.combine 0 at 5 lower = (%l : !stencil.temp<?x?xf64>) upper = (%u : !stencil.temp<?x?xf64>) lowerext = %le : !stencil.temp<?x?xf64> : !stencil.temp<?x?xf64>, !stencil.temp<?x?xf64>
  stencil.store %c#0 to %out(<[0, 0], [10, 10]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,24]x[-4,24]xf64>
  stencil.store %c#1 to %out2(<[0, 0], [5, 10]>) : !stencil.temp<?x?xf64> to !stencil.field<[-4,24]x[-4,24]xf64>
  func.return
}

// Two lower/upper pairs with both ext kinds: every operand follows its own
// result; an unused result takes the union of the others.
// CHECK-LABEL: func.func @combine_pairs
// CHECK:         stencil.combine 0 at 4 lower = (%{{.*}}, %{{.*}} : !stencil.temp<[0,4]xf64>, !stencil.temp<[2,4]xf64>) upper = (%{{.*}}, %{{.*}} : !stencil.temp<[4,8]xf64>, !stencil.temp<[4,6]xf64>) lowerext = %{{.*}} : !stencil.temp<[0,4]xf64> upperext = %{{.*}} : !stencil.temp<[4,8]xf64> : !stencil.temp<[0,8]xf64>, !stencil.temp<[2,6]xf64>, !stencil.temp<[0,4]xf64>, !stencil.temp<[0,8]xf64>
func.func @combine_pairs(%in : !stencil.field<[-4,12]xf64>, %o1 : !stencil.field<[-4,12]xf64>, %o2 : !stencil.field<[-4,12]xf64>, %o3 : !stencil.field<[-4,12]xf64>) {
  %a = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %b = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %c = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %d = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %e = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %f = stencil.load %in : !stencil.field<[-4,12]xf64> -> !stencil.temp<?xf64>
  %r:4 = stencil.combine 0 at 4 lower = (%a, %b : !stencil.temp<?xf64>, !stencil.temp<?xf64>) upper = (%c, %d : !stencil.temp<?xf64>, !stencil.temp<?xf64>) lowerext = %e : !stencil.temp<?xf64> upperext = %f : !stencil.temp<?xf64> : !stencil.temp<?xf64>, !stencil.temp<?xf64>, !stencil.temp<?xf64>, !stencil.temp<?xf64>
  stencil.store %r#0 to %o1(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  stencil.store %r#1 to %o2(<[2], [6]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  stencil.store %r#2 to %o3(<[0], [4]>) : !stencil.temp<?xf64> to !stencil.field<[-4,12]xf64>
  func.return
}

// upperext, a cut in dimension 1, and a combine fed by loads read with a
// halo through an apply.
// CHECK-LABEL: func.func @combine_upperext
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[-1,11]x[3,10]xf32>
// CHECK:         %[[L:.*]] = stencil.load %{{.*}} -> !stencil.temp<[0,10]x[0,3]xf32>
// CHECK:         %[[U:.*]] = stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-1,11]x[3,10]xf32>) -> (!stencil.temp<[0,10]x[3,10]xf32>)
// CHECK:         %[[UE:.*]] = stencil.apply{{.*}} -> (!stencil.temp<[0,10]x[3,10]xf32>)
// CHECK:         stencil.combine 1 at 3 lower = (%[[L]] : !stencil.temp<[0,10]x[0,3]xf32>) upper = (%[[U]] : !stencil.temp<[0,10]x[3,10]xf32>) upperext = %[[UE]] : !stencil.temp<[0,10]x[3,10]xf32> : !stencil.temp<[0,10]x[0,10]xf32>, !stencil.temp<[0,10]x[0,10]xf32>
func.func @combine_upperext(%in : !stencil.field<[-4,24]x[-4,24]xf32>, %out : !stencil.field<[-4,24]x[-4,24]xf32>, %out2 : !stencil.field<[-4,24]x[-4,24]xf32>) {
  %t = stencil.load %in : !stencil.field<[-4,24]x[-4,24]xf32> -> !stencil.temp<?x?xf32>
  %l = stencil.load %in : !stencil.field<[-4,24]x[-4,24]xf32> -> !stencil.temp<?x?xf32>
  %u = stencil.apply(%x = %t : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %a = stencil.access %x[-1, 0] : !stencil.temp<?x?xf32>
    %b = stencil.access %x[1, 0] : !stencil.temp<?x?xf32>
    %s = arith.addf %a, %b : f32
    %res = stencil.store_result %s : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  %ue = stencil.apply(%x = %t : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %a = stencil.access %x[0, 0] : !stencil.temp<?x?xf32>
    %res = stencil.store_result %a : !stencil.result<f32>
    stencil.return %res : !stencil.result<f32>
  }
  %c:2 = stencil.combine 1 at 3 lower = (%l : !stencil.temp<?x?xf32>) upper = (%u : !stencil.temp<?x?xf32>) upperext = %ue : !stencil.temp<?x?xf32> : !stencil.temp<?x?xf32>, !stencil.temp<?x?xf32>
  stencil.store %c#0 to %out(<[0, 0], [10, 10]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,24]x[-4,24]xf32>
  stencil.store %c#1 to %out2(<[0, 0], [10, 10]>) : !stencil.temp<?x?xf32> to !stencil.field<[-4,24]x[-4,24]xf32>
  func.return
}

// A cut outside the needed box: the combine box is widened to reach it, and
// the upper side, cut away entirely, is needed only by its own store.
// CHECK-LABEL: func.func @combine_far_cut
// CHECK:         %[[L:.*]] = stencil.load %{{.*}} -> !stencil.temp<[0,20]xf64>
// CHECK:         %[[U:.*]] = stencil.load %{{.*}} -> !stencil.temp<[12,16]xf64>
// CHECK:         stencil.combine 0 at 20 lower = (%[[L]] : !stencil.temp<[0,20]xf64>) upper = (%[[U]] : !stencil.temp<[12,16]xf64>) : !stencil.temp<[0,20]xf64>
func.func @combine_far_cut(%in : !stencil.field<[-4,24]xf64>, %out : !stencil.field<[-4,24]xf64>, %out2 : !stencil.field<[-4,24]xf64>) {
  %l = stencil.load %in : !stencil.field<[-4,24]xf64> -> !stencil.temp<?xf64>
  %u = stencil.load %in : !stencil.field<[-4,24]xf64> -> !stencil.temp<?xf64>
  %c = stencil.combine 0 at 20 lower = (%l : !stencil.temp<?xf64>) upper = (%u : !stencil.temp<?xf64>) : !stencil.temp<?xf64>
  stencil.store %c to %out(<[0], [10]>) : !stencil.temp<?xf64> to !stencil.field<[-4,24]xf64>
  stencil.store %u to %out2(<[12], [16]>) : !stencil.temp<?xf64> to !stencil.field<[-4,24]xf64>
  func.return
}

// An apply with `outs` keeps its `to` box and gives its operands their needs.
// CHECK-LABEL: func.func @outs
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[-1,65]x[0,64]xf64>
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[-1,65]x[0,64]xf64>) outs (%{{.*}} : !stencil.field<[-1,65]x[-1,65]xf64>) {
// CHECK:         } to <[0, 0], [64, 64]>
func.func @outs(%in : !stencil.field<[-1,65]x[-1,65]xf64>, %out : !stencil.field<[-1,65]x[-1,65]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,65]x[-1,65]xf64> -> !stencil.temp<?x?xf64>
  stencil.apply(%x = %t : !stencil.temp<?x?xf64>) outs (%out : !stencil.field<[-1,65]x[-1,65]xf64>) {
    %l = stencil.access %x[-1, 0] : !stencil.temp<?x?xf64>
    %u = stencil.access %x[1, 0] : !stencil.temp<?x?xf64>
    %s = arith.addf %l, %u : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  } to <[0, 0], [64, 64]>
  func.return
}

// Multiple results share the union of their needs; i32 elements.
// CHECK-LABEL: func.func @multi_result
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[0,12]x[-1,10]xi32>
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[0,12]x[-1,10]xi32>) -> (!stencil.temp<[0,12]x[-1,10]xi32>, !stencil.temp<[0,12]x[-1,10]xi32>)
// CHECK:         stencil.store %{{.*}}#0 to %{{.*}}(<[0, 0], [10, 10]>) : !stencil.temp<[0,12]x[-1,10]xi32>
// CHECK:         stencil.store %{{.*}}#1 to %{{.*}}(<[2, -1], [12, 5]>) : !stencil.temp<[0,12]x[-1,10]xi32>
func.func @multi_result(%in : !stencil.field<[-4,24]x[-4,24]xi32>, %o1 : !stencil.field<[-4,24]x[-4,24]xi32>, %o2 : !stencil.field<[-4,24]x[-4,24]xi32>) {
  %t = stencil.load %in : !stencil.field<[-4,24]x[-4,24]xi32> -> !stencil.temp<?x?xi32>
  %r:2 = stencil.apply(%x = %t : !stencil.temp<?x?xi32>) -> (!stencil.temp<?x?xi32>, !stencil.temp<?x?xi32>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xi32>
    %w = arith.addi %v, %v : i32
    %r0 = stencil.store_result %v : !stencil.result<i32>
    %r1 = stencil.store_result %w : !stencil.result<i32>
    stencil.return %r0, %r1 : !stencil.result<i32>, !stencil.result<i32>
  }
  stencil.store %r#0 to %o1(<[0, 0], [10, 10]>) : !stencil.temp<?x?xi32> to !stencil.field<[-4,24]x[-4,24]xi32>
  stencil.store %r#1 to %o2(<[2, -1], [12, 5]>) : !stencil.temp<?x?xi32> to !stencil.field<[-4,24]x[-4,24]xi32>
  func.return
}

// Existing bounds are replaced by the inferred box (here: shrunk).
// CHECK-LABEL: func.func @overwrite
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[-1,9]xf64>
// CHECK:         stencil.apply({{.*}}) -> (!stencil.temp<[0,8]xf64>)
func.func @overwrite(%in : !stencil.field<[-4,24]xf64>, %out : !stencil.field<[-4,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,24]xf64> -> !stencil.temp<[-4,24]xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<[-4,24]xf64>) -> (!stencil.temp<[-2,20]xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<[-4,24]xf64>
    %u = stencil.access %x[1] : !stencil.temp<[-4,24]xf64>
    %s = arith.addf %l, %u : f64
    %res = stencil.store_result %s : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [8]>) : !stencil.temp<[-2,20]xf64> to !stencil.field<[-4,24]xf64>
  func.return
}

// An unrolled apply keeps the box of its needs (no rounding to the unroll
// factor). Its body runs at the base points lb + k * u of each unrolled
// block, and its accesses are relative to them: with unroll 2 on [0,8) the
// base points are 0, 2, 4, 6, so x[1] reads up to 7 only.
// CHECK-LABEL: func.func @unrolled
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[0,4]x[-1,9]xf64>
// CHECK:         stencil.apply({{.*}}) -> (!stencil.temp<[0,4]x[0,8]xf64>)
// CHECK:           stencil.return %{{.*}}, %{{.*}} unroll <[1, 2]>
func.func @unrolled(%g: !stencil.field<[0,4]x[-1,9]xf64>, %o: !stencil.field<[0,4]x[-1,9]xf64>) {
  %t = stencil.load %g : !stencil.field<[0,4]x[-1,9]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %a0 = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %b0 = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    %v0 = arith.addf %a0, %b0 : f64
    %a1 = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %b1 = stencil.access %x[0, 2] : !stencil.temp<?x?xf64>
    %v1 = arith.addf %a1, %b1 : f64
    %r0 = stencil.store_result %v0 : !stencil.result<f64>
    %r1 = stencil.store_result %v1 : !stencil.result<f64>
    stencil.return %r0, %r1 unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %r to %o(<[0, 0], [4, 8]>) : !stencil.temp<?x?xf64> to !stencil.field<[0,4]x[-1,9]xf64>
  func.return
}

// An extent that is not a multiple of the unroll factor: base points 0, 3, 6
// on [0,7). At base 6 only point 6 is inside, so only the access its
// result needs (x[0]) runs there: the reads stop at 6, as without unroll
// (x[2], for point base + 2, runs at bases 0 and 3 only).
// CHECK-LABEL: func.func @unrolled_remainder
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[0,7]xf64>
// CHECK:         stencil.apply({{.*}}) -> (!stencil.temp<[0,7]xf64>)
func.func @unrolled_remainder(%in : !stencil.field<[-4,24]xf64>, %out : !stencil.field<[-4,24]xf64>) {
  %t = stencil.load %in : !stencil.field<[-4,24]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %a = stencil.access %x[0] : !stencil.temp<?xf64>
    %b = stencil.access %x[1] : !stencil.temp<?xf64>
    %c = stencil.access %x[2] : !stencil.temp<?xf64>
    %ra = stencil.store_result %a : !stencil.result<f64>
    %rb = stencil.store_result %b : !stencil.result<f64>
    %rc = stencil.store_result %c : !stencil.result<f64>
    stencil.return %ra, %rb, %rc unroll <[3]> : !stencil.result<f64>, !stencil.result<f64>, !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [7]>) : !stencil.temp<?xf64> to !stencil.field<[-4,24]xf64>
  func.return
}

// Mixed dialects: the other ops are kept as they are; scalar and field
// operands of an apply are left alone; a store nested in scf.if counts.
// CHECK-LABEL: func.func @mixed
// CHECK:         %[[P:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         call @timer_start(%[[P]]) : (!llvm.ptr) -> ()
// CHECK:         %[[T:.*]] = stencil.load %{{.*}} -> !stencil.temp<[0,16]x[0,16]xf64>
// CHECK:         stencil.apply(%{{.*}} = %[[T]] : !stencil.temp<[0,16]x[0,16]xf64>, %{{.*}} = %{{.*}} : f64, %{{.*}} = %{{.*}} : !stencil.field<[-2,18]x[-2,18]xf64>) -> (!stencil.temp<[0,16]x[0,16]xf64>)
// CHECK:           math.fpowi
// CHECK:         scf.if
// CHECK:           stencil.store %{{.*}} to %{{.*}}(<[0, 0], [16, 16]>) : !stencil.temp<[0,16]x[0,16]xf64>
// CHECK:         call @timer_end(%[[P]]) : (!llvm.ptr) -> ()
func.func private @timer_start(!llvm.ptr)
func.func private @timer_end(!llvm.ptr)
func.func @mixed(%in : !stencil.field<[-2,18]x[-2,18]xf64>, %out : !stencil.field<[-2,18]x[-2,18]xf64>, %flag : i1) {
  %p = llvm.mlir.zero : !llvm.ptr
  func.call @timer_start(%p) : (!llvm.ptr) -> ()
  %dt = arith.constant 0.5 : f64
  %t = stencil.load %in : !stencil.field<[-2,18]x[-2,18]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>, %s = %dt : f64, %f = %in : !stencil.field<[-2,18]x[-2,18]xf64>) -> (!stencil.temp<?x?xf64>) {
    %v = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %w = stencil.access %f[2, -2] : !stencil.field<[-2,18]x[-2,18]xf64>
    %two = arith.constant 2 : i32
    %sq = math.fpowi %v, %two : f64, i32
    %m = arith.mulf %sq, %s : f64
    %a = arith.addf %m, %w : f64
    %res = stencil.store_result %a : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  scf.if %flag {
    stencil.store %r to %out(<[0, 0], [16, 16]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,18]x[-2,18]xf64>
  }
  func.call @timer_end(%p) : (!llvm.ptr) -> ()
  func.return
}

// Temps that nothing needs are not errors (Devito loads every field right
// after storing it): an unused load, and a chain that ends in an unused
// apply, keep unknown bounds; the needed ops get theirs.
// CHECK-LABEL: func.func @unneeded_temps(
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[-1,9]xf64>
// CHECK:         stencil.apply{{.*}} -> (!stencil.temp<[0,8]xf64>)
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<?xf64>
// CHECK:         stencil.apply{{.*}} -> (!stencil.temp<?xf64>)
// CHECK:         stencil.apply{{.*}} -> (!stencil.temp<?xf64>)
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<?xf64>
func.func @unneeded_temps(%in : !stencil.field<[-1,9]xf64>, %out : !stencil.field<[-1,9]xf64>) {
  %t = stencil.load %in : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %l = stencil.access %x[-1] : !stencil.temp<?xf64>
    %h = stencil.access %x[1] : !stencil.temp<?xf64>
    %s = arith.addf %l, %h : f64
    stencil.return %s : f64
  }
  stencil.store %r to %out(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
  %back = stencil.load %out : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  %d1 = stencil.apply(%x = %back : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[1] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  %d2 = stencil.apply(%x = %d1 : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
    %v = stencil.access %x[-1] : !stencil.temp<?xf64>
    stencil.return %v : f64
  }
  %last = stencil.load %in : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
  func.return
}

// An operand the apply never reads gets an empty box (at the field's lower
// corner for a load).
// CHECK-LABEL: func.func @never_read(
// CHECK:         stencil.load %{{.*}} -> !stencil.temp<[-1,-1]xf64>
// CHECK:         stencil.apply(%{{.*}} = %{{.*}} : !stencil.temp<[-1,-1]xf64>, %{{.*}} = %{{.*}} : f64) -> (!stencil.temp<[0,64]xf64>)
func.func @never_read(%in : !stencil.field<[-1,65]xf64>, %out : !stencil.field<[-1,65]xf64>) {
  %cst = arith.constant 1.0 : f64
  %t = stencil.load %in : !stencil.field<[-1,65]xf64> -> !stencil.temp<?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?xf64>, %c = %cst : f64) -> (!stencil.temp<?xf64>) {
    %res = stencil.store_result %c : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %out(<[0], [64]>) : !stencil.temp<?xf64> to !stencil.field<[-1,65]xf64>
  func.return
}

// A buffer into a field (xDSL's bufferized form) keeps its field type, and an
// apply that reads that field is no temp user (found by the fuzzer: it used
// to crash).
// CHECK-LABEL: func.func @buffer_into_field(
// CHECK:         stencil.buffer %{{.*}} : !stencil.temp<[0,16]xf64> -> !stencil.field<[0,16]xf64>
func.func @buffer_into_field(%f: !stencil.field<[0,16]xf64>, %g: !stencil.field<[0,16]xf64>) {
  %t = stencil.load %f : !stencil.field<[0,16]xf64> -> !stencil.temp<[0,16]xf64>
  %copy = stencil.buffer %t : !stencil.temp<[0,16]xf64> -> !stencil.field<[0,16]xf64>
  stencil.apply(%x = %copy : !stencil.field<[0,16]xf64>) outs (%g : !stencil.field<[0,16]xf64>) {
    %v = stencil.access %x[1] : !stencil.field<[0,16]xf64>
    stencil.return %v : f64
  } to <[0], [15]>
  func.return
}
