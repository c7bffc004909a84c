// RUN: stencil-opt %s --stencil-parallel-to-gpu -split-input-file -verify-diagnostics

func.func @reduction(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{scf.parallel with reductions cannot be mapped to the GPU}}
  %sum = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = memref.load %a[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// -----

func.func @host_load(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %a[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  // expected-error @+1 {{host code accesses memory that lives on the GPU (the function launches kernels)}}
  %x = memref.load %b[%c0] : memref<8xf32>
  // expected-error @+1 {{host code accesses memory that lives on the GPU (the function launches kernels)}}
  memref.store %x, %a[%c1] : memref<8xf32>
  return
}

// -----

// Through a view, and in a loop around the launches.
func.func @host_copy(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %t = %c0 to %c8 step %c1 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      %v = memref.load %a[%i] : memref<8xf32>
      memref.store %v, %b[%i] : memref<8xf32>
      scf.reduce
    }
    %view = memref.subview %b[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    %dest = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    // expected-error @+1 {{host code accesses memory that lives on the GPU}}
    memref.copy %view, %dest : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1]>>
  }
  return
}

// -----

func.func @alloca(%b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{memref.alloca is used by a gpu.launch: kernels cannot access the host stack}}
  %a = memref.alloca() : memref<8xf32>
  %cast = memref.cast %a : memref<8xf32> to memref<?xf32>
  // expected-note @+1 {{the launch}}
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %cast[%i] : memref<?xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A program that copies its data to the GPU itself (as xDSL's GPU form of
// Devito's programs does): the pipeline does that.
func.func @own_copies(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %d = gpu.alloc () : memref<8xf32>
  // expected-error @+1 {{the program already moves data to or from the GPU: convert-to-gpu allocates and copies the fields itself; give it the program without GPU memory operations}}
  gpu.memcpy %d, %a : memref<8xf32>, memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %v = memref.load %d[%i] : memref<8xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}
