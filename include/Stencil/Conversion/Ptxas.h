//===- Ptxas.h - run the CUDA toolkit's PTX assembler -----------*- C++ -*-===//
//
// ptxas as upstream's NVVM target runs it, with its `-v` report read back:
// the registers and spilled bytes of each function.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_CONVERSION_PTXAS_H
#define STENCIL_CONVERSION_PTXAS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::stencil {

/// The ptxas the NVVM target uses: TOOLKIT/bin/ptxas when a toolkit is
/// given, else in CUDA_ROOT, CUDA_HOME, CUDA_PATH or /usr/local/cuda, else on
/// PATH; none if not found.
std::optional<std::string> findPtxas(StringRef toolkit = "");

/// What `ptxas -v` reports for one function.
struct PtxasFunctionInfo {
  std::string name;
  int64_t registers = 0;
  /// Bytes stored to local memory to free registers.
  int64_t spillStoreBytes = 0;
};

/// The cubin and the report of one ptxas run.
struct PtxasResult {
  SmallVector<char, 0> cubin;
  SmallVector<PtxasFunctionInfo> functions;

  const PtxasFunctionInfo *lookup(StringRef name) const;
};

/// Assembles `ptx` for `chip` with the arguments upstream's NVVM target
/// passes (`-arch CHIP --opt-level O`, then `extraArgs`) and `-v`. On
/// failure returns none and sets `error` to ptxas's message.
std::optional<PtxasResult> runPtxas(StringRef ptxas, StringRef ptx,
                                    StringRef chip, int optLevel,
                                    ArrayRef<StringRef> extraArgs,
                                    std::string &error);

} // namespace mlir::stencil

#endif // STENCIL_CONVERSION_PTXAS_H
