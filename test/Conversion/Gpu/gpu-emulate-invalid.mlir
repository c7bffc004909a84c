// RUN: stencil-opt %s --stencil-gpu-emulate -split-input-file -verify-diagnostics

func.func @loop_bound_per_thread(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{barrier under thread-dependent control flow: the loop's bounds, step or initial values differ between threads}}
    scf.for %i = %c0 to %tx step %c1 {
      memref.store %cst, %a[%i] : memref<8xf32>
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @loop_init_per_thread(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<8xf32>
    // expected-error @+1 {{barrier under thread-dependent control flow}}
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %v) -> (f32) {
      gpu.barrier
      scf.yield %acc : f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @condition_per_thread(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-error @+1 {{barrier under thread-dependent control flow: the condition differs between threads}}
    scf.if %first {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @while_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{barrier under control flow that the emulation does not support (only scf.for and scf.if)}}
    %r = scf.while (%i = %c0) : (index) -> index {
      %more = arith.cmpi slt, %i, %n : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%i: index):
      gpu.barrier
      %next = arith.addi %i, %c1 : index
      scf.yield %next : index
    }
    gpu.terminator
  }
  return
}

// -----

// A register value that lives across a barrier.
func.func @value_across_barrier(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    // expected-note @+1 {{the value}}
    %v = memref.load %a[%tx] : memref<8xf32>
    gpu.barrier
    // expected-error @+1 {{uses a value that differs between the threads across a gpu.barrier or in control flow around one: the emulation runs the threads one after the other between barriers and keeps no per-thread values}}
    memref.store %v, %a[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// A per-thread value carried by a loop around a barrier.
func.func @carried_per_thread() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %c0) -> (index) {
      gpu.barrier
      // expected-note @+1 {{the value}}
      %next = arith.addi %acc, %tx : index
      // expected-error @+1 {{uses a value that differs between the threads}}
      scf.yield %next : index
    }
    gpu.terminator
  }
  return
}

// -----

// A thread id that leaves control flow around a barrier.
func.func @thread_id_yielded(%flag: i1) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-note @+1 {{the value}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %r = scf.if %flag -> index {
      gpu.barrier
      // expected-error @+1 {{uses a value that differs between the threads}}
      scf.yield %tx : index
    } else {
      scf.yield %c1 : index
    }
    gpu.terminator
  }
  return
}

// -----

func.func @branches() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{gpu.launch body with more than one block is not supported by the GPU emulation}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    cf.br ^bb1
  ^bb1:
    gpu.terminator
  }
  return
}

// -----

func.func @private_memory() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{gpu.launch with private memory attributions is not supported by the GPU emulation}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      private(%own : memref<4xf32, #gpu.address_space<private>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @workgroup_memory_dynamic_shape() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{workgroup memory attribution of type 'memref<?xf32, #gpu.address_space<workgroup>>' is not supported by the GPU emulation (only memrefs of static shape)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      workgroup(%shared : memref<?xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic_shared_memory(%bytes: i32) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{dynamic shared memory is not supported by the GPU emulation}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      dynamic_shared_memory_size %bytes {
    gpu.terminator
  }
  return
}

// -----

func.func @async_launch() {
  %c1 = arith.constant 1 : index
  %t = gpu.wait async
  // expected-error @+1 {{asynchronous gpu.launch is not supported by the GPU emulation}}
  %done = gpu.launch async [%t] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  gpu.wait [%done]
  return
}

// -----

func.func @clusters() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{thread block clusters are not supported by the GPU emulation}}
  gpu.launch clusters(%cx, %cy, %cz) in (%ncx = %c1, %ncy = %c1, %ncz = %c1) blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @subgroup_op(%v: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{is not supported inside a gpu.launch by the GPU emulation}}
    %lane = gpu.lane_id
    gpu.terminator
  }
  return
}

// -----

func.func @async_alloc() {
  %t = gpu.wait async
  // expected-error @+1 {{asynchronous gpu.alloc is not supported by the GPU emulation}}
  %m, %t2 = gpu.alloc async [%t] () : memref<8xf32>
  // expected-error @+1 {{asynchronous gpu.dealloc is not supported by the GPU emulation}}
  %t3 = gpu.dealloc async [%t2] %m : memref<8xf32>
  gpu.wait [%t3]
  return
}

// -----

// Dynamic parallelism.
func.func @nested_launch() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{is not supported inside a gpu.launch by the GPU emulation}}
    gpu.launch blocks(%bx2, %by2, %bz2) in (%gx2 = %c1, %gy2 = %c1, %gz2 = %c1) threads(%tx2, %ty2, %tz2) in (%sx2 = %c1, %sy2 = %c1, %sz2 = %c1) {
      gpu.terminator
    }
    gpu.terminator
  }
  return
}
