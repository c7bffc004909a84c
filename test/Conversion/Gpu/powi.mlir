// math.fpowi and math.ipowi in a kernel (Devito writes integer powers so)
// become the software functions the CPU pipeline uses too (math-to-funcs,
// run before outlining, which copies them into each kernel's module): the
// same multiplications as the CPU's, and ipowi, which NVVM cannot lower,
// compiles. libdevice's __nv_powif is not used.
// RUN: stencil-opt %s --convert-to-gpu=host-to-llvm=false | FileCheck %s --check-prefix=OUTLINED
// RUN: stencil-opt %s --convert-to-gpu=format=isa | FileCheck %s --check-prefix=PTX
// OUTLINED: gpu.module @powi_kernel
// OUTLINED-DAG: func.call @__mlir_math_ipowi_i32(
// OUTLINED-DAG: func.call @__mlir_math_fpowi_f32_i64(
// OUTLINED-DAG: func.func private @__mlir_math_ipowi_i32(
// OUTLINED-DAG: func.func private @__mlir_math_fpowi_f32_i64(
// PTX: gpu.binary @powi_kernel {{.*}}__mlir_math_ipowi_i32{{.*}}__mlir_math_fpowi_f32_i64
// PTX-NOT: __nv_powif

func.func @powi(%a: !stencil.field<[-1,65]x[-1,65]xf32>, %b: !stencil.field<[-1,65]x[-1,65]xf32>) {
  %t = stencil.load %a : !stencil.field<[-1,65]x[-1,65]xf32> -> !stencil.temp<?x?xf32>
  %r = stencil.apply(%x = %t : !stencil.temp<?x?xf32>) -> (!stencil.temp<?x?xf32>) {
    %v = stencil.access %x[1, 0] : !stencil.temp<?x?xf32>
    %i = arith.fptosi %v : f32 to i32
    %c3 = arith.constant 3 : i32
    %p = math.ipowi %i, %c3 : i32
    %f = arith.sitofp %p : i32 to f32
    %c = arith.constant -3 : i64
    %q = math.fpowi %v, %c : f32, i64
    %s = arith.addf %f, %q : f32
    stencil.return %s : f32
  }
  stencil.store %r to %b(<[0, 0], [64, 64]>) : !stencil.temp<?x?xf32> to !stencil.field<[-1,65]x[-1,65]xf32>
  return
}
