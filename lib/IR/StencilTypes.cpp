//===- StencilTypes.cpp - stencil types and attributes ---------------------===//
//
// Textual forms (those xDSL prints):
//   #stencil.index<[0, -1]>      #stencil.bounds<[0, 0], [64, 64]>
//   !stencil.field<[-1,65]x[-1,65]xf64>   !stencil.temp<?x?xf32>
//
//===----------------------------------------------------------------------===//

#include "Stencil/IR/StencilTypes.h"
#include "Stencil/IR/StencilDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

using namespace mlir;
using namespace mlir::stencil;

#define GET_ATTRDEF_CLASSES
#include "Stencil/IR/StencilAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Stencil/IR/StencilTypes.cpp.inc"

void StencilDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Stencil/IR/StencilTypes.cpp.inc"
      >();
}

void StencilDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Stencil/IR/StencilAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// `[i, j, k]`
static ParseResult parseIntList(AsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        values.push_back(v);
        return success();
      });
}

static void printIntList(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

Attribute IndexAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> indices;
  if (parser.parseLess() || parseIntList(parser, indices) ||
      parser.parseGreater())
    return {};
  return IndexAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), indices);
}

void IndexAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printIntList(printer, getIndices());
  printer << '>';
}

LogicalResult IndexAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> indices) {
  if (indices.empty() || indices.size() > 3)
    return emitError() << "expected 1 to 3 indices, got " << indices.size();
  return success();
}

Attribute BoundsAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> lb, ub;
  if (parser.parseLess() || parseIntList(parser, lb) || parser.parseComma() ||
      parseIntList(parser, ub) || parser.parseGreater())
    return {};
  return BoundsAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), lb, ub);
}

void BoundsAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printIntList(printer, getLb());
  printer << ", ";
  printIntList(printer, getUb());
  printer << '>';
}

/// The extents ub - lb, and their product (the points of the box), must
/// fit in 64 bits: the lowerings index every point with a signed 64-bit
/// index.
static LogicalResult verifyExtents(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<int64_t> lb, ArrayRef<int64_t> ub) {
  int64_t points = 1;
  for (auto [d, l, u] : llvm::enumerate(lb, ub)) {
    std::optional<int64_t> extent = llvm::checkedSub(u, l);
    if (!extent)
      return emitError() << "the extent " << u << " - (" << l
                         << ") of dimension " << d
                         << " does not fit in 64 bits";
    std::optional<int64_t> product = llvm::checkedMul(points, *extent);
    if (!product)
      return emitError() << "the box of bounds [" << lb << "] to [" << ub
                         << "] has more than 2^63 points";
    points = *product;
  }
  return success();
}

LogicalResult BoundsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> lb, ArrayRef<int64_t> ub) {
  if (lb.size() != ub.size())
    return emitError() << "bounds have " << lb.size()
                       << " lower and " << ub.size() << " upper values";
  if (lb.empty() || lb.size() > 3)
    return emitError() << "expected bounds of rank 1 to 3, got " << lb.size();
  for (auto [d, l, u] : llvm::enumerate(lb, ub))
    if (u < l)
      return emitError() << "upper bound " << u << " is below lower bound "
                         << l << " in dimension " << d;
  return verifyExtents(emitError, lb, ub);
}

//===----------------------------------------------------------------------===//
// Field and temp types
//===----------------------------------------------------------------------===//

/// `<[lb,ub]x...xT>` or `<?x...xT>`.
static ParseResult parseShapedType(AsmParser &parser,
                                   SmallVectorImpl<int64_t> &lb,
                                   SmallVectorImpl<int64_t> &ub,
                                   Type &elementType) {
  if (parser.parseLess())
    return failure();
  while (true) {
    if (succeeded(parser.parseOptionalQuestion())) {
      lb.push_back(ShapedType::kDynamic);
      ub.push_back(ShapedType::kDynamic);
    } else if (succeeded(parser.parseOptionalLSquare())) {
      int64_t l, u;
      SMLoc at = parser.getCurrentLocation();
      if (parser.parseInteger(l) || parser.parseComma() ||
          parser.parseInteger(u) || parser.parseRSquare())
        return failure();
      // (The smallest int64 is MLIR's marker of a dynamic size.)
      if (ShapedType::isDynamic(l) || ShapedType::isDynamic(u))
        return parser.emitError(at, "a bound must be greater than ")
               << std::numeric_limits<int64_t>::min();
      lb.push_back(l);
      ub.push_back(u);
    } else {
      break;
    }
    if (parser.parseXInDimensionList())
      return failure();
  }
  if (lb.empty())
    return parser.emitError(parser.getCurrentLocation(),
                            "expected a dimension `?` or `[lb,ub]` (a stencil "
                            "type has rank 1 to 3 and gives each dimension as "
                            "`?` or as bounds, not as an extent like `64`)");
  if (parser.parseType(elementType) || parser.parseGreater())
    return failure();
  return success();
}

static void printShapedType(AsmPrinter &printer, ArrayRef<int64_t> lb,
                            ArrayRef<int64_t> ub, Type elementType) {
  printer << '<';
  for (auto [l, u] : llvm::zip(lb, ub)) {
    if (ShapedType::isDynamic(l))
      printer << "?x";
    else
      printer << '[' << l << ',' << u << "]x";
  }
  printer << elementType << '>';
}

static LogicalResult
verifyShapedType(function_ref<InFlightDiagnostic()> emitError,
                 ArrayRef<int64_t> lb, ArrayRef<int64_t> ub,
                 Type elementType) {
  if (lb.size() != ub.size())
    return emitError() << "lower and upper bounds differ in rank";
  if (lb.empty() || lb.size() > 3)
    return emitError() << "expected rank 1 to 3, got " << lb.size();
  bool dynamic = ShapedType::isDynamic(lb[0]);
  for (auto [d, l, u] : llvm::enumerate(lb, ub)) {
    if (ShapedType::isDynamic(l) != dynamic ||
        ShapedType::isDynamic(u) != dynamic)
      return emitError() << "stencil types are either fully dynamic or fully "
                            "bounded: dimension "
                         << d << " is " << (dynamic ? "bounded" : "`?`")
                         << " but dimension 0 is "
                         << (dynamic ? "`?`" : "bounded");
    if (!dynamic && u < l)
      return emitError() << "upper bound " << u << " is below lower bound "
                         << l << " in dimension " << d;
  }
  if (!dynamic && failed(verifyExtents(emitError, lb, ub)))
    return failure();
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "element type must be an integer, index or float "
                          "type, got "
                       << elementType;
  return success();
}

LogicalResult ResultType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Type elementType) {
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "!stencil.result element type must be an integer, "
                          "index or float type, got "
                       << elementType;
  return success();
}

#define STENCIL_SHAPED_TYPE_IMPL(Class)                                        \
  Type Class::parse(AsmParser &parser) {                                       \
    SmallVector<int64_t> lb, ub;                                               \
    Type elementType;                                                          \
    if (parseShapedType(parser, lb, ub, elementType))                          \
      return {};                                                               \
    return Class::getChecked(                                                  \
        [&] { return parser.emitError(parser.getNameLoc()); },                 \
        parser.getContext(), lb, ub, elementType);                             \
  }                                                                            \
  void Class::print(AsmPrinter &printer) const {                               \
    printShapedType(printer, getLb(), getUb(), getElementType());              \
  }                                                                            \
  LogicalResult Class::verify(function_ref<InFlightDiagnostic()> emitError,    \
                              ArrayRef<int64_t> lb, ArrayRef<int64_t> ub,      \
                              Type elementType) {                              \
    return verifyShapedType(emitError, lb, ub, elementType);                   \
  }

STENCIL_SHAPED_TYPE_IMPL(FieldType)
STENCIL_SHAPED_TYPE_IMPL(TempType)
#undef STENCIL_SHAPED_TYPE_IMPL

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type mlir::stencil::getElementTypeOf(Type type) {
  return TypeSwitch<Type, Type>(type)
      .Case<FieldType, TempType, ResultType>(
          [](auto t) { return t.getElementType(); })
      .Default([](Type) { return Type(); });
}

unsigned mlir::stencil::getRankOf(Type type) {
  return TypeSwitch<Type, unsigned>(type)
      .Case<FieldType, TempType>([](auto t) { return t.getRank(); })
      .Default([](Type) { return 0u; });
}

BoundsAttr mlir::stencil::getBoundsOf(Type type) {
  return TypeSwitch<Type, BoundsAttr>(type)
      .Case<FieldType, TempType>([](auto t) -> BoundsAttr {
        if (!t.hasBounds())
          return {};
        return BoundsAttr::get(t.getContext(), t.getLb(), t.getUb());
      })
      .Default([](Type) { return BoundsAttr(); });
}

Type mlir::stencil::withBounds(Type type, BoundsAttr bounds) {
  return TypeSwitch<Type, Type>(type)
      .Case<FieldType, TempType>([&](auto t) -> Type {
        if (!bounds)
          return decltype(t)::get(t.getRank(), t.getElementType());
        return t.withBounds(bounds.getLb(), bounds.getUb());
      })
      .Default([](Type t) { return t; });
}
