//===- RegistrationTest.cpp - InitStencil.h entry points -------------------===//
//
// What an embedding tool gets from registerStencilDialect and
// registerStencilPasses: the dialects, the passes and pipelines by name, and a
// pass pipeline parsed from text that runs on a parsed stencil program.
//
//===----------------------------------------------------------------------===//

#include "Stencil/InitStencil.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

class RegistrationTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { registerStencilPasses(); }

  RegistrationTest() {
    DialectRegistry registry;
    registerStencilDialect(registry);
    ctx.appendDialectRegistry(registry);
  }

  MLIRContext ctx;
};

TEST_F(RegistrationTest, Dialects) {
  DialectRegistry registry;
  registerStencilDialect(registry);
  auto names = registry.getDialectNames();
  for (llvm::StringRef name : {"stencil", "arith", "func", "memref", "scf"})
    EXPECT_TRUE(llvm::is_contained(names, name)) << name.str();
  EXPECT_NE(ctx.getOrLoadDialect("stencil"), nullptr);
}

TEST_F(RegistrationTest, PassesAndPipelinesByName) {
  for (llvm::StringRef name :
       {"stencil-shape-inference", "stencil-inlining",
        "convert-stencil-to-loops"})
    EXPECT_NE(PassInfo::lookup(name), nullptr) << name.str();
  EXPECT_NE(PassPipelineInfo::lookup("stencil-cpu-pipeline"), nullptr);
}

TEST_F(RegistrationTest, TextualPipelineRunsOnParsedProgram) {
  const char *program = R"mlir(
    func.func @shift(%a : !stencil.field<[-1,9]xf64>, %b : !stencil.field<[-1,9]xf64>) {
      %t = stencil.load %a : !stencil.field<[-1,9]xf64> -> !stencil.temp<?xf64>
      %r = stencil.apply(%x = %t : !stencil.temp<?xf64>) -> (!stencil.temp<?xf64>) {
        %v = stencil.access %x[1] : !stencil.temp<?xf64>
        %s = stencil.store_result %v : !stencil.result<f64>
        stencil.return %s : !stencil.result<f64>
      }
      stencil.store %r to %b(<[0], [8]>) : !stencil.temp<?xf64> to !stencil.field<[-1,9]xf64>
      func.return
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(program, &ctx);
  ASSERT_TRUE(module);

  PassManager pm(&ctx);
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  // The passes of a pipeline anchored on the module, as `--pass-pipeline=
  // builtin.module(...)` gives them.
  ASSERT_TRUE(succeeded(
      parsePassPipeline("stencil-shape-inference", pm, errStream)))
      << errors;
  ASSERT_EQ(pm.size(), 1u);
  ASSERT_TRUE(succeeded(pm.run(*module)));

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("-> !stencil.temp<[1,9]xf64>"), std::string::npos)
      << text;
  EXPECT_NE(text.find("-> (!stencil.temp<[0,8]xf64>)"), std::string::npos)
      << text;
}

TEST_F(RegistrationTest, UnknownPassIsRejected) {
  PassManager pm(&ctx);
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  EXPECT_TRUE(failed(parsePassPipeline("stencil-no-such-pass", pm, errStream)));
  EXPECT_NE(errors.find("stencil-no-such-pass"), std::string::npos) << errors;
}

} // namespace
