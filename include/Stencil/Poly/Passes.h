//===- Passes.h - polyhedral passes -----------------------------*- C++ -*-===//

#ifndef STENCIL_POLY_PASSES_H
#define STENCIL_POLY_PASSES_H

#include "Stencil/Poly/PolyOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace mlir::stencil::poly {

#define GEN_PASS_DECL
#include "Stencil/Poly/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Stencil/Poly/Passes.h.inc"

/// Turns the stencil regions of `module` into poly.scop ops: every time loop
/// and, with `sweeps`, the stencil ops of each block outside time loops.
/// Regions outside the supported class stay as they are, with a warning
/// saying why. Temps must have bounds.
SmallVector<ScopOp> extractScops(ModuleOp module, bool sweeps);

/// True when some temp lacks bounds (shape inference has not run).
bool hasUnboundedTemps(ModuleOp module);
/// Adds the stencil shape inference pass.
void addShapeInference(OpPassManager &pm);

/// What --hex-tile does to one scop.
struct HexTileRequest {
  int64_t height = -1;          // -1: the default
  SmallVector<int64_t> widths;  // empty: the defaults
  unsigned hexDim = 0;
  bool gpuSizes = false;        // the GPU's default sizes, else the CPU's
  bool isolate = true;
  /// Full tiles isolated also when a step has several statements. The
  /// passes leave it to the GPU unless `isolate` is given: on the CPU the
  /// separate full-tile code multiplies the loop generation there
  /// (fdtd-2d at 3072^2: 4x the lines, 1.33 s instead of 0.49 s; elastic
  /// 2D at order 2 on 2048^2: 14.7 s instead of 0.8 s) and gained nothing
  /// measurable (fdtd-2d hex-tiled: 0.440 and 0.438 GStencils/s).
  bool isolateSeveralStatements = true;
  bool unroll = false;
  bool ignoreDependences = false; // testing only
  /// With default widths: the hexagonal width w0 shrinks (not below the
  /// smallest valid one) until a phase has at least this many tiles along
  /// the hexagonal dimension, one per thread block on a GPU (0: no limit;
  /// only for domains with a constant extent there).
  int64_t minParallelTiles = 0;
  /// The translation offset of the innermost parallelogram tiles (sec.
  /// 4.2.3; HybridTilingOptions::offset).
  int64_t offset = 0;
  /// CPU sizes not given: the tile-size model's (TileSizeModel.h) instead
  /// of the fixed defaults, within `budgetBytes` (0: the host's default),
  /// and a remark with its figures when `report`.
  bool model = false;
  int64_t budgetBytes = 0;
  bool report = false;
};

struct ScopModel;

/// What hex-tiling one scop needs besides the sizes, none of which depends
/// on its current schedule: its polyhedral model, dependences and their
/// cone. A caller that tiles a scop several times (poly-to-gpu's re-tilings)
/// passes one to hexTileScop, which fills it on the first call.
class HexTileAnalysis {
public:
  HexTileAnalysis();
  ~HexTileAnalysis();
  /// The scop's model with the schedule hexTileScop set last (so that a
  /// caller need not parse it back); null before the first tiling.
  const ScopModel *tiledModel() const;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Hybrid-tiles `scop` (from its canonical schedule, whatever its current
/// one), verified against its dependences; errors are located diagnostics
/// and leave the scop as it was. `chosen`, when given, receives the sizes
/// used (h and widths; unchanged when the scop has no time to tile).
LogicalResult hexTileScop(ScopOp scop, const HexTileRequest &request,
                          HexTileRequest *chosen = nullptr,
                          HexTileAnalysis *analysis = nullptr);

/// The attribute --hex-tile (target=auto, default sizes) leaves on a scop so
/// that poly-to-gpu tiles it again with the GPU's sizes: a dictionary of
/// the other options (hex_dim, isolate, unroll).
constexpr const char *kRetileForGpuAttr = "hex_tile_auto";

/// What --split-tile does to one scop.
struct SplitTileRequest {
  int64_t height = -1;          // -1: the default
  SmallVector<int64_t> widths;  // empty: the defaults
  bool gpuSizes = false;        // the GPU's default sizes, else the CPU's
  bool isolate = true;
  bool isolateSeveralStatements = true; // as in HexTileRequest
  bool unroll = false;
  bool ignoreDependences = false; // testing only
  /// As in HexTileRequest.
  bool model = false;
  int64_t budgetBytes = 0;
  bool report = false;
};

/// Split-tiles `scop` (from its canonical schedule), verified against its
/// dependences; errors are located diagnostics and leave the scop as it
/// was.
LogicalResult splitTileScop(ScopOp scop, const SplitTileRequest &request);

/// The attribute --split-tile (target=auto, default sizes) leaves on a scop
/// so that poly-to-gpu tiles it again with the GPU's sizes: a dictionary of
/// the other options given (isolate, unroll).
constexpr const char *kSplitRetileForGpuAttr = "split_tile_auto";

/// Lets a --hex-tile or --split-tile of `pm` that would tile for a target
/// not yet known (target=auto, default sizes) leave the tiling to a
/// poly-to-gpu that follows it, with only shape inference between them:
/// poly-to-gpu tiles such a scop again with the GPU's sizes from its
/// canonical schedule, so the CPU's tiling would be thrown away. The scop
/// keeps its canonical schedule and gets the re-tiling attribute alone.
/// stencil-opt calls this on the pipeline it parsed; a frontend that builds
/// its own pass manager may call it too (nothing changes without it but the
/// compile time).
void leaveTilingToGpuMapping(OpPassManager &pm);

/// Whether the GPU's tilings of `scop` isolate full tiles when `isolate` is
/// not given (poly-to-gpu's re-tiling, --hex-tile/--split-tile target=gpu):
/// in 1D and 2D, with one statement per step of at most 20 operations.
/// Isolation gives a full tile straight-line steps, but doubles the code of
/// a tile (full and partial versions in one kernel). In 3D and with
/// several statements per step (fdtd-2d, Devito's elastic forms) that
/// pushed the kernels past 255 registers into spills; with the tens of
/// operations of Devito's 2D forms it doubles the registers and takes 3-4x
/// the compile time (heat at order 2 on 1024^2: 162 instead of 96
/// registers, 3.0 s instead of 1.0 s; at order 8 940 bytes spilled), for
/// 3% fewer modeled instructions (docs/performance.md). Fails (with a
/// diagnostic) when the scop cannot be read.
FailureOr<bool> gpuIsolatesFullTiles(ScopOp scop);

/// Whether `--hex-tile`/`--split-tile` isolate the full tiles of `scop`:
/// `isolate` when the option was `given`, else gpuIsolatesFullTiles for a
/// GPU target, else `isolate` (the option's default).
FailureOr<bool> tilingIsolatesFullTiles(ScopOp scop, bool gpuTarget, bool given,
                                        bool isolate);

/// Whether a time tiling that poly-to-gpu follows leaves `scop` to it: the
/// sizes are defaults for a target not yet known (`target` auto, `height`
/// -1, no widths), no test option ignores the dependences, and --fuse has
/// not planned the scop (the tiling replaces that plan).
bool leavesTilingToGpuMapping(ScopOp scop, StringRef target, int64_t height,
                              bool widthsGiven, bool ignoreDependences);

namespace detail {
/// Marks `pass` when it is a --hex-tile (--split-tile) pass; false
/// otherwise. For leaveTilingToGpuMapping.
bool leaveHexTilingToGpuMapping(Pass &pass);
bool leaveSplitTilingToGpuMapping(Pass &pass);
} // namespace detail

/// What --fuse (or poly-to-gpu, planning a fused scop again for a GPU)
/// does to one scop.
struct FuseRequest {
  SmallVector<int64_t> tileSizes; // empty: the model's
  /// The model's budget (0: half the host's L2 cache, or 48 KiB of shared
  /// memory for a GPU).
  int64_t budgetBytes = 0;
  bool gpu = false;
  SmallVector<int64_t> threads; // GPU: per block, x and y (empty: default)
  bool report = false;          // a remark with the plan
};

/// Fuses the statements of each step of `scop` (Fusion.h) when its
/// schedule is canonical, or plans a fused scop again; other scops are left
/// alone. Errors are located diagnostics and leave the scop as it was.
LogicalResult fuseScop(ScopOp scop, const FuseRequest &request);

/// The attribute --fuse leaves on the scops it fused so that poly-to-gpu
/// plans them again for a GPU: `{tile = [...]}` when the sizes were given.
constexpr const char *kFuseRequestAttr = "fuse_request";

} // namespace mlir::stencil::poly

#endif // STENCIL_POLY_PASSES_H
