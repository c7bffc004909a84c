//===- PolyOps.td - polyhedral form of stencil programs -----*- tablegen -*-===//
//
// A stencil region (a time loop or a single sweep) in the polyhedral model:
// arrays, statements with their iteration domains, access relations and
// scalar bodies, and an isl schedule tree. Domains, accesses and the schedule
// are kept in isl's own text form, so every transformation of the schedule
// reads as text in the IR.
//
//===----------------------------------------------------------------------===//

#ifndef STENCIL_POLY_POLYOPS_TD
#define STENCIL_POLY_POLYOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Poly_Dialect : Dialect {
  let name = "poly";
  let cppNamespace = "::mlir::stencil::poly";
  let summary = "Stencil regions as isl statements, accesses and schedule trees";
  let description = [{
    `--stencil-to-poly` turns stencil regions into `poly.scop` ops;
    schedule transformations such as `--hex-tile` rewrite their schedule
    tree, and `--convert-stencil-to-loops` generates loops from it.
  }];
}

class Poly_Op<string mnemonic, list<Trait> traits = []>
    : Op<Poly_Dialect, mnemonic, traits>;

def Poly_ScopOp : Poly_Op<"scop", [
    SingleBlock, NoTerminator, SymbolTable,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a stencil region in the polyhedral model";
  let description = [{
    Holds `poly.array` and `poly.stmt` ops. `schedule` is an isl schedule
    tree (isl's YAML text) over the statement instances `S[t, s...]`, where
    `t` counts the time steps from 0 and `s` are grid coordinates. The number
    of steps is the isl parameter `N`, bound to `steps` (a single sweep has
    no `steps` and `t = 0`).

    A schedule mapped to the GPU (`--poly-to-gpu`) has "kernel" and
    "threads" marks; `gpu_threads` (x, y, z) and `gpu_max_blocks` then give
    the launch configuration of its kernels.

    The results are the fields the region leaves behind, as a time loop's
    results: result `j` is buffer `(result_offsets[j] + N) mod k` of the
    `k` buffers of array `result_arrays[j]`.

    ```mlir
    %r:2 = poly.scop steps(%n) attributes {
        schedule = "{ domain: \"[N] -> { S0[t, i] : ... }\", child: ... }",
        result_arrays = [@A0, @A0], result_offsets = array<i64: 0, 1>}
        -> !stencil.field<[-1,65]xf64>, !stencil.field<[-1,65]xf64> {
      poly.array @A0 buffers(%u0, %u1 : ...) box [-1] to [65] of f64
      poly.stmt @S0 domain "..." writes "..." reads [...] { ... }
    }
    ```
  }];
  let arguments = (ins Optional<Index>:$steps, StrAttr:$schedule,
                       FlatSymbolRefArrayAttr:$result_arrays,
                       DenseI64ArrayAttr:$result_offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$gpu_threads,
                       OptionalAttr<I64Attr>:$gpu_max_blocks);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`steps` `(` $steps^ `)`)? attr-dict-with-keyword (`->` type($results)^)?
    $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    auto getArrays() { return getBody().front().getOps<ArrayOp>(); }
    auto getStatements() { return getBody().front().getOps<StmtOp>(); }
  }];
}

def Poly_ArrayOp : Poly_Op<"array", [Symbol, HasParent<"ScopOp">]> {
  let summary = "an array of the region: rotating field buffers or a temp";
  let description = [{
    An array indexed by grid coordinates on the box `[lb, ub)`. With
    `buffers`, the array is the field (or the fields rotating through a time
    loop, in rotation order) and its accesses carry the buffer index as an
    extra leading subscript when there are several. Without, it is storage
    of the region (a temp), allocated by the code generator.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Variadic<AnyType>:$buffers,
                       DenseI64ArrayAttr:$lb, DenseI64ArrayAttr:$ub,
                       TypeAttr:$element_type);
  let assemblyFormat = [{
    $sym_name (`buffers` `(` $buffers^ `:` type($buffers) `)`)?
    `box` $lb `to` $ub `of` $element_type attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isTemp() { return getBuffers().empty(); }
    unsigned getRank() { return getLb().size(); }
    /// Bytes per element (an `index` counts as 64 bits).
    int64_t getElementBytes();
  }];
}

def Poly_StmtOp : Poly_Op<"stmt", [
    Symbol, HasParent<"ScopOp">, SingleBlock]> {
  let summary = "a statement: one computed value per instance";
  let description = [{
    `domain` is the isl set of instances `S[t, s...]`, `writes` the access
    relation of the value computed, `reads` one access relation per block
    argument: the body receives the values read, followed by the grid
    coordinates `s...` of the instance (index values), and yields the value
    to write.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$domain,
                       StrAttr:$writes, StrArrayAttr:$reads);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `domain` $domain `writes` $writes `reads` $reads
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Poly_YieldOp : Poly_Op<"yield", [Pure, Terminator, HasParent<"StmtOp">]> {
  let summary = "the value a statement instance writes";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // STENCIL_POLY_POLYOPS_TD
