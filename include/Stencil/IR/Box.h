//===- Box.h - half-open boxes of the grid ----------------------*- C++ -*-===//
//
// The box arithmetic shape inference, the distribution checks and the
// overlapped halo exchange share: a box is [lb, ub) per dimension.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_IR_BOX_H
#define STENCIL_IR_BOX_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

namespace mlir::stencil {

/// A half-open box [lb, ub) of the grid. Empty when ub <= lb in some
/// dimension.
struct Box {
  SmallVector<int64_t> lb, ub;

  Box() = default;
  Box(ArrayRef<int64_t> lb, ArrayRef<int64_t> ub) : lb(lb), ub(ub) {}

  unsigned rank() const { return lb.size(); }
  bool empty() const {
    for (unsigned d = 0; d < rank(); ++d)
      if (ub[d] <= lb[d])
        return true;
    return false;
  }
  int64_t volume() const {
    int64_t v = 1;
    for (unsigned d = 0; d < rank(); ++d)
      v *= std::max<int64_t>(ub[d] - lb[d], 0);
    return v;
  }
  bool contains(const Box &o) const {
    for (unsigned d = 0; d < rank(); ++d)
      if (o.lb[d] < lb[d] || o.ub[d] > ub[d])
        return false;
    return true;
  }
  bool intersects(const Box &o) const { return !intersection(o).empty(); }
  Box intersection(const Box &o) const {
    Box r = *this;
    for (unsigned d = 0; d < rank(); ++d) {
      r.lb[d] = std::max(lb[d], o.lb[d]);
      r.ub[d] = std::min(ub[d], o.ub[d]);
    }
    return r;
  }
  /// Grow to the bounding box of this box and `o` (both non-empty).
  void unite(const Box &o) {
    for (unsigned d = 0; d < rank(); ++d) {
      lb[d] = std::min(lb[d], o.lb[d]);
      ub[d] = std::max(ub[d], o.ub[d]);
    }
  }
  /// Shrinks the box along one dimension so that it misses `o`, keeping the
  /// most points (empty when `o` covers no side of it).
  void cut(const Box &o) {
    if (!intersects(o))
      return;
    Box best{lb, lb}; // empty
    for (unsigned d = 0; d < rank(); ++d) {
      if (o.lb[d] <= lb[d]) {
        Box above = *this;
        above.lb[d] = o.ub[d];
        if (above.volume() > best.volume())
          best = above;
      }
      if (o.ub[d] >= ub[d]) {
        Box below = *this;
        below.ub[d] = o.lb[d];
        if (below.volume() > best.volume())
          best = below;
      }
    }
    *this = best;
  }
};

/// The points of `box` outside `other` as disjoint boxes: per dimension d,
/// below and above `other`, over their common extent in the dimensions
/// before d and the box's after it.
inline SmallVector<Box> boxMinus(const Box &box, const Box &other) {
  if (box.empty())
    return {};
  Box inner = box.intersection(other);
  if (inner.empty())
    return {box};
  SmallVector<Box> slabs;
  Box rest = box;
  for (unsigned d = 0; d < box.rank(); ++d) {
    Box below = rest, above = rest;
    below.ub[d] = inner.lb[d];
    above.lb[d] = inner.ub[d];
    for (const Box &slab : {below, above})
      if (!slab.empty())
        slabs.push_back(slab);
    rest.lb[d] = inner.lb[d];
    rest.ub[d] = inner.ub[d];
  }
  return slabs;
}

} // namespace mlir::stencil

#endif // STENCIL_IR_BOX_H
