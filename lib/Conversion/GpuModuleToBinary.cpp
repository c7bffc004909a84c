//===- GpuModuleToBinary.cpp - serialize GPU modules in parallel ----------===//
//
// Upstream's gpu-module-to-binary serializes the GPU modules one after the
// other. Kernel outlining gives every kernel a module of its own, and the
// hex- and split-tiled programs have two to eight kernels whose LLVM code
// generation and ptxas runs dominate the end of the headline command, so
// here the modules are serialized concurrently (each target attribute's
// serializeToObject works on its own LLVM context and temporary files) and
// replaced by their `gpu.binary` ops afterwards, in order.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUMODULETOBINARY
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;

namespace {

/// The format names upstream's pass accepts, with their short aliases.
std::optional<gpu::CompilationTarget> parseFormat(StringRef name) {
  return llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(name)
      .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
      .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
      .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
      .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
      .Default(std::nullopt);
}

struct StencilGpuModuleToBinary
    : stencil::impl::StencilGpuModuleToBinaryBase<StencilGpuModuleToBinary> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    std::optional<gpu::CompilationTarget> format =
        parseFormat(compilationTarget);
    if (!format) {
      root->emitError() << "invalid format '" << compilationTarget
                        << "': expected offloading, assembly, binary or "
                           "fatbinary";
      return signalPassFailure();
    }

    SmallVector<gpu::GPUModuleOp> modules;
    for (Region &region : root->getRegions())
      for (Block &block : region)
        llvm::append_range(modules, block.getOps<gpu::GPUModuleOp>());
    if (modules.empty())
      return;

    SmallVector<Attribute> libraries;
    for (const std::string &path : linkFiles)
      libraries.push_back(StringAttr::get(ctx, path));
    // Built before the threads start: targets may ask for it concurrently.
    std::unique_ptr<SymbolTable> table;
    if (Operation *tableOp = SymbolTable::getNearestSymbolTable(root))
      table = std::make_unique<SymbolTable>(tableOp);
    gpu::TargetOptions options(toolkitPath, libraries, cmdOptions, elfSection,
                               *format,
                               [&]() -> SymbolTable * { return table.get(); });

    SmallVector<SmallVector<Attribute>> objects(modules.size());
    auto serialize = [&](size_t i) -> LogicalResult {
      gpu::GPUModuleOp module = modules[i];
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets || targets.empty())
        return module.emitError("the module has no target attributes");
      for (Attribute attr : targets) {
        auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
        if (!target)
          return module.emitError("target attribute ")
                 << attr << " does not implement TargetAttrInterface";
        std::optional<SmallVector<char, 0>> blob =
            target.serializeToObject(module, options);
        if (!blob)
          return module.emitError("serializing the module for ")
                 << attr << " failed";
        if (Attribute object = target.createObject(module, *blob, options))
          objects[i].push_back(object);
        else
          return module.emitError("creating the object for ")
                 << attr << " failed";
      }
      return success();
    };
    if (failed(failableParallelForEach(
            ctx, llvm::seq<size_t>(0, modules.size()), serialize)))
      return signalPassFailure();

    for (auto [module, moduleObjects] : llvm::zip(modules, objects)) {
      OpBuilder builder(module);
      gpu::BinaryOp::create(builder, module.getLoc(), module.getName(),
                            module.getOffloadingHandlerAttr(),
                            builder.getArrayAttr(moduleObjects));
      module->erase();
    }
  }
};

} // namespace
