// Options that --fuse cannot use are refused with a diagnostic at the
// region (the store of a sweep), and so are thread counts poly-to-gpu cannot
// map a fused scop with; nothing is fused.
// RUN: split-file %s %t
// RUN: stencil-opt %t/count.mlir --fuse="tile=8,8,8" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/zero.mlir --fuse="tile=0,8" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/cache.mlir --fuse="cache-kib=-1" -verify-diagnostics -o /dev/null
// Also where there is nothing to fuse (one apply).
// RUN: stencil-opt %t/single.mlir --fuse="tile=0,4" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/threads.mlir --fuse --poly-to-gpu="threads=0" -verify-diagnostics -o /dev/null
// RUN: stencil-opt %t/many.mlir --fuse --poly-to-gpu="threads=64,32" -verify-diagnostics -o /dev/null
// A malformed record of the tile buffers is refused by the lowering.
// RUN: stencil-opt %stencil_src/examples/laplap.mlir --fuse="tile=8,8" | sed 's/, shape = array<i64: 10, 10>//' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: stencil-opt %stencil_src/examples/laplap.mlir --fuse="tile=8,8" | sed 's/shape = array<i64: 10, 10>/shape = array<i64: 10>/' | not stencil-opt --convert-stencil-to-loops 2>&1 | FileCheck %s --check-prefix=SHAPE
// ENTRY: error: 'poly.scop' op invalid fused_local: fused_local entries need array, offset and shape
// SHAPE: error: 'poly.scop' op invalid fused_local: fused_local offset of @T2 must map into the array with one value per dimension of a positive shape

//--- count.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{fuse: tile needs 2 sizes (one per space dimension), got 3}}
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}

//--- zero.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{fuse: tile sizes must be positive, got 0}}
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}

//--- single.mlir
func.func @single(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{fuse: tile sizes must be positive, got 0}}
  stencil.store %lap to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}

//--- cache.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{fuse: cache-kib must be at least 0, got -1}}
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}

//--- threads.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{threads must be positive, got 0}}
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}

//--- many.mlir
func.func @laplap(%in : !stencil.field<[-2,34]x[-2,34]xf64>, %out : !stencil.field<[-2,34]x[-2,34]xf64>) {
  %t = stencil.load %in : !stencil.field<[-2,34]x[-2,34]xf64> -> !stencil.temp<?x?xf64>
  %lap = stencil.apply(%a = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %e = stencil.access %a[1, 0] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %e : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  %ll = stencil.apply(%b = %lap : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %b[0, 1] : !stencil.temp<?x?xf64>
    %res = stencil.store_result %n : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  // expected-error@+1 {{threads asks for 2048 threads per block (at most 1024)}}
  stencil.store %ll to %out(<[0, 0], [32, 32]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,34]x[-2,34]xf64>
  func.return
}
