// The neighbour exchange through shared memory without its barrier: thread
// t reads the element thread t + 1 stores (emulate-gpu-checks.test).
module attributes {gpu.container_module} {
  func.func @neighbour(%a: memref<4x32xf32>, %b: memref<4x32xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
               workgroup(%row : memref<32xf32, #gpu.address_space<workgroup>>) {
      %v = memref.load %a[%bx, %tx] : memref<4x32xf32>
      memref.store %v, %row[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      %next = arith.addi %tx, %c1 : index
      %j = arith.remui %next, %c32 : index
      %w = memref.load %row[%j] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %w, %b[%bx, %tx] : memref<4x32xf32>
      gpu.terminator
    }
    return
  }
}
