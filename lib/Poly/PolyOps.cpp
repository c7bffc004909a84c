//===- PolyOps.cpp - polyhedral form of stencil programs -------------------===//

#include "Stencil/Poly/PolyOps.h"
#include "Stencil/Poly/IslContext.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/xxhash.h"

#include <mutex>

using namespace mlir;
using namespace mlir::stencil::poly;

#include "Stencil/Poly/PolyDialect.cpp.inc"

void PolyDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Stencil/Poly/PolyOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "Stencil/Poly/PolyOps.cpp.inc"

namespace {
/// The schedule texts known to parse: the verifier runs after every pass, a
/// tiled program's schedule text is tens of kilobytes, and most passes leave
/// it as it is or set one that isl printed.
class ParsedSchedules {
public:
  bool contains(StringRef text) {
    std::lock_guard<std::mutex> lock(mutex);
    return parsed.contains(key(text));
  }
  void insert(StringRef text) {
    std::lock_guard<std::mutex> lock(mutex);
    if (parsed.size() >= 4096)
      parsed.clear();
    parsed.insert(key(text));
  }

private:
  static std::pair<uint64_t, size_t> key(StringRef text) {
    return {llvm::xxh3_64bits(text), text.size()};
  }
  std::mutex mutex;
  llvm::DenseSet<std::pair<uint64_t, size_t>> parsed;
};
} // namespace

static ParsedSchedules &parsedSchedules() {
  static ParsedSchedules schedules;
  return schedules;
}

/// Whether `text` parses as an isl schedule.
static bool parsesAsSchedule(StringRef text, std::string &error) {
  if (parsedSchedules().contains(text))
    return true;
  IslContext ctx;
  if (!parseIsl<isl::schedule>(ctx, text, error))
    return false;
  parsedSchedules().insert(text);
  return true;
}

void mlir::stencil::poly::setPrintedSchedule(ScopOp scop, StringRef text) {
  parsedSchedules().insert(text);
  scop.setSchedule(text);
}

LogicalResult ScopOp::verify() {
  std::string error;
  if (!parsesAsSchedule(getSchedule(), error))
    return emitOpError("has an invalid schedule: ") << error;
  if (getResultArrays().size() != getNumResults() ||
      getResultOffsets().size() != getNumResults())
    return emitOpError("needs one result array and offset per result");
  if (std::optional<ArrayRef<int64_t>> threads = getGpuThreads()) {
    if (threads->empty() || threads->size() > 3 ||
        llvm::any_of(*threads, [](int64_t t) { return t < 1; }))
      return emitOpError("gpu_threads needs 1 to 3 positive sizes");
    int64_t total = 1;
    for (int64_t t : *threads)
      total *= t;
    if (total > 1024)
      return emitOpError("gpu_threads asks for ")
             << total << " threads per block (at most 1024)";
  }
  if (getGpuMaxBlocks() && *getGpuMaxBlocks() < 1)
    return emitOpError("gpu_max_blocks must be positive");
  for (auto [ref, offset, type] :
       llvm::zip(getResultArrays(), getResultOffsets(), getResultTypes())) {
    auto array = dyn_cast_or_null<ArrayOp>(mlir::SymbolTable::lookupSymbolIn(
        *this, cast<FlatSymbolRefAttr>(ref).getAttr()));
    if (!array || array.isTemp())
      return emitOpError("result array ") << ref << " is not a field array";
    if (offset < 0 || offset >= (int64_t)array.getBuffers().size())
      return emitOpError("result offset ") << offset << " out of range";
    if (array.getBuffers().front().getType() != type)
      return emitOpError("result type differs from the type of ") << ref;
  }
  return success();
}

void ScopOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The statements read and write the buffers of the field arrays.
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult ArrayOp::verify() {
  if (getLb().size() != getUb().size())
    return emitOpError("needs as many lower as upper bounds");
  for (auto [l, u] : llvm::zip(getLb(), getUb()))
    if (l > u)
      return emitOpError("has an empty box");
  for (Value buffer : getBuffers())
    if (buffer.getType() != getBuffers().front().getType())
      return emitOpError("buffers must all have the same type");
  if (!getElementType().isIntOrIndexOrFloat())
    return emitOpError("element type must be an integer, index or float "
                       "type, got ")
           << getElementType();
  return success();
}

int64_t ArrayOp::getElementBytes() {
  Type element = getElementType();
  if (element.isIndex())
    return 8;
  return llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

LogicalResult StmtOp::verify() {
  IslContext ctx;
  std::string error;
  auto domain = parseIsl<isl::set>(ctx, getDomain(), error);
  if (!domain)
    return emitOpError("has an invalid domain: ") << error;
  if (tupleName(*domain) != getSymName())
    return emitOpError("domain tuple must be named ") << getSymName();
  unsigned dims = domain->tuple_dim();
  if (dims < 1)
    return emitOpError("domain needs a time dimension");
  auto checkAccess = [&](StringRef text) -> LogicalResult {
    auto access = parseIsl<isl::map>(ctx, text, error);
    if (!access)
      return emitOpError("has an invalid access: ") << error;
    if (!access->has_domain_tuple_id() ||
        access->domain_tuple_id().name() != getSymName() ||
        !access->has_range_tuple_id())
      return emitOpError("access '")
             << text << "' must map " << getSymName() << " to a named array";
    // The array exists, and the access has one subscript per dimension
    // (plus the buffer subscript of several rotating buffers).
    std::string name = access->range_tuple_id().name();
    auto array = dyn_cast_or_null<ArrayOp>(
        mlir::SymbolTable::lookupSymbolIn((*this)->getParentOp(), name));
    if (!array)
      return emitOpError("access '") << text << "' names no poly.array";
    unsigned subscripts = array.getRank() + (array.getBuffers().size() > 1);
    if (access->range_tuple_dim() != subscripts)
      return emitOpError("access '")
             << text << "' needs " << subscripts << " subscripts for @"
             << name;
    return success();
  };
  if (failed(checkAccess(getWrites())))
    return failure();
  for (Attribute read : getReads())
    if (failed(checkAccess(cast<StringAttr>(read).getValue())))
      return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != getReads().size() + dims - 1)
    return emitOpError("body needs one argument per read and one per space "
                       "dimension, ")
           << getReads().size() + dims - 1 << " in all";
  return success();
}
