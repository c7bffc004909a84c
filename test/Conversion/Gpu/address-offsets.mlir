// stencil-kernel-address-offsets: the index of a nuw GEP in a kernel without
// shared memory is rewritten as one canonical linear part (the same for
// every access around a point) plus a non-negative constant in a second GEP,
// which NVPTX folds
// into the load's immediate offset.
// RUN: stencil-opt %s --stencil-kernel-address-offsets --cse | FileCheck %s

// In the pipeline: the 27 loads of the untiled heat3d kernel share one
// base address (one 64-bit add of a widened index) with immediate offsets,
// as nvcc's code does; with address-offsets=0 each distinct partial sum of
// upstream's linearization is a base of its own.
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --convert-to-gpu=format=isa | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX
// RUN: stencil-opt %stencil_src/examples/heat3d.mlir --convert-to-gpu="format=isa address-offsets=0" | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=OFF
// PTX: .entry heat3d_kernel
// PTX: add.s64 [[BASE:%rd[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// PTX-NOT: add.s64
// PTX-COUNT-27: ld.global.nc.b64 %rd{{[0-9]+}}, {{\[}}[[BASE]]{{(\+[0-9]+)?}}];
// PTX-NOT: ld.global
// PTX: st.global.b64
// OFF: .entry heat3d_kernel
// OFF-COUNT-5: add.s64
// OFF: st.global.b64

gpu.module @k {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
  // CHECK-LABEL: llvm.func @stencil
  // CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[I:.*]]: i32, %[[J:.*]]: i32)
  llvm.func @stencil(%p: !llvm.ptr, %i: i32, %j: i32) -> f32 {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c18 = llvm.mlir.constant(18 : i32) : i32
    // p[(i+1)*18 + (j+2)]: linear part i*18 + j, constant 20.
    %i1 = llvm.add %i, %c1 : i32
    %r1 = llvm.mul %i1, %c18 overflow<nsw, nuw> : i32
    %j2 = llvm.add %j, %c2 : i32
    %x1 = llvm.add %r1, %j2 overflow<nsw, nuw> : i32
    %a1 = llvm.getelementptr inbounds|nuw %p[%x1] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v1 = llvm.load %a1 : !llvm.ptr -> f32
    // p[i*18 + (j+1)], summed in the other order: the same linear part.
    %r0 = llvm.mul %i, %c18 overflow<nsw, nuw> : i32
    %j1 = llvm.add %j, %c1 : i32
    %x2 = llvm.add %j1, %r0 overflow<nsw, nuw> : i32
    %a2 = llvm.getelementptr inbounds|nuw %p[%x2] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v2 = llvm.load %a2 : !llvm.ptr -> f32
    // CHECK: %[[C18:.*]] = llvm.mlir.constant(18 : i32)
    // CHECK: %[[M:.*]] = llvm.mul %[[I]], %[[C18]]
    // CHECK: %[[L:.*]] = llvm.add %[[M]], %[[J]]
    // CHECK: %[[B:.*]] = llvm.getelementptr %[[P]][%[[L]]] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    // CHECK: %[[A1:.*]] = llvm.getelementptr %[[B]][20] : (!llvm.ptr) -> !llvm.ptr, f32
    // CHECK: llvm.load %[[A1]]
    // CHECK: %[[A2:.*]] = llvm.getelementptr %[[B]][1] : (!llvm.ptr) -> !llvm.ptr, f32
    // CHECK: llvm.load %[[A2]]
    %s = llvm.fadd %v1, %v2 : f32

    // A negative constant (p[i*18 + j - 1]) is left alone: its linear part
    // may not fit the index type.
    // CHECK: %[[N:.*]] = llvm.sub
    // CHECK: %[[X3:.*]] = llvm.add %{{.*}}, %[[N]]
    // CHECK: llvm.getelementptr inbounds|nuw %[[P]][%[[X3]]]
    %jm = llvm.sub %j, %c1 : i32
    %x3 = llvm.add %r0, %jm : i32
    %a3 = llvm.getelementptr inbounds|nuw %p[%x3] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v3 = llvm.load %a3 : !llvm.ptr -> f32

    // Without nuw the index may be negative: left alone.
    // CHECK: llvm.getelementptr inbounds %[[P]][%{{.*}}]
    %a4 = llvm.getelementptr inbounds %p[%x2] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    %v4 = llvm.load %a4 : !llvm.ptr -> f32

    // Bytes: left alone.
    // CHECK: llvm.getelementptr inbounds|nuw %[[P]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i8
    %a5 = llvm.getelementptr inbounds|nuw %p[%x2] : (!llvm.ptr, i32) -> !llvm.ptr, i8
    %v5 = llvm.load %a5 : !llvm.ptr -> f32
    %t = llvm.fadd %s, %v3 : f32
    %u = llvm.fadd %t, %v4 : f32
    %w = llvm.fadd %u, %v5 : f32
    llvm.return %w : f32
  }

  // A kernel that uses shared memory (promoted hex tiles) keeps upstream's
  // form, its global accesses too (measured mixed on an H100).
  // CHECK-LABEL: llvm.func @promoted
  // CHECK: llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  // CHECK: llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
  llvm.func @promoted(%p: !llvm.ptr, %i: i32) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %x = llvm.add %i, %c1 : i32
    %sh = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %a = llvm.getelementptr inbounds|nuw %sh[%x] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
    %v = llvm.load %a : !llvm.ptr<3> -> f32
    %b = llvm.getelementptr inbounds|nuw %p[%x] : (!llvm.ptr, i32) -> !llvm.ptr, f32
    llvm.store %v, %b : f32, !llvm.ptr
    llvm.return
  }
}

// Host functions are not kernels: left alone.
// CHECK-LABEL: llvm.func @host
// CHECK: llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
llvm.func @host(%p: !llvm.ptr, %i: i32) -> f32 {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %x = llvm.add %i, %c1 : i32
  %a = llvm.getelementptr inbounds|nuw %p[%x] : (!llvm.ptr, i32) -> !llvm.ptr, f32
  %v = llvm.load %a : !llvm.ptr -> f32
  llvm.return %v : f32
}
