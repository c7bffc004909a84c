//===- StencilTypes.td - stencil types ---------------------*- tablegen -*-===//

#ifndef STENCIL_IR_STENCILTYPES_TD
#define STENCIL_IR_STENCILTYPES_TD

include "Stencil/IR/StencilDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

// Fields and temps share their shape: either fully dynamic (`?x?xf64`) or a
// box `[lb,ub]x...` with exclusive upper bounds. Dynamic dims are stored as
// ShapedType::kDynamic in both `lb` and `ub`.
defvar Stencil_ShapedTypeCommonDecl = [{
    unsigned getRank() const { return getLb().size(); }
    /// True when the bounds are known (`[lb,ub]` form).
    bool hasBounds() const {
      return getRank() > 0 && !::mlir::ShapedType::isDynamic(getLb()[0]);
    }
    /// Extent ub - lb of every dimension (requires bounds).
    ::llvm::SmallVector<int64_t> getShape() const {
      ::llvm::SmallVector<int64_t> s;
      for (unsigned d = 0; d < getRank(); ++d)
        s.push_back(hasBounds() ? getUb()[d] - getLb()[d]
                                : ::mlir::ShapedType::kDynamic);
      return s;
    }
  }];

class Stencil_ShapedType<string name, string typeMnemonic>
    : TypeDef<Stencil_Dialect, name> {
  let mnemonic = typeMnemonic;
  let parameters = (ins ArrayRefParameter<"int64_t">:$lb,
                        ArrayRefParameter<"int64_t">:$ub,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$lb,
        "::llvm::ArrayRef<int64_t>":$ub, "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), lb, ub, elementType);
    }]>,
    // A type of the given rank with unknown bounds.
    TypeBuilderWithInferredContext<(ins "unsigned":$rank,
        "::mlir::Type":$elementType), [{
      ::llvm::SmallVector<int64_t> dyn(rank, ::mlir::ShapedType::kDynamic);
      return $_get(elementType.getContext(), dyn, dyn, elementType);
    }]>
  ];
  let extraClassDeclaration = Stencil_ShapedTypeCommonDecl;
}

def Stencil_FieldType : Stencil_ShapedType<"Field", "field"> {
  let summary = "memory holding grid values, `!stencil.field<[lb,ub]x...xT>`";
  let extraClassDeclaration = !strconcat(Stencil_ShapedTypeCommonDecl, [{
    FieldType withBounds(::llvm::ArrayRef<int64_t> lb,
                         ::llvm::ArrayRef<int64_t> ub) const {
      return FieldType::get(getContext(), lb, ub, getElementType());
    }
  }]);
}

def Stencil_TempType : Stencil_ShapedType<"Temp", "temp"> {
  let summary = "grid values with value semantics, `!stencil.temp<[lb,ub]x...xT>`";
  let extraClassDeclaration = !strconcat(Stencil_ShapedTypeCommonDecl, [{
    TempType withBounds(::llvm::ArrayRef<int64_t> lb,
                        ::llvm::ArrayRef<int64_t> ub) const {
      return TempType::get(getContext(), lb, ub, getElementType());
    }
  }]);
}

def Stencil_ResultType : TypeDef<Stencil_Dialect, "Result"> {
  let mnemonic = "result";
  let summary = "the value one apply computes at one point, `!stencil.result<T>`";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let genVerifyDecl = 1;
}

def Stencil_AnyFieldOrTemp : AnyTypeOf<[Stencil_FieldType, Stencil_TempType],
                                       "stencil field or temp">;

#endif // STENCIL_IR_STENCILTYPES_TD
