//===- StencilTypesTest.cpp - C++ API of the stencil types -----------------===//

#include "Stencil/IR/StencilDialect.h"
#include "Stencil/IR/StencilOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::stencil;

namespace {

class StencilTypesTest : public ::testing::Test {
protected:
  StencilTypesTest() { ctx.getOrLoadDialect<StencilDialect>(); }

  std::string print(Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return s;
  }

  MLIRContext ctx;
};

TEST_F(StencilTypesTest, BoundedField) {
  Type f64 = Float64Type::get(&ctx);
  auto field = FieldType::get(&ctx, {-2, -1}, {130, 65}, f64);
  EXPECT_EQ(field.getRank(), 2u);
  EXPECT_TRUE(field.hasBounds());
  EXPECT_EQ(field.getShape(), (SmallVector<int64_t>{132, 66}));
  EXPECT_EQ(print(field), "!stencil.field<[-2,130]x[-1,65]xf64>");
  EXPECT_EQ(getElementTypeOf(field), f64);
  EXPECT_EQ(getRankOf(field), 2u);
  BoundsAttr bounds = getBoundsOf(field);
  ASSERT_TRUE(bounds);
  EXPECT_EQ(bounds.getLb(), (ArrayRef<int64_t>{-2, -1}));
  EXPECT_EQ(bounds.getUb(), (ArrayRef<int64_t>{130, 65}));
}

TEST_F(StencilTypesTest, DynamicTempAndWithBounds) {
  Type f32 = Float32Type::get(&ctx);
  auto temp = TempType::get(3, f32);
  EXPECT_FALSE(temp.hasBounds());
  EXPECT_EQ(print(temp), "!stencil.temp<?x?x?xf32>");
  EXPECT_FALSE(getBoundsOf(temp));
  EXPECT_TRUE(ShapedType::isDynamic(temp.getShape()[1]));

  auto bounded = temp.withBounds({0, 0, 0}, {4, 5, 6});
  EXPECT_EQ(print(bounded), "!stencil.temp<[0,4]x[0,5]x[0,6]xf32>");
  BoundsAttr b = BoundsAttr::get(&ctx, {1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(withBounds(temp, b), TempType::get(&ctx, {1, 2, 3}, {4, 5, 6}, f32));
  EXPECT_EQ(withBounds(bounded, BoundsAttr()), temp);
  // Non-stencil types pass through the helpers unchanged.
  EXPECT_EQ(withBounds(f32, b), f32);
  EXPECT_EQ(getRankOf(f32), 0u);
  EXPECT_FALSE(getElementTypeOf(f32));
}

TEST_F(StencilTypesTest, ResultType) {
  auto result = ResultType::get(&ctx, IntegerType::get(&ctx, 32));
  EXPECT_EQ(print(result), "!stencil.result<i32>");
  EXPECT_EQ(getElementTypeOf(result), IntegerType::get(&ctx, 32));
}

TEST_F(StencilTypesTest, ParsePrintRoundTrip) {
  for (const char *text :
       {"!stencil.field<?xf64>", "!stencil.field<[-3,67]x[0,8]x[-1,1]xi64>",
        "!stencil.temp<[0,64]xf16>", "!stencil.temp<?x?xindex>",
        "!stencil.result<f32>"}) {
    Type t = parseType(text, &ctx);
    ASSERT_TRUE(t) << text;
    EXPECT_EQ(print(t), text);
  }
}

TEST_F(StencilTypesTest, Attributes) {
  auto index = IndexAttr::get(&ctx, {0, -1, 2});
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(index[1], -1);
  Attribute parsed = parseAttribute("#stencil.bounds<[0, 0], [64, 32]>", &ctx);
  auto bounds = dyn_cast_or_null<BoundsAttr>(parsed);
  ASSERT_TRUE(bounds);
  EXPECT_EQ(bounds.getRank(), 2u);
  EXPECT_EQ(bounds.getUb()[1], 32);
}

TEST_F(StencilTypesTest, VerifierRejectsMalformedTypes) {
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    messages.push_back(d.str());
    return success();
  });
  auto loc = UnknownLoc::get(&ctx);
  auto emit = [&] { return emitError(loc); };
  Type f64 = Float64Type::get(&ctx);
  EXPECT_FALSE(FieldType::getChecked(emit, &ctx, {0}, {-1}, f64));
  EXPECT_FALSE(FieldType::getChecked(emit, &ctx, {0, 0, 0, 0}, {1, 1, 1, 1}, f64));
  EXPECT_FALSE(TempType::getChecked(emit, &ctx, {0, ShapedType::kDynamic},
                                    {4, ShapedType::kDynamic}, f64));
  EXPECT_FALSE(IndexAttr::getChecked(emit, &ctx, ArrayRef<int64_t>{}));
  EXPECT_FALSE(BoundsAttr::getChecked(emit, &ctx, {0, 0}, {1}));
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_NE(messages[0].find("below lower bound"), std::string::npos);
  EXPECT_NE(messages[1].find("rank 1 to 3"), std::string::npos);
  EXPECT_NE(messages[2].find("fully dynamic or fully bounded"), std::string::npos);
}

} // namespace
