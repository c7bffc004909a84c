//===- ScopToLoops.cpp - code generation for poly.scop --------------------===//
//
// The loops come from isl's AST of the scop's schedule (AstToLoops); each
// statement instance loads its reads from the arrays' memrefs at the
// subscripts isl built, runs the statement body and stores the value it
// yields. An array of rotating buffers picks its memref from the buffer
// subscript (a function of the time step only, so LLVM hoists the choice
// out of the point loops).
//
//===----------------------------------------------------------------------===//

#include "Stencil/Poly/ScopToLoops.h"
#include "Stencil/Poly/AstToLoops.h"
#include "Stencil/Poly/HybridTiling.h"
#include "Stencil/Poly/IslContext.h"
#include "Stencil/Poly/ScopModel.h"
#include "Stencil/Poly/SharedPromotion.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <map>

using namespace mlir;
using namespace mlir::stencil::poly;

namespace {

struct ArrayStorage {
  SmallVector<Value> memrefs;
  SmallVector<int64_t> lb;
  /// Shared buffers (promoted arrays): the first subscript is the kernel,
  /// the buffer is the launch's workgroup attribution of `shapes[kernel]`.
  bool shared = false;
  Type elementType;
  llvm::DenseMap<int64_t, SmallVector<int64_t>> shapes;
  llvm::DenseMap<std::pair<Operation *, int64_t>, Value> attributions;
  /// Tile-local buffers (fusion): `shape` elements, one buffer per
  /// iteration of the tile loop, allocated on first use.
  bool tileLocal = false;
  SmallVector<int64_t> shape;
  llvm::DenseMap<Block *, Value> tileBuffers;
};

/// The suffix of the storage of a tile-local buffer in access lists.
constexpr const char *kTileSuffix = "_tile";

/// `access` (of a tiled instance S_fused[t, T..., s...]) into the tile-local
/// buffer whose element 0 is `offset(t, T...)`.
isl::pw_multi_aff tileLocalAccess(isl::pw_multi_aff access,
                                  const LocalBuffer &buffer,
                                  const isl::multi_aff &toTile) {
  isl::multi_aff offset = buffer.offset.pullback(toTile);
  isl_pw_multi_aff *pma = isl_pw_multi_aff_align_params(
      access.release(), isl_multi_aff_get_space(offset.get()));
  isl_multi_aff *ma = isl_multi_aff_align_params(
      offset.release(), isl_pw_multi_aff_get_space(pma));
  return isl::manage(
      isl_pw_multi_aff_sub(pma, isl_pw_multi_aff_from_multi_aff(ma)));
}
/// "prefix0, ..., prefix{n-1}"
std::string indexNames(StringRef prefix, unsigned n) {
  std::string list;
  for (unsigned i = 0; i < n; ++i)
    list += (i ? ", " : "") + prefix.str() + std::to_string(i);
  return list;
}

unsigned outputDims(const isl::pw_multi_aff &pma) {
  return unsigned(isl_pw_multi_aff_dim(pma.get(), isl_dim_out));
}

/// memrefs[index] for an index value in [0, memrefs.size()).
Value selectBuffer(OpBuilder &b, Location loc, ArrayRef<Value> memrefs,
                   Value index) {
  Value chosen = memrefs.front();
  for (unsigned i = 1; i < memrefs.size(); ++i) {
    Value is = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, index,
        arith::ConstantIndexOp::create(b, loc, i));
    chosen = arith::SelectOp::create(b, loc, is, memrefs[i], chosen);
  }
  return chosen;
}

/// The statements of `domain` ordered by their place in a step (`place`:
/// t' mod K of the canonical schedule), as filters; nothing when a
/// statement has no single place or two share one.
std::optional<isl::union_set_list>
statementsInStepOrder(isl::union_set domain, isl::union_pw_aff place) {
  isl::union_map placeOf =
      isl::manage(isl_union_map_from_union_pw_aff(place.release()));
  std::map<int64_t, isl::set> byPlace;
  isl::set_list sets = domain.get_set_list();
  for (int i = 0, e = sets.size(); i < e; ++i) {
    isl::set set = sets.at(i);
    isl::union_set image = isl::union_set(set).apply(placeOf);
    if (isl_union_set_n_set(image.get()) != 1)
      return std::nullopt;
    isl::set places = isl::manage(isl_set_from_union_set(image.release()));
    if (!places.is_singleton())
      return std::nullopt;
    if (!byPlace.emplace(places.dim_max_val(0).get_num_si(), set).second)
      return std::nullopt;
  }
  isl::union_set_list list(domain.ctx(), byPlace.size());
  for (auto &[k, set] : byPlace)
    list = list.add(isl::union_set(set));
  return list;
}

/// A time-tiled tree (isTimeTiled) whose tiles run the K > 1 statements of
/// a step in one atomic loop over the folded time t' (hybrid and split
/// tiles alike: band t' -> band s'...), rewritten as
///
///   band [floor(t'/K)] (atomic) -> sequence(S_0, ..., S_{K-1}) -> s'...
///
/// with the statements in the order of t' mod K. Within a tile t' is the
/// local time plus the tile's origin, so both run the instances in the same
/// order; but isl generates each statement's point loops on its own instead
/// of separating the pieces of all K statements' domains inside one band,
/// which is most of the loop generation of programs with many statements
/// per step (Devito's elastic forms). Unrolled steps (the GPU's) and trees
/// of other shapes are returned unchanged.
isl::schedule statementsInOwnLoops(isl::schedule schedule,
                                   const ScopModel &model) {
  unsigned n = model.numSpaceDims, K = model.statementsPerStep;
  if (K < 2 || !isTimeTiled(schedule, n))
    return schedule;
  std::string error;
  std::optional<isl::union_pw_multi_aff> canonical =
      affineCanonical(model.canonical, n, error);
  if (!canonical)
    return schedule;
  // t' of the canonical schedule, its place in a step and the step.
  isl::union_pw_aff folded =
      isl::manage(
          isl_multi_union_pw_aff_from_union_pw_multi_aff(canonical->release()))
          .get_at(0);
  isl::val k(schedule.ctx(), K);
  std::optional<isl::union_set_list> order = statementsInStepOrder(
      model.domain,
      isl::manage(isl_union_pw_aff_mod_val(folded.copy(), k.copy())));
  if (!order)
    return schedule;
  isl::multi_union_pw_aff step(isl::manage(isl_union_pw_aff_floor(
      isl_union_pw_aff_scale_down_val(folded.release(), k.release()))));
  isl::schedule_node sequence = schedule.root().child(0).child(0);
  for (int c = 0, e = sequence.n_children(); c < e; ++c) {
    isl::schedule_node_band time = sequence.child(c)
                                       .child(0) // mark
                                       .child(0) // tiles
                                       .child(0) // t'
                                       .as<isl::schedule_node_band>();
    if (isl_schedule_node_band_member_get_ast_loop_type(time.get(), 0) !=
        isl_ast_loop_atomic)
      return schedule;
    isl::schedule_node_band points =
        time.child(0).as<isl::schedule_node_band>();
    isl::multi_union_pw_aff pointSchedule = points.get_partial_schedule();
    isl::schedule_node node = isl::manage(isl_schedule_node_delete(
        isl::manage(isl_schedule_node_delete(points.release()))
            .parent()
            .release()));
    node = node.insert_partial_schedule(step)
               .as<isl::schedule_node_band>()
               .member_set_ast_loop_atomic(0)
               .child(0)
               .insert_sequence(*order);
    for (int k = 0, m = order->size(); k < m; ++k) {
      isl::schedule_node_band band = node.child(k)
                                         .child(0)
                                         .insert_partial_schedule(pointSchedule)
                                         .as<isl::schedule_node_band>();
      for (unsigned i = 0; i < n; ++i)
        band = band.member_set_coincident(i, 1);
      node = band.parent().parent();
    }
    // Back up to the sequence of phases (colors).
    sequence = node.parent().parent().parent().parent().parent();
  }
  return sequence.schedule();
}

} // namespace

LogicalResult mlir::stencil::poly::lowerScop(ScopOp scop,
                                             function_ref<Value(Value)> memrefOf,
                                             SmallVectorImpl<Value> &results) {
  IslContext ctx;
  std::string error;
  std::optional<ScopModel> model = readScop(ctx, scop, error);
  if (!model)
    return scop.emitOpError("cannot read the polyhedral form: ") << error;
  OpBuilder b(scop);
  Location loc = scop.getLoc();

  // Fused scops: intermediates in tile-local buffers.
  SmallVector<LocalBuffer> localBuffers;
  if (failed(readFusedLocalBuffers(ctx, scop, localBuffers, error)))
    return scop.emitOpError("invalid ") << kFusedLocalAttr << ": " << error;
  bool fused = scop->hasAttr(kFusedLocalAttr);
  unsigned n = model->numSpaceDims;
  llvm::StringMap<const LocalBuffer *> localOf;
  for (const LocalBuffer &buffer : localBuffers)
    localOf[buffer.array] = &buffer;

  llvm::StringMap<ArrayStorage> arrays;
  for (ArrayOp array : scop.getArrays()) {
    if (const LocalBuffer *local = localOf.lookup(array.getSymName())) {
      ArrayStorage &s = arrays[array.getSymName().str() + kTileSuffix];
      s.tileLocal = true;
      s.shape = local->shape;
      s.elementType = array.getElementType();
      s.lb.assign(local->shape.size(), 0);
      continue;
    }
    ArrayStorage &s = arrays[array.getSymName()];
    s.lb.assign(array.getLb().begin(), array.getLb().end());
    if (!array.isTemp()) {
      for (Value buffer : array.getBuffers()) {
        Value memref = memrefOf(buffer);
        if (!memref)
          return scop.emitOpError("cannot lower: a buffer of ")
                 << array.getSymName()
                 << " is not a function argument or stencil.cast result";
        s.memrefs.push_back(memref);
      }
      continue;
    }
    SmallVector<int64_t> shape;
    for (auto [l, u] : llvm::zip(array.getLb(), array.getUb()))
      shape.push_back(u - l);
    Value buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(shape, array.getElementType()),
        b.getI64IntegerAttr(64));
    s.memrefs.push_back(buffer);
    OpBuilder after(scop->getBlock(), std::next(Block::iterator(scop)));
    memref::DeallocOp::create(after, loc, buffer);
  }

  // Promoted arrays: their accesses go to the launch's shared buffers.
  SmallVector<SharedBuffer> sharedBuffers;
  if (failed(readSharedBuffers(ctx, scop, sharedBuffers, error)))
    return scop.emitOpError("invalid gpu_shared: ") << error;
  bool writeThrough = scop->hasAttr("gpu_write_through");
  std::optional<SharedAccessMap> sharedAccesses;
  if (!sharedBuffers.empty())
    sharedAccesses.emplace(model->schedule, sharedBuffers);
  for (const SharedBuffer &buffer : sharedBuffers)
    if (buffer.kernel >= sharedAccesses->numKernels())
      return scop.emitOpError("gpu_shared names kernel ")
             << buffer.kernel << " but the schedule has "
             << sharedAccesses->numKernels() << " '" << kSharedMark
             << "' mark(s)";
  // The copy statements of promotion, by name: their buffer and direction.
  enum class CopyKind { In, Out, Move };
  llvm::StringMap<std::pair<unsigned, CopyKind>> copies;
  for (auto [i, buffer] : llvm::enumerate(sharedBuffers)) {
    ArrayStorage &s = arrays[sharedArrayName(buffer.array)];
    s.shared = true;
    s.lb.assign(buffer.shape.size(), 0);
    for (ArrayOp array : scop.getArrays())
      if (array.getSymName() == buffer.array)
        s.elementType = array.getElementType();
    s.shapes[buffer.kernel] = buffer.shape;
    copies[copyInName(buffer.kernel, buffer.array)] = {unsigned(i),
                                                       CopyKind::In};
    copies[copyOutName(buffer.kernel, buffer.array)] = {unsigned(i),
                                                        CopyKind::Out};
    if (!buffer.reuseShift.empty())
      copies[moveName(buffer.kernel, buffer.array)] = {unsigned(i),
                                                       CopyKind::Move};
  }

  // Accesses: the write first, then the reads in block-argument order. isl
  // builds the subscripts of one access per group of accesses that differ
  // by a constant vector (the neighbours of a stencil point); the others are
  // that access plus their offset. This keeps isl's simplification (of the
  // buffer subscript too) and saves most of its work on wide stencils.
  // Groups are found on the global accesses (one affine piece each): a
  // promoted access is its global one minus the tile's buffer offset, so two
  // of them differ by what their global accesses differ by, and only the
  // first access of a group is rewritten to the buffer (a piecewise map).
  struct AccessRef {
    unsigned built;                // index into StatementAccesses::accesses
    SmallVector<int64_t> offset;   // added to its subscripts
  };
  SmallVector<StatementAccesses> accesses;
  llvm::StringMap<StmtOp> stmts;
  llvm::StringMap<SmallVector<std::string>> arrayOf;
  llvm::StringMap<SmallVector<AccessRef>> refsOf;
  try {
    for (StmtOp stmt : scop.getStatements()) {
      StatementAccesses &a = accesses.emplace_back();
      // A fused tree runs the tiled instances S_fused[t, T..., s...].
      std::optional<isl::multi_aff> toInstance, toTile;
      a.name = stmt.getSymName().str();
      if (fused) {
        std::string tiled = "[t, " + indexNames("T", n) + ", " +
                            indexNames("s", n) + "]";
        std::string fusedName = fusedInstanceName(a.name);
        toInstance = isl::multi_aff(ctx, "{ " + fusedName + tiled + " -> " +
                                             a.name + "[t, " +
                                             indexNames("s", n) + "] }");
        toTile = isl::multi_aff(ctx, "{ " + fusedName + tiled + " -> [t, " +
                                         indexNames("T", n) + "] }");
        a.name = fusedName;
      }
      stmts[a.name] = stmt;
      SmallVector<StringRef> texts{stmt.getWrites()};
      for (Attribute read : stmt.getReads())
        texts.push_back(cast<StringAttr>(read).getValue());
      SmallVector<std::string> builtArray;
      SmallVector<isl::pw_multi_aff> builtGlobal;
      // Write-through (promote=interleaved): the write goes to the shared
      // buffer and, as the last access, to the array.
      bool globalWriteToo = false;
      if (writeThrough && sharedAccesses) {
        isl::map write(ctx, texts.front().str());
        globalWriteToo =
            sharedAccesses->promotes(a.name, write.range_tuple_id().name());
        if (globalWriteToo)
          texts.push_back(texts.front());
      }
      for (auto [t, text] : llvm::enumerate(texts)) {
        isl::map map(ctx, text.str());
        std::string array = map.range_tuple_id().name();
        isl::pw_multi_aff access = map.as_pw_multi_aff();
        if (toInstance)
          access = access.pullback(*toInstance);
        bool global = globalWriteToo && t + 1 == texts.size();
        bool promoted = sharedAccesses && !global &&
                        sharedAccesses->promotes(a.name, array);
        const LocalBuffer *local = localOf.lookup(array);
        if (promoted)
          array = sharedArrayName(array);
        else if (local)
          array += kTileSuffix;
        arrayOf[a.name].push_back(array);
        std::optional<AccessRef> ref;
        for (unsigned b = 0; b < builtGlobal.size() && !ref; ++b) {
          if (builtArray[b] != array)
            continue;
          isl::pw_multi_aff diff = access.sub(builtGlobal[b]);
          // The buffer's first subscript is the kernel, the same for both.
          AccessRef candidate{b, {}};
          if (promoted)
            candidate.offset.push_back(0);
          unsigned dims = outputDims(diff);
          for (unsigned d = 0; d < dims; ++d) {
            // One constant on the whole domain: isl_pw_aff_is_cst only says
            // that each piece is constant, and the pieces may differ (the
            // time level of a rotating buffer: +1 in one step, -2 in the
            // next).
            isl::pw_aff delta = diff.at(d);
            if (isl_pw_aff_is_cst(delta.get()) != isl_bool_true)
              break;
            isl::val lo = delta.min_val(), hi = delta.max_val();
            if (!lo.is_int() || !lo.eq(hi))
              break;
            candidate.offset.push_back(lo.get_num_si());
          }
          if (candidate.offset.size() == dims + (promoted ? 1 : 0))
            ref = candidate;
        }
        if (!ref) {
          builtGlobal.push_back(access);
          if (promoted)
            access = sharedAccesses->rewrite(access);
          else if (local)
            access = tileLocalAccess(access, *local, *toTile);
          ref = AccessRef{unsigned(a.accesses.size()),
                          SmallVector<int64_t>(outputDims(access), 0)};
          a.accesses.push_back(access);
          builtArray.push_back(array);
        }
        refsOf[a.name].push_back(*ref);
      }
    }
    for (const auto &copy : copies) {
      const SharedBuffer &buffer = sharedBuffers[copy.second.first];
      StatementAccesses &a = accesses.emplace_back();
      a.name = copy.first().str();
      // Access 0 is the source of a move, else the array; 1 the buffer.
      bool move = copy.second.second == CopyKind::Move;
      a.accesses = {move ? moveSourceAccess(buffer, a.name)
                         : copyGlobalAccess(buffer, a.name),
                    copySharedAccess(buffer, a.name)};
      arrayOf[a.name] = {move ? sharedArrayName(buffer.array) : buffer.array,
                         sharedArrayName(buffer.array)};
      for (unsigned i = 0; i < 2; ++i)
        refsOf[a.name].push_back(
            {i, SmallVector<int64_t>(buffer.shape.size() + (i || move ? 1 : 0),
                                     0)});
    }
  } catch (const isl::exception &e) {
    return scop.emitOpError("invalid access: ") << e.what();
  }

  llvm::StringMap<Value> params;
  if (scop.getSteps())
    params["N"] = scop.getSteps();

  // A tile-local buffer per iteration of the tile loop (the innermost
  // enclosing scf.parallel: OpenMP threads each get their own), or one
  // before the loops when isl generated no parallel loop (a single tile).
  SmallVector<std::pair<Value, Block *>> tileAllocs;
  Operation *scopOp = scop;
  auto tileBuffer = [&](ArrayStorage &s, OpBuilder &eb, Location l) -> Value {
    Block *block = eb.getInsertionBlock();
    // In a kernel: the block's shared memory.
    auto launch = dyn_cast<gpu::LaunchOp>(block->getParentOp());
    if (!launch)
      launch = block->getParentOp()->getParentOfType<gpu::LaunchOp>();
    if (launch) {
      Value &buffer = s.tileBuffers[&launch.getBody().front()];
      if (!buffer)
        buffer = launch.addWorkgroupAttribution(
            MemRefType::get(s.shape, s.elementType,
                            MemRefLayoutAttrInterface(),
                            gpu::AddressSpaceAttr::get(
                                eb.getContext(),
                                gpu::GPUDialect::getWorkgroupAddressSpace())),
            l);
      return buffer;
    }
    Operation *outermost = nullptr;
    for (Operation *op = block->getParentOp(); op; op = op->getParentOp()) {
      if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
        block = parallel.getBody();
        outermost = nullptr;
        break;
      }
      if (op->getBlock() == scopOp->getBlock()) {
        outermost = op;
        break;
      }
    }
    Block *key = outermost ? scopOp->getBlock() : block;
    Value &buffer = s.tileBuffers[key];
    if (buffer)
      return buffer;
    OpBuilder ab(eb.getContext());
    if (outermost)
      ab.setInsertionPoint(outermost);
    else if (key == eb.getInsertionBlock() && key == scopOp->getBlock())
      ab.setInsertionPoint(eb.getInsertionBlock(), eb.getInsertionPoint());
    else
      ab.setInsertionPointToStart(key);
    buffer = memref::AllocOp::create(ab, l,
                                     MemRefType::get(s.shape, s.elementType),
                                     ab.getI64IntegerAttr(64));
    tileAllocs.push_back({buffer, key == scopOp->getBlock() ? nullptr : key});
    return buffer;
  };

  auto emit = [&](OpBuilder &eb, Location l, StringRef name,
                  ValueRange iterators,
                  ArrayRef<SmallVector<Value>> subscripts) -> LogicalResult {
    // The memref and indices of access i.
    auto locate = [&](unsigned i, Value &memref,
                      SmallVector<Value> &idx) -> LogicalResult {
      ArrayStorage &s = arrays[arrayOf[name][i]];
      const AccessRef &ref = refsOf[name][i];
      SmallVector<Value> shifted;
      for (auto [v, off] : llvm::zip(subscripts[ref.built], ref.offset))
        shifted.push_back(off == 0 ? v
                                   : arith::AddIOp::create(
                                         eb, l, v,
                                         arith::ConstantIndexOp::create(eb, l, off))
                                         .getResult());
      ArrayRef<Value> sub = shifted;
      if (s.tileLocal) {
        memref = tileBuffer(s, eb, l);
        idx.assign(sub.begin(), sub.end());
        return success();
      }
      if (s.shared) {
        std::optional<int64_t> kernel = getConstantIntValue(sub.front());
        Operation *parent = eb.getInsertionBlock()->getParentOp();
        auto launch = dyn_cast<gpu::LaunchOp>(parent);
        if (!launch)
          launch = parent->getParentOfType<gpu::LaunchOp>();
        if (!kernel || !launch || !s.shapes.count(*kernel))
          return failure();
        Value &buffer = s.attributions[{launch, *kernel}];
        if (!buffer) {
          auto space = gpu::AddressSpaceAttr::get(
              eb.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
          buffer = launch.addWorkgroupAttribution(
              MemRefType::get(s.shapes[*kernel], s.elementType,
                              MemRefLayoutAttrInterface(), space),
              l);
        }
        memref = buffer;
        idx.assign(sub.begin() + 1, sub.end());
        return success();
      }
      if (s.memrefs.size() > 1) {
        memref = selectBuffer(eb, l, s.memrefs, sub.front());
        sub = sub.drop_front();
      } else {
        memref = s.memrefs.front();
      }
      for (auto [v, lb] : llvm::zip(sub, s.lb))
        idx.push_back(lb == 0 ? v
                              : arith::SubIOp::create(
                                    eb, l, v,
                                    arith::ConstantIndexOp::create(eb, l, lb))
                                    .getResult());
      return success();
    };
    Value memref;
    SmallVector<Value> idx;
    auto copy = copies.find(name);
    if (copy != copies.end()) {
      // From the array (or, for a move, the buffer) into the buffer, or
      // back to the array.
      unsigned from = copy->second.second == CopyKind::Out ? 1 : 0;
      if (failed(locate(from, memref, idx)))
        return failure();
      Value value = memref::LoadOp::create(eb, l, memref, idx);
      idx.clear();
      if (failed(locate(1 - from, memref, idx)))
        return failure();
      memref::StoreOp::create(eb, l, value, memref, idx);
      return success();
    }
    StmtOp stmt = stmts.lookup(name);
    if (!stmt)
      return failure();
    Block &body = stmt.getBody().front();
    IRMapping mapping;
    unsigned numReads = stmt.getReads().size();
    for (unsigned r = 0; r < numReads; ++r) {
      idx.clear();
      if (failed(locate(r + 1, memref, idx)))
        return failure();
      mapping.map(body.getArgument(r),
                  memref::LoadOp::create(eb, l, memref, idx));
    }
    // The space coordinates follow t (and, in a fused tree, the tile).
    unsigned first = fused ? 1 + n : 1;
    for (unsigned d = 0; d + numReads < body.getNumArguments(); ++d)
      mapping.map(body.getArgument(numReads + d), iterators[first + d]);
    for (Operation &op : body.without_terminator())
      eb.clone(op, mapping);
    Value value = mapping.lookupOrDefault(
        cast<YieldOp>(body.getTerminator()).getValue());
    // The write; a write-through copy goes to the array as well.
    for (unsigned i : {0u, numReads + 1})
      if (i < arrayOf[name].size()) {
        idx.clear();
        if (failed(locate(i, memref, idx)))
          return failure();
        auto store = memref::StoreOp::create(eb, l, value, memref, idx);
        // The profiler of the emulation counts these as the updates.
        if (i == 0)
          store->setAttr("stencil.update", eb.getUnitAttr());
      }
    return success();
  };

  std::optional<GpuLaunchConfig> gpu;
  if (std::optional<ArrayRef<int64_t>> threads = scop.getGpuThreads()) {
    gpu.emplace();
    gpu->threads.assign(threads->begin(), threads->end());
    if (std::optional<uint64_t> maxBlocks = scop.getGpuMaxBlocks())
      gpu->maxBlocks = *maxBlocks;
  }
  isl::schedule schedule =
      gpu ? model->schedule : statementsInOwnLoops(model->schedule, *model);
  if (failed(generateLoops(b, loc, schedule, accesses, params, emit, error,
                           gpu ? &*gpu : nullptr)))
    return scop.emitOpError("code generation failed: ") << error;
  for (auto [buffer, block] : tileAllocs) {
    OpBuilder db(scop->getContext());
    if (block)
      db.setInsertionPoint(block->getTerminator());
    else
      db.setInsertionPoint(scop->getBlock(), std::next(Block::iterator(scop)));
    memref::DeallocOp::create(db, loc, buffer);
  }

  // Result j is buffer (offset_j + N) mod k of its array.
  for (auto [ref, offset] :
       llvm::zip(scop.getResultArrays(), scop.getResultOffsets())) {
    const ArrayStorage &s =
        arrays[cast<FlatSymbolRefAttr>(ref).getValue()];
    if (s.memrefs.size() == 1) {
      results.push_back(s.memrefs.front());
      continue;
    }
    Value k = arith::ConstantIndexOp::create(b, loc, s.memrefs.size());
    Value shifted = arith::AddIOp::create(
        b, loc, scop.getSteps(), arith::ConstantIndexOp::create(b, loc, offset));
    Value index = arith::RemSIOp::create(b, loc, shifted, k);
    results.push_back(selectBuffer(b, loc, s.memrefs, index));
  }
  return success();
}
