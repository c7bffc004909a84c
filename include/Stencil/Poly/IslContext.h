//===- IslContext.h - an owned isl context and parsing helpers --*- C++ -*-===//

#ifndef STENCIL_POLY_ISLCONTEXT_H
#define STENCIL_POLY_ISLCONTEXT_H

#include "llvm/ADT/StringRef.h"

#include <isl/cpp.h>
#include <isl/options.h>
#include <isl/set.h>

#include <optional>
#include <sstream>
#include <string>

namespace mlir::stencil::poly {

/// Owns an isl_ctx. Declare it before any isl object that uses it, so that
/// the objects are freed first. Errors do not abort: the C++ interface
/// throws isl::exception, which callers turn into diagnostics.
class IslContext {
public:
  IslContext() : ctx(isl_ctx_alloc()) {
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  }
  ~IslContext() { isl_ctx_free(ctx); }
  IslContext(const IslContext &) = delete;
  IslContext &operator=(const IslContext &) = delete;

  isl::ctx get() const { return isl::ctx(ctx); }
  operator isl::ctx() const { return get(); }

private:
  isl_ctx *ctx;
};

/// Parses isl text into a T (isl::set, isl::union_map, isl::schedule, ...);
/// on failure sets `error` to isl's message.
template <typename T>
std::optional<T> parseIsl(isl::ctx ctx, llvm::StringRef text,
                          std::string &error) {
  try {
    return T(ctx, text.str());
  } catch (const isl::exception &e) {
    error = e.what();
    return std::nullopt;
  }
}

/// isl's text form of an object (the C++ interface prints through streams).
template <typename T> std::string toString(const T &object) {
  std::ostringstream os;
  os << object;
  return os.str();
}

/// The tuple name of a set, "" when it has none.
inline std::string tupleName(const isl::set &set) {
  const char *name = isl_set_get_tuple_name(set.get());
  return name ? name : "";
}

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_ISLCONTEXT_H
