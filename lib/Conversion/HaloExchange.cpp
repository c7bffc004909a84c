//===- HaloExchange.cpp - dmp.swap to MPI runtime calls --------------------===//
//
// Upstream's `mpi` dialect lowers blocking sends and receives only (LLVM 22
// has no lowering for mpi.isend/irecv/wait), cannot wrap a communicator
// handed in by the caller, and has no MPI_PROC_NULL. A halo exchange needs
// all three, so a swap becomes calls to the project's small MPI runtime:
// stencil_mpi_grid_rank, stencil_mpi_irecv/isend (bytes, peer rank or -1 for
// none, tag) and stencil_mpi_waitall.
//
//===----------------------------------------------------------------------===//

#include "HaloExchange.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace {

/// Declares `@name(types) -> results` in the module unless it exists.
void declare(ModuleOp module, StringRef name, TypeRange args,
             TypeRange results) {
  if (SymbolTable::lookupSymbolIn(module, name))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto decl = func::FuncOp::create(b, module.getLoc(), name,
                                   b.getFunctionType(args, results));
  decl.setPrivate();
}

/// Number of a grid direction (entries -1, 0, 1): the same on both ranks of
/// an exchange when taken of the sender's direction.
int64_t directionTag(ArrayRef<int64_t> dir) {
  int64_t tag = 0;
  for (int64_t d : dir)
    tag = tag * 3 + d + 1;
  return tag;
}

/// Copies the box `size` at `srcAt` of `src` to `dstAt` of `dst` with a
/// parallel loop (a memref.copy of a strided view would need MLIR's C runner
/// library; on the GPU path the loop becomes a kernel, so the fields stay on
/// the device and only the packed buffers are exchanged).
void copyBox(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> srcAt,
             Value dst, ArrayRef<int64_t> dstAt, ArrayRef<int64_t> size) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t s : size) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, s));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  scf::ParallelOp::create(
      b, loc, lbs, ubs, steps,
      [&](OpBuilder &nb, Location l, ValueRange ivs) {
        auto shifted = [&](ArrayRef<int64_t> at) {
          SmallVector<Value> idx;
          for (auto [iv, a] : llvm::zip(ivs, at))
            idx.push_back(a ? Value(arith::AddIOp::create(
                                  nb, l, iv,
                                  arith::ConstantIndexOp::create(nb, l, a)))
                            : iv);
          return idx;
        };
        Value v = memref::LoadOp::create(nb, l, src, shifted(srcAt));
        memref::StoreOp::create(nb, l, v, dst, shifted(dstAt));
      });
}

} // namespace

LogicalResult mlir::stencil::checkExchangesPaired(dmp::SwapOp swap) {
  // The neighbour runs the same swap: what this rank receives from `to`, it
  // sends with the exchange towards `-to`, which must exist and move as
  // much, or one of the two would wait for a message never sent.
  for (auto [i, attr] : llvm::enumerate(swap.getSwaps())) {
    auto exchange = cast<dmp::ExchangeAttr>(attr);
    if (llvm::all_of(exchange.getNeighbor(), [](int64_t n) { return n == 0; }))
      continue;
    bool paired = llvm::any_of(swap.getSwaps(), [&](Attribute other) {
      auto o = cast<dmp::ExchangeAttr>(other);
      return o.getSize() == exchange.getSize() &&
             llvm::all_of(llvm::zip(o.getNeighbor(), exchange.getNeighbor()),
                          [](auto p) {
                            return std::get<0>(p) == -std::get<1>(p);
                          });
    });
    if (!paired)
      return swap.emitOpError("exchange ")
             << i << " has no opposite exchange of the same size: the "
             << "neighbour it exchanges with would wait for a message "
             << "that is never sent";
  }
  return success();
}

mlir::stencil::PostedExchanges mlir::stencil::postHaloExchanges(
    ArrayRef<std::pair<dmp::SwapOp, Value>> swaps) {
  dmp::SwapOp first = swaps.front().first;
  auto module = first->getParentOfType<ModuleOp>();
  OpBuilder b(first);
  Location loc = first.getLoc();
  Type i64 = b.getI64Type(), index = b.getIndexType();
  declare(module, "stencil_mpi_grid_rank", {i64}, {i64});
  declare(module, "stencil_mpi_irecv", {i64, i64, i64, i64}, {});
  declare(module, "stencil_mpi_isend", {i64, i64, i64, i64}, {});
  declare(module, "stencil_mpi_waitall", {}, {});

  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto i64c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  // All swaps of a group share one process grid (one strategy per pass).
  ArrayRef<int64_t> topology = first.getTopology().getShape();
  unsigned k = topology.size();
  Value rank = arith::IndexCastOp::create(
      b, loc, index,
      func::CallOp::create(b, loc, "stencil_mpi_grid_rank", i64,
                           ValueRange{i64c(first.getTopology().getNumRanks())})
          .getResult(0));
  SmallVector<int64_t> strides(k, 1);
  for (int d = k - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * topology[d + 1];
  SmallVector<Value> coords;
  for (unsigned d = 0; d < k; ++d)
    coords.push_back(arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, rank, idx(strides[d])),
        idx(topology[d])));

  PostedExchanges posted;
  for (auto [position, entry] : llvm::enumerate(swaps)) {
    auto [swap, memref] = entry;
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    // (index is 64 bits on the host; i1 takes a byte.)
    int64_t elementBytes =
        element.isIndex()
            ? 8
            : int64_t(llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
    for (Attribute attr : swap.getSwaps()) {
      auto exchange = cast<dmp::ExchangeAttr>(attr);
      ArrayRef<int64_t> dir = exchange.getNeighbor();
      // The neighbour's rank, or -1 at the edge of the grid.
      Value valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value peer = idx(0);
      for (unsigned d = 0; d < k; ++d) {
        Value c = coords[d];
        if (dir[d] < 0)
          valid = arith::AndIOp::create(
              b, loc, valid,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, c,
                                    idx(-dir[d])));
        if (dir[d] > 0)
          valid = arith::AndIOp::create(
              b, loc, valid,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                    idx(topology[d] - dir[d])));
        Value n =
            dir[d] ? Value(arith::AddIOp::create(b, loc, c, idx(dir[d]))) : c;
        peer = arith::AddIOp::create(
            b, loc, peer, arith::MulIOp::create(b, loc, n, idx(strides[d])));
      }
      Value peer64 = arith::SelectOp::create(
          b, loc, valid, arith::IndexCastOp::create(b, loc, i64, peer),
          i64c(-1));

      auto bufferType = MemRefType::get(exchange.getSize(), element);
      Value sendBuffer = memref::AllocOp::create(b, loc, bufferType);
      Value recvBuffer = memref::AllocOp::create(b, loc, bufferType);
      // Boxes are in the domain's coordinates; the memref starts at the
      // field's lower bound.
      ArrayRef<int64_t> lb =
          cast<stencil::FieldType>(swap.getField().getType()).getLb();
      SmallVector<int64_t> at(exchange.getOffset()), source;
      for (auto [a, l, o] : llvm::zip(at, lb, exchange.getSourceOffset())) {
        a -= l;
        source.push_back(a + o);
      }
      auto pack = scf::IfOp::create(b, loc, valid, /*withElseRegion=*/false);
      {
        OpBuilder tb = pack.getThenBodyBuilder();
        SmallVector<int64_t> origin(source.size(), 0);
        copyBox(tb, loc, memref, source, sendBuffer, origin,
                exchange.getSize());
      }
      Value bytes = i64c(exchange.getNumElements() * elementBytes);
      auto pointer = [&](Value buffer) -> Value {
        return arith::IndexCastOp::create(
            b, loc, i64,
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
      };
      // What this rank receives from `dir` was sent in direction -dir by
      // the same swap of the group.
      SmallVector<int64_t> back = llvm::map_to_vector(
          dir, [](int64_t d) { return -d; });
      int64_t base = position * 27;
      func::CallOp::create(b, loc, "stencil_mpi_irecv", TypeRange{},
                           ValueRange{pointer(recvBuffer), bytes, peer64,
                                      i64c(base + directionTag(back))});
      func::CallOp::create(b, loc, "stencil_mpi_isend", TypeRange{},
                           ValueRange{pointer(sendBuffer), bytes, peer64,
                                      i64c(base + directionTag(dir))});
      posted.push_back({memref, exchange, at, valid, sendBuffer, recvBuffer});
    }
  }
  return posted;
}

void mlir::stencil::completeHaloExchanges(OpBuilder &b, Location loc,
                                          const PostedExchanges &posted) {
  func::CallOp::create(b, loc, "stencil_mpi_waitall", TypeRange{},
                       ValueRange{});
  for (const stencil::PostedExchange &p : posted) {
    auto unpack = scf::IfOp::create(b, loc, p.valid, /*withElseRegion=*/false);
    {
      OpBuilder tb = unpack.getThenBodyBuilder();
      SmallVector<int64_t> origin(p.exchange.getSize().size(), 0);
      copyBox(tb, loc, p.recvBuffer, origin, p.memref, p.at,
              p.exchange.getSize());
    }
    memref::DeallocOp::create(b, loc, p.sendBuffer);
    memref::DeallocOp::create(b, loc, p.recvBuffer);
  }
}

void mlir::stencil::lowerHaloExchanges(
    ArrayRef<std::pair<dmp::SwapOp, Value>> swaps) {
  dmp::SwapOp first = swaps.front().first;
  PostedExchanges posted = postHaloExchanges(swaps);
  OpBuilder b(first);
  completeHaloExchanges(b, first.getLoc(), posted);
}
