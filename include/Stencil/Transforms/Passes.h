//===- Passes.h - passes on the stencil dialect -----------------*- C++ -*-===//

#ifndef STENCIL_TRANSFORMS_PASSES_H
#define STENCIL_TRANSFORMS_PASSES_H

#include "Stencil/IR/StencilOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::stencil {

#define GEN_PASS_DECL
#include "Stencil/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Stencil/Transforms/Passes.h.inc"

} // namespace mlir::stencil

#endif // STENCIL_TRANSFORMS_PASSES_H
