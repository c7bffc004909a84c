//===- Ptxas.cpp - run the CUDA toolkit's PTX assembler -------------------===//

#include "Stencil/Conversion/Ptxas.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::stencil;

std::optional<std::string> mlir::stencil::findPtxas(StringRef toolkit) {
  auto inToolkit = [](StringRef dir) -> std::optional<std::string> {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return std::string(path);
    return std::nullopt;
  };
  if (!toolkit.empty())
    return inToolkit(toolkit);
  for (const char *env : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *dir = std::getenv(env))
      if (std::optional<std::string> path = inToolkit(dir))
        return path;
  if (std::optional<std::string> path = inToolkit("/usr/local/cuda"))
    return path;
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  return std::nullopt;
}

const PtxasFunctionInfo *PtxasResult::lookup(StringRef name) const {
  for (const PtxasFunctionInfo &function : functions)
    if (function.name == name)
      return &function;
  return nullptr;
}

/// The `-v` report, e.g.
///   ptxas info    : Compiling entry function 'k' for 'sm_90'
///   ptxas info    : Function properties for k
///       8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
///   ptxas info    : Used 128 registers, used 1 barriers, ...
static SmallVector<PtxasFunctionInfo> parseReport(StringRef report) {
  SmallVector<PtxasFunctionInfo> functions;
  auto named = [&](StringRef name) -> PtxasFunctionInfo & {
    for (PtxasFunctionInfo &function : functions)
      if (function.name == name)
        return function;
    functions.push_back({name.str()});
    return functions.back();
  };
  // The function whose properties the next lines give.
  std::optional<std::string> current;
  SmallVector<StringRef> lines;
  report.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    StringRef rest;
    if (line.consume_front("ptxas info    : ")) {
      if (line.consume_front("Compiling entry function '") ||
          line.consume_front("Function properties for ")) {
        current = line.take_until([](char c) { return c == '\''; }).str();
        named(*current);
      } else if (line.consume_front("Used ") && current) {
        line.take_until([](char c) { return c == ' '; })
            .getAsInteger(10, named(*current).registers);
      }
      continue;
    }
    size_t at = line.find(" bytes spill stores");
    if (at == StringRef::npos || !current)
      continue;
    StringRef number = line.take_front(at);
    number = number.substr(number.rfind(' ') + 1);
    number.getAsInteger(10, named(*current).spillStoreBytes);
  }
  return functions;
}

std::optional<PtxasResult>
mlir::stencil::runPtxas(StringRef ptxas, StringRef ptx, StringRef chip,
                        int optLevel, ArrayRef<StringRef> extraArgs,
                        std::string &error) {
  SmallString<128> ptxFile, cubinFile, logFile;
  auto removeFiles = llvm::make_scope_exit([&] {
    for (StringRef file : {ptxFile.str(), cubinFile.str(), logFile.str()})
      if (!file.empty())
        llvm::sys::fs::remove(file);
  });
  for (auto [suffix, path] :
       {std::pair<StringRef, SmallString<128> *>("ptx", &ptxFile),
        {"cubin", &cubinFile},
        {"log", &logFile}})
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "stencil-kernel", suffix, *path)) {
      error = "cannot create a temporary file: " + ec.message();
      return std::nullopt;
    }
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(ptxFile, ec);
    if (ec) {
      error = "cannot write " + ptxFile.str().str() + ": " + ec.message();
      return std::nullopt;
    }
    out << ptx;
  }
  std::string opt = std::to_string(optLevel);
  SmallVector<StringRef> args = {"ptxas", "-arch",   chip,          ptxFile,
                                 "-o",    cubinFile, "--opt-level", opt};
  llvm::append_range(args, extraArgs);
  args.push_back("-v");
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.str(),
                                          logFile.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         0, 0, &message);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> log =
      llvm::MemoryBuffer::getFile(logFile);
  StringRef report = log ? (*log)->getBuffer() : StringRef();
  if (status != 0) {
    error = message.empty() ? report.trim().str() : message;
    return std::nullopt;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> cubin =
      llvm::MemoryBuffer::getFile(cubinFile, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!cubin) {
    error = "ptxas wrote no cubin";
    return std::nullopt;
  }
  PtxasResult result;
  result.cubin.assign((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
  result.functions = parseReport(report);
  return result;
}
