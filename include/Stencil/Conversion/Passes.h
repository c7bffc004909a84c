//===- Passes.h - lowerings of the stencil dialect --------------*- C++ -*-===//

#ifndef STENCIL_CONVERSION_PASSES_H
#define STENCIL_CONVERSION_PASSES_H

#include "Stencil/IR/StencilOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::stencil {

#define GEN_PASS_DECL
#include "Stencil/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Stencil/Conversion/Passes.h.inc"

/// Options of the pipeline that takes a stencil program to the LLVM dialect
/// for the CPU.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> openmp{*this, "openmp",
                      llvm::cl::desc("Run the points of each apply in "
                                     "parallel with OpenMP"),
                      llvm::cl::init(false)};
};

/// shape inference -> convert-stencil-to-loops -> LLVM dialect.
void buildStencilCpuPipeline(OpPassManager &pm,
                             const CpuPipelineOptions &options);

/// Registers `stencil-cpu-pipeline`.
void registerStencilCpuPipeline();

} // namespace mlir::stencil

#endif // STENCIL_CONVERSION_PASSES_H
