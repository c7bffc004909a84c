//===- StencilOps.td - stencil operations ------------------*- tablegen -*-===//
//
// The ops and their textual form follow the stencil dialect that xDSL prints
// (and that Devito, PSyclone and Open Earth Compiler kernels use).
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_IR_STENCILOPS_TD
#define STENCIL_IR_STENCILOPS_TD

include "Stencil/IR/StencilDialect.td"
include "Stencil/IR/StencilAttrs.td"
include "Stencil/IR/StencilTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Fields
//===----------------------------------------------------------------------===//

def Stencil_CastOp : Stencil_Op<"cast", [Pure]> {
  let summary = "give a field with unknown bounds its bounds";
  let description = [{
    ```mlir
    %a = stencil.cast %in : !stencil.field<?x?xf64> -> !stencil.field<[-2,130]x[-2,130]xf64>
    ```
  }];
  let arguments = (ins Stencil_FieldType:$field);
  let results = (outs Stencil_FieldType:$result);
  let assemblyFormat = [{
    $field attr-dict-with-keyword `:` qualified(type($field)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Stencil_LoadOp : Stencil_Op<"load",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "read a field into a temp";
  let description = [{
    ```mlir
    %t = stencil.load %a : !stencil.field<[-2,130]x[-2,130]xf64> -> !stencil.temp<?x?xf64>
    ```
    The temp's bounds (set by shape inference) must lie inside the field.
  }];
  let arguments = (ins Stencil_FieldType:$field);
  let results = (outs Stencil_TempType:$res);
  let assemblyFormat = [{
    $field attr-dict-with-keyword `:` qualified(type($field)) `->` qualified(type($res))
  }];
  let hasVerifier = 1;
}

def Stencil_StoreOp : Stencil_Op<"store",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "write a temp into a field on explicit bounds";
  let description = [{
    ```mlir
    stencil.store %r to %b(<[0, 0], [128, 128]>) : !stencil.temp<?x?xf64> to !stencil.field<[-2,130]x[-2,130]xf64>
    ```
    Points of the field outside `bounds` are left untouched. The bounds
    also parse in the older form `([0, 0] : [128, 128])` of xDSL and the Open
    Earth Compiler.
  }];
  let arguments = (ins Stencil_TempType:$temp, Stencil_FieldType:$field,
                       Stencil_BoundsAttr:$bounds);
  let assemblyFormat = [{
    $temp `to` $field `` `(` custom<StoreBounds>($bounds) `)` attr-dict-with-keyword `:` qualified(type($temp)) `to` qualified(type($field))
  }];
  let hasVerifier = 1;
}

def Stencil_BufferOp : Stencil_Op<"buffer", [Pure]> {
  let summary = "materialize a temp (prevents inlining of its producer)";
  let description = [{
    ```mlir
    %b = stencil.buffer %r : !stencil.temp<?x?xf64> -> !stencil.temp<?x?xf64>
    ```
    xDSL's bufferization also emits a buffer whose result is a field (a
    copy of the temp in new memory, with the temp's bounds):
    ```mlir
    %f = stencil.buffer %t : !stencil.temp<[0,64]xf64> -> !stencil.field<[0,64]xf64>
    ```
  }];
  let arguments = (ins Stencil_TempType:$temp);
  let results = (outs Stencil_AnyFieldOrTemp:$res);
  let assemblyFormat = [{
    $temp attr-dict-with-keyword `:` qualified(type($temp)) `->` qualified(type($res))
  }];
  let hasVerifier = 1;
}

def Stencil_CombineOp : Stencil_Op<"combine",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "join temps computed on the two sides of a cut";
  let description = [{
    Result `i` equals `lower[i]` below `index` in dimension `dim` and
    `upper[i]` from `index` on. The optional `lowerext`/`upperext` operands
    give further results defined only on one side.
    ```mlir
    %c = stencil.combine 0 at 64 lower = (%a : !stencil.temp<?x?xf64>) upper = (%b : !stencil.temp<?x?xf64>) : !stencil.temp<?x?xf64>
    ```
  }];
  let arguments = (ins IndexAttr:$dim, IndexAttr:$index,
                       Variadic<Stencil_TempType>:$lower,
                       Variadic<Stencil_TempType>:$upper,
                       Variadic<Stencil_TempType>:$lowerext,
                       Variadic<Stencil_TempType>:$upperext);
  let results = (outs Variadic<Stencil_TempType>:$results);
  let assemblyFormat = [{
    $dim `at` $index `lower` `=` `(` $lower `:` qualified(type($lower)) `)`
    `upper` `=` `(` $upper `:` qualified(type($upper)) `)`
    (`lowerext` `=` $lowerext^ `:` qualified(type($lowerext)))?
    (`upperext` `=` $upperext^ `:` qualified(type($upperext)))?
    attr-dict-with-keyword `:` qualified(type($results))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getDimValue() { return getDim().getSExtValue(); }
    int64_t getIndexValue() { return getIndex().getSExtValue(); }
  }];
}

def Stencil_AllocOp : Stencil_Op<"alloc",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "allocate a field (produced by bufferization)";
  let description = [{
    ```mlir
    %f = stencil.alloc : !stencil.field<[0,64]x[-1,65]xf64>
    ```
    The field must have known bounds.
  }];
  let results = (outs Stencil_FieldType:$field);
  let assemblyFormat = "attr-dict `:` qualified(type($field))";
  let hasVerifier = 1;
}

def Stencil_ExternalLoadOp : Stencil_Op<"external_load", [Pure]> {
  let summary = "view external memory (a memref, a frontend array) as a field";
  let description = [{
    The field aliases the external memory; nothing is copied.
    ```mlir
    %f = stencil.external_load %m : memref<64x64xf64> -> !stencil.field<[-2,62]x[0,64]xf64>
    ```
  }];
  let arguments = (ins AnyType:$field);
  let results = (outs AnyTypeOf<[Stencil_FieldType, AnyMemRef]>:$result);
  let assemblyFormat = [{
    $field attr-dict-with-keyword `:` qualified(type($field)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Stencil_ExternalStoreOp : Stencil_Op<"external_store",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "make the values of a field visible in external memory";
  let description = [{
    The counterpart of `stencil.external_load`: the field's values end up in
    the external memory (a no-op when the field aliases it).
    ```mlir
    stencil.external_store %f to %m : !stencil.field<[-2,62]x[0,64]xf64> to memref<64x64xf64>
    ```
  }];
  let arguments = (ins Stencil_FieldType:$temp, AnyType:$field);
  let assemblyFormat = [{
    $temp `to` $field attr-dict-with-keyword `:` qualified(type($temp)) `to` qualified(type($field))
  }];
  let hasVerifier = 1;
}

// Ops of an apply body may sit in nested regions (scf.if) of the body.
def Stencil_InApply : PredOpTrait<"is nested in a stencil.apply",
    CPred<"$_op.getParentOfType<::mlir::stencil::ApplyOp>() != nullptr">>;

//===----------------------------------------------------------------------===//
// Apply and its body
//===----------------------------------------------------------------------===//

def Stencil_ApplyOp : Stencil_Op<"apply", [
    IsolatedFromAbove, AttrSizedOperandSegments,
    SingleBlock,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "compute temps point by point";
  let description = [{
    The region computes the values of one point of the results from
    neighbouring points of the arguments (via `stencil.access`). The results
    are defined on their bounds (all the same); with `outs` the apply writes
    fields directly on the `to` bounds instead (buffer semantics).
    ```mlir
    %r = stencil.apply(%x = %t : !stencil.temp<?x?xf64>) -> (!stencil.temp<?x?xf64>) {
      %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
      %res = stencil.store_result %n : !stencil.result<f64>
      stencil.return %res : !stencil.result<f64>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$args,
                       Variadic<Stencil_FieldType>:$dest,
                       OptionalAttr<Stencil_BoundsAttr>:$bounds);
  let results = (outs Variadic<Stencil_TempType>:$res);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  // Checks of the accesses in the body (after the body ops are verified).
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$args)>
  ];
  let extraClassDeclaration = [{
    /// Rank of the iteration space.
    unsigned getRank();
    /// The iteration box: the result bounds, or `bounds` with `outs`.
    /// Null when unknown (before shape inference).
    ::mlir::stencil::BoundsAttr getIterationBounds();
    ::mlir::Block *getBody() { return &getRegion().front(); }
    ::mlir::stencil::ReturnOp getReturnOp();
    /// The unroll factor of every dimension (1 without `unroll`). An
    /// unrolled apply runs its body at the base points lb + k * u of its
    /// bounds; an evaluation at base b computes the points b + p of the
    /// unroll box that lie in the bounds (when an extent is not a multiple
    /// of u, the last block sticks out), running only the operations those
    /// points' results need.
    ::llvm::SmallVector<int64_t> getUnrollFactors();
    /// For each operation at the top level of the body, the points of the
    /// unroll box (numbered row-major, as the return operands of one result)
    /// whose results need it; operations no result needs are absent.
    ::llvm::DenseMap<::mlir::Operation *, ::llvm::BitVector>
    getUnrollPointUses();
    /// The base points at which the body's top-level operation `op` runs
    /// (`uses` from getUnrollPointUses; an operation no result needs runs
    /// with point 0): per dimension an exclusive upper bound, the lower one
    /// being the iteration lower bound; nothing when it never runs. The
    /// reads of an access at offset o inside `op` span lb + o to that
    /// bound + o. Needs known iteration bounds.
    ::std::optional<::llvm::SmallVector<int64_t>> getBaseUpperBounds(
        ::mlir::Operation *op,
        const ::llvm::DenseMap<::mlir::Operation *, ::llvm::BitVector> &uses);
    /// The offset of point `p` of the unroll box in each dimension.
    ::llvm::SmallVector<int64_t> getUnrollPointOffset(unsigned p);
    /// The region argument bound to operand `i`.
    ::mlir::BlockArgument getBodyArg(unsigned i) {
      return getBody()->getArgument(i);
    }
  }];
}

def Stencil_AccessOp : Stencil_Op<"access",
    [Pure, Stencil_InApply]> {
  let summary = "read an argument at a constant offset from the current point";
  let description = [{
    ```mlir
    %n = stencil.access %x[0, 1] : !stencil.temp<?x?xf64>
    %k = stencil.access %c[_, 2] : !stencil.temp<?xf64>   // lower-rank operand
    ```
    A `_` marks a dimension of the apply that the lower-rank operand does not
    have; `offset_mapping` then lists the apply dimensions that it has.
  }];
  let arguments = (ins Stencil_AnyFieldOrTemp:$temp,
                       Stencil_IndexAttr:$offset,
                       OptionalAttr<Stencil_IndexAttr>:$offset_mapping);
  let results = (outs AnyType:$res);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The offset in every dimension of the apply (0 where the operand has
    /// no such dimension), and the operand dim of each apply dim (-1 if none).
    ::llvm::SmallVector<int64_t> getApplyOffset(unsigned applyRank);
    ::llvm::SmallVector<int64_t> getOperandDims(unsigned applyRank);
  }];
}

def Stencil_DynAccessOp : Stencil_Op<"dyn_access", [Pure,
    Stencil_InApply,
    TypesMatchWith<"result type is the element type of the operand",
                   "temp", "res",
                   "::mlir::stencil::getElementTypeOf($_self)">]> {
  let summary = "read an argument at absolute, dynamic indices";
  let description = [{
    `lb`/`ub` bound the accessed points relative to the current point.
    ```mlir
    %v = stencil.dyn_access %x[%i, %j] in <[-1, -1]> : <[1, 1]> : !stencil.temp<?x?xf64>
    ```
  }];
  let arguments = (ins Stencil_AnyFieldOrTemp:$temp, Variadic<Index>:$offset,
                       Stencil_IndexAttr:$lb, Stencil_IndexAttr:$ub);
  let results = (outs AnyType:$res);
  let assemblyFormat = [{
    $temp `[` $offset `]` `in` $lb `:` $ub attr-dict-with-keyword `:` qualified(type($temp))
  }];
  let hasVerifier = 1;
}

def Stencil_IndexOp : Stencil_Op<"index", [Pure, Stencil_InApply]> {
  let summary = "the current point's index in one dimension, plus an offset";
  let description = [{
    ```mlir
    %i = stencil.index 0 <[0, 0]>
    ```
  }];
  let arguments = (ins IndexAttr:$dim, Stencil_IndexAttr:$offset);
  let results = (outs Index:$idx);
  let assemblyFormat = "$dim $offset attr-dict-with-keyword";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getDimValue() { return getDim().getSExtValue(); }
  }];
}

def Stencil_StoreResultOp : Stencil_Op<"store_result", [Pure,
    Stencil_InApply]> {
  let summary = "the value of an apply result at the current point";
  let description = [{
    Without an operand the point is left unwritten.
    ```mlir
    %r = stencil.store_result %v : !stencil.result<f64>
    %e = stencil.store_result : !stencil.result<f64>
    ```
  }];
  let arguments = (ins Optional<AnyType>:$arg);
  let results = (outs Stencil_ResultType:$res);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Stencil_ReturnOp : Stencil_Op<"return", [Pure, Terminator,
    HasParent<"ApplyOp">]> {
  let summary = "terminate an apply with the values of its results";
  let description = [{
    With `unroll <[u0, u1, ...]>` the body computes a block of
    `u0 * u1 * ...` points and returns that many values per result (result
    `r`, unrolled point `p` is operand `r * U + p`, points in row-major order).
    ```mlir
    stencil.return %res : !stencil.result<f64>
    stencil.return %a, %b unroll <[1, 2]> : !stencil.result<f64>, !stencil.result<f64>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$arg,
                       OptionalAttr<Stencil_IndexAttr>:$unroll);
  let assemblyFormat = [{
    $arg (`unroll` $unroll^)? attr-dict-with-keyword `:` qualified(type($arg))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of points computed per iteration (product of `unroll`).
    unsigned getUnrollFactor();
  }];
}

//===----------------------------------------------------------------------===//
// Reduction (xDSL's form)
//===----------------------------------------------------------------------===//

def Stencil_ReduceOp : Stencil_Op<"reduce",
    [AllTypesMatch<["acc", "init"]>]> {
  let summary = "a combiner of two values, as xDSL writes it (parsed, not lowered)";
  let description = [{
    xDSL's `stencil.reduce`: an accumulator, its initial value, and a body
    that combines two values of their type into one (`stencil.yield`). It
    has no result and no lowering in xDSL; here it parses, verifies and
    prints the same, and the lowerings refuse it with a located error.
    ```mlir
    stencil.reduce %a init %b {
    ^bb0(%x: f64, %y: f64):
      %s = arith.addf %x, %y : f64
      stencil.yield %s : f64
    } : f64
    ```
  }];
  let arguments = (ins AnyType:$acc, AnyType:$init);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$acc `init` $init $body attr-dict `:` type($acc)";
  let hasVerifier = 1;
}

def Stencil_YieldOp : Stencil_Op<"yield", [Pure, Terminator,
    HasParent<"ReduceOp">]> {
  let summary = "the combined value of a stencil.reduce body";
  let arguments = (ins AnyType:$operand);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

#endif // STENCIL_IR_STENCILOPS_TD
