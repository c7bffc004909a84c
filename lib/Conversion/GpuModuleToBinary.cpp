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
// Spill relief: stencil-kernel-launch-bounds compiles a tiled kernel for
// two resident blocks per SM, which caps a block of 256 threads at 128
// registers; kernels with many fields (Devito's elastic 3D forms, order 8
// 3D forms) spill there. Whether they do is known only from ptxas, so the
// PTX is assembled here with `-v`, and a spilling kernel gets one block
// fewer until it fits or runs alone on its SM (255 registers). On an H200
// one block made the spilling elastic 3D kernels 1.07x (order 4) to 1.67x
// (order 8) faster, while a kernel that fits in 128 registers loses its
// second block for nothing (docs/performance.md, "Sixth lease"): hence the
// test per kernel rather than one block for all.
//
// Loop strength reduction: LLVM's codegen pipeline rewrites the address
// arithmetic of the accesses in a loop into induction variables. In the
// tiled kernels the loops are a block's walk over its tiles, so each of
// them stays live across the whole tile: the split-tiled elastic 3D
// kernels took 255 registers and spilled 248-1748 bytes at one block per
// SM; without it those of orders 4 and 8 take 94-242 and spill nothing
// (one of order 2 keeps 32 bytes); the examples' kernels take 0.62-1.12x
// the registers without it (median 0.83x) in about as many instructions
// (docs/performance.md, "Compile time of the headline command", session
// 45). Its switch is LLVM's process-wide `-disable-lsr`,
// set while this pass serializes and restored after.
//
// Vectorizers: LLVM's O3 pipeline runs the loop and SLP vectorizers, which
// find nothing in f32/f64 kernels for chips before sm_100 (NVPTX has no
// packed arithmetic for them) but whose analyses took 15% of the
// optimization of elastic 3D's kernels. They are switched off the same way
// for such modules; the PTX of every example and Devito form, hex- and
// split-tiled, is the same without them.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Conversion/Passes.h"
#include "Stencil/Conversion/Ptxas.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::stencil {
#define GEN_PASS_DEF_STENCILGPUMODULETOBINARY
#include "Stencil/Conversion/Passes.h.inc"
} // namespace mlir::stencil

using namespace mlir;
using namespace mlir::stencil;

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

/// An entry function of PTX and its `.minnctapersm N` directive.
struct KernelEntry {
  std::string name;
  size_t offset = 0, length = 0; // of N in the text
  int64_t blocks = 0;            // N; 0 without the directive
};

SmallVector<KernelEntry> kernelEntries(StringRef ptx) {
  SmallVector<KernelEntry> found;
  constexpr StringRef entry = ".entry ", directive = ".minnctapersm ";
  for (size_t at = ptx.find(entry); at != StringRef::npos;
       at = ptx.find(entry, at + 1)) {
    StringRef rest = ptx.drop_front(at + entry.size());
    KernelEntry &kernel = found.emplace_back();
    kernel.name = rest.take_until([](char c) { return c == '('; }).trim();
    // The directives stand between the parameters and the body.
    StringRef header = rest.take_until([](char c) { return c == '{'; });
    size_t d = header.find(directive);
    if (d == StringRef::npos)
      continue;
    StringRef digits =
        header.drop_front(d + directive.size()).take_while([](char c) {
          return isdigit(c);
        });
    if (digits.getAsInteger(10, kernel.blocks))
      continue;
    kernel.offset = at + entry.size() + d + directive.size();
    kernel.length = digits.size();
  }
  return found;
}

/// Serializes `module` for the NVVM target in the assembly or binary format
/// through `ptxas -v`, lowering `.minnctapersm` of the kernels that spill.
std::optional<SmallVector<char, 0>>
serializeRelievingSpills(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
                         const gpu::TargetOptions &options,
                         const gpu::TargetOptions &assemblyOptions,
                         StringRef ptxas) {
  std::optional<SmallVector<char, 0>> assembly =
      cast<gpu::TargetAttrInterface>(target).serializeToObject(module,
                                                               assemblyOptions);
  if (!assembly)
    return std::nullopt;
  std::string ptx(assembly->begin(), assembly->end());
  bool assemblyOnly =
      options.getCompilationTarget() == gpu::CompilationTarget::Assembly;
  // PTX whose kernels are all compiled for one block has nothing to relieve.
  if (assemblyOnly &&
      llvm::none_of(kernelEntries(ptx), [](const KernelEntry &kernel) {
        return kernel.blocks > 1;
      }))
    return std::move(*assembly);
  // What upstream's target passes ptxas (`-32` is for fatbinary).
  auto tokenized = options.tokenizeCmdOptions();
  SmallVector<StringRef> extraArgs;
  for (const char *arg : tokenized.second)
    if (StringRef(arg) != "-32")
      extraArgs.push_back(arg);
  std::optional<PtxasResult> result;
  while (true) {
    std::string error;
    result =
        runPtxas(ptxas, ptx, target.getChip(), target.getO(), extraArgs, error);
    if (!result) {
      mlir::emitError(module.getLoc(), "ptxas failed: ") << error;
      return std::nullopt;
    }
    bool lowered = false;
    // Last first: a shorter number moves the text after it.
    for (const KernelEntry &kernel : llvm::reverse(kernelEntries(ptx))) {
      const PtxasFunctionInfo *info = result->lookup(kernel.name);
      if (!info || info->spillStoreBytes == 0 || kernel.blocks <= 1)
        continue;
      ptx.replace(kernel.offset, kernel.length,
                  std::to_string(kernel.blocks - 1));
      lowered = true;
    }
    if (!lowered)
      break;
  }
  for (const KernelEntry &kernel : kernelEntries(ptx))
    if (const PtxasFunctionInfo *info = result->lookup(kernel.name);
        info && info->spillStoreBytes > 0)
      mlir::emitRemark(module.getLoc())
          << "gpu.module @" << module.getName() << ": kernel '" << kernel.name
          << "' spills " << info->spillStoreBytes << " bytes with "
          << info->registers << " registers"
          << (kernel.blocks
                  ? " at " + std::to_string(kernel.blocks) + " block(s) per SM"
                  : std::string());
  if (assemblyOnly)
    return SmallVector<char, 0>(ptx.begin(), ptx.end());
  return std::move(result->cubin);
}

/// Sets one of LLVM's process-wide boolean options (`-disable-lsr`,
/// `-vectorize-loops`) for its lifetime and restores it after; nothing
/// when this LLVM has no such option.
class ScopedLlvmFlag {
public:
  ScopedLlvmFlag(StringRef name, bool value) {
    auto &registered = llvm::cl::getRegisteredOptions();
    auto it = registered.find(name);
    if (it == registered.end())
      return;
    option = static_cast<llvm::cl::opt<bool> *>(it->second);
    saved = option->getValue();
    option->setValue(value);
  }
  ~ScopedLlvmFlag() {
    if (option)
      option->setValue(saved);
  }

private:
  llvm::cl::opt<bool> *option = nullptr;
  bool saved = false;
};

/// Whether LLVM's vectorizers can do anything for `module`: NVPTX has
/// packed arithmetic for f16/bf16 and, from sm_100 on, f32x2; before
/// that (and for every f32/f64 kernel on sm_80/sm_90) the loop and SLP
/// vectorizers find nothing, after spending 15-20% of the module's
/// optimization time on their analyses (the PTX is the same without them).
bool vectorizersMayPay(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  for (Attribute attr : targets ? targets.getValue() : ArrayRef<Attribute>())
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr)) {
      std::optional<std::pair<unsigned, StringRef>> chip =
          parseSmChip(nvvm.getChip());
      if (!chip || chip->first >= 100)
        return true;
    } else {
      return true;
    }
  bool halfPrecision = false;
  module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(type)))
        halfPrecision = true;
  });
  return halfPrecision;
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
      mlir::emitError(root->getLoc())
          << "invalid format '" << compilationTarget
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
    gpu::TargetOptions assemblyOptions(
        toolkitPath, libraries, cmdOptions, elfSection,
        gpu::CompilationTarget::Assembly,
        [&]() -> SymbolTable * { return table.get(); });
    std::optional<std::string> ptxas;
    if (relieveSpills && (*format == gpu::CompilationTarget::Assembly ||
                          *format == gpu::CompilationTarget::Binary))
      ptxas = stencil::findPtxas(toolkitPath);

    // For every module's code generation, before the threads start.
    ScopedLlvmFlag lsr("disable-lsr", !loopStrengthReduction);
    bool vectorize = llvm::any_of(modules, vectorizersMayPay);
    ScopedLlvmFlag loopVectorizer("vectorize-loops", vectorize);
    ScopedLlvmFlag slpVectorizer("vectorize-slp", vectorize);
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
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        std::optional<SmallVector<char, 0>> blob =
            nvvm && ptxas ? serializeRelievingSpills(module, nvvm, options,
                                                     assemblyOptions, *ptxas)
                          : target.serializeToObject(module, options);
        // (At the location only: the module is the whole kernel.)
        if (!blob)
          return mlir::emitError(module.getLoc(), "serializing the module for ")
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
