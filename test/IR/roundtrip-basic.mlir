// RUN: stencil-opt %s | stencil-opt | FileCheck %s

// CHECK-LABEL: func.func @lap
// CHECK: stencil.cast %{{.*}} : !stencil.field<?x?xf64> -> !stencil.field<[-2,130]x[-2,130]xf64>
// CHECK: stencil.apply(%[[X:.*]] = %{{.*}} : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
// CHECK:   stencil.access %[[X]][0, 1] : !stencil.temp<?x?xf64>
// CHECK:   stencil.store_result %{{.*}} : !stencil.result<f64>
// CHECK:   stencil.return %{{.*}} : !stencil.result<f64>
// CHECK: stencil.store %{{.*}} to %{{.*}}(<[0, 0], [128, 128]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,130]x[-2,130]xf64>
func.func @lap(%in: !stencil.field<?x?xf64>, %out: !stencil.field<?x?xf64>) {
  %a = stencil.cast %in : !stencil.field<?x?xf64> -> !stencil.field<[-2,130]x[-2,130]xf64>
  %b = stencil.cast %out : !stencil.field<?x?xf64> -> !stencil.field<[-2,130]x[-2,130]xf64>
  %t = stencil.load %a : !stencil.field<[-2,130]x[-2,130]xf64> -> !stencil.temp<?x?xf64>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
    %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    %s = stencil.access %x[0, -1] : !stencil.temp<?x?xf64>
    %c = stencil.access %x[0, 0] : !stencil.temp<?x?xf64>
    %i = stencil.index 0 <[0, 0]>
    %sum = arith.addf %n, %s : f64
    %res = stencil.store_result %sum : !stencil.result<f64>
    stencil.return %res : !stencil.result<f64>
  }
  stencil.store %r to %b(<[0, 0], [128, 128]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,130]x[-2,130]xf64>
  func.return
}
