//===- InitStencil.h - register the stencil dialect and passes --*- C++ -*-===//
//
// Entry points for MLIR tools and frontends that embed this project.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_INITSTENCIL_H
#define STENCIL_INITSTENCIL_H

namespace mlir {
class DialectRegistry;

/// Adds the stencil dialect and the upstream dialects its lowerings produce.
void registerStencilDialect(DialectRegistry &registry);

/// Registers every stencil pass and pipeline with the global pass registry
/// (so that they parse in `--pass-pipeline` strings and tool options).
void registerStencilPasses();

} // namespace mlir

#endif // STENCIL_INITSTENCIL_H
