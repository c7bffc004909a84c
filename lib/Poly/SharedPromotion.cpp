//===- SharedPromotion.cpp - shared-memory promotion of GPU tiles ---------===//
//
// The hybrid paper's explicitly managed shared memory (sec. 4.2, Table 4
// steps b and c), on the tree poly-to-gpu maps:
//
//   mark "kernel" -> context -> band [S_hex] -> band [S_other...]
//     mark "shared"                          one tile: (T, S_hex, S_other...)
//       extension + sequence
//         copy-in of every promoted array    threads cyclic over the box
//         barrier_in
//         band [t'] ...                      the tile's steps, in shared memory
//         copy-out of what the tile wrote    (step b only)
//         barrier_out                        before the next tile's copy-in
//
// The footprint of a tile is the image of the tile's instances under the
// accesses, as a function of the tile coordinates; a box holds it, per
// array dimension an affine offset and a constant size (PPCG's design;
// thesis sec. 5.3.1), built from isl's simple fixed box hulls statement by
// statement (footprintsAt). Rotating buffers keep their buffer
// subscript as the box's first dimension, so a tile holds every time level
// its statements need. Copy-in loads the whole box (clipped to the array),
// the threads cyclic over it with the innermost dimension on x (coalesced);
// copy-out stores exactly the elements the tile wrote, each once. The
// tree's order is legal: the tiles of one kernel are independent, so a
// value a tile reads is either its own (in shared memory) or was written
// back by an earlier kernel.
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/SharedPromotion.h"
#include "Stencil/Poly/AstToLoops.h"
#include "Stencil/Poly/IslContext.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

#include <isl/schedule_node.h>

using namespace mlir;
using namespace mlir::stencil::poly;

std::string mlir::stencil::poly::copyInName(unsigned kernel, StringRef array) {
  return "copy_in_" + std::to_string(kernel) + "_" + array.str();
}
std::string mlir::stencil::poly::copyOutName(unsigned kernel,
                                             StringRef array) {
  return "copy_out_" + std::to_string(kernel) + "_" + array.str();
}
std::string mlir::stencil::poly::moveName(unsigned kernel, StringRef array) {
  return "move_" + std::to_string(kernel) + "_" + array.str();
}
std::string mlir::stencil::poly::sharedArrayName(StringRef array) {
  return array.str() + "_shared";
}

namespace {

/// "p0, ..., p{n-1}"
std::string names(StringRef prefix, unsigned n) {
  SmallVector<std::string> list;
  for (unsigned i = 0; i < n; ++i)
    list.push_back(prefix.str() + std::to_string(i));
  return llvm::join(list, ", ");
}

std::string markName(isl::schedule_node node) {
  if (isl_schedule_node_get_type(node.get()) != isl_schedule_node_mark)
    return "";
  isl_id *id = isl_schedule_node_mark_get_id(node.get());
  std::string name = id && isl_id_get_name(id) ? isl_id_get_name(id) : "";
  isl_id_free(id);
  return name;
}

/// The marks named `name`, in tree order (sequence children in order).
SmallVector<isl::schedule_node> marksNamed(isl::schedule schedule,
                                           StringRef name) {
  struct Walk {
    StringRef name;
    SmallVector<isl::schedule_node> found;
  } walk{name, {}};
  isl_schedule_foreach_schedule_node_top_down(
      schedule.get(),
      [](isl_schedule_node *node, void *user) -> isl_bool {
        auto &w = *static_cast<Walk *>(user);
        isl::schedule_node n = isl::manage_copy(node);
        if (markName(n) == w.name)
          w.found.push_back(n);
        return isl_bool_true;
      },
      &walk);
  return walk.found;
}

/// The t' band of a kernel mapped by poly-to-gpu's hybrid mapping: kernel
/// -> context -> [S_hex] -> [S_other...] (not in 1D) -> [t'], with a
/// "grid_y" mark above [S_other...] in split-tiled 3D kernels.
isl::schedule_node stepBand(isl::schedule_node kernel, unsigned numSpaceDims) {
  isl::schedule_node node = kernel.child(0).child(0).child(0);
  if (numSpaceDims > 1) {
    if (isl_schedule_node_get_type(node.get()) == isl_schedule_node_mark)
      node = node.child(0);
    node = node.child(0);
  }
  return node;
}

/// The maps of `umap`, by the name of their range tuple.
llvm::StringMap<isl::map> byRangeName(isl::union_map umap) {
  llvm::StringMap<isl::map> maps;
  isl::map_list list = umap.map_list();
  for (unsigned i = 0; i < list.size(); ++i)
    maps[list.at(i).range_tuple_id().name()] = list.at(i);
  return maps;
}

isl::multi_aff anonymousRange(isl::multi_aff ma) {
  return isl::manage(isl_multi_aff_reset_tuple_id(ma.release(), isl_dim_out));
}

/// `{ [P] -> name[P, l] }` from a relation `{ [P] -> [l] }`.
isl::union_map extensionOf(isl::map tileToLocal, const std::string &name) {
  isl_map *m = isl_map_domain_map(tileToLocal.release()); // [P -> l] -> P
  m = isl_map_reverse(m);                                  // P -> [P -> l]
  m = isl_map_flatten_range(m);                            // P -> [P, l]
  m = isl_map_set_tuple_name(m, isl_dim_out, name.c_str());
  return isl::union_map(isl::manage(m));
}

/// What promotion needs to know about one array of the scop.
struct ArrayInfo {
  std::string name;
  SmallVector<int64_t> lb, ub; // of the access index space (buffer first)
  unsigned rank = 0;           // grid dimensions
  int64_t elementBytes = 0;
};

/// The footprint box of one array in one kernel.
struct Footprint {
  bool valid = false;
  isl::multi_aff offset;
  SmallVector<int64_t> shape;
  int64_t bytes = 0;
};

/// The arrays of `scop`, as promotion sees them.
SmallVector<ArrayInfo> arraysOf(ScopOp scop) {
  SmallVector<ArrayInfo> arrays;
  for (ArrayOp array : scop.getArrays()) {
    ArrayInfo &info = arrays.emplace_back();
    info.name = array.getSymName().str();
    info.rank = array.getRank();
    if (array.getBuffers().size() > 1) {
      info.lb.push_back(0);
      info.ub.push_back(array.getBuffers().size());
    }
    info.lb.append(array.getLb().begin(), array.getLb().end());
    info.ub.append(array.getUb().begin(), array.getUb().end());
    info.elementBytes = array.getElementBytes();
  }
  return arrays;
}

/// A box `{ P -> x : offset(P) <= x < offset(P) + size }`.
struct TileBox {
  isl::multi_aff offset;
  isl::multi_val size;

  isl::map relation() const {
    isl::multi_aff upper =
        offset.add_constant(size).add_constant(isl::val::negone(offset.ctx()));
    return isl::map::universe(offset.space())
        .lower_bound(isl::multi_pw_aff(offset))
        .upper_bound(isl::multi_pw_aff(upper));
  }
};

bool dependsOnTile(const isl::multi_aff &offset) {
  unsigned n = unsigned(isl_multi_aff_dim(offset.get(), isl_dim_in));
  return isl_multi_aff_involves_dims(offset.get(), isl_dim_in, 0, n) ==
         isl_bool_true;
}

/// The box of `tileToInstance`'s range (a statement's instances in tile P)
/// whose offset is `base` (a box offset of another statement, in the same
/// coordinates) plus constants: their range is that of x - base(P) over
/// the relation. Nothing when it is unbounded.
std::optional<TileBox> boxAlong(const isl::map &tileToInstance,
                                const isl::multi_aff &base) {
  isl::multi_aff offset = isl::manage(isl_multi_aff_set_tuple_id(
      base.copy(), isl_dim_out,
      isl_map_get_tuple_id(tileToInstance.get(), isl_dim_out)));
  // x - base(P) on the pairs (P, x), bounded by integer programs over
  // them (projecting P out first is far slower).
  isl::set pairs = tileToInstance.wrap();
  isl::space pairSpace = tileToInstance.space();
  isl::multi_aff instance = isl::manage(
      isl_multi_aff_range_map(pairSpace.copy()));
  isl::multi_aff tile = isl::manage(isl_multi_aff_domain_map(pairSpace.copy()));
  isl::multi_aff deviation = instance.sub(offset.pullback(tile));
  isl::multi_val low = isl::multi_val::zero(offset.space().range());
  isl::multi_val size = low;
  for (unsigned d = 0; d < unsigned(offset.size()); ++d) {
    isl::aff component = deviation.at(d);
    isl::val lo = isl::manage(isl_set_min_val(pairs.get(), component.get()));
    isl::val hi = isl::manage(isl_set_max_val(pairs.get(), component.get()));
    if (!lo.is_int() || !hi.is_int())
      return std::nullopt;
    low = low.set_at(d, lo);
    size = size.set_at(d, hi.sub(lo).add(isl::val::one(lo.ctx())));
  }
  return TileBox{offset.add_constant(low), size};
}

/// One statement's image of its instance box in an array, and the box of
/// that image.
struct FootprintPart {
  isl::map image;
  TileBox box;
};

/// Sets `fp` to the box of the union of `parts`: their boxes, those whose
/// offsets differ from the first tile-dependent one by more than constants
/// moved onto it (boxAlong). False, leaving `fp`, when one cannot be.
bool joinBoxes(ArrayRef<FootprintPart> parts, int64_t elementBytes,
               Footprint &fp) {
  const TileBox *base = &parts.front().box;
  for (const FootprintPart &part : parts)
    if (dependsOnTile(part.box.offset)) {
      base = &part.box;
      break;
    }
  isl::multi_aff baseOffset = anonymousRange(base->offset);
  unsigned dims = unsigned(baseOffset.size());
  SmallVector<int64_t> lo(dims, std::numeric_limits<int64_t>::max());
  SmallVector<int64_t> hi(dims, std::numeric_limits<int64_t>::min());
  for (const FootprintPart &part : parts) {
    std::optional<TileBox> box = part.box;
    if (dependsOnTile(anonymousRange(box->offset).sub(baseOffset)))
      box = boxAlong(part.image, baseOffset);
    if (!box)
      return false;
    isl::multi_aff delta = anonymousRange(box->offset).sub(baseOffset);
    for (unsigned d = 0; d < dims; ++d) {
      int64_t c = delta.at(d).constant_val().get_num_si();
      lo[d] = std::min(lo[d], c);
      hi[d] = std::max(hi[d], c + box->size.at(d).get_num_si());
    }
  }
  isl::multi_val shift = isl::multi_val::zero(base->offset.space().range());
  for (unsigned d = 0; d < dims; ++d)
    shift = shift.set_at(d, isl::val(baseOffset.ctx(), lo[d]));
  // (Not clipped to the array: the offset of a tile at the array's border
  // may lie outside it.)
  fp.offset = base->offset.add_constant(shift);
  fp.bytes = elementBytes;
  for (unsigned d = 0; d < dims; ++d) {
    fp.shape.push_back(hi[d] - lo[d]);
    fp.bytes *= fp.shape.back();
  }
  fp.valid = true;
  return true;
}

/// The footprint box of every array the instances reaching `band` touch,
/// per tile: the prefix schedule at `band`. Empty when none reach it;
/// `tileOf` is then null.
///
/// A tile's footprint is the image of its instances under the accesses.
/// Its box is found per statement, as the image of the box of the
/// statement's instances in a tile, and the boxes of an array are then
/// joined: the bounding box of a union is that of its parts' bounding
/// boxes, and the image of a box under a translation or projection (every
/// stencil access) is the bounding box of the image. isl's box of the
/// whole image, the instances projected out, costs 10-20x more (elastic
/// 3D: 1 s per kernel); it stays the answer where the parts cannot be
/// joined.
llvm::StringMap<Footprint> footprintsAt(isl::schedule_node band,
                                        const ScopModel &model,
                                        ArrayRef<ArrayInfo> arrays,
                                        isl::union_map &tileOf) {
  llvm::StringMap<Footprint> footprints;
  isl::union_set reaching =
      isl::manage(isl_schedule_node_get_domain(band.get()))
          .intersect(model.domain);
  if (reaching.is_empty())
    return footprints;
  tileOf = isl::union_map::from(band.prefix_schedule_union_pw_multi_aff())
               .intersect_domain(reaching);
  isl::union_map accesses = model.reads.unite(model.writes);
  // Per statement, the box of its instances in a tile, all offset alike
  // (one statement's offset plus constants) so that their images join: a
  // statement that meets few tiles of a small domain may have a box pinned
  // to the domain instead, which is moved onto the common offset.
  isl::map_list instances = tileOf.reverse().map_list();
  SmallVector<std::optional<TileBox>> instanceBoxes;
  std::optional<isl::multi_aff> base;
  for (unsigned i = 0; i < instances.size(); ++i) {
    isl::fixed_box box = instances.at(i).get_range_simple_fixed_box_hull();
    instanceBoxes.push_back(box.is_valid() ? std::optional<TileBox>(TileBox{
                                                 box.offset(), box.size()})
                                           : std::nullopt);
    if (box.is_valid() && !base && dependsOnTile(box.offset()))
      base = anonymousRange(box.offset());
  }
  llvm::StringMap<SmallVector<FootprintPart>> parts;
  llvm::StringSet<> exact; // arrays whose parts do not all have a box
  for (unsigned i = 0; i < instances.size(); ++i) {
    isl::map tileToInstance = instances.at(i);
    std::optional<TileBox> &box = instanceBoxes[i];
    if (box && base && dependsOnTile(anonymousRange(box->offset).sub(*base)))
      box = boxAlong(tileToInstance, *base);
    isl::union_map statementAccesses = accesses.intersect_domain(
        isl::union_set(isl::set::universe(tileToInstance.range().space())));
    for (auto &[array, image] :
         byRangeName(isl::union_map(box ? box->relation() : tileToInstance)
                         .apply_range(statementAccesses))) {
      isl::fixed_box imageBox =
          box ? image.get_range_simple_fixed_box_hull() : isl::fixed_box();
      if (imageBox.is_null() || !imageBox.is_valid())
        exact.insert(array);
      else
        parts[array].push_back(
            {image, TileBox{imageBox.offset(), imageBox.size()}});
    }
  }
  llvm::StringMap<isl::map> touched;
  for (const ArrayInfo &array : arrays) {
    auto it = parts.find(array.name);
    if (it == parts.end() && !exact.contains(array.name))
      continue;
    Footprint &fp = footprints[array.name];
    if (!exact.contains(array.name) &&
        joinBoxes(it->second, array.elementBytes, fp))
      continue;
    // isl's box of the exact image.
    if (touched.empty())
      touched = byRangeName(tileOf.reverse().apply_range(
          accesses.intersect_domain(reaching)));
    isl::map image = touched.find(array.name)->second;
    isl::fixed_box box = image.get_range_simple_fixed_box_hull();
    if (box.is_valid())
      joinBoxes({{image, TileBox{box.offset(), box.size()}}},
                array.elementBytes, fp);
  }
  return footprints;
}

/// The shift of inter-tile reuse for `buffer`: offset(P) - offset(P -
/// e_last), when it is constant, lexicographically positive (each thread
/// moves in increasing order) and a multiple of the threads along every
/// dimension the threads copy cyclically (a thread moves only elements it
/// copies); else nothing.
SmallVector<int64_t> reuseShiftOf(const SharedBuffer &buffer,
                                  const ArrayInfo &array,
                                  ArrayRef<int64_t> threads) {
  isl::ctx ctx = buffer.offset.ctx();
  unsigned numTileDims =
      unsigned(isl_multi_aff_dim(buffer.offset.get(), isl_dim_in));
  if (numTileDims == 0)
    return {};
  std::string p = names("p", numTileDims);
  std::string prev = names("p", numTileDims - 1);
  std::string last = "p" + std::to_string(numTileDims - 1);
  isl::multi_aff back(ctx, "{ [" + p + "] -> [" + prev + ", " + last +
                               " - 1] }");
  isl::multi_aff offset = anonymousRange(buffer.offset);
  isl::multi_aff shift = offset.sub(offset.pullback(back));
  SmallVector<int64_t> result;
  unsigned dims = buffer.shape.size(), lead = dims - array.rank;
  bool positive = false;
  for (unsigned i = 0; i < dims; ++i) {
    isl::aff component = shift.at(i);
    if (!component.is_cst())
      return {};
    int64_t value = component.constant_val().get_num_si();
    if (!positive && value < 0)
      return {};
    positive |= value > 0;
    unsigned d = dims - 1 - i; // thread dimension of grid dim i
    if (i >= lead && d < threads.size() && value % threads[d] != 0)
      return {};
    result.push_back(value);
  }
  if (!positive)
    return {};
  return result;
}

} // namespace

isl::schedule mlir::stencil::poly::promoteToShared(
    ScopOp scop, const ScopModel &model, isl::schedule schedule,
    const PromotionOptions &options, SmallVectorImpl<SharedBuffer> &buffers) {
  PromotionMode mode = options.mode;
  ArrayRef<int64_t> threads = options.threads;
  int64_t budgetBytes = options.budgetBytes;
  if (mode == PromotionMode::None)
    return schedule;
  isl::ctx ctx = schedule.ctx();
  unsigned n = model.numSpaceDims;
  SmallVector<ArrayInfo> arrays = arraysOf(scop);

  // 1. The footprint of every array in every kernel.
  SmallVector<isl::schedule_node> kernels = marksNamed(schedule, "kernel");
  SmallVector<llvm::StringMap<Footprint>> footprints;
  SmallVector<isl::union_map> tileMaps(kernels.size());
  for (auto [k, kernel] : llvm::enumerate(kernels))
    footprints.push_back(
        footprintsAt(stepBand(kernel, n), model, arrays, tileMaps[k]));

  // 2. Greedily in array order, what fits in every kernel that touches it.
  SmallVector<int64_t> used(kernels.size(), 0);
  SmallVector<const ArrayInfo *> promoted;
  for (const ArrayInfo &array : arrays) {
    bool touched = false, ok = true;
    std::string why;
    for (unsigned k = 0; k < kernels.size() && ok; ++k) {
      auto it = footprints[k].find(array.name);
      if (it == footprints[k].end())
        continue;
      touched = true;
      if (!it->second.valid) {
        ok = false;
        why = "its footprint in a tile has no box of constant size";
      } else if (used[k] + it->second.bytes > budgetBytes) {
        ok = false;
        why = "its tile footprint (" + std::to_string(it->second.bytes) +
              " bytes) does not fit in the shared-memory budget (" +
              std::to_string(budgetBytes - used[k]) + " of " +
              std::to_string(budgetBytes) + " bytes left)";
      }
    }
    if (!touched)
      continue;
    if (!ok) {
      // At the scop's location, without the scop printed after it.
      mlir::emitRemark(scop.getLoc(), "array @")
          << array.name << " stays in global memory: " << why;
      continue;
    }
    for (unsigned k = 0; k < kernels.size(); ++k) {
      auto it = footprints[k].find(array.name);
      if (it == footprints[k].end())
        continue;
      used[k] += it->second.bytes;
      SharedBuffer &buffer = buffers.emplace_back();
      buffer.array = array.name;
      buffer.kernel = k;
      buffer.shape = it->second.shape;
      buffer.offset = it->second.offset;
      if (options.interTileReuse && n > 1)
        buffer.reuseShift = reuseShiftOf(buffer, array, threads);
    }
    promoted.push_back(&array);
  }
  if (buffers.empty())
    return schedule;

  // 3. The copies, kernel by kernel (each change makes a new tree).
  SmallVector<std::string, 3> tids;
  for (unsigned d = 0; d < threads.size(); ++d)
    tids.push_back(kThreadIdParams[d]);
  std::string tidList = llvm::join(tids, ", ");
  for (unsigned k = 0; k < kernels.size(); ++k) {
    // Every kernel gets the mark, so that the k-th mark is kernel k's.
    isl::schedule_node band =
        stepBand(marksNamed(schedule, "kernel")[k], n).insert_mark(kSharedMark);
    band = band.child(0);
    if (tileMaps[k].is_null()) {
      schedule = band.schedule();
      continue;
    }
    isl::set tiles =
        isl::manage(isl_set_from_union_set(tileMaps[k].range().release()));
    unsigned numTileDims = unsigned(tiles.tuple_dim());
    std::string p = names("p", numTileDims);
    // The tiles whose predecessor along the last tile dimension (the
    // innermost parallelogram tiles, sec. 4.2.2) is a tile of the kernel:
    // the block ran it just before (its tiles along S_other run in
    // lexicographic order, with nothing in between). Only inter-tile reuse
    // needs it (elastic 2D at order 8 without reuse: 0.09 s saved).
    isl::set following = isl::set::empty(tiles.space());
    bool reuses = llvm::any_of(buffers, [&](const SharedBuffer &buffer) {
      return buffer.kernel == k && !buffer.reuseShift.empty();
    });
    if (n > 1 && reuses) {
      std::string prev = names("p", numTileDims - 1);
      std::string last = "p" + std::to_string(numTileDims - 1);
      isl::map next(ctx, "{ [" + p + "] -> [" + prev + ", " + last +
                             " + 1] }");
      // With its integer divisions explicit: the moves' and copy-ins'
      // extensions are restricted to it, and isl's AST generation otherwise
      // recomputes the divisions of this double projection each time it
      // touches one (fdtd-2d at 3072^2: 478 s -> 29 s in --convert-to-gpu).
      following = isl::manage(isl_set_coalesce(isl_set_compute_divs(
          tiles.intersect(tiles.apply(next)).release())));
    }
    isl::union_set reaching =
        isl::manage(isl_schedule_node_get_domain(band.get()))
            .intersect(model.domain);
    llvm::StringMap<isl::map> written =
        byRangeName(tileMaps[k].reverse().apply_range(
            model.writes.intersect_domain(reaching)));

    auto bufferOf = [&](unsigned kernel,
                        StringRef array) -> const SharedBuffer * {
      for (const SharedBuffer &buffer : buffers)
        if (buffer.kernel == kernel && buffer.array == array)
          return &buffer;
      return nullptr;
    };
    auto box = [&](const ArrayInfo &array) -> const Footprint & {
      return footprints[k].find(array.name)->second;
    };
    // A copy statement's schedule: the threads cyclic over the box (the
    // innermost grid dimension on x), each looping over its elements.
    auto copyGraft = [&](isl::union_map extension, const std::string &name,
                         const ArrayInfo &array) {
      unsigned dims = array.lb.size(), lead = dims - array.rank;
      std::string l = names("l", dims);
      std::string stmt = name + "[" + p + ", " + l + "]";
      SmallVector<std::string> members, conds;
      for (unsigned i = 0; i < dims; ++i) {
        std::string li = "l" + std::to_string(i);
        unsigned d = dims - 1 - i; // thread dimension of grid dim i
        if (i < lead || d >= threads.size()) {
          members.push_back(li);
          continue;
        }
        std::string t = std::to_string(threads[d]);
        members.push_back("floor(" + li + "/" + t + ")");
        conds.push_back(li + " mod " + t + " = " + tids[d]);
      }
      // Thread dimensions beyond the array's rank copy nothing.
      for (unsigned d = array.rank; d < threads.size(); ++d)
        conds.push_back(tids[d] + " = 0");
      std::string schedule;
      for (const std::string &m : members)
        schedule += std::string(schedule.empty() ? "" : ", ") + "{ " + stmt +
                    " -> [(" + m + ")] }";
      isl::schedule_node g = isl::schedule_node::from_extension(extension);
      g = g.child(0).insert_partial_schedule(
          isl::multi_union_pw_aff(ctx, "[" + schedule + "]"));
      // The innermost member (rows along thread x) unrolled: a thread's
      // copies of a row are a load and a store at constant offsets each,
      // the loop overhead paid once per row. Unrolling every member makes
      // ptxas hoist all of a tile's loads at once and costs occupancy
      // (jacobi2d 3072^2: 117 and 127 -> 180 and 154 registers); the
      // innermost one alone takes 128 and 150 and models 4.6% faster than
      // no unrolling (heat2d 20%; docs/performance.md).
      if (options.unrollCopies && dims > 0) {
        unsigned x = dims - 1;
        int64_t perThread =
            x < lead || threads.empty()
                ? box(array).shape[x]
                : llvm::divideCeil(box(array).shape[x], threads[0]);
        if (perThread <= kMaxUnrolledCopies)
          g = g.as<isl::schedule_node_band>().member_set_ast_loop_unroll(x);
      }
      g = g.insert_filter(isl::union_set(
          ctx, "[" + tidList + "] -> { " + stmt + " : " +
                   llvm::join(conds, " and ") + " }"));
      return g.insert_mark("threads").root();
    };
    // The barriers' and copy-ins' extensions range over `tiles` without its
    // divisions, a superset: isl's AST generation instantiates an
    // extension only for the outer schedule values it generates, the
    // tiles. The exact set (a projection of the domain) gives the same
    // code, but isl then recomputes its divisions at every node it passes
    // (elastic 3D at order 2: 41 -> 16 s in --convert-to-gpu).
    isl::set tileHull =
        isl::manage(isl_set_coalesce(isl_set_remove_divs(tiles.copy())));
    auto barrierGraft = [&](const char *name) {
      isl_map *sync = isl_set_identity(tileHull.copy());
      sync = isl_map_set_tuple_name(sync, isl_dim_out, name);
      return isl::schedule_node::from_extension(
          isl::union_map(isl::manage(sync)));
    };

    // After the steps: copy-out, then a barrier before the next tile's
    // copy-in overwrites the buffers (grafts after the band go in reverse).
    band = band.graft_after(barrierGraft("barrier_out"));
    for (const ArrayInfo *array : llvm::reverse(promoted)) {
      auto fp = footprints[k].find(array->name);
      auto w = written.find(array->name);
      if (fp == footprints[k].end() || w == written.end() ||
          mode != PromotionMode::Copy)
        continue;
      // Exactly the elements the tile wrote, in box coordinates.
      isl_map *shift = isl_map_from_multi_aff(fp->second.offset.neg().release());
      isl::map local =
          isl::manage(isl_map_reset_tuple_id(
              isl_map_sum(w->second.copy(), shift), isl_dim_out))
              .detect_equalities()
              .coalesce();
      band = band.graft_after(copyGraft(
          extensionOf(local, copyOutName(k, array->name)),
          copyOutName(k, array->name), *array));
    }
    // Before the steps: copy-in of the boxes, then a barrier.
    for (const ArrayInfo *array : promoted) {
      auto fp = footprints[k].find(array->name);
      if (fp == footprints[k].end())
        continue;
      unsigned dims = array->lb.size();
      std::string l = names("l", dims);
      SmallVector<std::string> box, lbs, ubs;
      for (unsigned d = 0; d < dims; ++d) {
        box.push_back("0 <= l" + std::to_string(d) + " < " +
                      std::to_string(fp->second.shape[d]));
        lbs.push_back(std::to_string(array->lb[d]));
        ubs.push_back(std::to_string(array->ub[d] - 1));
      }
      // The box, clipped to the array: lb <= offset + l <= ub - 1.
      isl::map local = isl::map(ctx, "{ [" + p + "] -> [" + l + "] : " +
                                         llvm::join(box, " and ") + " }")
                           .intersect_domain(tileHull);
      isl::multi_aff offset = anonymousRange(fp->second.offset);
      isl::multi_aff lower(ctx, "{ [" + p + "] -> [" + llvm::join(lbs, ", ") +
                                    "] }");
      isl::multi_aff upper(ctx, "{ [" + p + "] -> [" + llvm::join(ubs, ", ") +
                                    "] }");
      local = local.lower_bound(isl::multi_pw_aff(lower.sub(offset)))
                  .upper_bound(isl::multi_pw_aff(upper.sub(offset)));
      // Inter-tile reuse: a tile that follows its predecessor along the
      // stream moves what both boxes hold (the same elements, clipped
      // alike) and loads only the rest. Each thread moves within the
      // elements it copies (the shift is a multiple of the threads along
      // every thread dimension), in increasing order, reading l + shift
      // before it is overwritten; its loads come after its moves.
      const SharedBuffer *buffer = bufferOf(k, array->name);
      if (buffer && !buffer->reuseShift.empty() && !following.is_empty()) {
        SmallVector<std::string> within;
        for (unsigned d = 0; d < dims; ++d)
          within.push_back(
              "0 <= l" + std::to_string(d) + " + " +
              std::to_string(buffer->reuseShift[d]) + " < " +
              std::to_string(fp->second.shape[d]));
        isl::map moved =
            local
                .intersect(isl::map(ctx, "{ [" + p + "] -> [" + l + "] : " +
                                             llvm::join(within, " and ") +
                                             " }"))
                .intersect_domain(following);
        if (!moved.is_empty()) {
          local = local.subtract(moved).coalesce();
          band = band.graft_before(
              copyGraft(extensionOf(moved, moveName(k, array->name)),
                        moveName(k, array->name), *array));
        }
      }
      band = band.graft_before(copyGraft(
          extensionOf(local, copyInName(k, array->name)),
          copyInName(k, array->name), *array));
    }
    band = band.graft_before(barrierGraft("barrier_in"));
    schedule = band.schedule();
  }
  return schedule;
}

int64_t mlir::stencil::poly::hybridTileFootprintBytes(ScopOp scop,
                                                     const ScopModel &model) {
  SmallVector<ArrayInfo> arrays = arraysOf(scop);
  int64_t most = 0;
  // Hybrid tiling's tree: band [T] -> sequence -> filter (phase) -> mark
  // "parallel" -> band [S...] -> band [t'] ...; a tile is (T, S...).
  isl::schedule_node phases = model.schedule.root().child(0).child(0);
  for (unsigned p = 0; p < unsigned(phases.n_children()); ++p) {
    isl::union_map tileOf;
    isl::schedule_node steps = phases.child(p).child(0).child(0).child(0);
    int64_t bytes = 0;
    for (const auto &fp : footprintsAt(steps, model, arrays, tileOf)) {
      if (!fp.second.valid)
        return -1;
      bytes += fp.second.bytes;
    }
    most = std::max(most, bytes);
  }
  return most;
}

int64_t mlir::stencil::poly::alignedTileOffset(ScopOp scop,
                                               const ScopModel &model,
                                               int64_t alignBytes,
                                               bool interTileReuse) {
  unsigned n = model.numSpaceDims;
  if (n < 2)
    return 0;
  SmallVector<ArrayInfo> arrays = arraysOf(scop);
  isl::schedule_node steps =
      model.schedule.root().child(0).child(0).child(0).child(0).child(0).child(
          0);
  isl::union_map tileOf;
  llvm::StringMap<Footprint> footprints =
      footprintsAt(steps, model, arrays, tileOf);
  for (const ArrayInfo &array : arrays) {
    auto it = footprints.find(array.name);
    if (array.rank != n || it == footprints.end() || !it->second.valid)
      continue;
    const Footprint &fp = it->second;
    unsigned x = fp.shape.size() - 1;
    if (alignBytes % array.elementBytes != 0)
      return 0;
    int64_t align = alignBytes / array.elementBytes;
    // offset_x = c + w S_last, whole multiples of the alignment apart
    // (the innermost tiles must be the last tile dimension, i.e. not the
    // hexagonal one, whose offsets move with the phase).
    isl::aff offset = fp.offset.at(x);
    unsigned numTileDims = unsigned(isl_aff_dim(offset.get(), isl_dim_in));
    if (isl_aff_dim(offset.get(), isl_dim_div) != 0 || numTileDims < 2)
      return 0;
    int64_t stride = 0;
    for (unsigned i = 0; i < numTileDims; ++i) {
      isl::val c = isl::manage(
          isl_aff_get_coefficient_val(offset.get(), isl_dim_in, int(i)));
      if (!c.is_int() || c.get_num_si() % align != 0)
        return 0;
      if (i + 1 == numTileDims)
        stride = c.get_num_si();
      else if (!c.is_zero())
        return 0;
    }
    if (stride <= 0)
      return 0;
    // The first element loaded, as a column of the array's rows.
    int64_t first = offset.constant_val().get_num_si() - array.lb.back();
    if (interTileReuse && stride < fp.shape[x])
      first += fp.shape[x] - stride;
    // Tile S then starts `offset` points lower.
    return ((first % align) + align) % align;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// The buffers on the scop
//===----------------------------------------------------------------------===//

void mlir::stencil::poly::writeSharedBuffers(ScopOp scop,
                                             ArrayRef<SharedBuffer> buffers,
                                             PromotionMode mode) {
  Builder b(scop.getContext());
  SmallVector<Attribute> entries;
  for (const SharedBuffer &buffer : buffers) {
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("array", FlatSymbolRefAttr::get(scop.getContext(),
                                                       buffer.array)),
        b.getNamedAttr("kernel", b.getI64IntegerAttr(buffer.kernel)),
        b.getNamedAttr("offset", b.getStringAttr(toString(buffer.offset))),
        b.getNamedAttr("shape", b.getDenseI64ArrayAttr(buffer.shape))};
    if (!buffer.reuseShift.empty())
      fields.push_back(
          b.getNamedAttr("reuse", b.getDenseI64ArrayAttr(buffer.reuseShift)));
    entries.push_back(b.getDictionaryAttr(fields));
  }
  scop->setAttr("gpu_shared", b.getArrayAttr(entries));
  if (mode == PromotionMode::Interleaved)
    scop->setAttr("gpu_write_through", b.getUnitAttr());
}

LogicalResult mlir::stencil::poly::readSharedBuffers(
    isl::ctx ctx, ScopOp scop, SmallVectorImpl<SharedBuffer> &buffers,
    std::string &error) {
  auto entries = scop->getAttrOfType<ArrayAttr>("gpu_shared");
  if (!entries)
    return success();
  for (Attribute entry : entries) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto array = dict ? dict.getAs<FlatSymbolRefAttr>("array") : nullptr;
    auto kernel = dict ? dict.getAs<IntegerAttr>("kernel") : nullptr;
    auto offset = dict ? dict.getAs<StringAttr>("offset") : nullptr;
    auto shape = dict ? dict.getAs<DenseI64ArrayAttr>("shape") : nullptr;
    if (!array || !kernel || !offset || !shape) {
      error = "gpu_shared entries need array, kernel, offset and shape";
      return failure();
    }
    SharedBuffer &buffer = buffers.emplace_back();
    buffer.array = array.getValue().str();
    buffer.kernel = kernel.getInt();
    buffer.shape.assign(shape.asArrayRef().begin(), shape.asArrayRef().end());
    std::optional<isl::multi_aff> parsed =
        parseIsl<isl::multi_aff>(ctx, offset.getValue(), error);
    if (!parsed)
      return failure();
    buffer.offset = *parsed;
    if (Attribute reuse = dict.get("reuse")) {
      auto shift = dyn_cast<DenseI64ArrayAttr>(reuse);
      if (!shift || shift.size() != shape.size()) {
        error = "gpu_shared reuse of @" + buffer.array +
                " must be an array<i64> with one shift per dimension";
        return failure();
      }
      buffer.reuseShift.assign(shift.asArrayRef().begin(),
                               shift.asArrayRef().end());
    }
    if (buffer.offset.range_tuple_id().name() != buffer.array ||
        unsigned(buffer.offset.size()) != buffer.shape.size()) {
      error = "gpu_shared offset of @" + buffer.array +
              " must map into the array with one value per dimension";
      return failure();
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Accesses to the buffers
//===----------------------------------------------------------------------===//

SharedAccessMap::SharedAccessMap(isl::schedule schedule,
                                 ArrayRef<SharedBuffer> buffers)
    : buffers(buffers) {
  for (isl::schedule_node mark : marksNamed(schedule, kSharedMark))
    tileOf.push_back(mark.prefix_schedule_union_pw_multi_aff().intersect_domain(
        isl::manage(isl_schedule_node_get_domain(mark.get()))));
}

bool SharedAccessMap::promotes(StringRef statement, StringRef array) const {
  for (const SharedBuffer &buffer : buffers) {
    if (buffer.array != array || buffer.kernel >= tileOf.size())
      continue;
    isl::pw_multi_aff_list list = tileOf[buffer.kernel].pw_multi_aff_list();
    for (unsigned i = 0; i < list.size(); ++i)
      if (statement ==
          isl_pw_multi_aff_get_tuple_name(list.at(i).get(), isl_dim_in))
        return true;
  }
  return false;
}

isl::pw_multi_aff SharedAccessMap::rewrite(isl::pw_multi_aff access) const {
  const char *rangeName = isl_pw_multi_aff_get_tuple_name(access.get(), isl_dim_out);
  std::string array = rangeName ? rangeName : "";
  std::string statement = isl_pw_multi_aff_get_tuple_name(access.get(), isl_dim_in);
  isl::pw_multi_aff result;
  for (const SharedBuffer &buffer : buffers) {
    if (buffer.array != array || buffer.kernel >= tileOf.size())
      continue;
    isl::pw_multi_aff_list list = tileOf[buffer.kernel].pw_multi_aff_list();
    for (unsigned i = 0; i < list.size(); ++i) {
      isl::pw_multi_aff tile = list.at(i);
      if (statement != isl_pw_multi_aff_get_tuple_name(tile.get(), isl_dim_in))
        continue;
      isl::pw_multi_aff local =
          access.sub(isl::pw_multi_aff(buffer.offset).pullback(tile));
      isl_pw_aff *kernel = isl_pw_aff_val_on_domain(
          local.domain().release(), isl_val_int_from_si(
                                        access.ctx().get(), buffer.kernel));
      isl::pw_multi_aff piece = isl::manage(isl_pw_multi_aff_flat_range_product(
          isl_pw_multi_aff_from_pw_aff(kernel), local.release()));
      piece = isl::manage(isl_pw_multi_aff_set_tuple_id(
          piece.release(), isl_dim_out,
          isl_id_alloc(access.ctx().get(), sharedArrayName(array).c_str(),
                       nullptr)));
      result = result.is_null() ? piece : result.union_add(piece);
    }
  }
  return result;
}

isl::pw_multi_aff
mlir::stencil::poly::copyGlobalAccess(const SharedBuffer &buffer,
                                      StringRef statement) {
  unsigned dims = buffer.shape.size();
  unsigned numTileDims = unsigned(isl_multi_aff_dim(buffer.offset.get(), isl_dim_in));
  std::string p = names("p", numTileDims), l = names("l", dims);
  std::string stmt = statement.str() + "[" + p + ", " + l + "]";
  isl::ctx ctx = buffer.offset.ctx();
  isl::multi_aff tile(ctx, "{ " + stmt + " -> [" + p + "] }");
  isl::multi_aff within(ctx, "{ " + stmt + " -> " + buffer.array + "[" + l +
                                 "] }");
  return isl::pw_multi_aff(buffer.offset.pullback(tile).add(within));
}

isl::pw_multi_aff
mlir::stencil::poly::copySharedAccess(const SharedBuffer &buffer,
                                      StringRef statement) {
  unsigned dims = buffer.shape.size();
  unsigned numTileDims = unsigned(isl_multi_aff_dim(buffer.offset.get(), isl_dim_in));
  std::string p = names("p", numTileDims), l = names("l", dims);
  return isl::pw_multi_aff(isl::multi_aff(
      buffer.offset.ctx(), "{ " + statement.str() + "[" + p + ", " + l +
                               "] -> " + sharedArrayName(buffer.array) + "[" +
                               std::to_string(buffer.kernel) + ", " + l + "] }"));
}

isl::pw_multi_aff
mlir::stencil::poly::moveSourceAccess(const SharedBuffer &buffer,
                                      StringRef statement) {
  unsigned dims = buffer.shape.size();
  unsigned numTileDims = unsigned(isl_multi_aff_dim(buffer.offset.get(), isl_dim_in));
  std::string p = names("p", numTileDims);
  SmallVector<std::string> shifted;
  for (unsigned d = 0; d < dims; ++d)
    shifted.push_back("l" + std::to_string(d) + " + " +
                      std::to_string(buffer.reuseShift[d]));
  return isl::pw_multi_aff(isl::multi_aff(
      buffer.offset.ctx(),
      "{ " + statement.str() + "[" + p + ", " + names("l", dims) + "] -> " +
          sharedArrayName(buffer.array) + "[" + std::to_string(buffer.kernel) +
          ", " + llvm::join(shifted, ", ") + "] }"));
}
