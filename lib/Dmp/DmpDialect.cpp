//===- DmpDialect.cpp - process grids, exchanges and dmp.swap --------------===//

#include "Stencil/Dmp/Dmp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dmp;

#include "Stencil/Dmp/DmpDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Stencil/Dmp/DmpAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "Stencil/Dmp/DmpOps.cpp.inc"

void DmpDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "Stencil/Dmp/DmpOps.cpp.inc"
      >();
}

void DmpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Stencil/Dmp/DmpAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #dmp.topo<2x2>
//===----------------------------------------------------------------------===//

Attribute TopoAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> shape;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/false) ||
      parser.parseGreater())
    return {};
  return TopoAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), shape);
}

void TopoAttr::print(AsmPrinter &printer) const {
  printer << "<";
  llvm::interleave(getShape(), printer.getStream(), "x");
  printer << ">";
}

LogicalResult TopoAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape) {
  if (shape.empty() || shape.size() > 3)
    return emitError() << "a process grid has 1 to 3 dimensions, not "
                       << shape.size();
  for (int64_t n : shape)
    if (n < 1)
      return emitError() << "a process grid needs at least one rank per "
                            "dimension";
  return success();
}

int64_t TopoAttr::getNumRanks() const {
  int64_t n = 1;
  for (int64_t s : getShape())
    n *= s;
  return n;
}

//===----------------------------------------------------------------------===//
// #dmp.exchange<...>
//===----------------------------------------------------------------------===//

LogicalResult
ExchangeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     ArrayRef<int64_t> offset, ArrayRef<int64_t> size,
                     ArrayRef<int64_t> sourceOffset,
                     ArrayRef<int64_t> neighbor) {
  if (size.size() != offset.size() || sourceOffset.size() != offset.size() ||
      neighbor.size() != offset.size())
    return emitError() << "an exchange needs as many entries in `at`, `size`, "
                          "`source offset` and `to`";
  if (llvm::any_of(size, [](int64_t s) { return s < 0; }))
    return emitError() << "an exchange has a negative size";
  if (llvm::all_of(neighbor, [](int64_t n) { return n == 0; }))
    return emitError() << "an exchange goes to a neighbour: `to` is all zero";
  return success();
}

int64_t ExchangeAttr::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : getSize())
    n *= s;
  return n;
}

//===----------------------------------------------------------------------===//
// Strategies
//===----------------------------------------------------------------------===//

TopoAttr mlir::dmp::getStrategyTopology(Attribute strategy) {
  return TypeSwitch<Attribute, TopoAttr>(strategy)
      .Case<GridSlice1dAttr, GridSlice2dAttr, GridSlice3dAttr>(
          [](auto slice) { return slice.getTopology(); })
      .Default([](Attribute) { return TopoAttr(); });
}

Attribute mlir::dmp::getGridSliceStrategy(TopoAttr topology, bool diagonals) {
  MLIRContext *ctx = topology.getContext();
  switch (topology.getShape().size()) {
  case 1:
    return GridSlice1dAttr::get(ctx, topology, diagonals);
  case 2:
    return GridSlice2dAttr::get(ctx, topology, diagonals);
  default:
    return GridSlice3dAttr::get(ctx, topology, diagonals);
  }
}

//===----------------------------------------------------------------------===//
// dmp.swap
//===----------------------------------------------------------------------===//

TopoAttr SwapOp::getTopology() { return getStrategyTopology(getStrategy()); }

LogicalResult SwapOp::verify() {
  TopoAttr topo = getTopology();
  if (!topo)
    return emitOpError("needs a #dmp.grid_slice_1d/2d/3d strategy, not ")
           << getStrategy();
  if (getStrategy() != getGridSliceStrategy(topo, true) &&
      getStrategy() != getGridSliceStrategy(topo, false))
    return emitOpError("strategy ")
           << getStrategy() << " does not match its "
           << topo.getShape().size() << "-dimensional topology";
  Type type = getField().getType();
  bool isTemp = isa<stencil::TempType>(type);
  if (isTemp && (!getSwapped() || getSwapped().getType() != type))
    return emitOpError("on a temp needs a result of the same type (xDSL's "
                       "value form)");
  if (!isTemp && getSwapped())
    return emitOpError("on a field has no result");
  unsigned rank = stencil::getRankOf(type);
  if (topo.getShape().size() > rank)
    return emitOpError("decomposes ")
           << topo.getShape().size() << " dimensions of a field of rank "
           << rank;
  stencil::BoundsAttr bounds = stencil::getBoundsOf(type);
  for (auto [i, attr] : llvm::enumerate(getSwaps())) {
    auto exchange = cast<ExchangeAttr>(attr);
    if (exchange.getOffset().size() != rank)
      return emitOpError("exchange ")
             << i << " has " << exchange.getOffset().size()
             << " dimensions, the field " << rank;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t n = exchange.getNeighbor()[d];
      if (n < -1 || n > 1 || (d >= topo.getShape().size() && n != 0))
        return emitOpError("exchange ")
               << i << " goes to grid offset " << n << " in dimension " << d
               << " (-1, 0 or 1 along the topology's dimensions, 0 beyond)";
      if (!bounds)
        continue;
      // Boxes are in the domain's coordinates, like the bounds.
      int64_t size = exchange.getSize()[d];
      int64_t lb = bounds.getLb()[d], ub = bounds.getUb()[d];
      for (int64_t start : {exchange.getOffset()[d],
                            exchange.getOffset()[d] +
                                exchange.getSourceOffset()[d]})
        if (start < lb || start + size > ub)
          return emitOpError("exchange ")
                 << i << " reaches outside the "
                 << (isTemp ? "temp" : "field") << " in dimension " << d
                 << ": [" << start << ", " << start + size
                 << ") is not within [" << lb << ", " << ub << ")";
    }
  }
  return success();
}
