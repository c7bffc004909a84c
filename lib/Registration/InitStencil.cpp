//===- InitStencil.cpp - register the stencil dialect and passes -----------===//

#include "Stencil/InitStencil.h"
#include "Stencil/Conversion/Passes.h"
#include "Stencil/Dmp/Dmp.h"
#include "Stencil/IR/StencilDialect.h"
#include "Stencil/Poly/Passes.h"
#include "Stencil/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlir::registerStencilDialect(DialectRegistry &registry) {
  registry.insert<stencil::StencilDialect, stencil::poly::PolyDialect,
                  dmp::DmpDialect,
                  arith::ArithDialect,
                  func::FuncDialect, memref::MemRefDialect, scf::SCFDialect,
                  gpu::GPUDialect, NVVM::NVVMDialect>();
  // convert-to-gpu serializes kernels: the NVVM target and the translations
  // to LLVM IR of the dialects in a kernel module.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void mlir::registerStencilPasses() {
  stencil::registerStencilTransformsPasses();
  stencil::registerStencilConversionPasses();
  stencil::poly::registerStencilPolyPasses();
  stencil::registerStencilCpuPipeline();
  stencil::registerStencilGpuPipeline();
}
