// RUN: stencil-opt %s --convert-to-gpu="format=isa index-bitwidth=32" -split-input-file -verify-diagnostics

// 65538 x 32770 f32 elements: the last one is beyond 32-bit indices.
!big = !stencil.field<[-1,65537]x[-1,32769]xf32>
func.func @big(%a : !big, %b : !big) {
  %t = stencil.load %a : !big -> !stencil.temp<?x?xf32>
  // expected-error @+1 {{index-bitwidth=32: kernel operand memref<65538x32770xf32> addresses element 2147680259, beyond 32-bit indices}}
  %r = stencil.apply(%u = %t : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %u[1, -1] : !stencil.temp<?x?xf32>
    stencil.return %v : f32
  }
  stencil.store %r to %b(<[0, 0], [65536, 32768]>) : !stencil.temp<?x?xf32> to !big
  func.return
}

// -----

// 2^31 - 1 elements fit, but the 2^31 - 2 points of the apply take 2^23
// blocks of 256 threads: thread ids reach 2^31.
!long = !stencil.field<[0,2147483647]xf32>
func.func @long(%a : !long, %b : !long) {
  %t = stencil.load %a : !long -> !stencil.temp<?xf32>
  // expected-error @+1 {{index-bitwidth=32: the grid has 2147483648 threads in one dimension, beyond 32-bit indices}}
  %r = stencil.apply(%u = %t : !stencil.temp<?xf32>) -> (!stencil.temp<?xf32>) {
    %v = stencil.access %u[1] : !stencil.temp<?xf32>
    stencil.return %v : f32
  }
  stencil.store %r to %b(<[0], [2147483646]>) : !stencil.temp<?xf32> to !long
  func.return
}
